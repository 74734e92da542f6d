#!/bin/sh
# checkpoint-runner, black-box, the jobs' actions: their environment and the
# location they print; request data never spliced into the shell; failures,
# signals and timeouts; what an action leaves running; one job's actions never
# overlap, several jobs' run in parallel.
#
# Actions' commands are written in single quotes on purpose: their $VARS
# are for the action's shell, not this one.
# shellcheck disable=SC2016,SC2086

. "$(dirname "$0")/runner-lib.sh"

pass || bail "checkpoint-runner cannot open $DB"
start_lighttpd

# --- an action that succeeds: environment and location ------------------------------------

J=$(jid 11)
add_job "$J" RUNNING INCREMENTAL 'printf "%s\n" "$CHECKPOINT_JOB_ID" "$CHECKPOINT_ID" "$CHECKPOINT_TYPE" "$CHECKPOINT_TRIGGER_ID" > '"$T"'/env11
env | cut -d= -f1 | grep -v -e "^PWD$" -e "^SHLVL$" -e "^_$" | sort | tr "\n" " " > '"$T"'/names11
echo "not the location"
echo "file:///backups/$CHECKPOINT_JOB_ID/chk-$CHECKPOINT_ID  "
echo'
post "$J" "$(tid 1101)"
SECRET_TOKEN=hunter2 pass
ok $? "action: the pass exits 0"
is "$(cat "$T/env11")" "$(lines "$J" 1 INCREMENTAL "$(tid 1101)")" \
    "action: CHECKPOINT_JOB_ID, _ID, _TYPE (resolved), _TRIGGER_ID reach it"
is "$(cat "$T/names11")" \
    "CHECKPOINT_ID CHECKPOINT_JOB_ID CHECKPOINT_TRIGGER_ID CHECKPOINT_TYPE PATH " \
    "action: nothing else of the runner's environment (CHECKPOINT_DB, SECRET_TOKEN)"
is "$(status "$J" "$(tid 1101)")" "$(completed 1)" \
    "action: GET answers COMPLETED with checkpointId 1"
is "$(rows "$J")" "COMPLETED|1|INCREMENTAL|file:///backups/$J/chk-1|-" \
    "action: its last non-empty stdout line, trimmed, is the location"
post "$J" "$(tid 1102)" FULL && pass
is "$(cat "$T/env11")" "$(lines "$J" 2 FULL "$(tid 1102)")" \
    "action: an explicit FULL reaches it as FULL, with id 2"

# --- request data is never spliced into the shell --------------------------------------

J=$(jid 12)
add_job "$J" RUNNING FULL 'echo "$CHECKPOINT_TRIGGER_ID" > '"$T"'/tid12; echo "$# $0" >> '"$T"'/tid12'
http POST "/jobs/$J/checkpoints" '{"triggerId":"ABCDEF0123456789ABCDEF0123456789"}'
is "$STATUS $BODY" '202 {"request-id":"abcdef0123456789abcdef0123456789"}' \
    "not spliced: a trigger with an upper-case id"
pass
is "$(cat "$T/tid12")" "$(lines abcdef0123456789abcdef0123456789 '0 sh')" \
    "not spliced: the id reaches the fixed command only by its environment"
is "$(dbq "SELECT command FROM jobs WHERE job_id = '$J'")" \
    'echo "$CHECKPOINT_TRIGGER_ID" > '"$T"'/tid12; echo "$# $0" >> '"$T"'/tid12' \
    "not spliced: the job's command is as the operator wrote it"

# --- an action that fails ---------------------------------------------------------------

J=$(jid 13)
add_job "$J" RUNNING FULL "echo 'disk full' >&2; exit 3"
post "$J" "$(tid 1301)" && pass
begins "$(status "$J" "$(tid 1301)")" \
    "$(failed_body "$CKPT_CLASS" "$DECLINED disk full")" \
    "failing action: GET answers CheckpointException, declined, with its stderr"
is "$(col "$J" "$(tid 1301)" failure_class)|$(trace1 "$J" "$(tid 1301)")" \
    "$CKPT_CLASS|$DECLINED disk full" \
    "failing action: the row's class and first trace line"
is "$(rows "$J")" "COMPLETED|1|FULL|-|$CKPT_CLASS" \
    "failing action: its checkpoint id 1 is consumed, no location"
grep -q "info: trigger $(tid 1301) job $J: checkpoint 1 FAILED: disk full (exited with status 3)\$" "$RLOG"
ok $? "failing action: the runner's log says FAILED, its stderr and exit status"
"$CTL" --db "$DB" triggers --job "$J" > "$T/ctl13" 2>&1
grep -q "  $(tid 1301)  FAILED  *1  *FULL  .*  disk full (exited with status 3)\$" "$T/ctl13"
ok $? "failing action: checkpointctl triggers says FAILED and the cause"
post "$J" "$(tid 1302)" && pass
is "$(col "$J" "$(tid 1302)" checkpoint_id)" 2 \
    "failing action: the next attempt gets id 2"
dbq "UPDATE jobs SET command = 'echo ok' WHERE job_id = '$J'"
post "$J" "$(tid 1303)" && pass
is "$(status "$J" "$(tid 1303)")" "$(completed 3)" \
    "failing action: once it succeeds, checkpointId 3"

J=$(jid 14)
add_job "$J" RUNNING FULL 'exit 5'
JK=$(jid 15)
add_job "$JK" RUNNING FULL 'kill -9 $$'
post "$J" "$(tid 1401)" && post "$JK" "$(tid 1401)" && pass
begins "$(trace1 "$J" "$(tid 1401)")" "$DECLINED" \
    "failing action without stderr: declined"
begins "$(trace1 "$JK" "$(tid 1401)")" "$DECLINED" \
    "action killed by a signal: declined"
grep -q "info: trigger $(tid 1401) job $JK: checkpoint 1 FAILED: was killed by signal 9\$" "$RLOG"
ok $? "action killed by a signal: the runner's log says which"

# --- an action past its timeout -----------------------------------------------------------

J=$(jid 16)
add_job "$J" RUNNING FULL "sleep 30 & echo \$! > $T/pid16; wait" 1
post "$J" "$(tid 1601)"
t0=$(date +%s%N)
pass
ms=$(ms_since "$t0")
is "$(trace1 "$J" "$(tid 1601)")" "$EXPIRED" \
    "timeout: Checkpoint expired before completing."
begins "$(status "$J" "$(tid 1601)")" "$(failed_body "$CKPT_CLASS" "$EXPIRED")" \
    "timeout: GET answers the expiry"
is "$(rows "$J")" "COMPLETED|1|FULL|-|$CKPT_CLASS" \
    "timeout: its checkpoint id is consumed"
grep -q "info: trigger $(tid 1601) job $J: checkpoint 1 FAILED: killed after its timeout of 1 s\$" "$RLOG"
ok $? "timeout: the runner's log says FAILED, killed after its timeout"
ok "$([ "$ms" -ge 1000 ] && [ "$ms" -lt 8000 ]; echo $?)" \
    "timeout: the pass ends after the 1 s timeout ($ms ms)"
P=$(cat "$T/pid16" 2>/dev/null)
wait_until 20 "gone '$P'"
ok $? "timeout: the action's background sleep ($P) is gone"
kill_leftover "$P"

# --- what an action leaves running ---------------------------------------------------------

J=$(jid 17)
add_job "$J" RUNNING FULL "sleep 30 & echo \$! > $T/pid17; echo done" 20
post "$J" "$(tid 1701)"
t0=$(date +%s%N)
pass
ms=$(ms_since "$t0")
is "$(rows "$J")" "COMPLETED|1|FULL|done|-" \
    "leftover: an action that exits 0 with a child running completes"
ok "$([ "$ms" -lt 5000 ]; echo $?)" \
    "leftover: its result does not wait for the child ($ms ms)"
P=$(cat "$T/pid17" 2>/dev/null)
wait_until 20 "gone '$P'"
ok $? "leftover: the child it left running ($P) is killed"
kill_leftover "$P"

# --- one job's actions never overlap ---------------------------------------------------------

J=$(jid 18)
add_job "$J" RUNNING FULL "echo \"start \$CHECKPOINT_ID\" >> $T/log18; sleep 0.3; echo \"end \$CHECKPOINT_ID\" >> $T/log18"
post "$J" "$(tid 1801)" && post "$J" "$(tid 1802)" && post "$J" "$(tid 1803)"
pass --parallel 4
ok $? "no overlap: one pass over three triggers of one job"
post "$J" "$(tid 1804)" && post "$J" "$(tid 1805)" &&
    post "$J" "$(tid 1806)" && post "$J" "$(tid 1807)"
ok $? "no overlap: four more triggers"
spawn "$RUNNER" --watch --parallel 4 2>>"$RLOG"
W=$LAST_PID
"$RUNNER" --parallel 4 2>>"$RLOG" &
O=$!
wait "$O"
ok $? "no overlap: a one-shot pass beside a --watch runner exits 0"
wait_until 100 "[ \"\$(dbq \"SELECT count(*) FROM triggers
    WHERE job_id = '$J' AND status = 'IN_PROGRESS'\")\" = 0 ]"
ok $? "no overlap: all seven triggers completed"
term_wait "$W"
is "$(cat "$T/log18")" "$(for i in 1 2 3 4 5 6 7; do
	lines "start $i" "end $i"; done)" \
    "no overlap: start/end strictly alternate, ids 1..7 each once"
is "$(dbq "SELECT group_concat(checkpoint_id || ':' || coalesce(location, '')
    || coalesce(failure_class, ''), ' ') FROM (SELECT * FROM triggers
    WHERE job_id = '$J' ORDER BY id)")" "1: 2: 3: 4: 5: 6: 7:" \
    "no overlap: ids 1..7 in arrival order, all succeeded"

# --- several jobs' actions run in parallel ----------------------------------------------------

JA=$(jid 19)
JB=$(jid 20)
add_job "$JA" RUNNING FULL "echo start >> $T/log19; sleep 1; echo end >> $T/log19"
add_job "$JB" RUNNING FULL "echo start >> $T/log19; sleep 1; echo end >> $T/log19"
post "$JA" "$(tid 1901)" && post "$JB" "$(tid 1901)"
t0=$(date +%s%N)
pass --parallel 2
ms=$(ms_since "$t0")
is "$(head -n 2 "$T/log19" | tr '\n' ' ')" "start start " \
    "parallel 2: both jobs' actions started before either ended"
ok "$([ "$ms" -lt 1900 ]; echo $?)" \
    "parallel 2: one 1 s action per job, the pass takes < 1.9 s ($ms ms)"
is "$(dbq "SELECT count(*) FROM triggers WHERE job_id IN ('$JA', '$JB')
    AND status = 'COMPLETED' AND failure_class IS NULL")" 2 \
    "parallel 2: both completed"
: > "$T/log19"
post "$JA" "$(tid 1902)" && post "$JB" "$(tid 1902)"
pass --parallel 1
is "$(tr '\n' ' ' < "$T/log19")" "start end start end " \
    "parallel 1: one action at a time"

done_testing
