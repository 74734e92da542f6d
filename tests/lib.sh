# Shared by the shell tests (tests/t*.sh): TAP output, a trash directory per
# test, the built programs, and a real lighttpd on a free loopback port.
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
if [ -n "${VALGRIND_LOGS:-}" ]; then
	for _prog in API RUNNER CTL; do
		eval "_real=\$$_prog"
		_wrap=$T/valgrind-$(basename "$_real")
		printf '#!/bin/sh\nexec valgrind --quiet --leak-check=full --errors-for-leak-kinds=definite --track-fds=no --log-file=%s/%%p.log %s "$@"\n' \
		    "$VALGRIND_LOGS" "$_real" > "$_wrap"
		chmod +x "$_wrap"
		eval "$_prog=\$_wrap"
	done
fi
export CHECKPOINT_DB=$DB
PIDS=
tap_n=0
tap_failed=0

cleanup() {
	for p in $PIDS; do
		kill "$p" 2>/dev/null
	done
	for p in $PIDS; do
		wait "$p" 2>/dev/null
	done
	if [ "$tap_failed" -eq 0 ] && [ -z "${KEEP_TRASH:-}" ]; then
		rm -rf "$T"
	else
		echo "# trash kept: $T"
	fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

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

diag() {
	printf '%s\n' "$*" | sed 's/^/# /'
}

bail() {
	echo "Bail out! $*"
	exit 1
}

done_testing() {
	echo "1..$tap_n"
	[ "$tap_failed" -eq 0 ]
	exit $?
}

# Runs "$@" in the background and records its pid for cleanup.
spawn() {
	"$@" &
	PIDS="$PIDS $!"
	LAST_PID=$!
}

# Stops one recorded process (SIGTERM) and waits for it.
stop_pid() {
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	PIDS=$(printf '%s\n' $PIDS | grep -vx "$1" | tr '\n' ' ')
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

# Starts lighttpd from scripts/lighttpd.conf in front of the built app, in
# $T/lighttpd, with any settings already exported.  Sets PORT, BASE and
# LIGHTTPD_PID.  Tries again on another port if the first one was taken.
start_lighttpd() {
	export CHECKPOINT_HOME=$T/lighttpd
	export CHECKPOINT_FCGI=$API
	export CHECKPOINT_PROCS=${CHECKPOINT_PROCS:-2}
	mkdir -p "$CHECKPOINT_HOME/www" "$CHECKPOINT_HOME/tmp"
	for attempt in 1 2 3; do
		PORT=$(free_port)
		export PORT
		spawn lighttpd -D -f "$top_srcdir/scripts/lighttpd.conf"
		LIGHTTPD_PID=$LAST_PID
		BASE=http://127.0.0.1:$PORT
		if wait_port "$PORT"; then
			return 0
		fi
		stop_pid "$LIGHTTPD_PID"
	done
	cat "$CHECKPOINT_HOME/lighttpd-error.log" 2>/dev/null | sed 's/^/# /'
	bail "lighttpd did not start"
}

stop_lighttpd() {
	stop_pid "$LIGHTTPD_PID"
}

# http METHOD PATH [BODY]: sets STATUS, BODY (the response body) and
# HEADERS (names in lowercase, values as sent).  A BODY argument is sent as is, with its
# Content-Length; without it a POST sends an empty body (-d '').
http() {
	_m=$1 _p=$2
	if [ $# -ge 3 ]; then
		printf '%s' "$3" > "$T/req-body"
	else
		: > "$T/req-body"
	fi
	if [ "$_m" = GET ] && [ $# -lt 3 ]; then
		STATUS=$(curl -s -g -o "$T/resp-body" -D "$T/resp-head" \
		    -w '%{http_code}' "$BASE$_p")
	else
		STATUS=$(curl -s -g -o "$T/resp-body" -D "$T/resp-head" \
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

# The database, as an operator would ask it.
sql() {
	sqlite3 -batch -noheader -cmd ".timeout 5000" "$DB" "$@"
}
