#!/bin/sh
# checkpoint-runner over many jobs, black-box: a watching runner starts a
# trigger as it comes while other jobs' actions run, and a round takes the
# first waiting trigger of a job whose command is free however many
# triggers of a busy job wait before it in the queue.  (What a round's
# statements read on a large fleet: unit-perjob.)
#
# Actions' commands are written in single quotes on purpose: their $VARS
# are for the action's shell, not this one.
# shellcheck disable=SC2016,SC2086

. "$(dirname "$0")/runner-lib.sh"

pass || bail "checkpoint-runner cannot open $DB"
start_lighttpd

# quick_completes K ID WHAT: trigger K of the quick job, posted now, is
# COMPLETED as checkpoint ID within 1.5 s, while the slow action runs.
quick_completes() {
	_t0=$(date +%s%N)
	post "$QUICK" "$(tid "$1")"
	wait_until 30 "[ \"\$(status $QUICK $(tid "$1"))\" = '$(completed "$2")' ]"
	ok $? "$3 is COMPLETED"
	_waited=$(ms_since "$_t0")
	[ "$_waited" -lt 1500 ]
	ok $? "  within 1.5 s of its POST, while the slow action runs (${_waited} ms)"
}

SLOW=$(jid 9001)
QUICK=$(jid 9002)
add_job "$SLOW" RUNNING FULL 'sleep 3'
add_job "$QUICK" RUNNING FULL 'echo "quick $CHECKPOINT_ID"'
spawn "$RUNNER" --watch --parallel 2 2>>"$RLOG"
W=$LAST_PID
sleep 0.2

# A busy job's backlog first in the queue, then another job's trigger.
for k in 1 2 3 4 5; do
	post "$SLOW" "$(tid $((90100 + k)))" || bail "POST $k"
done
wait_until 30 "[ \"\$(col $SLOW $(tid 90101) claimed_by)\" != - ]"
ok $? "the slow job's first action is claimed"
quick_completes 90201 1 "a trigger queued behind a busy job's backlog"
is "$(col "$SLOW" "$(tid 90101)" status)" IN_PROGRESS \
    "  the slow job's first action still runs"
is "$(dbq "SELECT count(*) FROM triggers WHERE job_id = '$SLOW'
    AND claimed_by IS NOT NULL")" 1 "  and its backlog waits, one at a time"

# Another while the slow job still runs: taken as it comes, too.
quick_completes 90202 2 "the next trigger of the free job"
is "$(rows "$QUICK")" "$(lines "COMPLETED|1|FULL|quick 1|-" \
    "COMPLETED|2|FULL|quick 2|-")" "  both with their ids and locations"
term_wait "$W"
is "$RC" 0 "SIGTERM, exit status 0"

done_testing
