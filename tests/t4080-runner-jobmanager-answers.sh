#!/bin/sh
# A job bound to a JobManager that answers what Flink never would: a
# completed checkpoint whose id is 0, negative, a string or missing, on
# its status or in its statistics (after a 404 on the status).  The store
# keeps ids above 0, so none of these could ever be recorded: the
# trigger fails at once, its failure the answer as the JobManager gave
# it, and is not asked of the JobManager again and again.  A stand-in
# (python3) plays the JobManager; t7100 runs a real one.

. "$(dirname "$0")/lib.sh"

for c in python3 sqlite3 curl; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing"
done
unset CHECKPOINT_STORE_DURATION CHECKPOINT_BUSY_TIMEOUT CHECKPOINT_SYNC

JOB=0123456789abcdef0123456789abcd0a

# The stand-in: POST takes the trigger (202); its status GET answers 200,
# COMPLETED with the operation in the file $T/operation, or 404 when that
# file says "forgot"; the statistics answer the history in $T/history.
cat > "$T/jm.py" <<'EOF'
import http.server, json, re, sys
d = sys.argv[2]
class JM(http.server.BaseHTTPRequestHandler):
    def reply(self, code, data):
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(n) or b"{}")
        self.reply(202, json.dumps(
            {"request-id": body.get("triggerId", "")}).encode())
    def do_GET(self):
        with open(d + "/requests", "a") as f:
            f.write(self.path + "\n")
        op = open(d + "/operation", "rb").read().strip()
        if re.search(r"/checkpoints/[0-9a-f]{32}$", self.path):
            if op == b"forgot":
                self.reply(404, b'{"errors":["Not found"]}')
            else:
                self.reply(200, b'{"status":{"id":"COMPLETED"},'
                    b'"operation":' + op + b'}')
        elif self.path.endswith("/checkpoints"):
            self.reply(200, open(d + "/history", "rb").read().strip())
        else:
            self.reply(404, b'{"errors":["Not found"]}')
    def log_message(self, *args):
        pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])),
    JM).serve_forever()
EOF
echo '{}' > "$T/operation"
echo '{"history":[]}' > "$T/history"
JMPORT=$(free_port)
spawn python3 "$T/jm.py" "$JMPORT" "$T"
wait_port "$JMPORT" || bail "the stand-in JobManager did not start"

"$CTL" init > /dev/null || bail "init"
"$CTL" job add $JOB --flink "http://127.0.0.1:$JMPORT" || bail "job add"

# col TRIGGER COLUMN: a column of the trigger's row ("-" for NULL).
col() {
	sql "SELECT coalesce($2, '-') FROM triggers WHERE trigger_id = '$1'"
}

# pass N OPERATION: trigger N of the job (its id in _t), the stand-in
# answering OPERATION, and one pass of the runner from cron (its exit
# status in _rc).
pass() {
	_t=$(printf '%032x' "$1")
	printf '%s\n' "$2" > "$T/operation"
	: > "$T/requests"
	sql "INSERT INTO triggers (job_id, trigger_id, requested_type,
	    created_ms) VALUES ('$JOB', '$_t', 'CONFIGURED', $(now_ms))"
	timeout 60 "$RUNNER" 2>> "$T/runner.log"
	_rc=$?
}

# history ENTRY: the statistics hold one checkpoint, ENTRY's fields,
# triggered after any POST of this test.
history() {
	printf '{"history":[{"is_savepoint":false,"trigger_timestamp":%s,%s}]}\n' \
	    "$(( $(now_ms) + 600000 ))" "$1" > "$T/history"
}

# answered N OPERATION DESCRIPTION ANSWER: pass N fails the trigger with
# the answer (matching ANSWER) in brackets, and asks its status once.
answered() {
	pass "$1" "$2"
	is "$_rc $(col "$_t" status) $(col "$_t" checkpoint_id) $(col "$_t" failure_class)" \
	    "0 COMPLETED - org.apache.flink.runtime.rest.util.RestClientException" \
	    "$3: the trigger failed at once"
	like "$(col "$_t" failure_trace)" "\\[.*$4.*\\]" \
	    "  its failure holds the JobManager's answer"
	is "$(grep -c "/checkpoints/$_t\$" "$T/requests")" 1 \
	    "  its status asked once"
}

answered 1 '{"checkpointId":0}' "a completed checkpoint of id 0" \
    '"checkpointId":0'
answered 2 '{"checkpointId":-3}' "a completed checkpoint of id -3" \
    '"checkpointId":-3'
answered 3 '{"checkpointId":"7"}' "a completed checkpoint whose id is text" \
    '"checkpointId":"7"'
answered 4 '{}' "a completed checkpoint without an id" \
    '"operation":[{][}]'

# Forgotten (404), and the statistics' one checkpoint since: completed,
# without an id, or with id 0.
history '"status":"COMPLETED","external_path":"file:/x"'
answered 5 forgot "forgotten, its statistics' checkpoint without an id" \
    '"external_path":"file:/x"'
history '"id":0,"status":"COMPLETED"'
answered 6 forgot "forgotten, its statistics' checkpoint of id 0" '"id":0'

# What Flink does answer is recorded as it always was.
history '"id":12,"status":"COMPLETED","external_path":"file:/y"'
pass 7 forgot
is "$_rc $(col "$_t" status) $(col "$_t" checkpoint_id) $(col "$_t" failure_class)" \
    "0 COMPLETED 12 -" "forgotten, its statistics' checkpoint 12: recorded"

stop_recorded
done_testing
