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

# run ARG...: runs checkpointctl; sets OUT, ERR and RC.
run() {
	"$CTL" "$@" > "$T/out" 2> "$T/err"
	RC=$?
	OUT=$(cat "$T/out")
	ERR=$(cat "$T/err")
}

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

# The schema version: one per migration in schema/.
V=$(ls "$top_srcdir"/schema/[0-9][0-9][0-9][0-9]-*.sql | wc -l)

# --- init ---

succeeds "$DB: schema version $V" "init creates the database and says so" \
    init
is "$(sql 'PRAGMA journal_mode')" wal "init: the database is in WAL mode"
is "$(sql 'PRAGMA user_version')" "$V" "init: user_version is $V"
is "$(sql "SELECT group_concat(name, ' ') FROM (SELECT name FROM sqlite_schema
    WHERE type IN ('table', 'view') ORDER BY name)")" \
    "checkpoint_counters checkpoint_stats checkpoints job_metrics job_overview jobs service_metrics trigger_status triggers" \
    "init: the schema's tables and views are there"
is "$(stat -c %a "$DB")" 640 "init: the database is not world-readable"
before=$(md5 "$DB")
succeeds "$DB: schema version $V" "init again succeeds" init
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
    AND name NOT LIKE 'sqlite_autoindex%' ORDER BY name")" "triggers_checkpoint
triggers_claimed
triggers_completed
triggers_pending" "migration: the triggers indexes are there again"
is "$(sqlite3 "$OLD" "SELECT * FROM checkpoint_stats")" "$J1|1|0|1000|1000|1000|4|1000|2000||||||" \
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

printf 'not a database at all\n' > "$T/text.db"
before=$(md5 "$T/text.db")
refused 1 "$T/text.db: file is not a database" \
    "init refuses a file that is not a database: one line, exit 1" \
    --db "$T/text.db" init
refused 1 "$T/text.db: file is not a database" \
    "job list on a file that is not a database: one line, exit 1" \
    --db "$T/text.db" job list
is "$(md5 "$T/text.db")" "$before" "text file: unchanged"

refused 1 "$T/missing/dir/x.db: unable to open database file" \
    "--db in a missing directory fails cleanly" \
    --db "$T/missing/dir/x.db" init
test ! -e "$T/missing"
ok $? "--db in a missing directory: nothing created"

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

# --- job add ---

succeeds "" "job add with defaults" job add "$J1"
is "$(jobs_rows)" "$J1|''|RUNNING|FULL|NULL|600" \
    "job add: RUNNING, FULL, no command, 600 s"

succeeds "" "job add with every option, id in uppercase" \
    job add "$J2UP" --name 'nightly backup' --type INCREMENTAL \
    --command 'sqlite3 /srv/app.db ".backup /srv/ckpt.db"' --timeout 30
is "$(sql "SELECT quote(name), state, checkpoint_type, quote(command),
    timeout_s FROM jobs WHERE job_id = '$J2'")" \
    "'nightly backup'|RUNNING|INCREMENTAL|'sqlite3 /srv/app.db \".backup /srv/ckpt.db\"'|30" \
    "job add: every option stored, id in lowercase"

before=$(jobs_dump)
refused 1 "job $J2 already exists" "job add of a known job fails" \
    job add "$J2" --name other
refused 1 "job $J2 already exists" \
    "job add of a known job in another case fails" job add "$J2UP"
is "$(jobs_dump)" "$before" "job add duplicate: jobs unchanged"

succeeds "" "job add --command '' means no command" \
    job add "$J3" --command ''
is "$(sql "SELECT quote(command) FROM jobs WHERE job_id = '$J3'")" NULL \
    "job add --command '': command is NULL"
run job rm "$J3"

before=$(jobs_dump)
for id in 0123456789abcdef0123456789abcde 0123456789abcdef0123456789abcdef0 \
    0123456789abcdef0123456789abcdeg '' ' 0123456789abcdef0123456789abcde'; do
	refused 2 "bad job id '$id': expected 32 hexadecimal characters" \
	    "job add refuses the id '$id'" job add "$id"
done
for t in full CONFIGURED ''; do
	refused 2 "bad --type '$t': expected FULL or INCREMENTAL" \
	    "job add refuses --type '$t'" job add "$J3" --type "$t"
done
for n in 0 -1 abc 99999999999 31536001 '' ' 5' 5s; do
	refused 2 "bad --timeout '$n': expected a whole number from 1 to 31536000" \
	    "job add refuses --timeout '$n'" job add "$J3" --timeout "$n"
done
refused 2 "job add: unknown option --state" \
    "job add refuses --state (a new job is RUNNING)" \
    job add "$J3" --state FAILED
refused 2 "job add: missing JOBID" "job add without an id" job add
refused 2 "job add: unexpected argument 'extra'" \
    "job add with a second operand" job add "$J3" extra
refused 2 "job add: unexpected argument 'a'" \
    "job add with many operands names the first extra" job add "$J3" a b c d
refused 2 "option --name needs a value" "job add --name without a value" \
    job add "$J3" --name
is "$(jobs_dump)" "$before" "refused job adds: jobs unchanged"

# --- job set ---

succeeds "" "job set --state" job set "$J1" --state FINISHED
succeeds "" "job set --name" job set "$J1" --name 'renamed'
succeeds "" "job set --type" job set "$J1" --type INCREMENTAL
succeeds "" "job set --command" job set "$J1" --command 'true'
succeeds "" "job set --timeout (upper bound)" job set "$J1" --timeout 31536000
is "$(jobs_rows | grep "^$J1")" \
    "$J1|'renamed'|FINISHED|INCREMENTAL|'true'|31536000" \
    "job set: each field changed"
succeeds "" "job set several fields at once, id in uppercase" \
    job set 0123456789ABCDEF0123456789ABCDEF --state RUNNING --type FULL \
    --timeout 1 --name ''
is "$(jobs_rows | grep "^$J1")" "$J1|''|RUNNING|FULL|'true'|1" \
    "job set: several fields changed, the others kept"
succeeds "" "job set --command '' clears the command" \
    job set "$J1" --command ''
is "$(sql "SELECT quote(command) FROM jobs WHERE job_id = '$J1'")" NULL \
    "job set --command '': command is NULL"

before=$(jobs_dump)
for s in running PAUSED CONFIGURED ''; do
	refused 2 "bad --state '$s': expected RUNNING, FINISHED, CANCELED, FAILED or SUSPENDED" \
	    "job set refuses --state '$s'" job set "$J1" --state "$s"
done
refused 2 "bad --type 'CONFIGURED': expected FULL or INCREMENTAL" \
    "job set refuses --type CONFIGURED" job set "$J1" --type CONFIGURED
refused 2 "bad --timeout '0': expected a whole number from 1 to 31536000" \
    "job set refuses --timeout 0" job set "$J1" --timeout 0 --name x
refused 2 "job set: nothing to change; give --state, --name, --type, --command or --timeout" \
    "job set without an option" job set "$J1"
refused 2 "bad job id 'nope': expected 32 hexadecimal characters" \
    "job set refuses a bad id" job set nope --state FAILED
refused 1 "job $NOJOB not found" "job set of an unknown job fails" \
    job set "$NOJOB" --state FAILED
is "$(jobs_dump)" "$before" "refused job sets: jobs unchanged"

# --- job list and job rm ---

sql "INSERT INTO checkpoint_counters VALUES ('$J2', 7);
    INSERT INTO triggers (job_id, trigger_id, requested_type, created_ms)
    VALUES ('$J2', '$J1', 'FULL', 1)"
succeeds "JOB ID                            STATE    TYPE         TIMEOUT  CHECKPOINT  PENDING  NAME            COMMAND
$J1  RUNNING  FULL         1s       -           0        -               -
$J2  RUNNING  INCREMENTAL  30s      7           1        nightly backup  sqlite3 /srv/app.db \".backup /srv/ckpt.db\"" \
    "job list: a header and one aligned line per job" job list

succeeds "" "job rm" job rm "$J2UP"
is "$(sql "SELECT count(*) FROM jobs WHERE job_id = '$J2';
    SELECT last_id FROM checkpoint_counters WHERE job_id = '$J2'")" "0
7" "job rm: the job is gone, its checkpoint counter kept"
refused 1 "job $J2 not found" "job rm of an unknown job fails" job rm "$J2"
refused 2 "bad job id '': expected 32 hexadecimal characters" \
    "job rm refuses an empty id" job rm ''
succeeds "" "job rm of the last job" job rm "$J1"
succeeds "JOB ID  STATE  TYPE  TIMEOUT  CHECKPOINT  PENDING  NAME  COMMAND" \
    "job list with no jobs prints the header only" job list
succeeds "" "a job added again" job add "$J2"
like "$(sql 'SELECT last_checkpoint_id FROM job_overview')" '^7$' \
    "a job added again continues from its old checkpoint counter"
run job rm "$J2"

# --- triggers ---

sql "DELETE FROM triggers"
succeeds "CREATED (UTC)  JOB ID  TRIGGER ID  STATUS  CHECKPOINT  TYPE  CLIENT  RESULT" \
    "triggers with none prints the header only" triggers

A=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
B=bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb
C=cccccccccccccccccccccccccccccccc
D=dddddddddddddddddddddddddddddddd
# D's failure carries its serialized-throwable, as the runner would store it
# (cgi/throwable.c): the schema wants one with every failure.
THROWABLE_TIMEOUT=$THROWABLE_HEAD\
'dAAUdGltZWQgb3V0IGFmdGVyIDMwIHN1cgAeW0xqYXZhLmxhbmcuU3RhY2tUcmFj'\
'ZUVsZW1lbnQ7AkYqPDz9IjkCAAB4cAAAAABzcgAfamF2YS51dGlsLkNvbGxlY3Rp'\
'b25zJEVtcHR5TGlzdHq4F7Q8p57eAgAAeHB4dAAfdGltZWQgb3V0IGFmdGVyIDMw'\
'IHMKCWF0IHJ1bm5lcnQAJWphdmEudXRpbC5jb25jdXJyZW50LlRpbWVvdXRFeGNl'\
'cHRpb25w'
sql "INSERT INTO triggers (job_id, trigger_id, requested_type, created_ms)
    VALUES ('$J1', '$A', 'FULL', 1700000000000);
INSERT INTO triggers (job_id, trigger_id, requested_type, created_ms,
    claimed_by, claimed_ms, checkpoint_id, checkpoint_type, remote_user,
    remote_addr)
    VALUES ('$J1', '$B', 'CONFIGURED', 1700000001000, 'host:4242',
    1700000001500, 3, 'INCREMENTAL', 'alice', '127.0.0.1');
INSERT INTO triggers (job_id, trigger_id, requested_type, created_ms,
    status, checkpoint_id, checkpoint_type, location, completed_ms,
    remote_addr)
    VALUES ('$J2', '$C', 'FULL', 1700000002000, 'COMPLETED', 1, 'FULL',
    '/srv/ckpt/1', 1700000002500, '::1');
INSERT INTO triggers (job_id, trigger_id, requested_type, created_ms,
    status, checkpoint_id, checkpoint_type, failure_class, failure_trace,
    failure_throwable, completed_ms)
    VALUES ('$J1', '$D', 'INCREMENTAL', 1700000003000, 'COMPLETED', 4,
    'INCREMENTAL', 'java.util.concurrent.TimeoutException',
    'timed out after 30 s' || char(10) || char(9) || 'at runner',
    '$THROWABLE_TIMEOUT', 1700000033000)"
succeeds "CREATED (UTC)        JOB ID                            TRIGGER ID                        STATUS       CHECKPOINT  TYPE         CLIENT           RESULT
2023-11-14 22:13:23  $J1  $D  COMPLETED    4           INCREMENTAL  -                timed out after 30 s
2023-11-14 22:13:22  $J2  $C  COMPLETED    1           FULL         ::1              /srv/ckpt/1
2023-11-14 22:13:21  $J1  $B  IN_PROGRESS  3           INCREMENTAL  alice@127.0.0.1  claimed by host:4242
2023-11-14 22:13:20  $J1  $A  IN_PROGRESS  -           FULL         -                -" \
    "triggers: newest first, with status, id, type, client and result" \
    triggers
succeeds "CREATED (UTC)        JOB ID                            TRIGGER ID                        STATUS     CHECKPOINT  TYPE         CLIENT  RESULT
2023-11-14 22:13:23  $J1  $D  COMPLETED  4           INCREMENTAL  -       timed out after 30 s
2023-11-14 22:13:22  $J2  $C  COMPLETED  1           FULL         ::1     /srv/ckpt/1" \
    "triggers --limit 2: the two newest" triggers --limit 2
succeeds "CREATED (UTC)        JOB ID                            TRIGGER ID                        STATUS     CHECKPOINT  TYPE  CLIENT  RESULT
2023-11-14 22:13:22  $J2  $C  COMPLETED  1           FULL  ::1     /srv/ckpt/1" \
    "triggers --job: that job's only, id in any case" triggers --job "$J2UP"
run triggers --job "$J1" --limit 1
is "$(printf '%s\n' "$OUT" | sed 1d | cut -c 22-53,56-87)" "$J1$D" \
    "triggers --job --limit 1: that job's newest"
refused 2 "bad --limit '0': expected a whole number from 1 to 1000000" \
    "triggers refuses --limit 0" triggers --limit 0
refused 2 "bad --limit 'ten': expected a whole number from 1 to 1000000" \
    "triggers refuses --limit ten" triggers --limit ten
refused 2 "bad --job 'j1': expected 32 hexadecimal characters" \
    "triggers refuses a bad --job" triggers --job j1
refused 2 "triggers: unknown option --name" \
    "triggers refuses an option it does not take" triggers --name x

# --- purge ---

now=$(($(date +%s) * 1000))
sql "DELETE FROM triggers;
INSERT INTO triggers (job_id, trigger_id, requested_type, created_ms,
    status, checkpoint_id, completed_ms)
    VALUES ('$J1', '$A', 'FULL', $now - 3600000, 'COMPLETED', 1,
    $now - 3600000),
    ('$J1', '$B', 'FULL', $now, 'COMPLETED', 2, $now + 60000);
INSERT INTO triggers (job_id, trigger_id, requested_type, created_ms)
    VALUES ('$J1', '$C', 'FULL', $now - 3600000)"
remaining() {
	sql "SELECT group_concat(substr(trigger_id, 1, 1), '') FROM
	    (SELECT trigger_id FROM triggers ORDER BY id)"
}
CHECKPOINT_STORE_DURATION=0
export CHECKPOINT_STORE_DURATION
succeeds "purged 0" "purge with a store duration of 0 keeps everything" purge
is "$(remaining)" abc "purge with 0: all rows kept"
CHECKPOINT_STORE_DURATION=1
succeeds "purged 1" "purge drops the expired result" purge
is "$(remaining)" bc \
    "purge: the pending trigger and the recent result are kept"
CHECKPOINT_STORE_DURATION=soon
refused 1 "CHECKPOINT_STORE_DURATION=\"soon\": expected a duration such as 300, 90s, 5min, 1h, 500ms or 0" \
    "a bad CHECKPOINT_STORE_DURATION is refused" purge
unset CHECKPOINT_STORE_DURATION
is "$(remaining)" bc "a bad setting: nothing purged"

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
is "$(printf '%s\n' "$OUT" | grep -E '^	(init|job|triggers|purge)' |
    cut -d ' ' -f 1-2 | tr '\t\n' '  ')" \
    " init  job add  job set  job rm  job list  triggers [--job  purge " \
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
