# Shared by tests/t4520 (SQLite) and t6245 (PostgreSQL, STORE=pg: a
# throwaway cluster, tests/pg.sh), which say what it proves: a job's
# finished checkpoints outlive the expiry of their trigger records, read
# the same before and after it everywhere they are shown, and go only by
# the history's own retention, by count and by age.
# shellcheck disable=SC2016

. "$(dirname "$0")/lib.sh"
STORE=${STORE:-sqlite}
NEED=sqlite3
if [ "$STORE" = pg ]; then
	. "$(dirname "$0")/pg.sh"
	NEED=psql
	pg_start
	pg_app_db kept
	sql() {
		pg_sql "$1"
	}
fi

for c in lighttpd $NEED curl; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing"
done
unset CHECKPOINT_MAX_BODY CHECKPOINT_CORS_ORIGIN \
    CHECKPOINT_REJECT_UNKNOWN_JOBS CHECKPOINT_BUSY_TIMEOUT CHECKPOINT_SYNC \
    CHECKPOINT_METRICS CHECKPOINT_METRICS_FILTER CHECKPOINT_HISTORY \
    CHECKPOINT_HISTORY_KEEP CHECKPOINT_HISTORY_AGE
# Results expire after 4 s, for the service, the runner and checkpointctl;
# until the test lets them, the runner purges nothing (runner below).
export CHECKPOINT_STORE_DURATION=4s

JA=a9100000000000000000000000000001

post() {
	http POST "/jobs/$1/checkpoints" '{}'
	[ "$STATUS" = 202 ] || diag "POST /jobs/$1/checkpoints: $STATUS $BODY"
	LAST_TRIGGER=$(printf '%s' "$BODY" | sed -n 's/.*"request-id":"\([0-9a-f]*\)".*/\1/p')
}
runner() {
	CHECKPOINT_STORE_DURATION=0 "$RUNNER" 2>> "$T/runner.log"
}

# views FILE: everything that shows the job's checkpoints, into FILE: the
# statistics (10 entries of history: Flink's default), each checkpoint's
# details, the triggers GET /jobs/:jobid/triggers lists (the runner's last
# pass left out: it moves with every pass), the job's gauges of GET
# /metrics, and checkpointctl's listing.
views() {
	{
		http GET "/jobs/$JA/checkpoints"
		echo "statistics: $STATUS $BODY"
		for _id in 1 2 3 4 5 6; do
			http GET "/jobs/$JA/checkpoints/details/$_id"
			echo "details $_id: $STATUS $BODY"
		done
		http GET "/jobs/$JA/triggers"
		echo "triggers: $STATUS $(printf '%s' "$BODY" | sed 's/.*"triggers"://')"
		http GET "/metrics?per-job=1"
		grep "^flink_jobmanager_job_.*job_id=\"$JA\"" "$T/resp-body"
		"$CTL" triggers --job $JA
	} > "$1" 2>&1
}

share_dir "$T"
start_server 2>> "$T/server.log"
"$CTL" init > /dev/null 2>&1 || bail "checkpointctl init"
"$CTL" job add $JA --name kept \
    --command 'echo "file:/ckpt/$CHECKPOINT_ID"' > /dev/null ||
    bail "checkpointctl job add"

# Three completed, two failed (one with a trace of two lines), one more
# completed: ids 1 to 6.
for _n in 1 2 3; do
	post $JA
	runner
done
"$CTL" job set $JA --command 'echo no space left >&2; exit 3' > /dev/null
post $JA
runner
"$CTL" job set $JA --command 'printf "disk\nfull\n" >&2; exit 4' > /dev/null
post $JA
runner
"$CTL" job set $JA --command 'echo "file:/ckpt/$CHECKPOINT_ID"' > /dev/null
post $JA
runner
http GET "/jobs/$JA/checkpoints/$LAST_TRIGGER"
like "$STATUS $BODY" '^200 \{"status":\{"id":"COMPLETED"\},"operation":\{"checkpointId":6\}\}$' \
    "the last trigger's result answers"
is "$(sql "SELECT count(*) FROM triggers WHERE job_id = '$JA'
    AND status = 'COMPLETED'")" 6 "six results stored"
is "$(sql "SELECT checkpoint_id || ':' || status FROM checkpoint_history
    WHERE job_id = '$JA' ORDER BY checkpoint_id" | paste -sd ' ')" \
    "1:COMPLETED 2:COMPLETED 3:COMPLETED 4:FAILED 5:FAILED 6:COMPLETED" \
    "the history holds the six, as they finished"
is "$(sql "SELECT count(*) FROM checkpoint_history h JOIN triggers t
    ON t.job_id = h.job_id AND t.checkpoint_id = h.checkpoint_id
    WHERE h.failure_throwable IS NOT DISTINCT FROM t.failure_throwable
    AND h.remote_addr IS NOT DISTINCT FROM t.remote_addr
    AND h.claimed_ms = t.claimed_ms AND h.completed_ms = t.completed_ms")" 6 \
    "  each with its trigger's times, throwable and client"
views "$T/before"
like "$(sed -n 's/^statistics: //p' "$T/before")" \
    '"history":\[\{"className":"completed","id":6,.*"id":5,.*"id":4,.*"id":3,.*"id":2,.*"id":1,' \
    "before: the statistics' history has all six, newest first"
like "$(sed -n 's/^triggers: //p' "$T/before")" 'disk\\nfull' \
    "before: /triggers shows the failure's trace"

# The results expire; a runner's pass purges them.
sleep 4.2
"$RUNNER" 2>> "$T/runner.log"
is "$(sql "SELECT count(*) FROM triggers WHERE job_id = '$JA'")" 0 \
    "after the store duration: the runner purged every result"
http GET "/jobs/$JA/checkpoints/$LAST_TRIGGER"
is "$STATUS" 404 "  the last trigger's result has expired, as Flink's does"
views "$T/after"
if cmp -s "$T/before" "$T/after"; then
	ok 0 "after the purge: statistics, details, /triggers, metrics and checkpointctl answer byte for byte as before"
else
	ok 1 "after the purge: statistics, details, /triggers, metrics and checkpointctl answer byte for byte as before"
	diff "$T/before" "$T/after" | sed 's/^/# /'
fi

# checkpointctl migrate carries the history: the copy lists the same.
"$CTL" migrate --from "$CHECKPOINT_DB" --to "$T/copy.db" > /dev/null 2>&1
is "$("$CTL" --db "$T/copy.db" triggers --job $JA)" \
    "$("$CTL" triggers --job $JA)" \
    "migrate: the copy lists the purged checkpoints the same"
is "$(sqlite3 "$T/copy.db" "SELECT count(*) FROM checkpoint_history")" 6 \
    "migrate: the copy holds the history's six"

# The history's own retention: by count (the newest 4 ids), then by age.
CHECKPOINT_HISTORY_KEEP=4 runner
is "$(sql "SELECT checkpoint_id FROM checkpoint_history
    WHERE job_id = '$JA' ORDER BY checkpoint_id" | paste -sd ' ')" "3 4 5 6" \
    "CHECKPOINT_HISTORY_KEEP=4: the runner keeps the newest four"
http GET "/jobs/$JA/checkpoints/details/2"
is "$STATUS $BODY" \
    '404 {"errors":["Could not find checkpointing statistics for checkpoint 2."]}' \
    "  details of a pruned one: 404"
http GET "/jobs/$JA/checkpoints/details/3"
is "$STATUS $(printf '%s' "$BODY" | sed 's/.*"id":\([0-9]*\),.*/\1/')" "200 3" \
    "  details of a kept one still answer"
sleep 0.01
CHECKPOINT_HISTORY_AGE=1ms "$CTL" purge > "$T/purge.out" 2>&1
is "$(cat "$T/purge.out")" "purged 0
pruned 4 from the checkpoint history" \
    "CHECKPOINT_HISTORY_AGE=1ms: checkpointctl purge prunes the rest"
http GET "/jobs/$JA/checkpoints"
like "$BODY" '"counts":\{"restored":0,"total":6,"in_progress":0,"completed":4,"failed":2\},' \
    "  the counts stay"
like "$BODY" '"latest":\{"completed":\{"className":"completed","id":6,.*"history":\[\]\}$' \
    "  the latest stays, the history is empty"

# A database of the schema before the history, with a finished checkpoint
# and a running one in its triggers: migrated in place, the finished one
# is copied into the history, the running one stays a trigger.
JO=a9100000000000000000000000000002
OLD_ROWS="INSERT INTO jobs (job_id, created_ms, updated_ms)
    VALUES ('$JO', 0, 0);
INSERT INTO triggers (id, job_id, trigger_id, requested_type, status,
    checkpoint_id, checkpoint_type, location, created_ms, completed_ms,
    remote_addr)
    VALUES (5, '$JO', '$JO', 'FULL', 'COMPLETED', 3, 'FULL', 'file:/c/3',
    1000, 2000, '192.0.2.1');
INSERT INTO triggers (id, job_id, trigger_id, requested_type,
    checkpoint_id, created_ms, claimed_by, claimed_ms)
    VALUES (6, '$JO', '${JA%?}3', 'FULL', 4, 3000, 'r', 3000);"
if [ "$STORE" = pg ]; then
	psql_q "CREATE DATABASE old" postgres || bail "CREATE DATABASE old"
	for _m in 0001-initial 0002-claimed-unique; do
		"$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 --single-transaction \
		    -d "$(pg_uri old)" -f "$top_srcdir/schema/pg/$_m.sql" \
		    > /dev/null 2>&1 || bail "schema/pg/$_m.sql"
	done
	psql_q "$OLD_ROWS" old > /dev/null || bail "the old rows"
	OLD_DB="$(pg_uri old)?passfile=$T/app-pgpass"
	old_sql() {
		psql_q "$1" old
	}
else
	OLD_DB=$T/old.db
	{
		# Version 1: the migrations after it run in the program (0003
		# needs its SQL function).
		cat "$top_srcdir/schema/0001-initial.sql"
		echo "PRAGMA application_id = 1667985524;"
		echo "PRAGMA user_version = 1;"
		echo "$OLD_ROWS"
	} | sqlite3 "$OLD_DB" 2> "$T/old.err"
	[ -s "$T/old.err" ] && bail "the old database: $(cat "$T/old.err")"
	old_sql() {
		sqlite3 "$OLD_DB" "$1"
	}
fi
"$CTL" --db "$OLD_DB" init > /dev/null 2>&1
ok $? "a database of the schema before the history: migrated"
is "$(old_sql "SELECT job_id, checkpoint_id, kind, status, trigger_row,
    trigger_id, checkpoint_type, location, created_ms, completed_ms,
    remote_addr FROM checkpoint_history")" \
    "$JO|3|CHECKPOINT|COMPLETED|5|$JO|FULL|file:/c/3|1000|2000|192.0.2.1" \
    "  its finished checkpoint is in the history, the running one is not"
is "$(old_sql "SELECT checkpoint_id || ':' || status FROM checkpoints
    WHERE job_id = '$JO' ORDER BY checkpoint_id")" "3:COMPLETED
4:IN_PROGRESS" "  the statistics' view reads both"
done_testing
