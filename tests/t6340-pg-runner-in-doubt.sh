#!/bin/sh
# A runner's claim whose commit was in doubt (checkpoint-runner(8),
# "Crashes"; checkpoint-api(7), "CHECKPOINT IDS").  The runner claims a
# trigger (its checkpoint id taken in the same transaction) and runs the
# job's command only once the claim's COMMIT has returned.  When COMMIT
# fails without saying whether it was made, the claim may be there all
# the same, owned by the live runner that never ran its command: the
# runner must find it at its next pass and run the command under the id
# the claim took, not hold the job for the claim's lease (the job's
# timeout and 30 s) and then fail it as expired, "the runner that claimed
# it is gone", its id used and its command never run.
#
# Seeing its claim is not enough: on a primary whose wait for the standby
# was cancelled, the claim may be on the primary alone, and a standby
# promoted without it would give the trigger the same id again, and the
# command would run twice.  So the runner first renews the claim's lease,
# a write whose commit waits for the standby, and runs the command only
# once the renewal committed.
#
# A PostgreSQL primary and a synchronous standby (pg_basebackup, fsync
# on), synchronous_commit = remote_apply on the primary: a commit waits
# until the standby has applied it, so that pausing the standby's replay
# (pg_wal_replay_pause) holds every commit of the runner, while the
# standby still receives the WAL.  The app (checkpoint-api.fcgi on a
# socket) commits asynchronously (CHECKPOINT_SYNC=NORMAL), so that only
# the runner's writes wait.  Three jobs with a 3 s timeout, whose command
# appends its job, checkpoint id and trigger to a log and sleeps 0.3 s;
# the watching runners have CHECKPOINT_DB a URI naming both servers
# (target_session_attrs=read-write).  Each case: trigger 1 completes,
# then trigger 2 is POSTed and the runner's claim of it is committed on
# the primary, its wait for the standby cancelled or cut short:
#   1. the replay paused, the wait is cancelled by the runner's
#      statement_timeout (5 times CHECKPOINT_BUSY_TIMEOUT, 200ms here):
#      the server commits on the primary only and the runner gets an
#      error.  Let go with the replay still paused, the runner finds its
#      claim at each pass, and each renewal's wait is cancelled in turn:
#      the command must not run while the standby lacks the claim; then
#      the replay resumes;
#   2. the replay paused, once the standby has received the claim's
#      commit record, the primary's postmaster gets SIGKILL; the runner
#      cannot open the database again until the standby is promoted
#      (pg_ctl promote -w), which applies the claim;
#   3. on the promoted server of case 2 and a new standby of it: the
#      standby stops receiving WAL (primary_conninfo emptied) once it has
#      trigger 2, the claim's wait is cancelled, and so is each renewal's;
#      the primary is killed and the standby promoted, without the claim
#      and with the job's counter at 1.
# Proved, each time: in 1 and 2, the claim is there (on the primary, on
# the promoted server), the runner's, with id 2, while the runner (held
# by SIGSTOP while this is looked at) has no child; in 1 and 3, no
# command ran for trigger 2 while its renewal could not be confirmed.
# Then the runner, never restarted, runs trigger 2's command once: in 1
# and 2 at its next pass, under the id the claim took; in 3 by claiming
# the trigger again on the promoted server, with id 2 again, its claim in
# doubt never run.  Trigger 2 COMPLETED with id 2 and no failure, then
# trigger 3 (POSTed right after) with id 3, well within 10 s (the lease
# would hold the job 33 s); the job's command log is exactly ids 1, 2, 3,
# each for its own trigger; no "expired" anywhere; ids dense, the counter
# at 3.  Without the renewal, case 3's command runs twice under id 2.
#
# Bounded: about 30 s; ~60 s when the runner waits out the lease (each
# wait gives up after 10 to 15 s).
# shellcheck disable=SC2016,SC2034,SC2154
. "$(dirname "$0")/lib.sh"
PG_FSYNC=on
. "$(dirname "$0")/pg.sh"
. "$(dirname "$0")/pg-hosts.sh"

J1=6340000000000000000000000000000a
J2=6340000000000000000000000000000b
J3=6340000000000000000000000000000c
TID1=00000000000000000000000000000001
TID2=00000000000000000000000000000002
TID3=00000000000000000000000000000003
CMDLOG=$T/commands.log
: > "$CMDLOG"

# post JOB TID: the app's answer to a POST of the trigger, "CODE BODY".
post() {
	fcgi_raw POST "/jobs/$1/checkpoints" "{\"triggerId\":\"$2\"}" |
	    status_body
}
accepted() {
	printf '202 {"request-id":"%s"}' "$1"
}

# row JOB TID: the trigger as the server Q_PORT holds it: status,
# checkpoint id (or -), failure class (or ok).
row() {
	q "SELECT status || ' ' || coalesce(checkpoint_id::text, '-') || ' ' ||
	    coalesce(failure_class, 'ok')
	    FROM triggers WHERE job_id = '$1' AND trigger_id = '$2'"
}

# claimed JOB TID: the same, and who claimed it (or -).
claimed() {
	q "SELECT status || ' ' || coalesce(checkpoint_id::text, '-') || ' ' ||
	    coalesce(claimed_by, '-')
	    FROM triggers WHERE job_id = '$1' AND trigger_id = '$2'"
}

waiting() {
	q "SELECT count(*) FROM triggers WHERE job_id = '$1'
	    AND status = 'IN_PROGRESS'"
}

# ran JOB: the checkpoint ids and triggers the job's command ran for.
ran() {
	awk -v j="$1" '$1 == j { print $2, $3 }' "$CMDLOG" | tr '\n' ','
}

# claim_waits: a session of a runner waits for the standby in COMMIT.
claim_waits() {
	[ "$(psql_q "SELECT count(*) FROM pg_stat_activity
	    WHERE application_name = 'checkpoint-runner'
	    AND wait_event = 'SyncRep' AND query = 'COMMIT'" postgres)" = 1 ]
}

# first_trigger JOB CASE: trigger 1 POSTed and completed with id 1.
first_trigger() {
	is "$(post "$1" $TID1)" "$(accepted $TID1)" "$2: trigger 1 accepted"
	wait_until 100 "[ \"\$(waiting $1)\" -eq 0 ]"
	is "$(row "$1" $TID1)" "COMPLETED 1 ok" \
	    "  and COMPLETED with checkpoint id 1"
}

# claim_held JOB CASE: with the replay paused, trigger 2 POSTed and the
# runner's claim of it waiting for the standby in COMMIT.
claim_held() {
	replay pause
	is "$(post "$1" $TID2)" "$(accepted $TID2)" "$2: trigger 2 accepted"
	wait_until 50 claim_waits
	ok $? "  the runner's claim of it waits in COMMIT for the standby"
}

# settled JOB RUNNER-PID SINCE CASE: trigger 3 POSTed (again until the
# app has a server), then every check of the job once nothing of it
# waits, 10 s at most; SINCE: when the runner was let go (epoch ms).
settled() {
	wait_until 50 "[ \"\$(post $1 $TID3)\" = \"\$(accepted $TID3)\" ]"
	ok $? "$4: trigger 3 accepted"
	wait_until 100 "[ \"\$(waiting $1)\" -eq 0 ]"
	ok $? "  nothing of the job left IN_PROGRESS within 10 s (the lease: 33 s)"
	diag "settled $(($(now_ms) - $3)) ms after the runner was let go"
	is "$(row "$1" $TID2)" "COMPLETED 2 ok" \
	    "  trigger 2 COMPLETED with the claim's id 2, no failure"
	is "$(row "$1" $TID3)" "COMPLETED 3 ok" \
	    "  trigger 3 COMPLETED with id 3"
	is "$(ran "$1")" "1 $TID1,2 $TID2,3 $TID3," \
	    "  the command ran for ids 1, 2, 3, each once, for its own trigger"
	is "$(ids_not_dense "$1")$(q "SELECT last_id FROM checkpoint_counters
	    WHERE job_id = '$1'")" 3 "  ids dense: 1..3, each once, the counter at 3"
	! gone "$2"
	ok $? "  the same runner process, never restarted"
}

remote_apply_start
logged_jobs 3 $J1 $J2
is "$(psql_q "SELECT application_name || ' ' || sync_state
    FROM pg_stat_replication" postgres)" "standby1 sync" \
    "a streaming standby, synchronous (pg_stat_replication)"
is "$(psql_q "SHOW synchronous_commit")" remote_apply \
    "  commits wait until it has applied them"
app_async

# --- 1. the wait for the standby cancelled: committed on the primary only ----

runner_quick 0
first_trigger $J1 "the cancelled wait"
claim_held $J1 "the cancelled wait"
wait_until 50 'grep -q "synchronous replication was cancelled" "$T/runner-0.log"'
ok $? "  cancelled after the runner's statement_timeout: an error to the runner"
# Held while the claim is looked at: its next pass comes a second later.
hold "$RUNNER_0"
is "$(pgrep -P "$RUNNER_0" | grep -c .)" 0 "  the runner runs no command"
is "$(claimed $J1 $TID2)" "IN_PROGRESS 2 $(owner "$RUNNER_0")" \
    "  yet the claim is on the primary, the live runner's, with id 2"
# Let go with the replay still paused: the runner finds its claim at each
# pass, and its renewal's commit waits for the standby, and is cancelled.
let_go
wait_until 150 '[ "$(grep -c "not renewed" "$T/runner-0.log")" -ge 2 ]'
ok $? "  let go, the runner renews its claim, and twice the renewal is not confirmed"
is "$(ran $J1)" "1 $TID1," "  meanwhile the command has not run for trigger 2"
is "$(pgrep -P "$RUNNER_0" | grep -c .)" 0 "  nor runs"
is "$(psql_q "SELECT count(*) FROM triggers WHERE job_id = '$J1'
    AND trigger_id = '$TID2' AND claimed_by IS NOT NULL" "" \
    "$PG_STANDBY_PORT")" 0 "  the standby still has no claim of trigger 2"
replay resume
T_SEEN=$(now_ms)
settled $J1 "$RUNNER_0" "$T_SEEN" "the cancelled wait"
runner_stop 0
is "$?" 0 "the runner exits 0 on SIGTERM"

# --- 2. the primary dead while the claim's COMMIT waits, the standby promoted -

RLOG=$T/runner-1.log
runner_start 1
first_trigger $J2 "failover"
claim_held $J2 "failover"
LSN=$(psql_q "SELECT pg_current_wal_flush_lsn()" postgres)
wait_until 50 '[ "$(psql_q "SELECT pg_wal_lsn_diff(pg_last_wal_receive_lsn(),
    '\''$LSN'\'') >= 0" "" "$PG_STANDBY_PORT")" = t ]'
ok $? "  the standby has received the claim's commit record"
REOPEN=$(grep -c 'failing; opening it again' "$RLOG")
pg_kill9
wait_until 50 '[ "$(grep -c "failing; opening it again" "$RLOG")" -gt "$REOPEN" ]'
ok $? "the primary killed: the runner finds the database failing"
wait_until 50 '[ "$(grep -c "]: error: .*Connection refused" "$RLOG")" -gt 0 ]'
ok $? "  and cannot open it again while no server takes writes"
# Held from before the promotion until the claim has been looked at.
hold "$RUNNER_1"
pg_promote
is "$?" 0 "the standby is promoted (pg_ctl promote -w)"
Q_PORT=$PG_STANDBY_PORT
is "$(pgrep -P "$RUNNER_1" | grep -c .)" 0 "  the runner runs no command"
is "$(claimed $J2 $TID2)" "IN_PROGRESS 2 $(owner "$RUNNER_1")" \
    "  yet the claim is on the promoted server, the live runner's, with id 2"
let_go
T_SEEN=$(now_ms)
settled $J2 "$RUNNER_1" "$T_SEEN" "failover"
runner_stop 1
is "$?" 0 "the runner exits 0 on SIGTERM"

# --- 3. the primary lost before the standby has the claim --------------------

# The promoted server is the primary now, with a new synchronous standby
# (the old primary's data left as it died); the app and a new runner are
# given both.
pg_orphans_stop
PGDATA_DIR=$PG_STANDBY_DIR
PG_PORT=$PG_STANDBY_PORT
PG_STANDBY_DIR=$PG_DIR/standby2
Q_PORT=
pg_standby
pg_sync_standby
CHECKPOINT_DB=$(pg_uri_hosts)
stop_pid "$APP"
app_async
logged_jobs 3 $J3
RLOG=$T/runner-2.log
runner_quick 2
first_trigger $J3 "the primary lost"
# Trigger 2 POSTed while the runner is held, until the standby has it
# (the app's commit does not wait for it).
hold "$RUNNER_2"
is "$(post $J3 $TID2)" "$(accepted $TID2)" "  trigger 2 accepted"
wait_until 50 '[ "$(psql_q "SELECT count(*) FROM triggers
    WHERE job_id = '\''$J3'\'' AND trigger_id = '\''$TID2'\''" "" \
    "$PG_STANDBY_PORT")" = 1 ]'
ok $? "  and on the standby"
# Then the standby stops receiving WAL (no primary_conninfo: no WAL
# receiver), so that nothing committed from now on reaches it.
psql_q "ALTER SYSTEM SET primary_conninfo = ''" "" "$PG_STANDBY_PORT" &&
    psql_q "SELECT pg_reload_conf()" "" "$PG_STANDBY_PORT" > /dev/null ||
    bail "cannot detach the standby"
wait_until 100 '[ "$(psql_q "SELECT count(*) FROM pg_stat_replication" \
    postgres)" = 0 ]'
ok $? "  the standby detached: no WAL sender left on the primary"
let_go
wait_until 50 'grep -q "synchronous replication was cancelled" "$RLOG"'
ok $? "  the runner's claim of it: the wait for the standby cancelled"
wait_until 150 '[ "$(grep -c "not renewed" "$RLOG")" -ge 2 ]'
ok $? "  the runner finds its claim, and twice its renewal is not confirmed"
is "$(claimed $J3 $TID2)" "IN_PROGRESS 2 $(owner "$RUNNER_2")" \
    "  the claim is on the primary, the live runner's, with id 2"
is "$(ran $J3)" "1 $TID1," "  yet the command has not run for trigger 2"
# Held while the primary dies and the standby is promoted, then looked at.
hold "$RUNNER_2"
pg_kill9
pg_promote
is "$?" 0 "the primary killed, the standby is promoted (pg_ctl promote -w)"
Q_PORT=$PG_STANDBY_PORT
is "$(claimed $J3 $TID2)" "IN_PROGRESS - -" \
    "  it has trigger 2, never claimed"
is "$(q "SELECT last_id FROM checkpoint_counters WHERE job_id = '$J3'")" 1 \
    "  and the job's counter at 1: the claim's id 2 is not taken there"
let_go
T_SEEN=$(now_ms)
settled $J3 "$RUNNER_2" "$T_SEEN" "the primary lost"
is "$(grep -c 'its action runs now' "$RLOG")" 0 \
    "  the claim in doubt was never run: trigger 2 was claimed again"
runner_stop 2
is "$?" 0 "the runner exits 0 on SIGTERM"

# --- all -----------------------------------------------------------------------

is "$(q "SELECT count(*) FROM triggers WHERE status <> 'COMPLETED'
    OR failure_class IS NOT NULL")" 0 \
    "every trigger on the last promoted server COMPLETED, none failed"
is "$(cat "$T"/runner-*.log | grep -c -e 'expired' -e 'result dropped')" 0 \
    "the runners' logs: nothing expired, no result dropped"
is "$(cat "$T"/runner-*.log | grep -c 'its action runs now')" 2 \
    "  the first two runners each ran their claim in doubt once they found it"

done_testing
