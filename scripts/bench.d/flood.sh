#!/bin/sh
# scripts/bench --stage flood: what a POST costs when its job's queue is
# full or long, against one to an empty queue, in the same run, behind
# lighttpd as scripts/lighttpd.conf starts the app (one process of 16
# threads, no runner): on SQLite with the default settings, then, when
# the build has it, on PostgreSQL (a throwaway cluster of tests/pg.sh,
# fsync on, reached by its Unix socket).  Run from the root of a build
# (scripts/bench does, after building).  APP=PROGRAM loads another
# build's checkpoint-api.fcgi, to weigh a change; STORES (sqlite
# postgresql) picks the stores.
#
# CHECKPOINT_MAX_QUEUED is BOUND (200,000).  Each store holds a job FULL
# with BOUND triggers waiting, so that every POST to it is refused, and
# a job LONG with half as many, which the run's POSTs keep below the
# bound.  Each round loads the app with wrk, 16 connections, DURATION
# (5) seconds a case, the cases alternated so that drift cancels, each
# POST /jobs/:jobid/checkpoints with a fresh triggerId: "empty", each
# request a job of its own (an empty queue each); "long", to LONG;
# "full", to FULL.  Prints one line a case and round:
#   flood STORE ROUND CASE REQUESTS/S P99-MS NON-2XX
# then, by store, the medians over ROUNDS (3) and each case's median over
# the empty queue's: the bound is O(1) when both are near 1 (the target:
# 0.9 or more).  Figures belong in scripts/bench.d/results.md.
set -u
ROOT=$(pwd)
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-5}
CONNS=${CONNS:-16}
BOUND=${BOUND:-200000}
FULL=f100d000000000000000000000000001
LONG=f100d000000000000000000000000002
STORES=${STORES:-sqlite postgresql}
APP=${APP:-$ROOT/cgi/checkpoint-api.fcgi}
W=$(mktemp -d "${TMPDIR:-/tmp}/checkpoint-flood.XXXXXX")
PG_HOOKS=
STAGE_NAME=flood
. scripts/bench.d/app.sh
trap '[ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null; wait
    for h in $PG_HOOKS; do $h; done; rm -rf "$W"' EXIT
trap 'exit 1' INT TERM
export CHECKPOINT_MAX_QUEUED=$BOUND

# The seed, in either dialect: BOUND triggers of FULL, BOUND / 2 of LONG.
SEED_SQLITE="WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL
    SELECT i + 1 FROM n WHERE i < $BOUND)
    INSERT INTO triggers (job_id, trigger_id, requested_type, created_ms)
    SELECT CASE WHEN i % 2 THEN '$FULL' ELSE '$LONG' END,
    printf('%032x', i), 'CONFIGURED', 0 FROM n;
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL
    SELECT i + 1 FROM n WHERE i < $BOUND / 2)
    INSERT INTO triggers (job_id, trigger_id, requested_type, created_ms)
    SELECT '$FULL', printf('f%031x', i), 'CONFIGURED', 0 FROM n"
SEED_PG="INSERT INTO triggers (job_id, trigger_id, requested_type,
    created_ms) SELECT CASE WHEN i % 2 = 1 THEN '$FULL' ELSE '$LONG' END,
    lpad(to_hex(i), 32, '0'), 'CONFIGURED', 0
    FROM generate_series(1, $BOUND) AS i;
    INSERT INTO triggers (job_id, trigger_id, requested_type,
    created_ms) SELECT '$FULL', 'f' || lpad(to_hex(i), 31, '0'),
    'CONFIGURED', 0 FROM generate_series(1, $BOUND / 2) AS i"

# one STORE ROUND CASE
one() {
	case $3 in
	empty) set -- "$@" "$FULL" spread ;;
	long) set -- "$@" "$LONG" "" ;;
	full) set -- "$@" "$FULL" "" ;;
	esac
	wrk_line "flood $1 $2 $3" scripts/bench.d/post.lua "$4" "$(run_tag)" \
	    checkpoints $5
}

# rounds STORE: the cases, alternated, ROUNDS times.
rounds() {
	r=1
	while [ $r -le "$ROUNDS" ]; do
		for c in empty long full; do
			one "$1" $r $c
		done
		r=$((r + 1))
	done
}

# waiting STORE DB JOB: the job's waiting triggers, counted.
waiting() {
	q="SELECT count(*) FROM triggers WHERE job_id = '$3'
	    AND status = 'IN_PROGRESS' AND claimed_by IS NULL"
	if [ "$1" = sqlite ]; then
		sqlite3 -cmd '.timeout 5000' "$2" "$q"
	else
		psql_q "$q"
	fi
}

for store in $STORES; do
	make_store "$store" || continue
	for j in $FULL $LONG; do
		echo "flood $store: job $j has $(waiting "$store" "$db" "$j") waiting (bound $BOUND)"
	done
	start_app "$db"
	rounds "$store"
	stop_app
	for j in $FULL $LONG; do
		echo "flood $store: job $j has $(waiting "$store" "$db" "$j") waiting after"
	done
done
awk "$AWK_MED"'
{ k = $2 " " $4; v[k, ++n[k]] = $5; st[$2] = 1 }
END {
	split("sqlite postgresql", stores, " ")
	split("empty long full", cases, " ")
	for (x = 1; x <= 2; x++) {
		if (!(stores[x] in st))
			continue
		for (i = 1; i <= 3; i++) {
			k = stores[x] " " cases[i]
			for (j = 1; j <= n[k]; j++)
				a[j] = v[k, j]
			m[i] = med(a, n[k])
		}
		printf "median %s: empty %.0f/s, long %.0f/s (ratio %.2f), full %.0f/s (ratio %.2f)\n",
		    stores[x], m[1], m[2], (m[1] > 0 ? m[2] / m[1] : 0),
		    m[3], (m[1] > 0 ? m[3] / m[1] : 0)
	}
}' "$W/raw"
