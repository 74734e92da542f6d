# Shared by t3750 (SQLite) and t6255 (PostgreSQL): a job's queue of waiting
# triggers is bounded by CHECKPOINT_MAX_QUEUED, through lighttpd.  A trigger
# past it is answered 202 and is recorded already failed with Flink's
# CheckpointException for a full queue; what is queued stays queued; the
# claimed trigger (the one the runner runs) does not count; another job's
# queue is its own.  Sourced by a test that sets STORE (sqlite or pg).

. "$(dirname "$0")/lib.sh"
if [ "$STORE" = pg ]; then
	. "$(dirname "$0")/pg.sh"
fi
for c in lighttpd curl sqlite3; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing"
done
unset CHECKPOINT_STORE_DURATION CHECKPOINT_MAX_BODY CHECKPOINT_CORS_ORIGIN \
    CHECKPOINT_REJECT_UNKNOWN_JOBS CHECKPOINT_BUSY_TIMEOUT CHECKPOINT_SYNC

J=0123456789abcdef0123456789abcdef
JB=fedcba9876543210fedcba9876543210
IN_PROGRESS='{"status":{"id":"IN_PROGRESS"},"operation":null}'
# A serialized-throwable with a cause: THROWABLE_HEAD up to its null
# cause (TC_NULL, "p"), where an object is instead (TC_OBJECT, "s").
THROWABLE_CAUSED=${THROWABLE_HEAD%eHBw}eHBz
FULL_TRACE='org.apache.flink.runtime.checkpoint.CheckpointException: The maximum number of queued checkpoint requests exceeded\n\tat checkpoint-api (the job has 3 triggers waiting: CHECKPOINT_MAX_QUEUED)\n'

if [ "$STORE" = pg ]; then
	pg_start
	pg_app_db queue
	sql() {
		pg_sql "$1"
	}
else
	export CHECKPOINT_DB=$DB
fi
"$CTL" --db "$CHECKPOINT_DB" init > /dev/null || bail "checkpointctl init"
[ "$STORE" = pg ] || share_dir "$T"
if [ "$STORE" != pg ] && [ "$(id -u)" -eq 0 ]; then
	chown "$RUN_USER:$RUN_GROUP" "$DB" || bail "chown $DB"
fi

# JB registered (its triggers listed); J not: the bound is the same.
"$CTL" --db "$CHECKPOINT_DB" job add "$JB" > /dev/null ||
    bail "checkpointctl job add"
export CHECKPOINT_MAX_QUEUED=3
start_server 2>>"$T/server-stderr.log"

# trig JOB N: POST a trigger with triggerId N (hex, padded), its status.
tid() {
	printf '%032x' "$1"
}
trig() {
	http POST "/jobs/$1/checkpoints" "{\"triggerId\":\"$(tid "$2")\"}"
	_post=$STATUS
	http GET "/jobs/$1/checkpoints/$(tid "$2")"
	echo "$_post $STATUS $BODY"
}
waiting() {
	sql "SELECT count(*) FROM triggers WHERE job_id = '$1'
	    AND status = 'IN_PROGRESS' AND claimed_by IS NULL"
}

for n in 1 2 3; do
	is "$(trig "$J" "$n")" "202 200 $IN_PROGRESS" "trigger $n of 3: queued"
done
out=$(trig "$J" 4)
like "$out" '^202 200 \{"status":\{"id":"COMPLETED"\},"operation":\{"failureCause":\{"class":"org\.apache\.flink\.runtime\.checkpoint\.CheckpointException","stack-trace":"' \
    "the 4th: answered 202, and its status is a failure at once"
is "$(printf '%s' "$out" | sed 's/.*"stack-trace":"\([^"]*\)".*/\1/')" \
    "$FULL_TRACE" "  Flink's exception for a full queue, with the limit"
is "$(printf '%s' "$out" |
    grep -cF "\"serialized-throwable\":\"$THROWABLE_HEAD")" 1 \
    "  with its serialized-throwable"
is "$(sql "SELECT count(*) FROM triggers WHERE job_id = '$J'
    AND checkpoint_id IS NOT NULL")" 0 "  no checkpoint id used"
is "$(waiting "$J")" 3 "the three queued are still waiting"
is "$(trig "$J" 2)" "202 200 $IN_PROGRESS" \
    "a queued triggerId posted again: still queued, not failed"
is "$(trig "$J" 4)" "$out" "the failed one posted again: the same failure"
is "$(trig "$JB" 1)" "202 200 $IN_PROGRESS" "another job's queue is its own"
http GET "/jobs/$JB/triggers"
like "$BODY" "\"trigger_id\":\"$(tid 1)\",[^}]*\"remote_user\":null,\"remote_addr\":\"127\.0\.0\.1\"\}" \
    "GET /jobs/:jobid/triggers names who posted it: no user, the address"

# Who posted a trigger is never changed afterwards (0010, pg 0007).
caller() {
	sql "SELECT coalesce(remote_user, '-') || ' ' || remote_addr
	    FROM triggers WHERE job_id = '$1' AND trigger_id = '$(tid "$2")'"
}
for col in remote_user remote_addr; do
	sql "UPDATE triggers SET $col = 'mallory' WHERE job_id = '$JB'
	    AND trigger_id = '$(tid 1)'" > "$T/update.out" 2>&1
	rc=$?
	like "$rc $(cat "$T/update.out")" \
	    '^[1-9].*the caller recorded with a trigger is never changed' \
	    "an UPDATE of $col is refused, with why"
done
is "$(caller "$JB" 1)" "- 127.0.0.1" "  the caller is as recorded"
# An expired trigger posted again is a new trigger, with its own caller.
sql "INSERT INTO triggers (job_id, trigger_id, requested_type, status,
    checkpoint_id, checkpoint_type, created_ms, completed_ms, remote_user,
    remote_addr) VALUES ('$JB', '$(tid 7)', 'FULL', 'COMPLETED', 1, 'FULL',
    1000, 1000, 'bob', '192.0.2.9')" > /dev/null
is "$(trig "$JB" 7)" "202 200 $IN_PROGRESS" \
    "an expired trigger posted again starts afresh"
is "$(caller "$JB" 7)" "- 127.0.0.1" "  recorded with its new caller"

# The runner's claimed trigger is not waiting: room for one more.
sql "UPDATE triggers SET claimed_by = 'test:1:1', claimed_ms = 1,
    lease_ms = 9999999999999, checkpoint_id = 1, checkpoint_type = 'FULL'
    WHERE job_id = '$J' AND trigger_id = '$(tid 1)'" > /dev/null
is "$(trig "$J" 5)" "202 200 $IN_PROGRESS" "a claimed trigger does not count"
like "$(trig "$J" 6)" '^202 200 \{"status":\{"id":"COMPLETED"\}' \
    "  and the queue is full again at 3 waiting"
is "$(waiting "$J")" 3 "  3 waiting"

# flood PATH FROM TO: POSTs triggerIds FROM to TO-1 to PATH, 8 at once.
flood() {
	i=$2
	pids=
	while [ "$i" -lt "$3" ]; do
		curl -s -o /dev/null -X POST \
		    -d "{\"triggerId\":\"$(tid "$i")\"}" "$BASE$1" &
		pids="$pids $!"
		if [ $((i % 8)) -eq 7 ]; then
			wait $pids
			pids=
		fi
		i=$((i + 1))
	done
	# Never a bare wait: it would wait for the web server too.
	[ -z "$pids" ] || wait $pids
}

# Many at once, by 8 clients: never more than the limit waiting.
flood "/jobs/$JB/checkpoints" 100 160
is "$(waiting "$JB")" 3 "60 POSTs from 8 clients at once: 3 waiting"
is "$(sql "SELECT count(*) FROM triggers WHERE job_id = '$JB'")" 62 \
    "  every one recorded"

# GET /metrics counts the refused, also once their results are purged.
refused_metric() {
	http GET /metrics
	printf '%s\n' "$BODY" |
	    sed -n 's/^checkpoint_api_triggers_refused_total //p'
}
refused_rows() {
	sql "SELECT count(*) FROM triggers
	    WHERE failure_trace LIKE '%: CHECKPOINT_MAX_QUEUED)%'"
}
n=$(refused_rows)
is "$(refused_metric)" "$n" \
    "checkpoint_api_triggers_refused_total: the $n refused"
[ "$n" -gt 50 ] || bail "only $n refused"
# One whose result expired, posted again: a new trigger, refused again.
sql "UPDATE triggers SET created_ms = 1000, completed_ms = 1000
    WHERE job_id = '$J' AND trigger_id = '$(tid 4)'" > /dev/null
like "$(trig "$J" 4)" '^202 200 \{"status":\{"id":"COMPLETED"\}' \
    "an expired refused trigger posted again is refused again"
is "$(refused_metric)" "$((n + 1))" "  and counted again: $((n + 1))"
is "$(refused_rows)" "$n" "  its row is the new refusal"
# The runner's purge (results of a second) takes every refused row.
sleep 1.1
CHECKPOINT_STORE_DURATION=1 "$RUNNER" --db "$CHECKPOINT_DB" \
    > "$T/runner.out" 2>&1 || bail "checkpoint-runner: $(cat "$T/runner.out")"
is "$(refused_rows)" 0 "the runner's purge took the refused rows"
is "$(refused_metric)" "$((n + 1))" "  and the count stays: $((n + 1))"
is "$(sql "SELECT queue_refused FROM service_metrics")" "$((n + 1))" \
    "  kept in service_metrics as they left"

# Savepoints and stops: the same bound, on the job's savepoints and stops
# waiting (checkpoint-api(7), "POST /jobs/:jobid/savepoints"); the job's
# own directory, so that no request names one.
"$CTL" --db "$CHECKPOINT_DB" job set "$JB" --savepoint-dir file:/tmp/sp \
    > /dev/null || bail "checkpointctl job set --savepoint-dir"
sp() {	# sp JOB N [stop]: POST a savepoint (a stop), then its status
	http POST "/jobs/$1/${3:-savepoints}" \
	    "{\"triggerId\":\"$(tid "$2")\"}"
	_post=$STATUS
	http GET "/jobs/$1/savepoints/$(tid "$2")"
	echo "$_post $STATUS $BODY"
}
sp_waiting() {
	sql "SELECT count(*) FROM savepoints WHERE job_id = '$1'
	    AND status = 'IN_PROGRESS' AND claimed_by IS NULL"
}
for n in 1 2 3; do
	is "$(sp "$JB" "$n")" "202 200 $IN_PROGRESS" "savepoint $n of 3: queued"
done
out=$(sp "$JB" 4)
like "$out" '^202 200 \{"status":\{"id":"COMPLETED"\},"operation":\{"failure-cause":\{"class":"java\.util\.concurrent\.CompletionException","stack-trace":"' \
    "the 4th savepoint: answered 202, and its status is a failure at once"
is "$(printf '%s' "$out" | sed 's/.*"stack-trace":"\([^"]*\)".*/\1/')" \
    "java.util.concurrent.CompletionException: org.apache.flink.runtime.checkpoint.CheckpointException: The maximum number of queued checkpoint requests exceeded\nCaused by: $FULL_TRACE" \
    "  Flink's exception for a full queue, with the limit, inside the CompletionException of SchedulerBase.triggerSavepoint"
is "$(printf '%s' "$out" |
    grep -cF "\"serialized-throwable\":\"$THROWABLE_CAUSED")" 1 \
    "  with its serialized-throwable, a cause inside"
like "$(sp "$JB" 5 stop)" '^202 200 \{"status":\{"id":"COMPLETED"\},"operation":\{"failure-cause":\{"class":"java\.util\.concurrent\.CompletionException","stack-trace":"java\.util\.concurrent\.CompletionException: org\.apache\.flink\.runtime\.checkpoint\.CheckpointException: The maximum' \
    "a stop past the bound: the same failure"
is "$(sp "$JB" 2)" "202 200 $IN_PROGRESS" \
    "a queued savepoint's triggerId posted again: still queued"
flood "/jobs/$JB/savepoints" 200 240
# On PostgreSQL each process records beside the others', and each may
# add one past the bound (checkpoint-api.fcgi(8)).
n=$(sp_waiting "$JB")
most=3
[ "$STORE" = pg ] && most=$((3 + ${CHECKPOINT_PROCS:-2} - 1))
ok "$([ "$n" -ge 3 ] && [ "$n" -le "$most" ] && echo 0 || echo 1)" \
    "40 savepoints from 8 clients at once: $n waiting, 3 to $most"
is "$(sql "SELECT count(*) FROM savepoints WHERE job_id = '$JB'
    AND checkpoint_id IS NOT NULL")" 0 "  no checkpoint id used"

# Expiry: a savepoint that failed without an id, and a disposal's result,
# leave with the store duration as a trigger's result does; one that
# took an id stays with the statistics' history.
sql "INSERT INTO savepoints (job_id, trigger_id, kind, target_directory,
    format_type, status, checkpoint_id, failure_class, failure_trace,
    failure_throwable, created_ms, completed_ms) VALUES ('$JB', '$(tid 300)',
    'SAVEPOINT', 'file:/tmp/sp', 'CANONICAL', 'COMPLETED', 7, 'x', 'x', 'x',
    1000, 1000)" > /dev/null || bail "a failed savepoint with an id"
http POST /savepoint-disposal '{"savepoint-path":"file:/nowhere/sp-1"}'
sql "UPDATE savepoint_disposals SET status = 'COMPLETED', completed_ms = 1000,
    failure_class = 'x', failure_trace = 'x', failure_throwable = 'x'" \
    > /dev/null || bail "completing the disposal"
refused_sp=$(sql "SELECT count(*) FROM savepoints WHERE failure_trace
    LIKE '%: CHECKPOINT_MAX_QUEUED)%'")
[ "$refused_sp" -gt 30 ] || bail "only $refused_sp savepoints refused"
sleep 1.1
CHECKPOINT_STORE_DURATION=1 "$RUNNER" --db "$CHECKPOINT_DB" \
    > "$T/runner.out" 2>&1 || bail "checkpoint-runner: $(cat "$T/runner.out")"
is "$(sql "SELECT count(*) FROM savepoints WHERE failure_trace
    LIKE '%: CHECKPOINT_MAX_QUEUED)%'")" 0 \
    "the purge took the $refused_sp refused savepoints"
is "$(sql "SELECT count(*) FROM savepoints WHERE checkpoint_id = 7")" 1 \
    "  not the failed one with an id"
is "$(sql "SELECT count(*) FROM savepoint_disposals")" 0 \
    "  and the disposal's expired result"

stop_server

# PostgreSQL: a POST's count of its job's queue goes by index whatever the
# statistics say of the jobs, here that one job holds nearly every one of
# 20,000 rows (a backlog).  Counted by the server's own statistics of the
# table: no sequential scan of triggers while 20 POSTs are recorded.  A
# server's statistics reach pg_stat_user_tables when a session ends, or
# within seconds of its going idle: each count waits until they rest.
if [ "$STORE" = pg ]; then
	tabstat() {
		sql "SELECT seq_scan || ' ' || n_tup_ins FROM pg_stat_user_tables
		    WHERE relname = 'triggers'"
	}
	settled() {	# the statistics, once unchanged for a second
		_prev= _now=$(tabstat) _i=0
		while [ "$_now" != "$_prev" ] && [ $_i -lt 30 ]; do
			sleep 1
			_prev=$_now _now=$(tabstat) _i=$((_i + 1))
		done
		echo "$_now"
	}
	JF=f100d000000000000000000000000000
	sql "INSERT INTO triggers (job_id, trigger_id, requested_type,
	    created_ms) SELECT '$JF', lpad(to_hex(i), 32, '0'), 'CONFIGURED', 0
	    FROM generate_series(1, 20000) AS i" > /dev/null ||
	    bail "seeding a backlog"
	sql "ANALYZE triggers" > /dev/null || bail "ANALYZE"
	before=$(settled)
	start_server 2>>"$T/server-stderr.log"
	i=1
	while [ $i -le 20 ]; do
		curl -s -o /dev/null -X POST -d "{\"triggerId\":\"$(tid $i)\"}" \
		    "$BASE/jobs/$(printf 'f2%030x' $i)/checkpoints"
		i=$((i + 1))
	done
	stop_server
	after=$(settled)
	is "${after#* }" "$((${before#* } + 20))" \
	    "a backlog of 20,000 of one job: 20 POSTs of other jobs recorded"
	is "${after% *}" "${before% *}" \
	    "  and no sequential scan of triggers for them (0011: a job holds few rows)"
fi
CHECKPOINT_MAX_QUEUED=0 "$API" < /dev/null > "$T/check.out" 2>&1
rc=$?
like "$rc $(cat "$T/check.out")" '^[1-9].*CHECKPOINT_MAX_QUEUED' \
    "CHECKPOINT_MAX_QUEUED=0 is refused: no unbounded queue"
done_testing
