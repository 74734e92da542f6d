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
#
# To weigh a change, B=DIR names the root of another build (its
# cgi/checkpoint-runner and cgi/checkpointctl): each case then runs
# ROUNDS times (4), this build's pass and B's one after the other, in
# the order a b, then b a, so that a loaded machine's drift, rising or
# falling, falls on both alike (in one order only, the build run second
# gains whenever the load eases), each on a database made by its own
# checkpointctl (a build refuses a newer schema than its own).  Each
# line then ends in the build, "a" (this one) or "b", and a summary
# follows: per case, the medians [min-max] of a and of b, and the median
# [min-max] of each round's a over b.  JOBS=0 leaves out the many-jobs
# case.
set -u
ROOT=$(pwd)
SECS=${SECS:-20}
JOBS=${JOBS:-8}
SIZES=${SIZES:-"1000 100000"}
B=${B:-}
if [ -n "$B" ]; then
	ROUNDS=${ROUNDS:-4}
	for f in cgi/checkpoint-runner cgi/checkpointctl; do
		[ -x "$B/$f" ] || { echo "actions: B=$B has no $f" >&2; exit 2; }
	done
	BUILDS="a b"
else
	ROUNDS=1
	BUILDS=a
fi
# bin_dir BUILD: the directory of BUILD's programs.
bin_dir() {
	if [ "$1" = b ]; then echo "$B/cgi"; else echo "$ROOT/cgi"; fi
}
BIN=$ROOT/cgi
W=$(mktemp -d "${TMPDIR:-/tmp}/checkpoint-actions.XXXXXX")
PG_HOOKS=
trap 'for h in $PG_HOOKS; do $h; done; rm -rf "$W"' EXIT
: > "$W/lines"
trap 'exit 1' INT TERM

# allow_root: --allow-root as root, for a runner that refuses root
# without it (the commands here are `true`); nothing for one that has no
# such option.
allow_root() {
	[ "$(id -u)" -eq 0 ] || return 0
	"$BIN/checkpoint-runner" --help 2>&1 | grep -q -- --allow-root &&
	    echo --allow-root
}

# run_pass STORE CASE BACKLOG DB COUNT-SQL-COMMAND...
run_pass() {
	_store=$1 _case=$2 _n=$3 _db=$4
	shift 4
	_t0=$(date +%s%N)
	timeout -s TERM "$SECS" "$BIN/checkpoint-runner" --db "$_db" \
	    $(allow_root) --log-level error 2>>"$W/runner.err"
	_t1=$(date +%s%N)
	_done=$("$@")
	awk -v s="$_store" -v c="$_case" -v n="$_n" -v d="$_done" \
	    -v ns="$((_t1 - _t0))" -v b="${B:+ $BUILD}" 'BEGIN {
		printf "actions %s %s %d %d %.2f %.1f%s\n", s, c, n, d,
		    ns / 1e9, d / (ns / 1e9), b }' | tee -a "$W/lines"
}

# add_jobs DB N: jobs 1..N (printf('%032x', k)), each with `true`.
add_jobs() {
	_k=1
	while [ "$_k" -le "$2" ]; do
		"$BIN/checkpointctl" --db "$1" job add "$(printf '%032x' "$_k")" \
		    --command true >/dev/null || exit 1
		_k=$((_k + 1))
	done
}

lite_case() {	# CASE JOBS PER
	_db=$W/actions.db
	rm -f "$_db" "$_db-wal" "$_db-shm"
	"$BIN/checkpointctl" --db "$_db" init >/dev/null || exit 1
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

# each CASE-FUNCTION ARGS...: the case once a build, ROUNDS times.
each() {
	_r=1
	while [ "$_r" -le "$ROUNDS" ]; do
		_order=$BUILDS
		[ $((_r % 2)) -eq 0 ] && [ -n "$B" ] && _order="b a"
		for BUILD in $_order; do
			BIN=$(bin_dir "$BUILD")
			"$@"
		done
		_r=$((_r + 1))
	done
}

# The A/B's summary, from every line so far.
summary() {
	[ -n "$B" ] || return 0
	awk '
	function med(a, n,   i, j, t) {
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
			if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	{ k = $2 " " $3 " " $4; if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
	  n[k, $8]++; v[k, $8, n[k, $8]] = $7 }
	END {
		for (x = 1; x <= nk; x++) {
			k = order[x]; na = n[k, "a"]; nb = n[k, "b"]
			for (i = 1; i <= na; i++) a[i] = v[k, "a", i]
			for (i = 1; i <= nb; i++) b[i] = v[k, "b", i]
			np = 0
			for (i = 1; i <= na && i <= nb; i++)
				if (b[i] > 0) p[++np] = a[i] / b[i]
			ma = med(a, na); mb = med(b, nb); mp = np ? med(p, np) : 0
			printf "summary %s a %.1f [%.1f-%.1f] b %.1f [%.1f-%.1f] paired %.2f [%.2f-%.2f]\n",
			    k, ma, a[1], a[na], mb, b[1], b[nb], mp, p[1], p[np]
		}
	}' "$W/lines"
}

for n in $SIZES; do
	each lite_case one-job 1 "$n"
done
[ "$JOBS" -gt 0 ] && each lite_case "$JOBS-jobs" "$JOBS" 1000

grep -q '^#define HAVE_LIBPQ 1' config.h || {
	echo "actions: no PostgreSQL store in this build" >&2
	summary
	exit 0
}
STAGE_NAME=actions
. scripts/bench.d/cluster.sh
pg_start
at_cleanup pg_stop
uri="postgresql:///checkpoints?host=$PG_DIR&port=$PG_PORT&user=postgres"
pg_case() {	# CASE JOBS PER
	psql_q "SET client_min_messages = warning; DROP SCHEMA public CASCADE; CREATE SCHEMA public" >/dev/null
	"$BIN/checkpointctl" --db "$uri" init >/dev/null || exit 1
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
	each pg_case one-job 1 "$n"
done
[ "$JOBS" -gt 0 ] && each pg_case "$JOBS-jobs" "$JOBS" 1000
summary
