#!/bin/sh
# The database unavailable (checkpoint-api(7), "ERRORS": 503): none there
# (only checkpointctl init makes one), no permission, a file that is not a database, one the app may
# read but not write, and locked past the busy timeout.  Every request that needs what is missing answers 503 with a
# JSON error that names the cause and never a path; the process logs the path
# and SQLite's error; and once the database is back, the same process answers
# again, without a restart.  The app runs as RUN_USER (nobody when the tests
# run as root, so that file permissions bind).

. "$(dirname "$0")/lib.sh"

for c in cgi-fcgi sqlite3; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing"
done
if [ "$(id -u)" -eq 0 ]; then
	command -v setpriv >/dev/null 2>&1 || bail "setpriv (util-linux) is missing"
fi
unset CHECKPOINT_STORE_DURATION CHECKPOINT_MAX_BODY CHECKPOINT_CORS_ORIGIN \
    CHECKPOINT_REJECT_UNKNOWN_JOBS CHECKPOINT_BUSY_TIMEOUT CHECKPOINT_SYNC

J=0123456789abcdef0123456789abcdef
TA=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
IN_PROGRESS='{"status":{"id":"IN_PROGRESS"},"operation":null}'
CANNOT_OPEN='{"errors":["Service temporarily unavailable: the checkpoint database cannot be opened or read. Please retry."]}'
NOT_WRITABLE='{"errors":["Service unavailable: the checkpoint database is not writable by this service (file permissions, a read-only file system or a read-only server). Retrying will not help until the operator fixes it."]}'
LOCKED='{"errors":["Service temporarily unavailable: the checkpoint database is locked. Please retry."]}'
LOG=$T/app.log
: > "$LOG"
share_dir "$T"

post() {
	fcgi_raw POST /jobs/$J/checkpoints "{\"triggerId\":\"$TA\"}" > "$T/answer"
	status_body < "$T/answer"
}
get() {
	fcgi_raw GET /jobs/$J/checkpoints/$TA > "$T/answer"
	status_body < "$T/answer"
}
# read PATH: a GET of the read-only answers (checkpoint statistics, jobs).
read_path() {
	fcgi_raw GET "$1" > "$T/answer"
	status_body < "$T/answer"
}

# unavailable CASE: POST and GET answer the 503 that names the cause, as
# JSON, without the database's path.
unavailable() {
	is "$(post)" "503 $CANNOT_OPEN" "$1: POST is 503, the database cannot be opened"
	like "$(sed -n 2p "$T/answer")" '^Content-Type: application/json; charset=UTF-8' \
	    "$1: the 503 is JSON"
	is "$(get)" "503 $CANNOT_OPEN" "$1: GET is 503, the database cannot be opened"
	case $(cat "$T/answer") in
	*"$T"*|*.db*) rc=1 ;;
	*) rc=0 ;;
	esac
	ok $rc "$1: the answer does not show the path"
	is "$(read_path /jobs/$J/checkpoints)" "503 $CANNOT_OPEN" \
	    "$1: checkpoint statistics are 503"
	is "$(read_path /jobs/overview)" "503 $CANNOT_OPEN" \
	    "$1: the job overview is 503"
}

# logged CASE TEXT: the app's log has, since the case began, a line with
# the database's path and TEXT (SQLite's error).
logged() {
	tail -n +"$MARK" "$LOG" | grep -F "$DB" | grep -qF "$2"
	ok $? "$1: the log names the path and SQLite's error ($2)"
}

# back CASE: the same process answers again, and the trigger is recorded.
back() {
	is "$(post)" "202 {\"request-id\":\"$TA\"}" "$1: back: POST is 202"
	is "$(get)" "200 $IN_PROGRESS" "$1: back: GET is 200"
	is "$(read_path /jobs/$J/checkpoints)" \
	    "404 {\"errors\":[\"Job $J not found\"]}" \
	    "$1: back: statistics answer (an unregistered job)"
	kill -0 "$APP" 2>/dev/null
	ok $? "$1: back without a restart (the same process)"
}

# begin DB: a new app process for the case, on DB.
begin() {
	if [ -n "${APP:-}" ]; then
		stop_pid "$APP"
	fi
	DB=$1
	export CHECKPOINT_DB=$DB
	MARK=$(($(wc -l < "$LOG") + 1))
	start_app as_run_user 2>>"$LOG"
}

# === no database: its directory missing, or no file ===========================
# Only checkpointctl init makes one: the 503 says so and that retrying is
# vain, and nothing is made; the operator's init brings the service back.
for _where in nofile gone; do
	[ "$_where" = nofile ] && share_dir "$T/nofile"
	begin "$T/$_where/checkpoints.db"
	is "$(post)" "503 $NO_DATABASE" "no database ($_where): POST is 503, init named"
	is "$(get)" "503 $NO_DATABASE" "no database ($_where): GET is 503, init named"
	is "$(read_path /jobs/overview)" "503 $NO_DATABASE" \
	    "no database ($_where): the job overview is 503"
	logged "no database ($_where)" "no database there; checkpointctl init makes it"
	test ! -e "$T/$_where/checkpoints.db"
	ok $? "no database ($_where): none made"
done
share_dir "$T/gone"
init_db "$T/gone/checkpoints.db"
back "no database (gone)"

# === no permission ==============================================================
# A directory the app's user may not enter: as root, root's own with mode
# 0700 (the app runs as nobody); otherwise mode 0.
mkdir "$T/private"
"$CTL" --db "$T/private/checkpoints.db" init > /dev/null || bail "checkpointctl init"
if [ "$(id -u)" -eq 0 ]; then
	chmod 700 "$T/private"
else
	chmod 0 "$T/private"
fi
begin "$T/private/checkpoints.db"
unavailable "no permission"
logged "no permission" "unable to open database file"
if [ "$(id -u)" -eq 0 ]; then
	chown -R "$RUN_USER:$RUN_GROUP" "$T/private"
else
	chmod 700 "$T/private"
fi
back "no permission"

# === readable but not writable =================================================
# What checkpointctl init leaves when run by another user: the app's user
# may read the database (its group's r, or the owner's r alone when not
# root) but not write it.  GETs are answered; a POST is the 503 that says
# so, and the log names the path, the user and the owner and mode.
share_dir "$T/readonly"
"$CTL" --db "$T/readonly/checkpoints.db" init > /dev/null || bail "checkpointctl init"
if [ "$(id -u)" -eq 0 ]; then
	chown "root:$RUN_GROUP" "$T/readonly/checkpoints.db"
	chmod 0640 "$T/readonly/checkpoints.db"
else
	chmod 0440 "$T/readonly/checkpoints.db"
fi
begin "$T/readonly/checkpoints.db"
is "$(post)" "503 $NOT_WRITABLE" "not writable: POST is 503, the database is not writable"
case $(cat "$T/answer") in
*"$T"*|*.db*) rc=1 ;;
*) rc=0 ;;
esac
ok $rc "not writable: the answer does not show the path"
is "$(read_path /jobs)" '200 {"jobs":[]}' "not writable: GET /jobs still answers"
logged "not writable" "user $RUN_USER may not write $T/readonly/checkpoints.db (owner $(id -un):"
logged "not writable" "mode 0$(stat -c %a "$T/readonly/checkpoints.db"))"
logged "not writable" "attempt to write a readonly database"
is "$(post)" "503 $NOT_WRITABLE" "not writable: POST again: the same 503"
chmod 0660 "$T/readonly/checkpoints.db"
# SQLite made -wal and -shm with the database's mode: when the app's user
# owns a database it may not write (not root), they are read-only too, and
# the log says so.
if [ "$(id -u)" -ne 0 ]; then
	MARK=$(($(wc -l < "$LOG") + 1))
	is "$(post)" "503 $NOT_WRITABLE" "not writable: its -shm still read-only: the same 503"
	logged "not writable" "may not write $T/readonly/checkpoints.db-"
	chmod 0660 "$T/readonly/checkpoints.db-wal" "$T/readonly/checkpoints.db-shm"
else
	skip "not writable: its -shm still read-only: the same 503" \
	    "as root, the app's user owns -wal and -shm"
	skip "not writable: the log names the read-only -wal or -shm" \
	    "as root, the app's user owns -wal and -shm"
fi
back "not writable"

# === the cause logged where the operator sees it ================================
# Started as spawn-fcgi starts it, standard error on /dev/null: with -l FILE
# the line is in FILE; without -l, in syslog when /dev/log exists.  The
# syslog case needs root (a private /dev holding the test's own /dev/log
# socket, so that no system syslog daemon is needed or touched).
chmod 0440 "$T/readonly/checkpoints.db"
stop_pid "$APP"
APP=
FILE_LOG=$T/file-log/app.log
share_dir "$T/file-log"
start_app as_run_user -l "$FILE_LOG" 2>/dev/null
is "$(post)" "503 $NOT_WRITABLE" "-l FILE: POST is the 503 of a database not writable"
grep -F "checkpoint-api.fcgi[$APP]: error: $T/readonly/checkpoints.db" "$FILE_LOG" |
    grep -qF "user $RUN_USER may not write"
ok $? "-l FILE: the file has the line with the path and the user"
stop_pid "$APP"
APP=

if [ "$(id -u)" -ne 0 ]; then
	skip "syslog when standard error is /dev/null" "needs root for a private /dev/log"
elif ! command -v python3 >/dev/null 2>&1 || ! unshare -m true 2>/dev/null; then
	skip "syslog when standard error is /dev/null" "needs python3 and unshare -m"
else
	mkdir -p "$T/dev.orig"
	rm -f "$T/syslog.sock" "$T/syslog.out"
	# A syslog daemon of one socket: each datagram, a line of the file.
	spawn python3 -c 'import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o666)
with open(sys.argv[2], "ab", buffering=0) as out:
    while True:
        out.write(s.recv(65536) + b"\n")' "$T/syslog.sock" "$T/syslog.out"
	SYSLOGD=$LAST_PID
	wait_until 100 '[ -S "$T/syslog.sock" ]' || bail "the test's syslog socket"
	rm -f "$SOCK"
	spawn unshare -m sh -c 'set -e
mount --make-rprivate / 2>/dev/null || true
mount --bind /dev "$1/dev.orig"
mount -t tmpfs tmpfs /dev
for n in null zero random urandom; do
	touch "/dev/$n"
	mount --bind "$1/dev.orig/$n" "/dev/$n"
done
touch /dev/log
mount --bind "$1/syslog.sock" /dev/log
umount -l "$1/dev.orig"
exec setpriv --reuid="$2" --regid="$3" --clear-groups -- "$4" -s "$5"' \
	    sh "$T" "$RUN_USER" "$RUN_GROUP" "$API" "$SOCK" 2>/dev/null
	APP=$LAST_PID
	wait_until 100 '[ -n "$(fcgi_raw GET /jobs 2>/dev/null)" ]' ||
	    bail "the app in its own /dev did not answer"
	is "$(post)" "503 $NOT_WRITABLE" "syslog: POST is the 503 of a database not writable"
	wait_until 50 'grep -q "may not write" "$T/syslog.out" 2>/dev/null'
	grep -F "checkpoint-api.fcgi[$APP]: $T/readonly/checkpoints.db" "$T/syslog.out" |
	    grep -F "user $RUN_USER may not write" | grep -q '^<27>'
	ok $? "syslog: standard error on /dev/null, the line went to /dev/log (daemon.err)"
	stop_pid "$APP"
	APP=
	stop_pid "$SYSLOGD"
fi
chmod 0660 "$T/readonly/checkpoints.db"

# === a file that is not a database ==============================================
share_dir "$T/junk"
yes 'this is not an SQLite database' | head -n 100 > "$T/junk/checkpoints.db"
begin "$T/junk/checkpoints.db"
unavailable "not a database"
logged "not a database" "file is not a database"
# The operator puts a good database in its place (here a new one).
"$CTL" --db "$T/junk/new.db" init > /dev/null || bail "checkpointctl init"
if [ "$(id -u)" -eq 0 ]; then
	chown "$RUN_USER:$RUN_GROUP" "$T/junk/new.db"
fi
mv "$T/junk/new.db" "$T/junk/checkpoints.db"
back "not a database"

# === locked past the busy timeout ===============================================
export CHECKPOINT_BUSY_TIMEOUT=300ms
share_dir "$T/busy"
init_db "$T/busy/checkpoints.db"
begin "$T/busy/checkpoints.db"
is "$(post)" "202 {\"request-id\":\"$TA\"}" "locked: POST before the lock"
TB=bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb
hold_lock 2
fcgi_raw POST /jobs/$J/checkpoints "{\"triggerId\":\"$TB\"}" > "$T/answer"
is "$(status_body < "$T/answer")" "503 $LOCKED" "locked: POST is 503, the lock named"
is "$(get)" "200 $IN_PROGRESS" "locked: GET still answers (WAL readers are not blocked)"
is "$(read_path /jobs)" '200 {"jobs":[]}' "locked: GET /jobs still answers"
logged "locked" "database is locked"
wait "$LOCKER"
stop_pid "$LOCKER"
is "$(sql "SELECT count(*) FROM triggers WHERE trigger_id='$TB'")" 0 \
    "locked: the 503 left nothing behind"
fcgi_raw POST /jobs/$J/checkpoints "{\"triggerId\":\"$TB\"}" > "$T/answer"
is "$(status_body < "$T/answer")" "202 {\"request-id\":\"$TB\"}" \
    "locked: back: the retried POST is 202"
kill -0 "$APP" 2>/dev/null
ok $? "locked: back without a restart (the same process)"
stop_pid "$APP"

done_testing
