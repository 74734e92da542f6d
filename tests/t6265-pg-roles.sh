#!/bin/sh
# Least privilege on PostgreSQL (checkpoint-api(7), "SECURITY"), with the
# roles of scripts/pg-setup.sql and the grants of scripts/pg-grants.sql,
# run as written: the web server's role records requests and reads
# results, and cannot change a job, its command, schedule or retention;
# the runner's role completes what was asked and cannot change a job's
# command either; the app and the runner, each as its role, still do
# their whole work (triggers, savepoints, a stop, a disposal, the reads).
#
# The job's command is written in single quotes on purpose: its $VARS are
# for the action's shell.
# shellcheck disable=SC2016

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg.sh"

command -v cgi-fcgi >/dev/null 2>&1 || bail "cgi-fcgi is missing"

J=0123456789abcdef0123456789abcdef
TA=$(printf '%032x' 1)
TS=$(printf '%032x' 2)
CMD='echo "file:/ckpt/chk-$CHECKPOINT_ID"'
DENIED='permission denied for table'

pg_start
# pg-setup.sql makes the database "checkpoints" itself.
psql_q "DROP DATABASE checkpoints" postgres || bail "DROP DATABASE"
"$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$(pg_uri postgres)" \
    -f "$top_srcdir/scripts/pg-setup.sql" > "$T/setup.out" 2>&1 ||
    bail "pg-setup.sql: $(cat "$T/setup.out")"
: > "$T/roles-pgpass"
for r in checkpoint checkpoint_web checkpoint_runner; do
	_pw=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
	psql_q "ALTER ROLE $r PASSWORD '$_pw'" postgres || bail "password of $r"
	printf '127.0.0.1:%s:checkpoints:%s:%s\n' "$PG_PORT" "$r" "$_pw" \
	    >> "$T/roles-pgpass"
done
chmod 600 "$T/roles-pgpass"

# as ROLE: the URI of the database for ROLE.
as() {
	printf 'postgresql://%s@127.0.0.1:%s/checkpoints?passfile=%s' \
	    "$1" "$PG_PORT" "$T/roles-pgpass"
}
# sql_as ROLE SQL: SQL as ROLE; its output and errors, and the status.
sql_as() {
	"$PG_BIN/psql" -X -q -A -t -v ON_ERROR_STOP=1 -d "$(as "$1")" -c "$2" 2>&1
}
OWNER=$(as checkpoint)
WEB=$(as checkpoint_web)
RUNS=$(as checkpoint_runner)

# No tables yet: only checkpointctl init makes them, as a SQLite file.
"$CTL" --db "$OWNER" job list > "$T/out" 2> "$T/err"
is "$?|$(cat "$T/out")|$(grep -c 'no checkpoint-api tables there; checkpointctl init makes them' "$T/err")" \
    "1||1" "before init: job list refused, init named"
CHECKPOINT_DB=$WEB
start_app "" 2>> "$T/app.log"
is "$(fcgi_raw POST /jobs/$J/checkpoints '{}' | status_body)" \
    "503 $NO_DATABASE" "before init: the app's POST is the 503 naming init"
stop_pid "$APP"
"$RUNNER" --db "$RUNS" > "$T/runner.out" 2>&1
is "$?" 3 "before init: a runner pass exits 3"
is "$(psql_q "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'" checkpoints)" 0 \
    "before init: no program made a table"
"$CTL" --db "$OWNER" init > /dev/null || bail "init as the owner"
"$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$OWNER" \
    -f "$top_srcdir/scripts/pg-grants.sql" > "$T/grants.out" 2>&1
ok $? "pg-grants.sql as the owner, after init ($(cat "$T/grants.out"))"
"$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$OWNER" \
    -f "$top_srcdir/scripts/pg-grants.sql" > "$T/grants.out" 2>&1
ok $? "pg-grants.sql again: every statement may be repeated"
"$CTL" --db "$OWNER" job add "$J" --name roles --command "$CMD" \
    --savepoint-dir file:/sp --savepoint-command 'echo "$CHECKPOINT_SAVEPOINT_DIR/sp-$CHECKPOINT_ID"' \
    --stop-command 'echo "$CHECKPOINT_SAVEPOINT_DIR/stop-$CHECKPOINT_ID"' \
    --dispose-command 'true' > /dev/null || bail "job add as the owner"

# --- what neither the web server nor the runner may do -----------------------

for role in checkpoint_web checkpoint_runner; do
	for sql in "UPDATE jobs SET command = 'touch /tmp/owned' WHERE job_id = '$J'" \
	    "UPDATE jobs SET savepoint_command = 'id' WHERE job_id = '$J'" \
	    "UPDATE jobs SET bookkeeping_only = 1 WHERE job_id = '$J'" \
	    "INSERT INTO jobs (job_id, state, checkpoint_type, command, timeout_s, created_ms, updated_ms) VALUES ('$(printf '%032x' 9)', 'RUNNING', 'FULL', 'id', 5, 0, 0)" \
	    "DELETE FROM jobs" \
	    "DELETE FROM schedules" \
	    "INSERT INTO retention (job_id, kind, keep_last, set_by, set_ms) VALUES ('$J', 'CHECKPOINT', 1, 'x', 0)" \
	    "UPDATE schema_version SET version = 0"; do
		like "$(sql_as "$role" "$sql")" "$DENIED" \
		    "$role may not: ${sql%% WHERE*}"
	done
done
is "$(sql_as checkpoint_web "SELECT command FROM jobs")" "$CMD" \
    "the job's command is the owner's still"
is "$(sql_as checkpoint_web "SELECT count(*) FROM jobs")" 1 \
    "and no job was added"

# --- what each does as its role ----------------------------------------------

CHECKPOINT_DB=$WEB
start_app "" 2>> "$T/app.log"
answer() {
	fcgi_raw "$1" "$2" "${3:-}" | status_body
}
is "$(answer POST /jobs/$J/checkpoints "{\"triggerId\":\"$TA\"}")" \
    "202 {\"request-id\":\"$TA\"}" "the app as checkpoint_web: a trigger, 202"
is "$(answer POST /jobs/$J/savepoints \
    "{\"target-directory\":\"file:/sp\",\"cancel-job\":false,\"triggerId\":\"$TS\"}")" \
    "202 {\"request-id\":\"$TS\"}" "the app as checkpoint_web: a savepoint, 202"
is "$(answer GET /jobs/$J/checkpoints/$TA)" \
    '200 {"status":{"id":"IN_PROGRESS"},"operation":null}' \
    "the app as checkpoint_web: its status"
is "$(sql_as checkpoint_web "SELECT kind || ' ' || waiting FROM queue_waiting ORDER BY kind")" \
    "SAVEPOINT 1
TRIGGER 1" "the app as checkpoint_web: the queue's counts kept"
"$RUNNER" --db "$RUNS" > "$T/runner.out" 2>&1
ok $? "the runner as checkpoint_runner: a pass ($(cat "$T/runner.out"))"
is "$(answer GET /jobs/$J/checkpoints/$TA)" \
    '200 {"status":{"id":"COMPLETED"},"operation":{"checkpointId":1}}' \
    "the runner completed the trigger, the app reads it"
like "$(answer GET /jobs/$J/savepoints/$TS)" \
    '^200 \{"status":\{"id":"COMPLETED"\},"operation":\{"location":"file:/sp/sp-' \
    "the runner completed the savepoint"
is "$(sql_as checkpoint_web "SELECT count(*) FROM queue_waiting")" 0 \
    "the runner as checkpoint_runner: the queue's counts back to none"
like "$(answer GET /jobs/$J/checkpoints)" '^200 \{"counts":\{' \
    "the app as checkpoint_web: the statistics"
like "$(answer GET /metrics)" '^200 # HELP' "the app as checkpoint_web: /metrics"
is "$(answer POST /jobs/$J/stop "{\"targetDirectory\":\"file:/sp\",\"triggerId\":\"$TA\"}")" \
    "202 {\"request-id\":\"$TA\"}" "the app as checkpoint_web: a stop, 202"
"$RUNNER" --db "$RUNS" > "$T/runner.out" 2>&1
ok $? "the runner as checkpoint_runner: the stop's pass ($(cat "$T/runner.out"))"
is "$(sql_as checkpoint_web "SELECT state FROM jobs")" FINISHED \
    "the runner ended the job (its state, the one column it may change)"
is "$(answer POST /savepoint-disposal '{"savepoint-path":"file:/sp/none"}' | cut -c1-3)" \
    200 "the app as checkpoint_web: a disposal, 200"
stop_pid "$APP"

# A schedule fired by the runner as its role: the slot recorded, the
# trigger made and run.
JS=$(printf '%032x' 5)
"$CTL" --db "$OWNER" job add "$JS" --command "$CMD" --every 1s > /dev/null ||
    bail "job add --every as the owner"
sleep 1.5
"$RUNNER" --db "$RUNS" > "$T/runner.out" 2>&1
ok $? "the runner as checkpoint_runner: a pass that fires a schedule ($(cat "$T/runner.out"))"
like "$(sql_as checkpoint_web "SELECT count(*) FROM triggers WHERE job_id = '$JS' AND remote_user = 'scheduler'")" \
    '^[1-9]' "  the scheduler's trigger recorded"

done_testing
