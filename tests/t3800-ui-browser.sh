#!/bin/sh
# The page (/ui/, cgi/ui.c and cgi/ui/) against the real service behind
# lighttpd, with a watching runner completing the triggers.  First with
# curl: the page and its assets, ETag and 304, the /ui redirect, the
# prefix, and the cross-site rule for POSTs (a foreign Origin refused with
# 403, the service's own and none accepted, CHECKPOINT_CORS_ORIGIN's
# accepted).  Then in Debian's Chromium driven by playwright-core
# (tests/browser/ui.mjs, whose checks are numbered here): the jobs listed,
# a trigger by the button followed to its checkpoint id, a failing job's
# failure and stack trace, a failed checkpoint's stack trace from the last
# failure and the history (GET /jobs/:jobid/triggers), triggers queued
# while no runner runs (the waiting count, the oldest's age, said
# plainly), the history's table and chart, 503 and an
# unreachable service said plainly, phone width, a cross-site form POST
# refused, the /api prefix, a savepoint taken from the job's view and a
# stop that asks first.  Then a fleet of 12 jobs of its own
# (tests/ui-fleet.sh) on a server of its own: each job's health marked and
# the worst first, the summary and the runner's last pass at the top, a
# failing streak, a stale job, a queue with no runner and the same under a
# recent cron pass, a 502 page from a proxy as a banner with the buttons
# disabled, a Python traceback's last line as the cause, the queue's wait
# apart from the run, the chart's time axis and read-out, at 1280x900 and
# 390 px.  And a job of 150 checkpoints on a server with the default
# CHECKPOINT_HISTORY, whose chart reaches back to the oldest.  Without Chromium or tests/browser/node_modules
# (scripts/test installs both) those checks are skipped, each saying so.
# The screenshots are kept in test-results/ (ui*.png).  Each state is
# judged by the positions and text of its elements, never by pixels.
# shellcheck disable=SC2016

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ui-fleet.sh"

for c in lighttpd sqlite3 curl; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing"
done

BROWSER_CHECKS=38 # tests/browser/ui.mjs's CHECKS
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
NODE_DIR=$top_srcdir/tests/browser
OUT=$top_builddir/test-results
mkdir -p "$OUT"

OK_JOB=0000000000000000000000000000a001
FAIL_JOB=0000000000000000000000000000a002
BIG_JOB=0000000000000000000000000000a003
SLOW_JOB=0000000000000000000000000000a004
QUEUE_JOB=0000000000000000000000000000a005 # its triggers wait: no runner
NBULK=500
"$CTL" init >/dev/null || bail "checkpointctl init"
"$CTL" job add $OK_JOB --name orders --type FULL \
    --command 'echo "file:/ckpt/$CHECKPOINT_JOB_ID/chk-$CHECKPOINT_ID"' \
    --savepoint-dir file:/sp \
    --savepoint-command 'echo "$CHECKPOINT_SAVEPOINT_DIR/sp-$CHECKPOINT_ID"' \
    --stop-command 'echo "$CHECKPOINT_SAVEPOINT_DIR/stop-$CHECKPOINT_ID"' \
    --every 1h || bail "job add"
"$CTL" job add $FAIL_JOB --name payments --type INCREMENTAL \
    --command 'echo disk quota exceeded >&2; exit 1' || bail "job add"
"$CTL" job add $BIG_JOB --name history --type FULL || bail "job add"
"$CTL" job add $SLOW_JOB --name slow --type FULL \
    --command 'sleep 8; echo file:/ckpt/slow' || bail "job add"
"$CTL" job add $QUEUE_JOB --name queued --type FULL || bail "job add"
# Many jobs, and a long history (a failure every hundredth), to show that
# the page stays usable.  The history is claimed, then completed, as the
# runner does it, so that the statistics count it.
now=$(($(date +%s) * 1000))
sql "BEGIN;
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n
    WHERE i < $NBULK)
    INSERT INTO jobs (job_id, name, state, created_ms, updated_ms)
    SELECT printf('%032x', 45056 + i), printf('bulk-%03d', i),
        CASE i % 5 WHEN 0 THEN 'FINISHED' WHEN 1 THEN 'FAILED'
        ELSE 'RUNNING' END, $now, $now FROM n;
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n
    WHERE i < 10000)
    INSERT INTO triggers (job_id, trigger_id, requested_type, checkpoint_type,
        checkpoint_id, created_ms, claimed_by, claimed_ms)
    SELECT '$BIG_JOB', printf('%032x', i), 'CONFIGURED', 'FULL', i,
        $now - 20000 + i, 'test', $now - 20000 + i FROM n;
    UPDATE triggers SET status = 'COMPLETED',
        completed_ms = claimed_ms + 20 + (checkpoint_id % 37) * 3,
        location = CASE WHEN checkpoint_id % 100 THEN
            'file:/ckpt/big/chk-' || checkpoint_id END,
        failure_class = CASE WHEN checkpoint_id % 100 = 0 THEN
            'org.apache.flink.runtime.checkpoint.CheckpointException' END,
        failure_trace = CASE WHEN checkpoint_id % 100 = 0 THEN
            'org.apache.flink.runtime.checkpoint.CheckpointException: Checkpoint expired before completing.' END,
        -- The page never reads the serialized form (t4200 checks it).
        failure_throwable = CASE WHEN checkpoint_id % 100 = 0 THEN
            'placeholder' END
        WHERE job_id = '$BIG_JOB';
    INSERT INTO checkpoint_counters VALUES ('$BIG_JOB', 10000);
    COMMIT;" || bail "bulk rows"
JOBS=$((NBULK + 5))

spawn "$RUNNER" --watch 2>"$T/runner.log"
RUNNER_PID=$LAST_PID # the browser's last check stops it

# With the statistics' default history (CHECKPOINT_HISTORY, 10), a job of
# 150 finished checkpoints, more than ../triggers lists unless asked, the
# slowest among the oldest 50: the job's chart must still reach it.
LONG_DB=$T/long.db
LONG_JOB=0000000000000000000000000000b001
"$CTL" --db "$LONG_DB" init >/dev/null || bail "the long history's database"
sqlite3 -bail "$LONG_DB" "BEGIN;
    INSERT INTO jobs (job_id, name, state, created_ms, updated_ms)
    VALUES ('$LONG_JOB', 'long', 'RUNNING', $now - 86400000, $now - 86400000);
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n
    WHERE i < 150)
    INSERT INTO triggers (job_id, trigger_id, requested_type, checkpoint_type,
        checkpoint_id, created_ms, claimed_by, claimed_ms)
    SELECT '$LONG_JOB', printf('%032x', i), 'CONFIGURED', 'FULL', i,
        $now - (151 - i) * 60000, 'test', $now - (151 - i) * 60000 + 50 FROM n;
    UPDATE triggers SET status = 'COMPLETED', completed_ms = claimed_ms +
        CASE checkpoint_id WHEN 20 THEN 4321 ELSE 40 + checkpoint_id % 9 END,
        location = 'file:/ckpt/long/chk-' || checkpoint_id;
    INSERT INTO checkpoint_counters VALUES ('$LONG_JOB', 150);
    COMMIT;" || bail "the long history"
unset CHECKPOINT_HISTORY
CHECKPOINT_DB=$LONG_DB MOUNT= INSTANCE=-long
start_lighttpd
LONG_BASE=$BASE
CHECKPOINT_DB=$DB

# Two servers at once, at the root and under /api, each with its app;
# and a third whose database is not one, for the page's 503 (the browser
# puts a real database in its place, which the same app then opens).
export CHECKPOINT_HISTORY=1000
MOUNT= INSTANCE=-root
start_lighttpd
ROOT=$BASE
MOUNT=/api INSTANCE=-api
start_lighttpd
PREFIXED=$BASE
JUNK=$T/junk
mkdir -p "$JUNK" && echo "not a database" > "$JUNK/checkpoints.db" &&
    "$CTL" --db "$JUNK/new.db" init >/dev/null || bail "junk database"
CHECKPOINT_DB=$JUNK/checkpoints.db MOUNT= INSTANCE=-junk
start_lighttpd
JUNK_BASE=$BASE
FLEET_DB=$T/fleet.db
"$CTL" --db "$FLEET_DB" init >/dev/null || bail "the fleet's database"
CHECKPOINT_DB=$FLEET_DB MOUNT= INSTANCE=-fleet
start_lighttpd
FLEET_BASE=$BASE
CHECKPOINT_DB=$DB MOUNT= INSTANCE=

# --- The page and its assets (curl) -------------------------------------------

BASE=$ROOT
http GET /ui
is "$STATUS $(header location)" "302 ui/" "/ui: 302 to ui/ (relative)"
http GET /ui/
is "$STATUS $(header content-type)" "200 text/html; charset=utf-8" \
    "/ui/: the page, as HTML"
etag=$(header etag)
like "$etag" '^"[0-9a-f]{16}"$' "/ui/: an ETag"
is "$(header cache-control)" "no-cache" "/ui/: revalidated at each load"
like "$(header content-security-policy)" "default-src 'self'.*frame-ancestors 'none'" \
    "/ui/: nothing from another host, never framed"
STATUS=$(curl -s -o /dev/null -w "%{http_code} %{size_download}" \
    -H "If-None-Match: $etag" "$BASE/ui/")
is "$STATUS" "304 0" "/ui/: 304 on its ETag, no body"
size=0
for f in index.html app.js chart.js format.js style.css; do
	http GET "/ui/$f"
	[ "$STATUS" = 200 ] || diag "/ui/$f: $STATUS"
	size=$((size + $(header content-length)))
done
# A budget, not a measure of speed: the page stays a few files of plain
# code (44 KiB since it has the job's savepoints).
ok $((size >= 45056)) "the page weighs $size bytes, under 44 KiB"
http GET /ui/app.js
is "$(header content-type)" "text/javascript; charset=utf-8" "app.js: a JavaScript module"
http GET /ui/nope.js
is "$STATUS" 404 "an unknown asset: 404"
BASE=$PREFIXED
http GET /ui
is "$STATUS $(header location)" "302 ui/" "/api/ui: 302 to ui/, so /api/ui/"
http GET /ui/
is "$STATUS" 200 "/api/ui/: the page"

# --- Cross-site POSTs (curl) ---------------------------------------------------

triggers() {
	sql "SELECT count(*) FROM triggers WHERE job_id = '$OK_JOB'"
}
BASE=$ROOT
HOSTPORT=${ROOT#http://}
# post ORIGIN: POSTs a trigger for OK_JOB with that Origin (none if empty).
post() {
	STATUS=$(curl -s -o "$T/b" -w '%{http_code}' ${1:+-H "Origin: $1"} \
	    -H 'Content-Type: application/json' \
	    -d '{"checkpointType":"FULL","triggerId":null}' \
	    "$BASE/jobs/$OK_JOB/checkpoints")
	BODY=$(cat "$T/b")
}
before=$(triggers)
post http://evil.example
is "$STATUS $BODY" '403 {"errors":["Cross-site request refused: Origin http://evil.example is neither this service'"'"'s nor CHECKPOINT_CORS_ORIGIN."]}' \
    "a POST with another site's Origin: 403, the API's JSON error"
is "$(triggers)" "$before" "... and nothing recorded"
post "http://localhost:${HOSTPORT#*:}"
is "$STATUS" 403 "another host name of the same server is another site"
post "http://$HOSTPORT"
is "$STATUS" 202 "the service's own Origin: accepted"
post ""
is "$STATUS" 202 "no Origin (curl, Flink's clients): accepted"
post null
is "$STATUS" 403 "Origin: null (a sandboxed frame): refused"
BASE=$PREFIXED
post http://evil.example
is "$STATUS" 403 "under /api too"
# CHECKPOINT_CORS_ORIGIN names the one other site allowed.
export CHECKPOINT_CORS_ORIGIN=https://ops.example
MOUNT= INSTANCE=-cors
start_lighttpd
unset CHECKPOINT_CORS_ORIGIN
post https://ops.example
is "$STATUS" 202 "CHECKPOINT_CORS_ORIGIN's origin: accepted"
post http://evil.example
is "$STATUS" 403 "... and any other still refused"
stop_lighttpd

# Behind the API's own authentication (lighttpd's, on the whole mount):
# no setting of the page's own.
AUTH=1 INSTANCE=-auth
start_lighttpd
AUTH= INSTANCE=
http GET /ui/
is "$STATUS" 401 "behind authentication: the page asks for it"
HTTP_USER=alice:$AUTH_PASSWORD
http GET /ui/
is "$STATUS" 200 "and is served once given"
post ""
is "$STATUS" 401 "a POST without credentials: 401"
HTTP_USER=
stop_lighttpd
wait_until 100 '[ "$(sql "SELECT count(*) FROM triggers WHERE
    status = '"'IN_PROGRESS'"'")" = 0 ]' || diag "runner still busy"

# --- In Chromium ---------------------------------------------------------------

why=
if [ ! -x "$CHROMIUM" ]; then
	why="chromium not installed"
elif ! command -v node >/dev/null 2>&1; then
	why="chromium not installed (node missing)"
elif [ ! -d "$NODE_DIR/node_modules/playwright-core" ]; then
	why="chromium not installed (no tests/browser/node_modules: npm ci)"
fi
if [ -n "$why" ]; then
	i=0
	while [ $i -lt $BROWSER_CHECKS ]; do
		skip "the page in a browser, check $((i + 1))" "$why"
		i=$((i + 1))
	done
else
	rm -f "$OUT"/ui*.png
	browser_before=$(triggers)
	# Just before the browser: the fleet's times are relative to now.
	fleet_fixture "$FLEET_DB"
	UI_BASE=$ROOT UI_PREFIX_BASE=$PREFIXED UI_OUT=$T \
	    UI_JUNK_BASE=$JUNK_BASE UI_JUNK_DIR=$JUNK \
	    UI_OK_JOB=$OK_JOB UI_FAIL_JOB=$FAIL_JOB UI_BIG_JOB=$BIG_JOB \
	    UI_SLOW_JOB=$SLOW_JOB UI_QUEUE_JOB=$QUEUE_JOB UI_RUNNER_PID=$RUNNER_PID \
	    UI_JOBS=$JOBS CHROMIUM=$CHROMIUM UI_DB=$DB UI_RUNNER=$RUNNER \
	    UI_FLEET_BASE=$FLEET_BASE UI_FLEET_DB=$FLEET_DB \
	    UI_LONG_BASE=$LONG_BASE UI_LONG_JOB=$LONG_JOB \
	    timeout 300 node "$NODE_DIR/ui.mjs" > "$T/browser.tap" 2>&1
	rc=$?
	while IFS= read -r line; do
		case $line in
		"ok - "*) ok 0 "${line#ok - }" ;;
		"not ok - "*) ok 1 "${line#not ok - }" ;;
		*) diag "$line" ;;
		esac
	done < "$T/browser.tap"
	is "$rc" 0 "the browser script ran to its end"
	stop_pid $RUNNER_PID
	id=$(cat "$T/checkpoint-id" 2>/dev/null)
	is "$(sql "SELECT count(*) FROM triggers WHERE job_id = '$OK_JOB'
	    AND checkpoint_id = '${id:-0}' AND requested_type = 'CONFIGURED'
	    AND location = 'file:/ckpt/$OK_JOB/chk-${id:-0}'")" 1 \
	    "the id the page showed is the runner's checkpoint, of the job's type"
	# The form POST from another origin recorded nothing: only the
	# page's two triggers.
	is "$(triggers)" $((browser_before + 2)) \
	    "the cross-site form POST recorded nothing"
	is "$(sql "SELECT count(*) FROM triggers WHERE job_id = '$QUEUE_JOB'
	    AND status = 'IN_PROGRESS' AND claimed_by IS NULL")" 2 \
	    "the two triggers the page showed waiting were still queued"
	cp "$T"/ui*.png "$OUT/" 2>/dev/null
	ok $(test -s "$OUT/ui.png"; echo $?) "screenshot kept: test-results/ui.png"
fi
done_testing
