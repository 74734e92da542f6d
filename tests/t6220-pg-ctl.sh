#!/bin/sh
# checkpointctl(8) on PostgreSQL (a throwaway cluster, tests/pg.sh), the
# database named by a postgresql:// URI in CHECKPOINT_DB and by --db: every
# command prints, exits and leaves in the database (asked with psql) what
# t2000 sees on SQLite; every refusal is one line on stderr, a non-zero
# exit, and the database as it was.  init makes the schema once and then
# changes nothing, and refuses a newer schema and a database of another
# application; a lock held by another session past CHECKPOINT_BUSY_TIMEOUT
# and a server nobody listens on are one line each.  A password in the URI
# (a role of its own that logs in with it) is shown as *** where the
# database is named, and appears in no output, no error, and no process's
# command line (/proc/PID/cmdline, what ps shows): not the runner's
# (--watch, a long-lived process, started with --db URI) nor
# checkpointctl's while it waits for a lock.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg.sh"

command -v psql >/dev/null 2>&1 || PATH=$PG_BIN:$PATH

J1=0123456789abcdef0123456789abcdef
J2=fedcba9876543210fedcba9876543210
J2UP=FEDCBA9876543210FEDCBA9876543210
J3=33333333333333333333333333333333
NOJOB=99999999999999999999999999999999
TAB=$(printf '\t')
NL=$(printf '\nx')
NL=${NL%x}

# The schema version on PostgreSQL: one per migration in schema/pg/.
V=$(ls "$top_srcdir"/schema/pg/[0-9][0-9][0-9][0-9]-*.sql | wc -l)


# refused STATUS STDERR DESCRIPTION ARG...: checkpointctl exits with STATUS,
# prints nothing on stdout and exactly the one line STDERR on stderr.
refused() {
	_status=$1 _stderr=$2 _desc=$3
	shift 3
	run "$@"
	is "$RC|$OUT|$ERR" "$_status||checkpointctl: $_stderr" "$_desc"
}

# refused_like STATUS REGEX DESCRIPTION ARG...: the same, with the one line
# matching REGEX (the server's own words after it).
refused_like() {
	_status=$1 _re=$2 _desc=$3
	shift 3
	run "$@"
	like "$RC|$OUT|$ERR|$(printf '%s\n' "$ERR" | wc -l)" \
	    "^$_status\\|\\|checkpointctl: $_re\\|1\$" "$_desc"
}

# succeeds STDOUT DESCRIPTION ARG...: exit 0, exactly STDOUT, no stderr.
succeeds() {
	_stdout=$1 _desc=$2
	shift 2
	run "$@"
	is "$RC|$OUT|$ERR" "0|$_stdout|" "$_desc"
}

# named PORT DB [USER]: how a refusal may name the database, as a regex:
# the URI as given with its password as *** (checkpointctl's own
# spelling, which init prints), or the store's postgresql://HOST:PORT/DB,
# which leaves out the user and the parameters.  Neither shows a secret.
named() {
	printf 'postgresql://(%s(:\\*\\*\\*)?@)?127\\.0\\.0\\.1:%s/%s(\\?password=\\*\\*\\*)?' \
	    "${3:-postgres}" "$1" "$2"
}

# q SQL [DB]: psql on the database of CHECKPOINT_DB (ctl), or DB.
q() {
	psql_q "$1" "${2:-ctl}"
}

jobs_rows() {
	q "SELECT job_id, quote_nullable(name), state, checkpoint_type,
	    quote_nullable(command), timeout_s FROM jobs ORDER BY job_id"
}

jobs_dump() {
	q "SELECT * FROM jobs ORDER BY job_id"
}

# Every object of the public schema and every row of ours: what "changes
# nothing" compares.
db_dump() {
	"$PG_BIN/pg_dump" -d "$(pg_uri "${1:-ctl}")" |
	    grep -v '^\\\(un\)\{0,1\}restrict '
}

pg_start
psql_q "CREATE DATABASE ctl" postgres || bail "CREATE DATABASE ctl"
URI=$(pg_uri ctl)
CHECKPOINT_DB=$URI
export CHECKPOINT_DB

# A role that logs in with a password written in the URI, owning a
# database of its own.
PW=Pw$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
psql_q "CREATE ROLE ckpt LOGIN PASSWORD '$PW'" postgres &&
    psql_q "CREATE DATABASE owned OWNER ckpt" postgres ||
    bail "CREATE ROLE ckpt"
PW_URI="postgresql://ckpt:$PW@127.0.0.1:$PG_PORT/owned"
PW_SHOWN="postgresql://ckpt:***@127.0.0.1:$PG_PORT/owned"

# --- init ---

succeeds "$URI: schema version $V" "init makes the schema and says so" init
is "$(q "SELECT count(*) FROM information_schema.tables
    WHERE table_schema = 'public' AND table_name IN ('jobs', 'triggers',
    'checkpoint_counters', 'checkpoint_stats', 'service_metrics',
    'trigger_status', 'job_overview', 'checkpoints')")" 8 \
    "init: the schema's tables and views are there"
is "$(q "SELECT application || ' ' || version FROM schema_version")" \
    "checkpoint-api $V" "init: schema_version says version $V"
before=$(db_dump)
succeeds "$URI: schema version $V" "init again succeeds" init
is "$(db_dump)" "$before" "init again changes nothing (pg_dump the same)"

# A database of a newer version, and one of another application.
psql_q "CREATE DATABASE newer" postgres &&
    psql_q "CREATE TABLE schema_version (application text, version integer,
    applied_ms bigint); INSERT INTO schema_version
    VALUES ('checkpoint-api', 99, 0)" newer || bail "newer"
before=$(db_dump newer)
refused_like 1 "$(named "$PG_PORT" newer): schema version 99 is newer than this program's $V; upgrade checkpoint-api" \
    "init refuses a database of a newer schema version" \
    --db "$(pg_uri newer)" init
is "$(db_dump newer)" "$before" "newer database: nothing created or changed"

psql_q "CREATE DATABASE foreign_app" postgres &&
    psql_q "CREATE TABLE t (x integer); INSERT INTO t VALUES (42)" \
    foreign_app || bail "foreign_app"
before=$(db_dump foreign_app)
refused_like 1 "$(named "$PG_PORT" foreign_app): not a checkpoint-api database.*" \
    "init refuses a non-empty database that is not ours: one line, exit 1" \
    --db "$(pg_uri foreign_app)" init
refused_like 1 "$(named "$PG_PORT" foreign_app): not a checkpoint-api database.*" \
    "job list on a database that is not ours: one line, exit 1" \
    --db "$(pg_uri foreign_app)" job list
is "$(db_dump foreign_app)" "$before" \
    "foreign database: its contents untouched, nothing of ours created"

# Nobody listening: one line naming the URI, nothing created anywhere.
NOBODY=$(free_port)
refused_like 1 "$(named "$NOBODY" ctl): .*" \
    "a server nobody listens on: one line, exit 1" \
    --db "postgresql://postgres@127.0.0.1:$NOBODY/ctl" job list
refused_like 1 "$(named "$PG_PORT" absent): .*" \
    "a database that does not exist: one line, exit 1" \
    --db "$(pg_uri absent)" init
is "$(psql_q "SELECT count(*) FROM pg_database WHERE datname = 'absent'" \
    postgres)" 0 "  and it was not created"

# --- --db and CHECKPOINT_DB ---

psql_q "CREATE DATABASE other" postgres || bail "CREATE DATABASE other"
succeeds "$(pg_uri other): schema version $V" "--db overrides CHECKPOINT_DB" \
    --db "$(pg_uri other)" init
succeeds "" "--db also works after the command" \
    job add "$J3" --db "$(pg_uri other)"
is "$(q 'SELECT job_id FROM jobs' other)|$(jobs_rows)" "$J3|" \
    "--db: the job went to --db, not to CHECKPOINT_DB"
succeeds "" "--db=URI is taken too" job rm --db="$(pg_uri other)" "$J3"
is "$(q 'SELECT count(*) FROM jobs' other)" 0 \
    "--db=URI: the job was removed there"

psql_q "CREATE DATABASE never" postgres || bail "CREATE DATABASE never"
refused 2 "bad job id 'xyz': expected 32 hexadecimal characters" \
    "a bad command line does not touch the database" \
    --db "$(pg_uri never)" job add xyz
refused 2 "bad --timeout '0': expected a whole number from 1 to 31536000" \
    "  nor a bad option" job add "$J1" --timeout 0 --db "$(pg_uri never)"
is "$(q "SELECT count(*) FROM pg_class c JOIN pg_namespace n
    ON n.oid = c.relnamespace WHERE n.nspname = 'public'" never)" 0 \
    "  which is left without a schema"

# --- the jobs and triggers commands, as on SQLite ---

# sql SQL: CHECKPOINT_DB's database, for ctl-checks.sh.
sql() {
	q "$1"
}
QUOTE=quote_nullable
remaining() {
	q "SELECT string_agg(substr(trigger_id, 1, 1), '' ORDER BY id)
	    FROM triggers"
}
. "$(dirname "$0")/ctl-checks.sh"

# --- a lock held by another session ---

# The jobs table in EXCLUSIVE mode (tests/pg.sh, pg_lock): writers wait.
pg_lock ctl jobs
before=$(jobs_dump)
CHECKPOINT_BUSY_TIMEOUT=100ms
export CHECKPOINT_BUSY_TIMEOUT
refused 1 "database is locked; try again" \
    "job add on a locked table: one line, exit 1" job add "$J3"
refused 1 "database is locked; try again" \
    "job set on a locked table: one line, exit 1" job set "$J1" --name x
unset CHECKPOINT_BUSY_TIMEOUT
is "$(jobs_dump)" "$before" "locked table: nothing written"
pg_unlock ROLLBACK
succeeds "" "job add once the lock is gone" job add "$J3"

# --- a password in the URI ---

# The role's own database, named with its password: shown as ***, and the
# tables are the role's.  The same commands on a SQLite file print the
# same tables.
SAME=$T/same.db
succeeds "$PW_SHOWN: schema version $V" \
    "--db with a password: init names the database with *** for it" \
    --db "$PW_URI" init
is "$(q "SELECT tableowner FROM pg_tables WHERE tablename = 'jobs'" owned)" \
    ckpt "--db with a password: the schema was made by that role"
succeeds "" "--db with a password: job add" --db "$PW_URI" job add "$J1"
init_db "$SAME"
"$CTL" --db "$SAME" job add "$J1" || bail "job add on SQLite"
run --db "$SAME" job list
succeeds "$OUT" "--db=URI with a password: job list, as on SQLite" \
    job list --db="$PW_URI"
is "$(q "SELECT job_id FROM jobs" owned)" "$J1" \
    "--db with a password: the job is in the role's database"
succeeds "" "--db with a password: job set" \
    --db "$PW_URI" job set "$J1" --name 'pw job' --timeout 9 --type INCREMENTAL
"$CTL" --db "$SAME" job set "$J1" --name 'pw job' --timeout 9 \
    --type INCREMENTAL || bail "job set on SQLite"
run --db "$SAME" job list
like "$OUT" "$J1  RUNNING  INCREMENTAL  9s " "(SQLite's job list after job set)"
succeeds "$OUT" "--db with a password: job list after job set, as on SQLite" \
    --db "$PW_URI" job list
_rows="INSERT INTO triggers (job_id, trigger_id, requested_type, created_ms,
    status, checkpoint_id, checkpoint_type, location, completed_ms,
    remote_user, remote_addr) VALUES ('$J1', '$A', 'FULL', 1700000002000,
    'COMPLETED', 1, 'FULL', '/srv/ckpt/1', 1700000002500, 'bob', '::1'),
    ('$J1', '$B', 'CONFIGURED', 1700000003000, 'IN_PROGRESS', NULL, NULL,
    NULL, NULL, NULL, '127.0.0.1')"
sqlite3 "$SAME" "$_rows" && q "$_rows" owned > /dev/null ||
    bail "the same triggers in both"
run --db "$SAME" triggers --job "$J1"
is "$(printf '%s\n' "$OUT" | wc -l)" 3 "(SQLite's triggers: a header, two)"
succeeds "$OUT" "--db with a password: triggers, as on SQLite" \
    --db "$PW_URI" triggers --job "$J1"
export CHECKPOINT_STORE_DURATION=1
succeeds "purged 1" "(SQLite's purge)" --db "$SAME" purge
succeeds "purged 1" "--db with a password: purge, as on SQLite" \
    --db "$PW_URI" purge
unset CHECKPOINT_STORE_DURATION
is "$(q "SELECT string_agg(substr(trigger_id, 1, 1), '') FROM triggers" owned)" \
    b "  the pending trigger kept"
CHECKPOINT_DB=$PW_URI
succeeds "" "CHECKPOINT_DB with a password: job rm" job rm "$J1"
refused 1 "job $J1 not found" \
    "CHECKPOINT_DB with a password: an error names no password" job rm "$J1"
CHECKPOINT_DB=$URI
refused_like 1 "$(named "$PG_PORT" owned ckpt): .*" \
    "a wrong password: one line, the URI with *** for it" \
    --db "postgresql://ckpt:${PW}x@127.0.0.1:$PG_PORT/owned" job list
refused_like 1 "$(named "$NOBODY" owned ckpt): .*" \
    "a password and nobody listening: one line, the URI with *** for it" \
    --db "postgresql://ckpt:$PW@127.0.0.1:$NOBODY/owned" job list
refused_like 1 "$(named "$PG_PORT" owned ckpt): .*" \
    "a wrong password as a parameter: one line, *** for it" \
    --db "postgresql://ckpt@127.0.0.1:$PG_PORT/owned?password=${PW}x" \
    job list
# An empty password, written: one line, at once (the redaction found it
# again and again, for ever).
timeout 30 "$CTL" --db "postgresql://ckpt:@127.0.0.1:$PG_PORT/owned" \
    job list > "$T/out" 2> "$T/err"
like "$?|$(cat "$T/out")|$(cat "$T/err")|$(wc -l < "$T/err")" \
    "^1\\|\\|checkpointctl: $(named "$PG_PORT" owned ckpt): .*\\|1\$" \
    "an empty password in the URI: one line, promptly"

# Processes' command lines, which ps shows to every user: checkpointctl
# while it waits for a lock (2 s by default), and the runner, which runs
# for as long as it watches.  Each is read once the program is inside
# the database (a session of the role waiting for the lock; listening).
sessions() {
	psql_q "SELECT count(*) FROM pg_stat_activity WHERE usename = 'ckpt'
	    $1" postgres
}
pg_lock owned jobs
"$CTL" --db "$PW_URI" job add "$J3" > "$T/out-waiting" 2>&1 &
CTL_PID=$!
wait_until 30 "[ \"\$(sessions \"AND wait_event_type = 'Lock'\")\" = 1 ]"
ok $? "checkpointctl --db with a password waits for the lock"
tr '\0' ' ' < "/proc/$CTL_PID/cmdline" > "$T/ctl-cmdline"
ps -o args= -p "$CTL_PID" > "$T/ctl-ps"
wait "$CTL_PID"
pg_unlock ROLLBACK
is "$(cat "$T/out-waiting")" "checkpointctl: database is locked; try again" \
    "  and gives up with the lock's one line"
cat "$T/out-waiting" >> "$T/all-output"

spawn "$RUNNER" --watch --db "$PW_URI" 2> "$T/runner.log"
RUNNER_PID=$LAST_PID
wait_until 100 "[ \"\$(sessions '')\" -ge 1 ] || gone $RUNNER_PID"
tr '\0' ' ' < "/proc/$RUNNER_PID/cmdline" > "$T/runner-cmdline"
ps -o args= -p "$RUNNER_PID" > "$T/runner-ps"
ok "$(gone "$RUNNER_PID" && echo 1 || echo 0)" \
    "checkpoint-runner --watch --db with a password is running, connected"
for _f in ctl-cmdline ctl-ps runner-cmdline runner-ps; do
	[ -s "$T/$_f" ] && ! grep -q -- "$PW" "$T/$_f"
	ok $? "the password is not in $_f: $(sed "s/$PW/<PASSWORD>/g" "$T/$_f")"
done
stop_pid "$RUNNER_PID"
cat "$T/runner.log" >> "$T/all-output"
! grep -q -- "$PW" "$T/all-output"
ok $? "no output, error or log line of checkpointctl and the runner holds the password"

done_testing
