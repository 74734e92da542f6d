#!/bin/sh
# The page over a failing fleet in Debian's Chromium (tests/browser/
# fleet.mjs, driven by playwright-core), behind lighttpd: tests/ui-fleet.sh's
# 12 jobs (two failing, one waiting with no runner, one stale, savepoints
# among a failing job's checkpoints) and 50 healthy ones, then 450 more.
# The summary is the fleet's as GET /ui/fleet sums it; one refresh asks
# the same number of requests at 62 jobs as at 512 (one for the fleet,
# two for each row shown); the search finds a job beyond the first page
# by name and by a piece of its id; a job's whole id is copied with one
# click; the failure cell shows its whole cause at 1280 px; missed
# schedule slots show on the row and in the summary; the pages go forward
# and back; the chart marks savepoints; at 390x844 nothing overflows.
# Without Chromium or tests/browser/node_modules each check is a SKIP.
# The screenshots are kept in test-results/ (ui-fleet-*.png).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ui-fleet.sh"

for c in lighttpd sqlite3 curl; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing"
done

BROWSER_CHECKS=9 # tests/browser/fleet.mjs's steps
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
NODE_DIR=$top_srcdir/tests/browser
OUT=$top_builddir/test-results
mkdir -p "$OUT"

"$CTL" init >/dev/null || bail "checkpointctl init"
MOUNT= start_lighttpd

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
		skip "the fleet's page in a browser, check $((i + 1))" "$why"
		i=$((i + 1))
	done
	done_testing
	exit 0
fi

fleet_fixture "$DB"
UI_BASE=$BASE UI_DB=$DB UI_OUT=$T UI_BULK=50 UI_MORE=450 CHROMIUM=$CHROMIUM \
    timeout 300 node "$NODE_DIR/fleet.mjs" > "$T/browser.tap" 2>&1
rc=$?
n=0
while IFS= read -r line; do
	case $line in
	"ok - "*) ok 0 "${line#ok - }"; n=$((n + 1)) ;;
	"not ok - "*) ok 1 "${line#not ok - }"; n=$((n + 1)) ;;
	*) diag "$line" ;;
	esac
done < "$T/browser.tap"
is "$rc $n" "0 $BROWSER_CHECKS" "the browser script ran its $BROWSER_CHECKS checks to its end"
cp "$T"/ui-fleet-*.png "$OUT/" 2>/dev/null
stop_lighttpd
done_testing
