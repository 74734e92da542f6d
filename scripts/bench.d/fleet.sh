#!/bin/sh
# scripts/bench --stage fleet: the runner over a fleet of jobs, at
# several sizes, to show what a pass costs: the work it does, not the
# fleet's size.  Run from the root of a build (scripts/bench does, after
# building).
#
# For each store (SQLite with default settings; PostgreSQL when the build
# has it, on a throwaway cluster of tests/pg.sh, fsync on) and each size
# in SIZES (1000 10000 100000): JOBS registered jobs, RUNNING, each with
# KEPT (10) finished checkpoints in its history (fleet-seed.sh on SQLite,
# the same rows by SQL on PostgreSQL), and
#   - pass: each job given the command `true` and one waiting trigger,
#     one `checkpoint-runner` pass (two parallel actions): the actions a
#     second over the pass's wall time (stopped after SECS, 120), and
#     from the first completion to the last (actions_rate);
#   - idle: then passes with nothing to do, their duration_ms (--stats);
#   - watch: a watching runner while TRIGGERS (1000) triggers are posted
#     at RATE (100) a second, round robin over the jobs, through the
#     store (checkpointctl-free SQL, as the API's POST writes them): the
#     wait from a trigger's creation to its completion, p50 and p99;
#   - schedules: every job scheduled every minute for SCHED_SECS (150)
#     under RUNNERS (1) watching runners: the slots fired, those counted
#     missed, and the lag from slot to fire, p50 and p99.
# CASES (pass idle watch schedules) chooses among them; the triggers a
# pass completed stay in the store, which the later cases read past.
# Prints one line a measure:
#   fleet STORE CASE JOBS FIGURES...
# Figures belong in scripts/bench.d/results.md, with the machine's load.
# When scripts/bench.d/fleet-lists.sh exists, it runs after, with the
# same SIZES.
set -u
ROOT=$(pwd)
SECS=${SECS:-120}
KEPT=${KEPT:-10}
SIZES=${SIZES:-"1000 10000 100000"}
STORES=${STORES:-"sqlite postgresql"}
TRIGGERS=${TRIGGERS:-1000}
RATE=${RATE:-100}
SCHED_SECS=${SCHED_SECS:-150}
RUNNERS=${RUNNERS:-1}
CASES=${CASES:-"pass idle watch schedules"}
for c in $CASES; do
	case $c in
	pass | idle | watch | schedules) ;;
	*) echo "fleet: CASES: $c is none of pass, idle, watch, schedules" >&2; exit 2 ;;
	esac
done
W=$(mktemp -d "${TMPDIR:-/tmp}/checkpoint-fleet.XXXXXX")
PG_HOOKS=
RUNNER_PID=
trap 'kill_runner; for h in $PG_HOOKS; do $h; done; rm -rf "$W"' EXIT
trap 'exit 1' INT TERM

kill_runner() {
	[ -n "$RUNNER_PID" ] || return 0
	kill -TERM "$RUNNER_PID" 2>/dev/null
	wait "$RUNNER_PID" 2>/dev/null
	RUNNER_PID=
}

# q DB SQL: one statement's answer, on either store.
q() {
	case $1 in
	postgresql:*) psql_q "$2" ;;
	*) sqlite3 -cmd ".timeout 10000" "$1" "$2" ;;
	esac
}

# pg_posts JOBS GAP: TRIGGERS inserts, round robin over the jobs, each
# its own transaction and NOTIFY (as the API's POST), GAP seconds apart,
# in one session.
pg_posts() {
	awk -v n="$TRIGGERS" -v jobs="$1" -v gap="$2" 'BEGIN {
		for (i = 0; i < n; i++) {
			printf "INSERT INTO triggers (job_id, trigger_id," \
			    " requested_type, created_ms) VALUES" \
			    " (lpad(to_hex(%d), 32, \x270\x27)," \
			    " \x27ffff\x27 || lpad(to_hex(%d), 28, \x270\x27)," \
			    " \x27CONFIGURED\x27, (extract(epoch FROM" \
			    " clock_timestamp()) * 1000)::bigint);\n",
			    i * 7919 % jobs + 1, i
			printf "NOTIFY checkpoint_triggers;\n"
			printf "SELECT pg_sleep(%s);\n", gap
		}
	}' | "$PG_BIN/psql" -X -q -A -t -v ON_ERROR_STOP=1 -d "$(pg_uri)"
}

# lite_posts DB JOBS GAP: the same on SQLite, paced by the clock.
lite_posts() {
	python3 - "$@" "$TRIGGERS" <<'PY'
import sqlite3, sys, time
db, jobs, gap, n = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
c = sqlite3.connect(db, timeout=10, isolation_level=None)
at = time.time()
for i in range(n):
    c.execute("INSERT INTO triggers (job_id, trigger_id, requested_type,"
              " created_ms) VALUES (?, ?, 'CONFIGURED',"
              " CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))",
              ('%032x' % (i * 7919 % jobs + 1), 'ffff%028x' % i))
    at += gap
    if at > time.time():
        time.sleep(at - time.time())
PY
}

# pct FILE P: the Pth percentile of FILE's numbers, one a line.
pct() {
	sort -n "$1" | awk -v p="$2" '{ v[NR] = $1 }
	    END { if (NR == 0) { print "-"; exit }
	    i = int((NR * p + 99) / 100); if (i < 1) i = 1; print v[i] }'
}

# case_pass STORE DB JOBS: one waiting trigger a job, one pass.
case_pass() {
	q "$2" "UPDATE jobs SET command = 'true'" >/dev/null
	q "$2" "INSERT INTO triggers (job_id, trigger_id, requested_type,
	    created_ms) SELECT job_id, job_id, 'CONFIGURED', 1 FROM jobs" \
	    >/dev/null
	_t0=$(date +%s%N)
	timeout -s TERM "$SECS" cgi/checkpoint-runner --allow-root --db "$2" --parallel 2 \
	    --log-level error >/dev/null 2>>"$W/runner.err"
	_t1=$(date +%s%N)
	_done=$(q "$2" "SELECT count(*) FROM triggers
	    WHERE status = 'COMPLETED'")
	# The actions' own rate, the first completion to the last: without
	# the pass's opening and close (the first pass prunes every job).
	_span=$(q "$2" "SELECT max(completed_ms) - min(completed_ms)
	    FROM triggers WHERE status = 'COMPLETED'")
	awk -v s="$1" -v j="$3" -v d="$_done" -v ns="$((_t1 - _t0))" \
	    -v span="${_span:-0}" 'BEGIN {
		a = 0
		if (span > 0)
			a = (d - 1) / (span / 1e3)
		printf "fleet %s pass %d completed %d seconds %.2f rate %.1f" \
		    " actions_rate %.1f\n", s, j, d, ns / 1e9, d / (ns / 1e9), a }'
}

# case_idle STORE DB JOBS: five passes with nothing to do.
case_idle() {
	_ms=
	for _i in 1 2 3 4 5 6; do
		_d=$(cgi/checkpoint-runner --allow-root --db "$2" --stats --log-level error \
		    2>>"$W/runner.err" | sed 's/.*"duration_ms":\([0-9]*\).*/\1/')
		# The first pass after seeding prunes every job once.
		[ "$_i" = 1 ] || _ms="$_ms $_d"
	done
	echo "fleet $1 idle $3 duration_ms$_ms"
}

# case_watch STORE DB JOBS: TRIGGERS at RATE a second, under --watch.
case_watch() {
	cgi/checkpoint-runner --allow-root --db "$2" --watch --parallel 2 \
	    --log-level error 2>>"$W/runner.err" &
	RUNNER_PID=$!
	sleep 1
	_gap=$(awk -v r="$RATE" 'BEGIN { printf "%.4f", 1 / r }')
	_t0=$(date +%s%N)
	# One client posts them all, paced: a process a post could not keep
	# the rate on a busy machine.
	case $2 in
	postgresql:*) pg_posts "$3" "$_gap" >/dev/null ;;
	*) lite_posts "$2" "$3" "$_gap" ;;
	esac
	_t1=$(date +%s%N)
	sleep 3
	kill_runner
	q "$2" "SELECT completed_ms - created_ms FROM triggers
	    WHERE trigger_id LIKE 'ffff%' AND status = 'COMPLETED'" \
	    >"$W/lat"
	# The rate they came at, the clients' own pace included.
	echo "fleet $1 watch $3 completed $(wc -l <"$W/lat") of $TRIGGERS" \
	    "per_s $((TRIGGERS * 1000000000 / (_t1 - _t0)))" \
	    "p50_ms $(pct "$W/lat" 50) p99_ms $(pct "$W/lat" 99)"
}

# case_schedules STORE DB JOBS: every job every minute, one runner.
case_schedules() {
	_start=$(($(date +%s) * 1000))
	q "$2" "INSERT INTO schedules (job_id, kind, every_ms, since_ms,
	    last_slot_ms) SELECT job_id, 'CHECKPOINT', 60000, $_start, 0
	    FROM jobs" >/dev/null
	_pids=
	for _r in $(seq "$RUNNERS"); do
		cgi/checkpoint-runner --allow-root --db "$2" --watch \
		    --parallel 2 --log-level error 2>>"$W/runner.err" &
		_pids="$_pids $!"
	done
	sleep "$SCHED_SECS"
	for RUNNER_PID in $_pids; do
		kill_runner
	done
	q "$2" "SELECT fired_ms - slot_ms FROM schedule_slots
	    WHERE trigger_id IS NOT NULL" >"$W/lag"
	_missed=$(q "$2" "SELECT schedule_missed FROM service_metrics")
	_due=$(awk -v j="$3" -v s="$SCHED_SECS" 'BEGIN { print j * int(s / 60) }')
	echo "fleet $1 schedules $3 runners $RUNNERS due_about $_due" \
	    "fired $(wc -l <"$W/lag")" \
	    "missed ${_missed:-0} lag_p50_ms $(pct "$W/lag" 50)" \
	    "lag_p99_ms $(pct "$W/lag" 99)"
	q "$2" "DELETE FROM schedules" >/dev/null
}

run_cases() {	# STORE DB JOBS
	for _c in $CASES; do
		"case_$_c" "$@"
	done
}

lite_size() {	# JOBS
	_db=$W/fleet.db
	rm -f "$_db" "$_db-wal" "$_db-shm"
	cgi/checkpointctl --db "$_db" init >/dev/null || exit 1
	sh scripts/bench.d/fleet-seed.sh "$_db" "$1" "$KEPT" >/dev/null || exit 1
	run_cases sqlite "$_db" "$1"
}

pg_size() {	# JOBS
	psql_q "SET client_min_messages = warning; DROP SCHEMA public CASCADE; CREATE SCHEMA public" >/dev/null
	cgi/checkpointctl --db "$uri" init >/dev/null || exit 1
	psql_q "INSERT INTO jobs (job_id, name, created_ms, updated_ms)
	    SELECT lpad(to_hex(i), 32, '0'), 'fleet ' || i, 1, 1
	    FROM generate_series(1, $1) AS i;
	    INSERT INTO checkpoint_history (job_id, checkpoint_id, status,
	    trigger_row, trigger_id, requested_type, checkpoint_type,
	    created_ms, completed_ms, location)
	    SELECT j.job_id, k, 'COMPLETED', 0,
	    lpad(to_hex(j.i), 16, '0') || lpad(to_hex(k), 16, '0'),
	    'CONFIGURED', 'FULL', 1000 * k, 1000 * k + 10,
	    '/ckpt/' || j.job_id || '/chk-' || k
	    FROM (SELECT job_id, row_number() OVER () AS i FROM jobs) AS j,
	    generate_series(1, $KEPT) AS k;
	    INSERT INTO checkpoint_counters (job_id, last_id)
	    SELECT job_id, $KEPT FROM jobs" >/dev/null || exit 1
	psql_q "VACUUM ANALYZE" >/dev/null || exit 1
	run_cases postgresql "$uri" "$1"
}

case " $STORES " in
*" sqlite "*)
	for n in $SIZES; do
		lite_size "$n"
	done
	;;
esac
case " $STORES " in
*" postgresql "*)
	if grep -q '^#define HAVE_LIBPQ 1' config.h; then
		STAGE_NAME=fleet
		. scripts/bench.d/cluster.sh
		pg_start
		at_cleanup pg_stop
		uri="postgresql:///checkpoints?host=$PG_DIR&port=$PG_PORT&user=postgres"
		for n in $SIZES; do
			pg_size "$n"
		done
	else
		echo "fleet: no PostgreSQL store in this build" >&2
	fi
	;;
esac
if [ -x scripts/bench.d/fleet-lists.sh ]; then
	SIZES=$SIZES STORES=$STORES scripts/bench.d/fleet-lists.sh
fi
