#!/bin/sh
# Results survive restarts (checkpoint-api(7), "BEYOND FLINK"):
# triggers recorded and completed through one lighttpd answer with the same
# bytes after lighttpd and its FastCGI processes are stopped and started
# again, and after the FastCGI processes alone are killed with SIGKILL and
# respawned by lighttpd.  Results are completed by hand with sqlite3.

. "$(dirname "$0")/lib.sh"

command -v lighttpd >/dev/null 2>&1 || bail "lighttpd is missing"
command -v sqlite3 >/dev/null 2>&1 || bail "sqlite3 is missing"

unset CHECKPOINT_STORE_DURATION CHECKPOINT_MAX_BODY CHECKPOINT_CORS_ORIGIN \
    CHECKPOINT_REJECT_UNKNOWN_JOBS

J=0123456789abcdef0123456789abcdef
JB=fedcba9876543210fedcba9876543210
TA=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
TB=bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb
TC=cccccccccccccccccccccccccccccccc
TU=99999999999999999999999999999999

# gone PID: true once the process no longer runs (a zombie left for init to
# reap counts as gone).
gone() {
	_st=$(ps -o stat= -p "$1" 2>/dev/null) || return 0
	case $_st in
	Z*) return 0 ;;
	esac
	return 1
}

# wait_gone PID...: true once every PID is gone (up to ~5 s).
wait_gone() {
	_i=0
	while [ $_i -lt 100 ]; do
		_left=
		for _p in "$@"; do
			gone "$_p" || _left="$_left $_p"
		done
		[ -z "$_left" ] && return 0
		sleep 0.05
		_i=$((_i + 1))
	done
	diag "still running:$_left"
	return 1
}

# The FastCGI processes lighttpd runs now, one pid a line.
app_pids() {
	for _p in $(pgrep -P "$LIGHTTPD_PID"); do
		gone "$_p" || echo "$_p"
	done
}

# wait_respawned N OLD-PID...: true once lighttpd runs N FastCGI processes,
# none of them an OLD-PID (up to ~5 s, asking for a status meanwhile).
wait_respawned() {
	_n=$1
	shift
	_i=0
	while [ $_i -lt 50 ]; do
		_now=$(app_pids)
		_stale=0
		for _p in "$@"; do
			printf '%s\n' "$_now" | grep -qx "$_p" && _stale=1
		done
		if [ "$_stale" -eq 0 ] && [ "$(printf '%s\n' "$_now" | grep -c .)" -eq "$_n" ]; then
			return 0
		fi
		http GET /jobs/$J/checkpoints/$TA
		sleep 0.1
		_i=$((_i + 1))
	done
	diag "FastCGI processes now: $(echo $_now)"
	return 1
}

# Every status the test knows (J/T pairs), one line each: STATUS BODY.
statuses() {
	for _jt in $J/$TA $J/$TB $J/$TC $J/$TD $JB/$TA $J/$TU; do
		http GET "/jobs/${_jt%/*}/checkpoints/${_jt#*/}"
		printf '%s %s\n' "$STATUS" "$BODY"
	done
}

# === first run: record and complete ===========================================
export CHECKPOINT_PROCS=2
start_lighttpd 2>>"$T/lighttpd-stderr.log"

http POST /jobs/$J/checkpoints "{\"triggerId\":\"$TA\"}"
is "$STATUS $BODY" "202 {\"request-id\":\"$TA\"}" "first run: POST, running trigger"
http POST /jobs/$J/checkpoints "{\"triggerId\":\"$TB\",\"checkpointType\":\"FULL\"}"
is "$STATUS $BODY" "202 {\"request-id\":\"$TB\"}" "first run: POST, trigger to complete"
http POST /jobs/$J/checkpoints "{\"triggerId\":\"$TC\"}"
is "$STATUS $BODY" "202 {\"request-id\":\"$TC\"}" "first run: POST, trigger to fail"
http POST /jobs/$J/checkpoints
like "$STATUS $BODY" '^202 \{"request-id":"[0-9a-f]{32}"\}$' "first run: POST, random id"
TD=$(printf '%s' "$BODY" | cut -d'"' -f4)
http POST /jobs/$JB/checkpoints "{\"triggerId\":\"$TA\"}"
is "$STATUS $BODY" "202 {\"request-id\":\"$TA\"}" "first run: POST, same id on another job"

now=$(date +%s%3N)
sql "UPDATE triggers SET status='COMPLETED', checkpoint_id=3,
    checkpoint_type='FULL', completed_ms=$now
    WHERE job_id='$J' AND trigger_id='$TB'"
# The failure's serialized-throwable, exactly as the runner stores it
# (cgi/throwable.c, whose streams unit-throwable and t4200 check).
THROWABLE_DECLINED=$THROWABLE_HEAD\
'dAAmQ2hlY2twb2ludCB3YXMgZGVjbGluZWQuCmV4aXQgc3RhdHVzIDF1cgAeW0xq'\
'YXZhLmxhbmcuU3RhY2tUcmFjZUVsZW1lbnQ7AkYqPDz9IjkCAAB4cAAAAABzcgAf'\
'amF2YS51dGlsLkNvbGxlY3Rpb25zJEVtcHR5TGlzdHq4F7Q8p57eAgAAeHB4dABf'\
'b3JnLmFwYWNoZS5mbGluay5ydW50aW1lLmNoZWNrcG9pbnQuQ2hlY2twb2ludEV4'\
'Y2VwdGlvbjogQ2hlY2twb2ludCB3YXMgZGVjbGluZWQuCmV4aXQgc3RhdHVzIDF0'\
'ADdvcmcuYXBhY2hlLmZsaW5rLnJ1bnRpbWUuY2hlY2twb2ludC5DaGVja3BvaW50'\
'RXhjZXB0aW9ucA=='
sql "UPDATE triggers SET status='COMPLETED', checkpoint_id=4,
    failure_class='org.apache.flink.runtime.checkpoint.CheckpointException',
    failure_trace='org.apache.flink.runtime.checkpoint.CheckpointException: Checkpoint was declined.' || char(10) || 'exit status 1',
    failure_throwable='$THROWABLE_DECLINED',
    completed_ms=$now WHERE job_id='$J' AND trigger_id='$TC'"
ROWS=$(sql "SELECT count(*) FROM triggers")
is "$ROWS" 5 "first run: five triggers recorded"

WANT=$(printf '%s\n' \
    '200 {"status":{"id":"IN_PROGRESS"},"operation":null}' \
    '200 {"status":{"id":"COMPLETED"},"operation":{"checkpointId":3}}' \
    '200 {"status":{"id":"COMPLETED"},"operation":{"failureCause":{"class":"org.apache.flink.runtime.checkpoint.CheckpointException","stack-trace":"org.apache.flink.runtime.checkpoint.CheckpointException: Checkpoint was declined.\nexit status 1","serialized-throwable":"'"$THROWABLE_DECLINED"'"}}}' \
    '200 {"status":{"id":"IN_PROGRESS"},"operation":null}' \
    '200 {"status":{"id":"IN_PROGRESS"},"operation":null}' \
    "404 {\"errors\":[\"There is no checkpoint operation with triggerId=$TU for job $J.\"]}")
BEFORE=$(statuses)
is "$BEFORE" "$WANT" "first run: every status answers as expected"

# === lighttpd stopped: its FastCGI processes go with it ========================
OLD=$(app_pids)
is "$(printf '%s\n' "$OLD" | grep -c .)" 2 "first run: two FastCGI processes"
OLD_LIGHTTPD=$LIGHTTPD_PID
stop_lighttpd
wait_gone "$OLD_LIGHTTPD"
ok $? "lighttpd stopped"
wait_gone $OLD
ok $? "its FastCGI processes are gone"
STATUS=$(curl -s -o /dev/null -w '%{http_code}' "$BASE/jobs/$J/checkpoints/$TA")
is "$STATUS" 000 "nothing answers on the old port"

# === second run, one FastCGI process: the same answers =========================
export CHECKPOINT_PROCS=1
start_lighttpd 2>>"$T/lighttpd-stderr.log"
is "$(statuses)" "$BEFORE" "after a restart: every status answers the same bytes"
http POST /jobs/$J/checkpoints "{\"triggerId\":\"$TB\",\"checkpointType\":\"INCREMENTAL\"}"
is "$STATUS $BODY" "202 {\"request-id\":\"$TB\"}" "after a restart: POST of a completed id, same id"
http POST /jobs/$J/checkpoints "{\"triggerId\":\"$TA\"}"
is "$STATUS $BODY" "202 {\"request-id\":\"$TA\"}" "after a restart: POST of a running id, same id"
is "$(sql "SELECT count(*) FROM triggers")" "$ROWS" "after a restart: re-POSTs started nothing"
is "$(statuses)" "$BEFORE" "after a restart: re-POSTs changed no status"

# --- the FastCGI process alone killed with SIGKILL ------------------------------
OLD=$(app_pids)
is "$(printf '%s\n' "$OLD" | grep -c .)" 1 "second run: one FastCGI process"
kill -KILL $OLD
wait_gone $OLD
ok $? "SIGKILL: the FastCGI process is gone"
# Asked once lighttpd runs the new process: asked sooner, a slow start
# (valgrind, a loaded CI machine) could get lighttpd's own 503 meanwhile.
wait_respawned 1 $OLD
ok $? "SIGKILL: lighttpd runs a new FastCGI process"
is "$(statuses)" "$BEFORE" "SIGKILL: every status answers the same bytes"
kill -0 "$LIGHTTPD_PID" 2>/dev/null
ok $? "SIGKILL: lighttpd itself still runs"
stop_lighttpd

# === third run, two FastCGI processes, both killed =============================
export CHECKPOINT_PROCS=2
start_lighttpd 2>>"$T/lighttpd-stderr.log"
is "$(statuses)" "$BEFORE" "third run: every status answers the same bytes"
OLD=$(app_pids)
is "$(printf '%s\n' "$OLD" | grep -c .)" 2 "third run: two FastCGI processes"
kill -KILL $OLD
wait_gone $OLD
ok $? "SIGKILL both: the FastCGI processes are gone"
# Asked once lighttpd runs the new processes, as above: under valgrind
# a request before that got lighttpd's own 500.
wait_respawned 2 $OLD
ok $? "SIGKILL both: lighttpd runs two new FastCGI processes"
is "$(statuses)" "$BEFORE" "SIGKILL both: every status answers the same bytes"
is "$(statuses)" "$BEFORE" "SIGKILL both: and again"
http POST /jobs/$J/checkpoints "{\"triggerId\":\"$TC\"}"
is "$STATUS $BODY" "202 {\"request-id\":\"$TC\"}" "SIGKILL both: POST of a failed id, same id"
is "$(sql "SELECT count(*) FROM triggers")" "$ROWS" "SIGKILL both: nothing lost, nothing duplicated"
is "$(sql "PRAGMA integrity_check")" ok "the database passes integrity_check"

# === the database file replaced under the running processes ==================
# A backup restored with mv while they run: they keep the old file open,
# so a 202 would go where no other program reads (and opening the new file
# beside connections to the old one would share its -wal by name).  They
# answer 503 instead, and say why in the log, until they are restarted.
UNAVAILABLE='{"errors":["Service temporarily unavailable: the checkpoint database cannot be opened or read. Please retry."]}'
TR=12121212121212121212121212121212
sql ".backup '$T/restored.db'"
mv "$T/restored.db" "$DB"
http POST /jobs/$J/checkpoints "{\"triggerId\":\"$TR\"}"
is "$STATUS $BODY" "503 $UNAVAILABLE" "replaced: a POST is 503, not a 202 into the old file"
sleep 0.2 # a read connection looks every 100 ms at most (store_replaced)
http GET /jobs/$J/checkpoints/$TA
is "$STATUS $BODY" "503 $UNAVAILABLE" "replaced: a GET is 503 too"
grep -q 'the database file was replaced or removed while open; restart' \
    "$T/lighttpd-stderr.log"
ok $? "replaced: the log says why"
stop_lighttpd
start_lighttpd 2>>"$T/lighttpd-stderr.log"
http POST /jobs/$J/checkpoints "{\"triggerId\":\"$TR\"}"
is "$STATUS $BODY" "202 {\"request-id\":\"$TR\"}" "replaced, then restarted: POST is 202"
is "$(sql "SELECT count(*) FROM triggers WHERE trigger_id = '$TR'")" 1 \
    "replaced, then restarted: the trigger is in the file at CHECKPOINT_DB"
is "$(statuses)" "$BEFORE" "replaced, then restarted: every status answers as before"
is "$(sql "PRAGMA integrity_check")" ok "replaced: the new file passes integrity_check"
stop_lighttpd

done_testing
