# Shared by the checkpoint-runner tests t4000-t4040 (sourced, after which
# the test starts lighttpd): the built runner against a real database, with
# triggers recorded through the real API; helpers to add jobs, POST and GET
# triggers, run passes and read rows.
#
# Actions' commands are written in single quotes on purpose: their $VARS
# are for the action's shell, not this one.  $PIDS is a list.
# shellcheck disable=SC2016,SC2086

. "$(dirname "$0")/lib.sh"

for c in lighttpd sqlite3 curl md5sum timeout perl; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing"
done

HOST=$(uname -n)
RLOG=$T/runner.log

# --- helpers ----------------------------------------------------------------

jid() {
	printf 'feed%028x' "$1"
}

tid() {
	printf '%032x' "$1"
}

# The database, waiting for a lock rather than failing at once.
dbq() {
	sqlite3 -batch -noheader -cmd '.timeout 5000' "$DB" "$@"
}

sqlq() {
	printf '%s' "$1" | sed "s/'/''/g"
}

# add_job JOB STATE TYPE COMMAND [TIMEOUT_S]: COMMAND '' for none.
add_job() {
	_now=$(now_ms)
	if [ -n "$4" ]; then
		_cmd="'$(sqlq "$4")'"
	else
		_cmd=NULL
	fi
	dbq "INSERT INTO jobs (job_id, command, checkpoint_type, state,
	    timeout_s, created_ms, updated_ms) VALUES ('$1', $_cmd, '$3',
	    '$2', ${5:-600}, $_now, $_now)"
}

# post JOB TID [TYPE]: a trigger through the API; true on 202 with that id.
post() {
	if [ -n "${3:-}" ]; then
		http POST "/jobs/$1/checkpoints" \
		    "{\"checkpointType\":\"$3\",\"triggerId\":\"$2\"}"
	else
		http POST "/jobs/$1/checkpoints" "{\"triggerId\":\"$2\"}"
	fi
	if [ "$STATUS" = 202 ] && [ "$BODY" = "{\"request-id\":\"$2\"}" ]; then
		return 0
	fi
	diag "POST /jobs/$1/checkpoints ($2): $STATUS $BODY"
	return 1
}

# status JOB TID: the GET body.
status() {
	http GET "/jobs/$1/checkpoints/$2"
	printf '%s' "$BODY"
}

completed() {
	printf '{"status":{"id":"COMPLETED"},"operation":{"checkpointId":%s}}' "$1"
}

IN_PROGRESS='{"status":{"id":"IN_PROGRESS"},"operation":null}'
JOB_CLASS=java.util.concurrent.CompletionException
JOB_TRACE='java.util.concurrent.CompletionException: org.apache.flink.runtime.messages.FlinkJobNotFoundException: Could not find Flink job'
CKPT_CLASS=org.apache.flink.runtime.checkpoint.CheckpointException
DECLINED="$CKPT_CLASS: Checkpoint was declined."
EXPIRED="$CKPT_CLASS: Checkpoint expired before completing."

# failed_body CLASS TRACE-START: how a GET answering a failure begins.
failed_body() {
	printf '{"status":{"id":"COMPLETED"},"operation":{"failureCause":{"class":"%s","stack-trace":"%s' "$1" "$2"
}

# test_clock MS: from now on the runner's and checkpointctl's schedules
# and retention take MS as the time (CHECKPOINT_TEST_CLOCK); at SECONDS
# moves it to MS + SECONDS.  Written aside and renamed: a watching runner
# never reads half a file.
test_clock() {
	CHECKPOINT_TEST_CLOCK=$T/clock
	export CHECKPOINT_TEST_CLOCK
	T0=$1
	at 0
}
at() {
	echo $((T0 + $1 * 1000)) > "$CHECKPOINT_TEST_CLOCK.new" &&
	    mv "$CHECKPOINT_TEST_CLOCK.new" "$CHECKPOINT_TEST_CLOCK"
}

# ctl_fails CODE MESSAGE DESCRIPTION ARGS...: checkpointctl ARGS exits
# with CODE and says MESSAGE, in one line on stderr.
ctl_fails() {
	_code=$1 _msg=$2 _desc=$3
	shift 3
	"$CTL" "$@" >"$T/ctl.out" 2>"$T/ctl.err"
	_rc=$?
	is "$_rc $(cat "$T/ctl.err")" "$_code checkpointctl: $_msg" "$_desc"
}

# One pass of the runner (its log goes to $RLOG).
pass() {
	"$RUNNER" "$@" 2>>"$RLOG"
}

# rows JOB: status|checkpoint_id|checkpoint_type|location|failure_class of
# the job's triggers in arrival order, one per line.  (In SQL that
# PostgreSQL takes too, for t6230: its coalesce wants one type.)
rows() {
	dbq "SELECT status, coalesce(CAST(checkpoint_id AS TEXT), '-'),
	    coalesce(checkpoint_type, '-'), coalesce(location, '-'),
	    coalesce(failure_class, '-') FROM triggers WHERE job_id = '$1'
	    ORDER BY id"
}

# col JOB TID COLUMN: one column of one trigger (NULL shows as '-').
col() {
	dbq "SELECT coalesce(CAST($3 AS TEXT), '-') FROM triggers
	    WHERE job_id = '$1' AND trigger_id = '$2'"
}

# trace1 JOB TID: the first line of the trigger's stack trace.
trace1() {
	col "$1" "$2" failure_trace | head -n 1
}

# lines ARG...: the arguments, one per line (what a file should hold).
lines() {
	printf '%s\n' "$@"
}

# begins GOT PREFIX DESCRIPTION: GOT starts with PREFIX, taken literally.
begins() {
	case $1 in
	"$2"*)
		ok 0 "$3"
		;;
	*)
		ok 1 "$3"
		printf '%s\n' "expected to begin with: $2" \
		    "                   got: $1" | sed 's/^/#   /'
		;;
	esac
}

# kill_leftover PID: ends a process a failed case left behind.
kill_leftover() {
	if [ -n "$1" ] && ! gone "$1"; then
		kill -9 "$1" 2>/dev/null
	fi
}

# ms_since START_NS
ms_since() {
	echo $((($(date +%s%N) - $1) / 1000000))
}

# A pid that is not running now, for a dead runner's claim.
dead_pid() {
	_p=999999
	while [ -e "/proc/$_p" ]; do
		_p=$((_p - 1))
	done
	echo "$_p"
}

# A lease far ahead, for claims of runners that are still alive.
FAR=$(($(now_ms) + 86400000))
