# Shared by tests/t3810 (SQLite) and t6420 (PostgreSQL, STORE=pg: a
# throwaway cluster, tests/pg.sh), which say what it proves: the fleet's
# lists a page at a time, GET /ui/fleet's sums and pages, and /metrics by
# default the fleet's, over 230 jobs of every health.
. "$(dirname "$0")/lib.sh"

STORE=${STORE:-sqlite}
NEED=sqlite3
# hex EXPR, pad3 EXPR: the dialect's 32 hexadecimal digits, 3 decimal ones.
hex() { echo "printf('%032x', $1)"; }
pad3() { echo "printf('%03d', $1)"; }
if [ "$STORE" = pg ]; then
	. "$(dirname "$0")/pg.sh"
	NEED=psql
	pg_start
	pg_app_db fleet
	sql() {
		pg_sql "$1"
	}
	hex() { echo "lpad(to_hex($1), 32, '0')"; }
	pad3() { echo "lpad(($1)::text, 3, '0')"; }
else
	"$CTL" init > /dev/null || bail "checkpointctl init"
fi
for c in lighttpd $NEED curl jq; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing"
done

NOW=$(($(date +%s) * 1000))
# 200 healthy ("bulk NNN"), 10 failing, 5 not running, 5 never checked,
# 5 waiting for a runner that never passed, 5 stale by their schedule
# (which missed 3 slots each), one named with LIKE's wildcards.
sql "BEGIN;
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n
    WHERE i < 230)
    INSERT INTO jobs (job_id, name, state, created_ms, updated_ms)
    SELECT $(hex 'i * 7919'),
        CASE WHEN i <= 200 THEN 'bulk ' || $(pad3 i)
        WHEN i <= 210 THEN 'Failing ' || i
        ELSE 'other ' || i END,
        CASE WHEN i BETWEEN 211 AND 215 THEN 'SUSPENDED' ELSE 'RUNNING' END,
        $NOW, $NOW FROM n;
    UPDATE jobs SET name = 'pct%_!x' WHERE job_id = $(hex '230 * 7919');
    INSERT INTO checkpoint_stats (job_id, completed, failed, last_completed,
        completed_ms, last_failed, failed_ms)
    SELECT job_id, 1, 0, 1, $NOW - 1000, NULL, NULL FROM jobs
    WHERE name LIKE 'bulk %' OR name BETWEEN 'other 221' AND 'other 229'
        OR name = 'pct%_!x';
    INSERT INTO checkpoint_stats (job_id, completed, failed, last_completed,
        completed_ms, last_failed, failed_ms)
    SELECT job_id, 1, 1, 1, $NOW - 9000, 2, $NOW - 1000 FROM jobs
    WHERE name LIKE 'Failing %';
    INSERT INTO triggers (job_id, trigger_id, requested_type, created_ms)
    SELECT job_id, substr(job_id, 1, 28) || 'eeee', 'FULL', $NOW - 5000
    FROM jobs WHERE name IN ('other 221', 'other 222', 'other 223',
        'other 224', 'other 225');
    UPDATE checkpoint_stats SET completed_ms = $NOW - 3600000
    WHERE job_id IN (SELECT job_id FROM jobs WHERE name IN ('other 226',
        'other 227', 'other 228', 'other 229', 'pct%_!x'));
    INSERT INTO schedules (job_id, kind, every_ms, since_ms, last_slot_ms,
        set_by, missed)
    SELECT job_id, 'CHECKPOINT', 60000, $NOW - 86400000, $NOW - 1000,
        'root', 3 FROM jobs WHERE name IN ('other 226', 'other 227',
        'other 228', 'other 229', 'pct%_!x');
    UPDATE checkpoint_stats SET completed_ms = $NOW - 120000
    WHERE job_id = $(hex '200 * 7919');
    UPDATE service_metrics SET schedule_missed = 15 WHERE id = 1;
    COMMIT;" || bail "the fleet"
# other 216..220: RUNNING, never checkpointed; 221..225 wait, no runner;
# 226..229 and pct%_!x stale; bulk 200's last checkpoint 2 minutes ago,
# no schedule: healthy.
start_server

ids() {
	sql "SELECT job_id FROM jobs ORDER BY job_id"
}

# --- Flink's whole lists, unpaged ----------------------------------------------

http GET /jobs
is "$(printf '%s' "$BODY" | jq -c 'keys')" '["jobs"]' \
    "GET /jobs: Flink's shape, no key of a page"
is "$(printf '%s' "$BODY" | jq -r '.jobs[].id')" "$(ids)" \
    "GET /jobs: every job, by id"
http GET /jobs/overview
is "$(printf '%s' "$BODY" | jq -c '[keys, (.jobs | length)]')" '[["jobs"],230]' \
    "GET /jobs/overview: Flink's shape, every job"

# --- Pages by id --------------------------------------------------------------

# walk PATH: every page of PATH?limit=7, the ids in $T/walked, the pages
# in PAGES; each page at most 7.
walk() {
	: > "$T/walked"
	PAGES=0 _after= _big=0
	while :; do
		http GET "$1?limit=7${_after:+&after=$_after}"
		[ "$STATUS" = 200 ] || break
		printf '%s' "$BODY" | jq -r '.jobs[] | .id // .jid' >> "$T/walked"
		[ "$(printf '%s' "$BODY" | jq '.jobs | length')" -le 7 ] || _big=1
		PAGES=$((PAGES + 1))
		_after=$(printf '%s' "$BODY" | jq -r '.next // empty')
		[ -n "$_after" ] && [ "$PAGES" -lt 100 ] || break
	done
	[ "$_big" = 0 ]
}
for p in /jobs /jobs/overview; do
	walk "$p"
	ok $? "GET $p?limit=7: no page over 7"
	is "$(cat "$T/walked")" "$(ids)" "GET $p, page by page: every job once, by id"
	is "$PAGES" 33 "GET $p: 230 jobs in 33 pages, the last's next null"
done
http GET '/jobs/overview?q=BULK%2019'
is "$(printf '%s' "$BODY" | jq -c '[.jobs[].name, .next]')" \
    '["bulk 190","bulk 191","bulk 192","bulk 193","bulk 194","bulk 195","bulk 196","bulk 197","bulk 198","bulk 199",null]' \
    "q: by name, in any case, a page of 100 by default"
J=$(sql "SELECT job_id FROM jobs WHERE name = 'bulk 042'")
http GET "/jobs?q=$(printf '%s' "$J" | cut -c27-32 | tr a-f A-F)"
is "$(printf '%s' "$BODY" | jq -r '.jobs[].id')" "$J" "q: by a piece of the id, in any case"
http GET '/jobs/overview?q=%25_!'
is "$(printf '%s' "$BODY" | jq -r '[.jobs[].name] | join(",")')" 'pct%_!x' \
    "q: LIKE's wildcards and the escape are themselves"

# --- The fleet's health, summed ------------------------------------------------

http GET '/ui/fleet?limit=10'
is "$STATUS" 200 "GET /ui/fleet: 200"
is "$(printf '%s' "$BODY" | jq -c '[.jobs, .health, .in_progress,
    .missing_slots, .slots_missed, .matched, .runner_last_pass_ms,
    .runner_late]')" \
    '[230,{"failing":10,"norunner":5,"stale":5,"new":5,"ok":200,"off":5},5,5,15,230,null,true]' \
    "GET /ui/fleet: every job's health summed, as the database has it"
is "$(printf '%s' "$BODY" | jq -r '[.page[] | .health + ":" + .name] | join(" ")')" \
    "$(printf 'failing:Failing %d ' 201 202 203 204 205 206 207 208 209 210 | sed 's/ $//')" \
    "worst first, then by name: ten rows"

# walk_fleet ORDER: every page of /ui/fleet?limit=9&order=ORDER into
# $T/fleet (health TAB name TAB id), PAGES pages.
walk_fleet() {
	: > "$T/fleet"
	PAGES=0 _after=
	while :; do
		http GET "/ui/fleet?limit=9&order=$1${_after:+&after=$(printf '%s' "$_after" | jq -sRr @uri)}"
		[ "$STATUS" = 200 ] || break
		printf '%s' "$BODY" |
		    jq -r '.page[] | [.health, .name, .jid] | @tsv' >> "$T/fleet"
		PAGES=$((PAGES + 1))
		_after=$(printf '%s' "$BODY" | jq -r '.next // empty')
		[ -n "$_after" ] && [ "$PAGES" -lt 100 ] || break
	done
}
rank() {
	awk -F '\t' 'BEGIN { split("failing norunner stale new ok off", h, " ");
	    for (i in h) r[h[i]] = i } { printf "%d\t%s\t%s\n", r[$1], $2, $3 }'
}
walk_fleet health
is "$PAGES" 26 "worst first, 9 a page: 26 pages"
is "$(cut -f3 "$T/fleet" | sort | uniq -d | wc -l)" 0 "worst first: no job twice"
is "$(wc -l < "$T/fleet")" 230 "worst first: every job"
rank < "$T/fleet" > "$T/ranked"
LC_ALL=C sort -t "$(printf '\t')" -k1,1n -k2,2 -k3,3 "$T/ranked" > "$T/sorted"
cmp -s "$T/ranked" "$T/sorted"
ok $? "worst first, then by name, then by id, across the pages"
is "$(grep -c '^stale	' "$T/fleet")" 5 "the five stale by their schedule"
walk_fleet id
is "$(cut -f3 "$T/fleet")" "$(ids)" "by id, page by page: every job once"

http GET '/ui/fleet?q=FAILING%2020&limit=3'
is "$(printf '%s' "$BODY" | jq -c '[.jobs, .health.failing, .matched, [.page[].name]]')" \
    '[230,10,9,["Failing 201","Failing 202","Failing 203"]]' \
    "q: found by name in any case; the counts stay the fleet's"
http GET "/ui/fleet?q=$J"
is "$(printf '%s' "$BODY" | jq -c '[.matched, .page[0].jid, .page[0].missed]')" \
    "[1,\"$J\",0]" "q: found by its id"
S=$(sql "SELECT job_id FROM jobs WHERE name = 'other 226'")
http GET "/ui/fleet?q=$S"
is "$(printf '%s' "$BODY" | jq -c '[.page[0].health, .page[0].missed, .page[0].due_ms]')" \
    '["stale",3,180000]' "a stale job: its missed slots, what it was judged against"
# The bulk's checkpoints a second ago but bulk 200's, two minutes ago,
# now (a slow run must not age them all past the minute).
NOW=$(($(date +%s) * 1000))
sql "UPDATE checkpoint_stats SET completed_ms = CASE WHEN job_id = $(hex '200 * 7919')
    THEN $NOW - 120000 ELSE $NOW - 1000 END
    WHERE job_id IN (SELECT job_id FROM jobs WHERE name LIKE 'bulk %')"
http GET "/ui/fleet?q=bulk%20200&stale=1"
is "$(printf '%s' "$BODY" | jq -c '[.page[0].health, .page[0].due_ms, .health.stale]')" \
    '["stale",60000,6]' "?stale=1: a minute for every job, scheduled or not"

for q in order=name limit=0 limit=501 after=zz after=9-$J- stale=0; do
	http GET "/ui/fleet?$q"
	is "$STATUS $(printf '%s' "$BODY" | jq -r '.errors[0]')" \
	    "400 Bad request, could not parse parameters: Cannot resolve query parameter (${q%%=*}) from value \"${q#*=}\"." \
	    "GET /ui/fleet?$q: the contract's 400"
done
for q in limit=0 limit=1001 after=x; do
	http GET "/jobs/overview?$q"
	is "$STATUS" 400 "GET /jobs/overview?$q: 400"
done

# --- /metrics: the fleet's, whatever its size ------------------------------------

shape() {
	http GET /metrics
	printf '%s' "$BODY" | sed 's/ [0-9.]*$//'
}
shape > "$T/m230"
is "$(printf '%s' "$BODY" | grep -c '^flink_')" 0 "GET /metrics: no job's series"
like "$BODY" 'checkpoint_api_jobs_health\{health="stale"\} 5' \
    "GET /metrics: the jobs by health"
sql "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n
    WHERE i < 1800) INSERT INTO jobs (job_id, name, created_ms, updated_ms)
    SELECT $(hex '9000000 + i'), 'more ' || i, 1, 1 FROM n"
shape > "$T/m2030"
cmp -s "$T/m230" "$T/m2030"
ok $? "GET /metrics: the same lines at 230 jobs and at 2,030"
http GET '/metrics?per-job=1'
is "$(printf '%s' "$BODY" | grep -c '^flink_jobmanager_job_lastCompletedCheckpointId')" \
    2030 "GET /metrics?per-job=1: each job's series"
stop_server
done_testing
