#!/bin/sh
# Flink's own command line against the service's savepoint family,
# behind lighttpd and nginx (FLINK_SERVERS), with checkpoint-runner
# --watch running the jobs' commands: flink savepoint with a directory
# and with the job's own, -type native, flink stop -p and --drain, flink
# cancel -s (cancel with a savepoint, deprecated in Flink but still in its
# 1.x command line), and flink savepoint -d (disposal), every line of
# their output exact, and what the service recorded of each.
#
# Jobs' commands are in single quotes on purpose: their $VARS are for
# the command's shell.
# shellcheck disable=SC2016

. "$(dirname "$0")/lib.sh"
for c in mvn java sqlite3 curl lighttpd nginx spawn-fcgi; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing"
done
unset CHECKPOINT_STORE_DURATION CHECKPOINT_MAX_BODY CHECKPOINT_CORS_ORIGIN \
    CHECKPOINT_REJECT_UNKNOWN_JOBS CHECKPOINT_BUSY_TIMEOUT CHECKPOINT_SYNC
. "$(dirname "$0")/flink-lib.sh"

A=5afe0000000000000000000000000001 # savepoints, then a stop
D=5afe0000000000000000000000000002 # drained
F=5afe0000000000000000000000000003 # its savepoint fails
C=5afe0000000000000000000000000004 # cancelled with a savepoint
CKPT=org.apache.flink.runtime.checkpoint.CheckpointException
CE=java.util.concurrent.CompletionException

# sp JOB: kind, status, id, format, location of its savepoints, oldest first.
sp() {
	sql "SELECT kind || ' ' || status || ' ' ||
	    coalesce(CAST(checkpoint_id AS TEXT), '-') || ' ' || format_type
	    || ' ' || coalesce(location, '-') FROM savepoints
	    WHERE job_id = '$1' ORDER BY id"
}
state() {
	sql "SELECT state FROM jobs WHERE job_id = '$1'"
}

for SERVER in ${FLINK_SERVERS:-lighttpd nginx}; do
	S=$SERVER
	DB=$T/$S.db
	export CHECKPOINT_DB=$DB
	"$CTL" init > /dev/null || bail "checkpointctl init $DB"
	"$CTL" job add $A --name a --savepoint-dir file:/sp \
	    --savepoint-command 'echo "$CHECKPOINT_SAVEPOINT_DIR/savepoint-$CHECKPOINT_ID-$CHECKPOINT_SAVEPOINT_FORMAT"' \
	    --stop-command 'echo "$CHECKPOINT_SAVEPOINT_DIR/stop-$CHECKPOINT_ID-$CHECKPOINT_DRAIN"' \
	    --dispose-command 'echo "$CHECKPOINT_SAVEPOINT_PATH" >> '"$T/disposed-$S" ||
	    bail "job add"
	"$CTL" job add $D --name d --savepoint-dir file:/sp \
	    --stop-command 'echo "$CHECKPOINT_SAVEPOINT_DIR/stop-$CHECKPOINT_ID-$CHECKPOINT_DRAIN"' ||
	    bail "job add"
	"$CTL" job add $C --name c --savepoint-dir file:/sp \
	    --savepoint-command 'echo "$CHECKPOINT_SAVEPOINT_DIR/cancel-$CHECKPOINT_ID-$CHECKPOINT_CANCEL_JOB"' ||
	    bail "job add"
	"$CTL" job add $F --name f --savepoint-dir file:/x \
	    --savepoint-command 'echo "no space left" >&2; exit 3' ||
	    bail "job add"
	if [ "$(id -u)" -eq 0 ]; then
		chown "$RUN_USER:$RUN_GROUP" "$DB" || bail "chown $DB"
	fi
	start_server
	spawn "$RUNNER" --watch 2>>"$T/runner-$S.log"
	WATCHER=$LAST_PID

	M="-m 127.0.0.1:$PORT"
	flink savepoint $M $A file:/sp/mine
	is "$RC $ERR" "0 " "$S: flink savepoint JOB DIR: exit status 0, nothing on stderr"
	is "$OUT" "$(lines "Triggering savepoint for job $A." \
	    'Waiting for response...' \
	    'Savepoint completed. Path: file:/sp/mine/savepoint-1-CANONICAL' \
	    'You can resume your program from this savepoint with the run command.')" \
	    "$S: flink savepoint JOB DIR: the location the command printed"
	flink savepoint $M -type native $A
	is "$RC $ERR" "0 " "$S: flink savepoint -type native: exit status 0"
	is "$OUT" "$(lines "Triggering savepoint for job $A." \
	    'Waiting for response...' \
	    'Savepoint completed. Path: file:/sp/savepoint-2-NATIVE' \
	    'You can resume your program from this savepoint with the run command.')" \
	    "$S: flink savepoint -type native: the job's directory, NATIVE"
	flink savepoint $M $F file:/x
	is "$RC" 1 "$S: flink savepoint, its command fails: exit status 1"
	is "$OUT" "$(lines "Triggering savepoint for job $F." \
	    'Waiting for response...')" "$S: flink savepoint, failed: stdout"
	like "$ERR" "^
-+
 The program finished with the following exception:

org\.apache\.flink\.util\.FlinkException: Failed to trigger a savepoint for the job $F\.
" "$S: flink savepoint, failed: Flink's report on stderr"
	printf '%s\n' "$ERR" | grep -v "$(printf '^\t')" |
	    grep -A1 -x "Caused by: $CE: $CE: $CKPT: Checkpoint was declined. no space left" |
	    tail -n 1 | grep -qx "Caused by: $CKPT: $CKPT: Checkpoint was declined. no space left"
	ok $? "$S: flink savepoint, failed: caused by the scheduler's CompletionException, caused by the CheckpointException with the command's stderr"
	flink savepoint $M -d file:/sp/mine/savepoint-1-CANONICAL
	is "$RC $ERR" "0 " "$S: flink savepoint -d: exit status 0"
	is "$OUT" "$(lines "Disposing savepoint 'file:/sp/mine/savepoint-1-CANONICAL'." \
	    'Waiting for response...' \
	    "Savepoint 'file:/sp/mine/savepoint-1-CANONICAL' disposed.")" \
	    "$S: flink savepoint -d: disposed"
	is "$(cat "$T/disposed-$S")" file:/sp/mine/savepoint-1-CANONICAL \
	    "$S: flink savepoint -d: the job's dispose command ran, given the path"
	flink savepoint $M -d file:/nowhere
	is "$RC" 1 "$S: flink savepoint -d of no savepoint: exit status 1"
	like "$ERR" "^
-+
 The program finished with the following exception:

org\.apache\.flink\.util\.FlinkException: Failed to dispose the savepoint 'file:/nowhere'\.
" "$S: flink savepoint -d of no savepoint: Flink's report"
	printf '%s\n' "$ERR" | grep -qx "Caused by: java.util.concurrent.ExecutionException: org.apache.flink.util.FlinkException: org.apache.flink.util.FlinkException: Could not dispose savepoint file:/nowhere."
	ok $? "$S: flink savepoint -d of no savepoint: Flink's cause, a FlinkException"
	printf '%s\n' "$ERR" | grep -qx "Caused by: java.io.FileNotFoundException: java.io.FileNotFoundException: Cannot find checkpoint or savepoint file/directory 'file:/nowhere' on file system 'file'."
	ok $? "$S: flink savepoint -d of no savepoint: ... caused by Flink's FileNotFoundException"
	flink stop $M -p file:/sp/stops $A
	is "$RC $ERR" "0 " "$S: flink stop -p: exit status 0"
	is "$OUT" "$(lines "Suspending job \"$A\" with a CANONICAL savepoint." \
	    "Triggering stop-with-savepoint for job $A." \
	    'Waiting for response...' \
	    'Savepoint completed. Path: file:/sp/stops/stop-3-false')" \
	    "$S: flink stop -p: suspended, its location"
	flink stop $M --drain $D
	is "$RC $ERR" "0 " "$S: flink stop --drain: exit status 0"
	is "$OUT" "$(lines "Draining job \"$D\" with a CANONICAL savepoint." \
	    "Triggering stop-with-savepoint for job $D." \
	    'Waiting for response...' \
	    'Savepoint completed. Path: file:/sp/stop-1-true')" \
	    "$S: flink stop --drain: drained, the job's directory"
	flink cancel $M -s file:/sp/cancels $C
	is "$RC $ERR" "0 " "$S: flink cancel -s: exit status 0"
	is "$OUT" "$(lines \
	    'DEPRECATION WARNING: Cancelling a job with savepoint is deprecated. Use "stop" instead.' \
	    "Cancelling job $C with CANONICAL savepoint to file:/sp/cancels." \
	    "Cancelled job $C. Savepoint stored in file:/sp/cancels/cancel-1-true.")" \
	    "$S: flink cancel -s: cancelled, the savepoint's location"
	is "$(sp $C) $(state $C)" \
	    "SAVEPOINT COMPLETED 1 CANONICAL file:/sp/cancels/cancel-1-true CANCELED" \
	    "$S: flink cancel -s: a savepoint with cancel-job, the job CANCELED"
	flink cancel $M -s file:/sp/again $C
	is "$RC" 1 "$S: flink cancel -s of a cancelled job: exit status 1"
	printf '%s\n' "$ERR" | grep -q "FlinkJobNotFoundException: Could not find Flink job ($C)"
	ok $? "$S: flink cancel -s of a cancelled job: Flink's FlinkJobNotFoundException"
	is "$(sp $A; sp $D; sp $F)" "$(lines \
	    'SAVEPOINT COMPLETED 1 CANONICAL file:/sp/mine/savepoint-1-CANONICAL' \
	    'SAVEPOINT COMPLETED 2 NATIVE file:/sp/savepoint-2-NATIVE' \
	    'STOP COMPLETED 3 CANONICAL file:/sp/stops/stop-3-false' \
	    'STOP COMPLETED 1 CANONICAL file:/sp/stop-1-true' \
	    'SAVEPOINT COMPLETED 1 CANONICAL -')" \
	    "$S: the service recorded each, ids from each job's sequence"
	is "$(state $A) $(state $D)" "FINISHED FINISHED" \
	    "$S: both stopped jobs are FINISHED"
	flink savepoint $M $A file:/sp/late
	is "$RC" 1 "$S: flink savepoint of a stopped job: exit status 1"
	printf '%s\n' "$ERR" | grep -q "FlinkJobNotFoundException: Could not find Flink job ($A)"
	ok $? "$S: flink savepoint of a stopped job: Flink's FlinkJobNotFoundException"

	term_wait "$WATCHER"
	is "$RC" 0 "$S: the runner stops on SIGTERM"
	stop_server
done
done_testing
