#!/bin/sh
# Checkpoint statistics made by the real runner
# (checkpoint-api(7), "GET /jobs/:jobid/checkpoints"): triggers POSTed through lighttpd, the job's
# action run by checkpoint-runner to completion, to a failure, and held
# running; then GET /jobs/:jobid/checkpoints and .../details/:id compared
# byte for byte with what the triggers table says: counts, the duration
# summary with Flink's LEGACY quantiles, latest, the history newest first.
# A job with none shows Flink's "no data" (NaN strings); a failure before
# any id (the job not RUNNING: job not found) is in no count and never in
# the history;
# the history survives the purge of the results, and counts and the latest
# checkpoints survive the history's own retention.
# shellcheck disable=SC2016

. "$(dirname "$0")/lib.sh"

for c in lighttpd sqlite3 curl; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing"
done
unset CHECKPOINT_STORE_DURATION CHECKPOINT_MAX_BODY CHECKPOINT_CORS_ORIGIN \
    CHECKPOINT_REJECT_UNKNOWN_JOBS CHECKPOINT_BUSY_TIMEOUT CHECKPOINT_SYNC \
    CHECKPOINT_HISTORY
export CHECKPOINT_STORE_DURATION=0 # purged only when this test says so

JA=a1b2c3d4e5f60718293a4b5c6d7e8f90
RLOG=$T/runner.log

runner() {
	"$RUNNER" 2>>"$RLOG"
}
post() {
	http POST /jobs/$JA/checkpoints '{}'
	[ "$STATUS" = 202 ] || diag "POST: $STATUS $BODY"
}
dbq() {
	sql "$@"
}

# entry ID: the checkpoint as Flink's CheckpointStatistics, from its row.
entry() {
	dbq "SELECT checkpoint_id, CASE WHEN status = 'IN_PROGRESS' THEN 'R'
	    WHEN failure_class IS NULL THEN 'C' ELSE 'F' END,
	    coalesce(claimed_ms, created_ms), coalesce(completed_ms, 0),
	    coalesce(location, '<checkpoint-not-externally-addressable>')
	    FROM triggers WHERE job_id = '$JA' AND checkpoint_id = $1" |
	awk -F'|' -v msg="${2:-}" '{
		mid = "\"checkpointed_size\":0,\"state_size\":0,\"end_to_end_duration\":"
		tail = ",\"alignment_buffered\":0,\"processed_data\":0,\"persisted_data\":0,\"num_subtasks\":0,\"num_acknowledged_subtasks\":0,\"checkpoint_type\":\"CHECKPOINT\",\"tasks\":{}"
		cls = $2 == "C" ? "completed" : $2 == "F" ? "failed" : "in_progress"
		st = $2 == "C" ? "COMPLETED" : $2 == "F" ? "FAILED" : "IN_PROGRESS"
		ack = $2 == "C" ? $4 : -1
		d = $2 == "R" ? -1 : ($4 - $3 < 0 ? 0 : $4 - $3)
		printf "{\"className\":\"%s\",\"id\":%s,\"status\":\"%s\",\"is_savepoint\":false,\"savepointFormat\":null,\"trigger_timestamp\":%s,\"latest_ack_timestamp\":%s,%s%s%s", cls, $1, st, $3, ack, mid, d, tail
		if ($2 == "C")
			printf ",\"external_path\":\"%s\",\"discarded\":false", $5
		if ($2 == "F")
			printf ",\"failure_timestamp\":%s,\"failure_message\":\"%s\"", $4, msg
		printf "}"
	}'
}

# The completed checkpoints' durations, ascending.
durations() {
	dbq "SELECT max(0, completed_ms - coalesce(claimed_ms, created_ms))
	    FROM triggers WHERE job_id = '$JA' AND status = 'COMPLETED'
	    AND failure_class IS NULL AND checkpoint_id IS NOT NULL ORDER BY 1"
}

ZERO='{"min":0,"max":0,"avg":0,"p50":0.0,"p90":0.0,"p95":0.0,"p99":0.0,"p999":0.0}'
NAN='{"min":0,"max":0,"avg":0,"p50":"NaN","p90":"NaN","p95":"NaN","p99":"NaN","p999":"NaN"}'

# stats TOTAL RUNNING COMPLETED FAILED E2E LATEST-C LATEST-F HISTORY
stats() {
	printf '{"counts":{"restored":0,"total":%s,"in_progress":%s,"completed":%s,"failed":%s},"summary":{"checkpointed_size":%s,"state_size":%s,"end_to_end_duration":%s,"alignment_buffered":%s,"processed_data":%s,"persisted_data":%s},"latest":{"completed":%s,"savepoint":null,"failed":%s,"restored":null},"history":[%s]}' \
	    "$1" "$2" "$3" "$4" "$ZERO" "$ZERO" "$5" "$ZERO" "$ZERO" "$ZERO" "$6" "$7" "$8"
}

share_dir "$T"
start_server 2>>"$T/server.log"
"$CTL" init >/dev/null 2>&1 || bail "checkpointctl init"
"$CTL" job add $JA --name orders --timeout 5 \
    --command 'echo "file:/ckpt/$CHECKPOINT_JOB_ID/chk-$CHECKPOINT_ID"' \
    >/dev/null || bail "checkpointctl job add"

# --- a job with no checkpoint: Flink's "no data" ----------------------------
http GET /jobs/$JA/checkpoints
is "$STATUS $BODY" "200 $(printf '{"counts":{"restored":0,"total":0,"in_progress":0,"completed":0,"failed":0},"summary":{"checkpointed_size":%s,"state_size":%s,"end_to_end_duration":%s,"alignment_buffered":%s,"processed_data":%s,"persisted_data":%s},"latest":{"completed":null,"savepoint":null,"failed":null,"restored":null},"history":[]}' "$NAN" "$NAN" "$NAN" "$ZERO" "$NAN" "$NAN")" \
    "no checkpoint yet: zeros, NaN quantiles (alignment 0.0), nulls, []"
http GET /jobs/$JA/checkpoints/config
like "$STATUS $BODY" '^200 \{"mode":"exactly_once","interval":9223372036854775807,"timeout":5000,"min_pause":0,"max_concurrent":1,' \
    "config: the job's timeout of 5 s, no periodic interval"

# --- two completed, one failed ---------------------------------------------
post
runner
post
runner
"$CTL" job set $JA --command 'echo "disk full" >&2; exit 1' >/dev/null
post
runner
set -- $(durations)
is "$#" 2 "two completed checkpoints"
E2E=$(printf '{"min":%s,"max":%s,"avg":%s,"p50":%s,"p90":%s.0,"p95":%s.0,"p99":%s.0,"p999":%s.0}' \
    "$1" "$2" $((($1 + $2) / 2)) \
    "$(awk -v a="$1" -v b="$2" 'BEGIN { x = a + 0.5 * (b - a); printf (x == int(x) ? "%d.0" : "%s"), x }')" \
    "$2" "$2" "$2" "$2")
F3=$(entry 3 "Checkpoint was declined. disk full")
http GET /jobs/$JA/checkpoints
is "$STATUS $BODY" "200 $(stats 3 0 2 1 "$E2E" "$(entry 2)" "$F3" "$F3,$(entry 2),$(entry 1)")" \
    "after 2 completed and 1 failed: counts, summary, latest, history"
like "$BODY" '"external_path":"file:/ckpt/'$JA'/chk-2"' \
    "the location the action printed is the external path"
http GET /jobs/$JA/checkpoints/details/3
is "$STATUS $BODY" "200 $F3" "details of the failed checkpoint: failure_message"
http GET /jobs/$JA/checkpoints/details/1
is "$STATUS $BODY" "200 $(entry 1)" "details of the first checkpoint"

# --- one held running --------------------------------------------------------
"$CTL" job set $JA --command "touch '$T/started'; while [ ! -e '$T/go' ]; do sleep 0.05; done" \
    >/dev/null
post
"$RUNNER" 2>>"$RLOG" &
RPID=$!
PIDS="$PIDS $RPID"
wait_until 200 '[ -e "$T/started" ]' || bail "the action did not start"
R4=$(entry 4)
like "$R4" '"className":"in_progress","id":4,' "the claimed trigger is checkpoint 4, running"
http GET /jobs/$JA/checkpoints
is "$STATUS $BODY" "200 $(stats 4 1 2 1 "$E2E" "$(entry 2)" "$F3" "$R4,$F3,$(entry 2),$(entry 1)")" \
    "while one runs: in_progress 1, history[0] in_progress, -1 for ack and duration"
http GET /jobs/$JA/checkpoints/details/4
is "$STATUS $BODY" "200 $R4" "details of the running checkpoint"
touch "$T/go"
stop_pid "$RPID" CONT # no signal that stops it: waits for its end
http GET /jobs/$JA/checkpoints/details/4
is "$STATUS $BODY" "200 $(entry 4)" "once done: completed"
like "$BODY" '"external_path":"<checkpoint-not-externally-addressable>"' \
    "an action that printed nothing: Flink's sentinel path"

# --- a failure before any id: job not found, in no count of the job's -------
# (Flink's dispatcher refuses it before the job's checkpoint coordinator,
# the one source of its statistics, sees it.)
"$CTL" job set $JA --state SUSPENDED >/dev/null
post
runner
http GET /jobs/$JA/checkpoints
like "$BODY" '^\{"counts":\{"restored":0,"total":4,"in_progress":0,"completed":3,"failed":1\},' \
    "a trigger failed before any id: in neither failed nor total"
like "$BODY" '"history":\[\{"className":"completed","id":4,' \
    "a trigger failed before any id: not in the history"
http GET /jobs
is "$STATUS $BODY" "200 {\"jobs\":[{\"id\":\"$JA\",\"status\":\"SUSPENDED\"}]}" \
    "GET /jobs: the job's state"
http GET /jobs/overview
like "$BODY" '"end-time":-1,"duration":[0-9]+,"state":"SUSPENDED",' \
    "GET /jobs/overview: SUSPENDED has no end time (not globally terminal)"

# --- retention's purge: the results go, the history stays -----------------
sleep 0.01
E4=$(entry 4)
E2=$(entry 2)
http GET /jobs/$JA/checkpoints
KEPT=$BODY
COUNTS=$(printf '%s' "$BODY" | sed 's/"summary".*//')
CHECKPOINT_STORE_DURATION=1ms "$CTL" purge >/dev/null 2>&1
is "$(dbq "SELECT count(*) FROM triggers WHERE job_id = '$JA'")" 0 \
    "results purged: no trigger left"
http GET /jobs/$JA/checkpoints
is "$STATUS $BODY" "200 $KEPT" \
    "results purged: the statistics, history and quantiles included, unchanged"
http GET /jobs/$JA/checkpoints/details/2
is "$STATUS $BODY" "200 $E2" "results purged: details of an older one still answer"

# --- the history's own retention: counts and latest stay, the rows go -----
sleep 0.01
CHECKPOINT_STORE_DURATION=1ms CHECKPOINT_HISTORY_AGE=1ms "$CTL" purge \
    >/dev/null 2>&1
is "$(dbq "SELECT count(*) FROM checkpoint_history WHERE job_id = '$JA'")" 0 \
    "purged: no checkpoint left in the history"
http GET /jobs/$JA/checkpoints
is "$(printf '%s' "$BODY" | sed 's/"summary".*//')" "$COUNTS" "purged: counts unchanged"
like "$BODY" '"end_to_end_duration":\{"min":[0-9]+,"max":[0-9]+,"avg":[0-9]+,"p50":"NaN",' \
    "purged: min/max/avg kept, quantiles of no stored checkpoint NaN"
is "$(printf '%s' "$BODY" | sed 's/.*"latest"://')" \
    "{\"completed\":$E4,\"savepoint\":null,\"failed\":$F3,\"restored\":null},\"history\":[]}" \
    "purged: latest completed and failed kept whole (as Flink keeps them), history empty"
http GET /jobs/$JA/checkpoints/details/4
is "$STATUS $BODY" "200 $E4" "purged: details of the latest completed still answer"
http GET /jobs/$JA/checkpoints/details/3
is "$STATUS $BODY" "200 $F3" "purged: details of the latest failed still answer"
http GET /jobs/$JA/checkpoints/details/2
is "$STATUS $BODY" '404 {"errors":["Could not find checkpointing statistics for checkpoint 2."]}' \
    "purged: details of an older one: 404"
done_testing
