#!/bin/sh
# checkpointctl from the outside: what it prints, how it exits, and what it
# leaves in the database (asked with sqlite3, as an operator would).  Every
# refusal must be one line on stderr and leave the database as it was.

. "$(dirname "$0")/lib.sh"

# The file mode must come from checkpointctl's own umask, not ours.
umask 0

J1=0123456789abcdef0123456789abcdef
J2=fedcba9876543210fedcba9876543210
J2UP=FEDCBA9876543210FEDCBA9876543210
J3=33333333333333333333333333333333
NOJOB=99999999999999999999999999999999
USAGE="see checkpointctl -h"


# refused STATUS STDERR DESCRIPTION ARG...: checkpointctl exits with STATUS,
# prints nothing on stdout and exactly the one line STDERR on stderr.
refused() {
	_status=$1 _stderr=$2 _desc=$3
	shift 3
	run "$@"
	is "$RC|$OUT|$ERR" "$_status||checkpointctl: $_stderr" "$_desc"
}

# succeeds STDOUT DESCRIPTION ARG...: exit 0, exactly STDOUT, no stderr.
succeeds() {
	_stdout=$1 _desc=$2
	shift 2
	run "$@"
	is "$RC|$OUT|$ERR" "0|$_stdout|" "$_desc"
}

jobs_rows() {
	sql "SELECT job_id, quote(name), state, checkpoint_type, quote(command),
	    timeout_s FROM jobs ORDER BY job_id"
}

jobs_dump() {
	sql "SELECT * FROM jobs ORDER BY job_id"
}

md5() {
	md5sum < "$1"
}

QUOTE=quote
remaining() {
	sql "SELECT group_concat(substr(trigger_id, 1, 1), '') FROM
	    (SELECT trigger_id FROM triggers ORDER BY id)"
}
TAB=$(printf '\t')
NL=$(printf '\nx')
NL=${NL%x}

# The schema version: one per migration in schema/.
V=$(ls "$top_srcdir"/schema/[0-9][0-9][0-9][0-9]-*.sql | wc -l)

# --- init ---

succeeds "$DB: schema version $V" "init creates the database and says so" \
    init
is "$(sql 'PRAGMA journal_mode')" wal "init: the database is in WAL mode"
is "$(sql 'PRAGMA user_version')" "$V" "init: user_version is $V"
is "$(sql "SELECT group_concat(name, ' ') FROM (SELECT name FROM sqlite_schema
    WHERE type IN ('table', 'view') ORDER BY name)")" \
    "checkpoint_counters checkpoint_history checkpoint_stats checkpoints history_grown history_keep job_overview jobs queue_waiting retention savepoint_checkpoints savepoint_disposal_status savepoint_disposals savepoint_status savepoints schedule_slots schedules service_metrics trigger_status triggers" \
    "init: the schema's tables and views are there"
is "$(stat -c %a "$DB")" 660 "init: the database is not world-readable"
before=$(md5 "$DB")
succeeds "$DB: schema version $V" "init again succeeds" init
is "$(sed -n 's/^.*checkpoints\.db: schema version //p' \
    "$top_srcdir/cgi/checkpointctl.8")" "$V" \
    "init: checkpointctl(8)'s example prints what init prints"
is "$(md5 "$DB")" "$before" "init again leaves the file byte for byte"

sqlite3 "$T/newer.db" 'PRAGMA user_version = 99'
before=$(md5 "$T/newer.db")
refused 1 "$T/newer.db: schema version 99 is newer than this program's $V; upgrade checkpoint-api" \
    "init refuses a database of a newer schema version" \
    --db "$T/newer.db" init
is "$(sqlite3 "$T/newer.db" 'PRAGMA user_version;
    SELECT count(*) FROM sqlite_schema')" "99
0" "newer database: version kept, nothing created"
is "$(md5 "$T/newer.db")" "$before" \
    "newer database: file unchanged byte for byte"

sqlite3 "$T/foreign.db" 'CREATE TABLE t (x); INSERT INTO t VALUES (42)'
before=$(md5 "$T/foreign.db")
refused 1 "$T/foreign.db: not a checkpoint-api database (application_id 0, 1 schema objects)" \
    "init refuses a non-empty database that is not ours" \
    --db "$T/foreign.db" init
is "$(sqlite3 "$T/foreign.db" "PRAGMA user_version; SELECT x FROM t;
    SELECT group_concat(name) FROM sqlite_schema")" "0
42
t" "foreign database: its contents untouched"
is "$(md5 "$T/foreign.db")" "$before" \
    "foreign database: file unchanged byte for byte"

# A database made by version 1 (0001 only), with triggers in it, is brought
# up to date in place: rows, ids and answers kept, checks still enforced.
OLD=$T/v1.db
{
	cat "$top_srcdir/schema/0001-initial.sql"
	cat <<SQL
PRAGMA application_id = 1667985524;
PRAGMA user_version = 1;
INSERT INTO jobs (job_id, command, created_ms, updated_ms)
    VALUES ('$J1', 'true', 0, 0);
INSERT INTO triggers (id, job_id, trigger_id, requested_type, created_ms)
    VALUES (7, '$J1', '$J2', 'INCREMENTAL', 1000);
INSERT INTO triggers (id, job_id, trigger_id, requested_type, status,
    checkpoint_id, completed_ms, created_ms)
    VALUES (9, '$J1', '$J3', 'CONFIGURED', 'COMPLETED', 4, 2000, 1000);
SQL
} | sqlite3 "$OLD"
v1_rows="SELECT id, job_id, trigger_id, requested_type, status,
    quote(checkpoint_id), created_ms FROM triggers ORDER BY id;
    SELECT response FROM trigger_status ORDER BY trigger_id;
    SELECT job_id, last_checkpoint_id, pending FROM job_overview"
before=$(sqlite3 "$OLD" "$v1_rows")
is "$(sqlite3 "$OLD" "PRAGMA application_id")" "$(sqlite3 "$DB" "PRAGMA application_id")" \
    "migration: the version-1 database is marked as ours"
succeeds "$OLD: schema version $V" "migration: init upgrades a version-1 database" \
    --db "$OLD" init
is "$(sqlite3 "$OLD" "PRAGMA user_version")" "$V" "migration: user_version is $V"
is "$(sqlite3 "$OLD" "$v1_rows")" "$before" \
    "migration: rows, ids, status answers and the job overview are kept"
is "$(sqlite3 "$OLD" "PRAGMA integrity_check")" ok "migration: integrity_check ok"
is "$(sqlite3 "$OLD" "SELECT name FROM sqlite_schema WHERE type = 'index'
    AND tbl_name = 'triggers'
    AND name NOT LIKE 'sqlite_autoindex%' ORDER BY name")" "triggers_checkpoint
triggers_claimed
triggers_completed
triggers_pending
triggers_queue
triggers_refused" "migration: the triggers indexes are there again"
is "$(sqlite3 "$OLD" "SELECT job_id, checkpoint_id, kind, status, trigger_row,
    trigger_id, created_ms, completed_ms FROM checkpoint_history")" \
    "$J1|4|CHECKPOINT|COMPLETED|9|$J3|1000|2000" \
    "migration: the finished checkpoint is copied into the history"
is "$(sqlite3 "$OLD" "SELECT * FROM checkpoint_stats")" "$J1|1|0|0|1000|1000|1000|4|1000|2000||||||" \
    "migration: the stored results are counted in the statistics"
sqlite3 "$OLD" "INSERT INTO triggers (job_id, trigger_id, requested_type,
    created_ms) VALUES ('$J1', '$NOJOB', 'SAVEPOINT', 0)" 2> "$T/err"
rc=$?
is "$([ $rc -ne 0 ] && echo refused)|$(grep -c "CHECK constraint failed: requested_type" "$T/err")|$(sqlite3 "$OLD" \
    "SELECT count(*) FROM triggers")" "refused|1|2" \
    "migration: requested_type is still checked"
for bad in "$(echo "$NOJOB" | tr 9 A)" "$(echo "$NOJOB" | cut -c2-)g" "${NOJOB}0"; do
	sqlite3 "$OLD" "INSERT INTO triggers (job_id, trigger_id, requested_type,
	    created_ms) VALUES ('$J1', '$bad', 'FULL', 0)" 2> "$T/err"
	rc=$?
	is "$([ $rc -ne 0 ] && echo refused)|$(grep -c "CHECK constraint failed: length(trigger_id)" "$T/err")" \
	    "refused|1" "migration: trigger id $bad is still refused"
done
is "$(sqlite3 "$OLD" "EXPLAIN INSERT INTO triggers (job_id, trigger_id,
    requested_type, created_ms) VALUES ('$J1', '$NOJOB', 'FULL', 0)" |
    grep -c OpenEphemeral)" 0 \
    "migration: recording a trigger builds no ephemeral index (0002)"
is "$(sqlite3 "$DB" "SELECT sql FROM sqlite_schema WHERE name = 'triggers'" | sed 's/"//g')" \
    "$(sqlite3 "$OLD" "SELECT sql FROM sqlite_schema WHERE name = 'triggers'" | sed 's/"//g')" \
    "migration: the upgraded table is the one a new database gets"

# A database of version 2 (the last release) with every kind of outcome:
# migrations 0004 and 0005 count what is stored by the rules their SQL
# triggers count new completions by (a failure without an id, job not
# found, only service-wide; none of an unregistered job's per job).
V2=$T/v2.db
CKX=org.apache.flink.runtime.checkpoint.CheckpointException
{
	cat "$top_srcdir/schema/0001-initial.sql" \
	    "$top_srcdir/schema/0002-triggers-check.sql"
	cat <<SQL
PRAGMA application_id = 1667985524;
PRAGMA user_version = 2;
INSERT INTO jobs (job_id, created_ms, updated_ms) VALUES ('$J1', 0, 0);
INSERT INTO triggers (job_id, trigger_id, requested_type, status,
    checkpoint_id, created_ms, claimed_by, claimed_ms, completed_ms, location,
    failure_class, failure_trace) VALUES
    ('$J1', '${J2%?}1', 'FULL', 'COMPLETED', 1, 1000, 'r', 1100, 1600,
     'file:/a', NULL, NULL),
    ('$J1', '${J2%?}2', 'FULL', 'COMPLETED', 2, 2000, 'r', 2100, 2200, NULL,
     '$CKX', '$CKX: Checkpoint was declined. x'),
    ('$J1', '${J2%?}3', 'FULL', 'COMPLETED', 3, 3000, 'r', 3100, 4100, NULL,
     '$CKX', '$CKX: Checkpoint expired before completing.'),
    ('$J1', '${J2%?}4', 'FULL', 'COMPLETED', NULL, 5000, NULL, NULL, 5000,
     NULL, 'java.util.concurrent.CompletionException', 'not RUNNING'),
    ('$J3', '${J2%?}5', 'FULL', 'COMPLETED', NULL, 6000, NULL, NULL, 6000,
     NULL, 'java.util.concurrent.CompletionException', 'not registered');
SQL
} | sqlite3 "$V2" 2> "$T/err"
is "$(cat "$T/err")" "" "migration: a version-2 database with every outcome"
succeeds "$V2: schema version $V" "migration: init upgrades a version-2 database" \
    --db "$V2" init
is "$(sqlite3 "$V2" "SELECT job_id, completed, failed, expired, duration_min,
    duration_max, duration_sum, last_completed, completed_trigger_ms,
    completed_ms, completed_location, last_failed, failed_trigger_ms,
    failed_ms, failed_class FROM checkpoint_stats;
    SELECT job_not_found FROM service_metrics")" \
    "$J1|1|2|1|500|500|500|1|1100|1600|file:/a|3|3100|4100|$CKX
2" "migration: version 2's outcomes counted once, by the triggers' rules"

printf 'not a database at all\n' > "$T/text.db"
before=$(md5 "$T/text.db")
refused 1 "$T/text.db: file is not a database" \
    "init refuses a file that is not a database: one line, exit 1" \
    --db "$T/text.db" init
refused 1 "$T/text.db: file is not a database" \
    "job list on a file that is not a database: one line, exit 1" \
    --db "$T/text.db" job list
is "$(md5 "$T/text.db")" "$before" "text file: unchanged"

refused 1 "$T/missing/dir/x.db: unable to open database file (directory $T/missing/dir does not exist)" \
    "--db in a missing directory fails cleanly, naming the directory" \
    --db "$T/missing/dir/x.db" init
test ! -e "$T/missing"
ok $? "--db in a missing directory: nothing created"

# Refused by permissions: the message names the user, the path, its owner
# and mode.  As root, checkpointctl runs as nobody; otherwise the modes
# leave out the owner's w.
mkdir "$T/locked"
"$CTL" --db "$T/locked/ro.db" init > /dev/null || bail "checkpointctl init"
if [ "$(id -u)" -eq 0 ]; then
	as_other() { setpriv --reuid=nobody --regid="$(id -gn nobody)" --clear-groups -- "$@"; }
	WHO=nobody
	chmod o+x "$T"
	chmod 0755 "$T/locked"
	chmod 0644 "$T/locked/ro.db"
else
	as_other() { "$@"; }
	WHO=$(id -un)
	chmod 0555 "$T/locked"
	chmod 0444 "$T/locked/ro.db"
fi
OWNER="$(stat -c %U:%G "$T/locked")"
as_other "$CTL" --db "$T/locked/new.db" init > "$T/out" 2> "$T/err"
is "$?|$(cat "$T/out")|$(cat "$T/err")" \
    "1||checkpointctl: $T/locked/new.db: unable to open database file (permission denied: user $WHO may not create files in directory $T/locked (owner $OWNER, mode 0$(stat -c %a "$T/locked")))" \
    "init in a directory its user may not write: the user, the directory, its owner and mode"
as_other "$CTL" --db "$T/locked/ro.db" job add "$J3" > "$T/out" 2> "$T/err"
like "$?|$(cat "$T/out")|$(cat "$T/err")" \
    "^1\|\|checkpointctl: $T/locked/ro.db: .*attempt to write a readonly database.*user $WHO may not write $T/locked/ro.db \(owner $OWNER, mode 0$(stat -c %a "$T/locked/ro.db")\)" \
    "a write to a database its user may not write: says so, with the user, owner and mode"
chmod 0755 "$T/locked"

# Only checkpointctl init makes a database: any other program that did
# would take work for a database no one else reads (a mistyped path).
# Every other command, the runner and the app refuse a path with nothing
# there, or an empty file, in one line naming the path and init; none
# makes a file (checkpoint-api(7), "SECURITY").
mkdir "$T/fresh"
: > "$T/fresh/empty.db"
for _db in "$T/fresh/add.db" "$T/fresh/empty.db"; do
	refused 1 "$_db: no database there; checkpointctl init makes it" \
	    "job add on $(basename "$_db"): refused, init named" \
	    --db "$_db" job add "$J3"
	refused 1 "$_db: no database there; checkpointctl init makes it" \
	    "job list on $(basename "$_db"): refused, not an empty list" \
	    --db "$_db" job list
done
"$RUNNER" --db "$T/fresh/runner.db" > "$T/out" 2> "$T/err"
like "$?|$(cat "$T/out")|$(sed 's/^[^ ]* //' "$T/err")" \
    "^3\|\|checkpoint-runner\[[0-9]+\]: error: $T/fresh/runner.db: no database there; checkpointctl init makes it\$" \
    "a runner pass on a fresh path: exit 3, one line naming the path and init"
printf '{}' | env -i REQUEST_METHOD=POST PATH_INFO="/jobs/$J3/checkpoints" \
    CONTENT_LENGTH=2 CHECKPOINT_DB="$T/fresh/app.db" "$API" > "$T/out" 2> "$T/err"
like "$(head -1 "$T/out" | tr -d '\r')|$(grep -c 'no database there; checkpointctl init makes it' "$T/err")" \
    "^Status: 503 Service Unavailable\|1\$" \
    "the app's POST (plain CGI) on a fresh path: 503, and a log line naming init"
is "$(ls "$T/fresh")" "empty.db" "on a fresh path, nothing made a file"
is "$(stat -c %s "$T/fresh/empty.db")" 0 "the empty file is left empty"

# Whichever way init makes the database, it is 0666 less its umask of 007,
# as any new file: the group may write it, so that in the shared setgid
# directory the other service is not refused (checkpointctl(8),
# "DEPLOYMENT").  SQLite alone would make it 0640.
"$CTL" --db "$T/fresh/init.db" init > /dev/null || bail "init on a fresh path"
is "$(stat -c %a "$T/fresh/init.db")" 660 \
    "init on a fresh path: the database it made is mode 0660"

# init --group, or a setgid directory's group: the database is that
# group's, mode 0660; refused, nothing made, where the group could not
# write the directory (SQLite's -wal and -shm) or is root.
if [ "$(id -u)" -eq 0 ]; then SHARED=nogroup; else SHARED=$(id -gn); fi
mkdir "$T/shared"
chgrp "$SHARED" "$T/shared"
chmod 0750 "$T/shared"
refused 1 "$T/shared/c.db: directory $T/shared is not writable by group $SHARED (SQLite makes -wal and -shm there): chgrp $SHARED $T/shared && chmod 2770 $T/shared, or run checkpointctl setup" \
    "init --group: a directory the group may not write is refused, with the fix" \
    --db "$T/shared/c.db" init --group "$SHARED"
test ! -e "$T/shared/c.db"
ok $? "  and nothing was made"
chmod 2770 "$T/shared"
succeeds "$T/shared/c.db: schema version $V" "init in a setgid directory of the group" \
    --db "$T/shared/c.db" init
is "$(stat -c '%a %G' "$T/shared/c.db")" "660 $SHARED" \
    "  the database is the group's, mode 0660"
# doctor: one line a finding, exit 1 while anything is wrong; a database
# that is not there is said, not made.
if [ "$(id -u)" -eq 0 ]; then DOCTOR_USER=nobody; else DOCTOR_USER=$(id -un); fi
run --db "$T/shared/none.db" doctor --user "$DOCTOR_USER" --run-dir "$T/shared"
is "$RC|$(printf '%s\n' "$OUT" | grep '^wrong:')" \
    "1|wrong: database $T/shared/none.db cannot be opened: No such file or directory: checkpointctl --db $T/shared/none.db init" \
    "doctor: a missing database is wrong, with the fix"
test ! -e "$T/shared/none.db"
ok $? "doctor: and it made none"
run --db "$T/shared/c.db" doctor --user "$DOCTOR_USER" --run-dir "$T/shared"
is "$RC|$(printf '%s\n' "$OUT" | grep -c '^wrong:')|$(printf '%s\n' "$OUT" | grep '^wrong: no runner')" \
    "1|2|wrong: no runner pass was ever recorded: start the runner (checkpoint-runner(8): cron, a systemd timer or --watch)" \
    "doctor: no job and no runner pass yet: two lines wrong, exit 1"
"$CTL" --db "$T/shared/c.db" job add "$J3" > /dev/null &&
    "$RUNNER" --db "$T/shared/c.db" 2> /dev/null || bail "job add, runner pass"
run --db "$T/shared/c.db" doctor --user "$DOCTOR_USER" --run-dir "$T/shared"
is "$RC|$(printf '%s\n' "$OUT" | grep -v '^ok: ')" "0|" \
    "doctor: a job and a runner pass: every line ok, exit 0"
like "$OUT" "ok: runner user $DOCTOR_USER may write $T/shared/c.db and its directory" \
    "  it says who may write the database"
like "$OUT" "ok: the runner's last pass was [0-9]+ s ago" "  and the runner's last pass"
# Late past the page's threshold, the one line of cgi/ui/app.js.
LATE=$(sed -n 's/^const RUNNER_LATE_MS = \([0-9]*\);.*/\1/p' "$top_srcdir/cgi/ui/app.js")
now=$(($(date +%s) * 1000))
sqlite3 "$T/shared/c.db" "UPDATE service_metrics SET pass_ms = $((now - LATE + 30000))"
run --db "$T/shared/c.db" doctor --user "$DOCTOR_USER" --run-dir "$T/shared"
is "$RC" 0 "doctor: a pass 30 s short of the page's threshold ($LATE ms) is not late"
sqlite3 "$T/shared/c.db" "UPDATE service_metrics SET pass_ms = $((now - LATE - 30000))"
run --db "$T/shared/c.db" doctor --user "$DOCTOR_USER" --run-dir "$T/shared"
is "$RC" 1 "doctor: 30 s past it, the runner is late, as the page says"
like "$OUT" "^wrong: the runner's last pass was [0-9]+ s ago \(late past $((LATE / 1000)) s\)" \
    "  and says after how long"

refused 1 "--group no-such-group-here: no such group (checkpointctl setup --group no-such-group-here makes it)" \
    "init --group of a group that does not exist" \
    --db "$T/shared/d.db" init --group no-such-group-here
if [ "$(id -u)" -eq 0 ]; then
	mkdir "$T/rootgroup"
	chmod 2770 "$T/rootgroup"
	refused 1 "$T/rootgroup/c.db: group root would share the database with no service; run checkpointctl setup first, or init --group with the group the runner and the web server share" \
	    "init as root in a setgid directory of group root: refused" \
	    --db "$T/rootgroup/c.db" init
	test ! -e "$T/rootgroup/c.db"
	ok $? "  and nothing was made"
else
	skip "init in a directory of group root" "not root"
	skip "  and nothing was made" "not root"
fi

refused 2 "--db: empty path" "--db '' is refused" --db '' init

succeeds "$T/other.db: schema version $V" "--db overrides CHECKPOINT_DB" \
    --db "$T/other.db" init
succeeds "" "--db also works after the command" \
    job add "$J3" --db "$T/other.db"
is "$(sqlite3 "$T/other.db" 'SELECT job_id FROM jobs')|$(jobs_rows)" \
    "$J3|" "--db: the job went to --db, not to CHECKPOINT_DB"
succeeds "" "--db=PATH is taken too" job rm --db="$T/other.db" "$J3"
is "$(sqlite3 "$T/other.db" 'SELECT count(*) FROM jobs')" 0 \
    "--db=PATH: the job was removed there"

refused 2 "bad job id 'xyz': expected 32 hexadecimal characters" \
    "a bad command line does not create the database" \
    --db "$T/never.db" job add xyz
test ! -e "$T/never.db"
ok $? "a bad command line: no database file appeared"

. "$(dirname "$0")/ctl-checks.sh"

# --- the command line ---

refused 2 "unknown command 'frob'; $USAGE" "an unknown command" frob
refused 2 "unknown command 'job frob'; $USAGE" "an unknown job command" \
    job frob
refused 2 "unknown command 'job'; $USAGE" "job without a command" job
refused 2 "unknown command 'job list'; $USAGE" \
    "a command is words, not one quoted word" 'job list'
refused 2 "unknown option --frob; $USAGE" "an unknown option" job list --frob
refused 2 "unknown option -x; $USAGE" "an unknown short option" -x init
refused 2 "init: unexpected argument 'now'" "init takes no argument" \
    init now
refused 2 "option --db needs a value" "--db without a value" init --db
run
is "$RC|$OUT|$(head -n 1 "$T/err")" \
    "2||usage: checkpointctl [--db PATH] command [argument ...]" \
    "no command: usage on stderr, exit 2"
run -h
is "$RC|$(printf '%s\n' "$OUT" | head -n 1)|$ERR" \
    "0|usage: checkpointctl [--db PATH] command [argument ...]|" \
    "-h: usage on stdout, exit 0"
is "$(printf '%s\n' "$OUT" | grep -E '^	(setup|init|doctor|job|triggers|purge)' |
    cut -d ' ' -f 1-2 | tr '\t\n' '  ')" \
    " setup [--user  init [--group  doctor [--user  job add  job set  job rm  job list  triggers [--job  purge " \
    "-h: usage names every command"
usage=$OUT
succeeds "$usage" "help: the same usage on stdout" help
succeeds "$usage" "--help anywhere: the same usage" job add --help
run -V
like "$RC|$OUT|$ERR" '^0\|checkpoint-api [0-9]+\.[0-9]+\.[0-9]+\|$' \
    "-V: the package and its version"

# --- a locked database ---

mkfifo "$T/lock.in"
spawn sh -c 'exec sqlite3 "$1" < "$2" > "$3"' sh "$DB" "$T/lock.in" \
    "$T/lock.out"
LOCK_PID=$LAST_PID
exec 3> "$T/lock.in"
echo "BEGIN IMMEDIATE; SELECT 'locked';" >&3
i=0
while [ $i -lt 200 ] && ! grep -q locked "$T/lock.out" 2>/dev/null; do
	sleep 0.05
	i=$((i + 1))
done
before=$(jobs_dump)
CHECKPOINT_BUSY_TIMEOUT=100ms
export CHECKPOINT_BUSY_TIMEOUT
refused 1 "database is locked; try again" \
    "job add on a locked database: one line, exit 1" job add "$J3"
unset CHECKPOINT_BUSY_TIMEOUT
echo "ROLLBACK;" >&3
exec 3>&-
wait "$LOCK_PID"
is "$(jobs_dump)" "$before" "locked database: nothing written"
succeeds "" "job add once the lock is gone" job add "$J3"

done_testing
