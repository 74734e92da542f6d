#!/bin/sh
# Flink's own released client code against the service, through every
# shipped configuration that serves at the root (lighttpd as scripts/run
# starts it, nginx, nginx keeping its connections, Apache with mod_fcgid,
# Apache running plain CGI), with checkpoint-runner --watch completing the
# triggers.  tests/flink/pom.xml resolves flink-clients from Maven Central
# (FLINK_VERSION picks another release, FLINK_PROFILE=flink2 Flink 2,
# FLINK_SERVERS fewer servers; a Flink that cannot be resolved
# fails the test) and builds tests/flink, which calls RestClusterClient,
# unmodified: triggerCheckpoint of each type returns the id the runner
# gave, recorded with the type asked for; a declined, an expired and an
# unknown job's trigger raise the exception Flink's client raises, class
# and message at each level of the chain as FAILURE CAUSES in
# checkpoint-api(7) says; listJobs gives
# the registered jobs.  Then the flink command itself (CliFrontend, a
# process of its own, FLINK_CONF_DIR written here): flink checkpoint,
# flink checkpoint -full, flink list and a failing flink checkpoint, every
# line of their output exact.  Flink's client sends {} with every GET:
# each server must pass it, and the app answer as without it.  Last, a
# real JobManager (a MiniCluster running a streaming job) answers the
# same requests and the same flink commands as the service, behind
# lighttpd and nginx: any difference checkpoint-api(7) does not list,
# down to a cause of a failure or a line of the command's output, fails.
#
# Jobs' commands are in single quotes on purpose: their $VARS are for the
# action's shell.
# shellcheck disable=SC2016

. "$(dirname "$0")/lib.sh"

for c in mvn java sqlite3 curl lighttpd apache2 nginx spawn-fcgi; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing"
done
if [ "$(id -u)" -eq 0 ]; then
	command -v setpriv >/dev/null 2>&1 || bail "setpriv (util-linux) is missing"
fi
unset CHECKPOINT_STORE_DURATION CHECKPOINT_MAX_BODY CHECKPOINT_CORS_ORIGIN \
    CHECKPOINT_REJECT_UNKNOWN_JOBS CHECKPOINT_BUSY_TIMEOUT CHECKPOINT_SYNC

OKJOB=a1b2c3d4e5f60718293a4b5c6d7e8f90
DECLINES=feed0000000000000000000000000002
EXPIRES=feed0000000000000000000000000003
UNKNOWN=feed0000000000000000000000000009
SER=org.apache.flink.util.SerializedThrowable
CKPT=org.apache.flink.runtime.checkpoint.CheckpointException
CE=java.util.concurrent.CompletionException
NOTFOUND=org.apache.flink.runtime.messages.FlinkJobNotFoundException

# --- the Java side, built once --------------------------------------------------

. "$top_srcdir/tests/flink-lib.sh"

# rows JOB: what the service recorded of the job's triggers, in order.
rows() {
	sql "SELECT requested_type || ' ' || status || ' ' ||
	    coalesce(CAST(checkpoint_id AS TEXT), '-') || ' ' ||
	    coalesce(failure_class, '-') FROM triggers WHERE job_id = '$1'
	    ORDER BY id"
}

# last_id JOB: the job's newest checkpoint id.
last_id() {
	sql "SELECT max(checkpoint_id) FROM triggers WHERE job_id = '$1'"
}

# started JOB: the job's start time as flink list prints it (its
# registration, in this machine's time zone, as the JVM's).
started() {
	date -d "@$(($(sql "SELECT created_ms FROM jobs
	    WHERE job_id = '$1'") / 1000))" '+%d.%m.%Y %H:%M:%S'
}

# get_with_body PATH: the answer to a GET as Flink's client sends it, with
# a {} body, and to the same GET without one: "status body" each.
get_with_body() {
	curl -s -o "$T/with.body" -w '%{http_code}' -X GET \
	    -H 'Content-Type: application/json; charset=UTF-8' --data '{}' \
	    "$BASE$1" > "$T/with.code"
	curl -s -o "$T/without.body" -w '%{http_code}' "$BASE$1" \
	    > "$T/without.code"
	WITH="$(cat "$T/with.code") $(cat "$T/with.body")"
	WITHOUT="$(cat "$T/without.code") $(cat "$T/without.body")"
}

# got CALL: what FlinkClientChecks printed for CALL on this server.
got() {
	sed -n "s/^$1 //p" "$T/client-$S.out"
}

# The runner runs as the app's user, who must reach the databases here.
share_dir "$T"

for SERVER in ${FLINK_SERVERS:-lighttpd nginx nginx-keepalive apache cgi}; do
	S=$SERVER
	DB=$T/$S.db
	export CHECKPOINT_DB=$DB
	"$CTL" init > /dev/null || bail "checkpointctl init $DB"
	"$CTL" job add $OKJOB --name demo --type FULL \
	    --command 'echo "file:/checkpoints/chk-$CHECKPOINT_ID"' ||
	    bail "job add"
	"$CTL" job add $DECLINES --name declines \
	    --command 'echo "disk full" >&2; exit 3' || bail "job add"
	"$CTL" job add $EXPIRES --name expires --timeout 1 \
	    --command 'sleep 30' || bail "job add"
	if [ "$(id -u)" -eq 0 ]; then
		chown "$RUN_USER:$RUN_GROUP" "$DB" || bail "chown $DB"
	fi
	start_server
	# As the app's user: a runner as root that opened the database
	# first would make its -wal root's, which the app may not write.
	spawn as_run_user "$RUNNER" --watch 2>>"$T/runner-$S.log"
	WATCHER=$LAST_PID

	get_with_body /jobs
	is "$WITHOUT" "200 {\"jobs\":[{\"id\":\"$OKJOB\",\"status\":\"RUNNING\"},{\"id\":\"$DECLINES\",\"status\":\"RUNNING\"},{\"id\":\"$EXPIRES\",\"status\":\"RUNNING\"}]}" "$S: GET /jobs answers"
	is "$WITH" "$WITHOUT" "$S: a GET with a {} body, as Flink's client sends it, answers the same"

	# Flink's RestClusterClient: one JVM for every call.
	java -cp "$CP" FlinkClientChecks "$PORT" \
	    trigger:$OKJOB:CONFIGURED trigger:$OKJOB:FULL \
	    trigger:$OKJOB:INCREMENTAL trigger:$DECLINES:CONFIGURED \
	    trigger:$EXPIRES:FULL trigger:$UNKNOWN:CONFIGURED \
	    status:$OKJOB status:$UNKNOWN list \
	    > "$T/client-$S.out" 2> "$T/client-$S.err"
	ok $? "$S: RestClusterClient made every call"
	grep -v '^SLF4J: ' "$T/client-$S.err" | sed 's/^/# /'
	is "$(rows $OKJOB)" "$(lines 'CONFIGURED COMPLETED 1 -' \
	    'FULL COMPLETED 2 -' 'INCREMENTAL COMPLETED 3 -')" \
	    "$S: the service recorded each type the client asked for, and gave ids 1, 2, 3"
	for t in CONFIGURED:1 FULL:2 INCREMENTAL:3; do
		is "$(got "trigger:$OKJOB:${t%:*}")" "ok ${t#*:}" \
		    "$S: triggerCheckpoint(${t%:*}) returns checkpoint ${t#*:}"
	done
	is "$(got "trigger:$DECLINES:CONFIGURED")" \
	    "failed $SER $CKPT: $CKPT: Checkpoint was declined. disk full" \
	    "$S: a declined checkpoint: Flink's CheckpointException and its message"
	is "$(got "trigger:$EXPIRES:FULL")" \
	    "failed $SER $CKPT: $CKPT: Checkpoint expired before completing." \
	    "$S: an expired checkpoint: CheckpointException, expired"
	is "$(got "trigger:$UNKNOWN:CONFIGURED")" \
	    "failed $SER $CE: $CE: $NOTFOUND: Could not find Flink job ($UNKNOWN) <- $NOTFOUND: $NOTFOUND: Could not find Flink job ($UNKNOWN)" \
	    "$S: an unknown job: FlinkJobNotFoundException inside a CompletionException, and as its cause"
	is "$(got "status:$OKJOB")" "ok RUNNING" \
	    "$S: getJobStatus: the job's registered state"
	like "$(got "status:$UNKNOWN")" \
	    "^failed .*RestClientException: \\[Job $UNKNOWN not found\\]" \
	    "$S: getJobStatus of an unknown job: Flink's client fails with the 404's message"
	is "$(rows $DECLINES; rows $EXPIRES)" "$(lines \
	    "CONFIGURED COMPLETED 1 $CKPT" "FULL COMPLETED 1 $CKPT")" \
	    "$S: the service recorded both failures"
	is "$(sed -n '/^list /,$p' "$T/client-$S.out")" "$(lines 'list 3' \
	    "job $OKJOB RUNNING demo $(sql "SELECT created_ms FROM jobs WHERE job_id = '$OKJOB'")" \
	    "job $DECLINES RUNNING declines $(sql "SELECT created_ms FROM jobs WHERE job_id = '$DECLINES'")" \
	    "job $EXPIRES RUNNING expires $(sql "SELECT created_ms FROM jobs WHERE job_id = '$EXPIRES'")")" \
	    "$S: listJobs: the three jobs, their names, states and start times"

	# The flink command line, a process of its own each time.
	flink checkpoint -m "127.0.0.1:$PORT" $OKJOB
	is "$RC $ERR" "0 " "$S: flink checkpoint: exit status 0, nothing on stderr"
	is "$OUT" "$(lines "Triggering checkpoint for job $OKJOB." \
	    'Waiting for response...' \
	    "Checkpoint $(last_id $OKJOB) for job $OKJOB completed." \
	    'You can resume your program from this checkpoint with the run command.')" \
	    "$S: flink checkpoint: its output, the id the runner gave"
	is "$(last_id $OKJOB)" 4 "$S: flink checkpoint: checkpoint 4"
	flink checkpoint -full -m "127.0.0.1:$PORT" $OKJOB
	is "$RC $ERR" "0 " "$S: flink checkpoint -full: exit status 0, nothing on stderr"
	is "$OUT" "$(lines "Triggering checkpoint for job $OKJOB." \
	    'Waiting for response...' \
	    "Checkpoint(FULL) 5 for job $OKJOB completed." \
	    'You can resume your program from this checkpoint with the run command.')" \
	    "$S: flink checkpoint -full: its output, checkpoint 5"
	is "$(rows $OKJOB | tail -n 2)" "$(lines 'CONFIGURED COMPLETED 4 -' \
	    'FULL COMPLETED 5 -')" \
	    "$S: flink checkpoint asked for CONFIGURED, -full for FULL"
	flink checkpoint -m "127.0.0.1:$PORT" $EXPIRES
	is "$RC" 1 "$S: flink checkpoint of a job whose checkpoint expires: exit status 1"
	is "$OUT" "$(lines "Triggering checkpoint for job $EXPIRES." \
	    'Waiting for response...')" "$S: flink checkpoint, expired: stdout"
	like "$ERR" "^
-+
 The program finished with the following exception:

org\.apache\.flink\.util\.FlinkException: Failed to trigger a checkpoint for the job $EXPIRES\.
" "$S: flink checkpoint, expired: Flink's report on stderr"
	printf '%s\n' "$ERR" | grep -qx "Caused by: $CKPT: $CKPT: Checkpoint expired before completing."
	ok $? "$S: flink checkpoint, expired: caused by CheckpointException: Checkpoint expired before completing. (the class twice, as Flink's SerializedThrowable shows it)"
	flink list -m "127.0.0.1:$PORT"
	is "$RC $ERR" "0 " "$S: flink list: exit status 0, nothing on stderr"
	is "$OUT" "$(lines 'Waiting for response...' \
	    '------------------ Running/Restarting Jobs -------------------' \
	    "$(started $OKJOB) : $OKJOB : demo (RUNNING)" \
	    "$(started $DECLINES) : $DECLINES : declines (RUNNING)" \
	    "$(started $EXPIRES) : $EXPIRES : expires (RUNNING)" \
	    '--------------------------------------------------------------' \
	    'No scheduled jobs.')" "$S: flink list: the three running jobs"

	TID=$(sql "SELECT trigger_id FROM triggers WHERE job_id = '$OKJOB'
	    ORDER BY id LIMIT 1")
	get_with_body "/v1/jobs/$OKJOB/checkpoints/$TID"
	is "$WITH" "$WITHOUT" "$S: a trigger's status, GET with a {} body: the same answer"
	like "$WITHOUT" '^200 \{"status":\{"id":"COMPLETED"\},"operation":\{"checkpointId":1\}\}$' \
	    "$S: ... checkpoint 1"

	term_wait "$WATCHER"
	is "$RC" 0 "$S: the runner stops on SIGTERM"
	stop_server
done

# --- a real JobManager as the reference ----------------------------------------
#
# FlinkReference starts a MiniCluster running an unbounded job with keyed
# state, checkpoints in $T, and asks it and the service (behind lighttpd,
# then nginx, the same job id and name registered, with savepoint, stop
# and disposal commands) the same requests, the savepoint family's and a
# stop last among them (a savepoint and a stop into a directory that
# cannot be made too: Flink's coordinator fails, and the service's
# commands; the chain's classes are compared at every level, the JSON's,
# the serialized-throwable's and the flink command's, as SchedulerBase's
# triggerSavepoint and stopWithSavepoint wrap the failure in a
# CompletionException), then those of a stopped job; it prints each
# difference, masked by its rules (numbers by kind, places by type,
# Flink's errors by their message; a failure's trace line by line, frames
# aside, and its serialized-throwable level by level, class and message,
# as Flink's clients read it, and each level's original on the service's
# side as a JDK writes it again).  It runs the flink command against both
# too (the failures of an unknown job's checkpoint, savepoint and stop, a
# disposal of a path where no savepoint is, a stopped job's checkpoint
# and savepoint; list, checkpoint, checkpoint -full, savepoint), every
# line of stdout and stderr compared, frames aside.  Every difference
# must be one that BEYOND FLINK in checkpoint-api(7) lists, and each
# listed one must still be there.  The tasks map's keys are the job's
# vertex ids.
REFJOB=0123456789abcdef0123456789abcdef
# FlinkReference's job that neither side knows.
UNKNOWN_REF=feed00000000000000000000000000ff
# FlinkReference's job writes to the sink API of both 1.20 and 2.x
# (sinkTo), so the comparison runs on both.
if [ ! -f "$B/classes/FlinkReference.class" ]; then
	bail "mvn did not build FlinkReference"
fi
# A savepoint or a stop that fails: the same classes at the levels the
# service has, CompletionException and CheckpointException; Flink's chain
# goes on into its file system's failure, the service's ends in the
# command's stderr.
IO_CLASSES='java.io.IOException, java.nio.file.FileAlreadyExistsException'
IO_CAUSES='Caused by: java.io.IOException, Caused by: java.nio.file.FileAlreadyExistsException'
CLI_HEAD=", ------------------------------------------------------------,  The program finished with the following exception:, , org.apache.flink.util.FlinkException: Failed to trigger a savepoint for the job $REFJOB."
# The differences BEYOND FLINK lists: INCREMENTAL accepted; a wrong
# method's 405; the constants of the configuration and details (storage,
# no tasks, never discarded); an unknown job's status a 404, not a 500;
# the disposal of the job's only, so newest, savepoint refused; a failed
# savepoint's or stop's chain ends in the command's words, and is no
# latest.failed of the statistics (a checkpoint's is); Flink 2's
# job lists against 1.20 (GET /jobs/overview).  Error texts without
# Java's trace are the rule.
LISTED=$(lines \
    'trigger INCREMENTAL: status 500 | 202' \
    'trigger INCREMENTAL: (top): keys [errors] | [request-id]' \
    'DELETE of the trigger path: status 404 | 405' \
    "DELETE of the trigger path: .errors[0]: \"Not found: /jobs/$REFJOB/checkpoints\" | \"Method DELETE is not allowed here; see the Allow header.\"" \
    'status of a completed disposal: .operation: keys [] | [failure-cause]' \
    'configuration: .checkpoint_storage: "FileSystemCheckpointStorage" | "JobManagerCheckpointStorage"' \
    'details: .tasks: keys [<vertex>, <vertex>] | []' \
    'details: .discarded: true | false' \
    'status of an unknown job: status 500 | 404' \
    "status of an unknown job: .errors[0]: \"Internal server error.\" | \"Job $UNKNOWN_REF not found\""
[ "${FLINK_PROFILE:-}" = flink2 ] ||
    echo 'job overview: .jobs[0]: keys [jid, name, start-time, end-time, duration, state, last-modification, tasks] | [jid, name, jobType, schedulerType, start-time, end-time, duration, state, last-modification, tasks, pending-operators]'
lines \
    "status of a savepoint that failed: .operation.failure-cause.stack-trace: classes [$CE, Caused by: $CKPT, $IO_CAUSES] | [$CE, Caused by: $CKPT]" \
    "status of a savepoint that failed: .operation.failure-cause.serialized-throwable: classes [$CE, $CKPT, $IO_CLASSES] | [$CE, $CKPT]" \
    "status of a stop that failed: .operation.failure-cause.stack-trace: classes [$CE, Caused by: $CKPT, $IO_CAUSES] | [$CE, Caused by: $CKPT]" \
    "status of a stop that failed: .operation.failure-cause.serialized-throwable: classes [$CE, $CKPT, $IO_CLASSES] | [$CE, $CKPT]" \
    "cli savepoint that failed: stderr [$CLI_HEAD, Caused by: $CE, Caused by: $CKPT, $IO_CAUSES] | [$CLI_HEAD, Caused by: $CE, Caused by: $CKPT]" \
    'statistics after a failed savepoint and stop: .latest.failed: object | null')
# The savepoint and stop commands fail, as Flink's coordinator does, for a
# directory under a file named "blocked" (FlinkReference's failedFamily).
BLOCKED='case $CHECKPOINT_SAVEPOINT_DIR in */blocked/*) echo "Failed to create savepoint directory at $CHECKPOINT_SAVEPOINT_DIR" >&2; exit 1;; esac; '
# What Flink's ExceptionUtils finds of FlinkJobNotFoundException,
# CheckpointException, FlinkException and CompletionException in each
# failure's serialized-throwable, findThrowable/findThrowableSerializedAware,
# is the same on both sides: the first finds none (every level is a
# SerializedThrowable), the second the real classes, the JobManager's and
# the service's, through each level's serializedException (checkpoint-api(7),
# FAILURE CAUSES).  FlinkReference prints a line for each failure where
# they differ, "never" where the second would loop for ever, and then
# the service's answers, "found" lines, which must be these.
JM_NOTFOUND='[FlinkJobNotFoundException false/true, CheckpointException false/false, FlinkException false/true, CompletionException false/true]'
JM_DISPOSE='[FlinkJobNotFoundException false/false, CheckpointException false/false, FlinkException false/true, CompletionException false/false]'
JM_CKPT='[FlinkJobNotFoundException false/false, CheckpointException false/true, FlinkException false/false, CompletionException false/true]'
ST=serialized-throwable
FOUND=$(lines \
    "found status of an unknown job's trigger: .operation.failureCause.$ST: $JM_NOTFOUND" \
    "found status of an unknown job's savepoint: .operation.failure-cause.$ST: $JM_NOTFOUND" \
    "found status of the disposal of a path where no savepoint is: .operation.failure-cause.$ST: $JM_DISPOSE" \
    "found status of an unknown job's stop: .operation.failure-cause.$ST: $JM_NOTFOUND" \
    "found status of a savepoint that failed: .operation.failure-cause.$ST: $JM_CKPT" \
    "found status of a stop that failed: .operation.failure-cause.$ST: $JM_CKPT" \
    "found status of a stopped job's trigger: .operation.failureCause.$ST: $JM_NOTFOUND" \
    "found status of a stopped job's savepoint: .operation.failure-cause.$ST: $JM_NOTFOUND")
# Behind lighttpd and nginx (FLINK_REFERENCE_SERVERS fewer), each with a
# database, a MiniCluster and a job of its own: a stop ends the job.
for SERVER in ${FLINK_REFERENCE_SERVERS:-lighttpd nginx}; do
	S=$SERVER
	DB=$T/reference-$S.db
	export CHECKPOINT_DB=$DB
	"$CTL" init > /dev/null || bail "checkpointctl init $DB"
	"$CTL" job add $REFJOB --name reference --type FULL \
	    --command 'echo "file:/checkpoints/chk-$CHECKPOINT_ID"' \
	    --savepoint-command "$BLOCKED"'echo "$CHECKPOINT_SAVEPOINT_DIR/savepoint-$CHECKPOINT_ID"' \
	    --stop-command "$BLOCKED"'echo "$CHECKPOINT_SAVEPOINT_DIR/stop-$CHECKPOINT_ID"' \
	    --dispose-command true ||
	    bail "job add"
	if [ "$(id -u)" -eq 0 ]; then
		chown "$RUN_USER:$RUN_GROUP" "$DB" || bail "chown $DB"
	fi
	MOUNT=
	# The job has no savepoint directory, as Flink has none configured:
	# the requests' directory lies under the service's root.
	CHECKPOINT_SAVEPOINT_ROOT=file://$T/flink-checkpoints-$S
	export CHECKPOINT_SAVEPOINT_ROOT
	start_server
	unset CHECKPOINT_SAVEPOINT_ROOT
	spawn as_run_user "$RUNNER" --watch \
	    2>>"$T/runner-reference-$S.log"
	WATCHER=$LAST_PID
	mkdir -p "$T/jvm-tmp-$S" "$T/flink-checkpoints-$S"
	FLINK_CONF_DIR=$T/flink-conf java -Djava.io.tmpdir="$T/jvm-tmp-$S" \
	    -cp "$CP" FlinkReference "$PORT" $REFJOB reference \
	    "$T/flink-checkpoints-$S" > "$T/reference-$S.out" \
	    2> "$T/reference-$S.err"
	ok $? "reference, $S: a MiniCluster ran the job, both sides answered every request and command"
	is "$(grep ': finds ' "$T/reference-$S.out")" "" \
	    "reference, $S: Flink's ExceptionUtils in each failure: findThrowable and findThrowableSerializedAware find the same on both sides"
	is "$(grep '^found ' "$T/reference-$S.out")" "$FOUND" \
	    "reference, $S: ... findThrowableSerializedAware finds the real classes in the service's failures"
	is "$(grep -v -e ': finds ' -e '^found ' "$T/reference-$S.out" |
	    sed -E -e '/^details: \.tasks: /s/[0-9a-f]{32}/<vertex>/g' \
	    -e "s|$T/|<T>/|g")" "$(lines "$LISTED" \
	    "statistics after a failed savepoint and stop: .history[0].failure_message: \"An Exception occurred while triggering the checkpoint. IO-problem detected.\" | \"Checkpoint was declined. Failed to create savepoint directory at file://<T>/flink-checkpoints-$S/savepoints/blocked/sp\"")" \
	    "reference, $S: the only differences from Flink $FV, every level of every failure and every line of the flink command included, are those BEYOND FLINK lists"
	term_wait "$WATCHER"
	stop_server
done

# lighttpd-prefix.conf, under /api, takes the body as lighttpd.conf does.
SERVER=lighttpd MOUNT=/api
start_server
get_with_body /jobs
is "$WITH" "$WITHOUT" "lighttpd under /api: a GET with a {} body answers the same"
like "$WITHOUT" '^200 \{"jobs":\[' "lighttpd under /api: ... GET /api/jobs"
stop_server

done_testing
