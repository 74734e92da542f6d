#!/bin/sh
# The disk full under load (checkpoint-api(7), "ERRORS": 503, nothing
# half-written left behind).  A failed group commit
# answers each of its requests with an error, never a false 202.
#
# The database lives on a tmpfs of its own, 8 MiB.  Behind nginx keeping its
# FastCGI connections to one process of 64 threads (the largest group
# commits), a file then fills what is left of it, and wrk POSTs fresh
# triggers on 16 connections, one per wrk thread, so that each answer is
# known to be its request's.  A commit that needs more room fails with
# SQLITE_FULL; one that fits (the WAL is started over once a checkpoint
# has copied it all) succeeds.  Then:
# - every answer is a 202 with its own trigger's id or the 503 of
#   checkpoint-api(7);
# - some 503s came, and more of them than the app logged failed commits:
#   a failed commit of several triggers answered each of them;
# - GETs still answer while the disk is full;
# - with the file removed, the same process answers 202 again; every
#   trigger answered 202 is in the database, none answered 503 is, and
#   PRAGMA integrity_check is ok.
#
# Root only (mount); without root the cases are reported as skipped.
# shellcheck disable=SC2086

. "$(dirname "$0")/lib.sh"

LOAD_S=${DISK_FULL_LOAD_S:-2}	# seconds of POSTs with the disk full
J=54000000000000000000000000000001
MNT=$T/mnt
MOUNTED=
UNAVAILABLE='{"errors":["Service temporarily unavailable: the checkpoint database cannot be opened or read. Please retry."]}'

if [ "$(id -u)" -ne 0 ]; then
	skip "a failed group commit answers each of its requests with an error" \
	    "needs root (a tmpfs of its own to fill)"
	done_testing
fi
for c in nginx spawn-fcgi sqlite3 curl wrk mount umount; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing"
done
share_dir "$T"	# the app's user reaches the mount point

unset $SETTINGS
CHECKPOINT_STORE_DURATION=0	# keep every result
DB=$MNT/checkpoints.db
CHECKPOINT_DB=$DB
export CHECKPOINT_STORE_DURATION CHECKPOINT_DB

# The processes first, then the filesystem (no process may hold it).
full_cleanup() {
	stop_recorded
	unmount_cleanup
}
trap full_cleanup EXIT

mkdir -p "$MNT"
mount -t tmpfs -o size=8m,mode=0755 tmpfs "$MNT" || bail "mount -t tmpfs failed"
MOUNTED=1
share_dir "$MNT"
(as_run_user "$CTL" init >/dev/null) &&
(as_run_user "$CTL" job add "$J" --name full >/dev/null) ||
    bail "checkpointctl on $DB failed"
SERVER=nginx-keepalive start_server 2>>"$T/server-stderr.log"
KEEP_PID=$APP_PID

TA=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
http POST "/jobs/$J/checkpoints" "{\"triggerId\":\"$TA\"}"
is "$STATUS $BODY" "202 {\"request-id\":\"$TA\"}" "before: a POST is 202"

# What is left of the filesystem, filled (dd stops at ENOSPC).
dd if=/dev/zero of="$MNT/filler" bs=64k 2>/dev/null
is "$(df --output=avail "$MNT" | tail -n 1 | tr -d ' ')" 0 \
    "the filesystem under the database is full"
LOGGED0=$(grep -c 'database or disk is full' "$SERVER_LOG")

# A wrk script writing "STATUS TRIGGER BODY" lines to FILE.N (thread N),
# one connection a thread, so that each response is the answer to the
# thread's last request.  Arguments: JOB FILE.
wrk_post_lua "$T/post.lua" 'out:write(status, " ", tid, " ", body, "\n")'
wrk -t 16 -c 16 -d "${LOAD_S}s" -s "$T/post.lua" "$BASE" -- "$J" "$T/answers" \
    >/dev/null 2>&1
cat "$T"/answers.* > "$T/answers"

N202=$(grep -c '^202 ' "$T/answers")
N503=$(grep -c '^503 ' "$T/answers")
diag "with the disk full: $N202 POSTs answered 202, $N503 answered 503"
is "$(awk '$1 != 202 && $1 != 503' "$T/answers" | head -n 3)" "" \
    "every answer is 202 or 503"
is "$(awk '$1 == 202 && $3 != "{\"request-id\":\"" $2 "\"}"' "$T/answers" |
    head -n 3)" "" "every 202 names its own trigger"
is "$(awk -v want="$UNAVAILABLE" '$1 == 503 {
	b = $0; sub(/^503 [0-9a-f]+ /, "", b); if (b != want) print }' \
    "$T/answers" | head -n 3)" "" "every 503 is the contract's JSON error"
[ "$N503" -ge 100 ]
ok $? "the full disk failed commits ($N503 POSTs answered 503)"
# Each failed commit is logged once; the WAL copier's failures too, so
# this undercounts the commits of several triggers, never overcounts them.
FAILED=$(($(grep -c 'database or disk is full' "$SERVER_LOG") - LOGGED0))
diag "failed operations logged: $FAILED"
[ "$N503" -gt "$FAILED" ]
ok $? "a failed commit of several triggers answered each with 503 ($N503 answers, $FAILED failures logged)"
http GET "/jobs/$J/checkpoints/$TA"
is "$STATUS" 200 "with the disk full, a GET still answers"

rm -f "$MNT/filler"
TB=bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb
http POST "/jobs/$J/checkpoints" "{\"triggerId\":\"$TB\"}"
is "$STATUS $BODY" "202 {\"request-id\":\"$TB\"}" \
    "room again: a POST is 202"
kill -0 "$KEEP_PID" 2>/dev/null
ok $? "room again: the same process answers, not a new one"

# Every trigger answered 202 is in the database, and none answered 503.
got=$({
	echo "CREATE TEMP TABLE answers (status INTEGER, tid TEXT);"
	echo "BEGIN;"
	awk '{ printf "INSERT INTO answers VALUES (%d, \047%s\047);\n", $1, $2 }' \
	    "$T/answers"
	echo "COMMIT;"
	echo "SELECT a.status, count(*), count(t.trigger_id) FROM answers a
	    LEFT JOIN triggers t ON t.job_id = '$J' AND t.trigger_id = a.tid
	    GROUP BY a.status ORDER BY a.status;"
} | sqlite3 -batch -bail -noheader -separator ' ' "$DB" | tr '\n' ' ')
want="202 $N202 $N202 503 $N503 0 "
[ "$N202" -eq 0 ] && want="503 $N503 0 "
is "$got" "$want" \
    "every trigger answered 202 is in the database, none answered 503 is"
is "$(sql 'PRAGMA integrity_check')" ok "PRAGMA integrity_check"

done_testing
