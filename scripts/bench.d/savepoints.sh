#!/bin/sh
# scripts/bench --stage savepoints: a savepoint's trigger and status
# against a checkpoint's, in the same run, behind lighttpd as
# scripts/lighttpd.conf starts the app (one process of 16 threads): on
# SQLite with the default settings, then, when the build has it, on
# PostgreSQL (a throwaway cluster of tests/pg.sh, fsync on, reached by
# its Unix socket).  Run from the root of a build (scripts/bench does,
# after building).  APP=PROGRAM loads another build's
# checkpoint-api.fcgi, to weigh a change; STORES (sqlite postgresql)
# picks the stores.
#
# Each store holds GETN (10,000) triggers and as many savepoints of one
# registered job.  Each round loads the app with wrk, 16 connections,
# DURATION (5) seconds a case, the cases alternated so that drift
# cancels: POST /jobs/:jobid/checkpoints and .../savepoints with a fresh
# triggerId a request (the savepoint with a target-directory), each of
# a job of its own, so that every checkpoint trigger is queued, none
# refused by CHECKPOINT_MAX_QUEUED; then GET of a random stored one of
# each.  Prints one line a case and round:
#   savepoints STORE ROUND KIND METHOD REQUESTS/S P99-MS NON-2XX
# then, by store, the medians over ROUNDS (3) and each savepoint median
# over the checkpoint's.  Figures belong in scripts/bench.d/results.md.
set -u
ROOT=$(pwd)
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-5}
CONNS=${CONNS:-16}
GETN=10000
JOB=0123456789abcdef0123456789abcdef
STORES=${STORES:-sqlite postgresql}
APP=${APP:-$ROOT/cgi/checkpoint-api.fcgi}
W=$(mktemp -d "${TMPDIR:-/tmp}/checkpoint-savepoints.XXXXXX")
PG_HOOKS=
trap '[ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null; wait
    for h in $PG_HOOKS; do $h; done; rm -rf "$W"' EXIT
trap 'exit 1' INT TERM

# The seed, in either dialect: GETN triggers and savepoints of JOB.
SEED_SQLITE="WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL
    SELECT i + 1 FROM n WHERE i < $GETN)
    INSERT INTO triggers (job_id, trigger_id, requested_type, created_ms)
    SELECT '$JOB', printf('%032x', i), 'CONFIGURED', 0 FROM n;
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL
    SELECT i + 1 FROM n WHERE i < $GETN)
    INSERT INTO savepoints (job_id, trigger_id, kind, target_directory,
    format_type, created_ms)
    SELECT '$JOB', printf('%032x', i), 'SAVEPOINT', 'file:/bench',
    'CANONICAL', 0 FROM n"
SEED_PG="INSERT INTO triggers (job_id, trigger_id, requested_type,
    created_ms) SELECT '$JOB', lpad(to_hex(i), 32, '0'), 'CONFIGURED', 0
    FROM generate_series(1, $GETN) AS i;
    INSERT INTO savepoints (job_id, trigger_id, kind, target_directory,
    format_type, created_ms) SELECT '$JOB', lpad(to_hex(i), 32, '0'),
    'SAVEPOINT', 'file:/bench', 'CANONICAL', 0
    FROM generate_series(1, $GETN) AS i"

STAGE_NAME=savepoints
. scripts/bench.d/app.sh

# one STORE ROUND KIND METHOD
one() {
	if [ "$4" = POST ]; then
		wrk_line "savepoints $*" scripts/bench.d/post.lua "$JOB" \
		    "$(run_tag)" "$3" spread
	else
		wrk_line "savepoints $*" scripts/bench.d/get.lua "$JOB" \
		    "$GETN" "$3"
	fi
}

# rounds STORE: the cases, alternated, ROUNDS times.
rounds() {
	r=1
	while [ $r -le "$ROUNDS" ]; do
		for m in POST GET; do
			one "$1" $r checkpoints $m
			one "$1" $r savepoints $m
		done
		r=$((r + 1))
	done
}

for store in $STORES; do
	make_store "$store" "$JOB" || continue
	start_app "$db"
	rounds "$store"
	stop_app
done
awk "$AWK_MED"'
{ k = $2 " " $4 " " $5; v[k, ++n[k]] = $6; st[$2] = 1 }
END {
	split("POST GET", ms, " ")
	split("sqlite postgresql", stores, " ")
	for (x = 1; x <= 2; x++) {
		if (!(stores[x] in st))
			continue
		for (i = 1; i <= 2; i++) {
			kc = stores[x] " checkpoints " ms[i]
			ks = stores[x] " savepoints " ms[i]
			for (j = 1; j <= n[kc]; j++)
				c[j] = v[kc, j]
			for (j = 1; j <= n[ks]; j++)
				s[j] = v[ks, j]
			cm = med(c, n[kc])
			sm = med(s, n[ks])
			printf "median %s %s: checkpoint %.0f/s, savepoint %.0f/s, ratio %.2f\n",
			    stores[x], ms[i], cm, sm, (cm > 0 ? sm / cm : 0)
		}
	}
}' "$W/raw"
