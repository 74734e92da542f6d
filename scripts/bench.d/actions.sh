#!/bin/sh
# scripts/bench --stage actions: how many checkpoint actions a second one
# runner pass runs through a backlog, whatever its length.  Run from the
# root of a build (scripts/bench does, after building).
#
# For each store (SQLite with default settings; PostgreSQL when the build
# has it, on a throwaway cluster of tests/pg.sh, fsync on):
#   - one job whose command is `true`, with a backlog of 1,000 and of
#     100,000 triggers, one `checkpoint-runner` pass over it;
#   - JOBS jobs (8) at once, each with a backlog of 1,000.
# A pass is stopped (SIGTERM: it waits for the actions running) after
# SECS seconds (20) if it has not drained its backlog; the rate is the
# actions completed over the pass's wall time.  Prints one line a case:
#   actions STORE CASE BACKLOG COMPLETED SECONDS RATE
# Figures belong in scripts/bench.d/results.md, with the machine's load.
set -u
ROOT=$(pwd)
SECS=${SECS:-20}
JOBS=${JOBS:-8}
SIZES=${SIZES:-"1000 100000"}
W=$(mktemp -d "${TMPDIR:-/tmp}/checkpoint-actions.XXXXXX")
PG_HOOKS=
trap 'for h in $PG_HOOKS; do $h; done; rm -rf "$W"' EXIT
trap 'exit 1' INT TERM

# run_pass STORE CASE BACKLOG DB COUNT-SQL-COMMAND...
run_pass() {
	_store=$1 _case=$2 _n=$3 _db=$4
	shift 4
	_t0=$(date +%s%N)
	timeout -s TERM "$SECS" cgi/checkpoint-runner --db "$_db" \
	    --log-level error 2>>"$W/runner.err"
	_t1=$(date +%s%N)
	_done=$("$@")
	awk -v s="$_store" -v c="$_case" -v n="$_n" -v d="$_done" \
	    -v ns="$((_t1 - _t0))" 'BEGIN {
		printf "actions %s %s %d %d %.2f %.1f\n", s, c, n, d,
		    ns / 1e9, d / (ns / 1e9) }'
}

# add_jobs DB N: jobs 1..N (printf('%032x', k)), each with `true`.
add_jobs() {
	_k=1
	while [ "$_k" -le "$2" ]; do
		cgi/checkpointctl --db "$1" job add "$(printf '%032x' "$_k")" \
		    --command true >/dev/null || exit 1
		_k=$((_k + 1))
	done
}

lite_case() {	# CASE JOBS PER
	_db=$W/actions.db
	rm -f "$_db" "$_db-wal" "$_db-shm"
	cgi/checkpointctl --db "$_db" init >/dev/null || exit 1
	add_jobs "$_db" "$2"
	# Job k is printf('%032x', k); the jobs' triggers interleave.
	sqlite3 "$_db" "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL
	    SELECT i + 1 FROM n WHERE i < $2 * $3 - 1)
	    INSERT INTO triggers (job_id, trigger_id, requested_type,
	    created_ms) SELECT printf('%032x', i % $2 + 1),
	    printf('%032x', i), 'CONFIGURED', 0 FROM n" || exit 1
	run_pass sqlite "$1" "$(($2 * $3))" "$_db" sqlite3 "$_db" \
	    "SELECT count(*) FROM triggers WHERE status = 'COMPLETED'"
}

for n in $SIZES; do
	lite_case one-job 1 "$n"
done
lite_case "$JOBS-jobs" "$JOBS" 1000

grep -q '^#define HAVE_LIBPQ 1' config.h || {
	echo "actions: no PostgreSQL store in this build" >&2
	exit 0
}
STAGE_NAME=actions
. scripts/bench.d/cluster.sh
pg_start
at_cleanup pg_stop
uri="postgresql:///checkpoints?host=$PG_DIR&port=$PG_PORT&user=postgres"
pg_case() {	# CASE JOBS PER
	psql_q "SET client_min_messages = warning; DROP SCHEMA public CASCADE; CREATE SCHEMA public" >/dev/null
	cgi/checkpointctl --db "$uri" init >/dev/null || exit 1
	add_jobs "$uri" "$2"
	psql_q "INSERT INTO triggers (job_id, trigger_id, requested_type,
	    created_ms) SELECT lpad(to_hex((i % $2) + 1), 32, '0'),
	    lpad(to_hex(i), 32, '0'), 'CONFIGURED', 0
	    FROM generate_series(0, $2 * $3 - 1) AS i" >/dev/null || exit 1
	psql_q "VACUUM ANALYZE" >/dev/null
	run_pass postgresql "$1" "$(($2 * $3))" "$uri" psql_q \
	    "SELECT count(*) FROM triggers WHERE status = 'COMPLETED'"
}
for n in $SIZES; do
	pg_case one-job 1 "$n"
done
pg_case "$JOBS-jobs" "$JOBS" 1000
