#!/bin/sh
# The service in front of a real JobManager, on one address, through the
# shipped configurations (scripts/nginx-jobmanager.conf,
# scripts/lighttpd-jobmanager.conf): a MiniCluster runs a streaming job
# (tests/flink's FlinkReference --serve), the same job id registered with
# the app under another name, so that every answer tells who gave it.
# Flink's command line, pointed at the front, lists the job as the
# JobManager names it (flink list: proxied), and checkpoints it through
# the app (flink checkpoint: the app's runner gives the id, the
# JobManager's statistics count nothing); job details are the
# JobManager's, checkpoint statistics and configuration the app's, at the
# root and under /v1; stop-with-savepoint, savepoints and savepoint
# disposal reach the app, never the JobManager, whose job runs on.
#
# The job's command is in single quotes on purpose: its $VARS are for the
# action's shell.
# shellcheck disable=SC2016

. "$(dirname "$0")/lib.sh"

for c in mvn java sqlite3 curl lighttpd nginx spawn-fcgi; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing"
done
if [ "$(id -u)" -eq 0 ]; then
	command -v setpriv >/dev/null 2>&1 || bail "setpriv (util-linux) is missing"
fi
unset CHECKPOINT_STORE_DURATION CHECKPOINT_MAX_BODY CHECKPOINT_CORS_ORIGIN \
    CHECKPOINT_REJECT_UNKNOWN_JOBS CHECKPOINT_BUSY_TIMEOUT CHECKPOINT_SYNC

. "$top_srcdir/tests/flink-lib.sh"
if [ ! -f "$B/classes/FlinkReference.class" ]; then
	skip "a MiniCluster behind the front" \
	    "FlinkReference is written against Flink 1.20's DataStream API"
	done_testing
	exit 0
fi

JOB=0123456789abcdef0123456789abcd01

# --- the JobManager -------------------------------------------------------------

mkdir -p "$T/jvm-tmp" "$T/flink-checkpoints"
spawn java -Djava.io.tmpdir="$T/jvm-tmp" -cp "$CP" FlinkReference --serve \
    $JOB jobmanager-side "$T/flink-checkpoints" > "$T/jm.out" 2> "$T/jm.err"
JM_PID=$LAST_PID
wait_until 1200 "grep -q '^rest ' '$T/jm.out' || ! kill -0 $JM_PID 2>/dev/null"
JM=$(sed -n 's|^rest http://||p' "$T/jm.out")
if [ -z "$JM" ]; then
	grep -v '^SLF4J: ' "$T/jm.err" | tail -n 20 | sed 's/^/# /'
	bail "the MiniCluster did not start its job"
fi
ok 0 "a MiniCluster runs the job, its REST endpoint at $JM"

# jm PATH: the JobManager's own answer, asked directly: "status body".
jm() {
	curl -s -o "$T/jm.body" -w '%{http_code}' "http://$JM$1" > "$T/jm.code"
	echo "$(cat "$T/jm.code") $(cat "$T/jm.body")"
}

# front METHOD PATH [BODY]: the front's answer: "status body".
front() {
	curl -s -o "$T/front.body" -w '%{http_code}' -X "$1" \
	    -H 'Content-Type: application/json' ${3:+--data "$3"} \
	    "$BASE$2" > "$T/front.code"
	echo "$(cat "$T/front.code") $(cat "$T/front.body")"
}

# jm_total: how many checkpoints (savepoints included) Flink counts.
jm_total() {
	jm "/jobs/$JOB/checkpoints" |
	    sed -n 's/.*"counts":{[^}]*"total":\([0-9]*\).*/\1/p'
}

# jm_state: the job's state, as the JobManager says.
jm_state() {
	jm "/jobs/$JOB" | sed -n 's/^200 .*"state":"\([A-Z]*\)".*/\1/p'
}

is "$(jm_total)" 0 "the JobManager counts no checkpoint yet (periodic ones are an hour apart)"

DB=$T/front.db
export CHECKPOINT_DB=$DB
"$CTL" init > /dev/null || bail "checkpointctl init $DB"
"$CTL" job add $JOB --name app-side --type FULL \
    --command 'echo "file:/checkpoints/chk-$CHECKPOINT_ID"' || bail "job add"
if [ "$(id -u)" -eq 0 ]; then
	chown "$RUN_USER:$RUN_GROUP" "$DB" || bail "chown $DB"
fi
spawn "$RUNNER" --watch 2>>"$T/runner.log"
WATCHER=$LAST_PID

export JOBMANAGER=$JM JOBMANAGER_HOST=${JM%:*} JOBMANAGER_PORT=${JM##*:}
K=0
for SERVER in ${FLINK_SERVERS:-nginx lighttpd}; do
	S=$SERVER
	SITE=jobmanager MOUNT=
	start_server
	# The app's side of the job RUNNING again: the last server's
	# stop-with-savepoint, answered by the app, finished it there.
	"$CTL" job set $JOB --state RUNNING > /dev/null ||
	    bail "job set --state RUNNING"

	flink list -m "127.0.0.1:$PORT"
	is "$RC $ERR" "0 " "$S: flink list through the front: exit status 0, nothing on stderr"
	like "$OUT" " : $JOB : jobmanager-side \\(RUNNING\\)" \
	    "$S: flink list: the JobManager's job, under the JobManager's name"

	# The job's next id: savepoints and stops take theirs from the
	# same sequence.
	N=$(($(sql "SELECT coalesce(max(last_id), 0) FROM checkpoint_counters
	    WHERE job_id = '$JOB'") + 1))
	K=$((K + 1))
	flink checkpoint -m "127.0.0.1:$PORT" $JOB
	is "$RC $ERR" "0 " "$S: flink checkpoint through the front: exit status 0, nothing on stderr"
	is "$OUT" "$(printf '%s\n' "Triggering checkpoint for job $JOB." \
	    'Waiting for response...' \
	    "Checkpoint $N for job $JOB completed." \
	    'You can resume your program from this checkpoint with the run command.')" \
	    "$S: flink checkpoint: the app's runner gave checkpoint $N"
	is "$(sql "SELECT count(*) || ' ' || max(checkpoint_id) FROM triggers
	    WHERE job_id = '$JOB' AND status = 'COMPLETED'")" "$K $N" \
	    "$S: ... recorded by the app"
	is "$(jm_total)" 0 "$S: ... and never seen by the JobManager"

	like "$(front GET "/jobs/$JOB")" "^200 \\{.*\"name\":\"jobmanager-side\"" \
	    "$S: GET /jobs/:jobid: the JobManager's job details"
	# Every id of the sequence, savepoints and stops included, as
	# Flink counts them.
	like "$(front GET "/v1/jobs/$JOB/checkpoints")" \
	    "^200 \\{\"counts\":\\{\"restored\":0,\"total\":$N," \
	    "$S: GET /v1/jobs/:jobid/checkpoints: the app's statistics"
	like "$(front GET "/jobs/$JOB/checkpoints/config")" \
	    '^200 .*"checkpoint_storage":"JobManagerCheckpointStorage"' \
	    "$S: GET .../checkpoints/config: the app's configuration"
	like "$(jm "/jobs/$JOB/checkpoints/config")" \
	    '^200 .*"checkpoint_storage":"FileSystemCheckpointStorage"' \
	    "$S: ... where the JobManager's would name its own storage"
	like "$(front GET '/jobs/overview')" \
	    "^200 .*\"jid\":\"$JOB\",\"name\":\"jobmanager-side\"" \
	    "$S: GET /jobs/overview: the JobManager's"
	like "$(front GET '/v1/config')" '^200 .*"flink-version"' \
	    "$S: GET /v1/config: the JobManager's cluster configuration"
	# Flink's web dashboard, from the same address: its page, and the
	# REST calls it makes, the JobManager's.
	like "$(curl -s "$BASE/" | tr -d '\n')" \
	    '<title>Apache Flink Web Dashboard</title>' \
	    "$S: GET /: the JobManager's web dashboard"
	like "$(front GET '/overview')" '^200 \{.*"taskmanagers":1' \
	    "$S: GET /overview: the dashboard's cluster overview, the JobManager's"

	# Each would change the JobManager's job, were it proxied: a
	# savepoint counted in its statistics, the job stopped; the ids the
	# answers give (if any) are none of the JobManager's.
	front POST "/v1/jobs/$JOB/savepoints" \
	    "{\"target-directory\":\"file://$T/savepoints\"}" > /dev/null
	SP=$(sed -n 's/.*"request-id":"\([0-9a-f]*\)".*/\1/p' "$T/front.body")
	front POST '/savepoint-disposal' \
	    "{\"savepoint-path\":\"file://$T/flink-checkpoints\"}" > /dev/null
	DP=$(sed -n 's/.*"request-id":"\([0-9a-f]*\)".*/\1/p' "$T/front.body")
	front POST "/jobs/$JOB/stop" \
	    "{\"targetDirectory\":\"file://$T/savepoints\",\"drain\":false}" \
	    > /dev/null
	ST=$(sed -n 's/.*"request-id":"\([0-9a-f]*\)".*/\1/p' "$T/front.body")
	sleep 1
	is "$(jm_state) $(jm_total)" "RUNNING 0" \
	    "$S: stop-with-savepoint and savepoint requests went to the app: the JobManager's job runs on, with no savepoint"
	is "${SP:+$(jm "/jobs/$JOB/savepoints/$SP" | cut -c1-3)}${DP:+ $(jm "/savepoint-disposal/$DP" | cut -c1-3)}${ST:+ $(jm "/jobs/$JOB/savepoints/$ST" | cut -c1-3)}" \
	    "${SP:+404}${DP:+ 404}${ST:+ 404}" \
	    "$S: the JobManager knows none of the operations the front answered"
	like "$(front GET '/jobs/xyz/checkpoints/')" '^400 ' \
	    "$S: a trailing slash is the app's too"

	stop_server
done

term_wait "$WATCHER"
is "$RC" 0 "the runner stops on SIGTERM"
stop_pid "$JM_PID" KILL
done_testing
