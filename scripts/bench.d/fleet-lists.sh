#!/bin/sh
# scripts/bench.d/fleet-lists.sh: what the fleet's lists cost as the
# fleet grows, behind lighttpd as scripts/lighttpd.conf starts the app
# (one process of 16 threads).  Run from the root of a build (scripts/bench
# --stage fleet does, after building).  SIZES (1000 10000) picks the
# fleets, STORES (sqlite) the stores (sqlite, postgresql: a throwaway
# cluster of tests/pg.sh, fsync on, reached by its Unix socket);
# APP=PROGRAM loads another build's checkpoint-api.fcgi.
#
# Each fleet is scripts/bench.d/fleet-seed.sh's (one kept checkpoint a
# job; on PostgreSQL the same jobs in its words), with statistics for every job, one in a hundred failing, one in a
# thousand waiting for a runner.  For each list, ROUNDS (5) GETs by curl,
# one at a time, and their median: the whole lists Flink's clients read
# (/jobs/overview, /jobs), a page of 100 of them at the start and in the
# middle, the page's summary (/ui/fleet), a search by name, /metrics as a
# scrape gets it and with ?per-job=1.  Then the app process's resident
# memory, and, when Chromium and tests/browser/node_modules are there,
# the page: the requests of its first load, the time from the navigation
# and from its request of ./fleet until its summary shows the fleet's
# counts, and until its rows are read.  Prints one line a measure:
#   fleet-lists STORE JOBS WHAT BYTES MEDIAN-MS
#   fleet-lists STORE JOBS rss KIB
#   fleet-lists STORE JOBS page REQUESTS SUMMARY-MS FROM-FLEET-MS ROWS-MS
# Figures belong in scripts/bench.d/results.md.
set -u
ROOT=$(pwd)
SIZES=${SIZES:-1000 10000}
STORES=${STORES:-sqlite}
ROUNDS=${ROUNDS:-5}
APP=${APP:-$ROOT/cgi/checkpoint-api.fcgi}
CTL=${CTL:-$ROOT/cgi/checkpointctl}
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
NODE_DIR=$ROOT/tests/browser
W=$(mktemp -d "${TMPDIR:-/tmp}/checkpoint-fleet-lists.XXXXXX")
SERVER_PID=
PG_HOOKS=
trap '[ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null; wait
    for h in $PG_HOOKS; do $h; done; rm -rf "$W"' EXIT
trap 'exit 1' INT TERM

# start_app and stop_app, as the other stages' (app.sh).
STAGE_NAME=fleet-lists
. scripts/bench.d/app.sh

# The fleet's statistics and queue, in either dialect: one job in a
# hundred failing, one in a thousand waiting for a runner.
fleet_sql() {
	cat <<-EOF
	INSERT INTO checkpoint_stats (job_id, completed, failed,
	    last_completed, completed_trigger_ms, completed_ms,
	    completed_location, last_failed, failed_ms, failed_class,
	    failed_trace)
	SELECT job_id, 1, CASE WHEN $1 % 100 = 0 THEN 1 ELSE 0 END, 1,
	    $2 - 60010, $2 - 60000, '/ckpt/' || job_id || '/chk-1',
	    CASE WHEN $1 % 100 = 0 THEN 2 END,
	    CASE WHEN $1 % 100 = 0 THEN $2 END,
	    CASE WHEN $1 % 100 = 0 THEN
	        'org.apache.flink.runtime.checkpoint.CheckpointException' END,
	    CASE WHEN $1 % 100 = 0 THEN
	        'org.apache.flink.runtime.checkpoint.CheckpointException: declined' END
	FROM jobs;
	INSERT INTO triggers (job_id, trigger_id, requested_type, created_ms)
	SELECT job_id, substr(job_id, 1, 28) || 'eeee', 'CONFIGURED', 1
	FROM jobs WHERE $1 % 1000 = 7;
	EOF
}

# seed_pg JOBS: the fleet in the cluster's database, as seed's.
seed_pg() {
	now=$(($(date +%s) * 1000))
	psql_q "BEGIN;
	    INSERT INTO jobs (job_id, name, created_ms, updated_ms)
	    SELECT lpad(to_hex(i), 32, '0'), 'fleet ' || i, 1, 1
	    FROM generate_series(1, $1) AS i;
	    $(fleet_sql "('x' || substr(job_id, 25))::bit(32)::int" "$now")
	    COMMIT;" > /dev/null || exit 1
	psql_q "VACUUM ANALYZE" > /dev/null || exit 1
}

# seed DB JOBS
seed() {
	"$CTL" --db "$1" init > /dev/null || exit 1
	sh scripts/bench.d/fleet-seed.sh "$1" "$2" 1 || exit 1
	sqlite3 "$1" "BEGIN;
	    $(fleet_sql rowid "CAST(strftime('%s', 'now') AS INTEGER) * 1000")
	    COMMIT; ANALYZE;" || exit 1
}

# get JOBS WHAT PATH: ROUNDS GETs of PATH, the bytes and the median ms.
get() {
	_n=$1 _what=$2 _path=$3
	_i=0
	: > "$W/times"
	while [ $_i -lt "$ROUNDS" ]; do
		curl -s -o /dev/null -w '%{size_download} %{time_total}\n' \
		    "http://127.0.0.1:$PORT$_path" >> "$W/times"
		_i=$((_i + 1))
	done
	sort -k2,2n "$W/times" | awk -v n="$_n" -v w="$_what" \
	    -v s="$STORE" '{ b[NR] = $1; t[NR] = $2 }
	    END { m = int((NR + 1) / 2);
	    printf "fleet-lists %s %s %s %d %.1f\n", s, n, w, b[m], t[m] * 1000 }'
}

# The page's first load in Chromium: its requests until the summary
# shows the fleet's counts, and the time to that.
page() {
	[ -x "$CHROMIUM" ] && command -v node > /dev/null 2>&1 &&
	    [ -d "$NODE_DIR/node_modules/playwright-core" ] || {
		echo "fleet-lists $STORE $1 page skipped: no Chromium or tests/browser/node_modules"
		return 0
	}
	cat > "$W/page.mjs" <<-'EOF'
	import { createRequire } from 'node:module';
	const require = createRequire(`${process.env.NODE_DIR}/`);
	const { chromium } = require('playwright-core');
	const browser = await chromium.launch({ executablePath: process.env.CHROMIUM,
		args: ['--headless', '--no-sandbox', '--disable-gpu'] });
	const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
	let n = 0, asked = 0;
	page.on('request', (r) => {
		n++;
		if (!asked && new URL(r.url()).pathname.endsWith('/ui/fleet'))
			asked = Date.now();
	});
	const t0 = Date.now();
	await page.goto(`${process.env.BASE}/ui/`);
	await page.locator('#summary', { hasText: / failing/ }).waitFor({ timeout: 120000 });
	const shown = Date.now();
	await page.locator('#updated', { hasText: 'Updated' }).waitFor({ timeout: 120000 });
	console.log(`${n} ${shown - t0} ${shown - asked} ${Date.now() - t0}`);
	await browser.close();
	EOF
	_r=$(NODE_DIR=$NODE_DIR CHROMIUM=$CHROMIUM BASE="http://127.0.0.1:$PORT" \
	    node "$W/page.mjs") || _r="failed"
	echo "fleet-lists $STORE $1 page $_r"
}

# measure STORE JOBS DB: every measure of one fleet.
measure() {
	STORE=$1
	n=$2
	start_app "$3"
	mid=$(curl -s "http://127.0.0.1:$PORT/jobs?limit=1&after=$(printf '%032x' $((n / 2)))" |
	    sed -n 's/.*"id":"\([0-9a-f]*\)".*/\1/p')
	get "$n" jobs-overview /jobs/overview
	get "$n" jobs /jobs
	get "$n" jobs-overview-page-first '/jobs/overview?limit=100'
	get "$n" jobs-overview-page-middle "/jobs/overview?limit=100&after=$mid"
	get "$n" jobs-page-middle "/jobs?limit=100&after=$mid"
	get "$n" ui-fleet /ui/fleet
	get "$n" ui-fleet-search '/ui/fleet?q=fleet%20777'
	get "$n" metrics /metrics
	get "$n" metrics-per-job '/metrics?per-job=1'
	app=$(pgrep -P "$SERVER_PID" -f checkpoint-api.fcgi | head -n 1)
	echo "fleet-lists $STORE $n rss $(awk '/^VmRSS:/ { print $2 }' "/proc/$app/status" 2>/dev/null)"
	page "$n"
	stop_app
}

for store in $STORES; do
	case $store in
	sqlite)
		for n in $SIZES; do
			db=$W/fleet-$n.db
			seed "$db" "$n"
			measure sqlite "$n" "$db"
			rm -f "$db" "$db-wal" "$db-shm"
		done
		;;
	postgresql)
		grep -q '^#define HAVE_LIBPQ 1' config.h || {
			echo "fleet-lists: no PostgreSQL store in this build" >&2
			continue
		}
		STAGE_NAME=fleet-lists
		. scripts/bench.d/cluster.sh
		pg_start
		at_cleanup pg_stop
		db="postgresql:///checkpoints?host=$PG_DIR&port=$PG_PORT&user=postgres"
		for n in $SIZES; do
			psql_q "DROP DATABASE IF EXISTS checkpoints" postgres > /dev/null &&
			    psql_q "CREATE DATABASE checkpoints" postgres > /dev/null || exit 1
			"$CTL" --db "$db" init > /dev/null || exit 1
			seed_pg "$n"
			measure postgresql "$n" "$db"
		done
		;;
	*)
		echo "fleet-lists: STORES: $store is neither sqlite nor postgresql" >&2
		exit 2
		;;
	esac
done
