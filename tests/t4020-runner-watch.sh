#!/bin/sh
# checkpoint-runner --watch, black-box: new triggers completed as they are
# recorded, SIGTERM when idle and while an action runs; a database that
# cannot be opened yet is waited for, one made by a newer version is not.
#
# Actions' commands are written in single quotes on purpose: their $VARS
# are for the action's shell, not this one.
# shellcheck disable=SC2016,SC2086

. "$(dirname "$0")/runner-lib.sh"

pass || bail "checkpoint-runner cannot open $DB"
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

# --- a database not there yet, one too new ------------------------------------------------------

# A watcher started before its database is made (its directory and
# checkpointctl init come later, as a deployment's would) keeps trying,
# making nothing, then watches it.
LATER=$T/later/checkpoints.db
LLOG=$T/later.log
spawn env CHECKPOINT_DB="$LATER" "$RUNNER" --watch --log-level info 2>>"$LLOG"
W=$LAST_PID
sleep 2.5
! gone "$W"
ok $? "--watch, database not openable: still running after 2.5 s"
grep -q "later/checkpoints.db" "$LLOG"
ok $? "  and the log names the database it cannot open"
is "$(grep -c 'later/checkpoints.db: no database there; checkpointctl init makes it' "$LLOG")" 1 \
    "  said once, with the path and init"
mkdir "$T/later"
sleep 1.5
test ! -e "$LATER"
ok $? "  its directory made: the runner makes no database there"
init_db "$LATER"
wait_until 50 "grep -q 'watching $LATER' '$LLOG'"
ok $? "  checkpointctl init: the runner opens it and watches it"
J=$(jid 24)
"$CTL" --db "$LATER" job add "$J" --every 1s
wait_until 50 "[ \"\$(sqlite3 -cmd '.timeout 5000' '$LATER' \"SELECT count(*) FROM triggers WHERE job_id = '$J' AND status = 'COMPLETED'\")\" -ge 1 ]"
ok $? "  and completes the triggers of a job added there"
term_wait "$W"
is "$RC" 0 "  SIGTERM, exit status 0"

# SIGTERM while it waits for a database ends it at once, 0.
spawn env CHECKPOINT_DB="$T/never/checkpoints.db" "$RUNNER" --watch 2>>"$LLOG"
W=$LAST_PID
sleep 0.5
term_wait "$W"
is "$RC" 0 "--watch, waiting for a database: SIGTERM, exit status 0"

# A newer version's database does not come right by waiting: exit 3.
NEWER=$T/newer.db
"$CTL" --db "$NEWER" init >/dev/null
sqlite3 "$NEWER" "PRAGMA user_version = 9999"
timeout 10 env CHECKPOINT_DB="$NEWER" "$RUNNER" --watch 2>>"$LLOG"
is "$?" 3 "--watch, a newer version's database: exit status 3 at once"
is "$(sqlite3 "$NEWER" "PRAGMA user_version")" 9999 "  and it is left untouched"

done_testing
