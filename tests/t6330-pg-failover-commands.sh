#!/bin/sh
# Failover to a synchronous standby while checkpoint commands run
# (checkpoint-runner(8), "Crashes"; checkpoint-api(7), "ERRORS" and
# "CHECKPOINT IDS").  A PostgreSQL primary and a streaming standby made by
# pg_basebackup, synchronous (a commit waits for the standby), fsync on.
# Six jobs have a command that appends its job, checkpoint id and trigger
# to a log and sleeps 0.3 s.  The app behind lighttpd and one
# checkpoint-runner --watch have CHECKPOINT_DB a URI naming both servers
# with target_session_attrs=read-write.  Under the POSTs of a client, at
# a moment when the runner has commands running and no statement of its
# own on the way, the primary's postmaster gets SIGKILL; the commands end
# while no server takes writes, the runner fails to open the database
# again (the primary refuses, the standby is read-only), and only then is
# the standby promoted (pg_ctl promote -w).  Proved: the app answers the
# contract's 503, then 202 again; the runner, never restarted, opens the
# database again by itself and records the results it kept (its backlog)
# on the promoted server within their claims' leases, none resolved as
# expired; every trigger is COMPLETED there with a checkpoint id and no
# failure, every trigger answered 202 among them; each job's ids are
# 1..n; the command log holds each COMPLETED (job, checkpoint id) exactly
# once, run for the trigger that holds it, and no (job, checkpoint id)
# nor trigger twice.
#
# A claim committed on the primary but not on the standby cannot have run
# its command: the runner starts a command only once its claim's commit
# returned, which synchronous replication holds back until the standby
# has it.  The other way round is left out, by killing the primary only
# while the runner is held (SIGSTOP, for as long as one query of
# pg_stat_activity takes) between statements: a claim whose commit
# reached the standby but whose answer the dead primary never sent is,
# on the promoted server, the live runner's claim of a command it never
# started, which the runner runs at its next pass: t6340 proves that case
# alone, deterministically.
#
# Bounded: about 5 s of load, at most 20 s to drain (~35 s when the
# runner drops its backlog: the claims hold their jobs for their leases),
# ~15 s more to stop the clients if they hang.
# shellcheck disable=SC2016,SC2034,SC2086,SC2154
. "$(dirname "$0")/lib.sh"
PG_FSYNC=on
. "$(dirname "$0")/pg.sh"
. "$(dirname "$0")/pg-hosts.sh"

# Keep every result: nothing may be purged before it is checked.
CHECKPOINT_STORE_DURATION=0
export CHECKPOINT_STORE_DURATION

JOBS="6330000000000000000000000000000a 6330000000000000000000000000000b
    6330000000000000000000000000000c 6330000000000000000000000000000d
    6330000000000000000000000000000e 6330000000000000000000000000000f"
TIMEOUT_S=3	# the lease: this and the runner's 30 s of grace
CMDLOG=$T/commands.log
: > "$CMDLOG"
RLOG=$T/runner-0.log

# runner_log_since MS: the lines of the runner's log written at or after
# MS (epoch ms; the log's times are UTC to the millisecond).
runner_log_since() {
	_s=$(date -u -d "@$(($1 / 1000))" +%Y-%m-%dT%H:%M:%S)
	_s=$(printf '%s.%03dZ' "$_s" $(($1 % 1000)))
	awk -v s="$_s" '$1 >= s' "$RLOG"
}

# open_failures: the runner's errors since it began to open the database
# again after the kill.
open_failures() {
	runner_log_since "$T_KILL" | sed -n '/failing; opening it again/,$p' |
	    grep ']: error: '
}

# runner_busy: the runner has a child (a command, or its watchdog).
runner_busy() {
	[ -n "$(pgrep -P "$RUNNER_0")" ]
}

# kill_between_statements: SIGKILL to the primary's postmaster while the
# runner has a command running and none of its sessions runs a statement:
# the runner is held (SIGSTOP) while the primary is asked, and let go
# right after the kill.  A commit in flight at the kill could have
# reached the standby unanswered, a case this test leaves out (see
# above).  Sets T_KILL and TRIES; false if no such moment came in 100
# tries.
kill_between_statements() {
	TRIES=0
	while [ "$TRIES" -lt 100 ]; do
		TRIES=$((TRIES + 1))
		if runner_busy; then
			hold "$RUNNER_0"
			if [ "$(psql_q "SELECT count(*) FROM pg_stat_activity
			    WHERE application_name = 'checkpoint-runner'
			    AND state = 'active'" postgres)" = 0 ]; then
				T_KILL=$(now_ms)
				pg_kill9
				let_go
				return 0
			fi
			let_go
		fi
		sleep 0.05
	done
	return 1
}

pg_start
pg_standby
pg_sync_standby
CHECKPOINT_DB=$(pg_uri_hosts)
export CHECKPOINT_DB
"$CTL" init > /dev/null || bail "checkpointctl init through $CHECKPOINT_DB failed"
logged_jobs "$TIMEOUT_S" $JOBS
is "$(psql_q "SELECT application_name || ' ' || sync_state
    FROM pg_stat_replication" postgres)" "standby1 sync" \
    "a streaming standby, synchronous (pg_stat_replication)"
is "$(psql_q "SHOW fsync")" on "  fsync on"
is "$(psql_q "SELECT count(*) FROM jobs WHERE command IS NOT NULL" "" \
    "$PG_STANDBY_PORT")" 6 \
    "six jobs with a command, through the two-server URI; on the standby too"

host_start A
APPS=$(host_apps A | sort | tr '\n' ' ')
LIGHTTPD=$HOST_A_PID
# Every job's command at once: the primary dies while several run.
runner_start 0 --parallel 6

# --- the load, the kill, the promotion --------------------------------------

CLIENT_HOSTS=$HOST_A
CLIENT_JOBS=$JOBS
clients_start 1
T_START=$(now_ms)
wait_until 100 '[ "$(q "SELECT count(*) FROM triggers
    WHERE status = '\''COMPLETED'\''")" -ge 8 ]' ||
    bail "no commands completed before the kill: $(tail -n 3 "$RLOG")"
sleep 1
kill_between_statements ||
    bail "the runner never ran a command between its statements"
RUNNING=$(runner_log_since "$T_START" | grep -c 'action started')
# The commands that ran at the kill end, their results kept; the app
# answers 503.  Only then is there a server that takes writes again.
wait_until 50 '! runner_busy'
ENDED=$?
wait_until 50 '[ "$(answered_since 503 "$T_KILL")" -gt 0 ]'
SAW_503=$?
# And the runner has tried to open the database again, and failed: the
# dead primary refuses, the standby is not read-write.
wait_until 50 '[ -n "$(open_failures)" ]'
REFUSED=$?
KEPT_DOWN=$(runner_log_since "$T_KILL" | grep -c 'its result is kept')
failover_promote

ok "$ENDED" "the commands running at the primary's death end while no server takes writes"
is "$SAW_503" 0 "with the primary gone, the app answers 503"
is "$PROMOTED" 0 "the standby is promoted (pg_ctl promote -w)"
is "$(psql_q "SELECT pg_is_in_recovery()" "" "$PG_STANDBY_PORT")" f \
    "  and takes writes"
is "$SAW_202" 0 "after the promotion, POSTs are answered 202 again"
is "$(odd_answers | head -n 5)" "" \
    "every answer a 202 with its id, a read, or the contract's 503"
is "$(gone "$LIGHTTPD" && echo gone)$(host_apps A | sort | tr '\n' ' ')" \
    "$APPS" "  lighttpd and its FastCGI processes the same, never restarted"

# --- the runner, on the promoted server --------------------------------------

Q_PORT=$PG_STANDBY_PORT
is "$(accepted_missing)" 0 \
    "every trigger answered 202 is on the promoted server"
wait_until 200 '[ "$(pending)" -eq 0 ]'
ok $? "the runner leaves nothing IN_PROGRESS there"
T_DRAINED=$(now_ms)
# What is left: the claims (the first few) and how many wait behind them.
q "SELECT 'claimed: ' || job_id || ' ' || trigger_id || ' checkpoint ' ||
    checkpoint_id || ' by ' || claimed_by || ', lease left ' ||
    (lease_ms - (extract(epoch FROM clock_timestamp()) * 1000)::bigint)
    || ' ms' FROM triggers WHERE status = 'IN_PROGRESS'
    AND claimed_by IS NOT NULL ORDER BY id LIMIT 6
    " > "$T/left"
q "SELECT 'not claimed: ' || count(*) FROM triggers
    WHERE status = 'IN_PROGRESS' AND claimed_by IS NULL HAVING count(*) > 0
    " >> "$T/left"
while read -r l; do diag "$l"; done < "$T/left"
! gone "$RUNNER_0"
ok $? "  the same runner process, never restarted"

diag "load from $T_START: kill at +$((T_KILL - T_START)) ms, promoted at +$((T_PROMOTED - T_START)) ms, clients stopped at +$((T_END - T_START)) ms, drained at +$((T_DRAINED - T_START)) ms"
diag "commands started before the kill: $RUNNING (the moment found at try $TRIES); command runs logged: $(grep -c . "$CMDLOG")"
diag "answers: $(awk '{ print $2 " " $3 }' "$T/answers" | sort | uniq -c |
    tr -s ' ' | tr '\n' ',')"
diag "triggers answered 202: $(grep -c . "$T/accepted"); on the promoted server: $(q "SELECT count(*) FROM triggers")"
diag "the runner's log: $(grep -c ']: error: ' "$RLOG") errors, $(grep -c ']: warn: ' "$RLOG") warnings"

# The runner found the database failing, opened it again by itself, and
# went on there.
[ "$(runner_log_since "$T_KILL" | grep -c 'failing; opening it again')" -gt 0 ]
ok $? "the runner's log: the database failing after the kill, opened again"
is "$REFUSED" 0 "  its attempts failed while no server took writes"
diag "the first: $(open_failures | head -n 1 | sed 's/^[^ ]* //')"
[ "$(runner_log_since "$T_PROMOTED" | grep -c ': checkpoint [0-9]* completed$')" -gt 0 ]
ok $? "  and checkpoints completed after the promotion, by the same process"

# The results of the commands that ended while no server took writes:
# kept, then recorded on the promoted server (their claims were there:
# synchronous replication), each once, none past its lease.
runner_log_since "$T_KILL" | sed -n \
    's/.*trigger \([0-9a-f]*\) job \([0-9a-f]*\): checkpoint \([0-9]*\): its result is kept.*/\2 \3 \1/p' \
    | sort -u > "$T/kept"
awk '{ print "trigger " $3 " " }' "$T/kept" > "$T/kept.tids"
diag "results kept while the database was down: $(grep -c . "$T/kept") ($KEPT_DOWN before the promotion)"
[ "$KEPT_DOWN" -gt 0 ]
ok $? "the runner kept the results of commands that ended with no server to take them"
runner_log_since "$T_PROMOTED" | sed -n \
    's/.*trigger \([0-9a-f]*\) job \([0-9a-f]*\): checkpoint \([0-9]*\) completed$/\2 \3 \1/p' \
    | sort > "$T/completed-after"
is "$(comm -23 "$T/kept" "$T/completed-after")" "" \
    "  each kept result recorded after the promotion (the runner's log)"
LAST=$(runner_log_since "$T_PROMOTED" | grep -F -f "$T/kept.tids" |
    grep ' completed$' | tail -n 1 | cut -d ' ' -f 1)
[ -n "$LAST" ] && diag "the last kept result recorded $(($(date -d "$LAST" +%s%3N) - T_PROMOTED)) ms after the promotion"
{
	echo "CREATE TEMP TABLE kept (job_id text, checkpoint_id bigint, trigger_id text);"
	echo "COPY kept FROM STDIN (DELIMITER ' ');"
	cat "$T/kept"
	printf '\\.\n'
	echo "SELECT k.job_id || ' ' || k.checkpoint_id || ' ' || k.trigger_id
	    FROM kept k LEFT JOIN triggers t USING (job_id, trigger_id)
	    WHERE t.status IS DISTINCT FROM 'COMPLETED'
	    OR t.checkpoint_id IS DISTINCT FROM k.checkpoint_id
	    OR t.failure_class IS NOT NULL;"
} | q_in > "$T/kept.out"
is "$(cat "$T/kept.out")" "" \
    "  each COMPLETED on the promoted server with its checkpoint id, no failure"
is "$(grep -c 'never recorded before its lease ended' "$RLOG")" 0 \
    "  no kept result outlived its lease"
# Dropped, it would have been a result whose commit reached the standby
# unanswered: none was on the way at the kill.
is "$(grep -c 'result dropped' "$RLOG")" 0 \
    "  none found its trigger resolved already"

# --- what the promoted server holds -------------------------------------------

is "$(accepted_not_completed)" 0 "every trigger answered 202 is COMPLETED"
is "$(q "SELECT count(*) FROM triggers WHERE status <> 'COMPLETED'
    OR checkpoint_id IS NULL OR failure_class IS NOT NULL")" 0 \
    "every trigger there COMPLETED with a checkpoint id, none failed"
is "$(q "SELECT count(*) FROM triggers
    WHERE failure_trace LIKE '%Checkpoint expired%'")" 0 \
    "  none resolved as expired: the runner stayed alive and recorded its own"
is "$(ids_not_dense $JOBS)" "" \
    "checkpoint ids are exactly 1..n per job, each once, the counter at n"

# --- the commands -------------------------------------------------------------

[ -s "$CMDLOG" ]
ok $? "the commands ran"
is "$(grep -Evc '^[0-9a-f]{32} [1-9][0-9]* [0-9a-f]{32}$' "$CMDLOG")" 0 \
    "every command-log line is whole"
is "$(awk '{ print $1, $2 }' "$CMDLOG" | sort | uniq -d | head -n 5)" "" \
    "no (job, checkpoint id) ran twice"
is "$(awk '{ print $1, $3 }' "$CMDLOG" | sort | uniq -d | head -n 5)" "" \
    "no trigger's command ran twice"
{
	echo "CREATE TEMP TABLE ran (job_id text, checkpoint_id bigint, trigger_id text);"
	echo "COPY ran FROM STDIN (DELIMITER ' ');"
	cat "$CMDLOG"
	printf '\\.\n'
	echo "SELECT 'ran, not its trigger''s COMPLETED id: ' || r.job_id || ' ' ||
	    r.checkpoint_id || ' ' || r.trigger_id FROM ran r
	    LEFT JOIN triggers t USING (job_id, trigger_id)
	    WHERE t.status IS DISTINCT FROM 'COMPLETED'
	    OR t.checkpoint_id IS DISTINCT FROM r.checkpoint_id;"
	echo "SELECT 'COMPLETED, ran ' || count(r.job_id) || ' times: ' ||
	    t.job_id || ' ' || t.checkpoint_id FROM triggers t
	    LEFT JOIN ran r USING (job_id, checkpoint_id)
	    WHERE t.status = 'COMPLETED' GROUP BY t.job_id, t.checkpoint_id
	    HAVING count(r.job_id) <> 1;"
} | q_in > "$T/ran.out"
is "$(head -n 5 "$T/ran.out")" "" \
    "every COMPLETED checkpoint id ran exactly once, for its own trigger"

runner_stop 0
is "$?" 0 "the runner exits 0 on SIGTERM"

done_testing
