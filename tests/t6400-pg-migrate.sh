#!/bin/sh
# checkpointctl migrate from SQLite to PostgreSQL (tests/pg.sh's throwaway
# cluster), and back: the PostgreSQL copy answers checkpointctl and every
# GET of the API (checkpoint-api(7)) exactly as its source, purged as the
# copy was made, does; each trigger keeps its row id and the identity
# sequence is moved past them, so the next POST's row follows; each job's
# ids go on densely.  A PostgreSQL database that holds anything is
# refused and left as it was.  Copied back into a new SQLite file, every
# column of every row is the source's.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg.sh"
. "$(dirname "$0")/migrate-lib.sh"

SRC=$T/src.db

pg_start
fill_source "$SRC"

run migrate --from "$SRC" --to "$PGURI"
is "$RC|$OUT|$ERR" "0|$PGURI: 3 jobs, 3 checkpoint counters, 3 job statistics and 10 triggers from $SRC|" \
    "migrate from SQLite into an empty PostgreSQL database"
is "$(psql_q "SELECT count(*), max(id) FROM triggers")" \
    "10|$(sqlite3 "$SRC" "SELECT max(id) FROM triggers")" \
    "  the triggers keep their row ids"
is "$(psql_q "SELECT count(*) FROM triggers WHERE trigger_id = '$EXPIRED'")" 0 \
    "  the expired result is left behind"

cp "$SRC" "$T/purged.db"
"$CTL" --db "$T/purged.db" purge > /dev/null
snapshot "$T/purged.db" > "$T/snap-src"
snapshot "$PGURI" > "$T/snap-pg"
grep -q 'claimed by elsewhere:4242:1' "$T/snap-pg" &&
    grep -q 'that claimed it is gone' "$T/snap-pg"
ok $? "  the snapshot holds a claim and an expiry"
if cmp -s "$T/snap-src" "$T/snap-pg"; then
	ok 0 "checkpointctl and every GET answer the same from PostgreSQL"
else
	ok 1 "checkpointctl and every GET answer the same from PostgreSQL"
	diff "$T/snap-src" "$T/snap-pg" | head -n 20 | sed 's/^/# /'
fi

# And back into a new SQLite file: every column of every row.
run migrate --from "$PGURI" --to "$T/back.db"
is "$RC|$(dump "$T/back.db")" "0|$(dump "$SRC" "trigger_id <> '$EXPIRED'")" \
    "copied back into SQLite, every column of every row is the source's"

# Ids go on: the identity sequence is past the copied rows.
last=$(sqlite3 "$SRC" "SELECT max(id) FROM triggers")
app_on "$PGURI"
post_to 12 "$J2"
post_to 13 "$J4"
stop_pid "$APP"
CHECKPOINT_DB=$PGURI "$RUNNER" 2>>"$RLOG"
is "$(psql_q "SELECT min(id) > $last FROM triggers
    WHERE trigger_id IN ('$(tid 12)', '$(tid 13)')")|$(psql_q "SELECT
    string_agg(checkpoint_id::text, ' ' ORDER BY id) FROM triggers
    WHERE job_id = '$J2'")" "t|2 3 4" \
    "on PostgreSQL: a new trigger's row follows the last; the job's ids go on densely"

# Savepoints, disposals, schedules and retention, to PostgreSQL and back:
# every column of every row; the savepoints' and disposals' identity
# sequences move past the rows copied.
SPSRC=$T/with-savepoints.db
"$CTL" --db "$SPSRC" init > /dev/null || bail "init $SPSRC"
"$CTL" --db "$SPSRC" job add "$J1" --every 1h --keep-savepoints 3 \
    --savepoint-dir file:/sp --savepoint-command 'echo "file:/sp/savepoint-$CHECKPOINT_ID"' ||
    bail "job add"
sqlite3 "$SPSRC" "INSERT INTO savepoints (id, job_id, trigger_id, kind,
    target_directory, format_type, cancel_job, status, checkpoint_id,
    location, created_ms, completed_ms, remote_addr, kept_ms)
    VALUES (7, '$J1', '$J1', 'SAVEPOINT', 'file:/sp', 'NATIVE', 1,
    'COMPLETED', 9, 'file:/sp/savepoint-9', 1, 3, '192.0.2.1', 4);
    INSERT INTO savepoint_disposals (id, trigger_id, savepoint_path,
    created_ms, attempts, reason) VALUES (5, '$J1', 'file:/sp/savepoint-9',
    6, 2, 'retention');
    INSERT INTO schedule_slots VALUES ('$J1', 'CHECKPOINT', 3600000, 3600010,
    NULL, 'not RUNNING')" || bail "sqlite3 $SPSRC"
psql_q "SET client_min_messages = warning; DROP SCHEMA public CASCADE;
    CREATE SCHEMA public" > /dev/null
run migrate --from "$SPSRC" --to "$PGURI"
is "$RC|$ERR|$(psql_q "SELECT id, kind, cancel_job, drain, checkpoint_id,
    kept_ms FROM savepoints; SELECT id, attempts, reason
    FROM savepoint_disposals; SELECT kind, every_ms FROM schedules;
    SELECT skipped FROM schedule_slots; SELECT keep_last FROM retention")" \
    "0||7|SAVEPOINT|t|f|9|4
5|2|retention
CHECKPOINT|3600000
not RUNNING
3" "savepoints, disposals, schedules and retention copied into PostgreSQL"
app_on "$PGURI"
_sp=$(fcgi_raw POST "/jobs/$J1/savepoints" \
    "{\"triggerId\":\"$(tid 31)\",\"target-directory\":\"file:/sp\"}" |
    status_body)
stop_pid "$APP"
is "$_sp|$(psql_q "SELECT id > 7 FROM savepoints
    WHERE trigger_id = '$(tid 31)'")" \
    "202 {\"request-id\":\"$(tid 31)\"}|t" \
    "  a new savepoint's row follows the copied ones"
psql_q "DELETE FROM savepoints WHERE trigger_id = '$(tid 31)'" > /dev/null
run migrate --from "$PGURI" --to "$T/sp-back.db"
sp_rows() {
	sqlite3 -batch -cmd '.mode quote' "$1" "SELECT * FROM savepoints
	    ORDER BY id; SELECT * FROM savepoint_disposals ORDER BY id;
	    SELECT * FROM schedules; SELECT * FROM schedule_slots;
	    SELECT * FROM retention"
}
is "$RC|$(sp_rows "$T/sp-back.db")" "0|$(sp_rows "$SPSRC")" \
    "  and back into SQLite: every column of every row is the source's"
psql_q "SET client_min_messages = warning; DROP SCHEMA public CASCADE;
    CREATE SCHEMA public" > /dev/null
run migrate --from "$SRC" --to "$PGURI" || bail "migrate again"

# A database that holds anything is refused, and left as it was.
state() {
	psql_q "SELECT count(*), max(id), sum(length(trigger_id)) FROM triggers;
	    SELECT count(*) FROM jobs; SELECT string_agg(job_id || last_id, ',')
	    FROM checkpoint_counters"
}
before=$(state)
run migrate --from "$SRC" --to "$PGURI"
is "$RC|$OUT|$ERR" "1||checkpointctl: $PGURI: not empty (it holds jobs, triggers or checkpoint counts); migrate only into a new database" \
    "a PostgreSQL database that holds jobs and triggers is refused"
is "$(state)" "$before" "  and left as it was"

done_testing
