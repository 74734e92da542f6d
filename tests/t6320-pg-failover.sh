#!/bin/sh
# Failover to a synchronous standby under load (checkpoint-api(7), "ERRORS"
# and "IDEMPOTENCY"): a PostgreSQL primary and a streaming standby made by
# pg_basebackup, the standby synchronous (synchronous_standby_names, seen
# as sync in pg_stat_replication), fsync on.  The app behind lighttpd and a
# checkpoint-runner --watch both have CHECKPOINT_DB a URI naming both
# servers with target_session_attrs=read-write.  Under the POSTs of six
# clients, the link to the standby stalls (the primary's WAL sender
# stopped) for longer than the app's busy timeout, then the primary's
# postmaster gets SIGKILL, the stalled sender too (a dead machine), and the
# standby is promoted (pg_ctl promote -w).  Proved: while the primary is
# gone the app answers the contract's 503 and nothing else; after the
# promotion it answers 202 again, lighttpd and its FastCGI processes the
# same processes; every trigger answered 202 is on the promoted server,
# none lost (a commit that never reached the standby was never answered
# 202); the same runner process, never restarted, completes them all there,
# checkpoint ids still 1..n per job.
#
# Then a control run, the same with the standby asynchronous, must lose
# triggers answered 202 (those the stalled sender never sent): the stall
# and the kill are real, and the checks above would see the loss.
#
# Bounded: about 10 s a run, at most ~15 s more to stop the clients.
# shellcheck disable=SC2086,SC2154
. "$(dirname "$0")/lib.sh"
PG_FSYNC=on
. "$(dirname "$0")/pg.sh"
. "$(dirname "$0")/pg-hosts.sh"

STALL_S=3	# longer than the default busy timeout (2 s)
JA=6320000000000000000000000000000a
JB=6320000000000000000000000000000b

# answered CODE FROM TO: how many answers CODE came between the two times
# (epoch ms).
answered() {
	awk -v c="$1" -v f="$2" -v t="$3" '$3 == c && $1 >= f && $1 < t' \
	    "$T/answers" | grep -c .
}

# failover_setup SYNC HOST: a primary and a standby (synchronous if SYNC
# is sync), the schema and two jobs through the two-server URI, lighttpd
# HOST and a watching runner in front of them.
failover_setup() {
	pg_start
	pg_standby
	[ "$1" = sync ] && pg_sync_standby
	CHECKPOINT_DB=$(pg_uri_hosts)
	export CHECKPOINT_DB
	"$CTL" init > /dev/null && "$CTL" job add "$JA" > /dev/null &&
	    "$CTL" job add "$JB" > /dev/null ||
	    bail "checkpointctl init and job add through $CHECKPOINT_DB failed"
	host_start "$2"
	runner_start 0
}

# failover_load HOST: six clients POST through HOST; after 2 s the link to
# the standby stalls (the primary's WAL sender stopped) for STALL_S s, then
# the primary's machine dies: its postmaster, and the stalled sender with
# it (what it holds never reaches the standby).  Once an answer 503 came,
# the standby is promoted, and the clients go on until 20 answers 202 came
# after.  Sets T_STALL, T_KILL, T_PROMOTED, T_END (epoch ms), SAW_503,
# PROMOTED and SAW_202 (0: yes).
failover_load() {
	eval "CLIENT_HOSTS=\$HOST_$1"
	CLIENT_JOBS="$JA $JB"
	clients_start 6
	sleep 2
	SENDER=$(psql_q "SELECT pid FROM pg_stat_replication" postgres)
	[ -n "$SENDER" ] || bail "no WAL sender"
	T_STALL=$(now_ms)
	hold "$SENDER"
	sleep "$STALL_S"
	T_KILL=$(now_ms)
	pg_kill9
	kill -KILL "$SENDER"
	HELD=
	wait_until 50 '[ "$(answered_since 503 "$T_KILL")" -gt 0 ]'
	SAW_503=$?
	failover_promote
}

failover_setup sync A
is "$(psql_q "SELECT application_name || ' ' || sync_state
    FROM pg_stat_replication" postgres)" "standby1 sync" \
    "a streaming standby, synchronous (pg_stat_replication)"
is "$(psql_q "SHOW fsync")" on "  fsync on"
is "$(psql_q "SELECT count(*) FROM jobs" "" "$PG_STANDBY_PORT")" 2 \
    "checkpointctl made the schema and two jobs through the two-server URI; on the standby too"
APPS=$(host_apps A | sort | tr '\n' ' ')
LIGHTTPD=$HOST_A_PID
RUNNER0=$RUNNER_0

failover_load A
is "$SAW_503" 0 "with the primary gone, the app answers 503"
is "$PROMOTED" 0 "the standby is promoted (pg_ctl promote -w)"
is "$(psql_q "SELECT pg_is_in_recovery()" "" "$PG_STANDBY_PORT")" f \
    "  and takes writes"
is "$SAW_202" 0 "after the promotion, POSTs are answered 202 again"

# --- what the clients saw ----------------------------------------------------

diag "answers before the stall: $(answered 202 0 "$T_STALL") 202s"
diag "during the stall ($STALL_S s): $(answered 202 "$T_STALL" "$T_KILL") 202s, $(answered 503 "$T_STALL" "$T_KILL") 503s"
diag "from the kill to the promotion ($((T_PROMOTED - T_KILL)) ms): $(answered 202 "$T_KILL" "$T_PROMOTED") 202s, $(answered 503 "$T_KILL" "$T_PROMOTED") 503s"
diag "after ($((T_END - T_PROMOTED)) ms): $(answered 202 "$T_PROMOTED" "$T_END") 202s, $(answered 503 "$T_PROMOTED" "$T_END") 503s"
diag "triggers answered 202: $(grep -c . "$T/accepted")"
diag "the longest POST: $(awk '$2 == "POST" { print $7 }' "$T/answers" |
    sort -n | tail -n 1) s"

is "$(odd_answers | head -n 5)" "" \
    "every answer a 202 with its id, a read, or the contract's 503"
[ "$(answered 202 0 "$T_STALL")" -gt 0 ]
ok $? "  202s before the stall"
is "$(gone "$LIGHTTPD" && echo gone)$(host_apps A | sort | tr '\n' ' ')" \
    "$APPS" "  lighttpd and its FastCGI processes the same, never restarted"

# --- what the promoted server holds -----------------------------------------

Q_PORT=$PG_STANDBY_PORT
is "$(accepted_missing)" 0 \
    "every trigger answered 202 is on the promoted server"
wait_until 150 '[ "$(pending)" -eq 0 ]'
ok $? "the runner completes them all there"
! gone "$RUNNER0"
ok $? "  the same runner process, never restarted"
diag "the runner's log: $(grep -c ']: error: ' "$T/runner-0.log") errors, $(grep -c ']: warn: ' "$T/runner-0.log") warnings"
is "$(accepted_not_completed)" 0 "every trigger answered 202 is COMPLETED"
is "$(ids_not_dense "$JA" "$JB")" "" \
    "checkpoint ids are exactly 1..n per job, each once, the counter at n"
is "$(q "SELECT count(*) FROM triggers WHERE failure_class IS NOT NULL")" 0 \
    "no failures"
runner_stop 0
is "$?" 0 "the runner exits 0 on SIGTERM"

# --- the control: asynchronous replication ----------------------------------

# The same run, the standby asynchronous: the stall no longer holds back
# the 202s, and the kill loses what the stalled sender held.  Triggers
# answered 202 missing after the promotion show that the stall and the
# kill are real, and what the checks above would see without synchronous
# replication.
stop_pid "$HOST_A_PID"
pg_standby_stop
pg_stop
Q_PORT=
failover_setup async C
is "$(psql_q "SELECT sync_state FROM pg_stat_replication" postgres)" async \
    "control: the standby asynchronous"
failover_load C
Q_PORT=$PG_STANDBY_PORT
LOST=$(accepted_missing)
diag "control: $(answered 202 "$T_STALL" "$T_KILL") 202s during the stall, $LOST of $(grep -c . "$T/accepted") triggers answered 202 lost"
[ "$LOST" -gt 0 ]
ok $? "  triggers answered 202 are lost by the failover"
runner_stop 0

done_testing
