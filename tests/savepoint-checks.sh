# Shared by t3050 (SQLite) and t6205 (PostgreSQL): the savepoint family of
# checkpoint-api(7), "SAVEPOINTS", through lighttpd: POST
# /jobs/:jobid/savepoints and /stop, their status, POST /savepoint-disposal
# and its status; Flink's bodies and texts, the one result store of
# savepoints and stops, apart from the checkpoints', idempotent triggerIds
# and disposals.  Results are completed by hand with SQL, as the runner
# would.  Sourced by a test that sets STORE.

SERVER=lighttpd
. "$(dirname "$0")/http-lib.sh"

TU=abcdef0123456789abcdef0123456789
CLI_SP='{"target-directory":"file:/sp","cancel-job":false,"formatType":"CANONICAL","triggerId":null}'
NO_DIR='{"errors":["Config key [execution.checkpointing.savepoint-dir] is not set. Property [%s] must be provided."]}'
NO_PATH='{"errors":["Field savepoint-path must not be omitted or be null."]}'
no_savepoint() {
	printf '{"errors":["There is no savepoint operation with triggerId=%s for job %s."]}' "$1" "$2"
}
trigger_of() {
	printf '%s' "$BODY" | cut -d'"' -f4
}
row() {
	sql "SELECT kind || ' ' || target_directory || ' ' || format_type || ' '
	    || CASE WHEN cancel_job THEN 1 ELSE 0 END || ' '
	    || CASE WHEN drain THEN 1 ELSE 0 END || ' ' || status
	    FROM savepoints WHERE job_id='$1' AND trigger_id='$2'"
}

phase savepoints

# --- the directory: the request's or the job's ------------------------------

# J is registered, without a savepoint directory.
"$CTL" init > /dev/null && "$CTL" job add $J > /dev/null ||
    bail "checkpointctl job add"
http POST /jobs/$J/savepoints
check "savepoint, no body, no directory anywhere: 400" 400 "$(printf "$NO_DIR" target-directory)"
http POST /jobs/$J/stop '{"drain":true}'
check "stop, no directory anywhere: 400 names targetDirectory" 400 "$(printf "$NO_DIR" targetDirectory)"
# A job not registered has no directory of its own to fall back on.
http POST /jobs/$TU/savepoints
check "savepoint of an unknown job, no directory: 404" 404 \
    "{\"errors\":[\"Job $TU not found\"]}"
http POST /jobs/$TU/stop
check "stop of an unknown job, no directory: 404" 404 \
    "{\"errors\":[\"Job $TU not found\"]}"
is "$(sql "SELECT count(*) FROM savepoints")" 0 "the 400s recorded nothing"

# --- the directory's bounds and scope: under the job's, in its normal form ---

refused() {
	printf '{"errors":["Field %s is refused: %s."]}' "$1" "$2"
}
http POST /jobs/$J/savepoints "$CLI_SP"
check "a directory, the job none to lie under: 400" 400 \
    "$(refused target-directory "the job has no savepoint directory for it to lie under, nor the service a CHECKPOINT_SAVEPOINT_ROOT")"
http POST /jobs/$TU/savepoints "$CLI_SP"
check "a directory, for an unknown job, whose root cannot be known: 404" 404 \
    "{\"errors\":[\"Job $TU not found\"]}"
# The service's root, for a job without a directory of its own.
stop_server
CHECKPOINT_SAVEPOINT_ROOT=file:/srv/sp
export CHECKPOINT_SAVEPOINT_ROOT
start_server 2>>"$T/server-stderr.log"
http POST /jobs/$J/savepoints '{"target-directory":"file:/srv/sp/a"}'
check_like "CHECKPOINT_SAVEPOINT_ROOT: a directory under it, no job's: 202" 202 "$ID_RE"
http POST /jobs/$TU/savepoints '{"target-directory":"file:/srv/sp/b"}'
check_like "CHECKPOINT_SAVEPOINT_ROOT: an unknown job, a directory under it: 202" 202 "$ID_RE"
http POST /jobs/$TU/savepoints '{"target-directory":"file:/srv/b"}'
check "CHECKPOINT_SAVEPOINT_ROOT: an unknown job, a directory not under it: 400" 400 \
    "$(refused target-directory "it does not lie under its root, the job's savepoint directory or else CHECKPOINT_SAVEPOINT_ROOT")"
http POST /jobs/$TU/savepoints
check "CHECKPOINT_SAVEPOINT_ROOT: an unknown job, no directory: still 404" 404 \
    "{\"errors\":[\"Job $TU not found\"]}"
http POST /jobs/$J/savepoints "$CLI_SP"
check "CHECKPOINT_SAVEPOINT_ROOT: a directory not under it: 400" 400 \
    "$(refused target-directory "it does not lie under its root, the job's savepoint directory or else CHECKPOINT_SAVEPOINT_ROOT")"
sql "DELETE FROM savepoints" >/dev/null
stop_server
unset CHECKPOINT_SAVEPOINT_ROOT
start_server 2>>"$T/server-stderr.log"
sql "UPDATE jobs SET savepoint_dir = 'file:/sp' WHERE job_id = '$J'" >/dev/null
# dir_refused FIELD DIR WHY: both POSTs, with the field's name.
dir_refused() {
	http POST /jobs/$J/savepoints "{\"target-directory\":$2}"
	check "savepoint, target-directory $2: 400" 400 "$(refused target-directory "$3")"
	http POST /jobs/$J/stop "{\"targetDirectory\":$2}"
	check "stop, targetDirectory $2: 400" 400 "$(refused targetDirectory "$3")"
}
UNDER="it does not lie under its root, the job's savepoint directory or else CHECKPOINT_SAVEPOINT_ROOT"
CHARS="it holds a character other than letters, digits and - . _ ~ / : @ % + = ,"
dir_refused - '"file:/etc"' "$UNDER"
dir_refused - '"file:/spx"' "$UNDER"
dir_refused - '"s3://b/sp"' "$UNDER"
dir_refused - '"file:/sp/../etc"' "it holds a . or .. segment"
dir_refused - '"file:/sp/./a"' "it holds a . or .. segment"
dir_refused - '"file:/sp//a"' "it holds an empty segment (//)"
dir_refused - '"file:sp"' "it is not an absolute path"
dir_refused - '""' "it is empty"
dir_refused - '"file:/sp/a\nb"' "it holds a control character"
dir_refused - '"file:/sp/a --checkpoint-action=exec=sh"' "$CHARS"
LONG_DIR="file:/sp/$(printf '%04096d' 0)"
dir_refused - "\"$LONG_DIR\"" "it is longer than 4096 bytes"
is "$(sql "SELECT count(*) FROM savepoints")" 0 "the refused directories recorded nothing"
http POST /jobs/$J/savepoints '{"target-directory":"file:///sp/a/"}'
check_like "a directory under the job's, another spelling of file:: 202" 202 "$ID_RE"

http POST /jobs/$J/savepoints "$CLI_SP"
check_like "savepoint, the flink CLI's body" 202 "$ID_RE"
S1=$(trigger_of)
is "$(row $J $S1)" "SAVEPOINT file:/sp CANONICAL 0 0 IN_PROGRESS" "savepoint: recorded as asked"
is "$(sql "SELECT remote_addr FROM savepoints WHERE trigger_id='$S1'")" 127.0.0.1 \
    "savepoint: REMOTE_ADDR recorded"
http GET /jobs/$J/savepoints/$S1
check "savepoint status right after 202" 200 "$IN_PROGRESS"
http GET /v1/jobs/$J/savepoints/$S1/
check "savepoint status under /v1, trailing slash" 200 "$IN_PROGRESS"

sql "UPDATE jobs SET savepoint_dir = 'file:/job-dir' WHERE job_id = '$J';
    INSERT INTO jobs (job_id, savepoint_dir, created_ms, updated_ms)
    VALUES ('$JB', 's3://b/savepoints', 0, 0)" >/dev/null
http POST /jobs/$JB/stop '{"drain":true,"formatType":"NATIVE"}'
check_like "stop, the job's directory" 202 "$ID_RE"
S2=$(trigger_of)
is "$(row $JB $S2)" "STOP s3://b/savepoints NATIVE 0 1 IN_PROGRESS" "stop: the job's directory, drain, NATIVE"
http POST /v1/jobs/$JB/savepoints '{"cancel-job":true,"target-directory":null}'
check_like "savepoint, cancel-job, directory null: the job's" 202 "$ID_RE"
is "$(row $JB "$(trigger_of)")" "SAVEPOINT s3://b/savepoints CANONICAL 1 0 IN_PROGRESS" \
    "savepoint: cancel-job recorded"

# --- idempotency: one store per (job, triggerId), savepoints and stops -------

TS=5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a
http POST /jobs/$JB/savepoints "{\"triggerId\":\"$TS\",\"target-directory\":\"s3://b/savepoints/a\"}"
check "savepoint with a triggerId" 202 "$(request_id $TS)"
http POST /jobs/$JB/stop "{\"triggerId\":\"$TS\",\"targetDirectory\":\"s3://b/savepoints/b\"}"
check "stop, the same triggerId: the same id" 202 "$(request_id $TS)"
is "$(row $JB $TS)" "SAVEPOINT s3://b/savepoints/a CANONICAL 0 0 IN_PROGRESS" \
    "the repeated triggerId started nothing (Flink's one cache of both)"
NOW=$(now_ms)
sql "UPDATE savepoints SET status='COMPLETED', checkpoint_id=7,
    location='file:/a/savepoint-5a5a5a-000000000007', completed_ms=$NOW
    WHERE trigger_id='$TS'" >/dev/null
http GET /jobs/$JB/savepoints/$TS
check "completed savepoint: its location" 200 \
    '{"status":{"id":"COMPLETED"},"operation":{"location":"file:/a/savepoint-5a5a5a-000000000007"}}'
http POST /jobs/$JB/savepoints "{\"triggerId\":\"$TS\"}"
check "after completion, the same triggerId again" 202 "$(request_id $TS)"
http GET /jobs/$JB/savepoints/$TS
check "after completion, the repeat started nothing" 200 \
    '{"status":{"id":"COMPLETED"},"operation":{"location":"file:/a/savepoint-5a5a5a-000000000007"}}'
http GET /jobs/$JB/checkpoints/$TS
check "a savepoint's triggerId is no checkpoint trigger's" 404 "$(no_trigger $TS $JB)"
http POST /jobs/$JB/checkpoints "{\"triggerId\":\"$TS\"}"
check "a checkpoint may reuse a savepoint's triggerId" 202 "$(request_id $TS)"
http GET /jobs/$JB/checkpoints/$TS
check "... and is a trigger of its own" 200 "$IN_PROGRESS"
http GET /jobs/$J/savepoints/$TS
check "another job's savepoint id: 404" 404 "$(no_savepoint $TS $J)"

TF=6b6b6b6b6b6b6b6b6b6b6b6b6b6b6b6b
http POST /jobs/$JB/stop "{\"triggerId\":\"$TF\"}"
check "stop with a triggerId" 202 "$(request_id $TF)"
sql "UPDATE savepoints SET status='COMPLETED',
    failure_class='org.apache.flink.util.SerializedThrowable',
    failure_trace='java.lang.IllegalStateException: boom',
    failure_throwable='$THROWABLE_HEAD', completed_ms=$NOW
    WHERE trigger_id='$TF'" >/dev/null
http GET /jobs/$JB/savepoints/$TF
check "failed stop: failure-cause, hyphenated" 200 \
    "{\"status\":{\"id\":\"COMPLETED\"},\"operation\":{\"failure-cause\":{\"class\":\"org.apache.flink.util.SerializedThrowable\",\"stack-trace\":\"java.lang.IllegalStateException: boom\",\"serialized-throwable\":\"$THROWABLE_HEAD\"}}}"

# --- bad requests ------------------------------------------------------------

bad() {
	http POST "$2" "$3"
	check "$1" 400 "{\"errors\":[\"Request did not match expected format $4.\"]}"
}
bad "savepoint, formatType in lower case" /jobs/$J/savepoints '{"formatType":"native"}' SavepointTriggerRequestBody
bad "savepoint, cancel-job a string" /jobs/$J/savepoints '{"cancel-job":"yes"}' SavepointTriggerRequestBody
bad "savepoint, target-directory a number" /jobs/$J/savepoints '{"target-directory":5}' SavepointTriggerRequestBody
bad "savepoint, short triggerId" /jobs/$J/savepoints '{"triggerId":"abc"}' SavepointTriggerRequestBody
bad "savepoint, not an object" /jobs/$J/savepoints '[]' SavepointTriggerRequestBody
bad "stop, drain a number" /jobs/$J/stop '{"drain":1}' StopWithSavepointRequestBody
bad "stop, malformed JSON" /jobs/$J/stop '{"drain":' StopWithSavepointRequestBody
bad "disposal, path a number" /savepoint-disposal '{"savepoint-path":1}' SavepointDisposalRequest
http POST /jobs/$J/savepoints '{"targetDirectory":"file:/x"}'
check "savepoint ignores stop's camelCase field" 202 "$(request_id "$(trigger_of)")"
is "$(row $J "$(trigger_of)")" "SAVEPOINT file:/job-dir CANONICAL 0 0 IN_PROGRESS" \
    "... and takes the job's directory"
http POST /jobs/$JBAD/savepoints/ '{"target-directory":null}'
check "an unknown job, no directory: 404" 404 "{\"errors\":[\"Job $JBAD not found\"]}"
sql "INSERT INTO jobs (job_id, savepoint_dir, created_ms, updated_ms)
    VALUES ('$JBAD', 'file:/', 0, 0)" >/dev/null
http POST /jobs/$JBAD/savepoints/ "$CLI_SP"
is "$STATUS" 202 "an id of 32 hex digits is a job id"
http POST /jobs/xyz/stop '{"targetDirectory":"file:/x"}'
check "stop, bad jobid" 400 "$(bad_param jobid xyz)"
http GET /jobs/$J/savepoints/xyz
check "savepoint status, bad triggerid" 400 "$(bad_param triggerid xyz)"
http GET /jobs/$J/savepoints/$TU
check "unknown savepoint: Flink's 404" 404 "$(no_savepoint $TU $J)"

method() {
	http "$2" "$3"
	check_like "$1" 405 "$ERRORS_RE"
	is "$(header allow)" "$4" "$1: Allow: $4"
}
method "GET on stop" GET /jobs/$J/stop POST
method "DELETE on a savepoint status" DELETE /jobs/$J/savepoints/$TS GET
method "GET on savepoint-disposal" GET /savepoint-disposal POST
method "POST on a disposal status" POST /savepoint-disposal/$TS GET

HTTP_HEADER="Origin: http://elsewhere.example"
http POST /jobs/$J/savepoints "$CLI_SP"
is "$STATUS" 403 "cross-site: a savepoint from another site's page is refused"
http POST /savepoint-disposal '{"savepoint-path":"file:/x"}'
is "$STATUS" 403 "cross-site: a disposal from another site's page is refused"
unset HTTP_HEADER

# --- disposal: one per path, retried after a failure -----------------------

http POST /savepoint-disposal "{\"savepoint-path\":\"file:/$(printf '%04096d' 0)\"}"
check "disposal, a path over 4096 bytes: 400" 400 \
    "$(refused savepoint-path "it is longer than 4096 bytes")"
http POST /savepoint-disposal '{"savepoint-path":"file:/a b"}'
check "disposal, a path with a space: 400" 400 "$(refused savepoint-path "$CHARS")"
http POST /savepoint-disposal '{"savepoint-path":""}'
check "disposal, an empty path: 400" 400 "$(refused savepoint-path "it is empty")"
is "$(sql "SELECT count(*) FROM savepoint_disposals")" 0 "the refused paths recorded nothing"
# Longer than a btree entry may be on PostgreSQL, and hardly compressible.
LONG_PATH="file:/$(head -c 3000 /dev/urandom | od -An -tx1 | tr -d ' \n' | head -c 4090)"
http POST /savepoint-disposal "{\"savepoint-path\":\"$LONG_PATH\"}"
check_like "disposal, a path of 4096 bytes: 200" 200 "$ID_RE"
DL=$(trigger_of)
http POST /savepoint-disposal "{\"savepoint-path\":\"$LONG_PATH\"}"
check "  the same long path again: the same id" 200 "$(request_id $DL)"
LONG_DIR="s3://b/savepoints/$(head -c 3000 /dev/urandom | od -An -tx1 | tr -d ' \n' | head -c 4000)"
http POST /jobs/$JB/savepoints "{\"target-directory\":\"$LONG_DIR\"}"
check_like "savepoint, a long directory under the job's: 202" 202 "$ID_RE"

http POST /savepoint-disposal
check "disposal, empty body" 400 "$NO_PATH"
http POST /savepoint-disposal '{"savepoint-path":null}'
check "disposal, null path" 400 "$NO_PATH"
P=file:/a/savepoint-5a5a5a-000000000007
http POST /v1/savepoint-disposal "{\"savepoint-path\":\"$P\"}"
check_like "disposal: 200, as Flink's" 200 "$ID_RE"
D1=$(trigger_of)
http GET /savepoint-disposal/$D1
check "disposal status right after" 200 "$IN_PROGRESS"
http POST /savepoint-disposal "{\"savepoint-path\":\"$P\"}"
check "the same path again: the same id" 200 "$(request_id $D1)"
is "$(sql "SELECT attempts || ' ' || status FROM savepoint_disposals WHERE savepoint_path='$P'")" \
    "1 IN_PROGRESS" "the same path again started nothing"
sql "UPDATE savepoint_disposals SET status='COMPLETED', completed_ms=$NOW,
    failure_class='org.apache.flink.util.SerializedThrowable',
    failure_trace='java.util.concurrent.CompletionException: no',
    failure_throwable='$THROWABLE_HEAD' WHERE trigger_id='$D1'" >/dev/null
http GET /savepoint-disposal/$D1
check "failed disposal: its cause" 200 \
    "{\"status\":{\"id\":\"COMPLETED\"},\"operation\":{\"failure-cause\":{\"class\":\"org.apache.flink.util.SerializedThrowable\",\"stack-trace\":\"java.util.concurrent.CompletionException: no\",\"serialized-throwable\":\"$THROWABLE_HEAD\"}}}"
http POST /savepoint-disposal "{\"savepoint-path\":\"$P\"}"
check "a failed disposal is retried under its id" 200 "$(request_id $D1)"
is "$(sql "SELECT attempts || ' ' || status FROM savepoint_disposals WHERE savepoint_path='$P'")" \
    "2 IN_PROGRESS" "the retry started it again"
sql "UPDATE savepoint_disposals SET status='COMPLETED', completed_ms=$NOW
    WHERE trigger_id='$D1'" >/dev/null
http GET /savepoint-disposal/$D1
check "disposed" 200 '{"status":{"id":"COMPLETED"},"operation":{}}'
http POST /savepoint-disposal "{\"savepoint-path\":\"$P\"}"
check "a disposed path again: the same id" 200 "$(request_id $D1)"
http GET /savepoint-disposal/$D1
check "... and still disposed" 200 '{"status":{"id":"COMPLETED"},"operation":{}}'
# Its key's hash as Flink's: 31 plus the xor of the id's 32-bit words
# (abcdef01 ^ 23456789 ^ abcdef01 ^ 23456789 = 0).
http GET /savepoint-disposal/$TU
check "unknown disposal: Flink's 404" 404 \
    "{\"errors\":[\"Operation not found under key: org.apache.flink.runtime.rest.handler.async.OperationKey@1f\"]}"

# --- the database unavailable: 503, as for checkpoints -----------------------

if [ "$STORE" = sqlite ]; then
	stop_server
	DB=$T/missing/checkpoints.db
	export CHECKPOINT_DB=$DB
	start_server 2>>"$T/server-stderr.log"
	http POST /jobs/$J/savepoints "$CLI_SP"
	check "database missing: savepoint 503" 503 "$NO_DATABASE"
	http GET /savepoint-disposal/$D1
	check "database missing: disposal status 503" 503 "$NO_DATABASE"
fi

stop_server
done_testing
