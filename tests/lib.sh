# Shared by the shell tests (tests/t*.sh): TAP output, a trash directory per
# test, the built programs, and real web servers on free loopback ports.
# Sourced; the test then calls done_testing at its end.
#
# Every process started here is recorded and ended by its pid on exit.

set -u

: "${top_builddir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_srcdir:=$top_builddir}"
API=$top_builddir/cgi/checkpoint-api.fcgi
RUNNER=$top_builddir/cgi/checkpoint-runner
CTL=$top_builddir/cgi/checkpointctl

T=$(mktemp -d "${TMPDIR:-/tmp}/checkpoint-test.XXXXXX") || exit 99
DB=$T/checkpoints.db

# With VALGRIND_LOGS=DIR the app, the runner and the ctl run under
# valgrind memcheck, each process logging to DIR (scripts/test --ci reads
# the logs): the programs are replaced by wrappers in the trash directory.
# No gdb server: its FIFOs in /tmp are named by pid, and one left by an
# earlier run under another user makes a process of that pid log an error.
if [ -n "${VALGRIND_LOGS:-}" ]; then
	for _prog in API RUNNER CTL; do
		eval "_real=\$$_prog"
		_wrap=$T/valgrind-$(basename "$_real")
		printf '#!/bin/sh\nexec valgrind --quiet --vgdb=no --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite --track-fds=no --log-file=%s/%%p.log %s "$@"\n' \
		    "$VALGRIND_LOGS" "$_real" > "$_wrap"
		chmod +x "$_wrap"
		eval "$_prog=\$_wrap"
	done
fi
# The runner refuses root unless told (checkpoint-runner(8)); the suite
# runs as root in CI, where its runners are told so by this wrapper.
# RUNNER_AS_IS is the program itself, for the test of that refusal.
RUNNER_AS_IS=$RUNNER
if [ "$(id -u)" = 0 ]; then
	printf '#!/bin/sh\nexec %s --allow-root "$@"\n' "$RUNNER" > "$T/runner-as-root"
	chmod +x "$T/runner-as-root"
	RUNNER=$T/runner-as-root
fi
export CHECKPOINT_DB=$DB
PIDS=
tap_n=0
tap_failed=0

# run ARG...: checkpointctl; sets OUT, ERR and RC, and keeps both outputs
# in $T/all-output (for the tests that look for what must never be shown).
run() {
	"$CTL" "$@" > "$T/out" 2> "$T/err"
	RC=$?
	OUT=$(cat "$T/out")
	ERR=$(cat "$T/err")
	cat "$T/out" "$T/err" >> "$T/all-output"
}

# stop_recorded: SIGTERM to every recorded process, and waits for them.
stop_recorded() {
	for p in $PIDS; do
		kill "$p" 2>/dev/null
	done
	for p in $PIDS; do
		wait "$p" 2>/dev/null
	done
	PIDS=
}

# at_cleanup FUNCTION: FUNCTION runs when the test ends, however it ends
# (done_testing, bail, a signal), before the recorded processes are
# stopped and the trash directory is removed: for what a test starts that
# is not one recorded process (tests/pg.sh's cluster).
CLEANUP_HOOKS=
at_cleanup() {
	CLEANUP_HOOKS="$1 $CLEANUP_HOOKS"
}

cleanup() {
	for _hook in $CLEANUP_HOOKS; do
		"$_hook"
	done
	CLEANUP_HOOKS=
	stop_recorded
	if [ "$tap_failed" -eq 0 ] && [ -z "${KEEP_TRASH:-}" ]; then
		rm -rf "$T"
	else
		echo "# trash kept: $T"
	fi
}

# unmount_cleanup: for a test that mounted a filesystem of its own at MNT
# (MOUNTED set), once it has ended its processes (none may hold the
# filesystem): unmounts it, lazily if it is still busy, then cleanup.
unmount_cleanup() {
	if [ -n "${MOUNTED:-}" ]; then
		umount "$MNT" 2>/dev/null || umount -l "$MNT"
	fi
	cleanup
}
trap cleanup EXIT
# A signal ends the test as failed, and says so: a harness's time limit or
# a stray kill is otherwise an exit 1 after nothing but "ok" lines.
trap 'echo "# ended by a signal after $tap_n checks"; exit 1' INT TERM

# ok CONDITION-EXIT-STATUS DESCRIPTION: ok "$?" "what"
ok() {
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n - $2"
	else
		tap_failed=$((tap_failed + 1))
		echo "not ok $tap_n - $2"
	fi
}

# is GOT EXPECTED DESCRIPTION
is() {
	tap_n=$((tap_n + 1))
	if [ "$1" = "$2" ]; then
		echo "ok $tap_n - $3"
	else
		tap_failed=$((tap_failed + 1))
		echo "not ok $tap_n - $3"
		printf '%s\n' "expected: $2" "     got: $1" | sed 's/^/#   /'
	fi
}

# like GOT EXTENDED-REGEX DESCRIPTION
like() {
	tap_n=$((tap_n + 1))
	if printf '%s' "$1" | grep -Eq -- "$2"; then
		echo "ok $tap_n - $3"
	else
		tap_failed=$((tap_failed + 1))
		echo "not ok $tap_n - $3"
		printf '%s\n' "expected to match: $2" "              got: $1" |
		    sed 's/^/#   /'
	fi
}

# skip DESCRIPTION REASON: a case that cannot be checked here, said so.
skip() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $1 # SKIP $2"
}

# rss_below PROGRAM GROWTH-KIB CEILING-KIB DESCRIPTION: ok when a process
# of PROGRAM grew its resident memory by less than the ceiling.  A
# sanitizer build (--enable-sanitizers, --enable-tsan) names its runtime's
# entry point, whether it links the runtime as a library (gcc) or in
# (clang); its memory is the sanitizer's, so the check is skipped there.
rss_below() {
	if grep -q __asan_init "$1"; then
		skip "$4" "AddressSanitizer's quarantine holds freed memory; its leak check runs instead"
	elif grep -q __tsan_init "$1"; then
		skip "$4" "ThreadSanitizer's shadow memory and access history grow with the load"
	else
		ok "$([ "$2" -lt "$3" ] && echo 0 || echo 1)" "$4"
	fi
}

diag() {
	printf '%s\n' "$*" | sed 's/^/# /'
}

bail() {
	echo "Bail out! $*"
	exit 1
}

done_testing() {
	echo "1..$tap_n"
	if [ "$tap_failed" -ne 0 ]; then
		echo "# $tap_failed of $tap_n checks failed"
		exit 1
	fi
	exit 0
}

# Runs "$@" in the background and records its pid for cleanup.
spawn() {
	"$@" &
	PIDS="$PIDS $!"
	LAST_PID=$!
}

# stop_pid PID [SIGNAL]: stops one recorded process (SIGTERM unless told)
# and waits for it; returns its exit status.
stop_pid() {
	kill -"${2:-TERM}" "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	_rc=$?
	forget "$1"
	return $_rc
}

# forget PID: drops a pid that has ended from the cleanup list.
forget() {
	PIDS=$(printf '%s\n' $PIDS | grep -vx "$1" | tr '\n' ' ')
}

# kill9 PID: SIGKILL one of our processes and reap it at once (a zombie
# runner would still look alive to the others' stale-claim check).
kill9() {
	kill -9 "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	forget "$1"
}

# term_wait PID: SIGTERM, then waits for it (SIGKILL after 10 s); sets RC.
term_wait() {
	kill -TERM "$1" 2>/dev/null
	if ! wait_until 100 "gone $1"; then
		diag "pid $1 ignored SIGTERM for 10 s; killed"
		kill -9 "$1" 2>/dev/null
	fi
	wait "$1"
	RC=$?
	forget "$1"
}

# reap PID: waits up to 15 s for one of our processes that was asked to
# end (SIGKILL after), and forgets it.
reap() {
	if ! wait_until 150 "gone $1"; then
		diag "pid $1 still running after 15 s; killed"
		kill -9 "$1" 2>/dev/null
	fi
	wait "$1" 2>/dev/null
	forget "$1"
}

# rand N: a random number in 0..N-1.
rand() {
	echo $(($(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % $1))
}

# change_in FILE FROM TO: every FROM in FILE (lines taken from a doc, to
# run) becomes TO; the FROM must be there, so that a line the doc lost
# fails here.
change_in() {
	grep -qF -- "$2" "$1" || {
		ok 1 "the doc's lines have '$2'"
		return 1
	}
	_from=$(printf '%s' "$2" | sed 's/[|.[\*^$]/\\&/g')
	sed -i "s|$_from|$3|g" "$1"
}

# A loopback port nobody listens on: the kernel picks it.
free_port() {
	if command -v python3 >/dev/null 2>&1; then
		python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
	else
		echo $((20000 + $$ % 20000 + ${RANDOM:-0} % 1000))
	fi
}

# Waits until a TCP port on 127.0.0.1 accepts connections (up to ~10 s).
wait_port() {
	i=0
	while [ $i -lt 200 ]; do
		if curl -s -o /dev/null "http://127.0.0.1:$1/" 2>/dev/null; then
			return 0
		fi
		sleep 0.05
		i=$((i + 1))
	done
	return 1
}

# --- Web servers -------------------------------------------------------------
#
# start_server starts $SERVER in front of the built app, from the configs in
# scripts/, in $T/$SERVER, on a free loopback port, with the app's settings
# (SETTINGS) that are exported now:
#   lighttpd         lighttpd + mod_fastcgi (scripts/lighttpd.conf)
#   apache           Apache + mod_fcgid (scripts/apache-fcgid.conf)
#   cgi              Apache + mod_cgi, the app as plain CGI (apache-cgi.conf)
#   nginx            nginx + spawn-fcgi (scripts/nginx.conf)
#   nginx-keepalive  nginx keeping FastCGI connections open to the app's own
#                    -s socket (scripts/nginx-keepalive.conf)
# MOUNT is the mount point: empty for the root, or /api.  AUTH=1 adds HTTP
# Basic authentication as scripts/README.examples shows it: user alice,
# password $AUTH_PASSWORD.  APACHE_EXTRA is appended to Apache's configuration,
# LIGHTTPD_EXTRA to lighttpd's, NGINX_EXTRA inside the site's server block
# (its @PREFIX@ and @SOCKET@ replaced as in scripts/nginx.conf).
# Sets PORT, BASE (with the mount point), SERVER_PID, APP_PID (the app's
# pid where the test started it, else empty) and SERVER_LOG (where the
# server and the app log).  API_ARGS are added to the app's options where
# the test starts it (nginx-keepalive).

SERVER=${SERVER:-lighttpd}
MOUNT=${MOUNT:-}
AUTH=${AUTH:-}
HTTP_USER=${HTTP_USER:-}
AUTH_PASSWORD=s3cret-Pa55
APACHE_EXTRA=${APACHE_EXTRA:-}
LIGHTTPD_EXTRA=${LIGHTTPD_EXTRA:-}
NGINX_EXTRA=${NGINX_EXTRA:-}
SETTINGS="CHECKPOINT_STORE_DURATION CHECKPOINT_MAX_BODY CHECKPOINT_CORS_ORIGIN
    CHECKPOINT_REJECT_UNKNOWN_JOBS CHECKPOINT_SYNC CHECKPOINT_BUSY_TIMEOUT
    CHECKPOINT_HISTORY CHECKPOINT_METRICS CHECKPOINT_METRICS_FILTER
    CHECKPOINT_MAX_QUEUED CHECKPOINT_SAVEPOINT_ROOT CHECKPOINT_ORIGINS"
APP_PID=

# The launchers, start_server's and the older tests' start_lighttpd.
. "$(dirname "$0")/servers.sh"

# --- The app without a web server ------------------------------------------

SOCK=$T/app.sock
CGIFCGI=$(command -v cgi-fcgi)

# fcgi_raw METHOD PATH [BODY]: one request to the app listening on $SOCK,
# through cgi-fcgi; prints the app's whole answer (CGI headers and body).
fcgi_raw() {
	if [ $# -ge 3 ]; then
		printf '%s' "$3" > "$T/fcgi-raw-req"
	else
		: > "$T/fcgi-raw-req"
	fi
	fcgi_file "$1" "$2" "$T/fcgi-raw-req"
}

# fcgi_file METHOD PATH FILE [LENGTH]: the same with FILE as the body;
# clients running at once each need a FILE of their own.  CONTENT_LENGTH is
# FILE's size, or LENGTH when given (none when LENGTH is empty).  PATH_INFO
# is PATH without its query string, or PATH_INFO_OVERRIDE when set;
# QUERY_STRING, the query string.
fcgi_file() {
	if [ $# -ge 4 ]; then
		_len=$4
	else
		_len=$(wc -c < "$3" | tr -d ' ')
	fi
	_qs=
	case $2 in *\?*) _qs=${2#*\?} ;; esac
	env -i REQUEST_METHOD="$1" PATH_INFO="${PATH_INFO_OVERRIDE-${2%%\?*}}" \
	    REQUEST_URI="$2" QUERY_STRING="$_qs" REMOTE_ADDR=192.0.2.7 \
	    ${_len:+CONTENT_LENGTH=$_len} \
	    "$CGIFCGI" -bind -connect "$SOCK" < "$3"
}

# status_body: the code of the Status line and the body, of an answer on
# stdin.
status_body() {
	tr -d '\r' | awk 'NR == 1 { s = $2 } body { b = b $0 } /^$/ { body = 1 }
	    END { printf "%s %s", s, b }'
}

# start_app [RUNNER [OPTION...]]: the app listening on $SOCK (-s) with the
# OPTIONs, started through RUNNER if not empty (as_run_user), once it
# answers.  Sets APP.
start_app() {
	_runner=${1:-}
	[ $# -gt 0 ] && shift
	rm -f "$SOCK"
	spawn $_runner "$API" -s "$SOCK" "$@"
	APP=$LAST_PID
	wait_until 100 '[ -n "$(fcgi_raw GET /jobs 2>/dev/null)" ]' ||
	    bail "checkpoint-api.fcgi -s $SOCK $* did not answer"
}

# hold_lock SECONDS: another writer takes the write lock of $DB and keeps it
# for SECONDS.  Returns once the lock is held; LOCKER is its pid.
hold_lock() {
	rm -f "$T/locked"
	spawn sh -c 'printf "BEGIN IMMEDIATE;\n.shell touch %s; sleep %s\nCOMMIT;\n" \
	    "$2" "$3" | sqlite3 -batch "$1"' sh "$DB" "$T/locked" "$1"
	LOCKER=$LAST_PID
	wait_until 100 '[ -e "$T/locked" ]' || bail "sqlite3 did not take the lock"
}

# http METHOD PATH [BODY]: sets STATUS, BODY (the response body) and
# HEADERS (names in lowercase, values as sent).  A BODY argument is sent as is, with its
# Content-Length; without it a POST sends an empty body (-d '').  HTTP_USER
# (user:password), when set, is sent with HTTP Basic authentication;
# HTTP_RANGE (0-5) as a Range header; HTTP_HEADER ("Origin: x") as one more
# header; HTTP_CHUNKED=1 sends the body chunked (Transfer-Encoding: chunked,
# no Content-Length).
http() {
	_m=$1 _p=$2
	if [ $# -ge 3 ]; then
		printf '%s' "$3" > "$T/req-body"
	else
		: > "$T/req-body"
	fi
	if [ "$_m" = GET ] && [ $# -lt 3 ]; then
		STATUS=$(curl -s -g -o "$T/resp-body" -D "$T/resp-head" \
		    ${HTTP_USER:+--user "$HTTP_USER"} \
		    ${HTTP_RANGE:+-r "$HTTP_RANGE"} \
		    ${HTTP_HEADER:+-H "$HTTP_HEADER"} \
		    -w '%{http_code}' "$BASE$_p")
	else
		STATUS=$(curl -s -g -o "$T/resp-body" -D "$T/resp-head" \
		    ${HTTP_USER:+--user "$HTTP_USER"} \
		    ${HTTP_RANGE:+-r "$HTTP_RANGE"} \
		    ${HTTP_HEADER:+-H "$HTTP_HEADER"} \
		    ${HTTP_CHUNKED:+-H "Transfer-Encoding: chunked"} \
		    -w '%{http_code}' -X "$_m" --data-binary "@$T/req-body" \
		    "$BASE$_p")
	fi
	BODY=$(cat "$T/resp-body")
	HEADERS=$(tr -d '\r' < "$T/resp-head" |
	    awk 'BEGIN { FS = OFS = ": " } { $1 = tolower($1); print }')
}

# header NAME: the value of a response header of the last http call.
header() {
	printf '%s\n' "$HEADERS" | sed -n "s/^$1: //p" | head -n 1
}

# How every failure's serialized-throwable begins (failureCause in
# checkpoint-api(7)): the base64 of the first 378 bytes of its Java
# serialization stream, SerializedThrowable's class descriptors
# (tests/unit-throwable.c has them byte for byte, t4200 reads whole ones
# with a JDK).  A test that stores a failure by hand stores one too.
THROWABLE_HEAD=\
'rO0ABXNyAClvcmcuYXBhY2hlLmZsaW5rLnV0aWwuU2VyaWFsaXplZFRocm93YWJs'\
'ZWUWnfUfpxPzAgADTAAZZnVsbFN0cmluZ2lmaWVkU3RhY2tUcmFjZXQAEkxqYXZh'\
'L2xhbmcvU3RyaW5nO0wAFm9yaWdpbmFsRXJyb3JDbGFzc05hbWVxAH4AAVsAE3Nl'\
'cmlhbGl6ZWRFeGNlcHRpb250AAJbQnhyABNqYXZhLmxhbmcuRXhjZXB0aW9u0P0f'\
'Pho7HMQCAAB4cgATamF2YS5sYW5nLlRocm93YWJsZdXGNSc5d7jLAwAETAAFY2F1'\
'c2V0ABVMamF2YS9sYW5nL1Rocm93YWJsZTtMAA1kZXRhaWxNZXNzYWdlcQB+AAFb'\
'AApzdGFja1RyYWNldAAeW0xqYXZhL2xhbmcvU3RhY2tUcmFjZUVsZW1lbnQ7TAAU'\
'c3VwcHJlc3NlZEV4Y2VwdGlvbnN0ABBMamF2YS91dGlsL0xpc3Q7eHBw'

# The database, as an operator would ask it.
sql() {
	sqlite3 -batch -noheader -cmd ".timeout 5000" "$DB" "$@"
}

# now_ms: the wall clock in milliseconds, as the programs record times.
now_ms() {
	date +%s%3N
}

# gone PID: no such process, or dead and waiting to be reaped (Z).
gone() {
	[ -n "$1" ] || return 1
	[ -r "/proc/$1/stat" ] || return 0
	_st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)
	[ -z "$_st" ] || [ "$_st" = Z ] || [ "$_st" = X ]
}

# wrk_post_lua FILE RESPONSE: writes to FILE a wrk script that POSTs fresh
# triggers, the triggerId being the thread's number and a count
# ("%08x%024x"), to the job of its first argument.  Each thread opens
# OUT.N, OUT being the script's second argument and N the thread's number,
# as out; RESPONSE is the Lua body of response(), which also sees tid, the
# triggerId of the thread's last request (its answer's, with one
# connection a thread).
wrk_post_lua() {
	cat > "$1" <<-EOF
	local threads = 0
	function setup(thread)
		threads = threads + 1
		thread:set("tag", threads)
	end
	local job, out, tid
	local n = 0
	function init(args)
		job = args[1]
		out = assert(io.open(args[2] .. "." .. tag, "w"))
	end
	function request()
		n = n + 1
		tid = string.format("%08x%024x", tag, n)
		return wrk.format("POST", "/jobs/" .. job .. "/checkpoints",
		    { ["Content-Type"] = "application/json" },
		    '{"triggerId":"' .. tid .. '"}')
	end
	function response(status, headers, body)
		$2
	end
	EOF
}

# wait_until TENTHS CONDITION: evaluates CONDITION every 0.1 s until it
# holds (true) or TENTHS tries have passed (false).
wait_until() {
	_n=0
	while ! eval "$2"; do
		[ "$_n" -ge "$1" ] && return 1
		sleep 0.1
		_n=$((_n + 1))
	done
	return 0
}

# The 503 of a database that is not there (checkpoint-api(7), "ERRORS").
NO_DATABASE='{"errors":["Service unavailable: the checkpoint database does not exist. Retrying will not help until the operator creates it with checkpointctl init."]}'

# init_db [DB]: the database made as an operator makes it, for only
# checkpointctl init creates one (checkpoint-api(7), "SECURITY"), and
# given to RUN_USER, who runs the app behind the servers as root.  Every
# test starts with $DB made; one that wants none removes it.
init_db() {
	"$CTL" --db "${1:-$DB}" init > "$T/init.out" 2>&1 ||
	    bail "checkpointctl init ${1:-$DB}: $(cat "$T/init.out")"
	if [ "$(id -u)" -eq 0 ] && [ -f "${1:-$DB}" ]; then
		chown "$RUN_USER:$RUN_GROUP" "${1:-$DB}" ||
		    bail "chown ${1:-$DB}"
	fi
}
init_db
