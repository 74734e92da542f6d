#!/bin/sh
# checkpoint-runner, black-box, stale claims: claims of dead runners, of
# reused pids, of live runners and other hosts within and past their lease,
# of the watching runner itself that it knows nothing of, simulated in the
# database and real (kill -9, during an action and in its timeout's grace
# period); and a runner started with SIGCHLD ignored.
#
# Actions' commands are written in single quotes on purpose: their $VARS
# are for the action's shell, not this one.
# shellcheck disable=SC2016,SC2086

. "$(dirname "$0")/runner-lib.sh"

pass || bail "checkpoint-runner cannot open $DB"
start_lighttpd

# --- stale claims -----------------------------------------------------------------------------------

DEAD=$(dead_pid)

# claim JOB TID OWNER LEASE_MS ID: what a runner's claim leaves in the row.
claim() {
	_now=$(now_ms)
	dbq "UPDATE triggers SET claimed_by = '$3', claimed_ms = $_now,
	    lease_ms = $4, checkpoint_id = $5, checkpoint_type = 'FULL'
	    WHERE job_id = '$1' AND trigger_id = '$2';
	    INSERT INTO checkpoint_counters (job_id, last_id) VALUES ('$1', $5)
	    ON CONFLICT (job_id) DO UPDATE SET last_id = $5"
}

J=$(jid 24)
add_job "$J" RUNNING FULL "touch $T/ran24" 5
post "$J" "$(tid 2401)"
claim "$J" "$(tid 2401)" "$HOST:$DEAD:1" "$FAR" 1
is "$(status "$J" "$(tid 2401)")" "$IN_PROGRESS" "stale: a claimed trigger is IN_PROGRESS"
out=$(pass --stats)
like "$out" '"completed":0,"failed":1,"stale":1,.*"actions":0,' \
    "stale: a dead runner's claim (pid $DEAD, lease far ahead) counted as stale"
is "$(rows "$J")" "COMPLETED|1|FULL|-|$CKPT_CLASS" \
    "stale: resolved as a failure, its checkpoint id 1 kept"
is "$(trace1 "$J" "$(tid 2401)")" "$EXPIRED" \
    "stale: Checkpoint expired before completing."
test ! -e "$T/ran24"
ok $? "stale: the command is not run again"
post "$J" "$(tid 2402)" && pass
is "$(col "$J" "$(tid 2402)" checkpoint_id)" 2 "stale: the next trigger gets id 2"

# A reused pid: the process lives, but it is not the runner that claimed.
J=$(jid 25)
add_job "$J" RUNNING FULL "true" 5
post "$J" "$(tid 2501)"
claim "$J" "$(tid 2501)" "$HOST:$$:1" "$FAR" 1
pass
is "$(trace1 "$J" "$(tid 2501)")" "$EXPIRED" \
    "stale: a claim naming a live pid with another start time is stale"

# The claim of a live runner on this host is its own business...
MYSTART=$(sed 's/.*) //' /proc/$$/stat | cut -d' ' -f20)
J=$(jid 26)
add_job "$J" RUNNING FULL "true" 5
post "$J" "$(tid 2601)"
claim "$J" "$(tid 2601)" "$HOST:$$:$MYSTART" "$FAR" 1
pass
is "$(col "$J" "$(tid 2601)" status)|$(col "$J" "$(tid 2601)" claimed_by)" \
    "IN_PROGRESS|$HOST:$$:$MYSTART" \
    "stale: a live runner's claim within its lease is left alone"
# ...until its lease has run out (runner.c: "a claim whose runner is gone
# from this host, or whose lease has run out, is stale").
dbq "UPDATE triggers SET lease_ms = $(($(now_ms) - 1000))
    WHERE job_id = '$J' AND trigger_id = '$(tid 2601)'"
pass
is "$(col "$J" "$(tid 2601)" status)|$(trace1 "$J" "$(tid 2601)")" \
    "COMPLETED|$EXPIRED" \
    "stale: a live runner's claim past its lease is resolved as expired"
# Whatever the outcome above, nothing may stay IN_PROGRESS for later cases.
dbq "UPDATE triggers SET claimed_by = '$HOST:$DEAD:1'
    WHERE job_id = '$J' AND status = 'IN_PROGRESS'"
pass

J=$(jid 27)
add_job "$J" RUNNING FULL "touch $T/ran27" 5
post "$J" "$(tid 2701)"
claim "$J" "$(tid 2701)" "otherhost:1:1" "$FAR" 1
out=$(pass --stats)
is "$(col "$J" "$(tid 2701)" status)|$(col "$J" "$(tid 2701)" claimed_by)" \
    "IN_PROGRESS|otherhost:1:1" \
    "stale: another host's claim with its lease ahead is left alone"
like "$out" '"stale":0,' "stale: and not counted"
dbq "UPDATE triggers SET lease_ms = $(($(now_ms) - 1000))
    WHERE job_id = '$J' AND trigger_id = '$(tid 2701)'"
pass
is "$(rows "$J")" "COMPLETED|1|FULL|-|$CKPT_CLASS" \
    "stale: another host's claim past its lease is resolved, id 1 kept"
is "$(trace1 "$J" "$(tid 2701)")" "$EXPIRED" "stale: as expired"
test ! -e "$T/ran27"
ok $? "stale: the other host's command is not run here"

# A claim of the watching runner itself that it knows nothing of: no
# action of it running, no result of it kept (a claim whose commit it took
# for failed it would run; t6340).  Not held for its lease, and not said
# to be of a runner that is gone: resolved at the runner's next pass.
J=$(jid 30)
add_job "$J" RUNNING FULL "touch $T/ran30" 5
post "$J" "$(tid 3001)"
# Claimed by this live shell (left alone) until the runner runs, then
# handed to the runner.
claim "$J" "$(tid 3001)" "$HOST:$$:$MYSTART" "$FAR" 1
spawn "$RUNNER" --watch 2>>"$RLOG"
R=$LAST_PID
wait_until 50 "[ \"\$(grep -c 'watching' '$RLOG')\" -gt 0 ]"
ROWNER=$HOST:$R:$(sed 's/.*) //' "/proc/$R/stat" | cut -d' ' -f20)
dbq "UPDATE triggers SET claimed_by = '$ROWNER'
    WHERE job_id = '$J' AND trigger_id = '$(tid 3001)'"
wait_until 100 "[ \"\$(col $J $(tid 3001) status)\" = COMPLETED ]"
ok $? "own claim: the watching runner resolves its own unknown claim at once"
is "$(rows "$J")" "COMPLETED|1|FULL|-|$CKPT_CLASS" \
    "own claim: as a failure, its checkpoint id 1 kept"
is "$(col "$J" "$(tid 3001)" failure_trace)" "$EXPIRED
	at checkpoint-runner (the runner $ROWNER that claimed it lost track of its action)" \
    "own claim: expired, the trace saying the runner lost track of it"
test ! -e "$T/ran30"
ok $? "own claim: the command is not run"
post "$J" "$(tid 3002)"
wait_until 100 "[ \"\$(col $J $(tid 3002) status)\" = COMPLETED ]"
is "$(rows "$J" | tail -n 1)" "COMPLETED|2|FULL|-|-" \
    "own claim: the job's next trigger runs at once, with id 2"
stop_pid "$R"
is "$?" 0 "own claim: the runner exits 0 on SIGTERM"

# A pass must end even while another runner holds a claim on a job that has
# more triggers waiting (checkpoint-runner(8): one pass, then exit, for cron).
J=$(jid 28)
add_job "$J" RUNNING FULL "true" 5
post "$J" "$(tid 2801)" && post "$J" "$(tid 2802)"
claim "$J" "$(tid 2801)" "otherhost:1:1" "$FAR" 1
t0=$(date +%s%N)
timeout 5 "$RUNNER" >/dev/null 2>>"$RLOG"
RC=$?
ms=$(ms_since "$t0")
is "$RC" 0 "stale: a pass beside another host's live claim ends by itself ($ms ms)"
is "$(dbq "SELECT group_concat(status || ':' || coalesce(claimed_by, '-'), ' ')
    FROM (SELECT * FROM triggers WHERE job_id = '$J' ORDER BY id)")" \
    "IN_PROGRESS:otherhost:1:1 IN_PROGRESS:-" \
    "stale: the claimed trigger and the one behind it are left waiting"
dbq "UPDATE triggers SET lease_ms = $(($(now_ms) - 1000))
    WHERE job_id = '$J' AND trigger_id = '$(tid 2801)'"
pass
is "$(rows "$J")" "$(lines "COMPLETED|1|FULL|-|$CKPT_CLASS" \
    'COMPLETED|2|FULL|-|-')" \
    "stale: once the lease ran out, one pass resolves both, ids 1 and 2"

# A real runner, killed while its action runs.
J=$(jid 29)
add_job "$J" RUNNING FULL "echo \$\$ > $T/pid29; sleep 5" 60
post "$J" "$(tid 2901)"
spawn "$RUNNER" 2>>"$RLOG"
R=$LAST_PID
wait_until 50 "[ \"\$(col $J $(tid 2901) claimed_by)\" != - ] && [ -s $T/pid29 ]"
ok $? "killed runner: its action started"
like "$(col "$J" "$(tid 2901)" claimed_by)" "^$HOST:$R:[0-9]+\$" \
    "killed runner: the claim names host:pid:start"
stop_pid "$R" KILL
P=$(cat "$T/pid29")
wait_until 20 "gone '$P'"
ok $? "killed runner: its action's shell ($P) ends with it"
kill_leftover "$P"
out=$(pass --stats)
like "$out" '"stale":1,' "killed runner: the next pass finds one stale claim"
is "$(rows "$J")" "COMPLETED|1|FULL|-|$CKPT_CLASS" \
    "killed runner: the trigger completes as a failure, id 1 kept"
is "$(trace1 "$J" "$(tid 2901)")" "$EXPIRED" "killed runner: as expired"
is "$(dbq "SELECT count(*) FROM triggers WHERE status = 'IN_PROGRESS'")" 0 \
    "killed runner: no trigger stays IN_PROGRESS"
post "$J" "$(tid 2902)" && pass
is "$(col "$J" "$(tid 2902)" checkpoint_id)" 2 \
    "killed runner: the next trigger gets id 2"

# A runner killed after its action's timeout, in the grace period before
# SIGKILL, while the action ignores the SIGTERM it got: the watchdog, which
# that SIGTERM to the group must spare, kills the group when the runner
# dies.  The action notes the SIGTERM, and its shell lives on.
J=$(jid 38)
add_job "$J" RUNNING FULL "trap 'echo > $T/term38' TERM; echo \$\$ > $T/pid38; while :; do sleep 60 & wait; done" 1
post "$J" "$(tid 3801)"
spawn "$RUNNER" 2>>"$RLOG"
R=$LAST_PID
wait_until 100 "[ -e $T/term38 ]"
ok $? "killed in the grace period: the action got its timeout's SIGTERM"
stop_pid "$R" KILL
P=$(cat "$T/pid38")
wait_until 30 "gone '$P'"
ok $? "killed in the grace period: the action's shell ($P) ends with the runner"
kill_leftover "$P"
pass
is "$(rows "$J")" "COMPLETED|1|FULL|-|$CKPT_CLASS" \
    "killed in the grace period: the next pass resolves the trigger"

# A result the database refuses each time, a fault that trying again
# cannot mend (here an operator's trigger that aborts the completion):
# recorded three times in all, then dropped, its claim left to expire
# with its lease; the pass ends rather than trying until then.
J=$(jid 40)
add_job "$J" RUNNING FULL "echo file:/ckpt/40" 600
post "$J" "$(tid 4001)"
dbq "CREATE TRIGGER refuse40 BEFORE UPDATE OF status ON triggers
    WHEN NEW.job_id = '$J' AND NEW.status = 'COMPLETED'
    BEGIN SELECT RAISE(ABORT, 'refused by the test'); END"
timeout -k 5 60 "$RUNNER" 2>>"$RLOG"
is $? 0 "refused result: the pass ends"
is "$(grep -c "trigger $(tid 4001) job $J: cannot record the result" "$RLOG")" 3 \
    "refused result: recorded three times"
grep -q "trigger $(tid 4001) job $J: checkpoint 1: its result met 3 database errors, and is dropped" "$RLOG"
ok $? "refused result: then dropped, and the log says so"
is "$(dbq "SELECT status, claimed_by IS NOT NULL FROM triggers
    WHERE job_id = '$J'")" "IN_PROGRESS|1" \
    "refused result: its claim stays, to expire with its lease"
dbq "DROP TRIGGER refuse40"

# A runner started with SIGCHLD ignored (as some supervisors leave it):
# the kernel would reap each action's shell, and a pass would wait for it
# forever.
J=$(jid 39)
add_job "$J" RUNNING FULL "echo here" 5
post "$J" "$(tid 3901)"
timeout -k 5 20 perl -e '$SIG{CHLD} = "IGNORE"; exec @ARGV' "$RUNNER" 2>>"$RLOG"
is $? 0 "SIGCHLD ignored: the pass ends"
is "$(rows "$J")" "COMPLETED|1|FULL|here|-" \
    "SIGCHLD ignored: the action's result is recorded"

done_testing
