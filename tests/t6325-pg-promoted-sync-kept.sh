#!/bin/sh
# A promoted standby that kept synchronous_standby_names, as plain
# streaming replication leaves it when primary and standby are configured
# alike (scripts/README.examples, "Failover needs synchronous
# replication"): after the promotion it waits for a synchronous standby of
# its own that is not there, so no commit is confirmed, and the app
# answers the contract's 503, never 202.  The operator has two ways out,
# each tried here on a pair of its own, with the app behind lighttpd and a
# watching runner never restarted:
#
#   A. give up the guarantee: synchronous_standby_names cleared on the
#      promoted server (ALTER SYSTEM, pg_reload_conf());
#   B. keep it: a new standby made from the promoted server
#      (pg_basebackup -R) attaches under the name the setting waits for.
#
# After each, the same POSTs are answered 202, the same lighttpd and
# FastCGI processes answering, and the runner completes every trigger,
# those answered 503 while the server waited included (a 503 is retried
# with the same triggerId: it starts nothing twice).
#
# Bounded: a POST waits at most five busy timeouts (10 s) before its 503.
# shellcheck disable=SC2086,SC2154
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg.sh"
. "$(dirname "$0")/pg-hosts.sh"

JOB=6325000000000000000000000000000a
STANDBY2_DIR=$PG_DIR/standby2
STANDBY2_STARTED=

standby2_stop() {
	[ -n "$STANDBY2_STARTED" ] || return 0
	STANDBY2_STARTED=
	pg_server_stop "$STANDBY2_DIR"
}
at_cleanup standby2_stop

# post TRIGGER: POSTs the trigger through host A (60 s at most); prints
# the status and the body on one line.
post() {
	curl -s -m 60 -o "$T/post-body" -w '%{http_code}' -X POST \
	    -d "{\"triggerId\":\"$1\"}" "$HOST_A/jobs/$JOB/checkpoints"
	printf ' %s\n' "$(cat "$T/post-body")"
}

# setup: a primary and a standby configured alike, both with
# synchronous_standby_names naming the standby (set on the primary before
# the copy, which carries postgresql.auto.conf along), the schema and a
# job through the two-server URI, lighttpd A and a watching runner.
setup() {
	pg_start
	psql_q "ALTER SYSTEM SET synchronous_standby_names = 'standby1'" \
	    postgres > /dev/null || bail "cannot set synchronous_standby_names"
	pg_standby
	psql_q "SELECT pg_reload_conf()" postgres > /dev/null
	wait_until 100 '[ "$(psql_q "SELECT sync_state FROM pg_stat_replication
	    WHERE application_name = '\''standby1'\''" postgres)" = sync ]' ||
	    bail "standby1 is not synchronous"
	CHECKPOINT_DB=$(pg_uri_hosts)
	export CHECKPOINT_DB
	"$CTL" init > /dev/null && "$CTL" job add "$JOB" > /dev/null ||
	    bail "checkpointctl init and job add through $CHECKPOINT_DB failed"
	host_start A
	runner_start 0
}

# promote_kept NAME: the primary dies, the standby is promoted and keeps
# the setting; a POST then gets the contract's 503.  Checks what NAME's
# run saw.
promote_kept() {
	is "$(post "${1}0000000000000000000000000000001")" \
	    '202 {"request-id":"'"${1}0000000000000000000000000000001"'"}' \
	    "$1: a POST through the pair is answered 202"
	APPS=$(host_apps A | sort | tr '\n' ' ')
	pg_kill9
	pg_promote
	is "$?" 0 "$1: the standby is promoted"
	is "$(psql_q "SHOW synchronous_standby_names" "" "$PG_STANDBY_PORT")" \
	    standby1 "$1:   and keeps synchronous_standby_names"
	is "$(post "${1}0000000000000000000000000000002")" "503 $SVC_CANNOT" \
	    "$1: with no synchronous standby of its own, a POST is answered 503, not 202"
}

# recovered NAME: once the way out is taken, the POST answered 503 and
# a new one are answered 202 by the same processes, and the runner
# completes all three.
recovered() {
	for _k in 2 3; do
		_id=${1}000000000000000000000000000000$_k
		wait_until 300 '[ "$(post "$_id")" = "202 {\"request-id\":\"$_id\"}" ]'
		ok $? "$1: POST $_k is answered 202 again"
	done
	is "$(host_apps A | sort | tr '\n' ' ')" "$APPS" \
	    "$1:   by the same FastCGI processes, never restarted"
	Q_PORT=$PG_STANDBY_PORT
	wait_until 300 '[ "$(q "SELECT count(*) FROM triggers
	    WHERE job_id = '\''$JOB'\'' AND status = '\''COMPLETED'\''
	    AND failure_class IS NULL")" = 3 ]'
	ok $? "$1: the runner, never restarted, completes the three triggers"
	is "$(q "SELECT string_agg(checkpoint_id::text, ' '
	    ORDER BY checkpoint_id) FROM triggers WHERE job_id = '$JOB'")" \
	    "1 2 3" "$1:   with checkpoint ids 1 2 3"
	Q_PORT=
}

# --- A: the operator gives up the guarantee ----------------------------------

setup
promote_kept a
psql_q "ALTER SYSTEM SET synchronous_standby_names = ''" "" \
    "$PG_STANDBY_PORT" > /dev/null &&
    psql_q "SELECT pg_reload_conf()" "" "$PG_STANDBY_PORT" > /dev/null
ok $? "a: synchronous_standby_names cleared on the promoted server"
recovered a
runner_stop 0
stop_pid "$HOST_A_PID"
pg_standby_stop
pg_stop

# --- B: a new synchronous standby attaches -----------------------------------

setup
promote_kept b
(cd "$PG_DIR" && as_pg_user "$PG_BIN/pg_basebackup" -h "$PG_DIR" \
    -p "$PG_STANDBY_PORT" -U postgres -D "$STANDBY2_DIR" -R -X stream \
    -c fast --no-sync) > "$PG_DIR/basebackup2.log" 2>&1 ||
    bail "pg_basebackup from the promoted server failed: $(tail -n 5 "$PG_DIR/basebackup2.log")"
STANDBY2_STARTED=1
pg_server_start "$STANDBY2_DIR" "$PG_DIR/standby2.log" "" \
    -c cluster_name=standby1
wait_until 300 '[ "$(psql_q "SELECT sync_state FROM pg_stat_replication
    WHERE application_name = '\''standby1'\''" "" "$PG_STANDBY_PORT")" = sync ]'
ok $? "b: a new standby made from the promoted server attaches as standby1, synchronous"
recovered b
runner_stop 0

done_testing
