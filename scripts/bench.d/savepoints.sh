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
SERVER_PID=
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

# start_app DB: lighttpd in front of the app on DB, on PORT.
start_app() {
	export CHECKPOINT_DB=$1
	export CHECKPOINT_HOME=$W/lighttpd CHECKPOINT_FCGI="$APP -t 16"
	export CHECKPOINT_PROCS=1
	mkdir -p "$CHECKPOINT_HOME/www" "$CHECKPOINT_HOME/tmp"
	PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	export PORT
	lighttpd -D -f scripts/lighttpd.conf &
	SERVER_PID=$!
	i=0
	until curl -s -o /dev/null "http://127.0.0.1:$PORT/"; do
		i=$((i + 1))
		[ $i -gt 200 ] && { echo "savepoints: lighttpd did not start" >&2; exit 1; }
		sleep 0.05
	done
}

stop_app() {
	kill "$SERVER_PID" 2>/dev/null
	wait "$SERVER_PID" 2>/dev/null
	SERVER_PID=
}

# one STORE ROUND KIND METHOD
one() {
	_st=$1
	shift
	if [ "$3" = POST ]; then
		tag=$(printf '%08x' "$(( $(date +%s%N) / 1000 % 4294967296 ))")
		set -- "$1" "$2" "$3" scripts/bench.d/post.lua "$tag" spread
	else
		set -- "$1" "$2" "$3" scripts/bench.d/get.lua "$GETN" ""
	fi
	wrk -t1 -c"$CONNS" -d"${DURATION}s" --timeout 10s --latency -s "$4" \
	    "http://127.0.0.1:$PORT" -- "$JOB" "$5" "$2" $6 > "$W/wrk.out" 2>&1
	awk -v st="$_st" -v r="$1" -v k="$2" -v m="$3" '
	function ms(v) {
		if (v ~ /us$/) return v / 1000
		if (v ~ /ms$/) return v + 0
		if (v ~ /s$/) return v * 1000
		return v
	}
	/Requests\/sec/ { rps = $2 }
	/^ +99%/ { p99 = ms($2) }
	/Non-2xx/ { bad = $5 }
	END { printf "savepoints %s %d %s %s %.0f %.2f %d\n", st, r, k, m, rps, p99, bad + 0 }
	' "$W/wrk.out" | tee -a "$W/raw"
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
	case $store in
	sqlite)
		db=$W/bench.db
		cgi/checkpointctl --db "$db" init >/dev/null || exit 1
		cgi/checkpointctl --db "$db" job add "$JOB" >/dev/null || exit 1
		sqlite3 "$db" "$SEED_SQLITE" || exit 1
		;;
	postgresql)
		grep -q '^#define HAVE_LIBPQ 1' config.h || {
			echo "savepoints: no PostgreSQL store in this build" >&2
			continue
		}
		STAGE_NAME=savepoints
		. scripts/bench.d/cluster.sh
		pg_start
		at_cleanup pg_stop
		db="postgresql:///checkpoints?host=$PG_DIR&port=$PG_PORT&user=postgres"
		cgi/checkpointctl --db "$db" init >/dev/null || exit 1
		cgi/checkpointctl --db "$db" job add "$JOB" >/dev/null || exit 1
		psql_q "$SEED_PG" >/dev/null || exit 1
		psql_q "VACUUM ANALYZE" >/dev/null || exit 1
		;;
	*)
		echo "savepoints: STORES: $store is neither sqlite nor postgresql" >&2
		exit 2
		;;
	esac
	start_app "$db"
	rounds "$store"
	stop_app
done
awk '
function med(a, n,   i, j, t) {
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
		if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
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
