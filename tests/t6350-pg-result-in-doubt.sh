#!/bin/sh
# A runner's result whose commit was in doubt (checkpoint-runner(8),
# "Crashes").  When a command ends, the runner records its result in the
# claimed trigger, if the claim is still its own.  If that COMMIT fails
# without saying whether it was made (here: its wait for a synchronous
# standby cancelled, so the primary committed it alone), the runner keeps
# the result and records it again at its next pass.  That second try
# finds the claim gone, because the first commit was made: the runner
# must see that the stored result is its own and say so, not report a
# result "resolved by another runner ... dropped", which would send an
# operator after a checkpoint that is fine.  A result that really was
# resolved by someone else (here by hand) is still reported as dropped.
#
# A PostgreSQL primary and a synchronous standby (pg_basebackup, fsync
# on), synchronous_commit = remote_apply on the primary, so that pausing
# the standby's replay (pg_wal_replay_pause) holds every commit of the
# runner.  The app commits asynchronously (CHECKPOINT_SYNC=NORMAL); the
# runner's statement_timeout is 1 s (CHECKPOINT_BUSY_TIMEOUT=200ms).
# Each job's command logs its job, id and trigger, then waits for a file
# of the test's, so that the replay is paused while it runs:
#   1. a command that succeeds: its result's commit is cancelled, kept,
#      and found recorded at the next pass; the standby gets it once its
#      replay resumes;
#   2. a command that fails: the same, for a failure (class and trace
#      compared);
#   3. a claim resolved by hand while the command runs: the result is
#      dropped, and said so;
#   4. a claim in doubt that the runner learns of too late: the claim's
#      commit cancelled, the runner held (SIGSTOP) until 26 s of the
#      claim's lease (the job's timeout, 1 s, and 30 s) have gone, the
#      replay resumed, then let go: with too little lease left to run the
#      command and record it, the claim fails at once as expired, its
#      id used, the command never run, and the next trigger gets the next
#      id.
# Bounded: about 45 s, 26 of them case 4's wait.
# shellcheck disable=SC2016,SC2034,SC2154
. "$(dirname "$0")/lib.sh"
PG_FSYNC=on
. "$(dirname "$0")/pg.sh"
. "$(dirname "$0")/pg-hosts.sh"

J1=6350000000000000000000000000000a
J2=6350000000000000000000000000000b
J3=6350000000000000000000000000000c
J4=6350000000000000000000000000000d
TID=00000000000000000000000000000001
TID2=00000000000000000000000000000002
CMDLOG=$T/commands.log
RLOG=$T/runner-0.log
: > "$CMDLOG"

post() {
	fcgi_raw POST "/jobs/$1/checkpoints" "{\"triggerId\":\"$2\"}" |
	    status_body
}

# row JOB [PORT [TRIGGER]]: trigger TID (or TRIGGER) as the server holds it: status, checkpoint id
# (or -), failure class (or ok).
row() {
	psql_q "SELECT status || ' ' || coalesce(checkpoint_id::text, '-') ||
	    ' ' || coalesce(failure_class, 'ok')
	    FROM triggers WHERE job_id = '$1' AND trigger_id = '${3:-$TID}'" \
	    "" "${2:-}"
}

ran() {
	awk -v j="$1" '$1 == j { print $2, $3 }' "$CMDLOG" | tr '\n' ','
}

# running JOB: the job's trigger POSTed, claimed, and its command waiting.
running() {
	is "$(post "$1" $TID)" "202 {\"request-id\":\"$TID\"}" \
	    "$2: the trigger accepted"
	wait_until 100 '[ -n "$(ran '"$1"')" ]'
	ok $? "  claimed, and its command runs"
}

# kept CASE: the result's commit cancelled and the result kept, then found
# recorded at the next pass.
kept() {
	_n=$(grep -c 'its result is kept' "$RLOG")
	_m=$(grep -c 'recorded by the commit that had not been confirmed' "$RLOG")
	wait_until 100 '[ "$(grep -c "its result is kept" "$RLOG")" -gt '"$_n"' ]'
	ok $? "  its result's commit not confirmed: the result is kept"
	wait_until 100 '[ "$(grep -c "recorded by the commit that had not been confirmed" "$RLOG")" -gt '"$_m"' ]'
	ok $? "  at the next pass, found recorded by that commit"
}

remote_apply_start
for j in $J1 $J2 $J3 $J4; do
	# J2's command fails, after saying why on its standard error.
	fail=
	[ $j = $J2 ] && fail='; echo "no space left on the checkpoint volume" >&2; exit 3'
	# J4's lease is short: its timeout and 30 s.
	timeout=60
	[ $j = $J4 ] && timeout=1
	"$CTL" job add $j --timeout $timeout --command \
	    'echo "$CHECKPOINT_JOB_ID $CHECKPOINT_ID $CHECKPOINT_TRIGGER_ID" \
	    >> '"'$CMDLOG'"'; while [ ! -e '"'$T'"'/go.$CHECKPOINT_JOB_ID ]; do
	    sleep 0.05; done'"$fail" > /dev/null ||
	    bail "checkpointctl job add $j failed"
done
app_async
runner_quick 0

# --- 1. a success, its commit not confirmed ------------------------------------

running $J1 "success"
replay pause
touch "$T/go.$J1"
kept
is "$(row $J1)" "COMPLETED 1 ok" "  on the primary: COMPLETED with id 1, no failure"
is "$(row $J1 "$PG_STANDBY_PORT")" "IN_PROGRESS 1 ok" \
    "  on the standby, its replay paused: still running"
replay resume
wait_until 100 '[ "$(row $J1 "$PG_STANDBY_PORT")" = "COMPLETED 1 ok" ]'
ok $? "  the replay resumed, the standby has it too"

# --- 2. a failure, its commit not confirmed ------------------------------------

running $J2 "failure"
replay pause
touch "$T/go.$J2"
kept
is "$(row $J2)" "COMPLETED 1 org.apache.flink.runtime.checkpoint.CheckpointException" \
    "  on the primary: COMPLETED with id 1 and the command's failure"
like "$(psql_q "SELECT failure_trace FROM triggers WHERE job_id = '$J2'")" \
    "no space left on the checkpoint volume" "  its trace, the command's own words"
replay resume

# --- 3. resolved by someone else while the command ran -------------------------

running $J3 "resolved by hand"
psql_q "UPDATE triggers SET status = 'COMPLETED', completed_ms = floor(extract(epoch FROM now()) * 1000)::bigint,
    failure_class = 'test.ResolvedByHand', failure_trace = 'by hand',
    failure_throwable = '' WHERE job_id = '$J3'" > /dev/null ||
    bail "cannot resolve J3 by hand"
touch "$T/go.$J3"
wait_until 100 'grep -q "resolved by another runner while its action ran; result dropped" "$RLOG"'
ok $? "  the command's result: dropped, and said so"
is "$(row $J3)" "COMPLETED 1 test.ResolvedByHand" "  the trigger as it was resolved"

# --- 4. a claim in doubt learned of too late ----------------------------------

replay pause
n=$(grep -c "synchronous replication was cancelled" "$RLOG")
is "$(post $J4 $TID)" "202 {\"request-id\":\"$TID\"}" "too late: the trigger accepted"
wait_until 100 '[ "$(grep -c "synchronous replication was cancelled" "$RLOG")" -gt '"$n"' ]'
ok $? "  the runner's claim of it: the wait for the standby cancelled"
hold "$RUNNER_0"
replay resume
is "$(row $J4)" "IN_PROGRESS 1 ok" "  the claim is on the primary, with id 1"
wait_until 400 '[ "$(psql_q "SELECT floor(extract(epoch FROM now()) * 1000)::bigint
    - claimed_ms > 26000 FROM triggers WHERE job_id = '\''$J4'\''")" = t ]'
ok $? "  26 s of its 31 s lease gone, the runner held all along"
let_go
wait_until 100 '[ "$(row $J4)" != "IN_PROGRESS 1 ok" ]'
is "$(row $J4)" "COMPLETED 1 org.apache.flink.runtime.checkpoint.CheckpointException" \
    "  let go, the runner fails the claim at once, its id 1 used"
TRACE=$(psql_q "SELECT failure_trace FROM triggers WHERE job_id = '$J4'")
like "$TRACE" "Checkpoint expired before completing" "  as expired"
like "$TRACE" "the runner $(owner "$RUNNER_0") that claimed it learned of the claim too late to run its action" \
    "  the runner's own trace: it learned of the claim too late"
is "$(ran $J4)" "" "  its command never ran"
touch "$T/go.$J4"
is "$(post $J4 $TID2)" "202 {\"request-id\":\"$TID2\"}" "  the next trigger accepted"
wait_until 100 '[ "$(row $J4 "" $TID2)" = "COMPLETED 2 ok" ]'
ok $? "  and COMPLETED with the next id, 2, its command run"

# --- all -----------------------------------------------------------------------

is "$(grep -c 'result dropped' "$RLOG")" 1 \
    "the runner's log: one result dropped, the one resolved by hand"
is "$(grep -c 'recorded by the commit that had not been confirmed' "$RLOG")" 2 \
    "  two found recorded by their own commits"
is "$(ran $J1)$(ran $J2)$(ran $J3)$(ran $J4)" "1 $TID,1 $TID,1 $TID,2 $TID2," \
    "each command ran once, none for the claim learned of too late"
runner_stop 0
is "$?" 0 "the runner exits 0 on SIGTERM"

done_testing
