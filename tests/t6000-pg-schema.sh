#!/bin/sh
# schema/pg/, the PostgreSQL schema (its migrations in order), against
# SQLite's at its last version, on a real server (tests/pg.sh): it applies in one
# transaction, and again into another database to the same catalog; the
# same rows, loaded into a SQLite database made by checkpointctl init and
# into PostgreSQL, read back byte for byte the same through every view
# (trigger_status's response is what GET answers, checkpoint-api(7)) and
# leave the same counts after the same completions and purge; every check
# refuses the same bad rows in both.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg.sh"

# Every migration, in order, as the programs apply them; each series'
# version is its count of files.
cat "$top_srcdir"/schema/pg/0*.sql > "$T/pg-schema.sql" ||
    bail "cannot read schema/pg"
PG_SCHEMA=$T/pg-schema.sql
PG_VERSION=$(ls "$top_srcdir"/schema/pg/0*.sql | wc -l)
SQ_VERSION=$(ls "$top_srcdir"/schema/0*.sql | wc -l)

# pg_apply DB: the schema into DB, in one transaction; psql's messages in
# $T/apply-DB.err.
pg_apply() {
	"$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 --single-transaction \
	    -d "$(pg_uri "$1")" -f "$PG_SCHEMA" > "$T/apply-$1.err" 2>&1
}

pg_start
pg_apply checkpoints
ok $? "the schema applies in one transaction"
is "$(cat "$T/apply-checkpoints.err")" "" "  without a notice or warning"
is "$(psql_q "SELECT application, version FROM schema_version")" \
    "checkpoint-api|$PG_VERSION" "schema_version records version $PG_VERSION"
_now=$(psql_q "SELECT floor(extract(epoch FROM now()) * 1000)::bigint")
_at=$(psql_q "SELECT applied_ms FROM schema_version")
[ "$_at" -le "$_now" ] && [ "$_at" -gt $((_now - 60000)) ]
ok $? "  applied_ms is the server's clock ($_at, now $_now)"

# A second time into the same database: refused, and nothing of it stays.
pg_apply checkpoints
_rc=$?
[ "$_rc" -ne 0 ]
ok $? "applied twice to one database: refused"
is "$(psql_q "SELECT version FROM schema_version")" "$PG_VERSION" \
    "  version still $PG_VERSION"

psql_q "CREATE DATABASE second" postgres || bail "CREATE DATABASE second"
pg_apply second
ok $? "applied into another database"
is "$(cat "$T/apply-second.err")" "" "  without a notice or warning"
# The same catalog in both: nothing depended on what the first left.
# (pg_dump's \restrict lines carry a key of their own each time.)
"$PG_BIN/pg_dump" -s -d "$(pg_uri checkpoints)" > "$T/dump-1.raw" &&
    "$PG_BIN/pg_dump" -s -d "$(pg_uri second)" > "$T/dump-2.raw"
grep -q '^CREATE TABLE public.triggers ' "$T/dump-1.raw"
ok $? "pg_dump --schema-only of both"
grep -v '^\\\(un\)\{0,1\}restrict ' "$T/dump-1.raw" > "$T/dump-1.sql"
grep -v '^\\\(un\)\{0,1\}restrict ' "$T/dump-2.raw" > "$T/dump-2.sql"
cmp -s "$T/dump-1.sql" "$T/dump-2.sql"
ok $? "  the two catalogs are the same"

# Only into a UTF8 database.
psql_q "CREATE DATABASE ascii TEMPLATE template0 ENCODING 'SQL_ASCII'
    LC_COLLATE 'C' LC_CTYPE 'C'" postgres || bail "CREATE DATABASE ascii"
pg_apply ascii
_rc=$?
[ "$_rc" -ne 0 ] && grep -q 'needs a UTF8 database, not SQL_ASCII' "$T/apply-ascii.err"
ok $? "refused by a SQL_ASCII database"
is "$(psql_q "SELECT count(*) FROM pg_class c JOIN pg_namespace n
    ON n.oid = c.relnamespace WHERE n.nspname = 'public'" ascii)" \
    0 "  which it leaves empty"

"$CTL" init > /dev/null || bail "checkpointctl init"
is "$(sql "PRAGMA user_version")" "$SQ_VERSION" "SQLite at version $SQ_VERSION"

# pg_sql SQL-FILE [DB]: a file of SQL in one transaction.
pg_sql() {
	"$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 --single-transaction \
	    -d "$(pg_uri "${2:-}")" -f "$1"
}
# sq_sql SQL-FILE: the same in the SQLite database.
sq_sql() {
	{ echo "BEGIN;"; cat "$1"; echo "COMMIT;"; } |
	    sqlite3 -batch -bail "$DB"
}

# --- The shape: the same columns, indexes and triggers ----------------------

sq_cols() {
	sql "SELECT group_concat(name, ',') FROM pragma_table_info('$1')"
}
pg_cols() {
	psql_q "SELECT string_agg(column_name::text, ',' ORDER BY ordinal_position)
	    FROM information_schema.columns
	    WHERE table_schema = 'public' AND table_name = '$1'"
}
for _rel in jobs checkpoint_counters triggers checkpoint_stats \
    service_metrics trigger_status job_overview checkpoints savepoints \
    savepoint_disposals savepoint_status savepoint_disposal_status \
    savepoint_checkpoints checkpoint_history; do
	_cols=$(sq_cols "$_rel")
	[ -n "$_cols" ] || bail "SQLite has no $_rel"
	is "$(pg_cols "$_rel")" "$_cols" "$_rel: the same columns in order"
done
is "$(psql_q "SELECT string_agg(indexname::text, ',' ORDER BY indexname)
    FROM pg_indexes WHERE schemaname = 'public'
    AND indexname NOT LIKE '%_pkey' AND indexname NOT LIKE '%_key'")" \
    "$(sql "SELECT group_concat(name, ',') FROM (SELECT name
    FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL
    ORDER BY name)")" "the same indexes"
is "$(psql_q "SELECT string_agg(indexname || ':' || (indexdef LIKE '% WHERE %'),
    ',' ORDER BY indexname) FROM pg_indexes WHERE indexname LIKE 'triggers\_%'
    AND indexname NOT LIKE '%_key'")" \
    "triggers_checkpoint:true,triggers_claimed:true,triggers_completed:true,triggers_pending:true,triggers_queue:true,triggers_refused:true" \
    "  each of them partial"
is "$(psql_q "SELECT string_agg(tgname::text, ',' ORDER BY tgname)
    FROM pg_trigger WHERE NOT tgisinternal")" \
    "$(sql "SELECT group_concat(name, ',') FROM (SELECT name
    FROM sqlite_schema WHERE type = 'trigger' ORDER BY name)")" \
    "the same triggers"

# --- The same rows in both -------------------------------------------------

# lit: stdin as an SQL string literal, quotes doubled (both read every
# other byte, backslashes and control characters included, as it is).
lit() {
	printf "'%s'" "$(sed "s/'/''/g")"
}

J1=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
J2=0123456789abcdef0123456789abcdef
J3=11111111111111111111111111111111
J4=ffffffffffffffffffffffffffffffff # never registered
tid() {
	printf '%032x' "$1"
}
NOW=1764680000000 # the rows' clock, ms

# Every character JSON escapes, and some it does not: U+0001..U+001F, DEL,
# quotes, backslashes, '/', Latin-1, CJK, an emoji, U+2028, U+2029.  No
# carriage return just before a newline: the sqlite3 shell reads it as a
# line's end (CRLF), which would load different bytes into the two.
printf 'ctl:\001\002\003\004\005\006\007\010\011\012\013\014\015\016\017\020\021\022\023\024\025\026\027\030\031\032\033\034\035\036\037|del:\177|q:"\047"|bs:\\ \\\\ \\n \\u0041|sl:/</|lat:\303\251\303\274|cjk:\344\270\255|emoji:\360\237\230\200|ls:\342\200\250|ps:\342\200\251|tab:\t|nl:\n\rend\r' \
    > "$T/nasty"
NASTY=$(lit < "$T/nasty")
# 64 KiB of stack trace, with the nasty characters at both ends.
{
	cat "$T/nasty"
	awk 'BEGIN { for (i = 0; i < 1600; i++)
	    printf "\tat org.example.Frame%04d.run(Frame.java:%d)\n", i, i }'
} | head -c 65536 > "$T/long"
cat "$T/nasty" >> "$T/long"
LONG=$(lit < "$T/long")
CLASS=$(printf 'org.example.Weird$"Class\\\t\001\177\342\200\250\303\251' | lit)
THROW=$(printf '%s' "$THROWABLE_HEAD" | lit)
EXPIRED="'org.apache.flink.runtime.checkpoint.CheckpointException: Checkpoint expired before completing.
	at org.apache.flink.runtime.checkpoint.CheckpointCoordinator.onTriggerFailure'"
NOTFOUND="'java.util.concurrent.CompletionException: org.apache.flink.runtime.messages.FlinkJobNotFoundException: Could not find Flink job ($J4)'"

{
	cat <<-EOF
	INSERT INTO jobs (job_id, name, state, checkpoint_type, command,
	    timeout_s, created_ms, updated_ms) VALUES
	 ('$J1', $(printf 'caf\303\251 "one"' | lit), 'RUNNING', 'FULL', NULL, 600,
	  $NOW, $NOW),
	 ('$J2', 'two', 'RUNNING', 'INCREMENTAL', 'sh -c ''exit 1''', 30,
	  $NOW, $((NOW + 5))),
	 ('$J3', '', 'SUSPENDED', 'FULL', NULL, 600, $NOW, $NOW);
	INSERT INTO checkpoint_counters (job_id, last_id) VALUES
	 ('$J1', 5), ('$J2', 3);
	EOF
	# Fourteen triggers, in arrival order, about 1 s apart.
	for _i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14; do
		case $_i in
		5) _job=$J3 ;;
		6) _job=$J4 ;;
		3 | 4 | 8 | 11 | 12) _job=$J2 ;;
		*) _job=$J1 ;;
		esac
		_type=CONFIGURED
		[ "$_i" -eq 2 ] && _type=FULL
		[ "$_i" -eq 4 ] && _type=INCREMENTAL
		echo "INSERT INTO triggers (job_id, trigger_id, requested_type,"
		echo " created_ms, remote_user, remote_addr) VALUES ('$_job',"
		# Milliseconds of every kind for the views' UTC text.
		case $_i in
		13) _ms=999 ;;
		14) _ms=1 ;;
		*) _ms=$((_i * 137 % 1000)) ;;
		esac
		echo " '$(tid "$_i")', '$_type', $((NOW + _i * 1000 + _ms)),"
		[ "$_i" -eq 2 ] && echo " $(printf 'al\303\257ce' | lit)," ||
		    echo " NULL,"
		echo " '192.0.2.$_i');"
	done
} > "$T/rows.sql"

# The completions, each an UPDATE of status as the store makes it; a claim
# before some (no count), a restart of an expired result, a repeated
# completion (no count either).
cat > "$T/complete.sql" <<EOF
-- 1: a plain job's checkpoint, 250 ms after it was recorded.
UPDATE triggers SET status = 'COMPLETED', checkpoint_id = 1,
  checkpoint_type = 'FULL', completed_ms = $((NOW + 1250))
  WHERE trigger_id = '$(tid 1)';
-- 2: claimed, then completed with a location.
UPDATE triggers SET claimed_by = 'web1:4242', claimed_ms = $((NOW + 2100)),
  lease_ms = $((NOW + 62100)), checkpoint_id = 2, checkpoint_type = 'FULL'
  WHERE trigger_id = '$(tid 2)';
UPDATE triggers SET status = 'COMPLETED',
  location = $(printf 'file:///ckpt/\342\200\250chk-2 "x"' | lit),
  completed_ms = $((NOW + 2600)) WHERE trigger_id = '$(tid 2)';
-- 3: declined by the job's action: the nasty class and trace.
UPDATE triggers SET claimed_by = 'web1:4242', claimed_ms = $((NOW + 3100)),
  checkpoint_id = 1, checkpoint_type = 'INCREMENTAL'
  WHERE trigger_id = '$(tid 3)';
UPDATE triggers SET status = 'COMPLETED', failure_class = $CLASS,
  failure_trace = $NASTY, failure_throwable = $THROW,
  completed_ms = $((NOW + 3900)) WHERE trigger_id = '$(tid 3)';
-- 4: expired.
UPDATE triggers SET claimed_by = 'web2:7', claimed_ms = $((NOW + 4100)),
  checkpoint_id = 3, checkpoint_type = 'INCREMENTAL'
  WHERE trigger_id = '$(tid 4)';
UPDATE triggers SET status = 'COMPLETED',
  failure_class = 'org.apache.flink.runtime.checkpoint.CheckpointException',
  failure_trace = $EXPIRED, failure_throwable = $THROW,
  completed_ms = $((NOW + 34100)) WHERE trigger_id = '$(tid 4)';
-- 5, 6: their jobs not found (not RUNNING; never registered): no id.
UPDATE triggers SET status = 'COMPLETED',
  failure_class = 'java.util.concurrent.CompletionException',
  failure_trace = $NOTFOUND, failure_throwable = $THROW,
  completed_ms = $((NOW + 6500)) WHERE trigger_id IN ('$(tid 5)', '$(tid 6)');
-- 7: completed before its claim's clock (another host's): duration 0.
UPDATE triggers SET claimed_by = 'web3:1', claimed_ms = $((NOW + 9000)),
  checkpoint_id = 3, checkpoint_type = 'FULL' WHERE trigger_id = '$(tid 7)';
UPDATE triggers SET status = 'COMPLETED', completed_ms = $((NOW + 8000))
  WHERE trigger_id = '$(tid 7)';
-- 8: a failure of 64 KiB, class and trace.
UPDATE triggers SET claimed_by = 'web1:4242', claimed_ms = $((NOW + 8100)),
  checkpoint_id = 2, checkpoint_type = 'INCREMENTAL'
  WHERE trigger_id = '$(tid 8)';
UPDATE triggers SET status = 'COMPLETED', failure_class = $LONG,
  failure_trace = $LONG, failure_throwable = $THROW,
  completed_ms = $((NOW + 8200)) WHERE trigger_id = '$(tid 8)';
-- 9: an older id completing after a newer one: counted, not the latest.
UPDATE triggers SET status = 'COMPLETED', checkpoint_id = 2,
  checkpoint_type = 'FULL', completed_ms = $((NOW + 9700))
  WHERE trigger_id = '$(tid 9)';
-- 11: declined, a trace that begins almost as the expiry does (no full
-- stop): not expired.
UPDATE triggers SET claimed_by = 'web2:7', claimed_ms = $((NOW + 11100)),
  checkpoint_id = 4, checkpoint_type = 'INCREMENTAL'
  WHERE trigger_id = '$(tid 11)';
UPDATE triggers SET status = 'COMPLETED',
  failure_class = 'org.apache.flink.runtime.checkpoint.CheckpointException',
  failure_trace = 'org.apache.flink.runtime.checkpoint.CheckpointException: Checkpoint expired before completing!',
  failure_throwable = $THROW,
  completed_ms = $((NOW + 16000)) WHERE trigger_id = '$(tid 11)';
-- 1 again: its result expired, POSTed again, restarted and completed.
UPDATE triggers SET status = 'IN_PROGRESS', checkpoint_id = NULL,
  checkpoint_type = NULL, completed_ms = NULL, created_ms = $((NOW + 20000))
  WHERE trigger_id = '$(tid 1)';
UPDATE triggers SET status = 'COMPLETED', checkpoint_id = 4,
  checkpoint_type = 'FULL', location = 's3://b/chk-4',
  completed_ms = $((NOW + 20400)) WHERE trigger_id = '$(tid 1)';
-- A completed row written again: no second count.
UPDATE triggers SET status = 'COMPLETED' WHERE trigger_id = '$(tid 9)';
-- 10: claimed and running (no duration yet); 12-14 wait.
UPDATE triggers SET claimed_by = 'web1:4242', claimed_ms = $((NOW + 10100)),
  lease_ms = $((NOW + 70100)), checkpoint_id = 5, checkpoint_type = 'FULL'
  WHERE trigger_id = '$(tid 10)';
EOF

# Retention: the store's purge (STMT_PURGE) of results older than 10 s at
# NOW + 25 s.
PURGE="DELETE FROM triggers WHERE status = 'COMPLETED'
  AND 10000 > 0 AND completed_ms <= $((NOW + 25000)) - 10000;"

# compare NAME RELATION ORDER-BY: every row of RELATION, every column as
# the hex of its UTF-8 bytes (NULL as NULL), read from both and compared
# byte for byte.
compare() {
	_cols=$(sq_cols "$2")
	_sq= _pg=
	for _c in $(printf '%s' "$_cols" | tr , ' '); do
		_sq="$_sq${_sq:+ || ' ' || }CASE WHEN $_c IS NULL THEN 'NULL'
		    ELSE hex(CAST($_c AS TEXT)) END"
		_pg="$_pg${_pg:+ || ' ' || }CASE WHEN $_c IS NULL THEN 'NULL'
		    ELSE upper(encode(convert_to($_c::text, 'UTF8'), 'hex')) END"
	done
	sql "SELECT $_sq FROM $2 ORDER BY $3" > "$T/$1.sqlite"
	psql_q "SELECT $_pg FROM $2 ORDER BY $3" > "$T/$1.pg"
	[ -s "$T/$1.sqlite" ] && cmp "$T/$1.sqlite" "$T/$1.pg"
	ok $? "$1: every row and column the same bytes ($(wc -l < "$T/$1.pg") rows)"
}

sq_sql "$T/rows.sql"
ok $? "the rows load into SQLite"
pg_sql "$T/rows.sql"
ok $? "  and into PostgreSQL"
sq_sql "$T/complete.sql"
ok $? "the completions run in SQLite"
pg_sql "$T/complete.sql"
ok $? "  and in PostgreSQL"
# The same bytes stored in both: what follows compares the schemas.
compare triggers triggers "id"

# The responses themselves, readable when they differ.
sql "SELECT job_id, trigger_id, response FROM trigger_status
    ORDER BY job_id, trigger_id" > "$T/response.sqlite"
psql_q "SELECT job_id, trigger_id, response FROM trigger_status
    ORDER BY job_id, trigger_id" > "$T/response.pg"
cmp -s "$T/response.sqlite" "$T/response.pg"
ok $? "trigger_status.response: GET's answers the same bytes"
_at=$(cmp "$T/response.sqlite" "$T/response.pg" 2>&1 |
    sed -n 's/.* byte \([0-9]*\),.*/\1/p')
if [ -n "$_at" ]; then
	_from=$((_at > 60 ? _at - 60 : 1))
	diag "first difference at byte $_at:" \
	    "SQLite:     $(tail -c +"$_from" "$T/response.sqlite" | head -c 120)" \
	    "PostgreSQL: $(tail -c +"$_from" "$T/response.pg" | head -c 120)"
fi
like "$(cat "$T/response.pg")" '"class":"org.example.Weird\$\\"Class\\\\\\t\\u0001' \
    "  (a failure's class escaped as SQLite escapes it)"
like "$(cat "$T/response.pg")" '"checkpointId":4}}$' \
    "  (a restarted trigger's new id)"

compare trigger_status trigger_status "job_id, trigger_id"
compare job_overview job_overview "job_id"
compare checkpoints checkpoints "job_id, checkpoint_id, trigger_id"
compare checkpoint_stats checkpoint_stats "job_id"
compare service_metrics service_metrics "id"
compare checkpoint_counters checkpoint_counters "job_id"
is "$(psql_q "SELECT completed, failed, expired, last_completed, last_failed
    FROM checkpoint_stats ORDER BY job_id")" "0|4|1||4
5|0|0|4|" "  the counts: J2 declined three times, expired once; J1 five done"
is "$(psql_q "SELECT job_not_found FROM service_metrics")" 2 \
    "  two jobs not found"
is "$(psql_q "SELECT checkpoint_id || ':' || coalesce(duration_ms::text,
    'NULL') FROM checkpoints WHERE trigger_id = '$(tid 10)'")" "5:NULL" \
    "  a running checkpoint has no duration"

printf '%s\n' "$PURGE" > "$T/purge.sql"
sq_sql "$T/purge.sql" && pg_sql "$T/purge.sql"
ok $? "the purge runs in both"
is "$(psql_q "SELECT count(*) FROM triggers")" 7 "  7 triggers left"
compare purged-trigger_status trigger_status "job_id, trigger_id"
compare purged-checkpoints checkpoints "job_id, checkpoint_id, trigger_id"
compare purged-job_overview job_overview "job_id"
compare purged-checkpoint_stats checkpoint_stats "job_id"
cmp -s "$T/checkpoint_stats.pg" "$T/purged-checkpoint_stats.pg"
ok $? "  the counts survive the purge"
compare purged-service_metrics service_metrics "id"

# --- The checks refuse the same rows ---------------------------------------

CHECKPOINT_DB=$T/checks.db "$CTL" init > /dev/null ||
    bail "checkpointctl init $T/checks.db"
psql_q "DELETE FROM triggers" second

# refused SQL DESCRIPTION: both refuse SQL by a CHECK.
refused() {
	_sq=$(sqlite3 -batch -bail "$T/checks.db" "$1" 2>&1)
	_sq_rc=$?
	_pg=$(psql_q "$1" second 2>&1)
	_pg_rc=$?
	[ "$_sq_rc" -ne 0 ] && [ "$_pg_rc" -ne 0 ] &&
	    printf '%s' "$_sq" | grep -q 'CHECK constraint failed' &&
	    printf '%s' "$_pg" | grep -q 'violates check constraint'
	ok $? "refused by both: $2"
	[ "$_pg_rc" -eq 0 ] && diag "PostgreSQL took it"
	[ "$_sq_rc" -eq 0 ] && diag "SQLite took it"
}
TRIG="INSERT INTO triggers (job_id, trigger_id, requested_type, created_ms"

_good="$TRIG) VALUES ('$J1', '$(tid 1)', 'FULL', 1)"
sqlite3 -batch -bail "$T/checks.db" "$_good" && psql_q "$_good" second
ok $? "a good trigger row is taken by both"
refused "$TRIG) VALUES ('${J1%a}A', '$(tid 2)', 'FULL', 1)" "an uppercase job id"
refused "$TRIG) VALUES ('${J1%a}', '$(tid 2)', 'FULL', 1)" "a 31-character job id"
refused "$TRIG) VALUES ('$J1', '$(tid 2)z', 'FULL', 1)" "a 33-character trigger id"
refused "$TRIG) VALUES ('$J1', '$(tid 2)', 'SAVEPOINT', 1)" "an unknown requested type"
refused "$TRIG, status) VALUES ('$J1', '$(tid 2)', 'FULL', 1, 'DONE')" "an unknown status"
refused "$TRIG, status, checkpoint_id) VALUES ('$J1', '$(tid 2)', 'FULL', 1,
    'COMPLETED', 1)" "completed without completed_ms"
refused "$TRIG, status, completed_ms) VALUES ('$J1', '$(tid 2)', 'FULL', 1,
    'COMPLETED', 2)" "completed with neither id nor failure"
refused "$TRIG, failure_class, failure_trace, failure_throwable)
    VALUES ('$J1', '$(tid 2)', 'FULL', 1, 'c', 't', 'b')" "a failure while in progress"
refused "$TRIG, status, completed_ms, failure_class, failure_trace)
    VALUES ('$J1', '$(tid 2)', 'FULL', 1, 'COMPLETED', 2, 'c', 't')" \
    "a failure without its serialized-throwable"
refused "$TRIG, claimed_by) VALUES ('$J1', '$(tid 2)', 'FULL', 1, 'h:1')" \
    "claimed_by without claimed_ms"
refused "$TRIG, checkpoint_id) VALUES ('$J1', '$(tid 2)', 'FULL', 1, 0)" \
    "checkpoint id 0"
refused "INSERT INTO jobs (job_id, state, created_ms, updated_ms)
    VALUES ('$J1', 'GONE', 1, 1)" "a job in an unknown state"
refused "INSERT INTO jobs (job_id, command, created_ms, updated_ms)
    VALUES ('$J1', '', 1, 1)" "an empty command"
refused "INSERT INTO jobs (job_id, timeout_s, created_ms, updated_ms)
    VALUES ('$J1', 0, 1, 1)" "a timeout of 0"
refused "INSERT INTO checkpoint_counters VALUES ('$J1', 0)" "a counter at 0"
refused "INSERT INTO service_metrics (id) VALUES (2)" "a second service row"
refused "UPDATE service_metrics SET job_not_found = -1" "a negative count"
refused "INSERT INTO checkpoint_stats (job_id) VALUES ('x')" "a stats row's bad job id"

done_testing
