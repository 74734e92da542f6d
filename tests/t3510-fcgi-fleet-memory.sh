#!/bin/sh
# Memory is bounded whatever the fleet: one FastCGI process serves the
# fleet's lists (GET /jobs/overview, /jobs and /metrics?per-job=1 over 20,000 jobs,
# answers of megabytes) on each of its threads, and its resident memory
# then comes back under a fixed ceiling above what it held before: no
# thread keeps the buffer a large answer grew (buf_shrink), and the
# allocator gives the memory back.

. "$(dirname "$0")/lib.sh"

command -v cgi-fcgi >/dev/null 2>&1 || bail "cgi-fcgi (libfcgi-bin) is missing"
command -v sqlite3 >/dev/null 2>&1 || bail "sqlite3 is missing"

JOBS=20000
# What the process may hold after the lists beyond what it held before.
CEILING_KIB=4096
J=0123456789abcdef0123456789abcdef

"$CTL" init > /dev/null 2>&1 || bail "checkpointctl init"
sql "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n
    WHERE i < $JOBS) INSERT INTO jobs (job_id, name, created_ms, updated_ms)
    SELECT printf('%032x', i), 'fleet job ' || i, 1, 1 FROM n" ||
    bail "seeding $JOBS jobs"

rss() {
	awk '/^VmRSS:/ { print $2 }' "/proc/$APP/status"
}
# small N: N small requests, one at a time.
small() {
	_i=0
	while [ $_i -lt "$1" ]; do
		fcgi_raw GET "/jobs/$J/checkpoints" > /dev/null
		_i=$((_i + 1))
	done
}

start_app 2>>"$T/app.log"
small 40
RSS0=$(rss)
LARGEST=0
for path in /jobs/overview /jobs "/metrics?per-job=1"; do
	for round in 1 2 3 4 5 6; do
		n=$(fcgi_raw GET "$path" | wc -c)
		[ "$n" -gt "$LARGEST" ] && LARGEST=$n
	done
done
small 40
RSS1=$(rss)
diag "VmRSS $RSS0 KiB before, $RSS1 KiB after; the largest answer $LARGEST bytes"
ok "$([ "$LARGEST" -gt $((4 * CEILING_KIB * 1024)) ] && echo 0 || echo 1)" \
    "the lists of $JOBS jobs: answers of more than 4 times the ceiling"
rss_below "$API" $((RSS1 - RSS0)) "$CEILING_KIB" \
    "after them, the process holds less than $CEILING_KIB KiB more ($((RSS1 - RSS0)) KiB)"
stop_pid "$APP"
done_testing
