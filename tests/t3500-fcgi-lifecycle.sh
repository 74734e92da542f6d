#!/bin/sh
# What a process manager relies on.  SIGTERM ends the FastCGI process after
# the request in flight, which still gets its 202, with exit status 0;
# SIGPIPE, and a client that vanishes before its answer, do not kill it; a
# process recycled every 2 requests (mod_fcgid FcgidMaxRequestsPerProcess)
# answers exactly as plain CGI does; and over 100,000 requests of every kind
# in one process (nginx + spawn-fcgi in front, driven by wrk) leak no file
# descriptor, no memory and no open statement.

. "$(dirname "$0")/lib.sh"

for c in cgi-fcgi sqlite3 wrk nginx spawn-fcgi apache2; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing"
done
unset CHECKPOINT_STORE_DURATION CHECKPOINT_MAX_BODY CHECKPOINT_CORS_ORIGIN \
    CHECKPOINT_REJECT_UNKNOWN_JOBS CHECKPOINT_BUSY_TIMEOUT CHECKPOINT_SYNC

J=0123456789abcdef0123456789abcdef
TA=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
TB=bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb
IN_PROGRESS='{"status":{"id":"IN_PROGRESS"},"operation":null}'

# === SIGTERM with a request in flight =======================================
DB=$T/term.db
export CHECKPOINT_DB=$DB CHECKPOINT_BUSY_TIMEOUT=5s
init_db
start_app 2>>"$T/app.log"
hold_lock 0.8
fcgi_raw POST /jobs/$J/checkpoints "{\"triggerId\":\"$TA\"}" > "$T/post.out" &
POST=$!
PIDS="$PIDS $POST"
sleep 0.3
is "$(wc -c < "$T/post.out" | tr -d ' ')" 0 \
    "SIGTERM: the POST is in flight, waiting for the lock"
kill -TERM "$APP"
wait "$POST"
is "$(status_body < "$T/post.out")" "202 {\"request-id\":\"$TA\"}" \
    "SIGTERM: the request in flight still gets its 202"
wait "$APP"
is "$?" 0 "SIGTERM: the process then exits with status 0"
stop_pid "$APP"
wait "$LOCKER"
stop_pid "$LOCKER"
is "$(sql "SELECT count(*) FROM triggers WHERE trigger_id='$TA'")" 1 \
    "SIGTERM: the trigger answered 202 is in the database"

# === SIGPIPE, and a client gone before its answer ============================
start_app 2>>"$T/app.log"
kill -PIPE "$APP"
sleep 0.1
kill -0 "$APP" 2>/dev/null
ok $? "SIGPIPE: the process still runs"
is "$(fcgi_raw GET /jobs/$J/checkpoints/$TA | status_body)" "200 $IN_PROGRESS" \
    "SIGPIPE: the process still answers"

hold_lock 0.6
printf '{"triggerId":"%s"}' "$TB" > "$T/gone-req"
spawn sh -c 'exec env -i REQUEST_METHOD=POST PATH_INFO="$1" CONTENT_LENGTH="$2" \
    "$3" -bind -connect "$4" < "$5" > /dev/null' sh /jobs/$J/checkpoints \
    "$(wc -c < "$T/gone-req" | tr -d ' ')" "$CGIFCGI" "$SOCK" "$T/gone-req"
CLIENT=$LAST_PID
sleep 0.2
kill -KILL "$CLIENT"
stop_pid "$CLIENT"
wait "$LOCKER"
stop_pid "$LOCKER"
sleep 0.2
kill -0 "$APP" 2>/dev/null
ok $? "a client gone before its answer: the process still runs"
is "$(fcgi_raw GET /jobs/$J/checkpoints/$TB | status_body)" "200 $IN_PROGRESS" \
    "a client gone before its answer: its trigger was recorded all the same"
kill -TERM "$APP"
wait "$APP"
is "$?" 0 "after SIGPIPE and a vanished client: SIGTERM exits 0"
stop_pid "$APP"
unset CHECKPOINT_BUSY_TIMEOUT

# === several processes on one socket (spawn-fcgi -F) =========================
# spawn-fcgi -F hands one listening socket to every process it starts: one
# of them stopping (SIGTERM, or -n reached) must not stop the socket for
# the others.  Each process logs (-d) to a file named by its pid.
SHARED=$T/shared.sock
DB=$T/shared.db
export CHECKPOINT_DB=$DB
init_db
# shared_start [OPTION...]: two processes on $SHARED; sets SHARED_PIDS.
shared_start() {
	rm -f "$SHARED" "$T/shared.pids"
	spawn-fcgi -s "$SHARED" -F 2 -P "$T/shared.pids" -- /bin/sh -c \
	    '_log=$1; shift; exec "$0" -d "$@" 2>> "$_log.$$.log"' "$API" "$T/shared" "$@" \
	    > /dev/null 2>&1 || bail "spawn-fcgi -F 2 did not start"
	SHARED_PIDS=$(cat "$T/shared.pids")
	PIDS="$PIDS $SHARED_PIDS"
	is "$(echo $SHARED_PIDS | wc -w)" 2 "shared socket: two processes $*"
}
# running PID: the process has not exited (not a zombie, not gone).
running() {
	grep -q '^State:[[:space:]]*[RSD]' "/proc/$1/status" 2>/dev/null
}
# gone PID: waits until the process has exited.
gone() {
	wait_until 50 "! running $1"
}
shared_get() {
	SOCK=$SHARED fcgi_raw GET /jobs/$J/checkpoints/$1 | status_body
}

NO_TA="404 {\"errors\":[\"There is no checkpoint operation with triggerId=$TA for job $J.\"]}"
shared_start -t 4
set -- $SHARED_PIDS
is "$(shared_get $TA)" "$NO_TA" "shared socket: answered"
kill -TERM "$1"
gone "$1"
ok $? "shared socket: SIGTERM: that process exits"
like "$(cat "$T/shared.$1.log")" 'signal 15: finishing' \
    "shared socket: it took the SIGTERM"
! grep -q 'did not leave' "$T/shared.$1.log"
ok $? "shared socket: every one of its threads left the accept they waited in"
running "$2"
ok $? "shared socket: the other process still runs"
for i in 1 2 3; do
	shared_get $TA
	echo
done > "$T/shared-after"
is "$(cat "$T/shared-after")" "$(printf '%s\n%s\n%s' "$NO_TA" "$NO_TA" "$NO_TA")" \
    "shared socket: the other process answers every request on it"
is "$(SOCK=$SHARED fcgi_raw POST /jobs/$J/checkpoints "{\"triggerId\":\"$TA\"}" |
    status_body)" "202 {\"request-id\":\"$TA\"}" \
    "shared socket: and records a POST"
is "$(shared_get $TA)" "200 $IN_PROGRESS" "shared socket: which it then reads"
kill -TERM "$2"
gone "$2"
ok $? "shared socket: SIGTERM to the last one: it exits"
! SOCK=$SHARED fcgi_raw GET /jobs/$J/checkpoints/$TA > /dev/null 2>&1
ok $? "shared socket: with no process left on it, a connection is refused"

# -n 1: the first request ends the process that answers it; the second is
# the other's.
shared_start -t 4 -n 1
is "$(shared_get $TA)" "200 $IN_PROGRESS" "shared socket, -n 1: the first request"
wait_until 50 '[ "$(for p in $SHARED_PIDS; do running $p && echo $p; done | wc -l)" -eq 1 ]'
ok $? "shared socket, -n 1: the process that answered it exits"
is "$(shared_get $TA)" "200 $IN_PROGRESS" \
    "shared socket, -n 1: the other answers the second"
for p in $SHARED_PIDS; do
	gone "$p" || kill "$p"
done
unset SHARED_PIDS

# === recycled every 2 requests, and plain CGI: the same answers ==============
# app_pids: the app's processes under the server (its descendants).
app_pids() {
	ps -e -o pid=,ppid=,args= | awk -v root="$SERVER_PID" -v api="$API" '
	    { parent[$1] = $2; cmd[$1] = $3 }
	    END {
		for (p in parent) {
			if (cmd[p] != api)
				continue
			for (q = parent[p]; q > 1; q = parent[q])
				if (q == root) {
					print p
					break
				}
		}
	    }'
}

# transcript: a fixed series of requests, one answer a line: status,
# Content-Type, Allow, CORS header, body.  Notes the app's pids in $T/pids.
transcript() {
	: > "$T/pids"
	while IFS='|' read -r _m _p _b; do
		if [ -n "$_b" ]; then
			http "$_m" "$_p" "$_b"
		else
			http "$_m" "$_p"
		fi
		printf '%s|%s|%s|%s|%s\n' "$STATUS" "$(header content-type)" \
		    "$(header allow)" "$(header access-control-allow-origin)" "$BODY"
		app_pids >> "$T/pids"
	done <<-EOF
	POST|/jobs/$J/checkpoints|{"triggerId":"$TA","checkpointType":"FULL"}
	POST|/jobs/$J/checkpoints|{"triggerId":"$TA"}
	GET|/jobs/$J/checkpoints/$TA
	GET|/v1/jobs/$J/checkpoints/$TA/
	GET|/jobs/$J/checkpoints/$TB
	POST|/jobs/$J/checkpoints|{"checkpointType":"full"}
	POST|/jobs/$J/checkpoints|{"triggerId":"$TB","pad":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}
	GET|/jobs/xyz/checkpoints/$TA
	GET|/jobs/$J/checkpoints
	DELETE|/jobs/$J/checkpoints/$TA
	GET|/nope?a=1
	POST|/jobs/$J/checkpoints/|{"triggerId":"$TB","checkpointType":"INCREMENTAL"}
	GET|/jobs/$J/checkpoints/$TB
	GET|/jobs/$J/checkpoints/$TA
	EOF
}

export CHECKPOINT_MAX_BODY=100
# Recycled processes hold their slot until mod_fcgid reaps them, seconds
# later: headroom in FcgidMaxProcessesPerClass keeps requests from waiting.
DB=$T/recycled.db
export CHECKPOINT_DB=$DB CHECKPOINT_PROCS=8
init_db
SERVER=apache APACHE_EXTRA='FcgidMaxRequestsPerProcess 2'
start_server 2>>"$T/server-stderr.log"
RECYCLED=$(transcript)
stop_server
ok "$([ "$(sort -u "$T/pids" | grep -c .)" -ge 7 ] && echo 0 || echo 1)" \
    "mod_fcgid, FcgidMaxRequestsPerProcess 2: 14 requests took 7 processes or more"
DB=$T/cgi.db
export CHECKPOINT_DB=$DB
init_db
SERVER=cgi APACHE_EXTRA=
start_server 2>>"$T/server-stderr.log"
CGI=$(transcript)
stop_server
unset CHECKPOINT_MAX_BODY CHECKPOINT_PROCS
is "$(printf '%s\n' "$CGI" | cut -d'|' -f1 | tr '\n' ' ')" \
    "202 202 200 200 404 400 413 400 404 405 404 202 200 200 " \
    "plain CGI: the statuses of the series"
is "$RECYCLED" "$CGI" \
    "a process recycled every 2 requests and plain CGI answer the same bytes"

# === 100,000 requests in one process ==========================================
# Every kind of answer, in turn, from wrk's threads (fresh trigger ids for
# the POSTs); the counts of each status are printed at the end.  wrk
# stops by time, not count: load() runs it until enough were answered.
cat > "$T/mix.lua" <<'EOF'
local job = "0123456789abcdef0123456789abcdef"
local base = "/jobs/" .. job .. "/checkpoints"
local threads = {}
local n = 0
counts = {}

function setup(thread)
	table.insert(threads, thread)
	thread:set("thread", #threads)
end

-- Trigger ids: the run's number (wrk's argument), the thread, a counter.
function init(args)
	tag = string.format("%06x%02x", tonumber(args[1]), thread)
end

local kinds = {
	function() return wrk.format("POST", base, nil,
	    string.format('{"triggerId":"%s%024x"}', tag, n)) end,
	function() return wrk.format("GET", base .. "/" .. job) end,
	function() return wrk.format("GET", "/jobs/" .. job .. "/checkpoints/" .. tag) end,
	function() return wrk.format("GET", "/jobs/xyz/checkpoints/" .. job) end,
	function() return wrk.format("PUT", base) end,
	function() return wrk.format("POST", base, nil, string.rep("x", 200)) end,
	function() return wrk.format("POST", base, nil, "[]") end,
	function() return wrk.format("GET", "/nope") end,
}

function request()
	n = n + 1
	return kinds[n % #kinds + 1]()
end

function response(status)
	counts[status] = (counts[status] or 0) + 1
end

function done(summary)
	local all = {}
	for _, t in ipairs(threads) do
		for s, c in pairs(t:get("counts")) do
			all[s] = (all[s] or 0) + c
		end
	end
	for s, c in pairs(all) do
		io.write(string.format("status %d %d\n", s, c))
	end
	local e = summary.errors
	io.write(string.format("socket-errors %d\n",
	    e.connect + e.read + e.write + e.timeout))
end
EOF

# load N: wrk runs of a second until N more requests are answered; the
# status counts and socket errors of every run are added up in $T/load.
load() {
	_sum=$(count status)
	_until=$((_sum + $1))
	while [ "$_sum" -lt "$_until" ]; do
		RUN=$((RUN + 1))
		wrk -t 2 -c 8 -d 1s --timeout 5s -s "$T/mix.lua" "$BASE" -- "$RUN" \
		    > "$T/wrk.out" 2>&1 || bail "wrk failed: $(cat "$T/wrk.out")"
		grep -E '^(status|socket-errors) ' "$T/wrk.out" >> "$T/load"
		_sum=$(awk '$1 == "status" { s += $3 } END { print s + 0 }' "$T/load")
	done
}
count() {
	awk -v k="$1" -v s="${2:-}" '$1 == k && (s == "" || $2 == s) { n += $NF }
	    END { print n + 0 }' "$T/load"
}

# The app's resident memory (KiB), its open descriptors other than the
# database's, and the database's (the database, its -wal and -shm), once
# nginx has closed its connections.  Database descriptors may grow: the
# pool of read connections opens one more only when that many reads
# overlap; they are bounded instead (two per connection, of at most two
# per CPU plus the committer's and the WAL copier's, and the -shm).
footprint() {
	sleep 0.5
	_db=0
	_other=0
	for _fd in /proc/$APP/fd/*; do
		case "$(readlink "$_fd")" in
		"$DB" | "$DB-wal" | "$DB-shm") _db=$((_db + 1)) ;;
		*) _other=$((_other + 1)) ;;
		esac
	done
	printf '%s %s %s' "$(awk '/^VmRSS:/ { print $2 }' /proc/$APP/status)" \
	    "$_other" "$_db"
}

RUN=0
: > "$T/load"
DB=$T/leak.db
export CHECKPOINT_DB=$DB CHECKPOINT_MAX_BODY=100 CHECKPOINT_SYNC=NORMAL
init_db
SERVER=nginx
start_server 2>>"$T/server-stderr.log"
APP=$APP_PID
http POST /jobs/$J/checkpoints "{\"triggerId\":\"$J\"}"
is "$STATUS" 202 "load: the trigger the GETs read"
load 1000
WARM=$(count status)
BEFORE=$(footprint)
set -- $BEFORE
RSS0=$1 FDS0=$2 DBFDS0=$3
diag "after $WARM requests: VmRSS $RSS0 KiB, $FDS0 fds and $DBFDS0 of the database"
load 100000
AFTER=$(footprint)
set -- $AFTER
RSS1=$1 FDS1=$2 DBFDS1=$3
diag "after $(($(count status) - WARM)) more: VmRSS $RSS1 KiB, $FDS1 fds and $DBFDS1 of the database"
diag "$(awk '$1 == "status" { n[$2] += $3 } END { for (s in n) printf "%s: %d  ", s, n[s] }' "$T/load")"

ok "$([ $(($(count status) - WARM)) -ge 100000 ] && echo 0 || echo 1)" \
    "load: over 100,000 requests in one process after the warm-up"
is "$(count socket-errors)" 0 "load: no connection failed or timed out"
is "$(awk '$1 == "status" { print $2 }' "$T/load" | sort -u | tr '\n' ' ')" \
    "200 202 400 404 405 413 " "load: every answer is one the mix asks for"
kill -0 "$APP" 2>/dev/null
ok $? "load: the process that started is still the one running"
# (Requests that wrk cuts off at the end of a run may add a few rows.)
ROWS=$(sql "SELECT count(*) FROM triggers")
ok "$([ "$ROWS" -gt "$(count status 202)" ] && echo 0 || echo 1)" \
    "load: every 202 recorded its trigger ($ROWS rows, $(count status 202) answers)"
is "$FDS1" "$FDS0" "load: no file descriptor leaked (but the database's)"
ok "$([ "$DBFDS1" -le $((2 * (2 * $(nproc) + 2) + 1)) ] && echo 0 || echo 1)" \
    "load: database descriptors bounded by the connection pool ($DBFDS0, then $DBFDS1)"
GROWTH=$((RSS1 - RSS0))
rss_below "$API" "$GROWTH" 1024 \
    "load: resident memory grew less than 1 MiB (${GROWTH} KiB)"
# The app's WAL copier thread copies the WAL into the database as it
# grows (nothing else runs here), and the committer then starts it over,
# so the WAL is reused instead of holding every transaction of the run
# (over 100 MiB without): 1000 frames of 4 KiB between checkpoints, what
# is committed while one runs, and a start-over missed now and then for a
# reader still in the WAL (8 to 16 MiB seen).
WAL=$(stat -c %s "$DB-wal")
ok "$([ "$WAL" -lt $((32 * 1024 * 1024)) ] && echo 0 || echo 1)" \
    "load: the app checkpoints its WAL as it grows ($WAL bytes after $ROWS triggers)"
# A statement left unreset would hold a read transaction open, and the
# WAL could not be checkpointed to its end while the process runs.
is "$(sql "PRAGMA wal_checkpoint(TRUNCATE)")" "0|0|0" \
    "load: no statement left open: the WAL checkpoints fully under the running process"
stop_server

# === Scheduling: workers in SCHED_BATCH, the committer not ====================
# threads POLICY: how many threads of $APP run with POLICY (field 41 of
# stat: 0 SCHED_OTHER, 3 SCHED_BATCH).
threads() {
	for _t in /proc/"$APP"/task/*; do
		sed 's/^.*) //' "$_t/stat" | awk '{ print $39 }'
	done | grep -cx "$1"
}
DB=$T/sched.db
export CHECKPOINT_DB=$DB
init_db
start_app "" -t 3
is "$(threads 3)" 3 "sched: the 3 workers run in SCHED_BATCH"
# Main, committer and WAL copier (and ThreadSanitizer's own thread).
ok "$([ "$(threads 0)" -ge 3 ]; echo $?)" \
    "sched: the other threads, the committer among them, do not ($(threads 0))"
is "$(fcgi_raw POST /jobs/$J/checkpoints "{\"triggerId\":\"$TA\"}" | status_body)" \
    "202 {\"request-id\":\"$TA\"}" "sched: ... and answer as before"
stop_pid "$APP"

CHECKPOINT_SCHED_BATCH=0 start_app "" -t 3
is "$(threads 3)" 0 "sched: CHECKPOINT_SCHED_BATCH=0 leaves the workers in SCHED_OTHER"
ok "$([ "$(threads 0)" -ge 6 ]; echo $?)" "sched: ... all $(threads 0) threads"
stop_pid "$APP"

rm -f "$SOCK"
CHECKPOINT_SCHED_BATCH=yes "$API" -s "$SOCK" -t 3 > "$T/sched.out" 2>&1
rc=$?
ok "$([ "$rc" -ne 0 ]; echo $?)" "sched: CHECKPOINT_SCHED_BATCH=yes: the process refuses to start (exit $rc)"
like "$(cat "$T/sched.out")" 'CHECKPOINT_SCHED_BATCH="yes": expected 0 or 1' \
    "sched: ... saying why"

done_testing
