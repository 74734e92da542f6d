#!/bin/sh
# checkpoint-runner --watch, black-box: new triggers completed as they are
# recorded, SIGTERM when idle and while an action runs.
#
# Actions' commands are written in single quotes on purpose: their $VARS
# are for the action's shell, not this one.
# shellcheck disable=SC2016,SC2086

. "$(dirname "$0")/runner-lib.sh"

pass || bail "checkpoint-runner cannot create $DB"
start_lighttpd

# --- --watch ------------------------------------------------------------------------------------

J=$(jid 22)
add_job "$J" RUNNING FULL ""
spawn "$RUNNER" --watch 2>>"$RLOG"
W=$LAST_PID
sleep 0.2
post "$J" "$(tid 2201)"
wait_until 30 "[ \"\$(status $J $(tid 2201))\" = '$(completed 1)' ]"
ok $? "--watch: a new trigger is COMPLETED within 3 s"
is "$(status "$J" "$(tid 2201)")" "$(completed 1)" "--watch: its GET body"
post "$J" "$(tid 2202)"
wait_until 30 "[ \"\$(status $J $(tid 2202))\" = '$(completed 2)' ]"
ok $? "--watch: and the next one, checkpointId 2"
term_wait "$W"
is "$RC" 0 "--watch: SIGTERM, exit status 0"
gone "$W"
ok $? "--watch: the process is gone"

J=$(jid 23)
add_job "$J" RUNNING FULL 'sleep 1; echo "done $CHECKPOINT_ID"'
spawn "$RUNNER" --watch 2>>"$RLOG"
W=$LAST_PID
sleep 0.2
post "$J" "$(tid 2301)"
wait_until 30 "[ \"\$(col $J $(tid 2301) claimed_by)\" != - ]"
ok $? "--watch: the slow action is claimed"
term_wait "$W"
is "$RC" 0 "--watch: SIGTERM while an action runs, exit status 0"
is "$(rows "$J")" "COMPLETED|1|FULL|done 1|-" \
    "--watch: the runner waited for the action and recorded its result"

done_testing
