# Shared by t4050 (SQLite) and t6235 (PostgreSQL): checkpoint-runner's
# savepoints, stops and disposals, black-box.  Sourced after runner-lib.sh
# (and, for PostgreSQL, CHECKPOINT_DB and dbq set to its database).
# shellcheck disable=SC2016,SC2086

command -v jq >/dev/null 2>&1 || bail "jq is missing"
pass || bail "checkpoint-runner cannot open $DB"
start_lighttpd

# sp_status JOB TID: GET /jobs/JOB/savepoints/TID's body.
sp_status() {
	http GET "/jobs/$1/savepoints/$2"
	printf '%s' "$BODY"
}
location() {
	printf '{"status":{"id":"COMPLETED"},"operation":{"location":"%s"}}' "$1"
}
# sp_failed CLASS TRACE: how a savepoint's failed status body begins.
sp_failed() {
	printf '{"status":{"id":"COMPLETED"},"operation":{"failure-cause":{"class":"%s","stack-trace":"%s' "$1" "$2"
}
# sp JOB TID: status|checkpoint_id|location|failure_class of a savepoint.
sp() {
	dbq "SELECT status || '|' || coalesce(CAST(checkpoint_id AS TEXT), '-')
	    || '|' || coalesce(location, '-') || '|' || coalesce(failure_class, '-')
	    FROM savepoints WHERE job_id = '$1' AND trigger_id = '$2'"
}
job_state() {
	dbq "SELECT state FROM jobs WHERE job_id = '$1'"
}

J=$(jid 51)
"$CTL" job add "$J" --savepoint-dir file:/sp \
    --savepoint-command 'printf "%s\n" "$CHECKPOINT_JOB_ID" "$CHECKPOINT_ID" "$CHECKPOINT_TRIGGER_ID" "$CHECKPOINT_TYPE" "$CHECKPOINT_SAVEPOINT_DIR" "$CHECKPOINT_SAVEPOINT_FORMAT" "$CHECKPOINT_CANCEL_JOB" > '"$T"'/sp-env
echo "$CHECKPOINT_SAVEPOINT_DIR/savepoint-$CHECKPOINT_ID"' \
    --stop-command 'printf "%s\n" "$CHECKPOINT_TYPE" "$CHECKPOINT_DRAIN" "$CHECKPOINT_SAVEPOINT_FORMAT" > '"$T"'/stop-env
echo "$CHECKPOINT_SAVEPOINT_DIR/stopped-$CHECKPOINT_ID"' \
    --dispose-command 'echo "$CHECKPOINT_SAVEPOINT_PATH" >> '"$T"'/disposed' \
    --command 'echo "file:/chk/$CHECKPOINT_ID"' 2>>"$T/ctl.err"
ok $? "checkpointctl job add with the savepoint options"
is "$(dbq "SELECT savepoint_dir FROM jobs WHERE job_id = '$J'")" file:/sp \
    "job add: --savepoint-dir stored"

# --- a savepoint takes the job's next checkpoint id -------------------------
post "$J" "$(tid 5101)" && pass
is "$(col "$J" "$(tid 5101)" checkpoint_id)" 1 "a checkpoint first: id 1"
S1=$(tid 5102)
http POST /jobs/$J/savepoints "{\"triggerId\":\"$S1\",\"formatType\":\"NATIVE\"}"
is "$STATUS" 202 "savepoint: 202"
is "$(sp_status "$J" "$S1")" "$IN_PROGRESS" "savepoint: IN_PROGRESS before the pass"
pass
ok $? "savepoint: the pass exits 0"
is "$(cat "$T/sp-env")" "$(lines "$J" 2 "$S1" SAVEPOINT file:/sp NATIVE false)" \
    "savepoint command: job, id 2 (the job's sequence), trigger, type, directory, format, cancel-job"
is "$(sp_status "$J" "$S1")" "$(location file:/sp/savepoint-2)" \
    "savepoint: COMPLETED with the last line as its location"
post "$J" "$(tid 5103)" && pass
is "$(col "$J" "$(tid 5103)" checkpoint_id)" 3 "the next checkpoint: id 3, after the savepoint's"

# --- one history: savepoints in the job's statistics ---------------------------
# entry JSON: id, className, is_savepoint, savepointFormat, checkpoint_type.
entry() {
	printf '%s' "$1" | jq -r '[.id, .className, .is_savepoint,
	    .savepointFormat, .checkpoint_type] | map(tostring) | join(" ")'
}
http GET /jobs/$J/checkpoints
STATS=$BODY
is "$(entry "$(printf '%s' "$STATS" | jq -c .latest.savepoint)")" \
    "2 completed true NATIVE SAVEPOINT" "statistics: latest.savepoint is the savepoint"
is "$(entry "$(printf '%s' "$STATS" | jq -c .latest.completed)")" \
    "3 completed false null CHECKPOINT" "statistics: latest.completed is a checkpoint's"
is "$(printf '%s' "$STATS" | jq -r '[.history[] | .id] | map(tostring) | join(" ")')" \
    "3 2 1" "statistics: the history holds the savepoint among the checkpoints"
is "$(printf '%s' "$STATS" | jq -r '.latest.savepoint.external_path')" file:/sp/savepoint-2 \
    "statistics: latest.savepoint's external_path is its location"
http GET /jobs/$J/checkpoints/details/2
is "$(entry "$BODY")" "2 completed true NATIVE SAVEPOINT" "details of the savepoint's id"
# Flink counts every snapshot that took an id, savepoints included, in
# the counts, the summary and its gauges.
is "$(printf '%s' "$STATS" | jq -c .counts)" \
    '{"restored":0,"total":3,"in_progress":0,"completed":3,"failed":0}' \
    "statistics: the counts hold the savepoint"
is "$(printf '%s' "$STATS" | jq -r '[.summary.end_to_end_duration.max >=
    .latest.savepoint.end_to_end_duration, .summary.end_to_end_duration.min
    <= .latest.savepoint.end_to_end_duration] | map(tostring) | join(" ")')" \
    "true true" "statistics: the summary runs over the savepoint too"
http GET "/metrics?per-job=1"
is "$(printf '%s\n' "$BODY" | sed -n "s/^flink_jobmanager_job_\(numberOfCompletedCheckpoints\|totalNumberOfCheckpoints\){job_id=\"$J\",.*} /\1 /p" | paste -sd ' ')" \
    "numberOfCompletedCheckpoints 3 totalNumberOfCheckpoints 3" \
    "metrics: Flink's gauges count the savepoint as its statistics do"

# --- a failed savepoint -----------------------------------------------------
J2=$(jid 52)
"$CTL" job add "$J2" --savepoint-dir file:/x \
    --savepoint-command 'echo "no space left" >&2; exit 3'
S2=$(tid 5201)
http POST /jobs/$J2/savepoints "{\"triggerId\":\"$S2\",\"target-directory\":\"file:/x\"}"
pass
is "$(sp "$J2" "$S2" | cut -d'|' -f1,2,4)" "COMPLETED|1|$JOB_CLASS" \
    "failed savepoint: COMPLETED with its id and the scheduler's CompletionException"
begins "$(sp_status "$J2" "$S2")" \
    "$(sp_failed "$JOB_CLASS" "$JOB_CLASS: $DECLINED no space left\\nCaused by: $DECLINED no space left\\n\\tat savepoint action (it exited with status 3)\\n\"")" \
    "failed savepoint: CompletionException caused by CheckpointException, as SchedulerBase.triggerSavepoint wraps it, with the command's stderr"
is "$(job_state "$J2")" RUNNING "failed savepoint: the job still runs"
http GET /jobs/$J2/checkpoints
is "$(printf '%s' "$BODY" | jq -r '.history[0].failure_message')" \
    "Checkpoint was declined. no space left" \
    "failed savepoint: the statistics' failure_message is the CheckpointException's, the cause, as Flink's"
http GET /jobs/$J2/checkpoints
is "$(printf '%s' "$BODY" | jq -c .counts)" \
    '{"restored":0,"total":1,"in_progress":0,"completed":0,"failed":1}' \
    "failed savepoint: counted failed, as Flink counts it"

# --- unknown job: no directory of its own to lie under, so a 404 -----------
# (a job removed after the POST fails as Flink's, no id: after the stop below)
JX=$(jid 59)
SX=$(tid 5901)
http POST /jobs/$JX/savepoints "{\"triggerId\":\"$SX\",\"target-directory\":\"file:/x\"}"
is "$STATUS" 404 "unknown job, a directory named: 404, its root unknown"
is "$(sp "$JX" "$SX")" "" "unknown job: nothing recorded"

# --- stop with drain: FINISHED, nothing taken after --------------------------
S3=$(tid 5104)
http POST /jobs/$J/stop "{\"triggerId\":\"$S3\",\"drain\":true}"
is "$STATUS" 202 "stop: 202"
pass
is "$(cat "$T/stop-env")" "$(lines SYNC_SAVEPOINT true CANONICAL)" \
    "stop command: SYNC_SAVEPOINT, drain, format"
is "$(sp_status "$J" "$S3")" "$(location file:/sp/stopped-4)" "stop: its location, id 4"
is "$(job_state "$J")" FINISHED "stop: the job is FINISHED"
http GET /jobs/$J/checkpoints
is "$(entry "$(printf '%s' "$BODY" | jq -c .latest.savepoint)")" \
    "4 completed true CANONICAL SYNC_SAVEPOINT" "statistics: a stop is a SYNC_SAVEPOINT"
post "$J" "$(tid 5105)" && pass
begins "$(trace1 "$J" "$(tid 5105)")" "$JOB_TRACE" \
    "after the stop: a checkpoint fails as Flink's for a job not running"
S4=$(tid 5106)
http POST /jobs/$J/savepoints "{\"triggerId\":\"$S4\"}"
pass
is "$(sp "$J" "$S4")" "COMPLETED|-|-|$JOB_CLASS" "after the stop: a savepoint fails the same way"

# --- cancel-job: CANCELED -----------------------------------------------------
J3=$(jid 53)
"$CTL" job add "$J3" --savepoint-dir file:/c --savepoint-command 'echo "$CHECKPOINT_CANCEL_JOB:$CHECKPOINT_SAVEPOINT_DIR/sp"'
S5=$(tid 5301)
http POST /jobs/$J3/savepoints "{\"triggerId\":\"$S5\",\"cancel-job\":true}"
pass
is "$(sp_status "$J3" "$S5")" "$(location true:file:/c/sp)" "cancel-job: CHECKPOINT_CANCEL_JOB=true"
is "$(job_state "$J3")" CANCELED "cancel-job: the job is CANCELED"

# --- a job without a savepoint or stop command: fails, saying so ---------------
J4=$(jid 54)
"$CTL" job add "$J4" --savepoint-dir file:/r
S6=$(tid 5401)
http POST /jobs/$J4/savepoints "{\"triggerId\":\"$S6\",\"target-directory\":\"file:/r\"}"
S6S=$(tid 5402)
http POST /jobs/$J4/stop "{\"triggerId\":\"$S6S\"}"
pass
is "$(sp "$J4" "$S6")" "COMPLETED|-|-|$JOB_CLASS" \
    "no savepoint command: failed, no id, no location made up"
is "$(dbq "SELECT failure_trace FROM savepoints WHERE trigger_id = '$S6'")" \
    "$(lines "$JOB_CLASS: $DECLINED The job has no savepoint command, so nothing was taken (checkpointctl job set --savepoint-command, or --bookkeeping-only yes)." \
    "Caused by: $DECLINED The job has no savepoint command, so nothing was taken (checkpointctl job set --savepoint-command, or --bookkeeping-only yes).")" \
    "no savepoint command: the cause says so"
is "$(sp "$J4" "$S6S")" "COMPLETED|-|-|$JOB_CLASS" "no stop command: failed too, as SchedulerBase.stopWithSavepoint wraps it"
like "$(dbq "SELECT failure_trace FROM savepoints WHERE trigger_id = '$S6S'")" \
    'The job has no stop command, so nothing was taken' "no stop command: the cause says so"
is "$(job_state "$J4")" RUNNING "no stop command: the job is not marked FINISHED"

# --- a job its operator made bookkeeping only: nothing runs, and it says so ---
J8=$(jid 58)
BOOK="$CKPT_CLASS: Bookkeeping only: nothing was taken, as the job's operator said (checkpointctl job set --bookkeeping-only yes)"
"$CTL" job add "$J8" --savepoint-dir file:/b --bookkeeping-only yes \
    --savepoint-command "touch $T/bk-ran" --stop-command "touch $T/bk-ran" 2>>"$T/ctl.err"
ok $? "job add --bookkeeping-only yes"
is "$(dbq "SELECT bookkeeping_only FROM jobs WHERE job_id = '$J8'")" 1 \
    "bookkeeping only: stored with the job"
like "$("$CTL" job list | grep "$J8")" " bookkeeping " "job list: the job's savepoints are bookkeeping"
like "$("$CTL" job list | grep "$J4")" " run " "job list: another job's run its commands"
S8=$(tid 5801)
http POST /jobs/$J8/savepoints "{\"triggerId\":\"$S8\"}"
pass
begins "$(sp_status "$J8" "$S8")" \
    "$(sp_failed "$JOB_CLASS" "$JOB_CLASS: $BOOK.\\nCaused by: $BOOK.\\n\"")" \
    "bookkeeping: the API's failure-cause says nothing was taken"
is "$(sp "$J8" "$S8")" "COMPLETED|-|-|$JOB_CLASS" \
    "bookkeeping: completed, no id, no location made up"
like "$("$CTL" savepoints --job "$J8" | grep "$S8")" "Bookkeeping only: nothing was taken" \
    "checkpointctl savepoints: the record says bookkeeping"
ok "$([ ! -e "$T/bk-ran" ] && echo 0 || echo 1)" "bookkeeping: no command ran, though the job has one"
like "$(cat "$RLOG")" "savepoint $S8 job $J8: bookkeeping only: nothing run" \
    "bookkeeping: the runner logs it"
is "$(job_state "$J8")" RUNNING "bookkeeping savepoint: the job runs on"
S8S=$(tid 5802)
http POST /jobs/$J8/stop "{\"triggerId\":\"$S8S\"}"
pass
is "$(sp "$J8" "$S8S")" "COMPLETED|-|-|$JOB_CLASS" "bookkeeping stop: no id, no location"
like "$(dbq "SELECT failure_trace FROM savepoints WHERE trigger_id = '$S8S'")" \
    "Bookkeeping only: nothing was taken, as the job's operator said .*; the job is recorded FINISHED" \
    "bookkeeping stop: the record says so"
is "$(job_state "$J8")" FINISHED "bookkeeping stop: the job is marked FINISHED"
like "$(cat "$RLOG")" "stop $S8S job $J8: bookkeeping only: nothing run, the job recorded FINISHED" \
    "bookkeeping stop: the runner logs it"
"$CTL" job set "$J8" --state RUNNING --bookkeeping-only no 2>>"$T/ctl.err"
is "$(dbq "SELECT bookkeeping_only FROM jobs WHERE job_id = '$J8'")" 0 \
    "job set --bookkeeping-only no: its commands run again"
"$CTL" job set "$J8" --bookkeeping-only maybe 2>"$T/bk.err"
is "$?|$(cat "$T/bk.err")" "2|checkpointctl: bad --bookkeeping-only 'maybe': expected yes or no" \
    "job set --bookkeeping-only takes yes or no"

# --- more savepoints of one job than a round takes: one pass does all ----------
J6=$(jid 56)
"$CTL" job add "$J6" --savepoint-dir file:/m \
    --savepoint-command 'echo "$CHECKPOINT_SAVEPOINT_DIR/sp-$CHECKPOINT_ID"'
i=1
while [ $i -le 20 ]; do
	http POST /jobs/$J6/savepoints "{\"triggerId\":\"$(tid $((5600 + i)))\"}"
	i=$((i + 1))
done
pass
is "$(dbq "SELECT count(*) FROM savepoints WHERE job_id = '$J6'
    AND status = 'COMPLETED' AND failure_class IS NULL")" 20 \
    "20 savepoints of one job: one pass takes them all, one at a time"
is "$(dbq "SELECT max(checkpoint_id) FROM savepoints WHERE job_id = '$J6'")" 20 \
    "20 savepoints of one job: ids 1 to 20"

# --- a dead runner's claim fails as expired -----------------------------------
J5=$(jid 55)
"$CTL" job add "$J5" --savepoint-dir file:/d --savepoint-command 'echo never > '"$T"'/ran55'
S7=$(tid 5501)
http POST /jobs/$J5/savepoints "{\"triggerId\":\"$S7\",\"target-directory\":\"file:/d\"}"
dbq "UPDATE savepoints SET claimed_by = '$HOST:$(dead_pid):1', claimed_ms = 1,
    lease_ms = $FAR, checkpoint_id = 1 WHERE trigger_id = '$S7'"
pass
is "$(sp "$J5" "$S7")" "COMPLETED|1|-|$JOB_CLASS" "dead runner's claim: failed, its id kept"
begins "$(dbq "SELECT failure_trace FROM savepoints WHERE trigger_id = '$S7'")" "$JOB_CLASS: $EXPIRED
Caused by: $EXPIRED" \
    "dead runner's claim: Checkpoint expired before completing."
ok "$([ ! -e "$T/ran55" ] && echo 0 || echo 1)" "dead runner's claim: its command is not run again"

# --- disposal ------------------------------------------------------------------
http POST /savepoint-disposal '{"savepoint-path":"file:/sp/savepoint-2"}'
D1=$(printf '%s' "$BODY" | cut -d'"' -f4)
pass
is "$(cat "$T/disposed")" file:/sp/savepoint-2 "disposal: the job's dispose command, given the path"
http GET /savepoint-disposal/$D1
is "$BODY" '{"status":{"id":"COMPLETED"},"operation":{}}' "disposal: COMPLETED with {}"
is "$(dbq "SELECT CASE WHEN disposed_ms IS NOT NULL THEN 1 ELSE 0 END
    FROM savepoints WHERE trigger_id = '$S1'")" 1 \
    "disposal: the savepoint is marked disposed"
http POST /savepoint-disposal '{"savepoint-path":"file:/sp/savepoint-2"}'
pass
is "$(wc -l < "$T/disposed" | tr -d ' ')" 1 "disposal again: nothing run"
http GET /jobs/$J/savepoints
is "$(printf '%s' "$BODY" | jq -r '.savepoints[] | [.trigger_id, .kind,
    .checkpoint_id, .location, (.disposed_ms != null), .remote_addr]
    | map(tostring) | join(" ")')" \
"$S4 SAVEPOINT null null false 127.0.0.1
$S3 STOP 4 file:/sp/stopped-4 false 127.0.0.1
$S1 SAVEPOINT 2 file:/sp/savepoint-2 true 127.0.0.1" \
    "listing: every savepoint of the job, newest first, the disposed one marked"
# Who asked for a savepoint is never changed afterwards (0012, pg 0009).
for col in remote_user remote_addr; do
	dbq "UPDATE savepoints SET $col = 'mallory' WHERE trigger_id = '$S1'" \
	    > "$T/update.out" 2>&1
	like "$? $(cat "$T/update.out")" \
	    '^[1-9].*the caller recorded with a savepoint is never changed' \
	    "an UPDATE of a savepoint's $col is refused, with why"
done
is "$(dbq "SELECT coalesce(remote_user, '-') || ' ' || remote_addr
    FROM savepoints WHERE trigger_id = '$S1'")" "- 127.0.0.1" \
    "  the caller is as recorded"
like "$("$CTL" savepoints --job "$J" | grep "$S1")" \
    " SAVEPOINT +COMPLETED +2 +NATIVE +127\.0\.0\.1 +file:/sp/savepoint-2 \(disposed\)$" \
    "checkpointctl savepoints: the disposed savepoint marked"
http POST /savepoint-disposal '{"savepoint-path":"file:/nowhere"}'
D2=$(printf '%s' "$BODY" | cut -d'"' -f4)
pass
http GET /savepoint-disposal/$D2
# Dispatcher.disposeSavepoint's FlinkException, caused by
# AbstractFsCheckpointStorageAccess.resolveCheckpointPointer's
# FileNotFoundException (the CompletionException around it is dropped).
begins "$BODY" '{"status":{"id":"COMPLETED"},"operation":{"failure-cause":{"class":"org.apache.flink.util.FlinkException","stack-trace":"org.apache.flink.util.FlinkException: Could not dispose savepoint file:/nowhere.\nCaused by: java.io.FileNotFoundException: Cannot find checkpoint or savepoint file/directory '"'file:/nowhere'"' on file system '"'file'"'.\n","serialized-throwable":"' \
    "disposal of an unknown path: Flink's failure and its cause"

# --- disposal's scope: a recorded savepoint, not kept, not the newest -----------
# dispose PATH: the disposal's failure trace after a pass ('' if it succeeded).
dispose() {
	http POST /savepoint-disposal "{\"savepoint-path\":\"$1\"}"
	_d=$(printf '%s' "$BODY" | cut -d'"' -f4)
	pass
	dbq "SELECT coalesce(failure_class || ': ' || failure_trace, '')
	    FROM savepoint_disposals WHERE trigger_id = '$_d'"
}
refused() {
	printf 'org.apache.flink.util.FlinkException: org.apache.flink.util.FlinkException: Could not dispose savepoint %s.\nCaused by: java.lang.IllegalStateException: %s' "$1" "$2"
}
J7=$(jid 60)
"$CTL" job add "$J7" --savepoint-dir file:/k \
    --savepoint-command 'echo "$CHECKPOINT_SAVEPOINT_DIR/sp-$CHECKPOINT_ID"' \
    --dispose-command 'echo "$CHECKPOINT_SAVEPOINT_PATH" >> '"$T"'/disposed7' \
    --command 'echo "file:/chk7/$CHECKPOINT_ID"'
post "$J7" "$(tid 5700)" && pass
for i in 1 2 3; do
	http POST /jobs/$J7/savepoints "{\"triggerId\":\"$(tid $((5700 + i)))\"}"
done
pass
is "$(dbq "SELECT count(*) FROM savepoints WHERE job_id = '$J7' AND location IS NOT NULL")" 3 \
    "scope: three savepoints, sp-2 to sp-4, after checkpoint 1"
"$CTL" savepoint keep "$J7" 2 > /dev/null
is "$(dispose file:/k/sp-2)" "$(refused file:/k/sp-2 'the savepoint is marked kept (checkpointctl savepoint keep)')" \
    "scope: a savepoint marked kept is not disposed of"
is "$(dispose file:/k/sp-4)" "$(refused file:/k/sp-4 "the savepoint is its job's newest")" \
    "scope: the job's newest savepoint is not disposed of"
is "$(dispose file:/chk7/1)" "$(refused file:/chk7/1 "no savepoint is at this path (a checkpoint's location is disposed of by retention only)")" \
    "scope: a checkpoint's location is not disposed of"
ok "$([ ! -e "$T/disposed7" ] && echo 0 || echo 1)" "scope: no dispose command ran for them"
is "$(dispose file:/k/sp-3)" "" "scope: a recorded savepoint, neither kept nor newest, is disposed of"
is "$(cat "$T/disposed7")" file:/k/sp-3 "  by the job's dispose command"

# A location longer than a btree entry may be on PostgreSQL, hardly
# compressible, is recorded, found and disposed of.
LONG=$(head -c 3000 /dev/urandom | od -An -tx1 | tr -d ' \n' | head -c 4000)
SL=$(tid 5704)
http POST /jobs/$J7/savepoints "{\"triggerId\":\"$SL\",\"target-directory\":\"file:/k/$LONG\"}"
is "$STATUS" 202 "a directory of 4007 bytes under the job's: 202"
http POST /jobs/$J7/savepoints "{\"triggerId\":\"$(tid 5705)\"}"
pass
is "$(sp "$J7" "$SL")" "COMPLETED|5|file:/k/$LONG/sp-5|-" "  its location of 4012 bytes recorded"
is "$(dispose "file:/k/$LONG/sp-5")" "" "  and disposed of"
is "$(tail -n 1 "$T/disposed7")" "file:/k/$LONG/sp-5" "  by the job's dispose command"

# --- the unquoted tar: a hostile directory never reaches the command ------------
JT=$(jid 61)
mkdir -p "$T/spt" "$T/src" && echo data > "$T/src/f"
"$CTL" job add "$JT" --savepoint-dir "$T/spt" \
    --savepoint-command 'tar -czf $CHECKPOINT_SAVEPOINT_DIR/sp-$CHECKPOINT_ID.tgz -C '"$T"' src && echo $CHECKPOINT_SAVEPOINT_DIR/sp-$CHECKPOINT_ID.tgz'
ST=$(tid 5801)
http POST /jobs/$JT/savepoints "{\"triggerId\":\"$ST\",\"target-directory\":\"$T/spt/x --checkpoint=1 --checkpoint-action=exec=touch $T/pwned\"}"
is "$STATUS $BODY" "400 {\"errors\":[\"Field target-directory is refused: it holds a character other than letters, digits and - . _ ~ / : @ % + = ,.\"]}" \
    "unquoted tar: a directory with words for tar is refused, 400"
http POST /jobs/$JT/stop "{\"targetDirectory\":\"$T/spt/\$(touch $T/pwned)\"}"
is "$STATUS" 400 "unquoted tar: a stop's directory with \$(...) is refused, 400"
pass
is "$(sp "$JT" "$ST")" "" "unquoted tar: nothing recorded"
ok "$([ ! -e "$T/pwned" ] && echo 0 || echo 1)" "unquoted tar: nothing ran"
mkdir -p "$T/spt/ok"
http POST /jobs/$JT/savepoints "{\"triggerId\":\"$ST\",\"target-directory\":\"$T/spt/ok\"}"
is "$STATUS" 202 "unquoted tar: a directory under the job's is taken"
pass
is "$(sp "$JT" "$ST")" "COMPLETED|1|$T/spt/ok/sp-1.tgz|-" "  and the command wrote there"
ok "$([ -s "$T/spt/ok/sp-1.tgz" ] && echo 0 || echo 1)" "  the archive exists"
