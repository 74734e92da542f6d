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
