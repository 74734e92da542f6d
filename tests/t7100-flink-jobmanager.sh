#!/bin/sh
# A job bound to a real JobManager (checkpointctl job add --flink URL):
# checkpoint-runner triggers its checkpoints on Flink's REST API and
# records what Flink says (checkpoint-runner(8), "FLINK JOBMANAGERS").
# The JobManager is a MiniCluster running a streaming job with keyed state
# and file checkpoint storage (tests/flink's FlinkReference --serve),
# reached through a port the service was told of, where nothing listens
# until a trigger came (a lighttpd proxy, started once the job runs: a
# MiniCluster answers before its job is there): while the JobManager is
# down (answering 503 behind a proxy, then not at all) the trigger waits,
# IN_PROGRESS, and completes once it is up.  The ids and paths recorded equal
# Flink's own statistics and exist on disk, the job's counter follows
# Flink's ids, a trigger of a job Flink does not know carries Flink's
# failure as Flink sent it (serialized-throwable byte for byte), one
# pass of a runner from cron follows a checkpoint to its end, and a
# JobManager that forgot a trigger (Flink's own 404 on its status) has
# its outcome recovered from Flink's checkpoint statistics.  A savepoint,
# its disposal and a stop go through the JobManager too, and are Flink's
# own on disk.
# FLINK_STORE=pg runs it all on PostgreSQL (t6500).

. "$(dirname "$0")/lib.sh"

for c in mvn java sqlite3 curl lighttpd python3; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing"
done
unset CHECKPOINT_STORE_DURATION CHECKPOINT_MAX_BODY CHECKPOINT_CORS_ORIGIN \
    CHECKPOINT_REJECT_UNKNOWN_JOBS CHECKPOINT_BUSY_TIMEOUT CHECKPOINT_SYNC

. "$top_srcdir/tests/flink-lib.sh"
[ -f "$B/classes/FlinkReference.class" ] ||
    bail "mvn did not build FlinkReference"

JOB=0123456789abcdef0123456789abcd02
UNK=feed00000000000000000000000000aa
T1=000000000000000000000000000000c1
T2=000000000000000000000000000000c2
T3=000000000000000000000000000000c3
T4=000000000000000000000000000000c4
JMPORT=$(free_port)
JM=127.0.0.1:$JMPORT

if [ "${FLINK_STORE:-sqlite}" = pg ]; then
	. "$top_srcdir/tests/pg.sh"
	pg_start
	pg_app_db bound
	sql() {
		pg_sql "$1"
	}
else
	DB=$T/bound.db
	export CHECKPOINT_DB=$DB
fi
"$CTL" init > /dev/null || bail "checkpointctl init $DB"
"$CTL" job add $JOB --name bound --flink "http://$JM" \
    --savepoint-dir "file://$T/flink-savepoints" || bail "job add"
"$CTL" job add $UNK --name unknown-to-flink --flink "http://$JM/" ||
    bail "job add"
is "$(sql "SELECT flink_url FROM jobs ORDER BY job_id")" \
    "$(printf '%s\n' "http://$JM" "http://$JM/")" \
    "checkpointctl job add --flink: the jobs are bound"
"$CTL" job add feed00000000000000000000000000ab --flink ftp://x 2> "$T/ctl.err"
is "$? $(cat "$T/ctl.err")" \
    "2 checkpointctl: bad --flink 'ftp://x': expected the JobManager's REST endpoint, http://host:port, or none" \
    "checkpointctl job add --flink: anything but http(s) refused"

SERVER=lighttpd MOUNT=
start_server
spawn "$RUNNER" --watch 2>>"$T/runner.log"
WATCHER=$LAST_PID

# post JOB TRIGGER: POST a trigger to the service.
post() {
	curl -s -o /dev/null -w '%{http_code}' -X POST \
	    --data "{\"triggerId\":\"$2\"}" "$BASE/jobs/$1/checkpoints"
}

# col TRIGGER COLUMN: one column of the service's row of a trigger.
col() {
	sql "SELECT coalesce(CAST($2 AS TEXT), '-') FROM triggers
	    WHERE trigger_id = '$1'"
}

# jm PATH: the JobManager's own answer.
jm() {
	curl -s "http://$JM$1"
}

# --- a JobManager down ----------------------------------------------------------

# First a proxy in front of no JobManager, which answers 503 (as a load
# balancer does while the JobManager restarts); then nothing at all.
mkdir -p "$T/jm-503"
cat > "$T/jm-503/lighttpd.conf" <<EOF
server.modules = ( "mod_proxy" )
server.bind = "127.0.0.1"
server.port = $JMPORT
server.document-root = "$T/jm-503"
server.errorlog = "$T/jm-503/error.log"
proxy.server = ( "" => ( ( "host" => "127.0.0.1", "port" => $(free_port) ) ) )
EOF
spawn lighttpd -D -f "$T/jm-503/lighttpd.conf"
PROXY503=$LAST_PID
wait_port "$JMPORT" || bail "the 503 proxy did not start"
is "$(post $JOB $T1)" 202 "POST to a job bound to a JobManager that is down: 202"
wait_until 100 "grep -q 'did not answer (503 Service Unavailable)' '$T/runner.log'"
ok $? "a JobManager that answers 503: the runner says it will ask again"
stop_pid "$PROXY503"
sleep 2
is "$(col $T1 status)" IN_PROGRESS "the trigger waits, IN_PROGRESS"
# Meanwhile another job, with an action, is not held up.
PLAIN=0123456789abcdef0123456789abcd0f
TP=000000000000000000000000000000cf
"$CTL" job add $PLAIN --name plain --command 'echo "file:/plain/$CHECKPOINT_ID"' ||
    bail "job add"
_t0=$(now_ms)
is "$(post $PLAIN $TP)" 202 "a trigger of another job, with an action"
wait_until 100 "[ \"\$(col $TP status)\" = COMPLETED ]"
is "$(col $TP status) $(col $TP location) $(col $T1 status)" \
    "COMPLETED file:/plain/1 IN_PROGRESS" \
    "... completes while the JobManager's trigger still waits"
diag "the other job's trigger took $(($(now_ms) - _t0)) ms with the JobManager down"

mkdir -p "$T/jvm-tmp" "$T/flink-checkpoints"
spawn java -Djava.io.tmpdir="$T/jvm-tmp" -cp "$CP" \
    FlinkReference --serve $JOB jobmanager-side "$T/flink-checkpoints" \
    > "$T/jm.out" 2> "$T/jm.err"
JM_PID=$LAST_PID
wait_until 1200 "grep -q '^rest ' '$T/jm.out' || ! kill -0 $JM_PID 2>/dev/null"
if ! grep -q '^rest ' "$T/jm.out"; then
	grep -v '^SLF4J: ' "$T/jm.err" | tail -n 20 | sed 's/^/# /'
	bail "the MiniCluster did not start its job"
fi
REAL=$(sed -n 's|^rest http://||p' "$T/jm.out")
mkdir -p "$T/jm-proxy"
cat > "$T/jm-proxy/lighttpd.conf" <<EOF
server.modules = ( "mod_proxy" )
server.bind = "127.0.0.1"
server.port = $JMPORT
server.document-root = "$T/jm-proxy"
server.errorlog = "$T/jm-proxy/error.log"
server.http-parseopts = ( "method-get-body" => "enable" )
proxy.server = ( "" => ( ( "host" => "${REAL%:*}", "port" => ${REAL##*:} ) ) )
EOF
spawn lighttpd -D -f "$T/jm-proxy/lighttpd.conf"
wait_port "$JMPORT" || bail "the JobManager's proxy did not start"
ok 0 "the JobManager is up, its job running"

wait_until 600 "[ \"\$(col $T1 status)\" = COMPLETED ]"
is "$(col $T1 status) $(col $T1 failure_class)" "COMPLETED -" \
    "the trigger that waited completed once the JobManager was up"

# flink_latest: Flink's own latest completed checkpoint: "id path".
flink_latest() {
	jm "/jobs/$JOB/checkpoints" | python3 -c '
import json, sys
c = json.load(sys.stdin)["latest"]["completed"]
print(c["id"], c["external_path"]) if c else print("none")'
}

# check TRIGGER: its id and path are Flink's latest, and on disk.
check() {
	_id=$(col "$1" checkpoint_id)
	_path=$(col "$1" location)
	# Flink's statistics are cached a few seconds: wait for its latest.
	wait_until 100 "flink_latest | grep -q '^$_id '"
	is "$_id $_path" "$(flink_latest)" \
	    "$1: the id and path recorded are Flink's own latest completed checkpoint"
	is "$(jm "/jobs/$JOB/checkpoints/details/$_id" | python3 -c '
import json, sys; print(json.load(sys.stdin)["external_path"])')" "$_path" \
	    "$1: ... and its details' external_path"
	test -f "${_path#file:}/_metadata"
	ok $? "$1: ... a checkpoint on disk, its _metadata there"
	is "$(curl -s "$BASE/jobs/$JOB/checkpoints/$1")" \
	    "{\"status\":{\"id\":\"COMPLETED\"},\"operation\":{\"checkpointId\":$_id}}" \
	    "$1: the service answers its status with Flink's id"
	is "$(sql "SELECT last_id FROM checkpoint_counters
	    WHERE job_id = '$JOB'")" "$_id" \
	    "$1: the job's counter follows Flink's id"
}
check $T1
FIRST=$(col $T1 checkpoint_id)

_t0=$(now_ms)
is "$(post $JOB $T2)" 202 "a second trigger: 202"
wait_until 600 "[ \"\$(col $T2 status)\" = COMPLETED ]"
diag "a trigger of the bound job took $(($(now_ms) - _t0)) ms, POST to COMPLETED with its path"
check $T2
ok "$([ "$(col $T2 checkpoint_id)" -gt "$FIRST" ]; echo $?)" \
    "the second checkpoint's id is past the first's"
is "$(jm "/jobs/$JOB/checkpoints" | python3 -c '
import json, sys; print(json.load(sys.stdin)["counts"]["total"])')" 2 \
    "Flink took two checkpoints: one each, none asked twice"

# An INCREMENTAL trigger, which Flink 1.19 and later refuse with a 500
# (two texts: "Internal server error." and the exception): Flink's words.
T6=000000000000000000000000000000c6
is "$(curl -s -o /dev/null -w '%{http_code}' -X POST \
    --data "{\"checkpointType\":\"INCREMENTAL\",\"triggerId\":\"$T6\"}" \
    "$BASE/jobs/$JOB/checkpoints")" 202 "an INCREMENTAL trigger of the bound job: 202"
wait_until 600 "[ \"\$(col $T6 status)\" = COMPLETED ]"
is "$(col $T6 checkpoint_id) $(col $T6 failure_class)" \
    "- org.apache.flink.runtime.rest.util.RestClientException" \
    "... failed as Flink's client would report Flink's 500"
is "$(col $T6 failure_trace | sed -n '1p;/IllegalStateException/p')" \
    "$(printf '%s\n' \
    'org.apache.flink.runtime.rest.util.RestClientException: [Internal server error., <Exception on server side:' \
    'java.lang.IllegalStateException: Flink does not support triggering incremental checkpoint explicitly. See FLINK-33723.')" \
    "... both of Flink's texts in its trace"

# --- a job Flink does not know --------------------------------------------------

is "$(post $UNK $T3)" 202 "POST to a bound job that Flink does not know: 202"
wait_until 600 "[ \"\$(col $T3 status)\" = COMPLETED ]"
is "$(col $T3 checkpoint_id) $(col $T3 failure_class)" \
    "- java.util.concurrent.CompletionException" \
    "Flink's failure recorded: no id, Flink's class"
like "$(col $T3 failure_trace)" \
    "^java.util.concurrent.CompletionException: org.apache.flink.runtime.messages.FlinkJobNotFoundException: Could not find Flink job \\($UNK\\)" \
    "... Flink's stack trace"
# throwable ANSWER: failureCause's serialized-throwable in a status answer.
throwable() {
	python3 -c '
import json, sys
print(json.load(sys.stdin)["operation"]["failureCause"]["serialized-throwable"])'
}
APP_T=$(curl -s "$BASE/jobs/$UNK/checkpoints/$T3" | throwable)
FLINK_T=$(jm "/jobs/$UNK/checkpoints/$T3" | throwable)
like "$APP_T" '^rO0AB' "the service answers its serialized-throwable"
is "$APP_T" "$FLINK_T" "... byte for byte the one Flink answers for the same trigger"

# --- a runner from cron ----------------------------------------------------------
#
# One pass follows the checkpoint to its end, as it waits for an action.
BEFORE=$(jm "/jobs/$JOB/checkpoints" | python3 -c '
import json, sys; print(json.load(sys.stdin)["counts"]["total"])')
term_wait "$WATCHER"
is "$RC" 0 "the runner stops on SIGTERM"
is "$(post $JOB $T4)" 202 "a trigger with no runner: 202"
"$RUNNER" 2>>"$T/runner.log"
is "$? $(col $T4 status)" "0 COMPLETED" "one pass of checkpoint-runner completes it"
check $T4
is "$(jm "/jobs/$JOB/checkpoints" | python3 -c '
import json, sys; print(json.load(sys.stdin)["counts"]["total"])')" \
    "$((BEFORE + 1))" "Flink took one checkpoint for it"

# --- savepoints, a disposal and a stop, through the JobManager -------------------
#
# Each asked of Flink under the service's trigger id by one pass, as a
# command would run: Flink's location, on disk, and Flink's own answer for
# the same trigger id; the disposal removes it from disk; the stop ends
# the job on both sides.
SP1=000000000000000000000000000000d1
SP2=000000000000000000000000000000d2
SPDIR=file://$T/flink-savepoints
mkdir -p "$T/flink-savepoints"
# spost PATH BODY: a POST's status; its body in $T/spost.
spost() {
	curl -s -o "$T/spost" -w '%{http_code}' -X POST --data "$2" "$BASE$1"
}
# sp_col TRIGGER COLUMN: one column of the service's row of a savepoint.
sp_col() {
	sql "SELECT coalesce(CAST($2 AS TEXT), '-') FROM savepoints
	    WHERE trigger_id = '$1'"
}
is "$(spost /jobs/$JOB/savepoints \
    "{\"target-directory\":\"$SPDIR\",\"triggerId\":\"$SP1\"}")" 202 \
    "a savepoint of the bound job: 202"
"$RUNNER" 2>>"$T/runner.log"
SPLOC=$(sp_col $SP1 location)
is "$? $(curl -s "$BASE/jobs/$JOB/savepoints/$SP1")" \
    "0 {\"status\":{\"id\":\"COMPLETED\"},\"operation\":{\"location\":\"$SPLOC\"}}" \
    "one pass: the savepoint COMPLETED with a location"
is "$(jm "/jobs/$JOB/savepoints/$SP1" | python3 -c '
import json, sys; print(json.load(sys.stdin)["operation"]["location"])')" \
    "$SPLOC" "... the location Flink answers for the same trigger id"
test -f "${SPLOC#file:}/_metadata"
ok $? "... a savepoint on disk, its _metadata there"
wait_until 100 "jm /jobs/$JOB/checkpoints | grep -q '$SPLOC'"
is "$(sp_col $SP1 checkpoint_id)" "$(jm "/jobs/$JOB/checkpoints" | python3 -c '
import json, sys
for c in json.load(sys.stdin)["history"]:
    if c["external_path"] == sys.argv[1]:
        print(c["id"])' "$SPLOC")" \
    "... its id Flink's, from its statistics"

# The job's newest savepoint is never disposed of: a second one first.
SP3=000000000000000000000000000000d3
is "$(spost /jobs/$JOB/savepoints "{\"triggerId\":\"$SP3\"}")" 202 \
    "a second savepoint, into the job's directory: 202"
"$RUNNER" 2>>"$T/runner.log"
like "$(sp_col $SP3 location)" "^file:$T/flink-savepoints/savepoint-" \
    "one pass: the second savepoint COMPLETED"
is "$(spost /savepoint-disposal "{\"savepoint-path\":\"$SPLOC\"}")" 200 \
    "its disposal: 200"
D1=$(cut -d'"' -f4 "$T/spost")
"$RUNNER" 2>>"$T/runner.log"
is "$(curl -s "$BASE/savepoint-disposal/$D1")" \
    '{"status":{"id":"COMPLETED"},"operation":{}}' \
    "one pass: the disposal COMPLETED"
test ! -e "${SPLOC#file:}"
ok $? "... Flink removed the savepoint from disk"
is "$(sp_col $SP1 "CASE WHEN disposed_ms IS NOT NULL THEN 1 ELSE 0 END")" 1 \
    "... marked disposed"

is "$(spost /jobs/$JOB/stop \
    "{\"targetDirectory\":\"$SPDIR\",\"triggerId\":\"$SP2\"}")" 202 \
    "a stop of the bound job: 202"
"$RUNNER" 2>>"$T/runner.log"
STOPLOC=$(sp_col $SP2 location)
like "$STOPLOC" "^file:$T/flink-savepoints/savepoint-" \
    "one pass: the stop COMPLETED with Flink's location"
test -f "${STOPLOC#file:}/_metadata"
ok $? "... its savepoint on disk"
is "$(sql "SELECT state FROM jobs WHERE job_id = '$JOB'")" FINISHED \
    "... the service's job FINISHED"
wait_until 100 "jm /jobs/$JOB/status | grep -q FINISHED"
is "$(jm "/jobs/$JOB/status")" '{"status":"FINISHED"}' \
    "... and Flink's job FINISHED"

stop_pid "$JM_PID" KILL

# --- a JobManager that forgot the trigger --------------------------------------
#
# A second MiniCluster forgets results 1 s after they end; a forwarder
# in front of it holds each status GET 3 s, so that the runner's first
# status GET finds Flink's own 404.  The runner then finds the one
# checkpoint triggered since its POST in Flink's statistics and records
# it, id and path.
JOB2=0123456789abcdef0123456789abcd03
T5=000000000000000000000000000000c5
: > "$T/jm.out"
spawn java -Dstore.seconds=1 -Djava.io.tmpdir="$T/jvm-tmp" -cp "$CP" \
    FlinkReference --serve $JOB2 forgetful "$T/flink-checkpoints" \
    > "$T/jm.out" 2> "$T/jm2.err"
JM_PID=$LAST_PID
wait_until 1200 "grep -q '^rest ' '$T/jm.out' || ! kill -0 $JM_PID 2>/dev/null"
REAL=$(sed -n 's|^rest ||p' "$T/jm.out")
[ -n "$REAL" ] || bail "the second MiniCluster did not start its job"
cat > "$T/slow-status.py" <<'EOF'
import http.server, sys, time, urllib.error, urllib.request, re
up, delay = sys.argv[2], float(sys.argv[3])
status = re.compile(r"^/jobs/[0-9a-f]{32}/checkpoints/[0-9a-f]{32}$")
class Forward(http.server.BaseHTTPRequestHandler):
    def forward(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else None
        if self.command == "GET" and status.match(self.path):
            time.sleep(delay)
        req = urllib.request.Request(up + self.path, data=body,
            method=self.command, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req) as r:
                code, data = r.status, r.read()
        except urllib.error.HTTPError as e:
            code, data = e.code, e.read()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
    do_GET = do_POST = forward
    def log_message(self, *args):
        pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])),
    Forward).serve_forever()
EOF
SLOW=$(free_port)
spawn python3 "$T/slow-status.py" "$SLOW" "$REAL" 3
wait_port "$SLOW" || bail "the forwarder did not start"
"$CTL" job add $JOB2 --name forgetful --flink "http://127.0.0.1:$SLOW" ||
    bail "job add"
is "$(post $JOB2 $T5)" 202 "a trigger of a job whose JobManager will forget it: 202"
"$RUNNER" 2>>"$T/runner.log"
is "$? $(col $T5 status) $(col $T5 failure_class)" "0 COMPLETED -" \
    "Flink answered 404 to its status, and the runner recovered it"
grep -q "trigger $T5 .*no longer knows it" "$T/runner.log"
ok $? "... after Flink's own 404 (the runner says so)"
_stats=$(curl -s "$REAL/jobs/$JOB2/checkpoints" | python3 -c '
import json, sys
d = json.load(sys.stdin)
c = d["latest"]["completed"]
print(d["counts"]["total"], c["id"], c["external_path"])')
is "1 $(col $T5 checkpoint_id) $(col $T5 location)" "$_stats" \
    "... its id and path Flink's one checkpoint's, from its statistics"

stop_server
stop_pid "$JM_PID" KILL
done_testing
