# Shared by tests/t4510 (SQLite) and t6240 (PostgreSQL, STORE=pg: a
# throwaway cluster, tests/pg.sh), which say what it proves: the
# statistics and the metrics agree at each step of a mixed sequence run by
# the real runner, and each figure is the one the sequence must give.
# shellcheck disable=SC2016

. "$(dirname "$0")/lib.sh"
STORE=${STORE:-sqlite}
NEED=sqlite3
if [ "$STORE" = pg ]; then
	. "$(dirname "$0")/pg.sh"
	NEED=psql
	pg_start
	pg_app_db agree
	sql() {
		pg_sql "$1"
	}
fi

for c in lighttpd $NEED curl; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing"
done
unset CHECKPOINT_STORE_DURATION CHECKPOINT_MAX_BODY CHECKPOINT_CORS_ORIGIN \
    CHECKPOINT_REJECT_UNKNOWN_JOBS CHECKPOINT_BUSY_TIMEOUT CHECKPOINT_SYNC \
    CHECKPOINT_METRICS CHECKPOINT_METRICS_FILTER CHECKPOINT_HISTORY
export CHECKPOINT_STORE_DURATION=0 # purged only when this test says so

JA=a9000000000000000000000000000001 # its action changes along the way
JB=a9000000000000000000000000000002 # no command: completes at once
JU=a90000000000000000000000000000ff # never registered

post() {
	http POST "/jobs/$1/checkpoints" '{}'
	[ "$STATUS" = 202 ] || diag "POST /jobs/$1/checkpoints: $STATUS $BODY"
}
runner() {
	"$RUNNER" 2>> "$T/runner.log"
}

# stats_view JOB: "completed failed in_progress total last_id duration"
# as GET /jobs/:jobid/checkpoints says (-1 -1 for no latest.completed).
stats_view() {
	http GET "/jobs/$1/checkpoints"
	[ "$STATUS" = 200 ] || { echo "HTTP $STATUS"; return; }
	printf '%s' "$BODY" | sed -n 's/.*"counts":{"restored":0,"total":\([0-9]*\),"in_progress":\([0-9]*\),"completed":\([0-9]*\),"failed":\([0-9]*\)}.*"latest":{"completed":\(null\|{"className":"completed","id":\([0-9]*\),[^}]*"end_to_end_duration":\([0-9]*\),\).*/\3 \4 \2 \1 \6 \7/p' |
	    awk '{ if (NF == 4) print $1, $2, $3, $4, -1, -1; else print }'
}

# metrics_view JOB: the same six from the last scrape's Flink gauges.
metrics_view() {
	for _f in numberOfCompletedCheckpoints numberOfFailedCheckpoints \
	    numberOfInProgressCheckpoints totalNumberOfCheckpoints \
	    lastCompletedCheckpointId lastCheckpointDuration; do
		sed -n "s/^flink_jobmanager_job_$_f{job_id=\"$1\",.*} //p" \
		    "$T/scrape"
	done | paste -sd ' '
}

# service NAME: a service figure from the last scrape.
service() {
	sed -n "s/^checkpoint_api_$1 //p" "$T/scrape"
}

# agree STEP A-EXPECTED B-EXPECTED DECLINED EXPIRED NOTFOUND: both
# endpoints give each job's expected six, and the service's totals.
agree() {
	http GET "/metrics?per-job=1"
	cp "$T/resp-body" "$T/scrape"
	is "$(stats_view $JA)|$(metrics_view $JA)" "$2|$2" \
	    "$1: job A, statistics and metrics agree"
	is "$(stats_view $JB)|$(metrics_view $JB)" "$3|$3" \
	    "$1: job B, statistics and metrics agree"
	set -- "$1" "$2" "$3" "$4" "$5" "$6" "${2%% *}" "${3%% *}"
	is "$(service triggers_completed_total) $(service 'triggers_failed_total{kind="declined"}') $(service 'triggers_failed_total{kind="expired"}') $(service 'triggers_failed_total{kind="job_not_found"}')" \
	    "$(($7 + $8)) $4 $5 $6" \
	    "$1: the service's totals are the jobs' sums, and job not found"
	is "$(sql 'SELECT count(*) FROM checkpoint_stats
	    WHERE job_id NOT IN (SELECT job_id FROM jobs)')" 0 \
	    "$1: rows only for registered jobs"
}

# duration JOB ID: the completed checkpoint's end-to-end duration.
duration() {
	sql "SELECT CASE WHEN completed_ms > coalesce(claimed_ms, created_ms)
	    THEN completed_ms - coalesce(claimed_ms, created_ms) ELSE 0 END
	    FROM triggers WHERE job_id = '$1' AND checkpoint_id = $2"
}

share_dir "$T"
start_server 2>> "$T/server.log"
"$CTL" init > /dev/null 2>&1 || bail "checkpointctl init"
"$CTL" job add $JA --name a --timeout 1 \
    --command 'echo "file:/ckpt/$CHECKPOINT_ID"' > /dev/null ||
    bail "checkpointctl job add A"
"$CTL" job add $JB --name b > /dev/null || bail "checkpointctl job add B"

agree "nothing yet" "0 0 0 0 -1 -1" "0 0 0 0 -1 -1" 0 0 0

post $JA
post $JB
runner
agree "one completed each" "1 0 0 1 1 $(duration $JA 1)" \
    "1 0 0 1 1 $(duration $JB 1)" 0 0 0

"$CTL" job set $JA --command 'echo no space left >&2; exit 3' > /dev/null
post $JA
runner
agree "A declined" "1 1 0 2 1 $(duration $JA 1)" \
    "1 0 0 1 1 $(duration $JB 1)" 1 0 0

"$CTL" job set $JA --command 'exec sleep 30' > /dev/null
post $JA
runner
is "$(sql "SELECT failure_trace FROM triggers
    WHERE job_id = '$JA' AND checkpoint_id = 3" | head -n 1)" \
    "org.apache.flink.runtime.checkpoint.CheckpointException: Checkpoint expired before completing." \
    "A's third overran its timeout: expired"
agree "A expired" "1 2 0 3 1 $(duration $JA 1)" \
    "1 0 0 1 1 $(duration $JB 1)" 1 1 0

post $JU
runner
agree "an unknown job" "1 2 0 3 1 $(duration $JA 1)" \
    "1 0 0 1 1 $(duration $JB 1)" 1 1 1
is "$(sql "SELECT count(*) FROM checkpoint_stats WHERE job_id = '$JU'")" 0 \
    "an unknown job: no row of its own"
http GET /jobs/$JU/checkpoints
is "$STATUS" 404 "an unknown job: no statistics"

"$CTL" job set $JA --state SUSPENDED > /dev/null
post $JA
runner
agree "A not RUNNING: job not found, in no count of A's" \
    "1 2 0 3 1 $(duration $JA 1)" "1 0 0 1 1 $(duration $JB 1)" 1 1 2

"$CTL" job set $JA --state RUNNING \
    --command 'echo "file:/ckpt/$CHECKPOINT_ID"' > /dev/null
post $JA
post $JB
runner
DUR_A=$(duration $JA 4)
DUR_B=$(duration $JB 2)
agree "one more completed each" "2 2 0 4 4 $DUR_A" "2 0 0 2 2 $DUR_B" 1 1 2

sleep 0.01
CHECKPOINT_STORE_DURATION=1ms "$CTL" purge > /dev/null 2>&1
is "$(sql "SELECT count(*) FROM triggers")" 0 "purged: no trigger left"
agree "purged" "2 2 0 4 4 $DUR_A" "2 0 0 2 2 $DUR_B" 1 1 2
done_testing
