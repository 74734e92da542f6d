#!/bin/sh
# checkpoint-api.fcgi driven directly, with no web server.  FastCGI
# on a unix socket and on 127.0.0.1:PORT (-s), spoken by cgi-fcgi; plain CGI
# (one request from the environment and stdin, answer on stdout); the exact
# CGI response (status line, headers, CRLFs, body); SIGTERM, -n and usage.

. "$(dirname "$0")/lib.sh"

command -v cgi-fcgi >/dev/null 2>&1 || bail "cgi-fcgi (libfcgi-bin) is missing"

J=0123456789abcdef0123456789abcdef
TID=abcdef0123456789abcdef0123456789
CT='Content-Type: application/json; charset=UTF-8\r'
CORS='Access-Control-Allow-Origin: *\r'

# fcgi METHOD URI [BODY]: one request through fcgi_file to $SOCK (or, with
# MODE=cgi, to the binary run as plain CGI).  PATH_INFO is URI without its
# query string unless PATH_INFO_OVERRIDE is set; CONTENT_LENGTH is the body's
# length when a BODY is given.  Sets RC, HEAD (the header block up to and with
# its empty line, every CR shown as \r) and BODY (the bytes after it).
fcgi() {
	_uri=$2
	_pi=${PATH_INFO_OVERRIDE-${_uri%%\?*}}
	_cl=
	if [ $# -ge 3 ]; then
		printf '%s' "$3" > "$T/fcgi-req"
		_cl=$(wc -c < "$T/fcgi-req" | tr -d ' ')
	else
		: > "$T/fcgi-req"
	fi
	if [ "${MODE:-fcgi}" = cgi ]; then
		env -i REQUEST_METHOD="$1" PATH_INFO="$_pi" REQUEST_URI="$_uri" \
		    REMOTE_ADDR=192.0.2.7 CHECKPOINT_DB="$DB" \
		    ${_cl:+CONTENT_LENGTH=$_cl} ${CGI_ENV:-} \
		    "$API" < "$T/fcgi-req" > "$T/fcgi-out" 2> "$T/fcgi-err"
	else
		fcgi_file "$1" "$_uri" "$T/fcgi-req" "$_cl" \
		    > "$T/fcgi-out" 2> "$T/fcgi-err"
	fi
	RC=$?
	HEAD=$(sed -n '1,/^\r$/p' "$T/fcgi-out" | sed 's/\r$/\\r/')
	BODY=$(sed '1,/^\r$/d' "$T/fcgi-out")
}

# expect_head STATUS-LINE BODY [HEADER-LINE]: the header block the app must
# send for BODY (Content-Length is BODY's length in bytes), shown as HEAD.
expect_head() {
	printf 'Status: %s\\r\n%s\nContent-Length: %s\\r\n' "$1" "$CT" \
	    "$(printf '%s' "$2" | wc -c | tr -d ' ')"
	if [ -n "${3:-}" ]; then
		printf '%s\\r\n' "$3"
	fi
	if [ -n "$CORS" ]; then
		printf '%s\n' "$CORS"
	fi
	printf '\\r'
}

# check NAME STATUS-LINE BODY [HEADER-LINE]: exact head and body of the last call.
check() {
	is "$HEAD" "$(expect_head "$2" "$3" "${4:-}")" "$1: status line and headers"
	is "$BODY" "$3" "$1: body"
}

# Waits for the listener of pid $1 to answer a request at $SOCK.
wait_fcgi() {
	i=0
	while [ $i -lt 100 ]; do
		kill -0 "$1" 2>/dev/null || return 1
		fcgi GET /jobs/$J/checkpoints/$TID
		[ -n "$HEAD" ] && return 0
		sleep 0.05
		i=$((i + 1))
	done
	return 1
}

in_progress='{"status":{"id":"IN_PROGRESS"},"operation":null}'
no_trigger() {
	printf '{"errors":["There is no checkpoint operation with triggerId=%s for job %s."]}' "$1" "$2"
}

# --- FastCGI on a unix socket ---------------------------------------------

SOCK=$T/app.sock
spawn "$API" -s "$T/app.sock" 2>>"$T/app.log"
APP=$LAST_PID
wait_fcgi "$APP" || bail "checkpoint-api.fcgi -s $T/app.sock did not answer"

fcgi GET /jobs/$J/checkpoints/$TID
is "$RC" 0 "unix socket: cgi-fcgi exits 0"
check "unix socket: unknown trigger is 404" "404 Not Found" "$(no_trigger $TID $J)"

fcgi POST /jobs/$J/checkpoints "{\"triggerId\":\"$TID\"}"
check "unix socket: POST with a triggerId" "202 Accepted" "{\"request-id\":\"$TID\"}"
is "$(sql "SELECT requested_type || ' ' || status || ' ' || remote_addr FROM triggers WHERE job_id='$J' AND trigger_id='$TID'")" \
    "CONFIGURED IN_PROGRESS 192.0.2.7" "unix socket: trigger recorded with REMOTE_ADDR"

fcgi GET /jobs/$J/checkpoints/$TID
check "unix socket: GET after POST" "200 OK" "$in_progress"

fcgi GET "/jobs/$(echo $J | tr a-f A-F)/checkpoints/$(echo $TID | tr a-f A-F)?x=1"
check "unix socket: GET with uppercase ids and a query" "200 OK" "$in_progress"

fcgi POST /jobs/$J/checkpoints
like "$BODY" '^\{"request-id":"[0-9a-f]{32}"\}$' "unix socket: POST without CONTENT_LENGTH gets a random id"
is "$HEAD" "$(expect_head "202 Accepted" "$BODY")" "unix socket: POST without CONTENT_LENGTH: headers"

fcgi POST /jobs/$J/checkpoints '{"checkpointType":"FULL","triggerId":null}'
like "$BODY" '^\{"request-id":"[0-9a-f]{32}"\}$' "unix socket: Flink client's body gets a random id"

fcgi POST /jobs/$J/checkpoints '{"checkpointType":"full"}'
check "unix socket: bad body is 400" "400 Bad Request" \
    '{"errors":["Request did not match expected format CheckpointTriggerRequestBody."]}'

fcgi POST /jobs/xyz/checkpoints '{}'
check "unix socket: bad jobid is 400" "400 Bad Request" \
    '{"errors":["Bad request, could not parse parameters: Cannot resolve path parameter (jobid) from value \"xyz\"."]}'

fcgi GET /jobs/$J/checkpoints/nothex
check "unix socket: bad triggerid is 400" "400 Bad Request" \
    '{"errors":["Bad request, could not parse parameters: Cannot resolve path parameter (triggerid) from value \"nothex\"."]}'

fcgi GET "/nope?a=1"
check "unix socket: unknown path is 404 with REQUEST_URI" "404 Not Found" \
    '{"errors":["Not found: /nope?a=1"]}'

fcgi PUT /jobs/$J/checkpoints
is "$HEAD" "$(expect_head "405 Method Not Allowed" "$BODY" "Allow: GET, POST")" \
    "unix socket: PUT on the trigger path is 405 with Allow: GET, POST"
like "$BODY" '^\{"errors":\["[^"]+"\]\}$' "unix socket: 405 body is a JSON error"

fcgi DELETE /jobs/$J/checkpoints/$TID
is "$HEAD" "$(expect_head "405 Method Not Allowed" "$BODY" "Allow: GET")" \
    "unix socket: DELETE on the status path is 405 with Allow: GET"
like "$BODY" '^\{"errors":\["[^"]+"\]\}$' "unix socket: 405 body is a JSON error"

# Routing is on PATH_INFO: a mount under a prefix shows only in REQUEST_URI.
T2=11111111111111111111111111111111
PATH_INFO_OVERRIDE=/jobs/$J/checkpoints
fcgi POST /api/jobs/$J/checkpoints "{\"triggerId\":\"$T2\"}"
check "unix socket: routed on PATH_INFO under a prefix" "202 Accepted" "{\"request-id\":\"$T2\"}"

# PATH_INFO is already decoded by the web server: never decode it again.
PATH_INFO_OVERRIDE=/jobs/%30123456789abcdef0123456789abcdef/checkpoints/$T2
fcgi GET /jobs/%2530123456789abcdef0123456789abcdef/checkpoints/$T2
check "unix socket: PATH_INFO is not decoded twice" "400 Bad Request" \
    '{"errors":["Bad request, could not parse parameters: Cannot resolve path parameter (jobid) from value \"%30123456789abcdef0123456789abcdef\"."]}'
unset PATH_INFO_OVERRIDE

# A body shorter than its CONTENT_LENGTH is refused, and nothing recorded.
T3=33333333333333333333333333333333
printf '{"triggerId":"%s"}' $T3 > "$T/short"
fcgi_file POST /jobs/$J/checkpoints "$T/short" 500 > "$T/fcgi-out" 2>/dev/null
like "$(head -n 1 "$T/fcgi-out")" '^Status: 400 Bad Request' "unix socket: body shorter than CONTENT_LENGTH is 400"
is "$(sql "SELECT count(*) FROM triggers WHERE trigger_id='$T3'")" 0 \
    "unix socket: short body records nothing"

# On a kept connection (FCGI_KEEP_CONN, as nginx's fastcgi_keep_conn), a
# body the app did not read must not cost the next request: up to 64 KiB
# of it is read, and past that the connection is closed after the answer.
KEEP=$top_builddir/tests/fcgi-keep
is "$("$KEEP" "$T/app.sock" PUT /jobs/$J/checkpoints @20000 \
    POST /jobs/$J/checkpoints '{}' GET /nope @9000 \
    GET /jobs/$J/checkpoints/$TID '' POST /jobs/$J/checkpoints @65536 \
    GET /jobs/$J/checkpoints/$TID '')" \
    "$(printf '%s\n' 'Status: 405 Method Not Allowed' 'Status: 202 Accepted' \
    'Status: 404 Not Found' 'Status: 200 OK' 'Status: 400 Bad Request' \
    'Status: 200 OK')" \
    "kept connection: unread bodies of 20,000 and 9,000 bytes, then the next requests"
is "$("$KEEP" "$T/app.sock" PUT /jobs/$J/checkpoints @70000 \
    POST /jobs/$J/checkpoints '{}')" \
    "$(printf '%s\n' 'Status: 405 Method Not Allowed' closed)" \
    "kept connection: 70,000 unread bytes: answered, then the connection is closed"
is "$("$KEEP" "$T/app.sock" POST /jobs/$J/checkpoints @70000 \
    GET /jobs/$J/checkpoints/$TID '')" \
    "$(printf '%s\n' 'Status: 413 Payload Too Large' closed)" \
    "kept connection: a 413 of 70,000 bytes: answered, then the connection is closed"
is "$("$KEEP" "$T/app.sock" GET /jobs/$J/checkpoints/$TID '')" "Status: 200 OK" \
    "kept connection: the process still answers on a new one"

kill -TERM "$APP"
wait "$APP"
is "$?" 0 "unix socket: SIGTERM to an idle process exits 0"
stop_pid "$APP"

# A web server that sends FCGI_BEGIN_REQUEST and nothing more: the worker
# reading it never finishes.  SIGTERM gives up on it once 2 s pass with no
# request being answered and no worker leaving, exits 0, and says so.
spawn "$API" -s "$T/half.sock" 2>>"$T/half.log"
APP=$LAST_PID
SOCK=$T/half.sock
wait_fcgi "$APP" || bail "checkpoint-api.fcgi -s $T/half.sock did not answer"
spawn perl -MIO::Socket::UNIX -e '
	my $s = IO::Socket::UNIX->new(Peer => $ARGV[0]) or die "connect: $!\n";
	# version, type, request id, length, padding; role, flags.
	print $s pack("CCnnCx nCx5", 1, 1, 1, 8, 0, 1, 0);
	sleep 60' "$T/half.sock"
HALF=$LAST_PID
wait_until 100 '[ "$(ls -l "/proc/$APP/fd" 2>/dev/null | grep -c "socket:")" -ge 2 ]' ||
    diag "the app did not take the half request's connection"
sleep 0.2	# and its worker has read the first record
t0=$(date +%s)
kill -TERM "$APP"
wait "$APP"
is "$?" 0 "a request never finished: SIGTERM still exits 0"
took=$(($(date +%s) - t0))
[ "$took" -le 20 ]
ok $? "a request never finished: the process exits after the wait ($took s)"
like "$(cat "$T/half.log")" 'warn: 1 workers did not leave \(accept\); exiting under them' \
    "a request never finished: the log says a worker was left, and where"
stop_pid "$APP"
stop_pid "$HALF"
SOCK=$T/app.sock

# --- FastCGI on 127.0.0.1:PORT --------------------------------------------

TCP_PORT=$(free_port)
SOCK=127.0.0.1:$TCP_PORT
spawn "$API" -s "127.0.0.1:$TCP_PORT" 2>>"$T/app.log"
APP=$LAST_PID
wait_fcgi "$APP" || bail "checkpoint-api.fcgi -s 127.0.0.1:$TCP_PORT did not answer"

fcgi GET /v1/jobs/$J/checkpoints/$TID
check "tcp: GET under /v1 sees the same trigger" "200 OK" "$in_progress"
T4=44444444444444444444444444444444
fcgi POST /v1/jobs/$J/checkpoints/ "{\"triggerId\":\"$T4\",\"checkpointType\":\"INCREMENTAL\"}"
check "tcp: POST under /v1 with a trailing slash" "202 Accepted" "{\"request-id\":\"$T4\"}"
is "$(sql "SELECT requested_type FROM triggers WHERE trigger_id='$T4'")" INCREMENTAL \
    "tcp: INCREMENTAL recorded"

kill -TERM "$APP"
wait "$APP"
is "$?" 0 "tcp: SIGTERM to an idle process exits 0"
stop_pid "$APP"

# --- -n: a fixed number of requests ---------------------------------------

SOCK=$T/app-n.sock
spawn "$API" -n 2 -s "$SOCK" 2>>"$T/app.log"
APP=$LAST_PID
wait_fcgi "$APP" || bail "checkpoint-api.fcgi -n 2 did not answer"
fcgi GET /jobs/$J/checkpoints/$TID
check "-n 2: second request answered" "200 OK" "$in_progress"
wait "$APP"
is "$?" 0 "-n 2: exits 0 after two requests"
stop_pid "$APP"

# --- plain CGI: one request from the environment ---------------------------

MODE=cgi
T5=55555555555555555555555555555555
fcgi POST /jobs/$J/checkpoints "{\"triggerId\":\"$T5\"}"
is "$RC" 0 "cgi: POST exits 0"
check "cgi: POST answers on stdout" "202 Accepted" "{\"request-id\":\"$T5\"}"
is "$(sql "SELECT remote_addr FROM triggers WHERE trigger_id='$T5'")" 192.0.2.7 \
    "cgi: REMOTE_ADDR recorded"

fcgi GET /jobs/$J/checkpoints/$T5
is "$RC" 0 "cgi: GET exits 0"
check "cgi: GET answers on stdout" "200 OK" "$in_progress"

fcgi GET "/jobs/$J/checkpoints/$(echo $T5 | tr 5 6)"
check "cgi: unknown trigger is 404" "404 Not Found" \
    "$(no_trigger 66666666666666666666666666666666 $J)"

fcgi POST /jobs/$J/checkpoints 'null'
is "$RC" 0 "cgi: a 400 still exits 0"
check "cgi: null body is 400" "400 Bad Request" \
    '{"errors":["Request did not match expected format CheckpointTriggerRequestBody."]}'

# Status lines that lighttpd rewrites with its own reason phrase.
CGI_ENV=CHECKPOINT_MAX_BODY=10
fcgi POST /jobs/$J/checkpoints '{"triggerId":null}'
check "cgi: body over CHECKPOINT_MAX_BODY is 413" "413 Payload Too Large" \
    '{"errors":["Request entity too large: the limit is 10 bytes. Try to raise [CHECKPOINT_MAX_BODY]"]}'
# No database: only checkpointctl init makes one, so a POST is never a
# 202 that no runner would see, and no file is left behind.
CGI_ENV=CHECKPOINT_DB=$T/missing.db
fcgi POST /jobs/$J/checkpoints '{}'
check "cgi: no database: POST is 503, the cause named" \
    "503 Service Unavailable" "$NO_DATABASE"
fcgi GET /jobs/$J/checkpoints/$T5
check "cgi: no database: GET is 503, the cause named" \
    "503 Service Unavailable" "$NO_DATABASE"
ok "$([ ! -e "$T/missing.db" ]; echo $?)" "cgi: no database: none made"
: > "$T/empty.db"
CGI_ENV=CHECKPOINT_DB=$T/empty.db
fcgi POST /jobs/$J/checkpoints '{}'
check "cgi: an empty file: POST is 503, no database" \
    "503 Service Unavailable" "$NO_DATABASE"
is "$(stat -c %s "$T/empty.db")" 0 "cgi: an empty file: left empty"
CGI_ENV=CHECKPOINT_DB=$T/missing/checkpoints.db
fcgi GET /jobs/$J/checkpoints/$T5
check "cgi: no database (no directory) is the same 503" \
    "503 Service Unavailable" "$NO_DATABASE"
# A CHECKPOINT_DB no retry mends stops the app at start, in one line,
# instead of answering a retryable 503 for ever.
for _db in 'sqlite:///' 'mysql://u:pw@h/db' 'postgresql://[::1'; do
	CHECKPOINT_DB=$_db timeout 10 "$API" -s "$T/bad.sock" > "$T/out" 2> "$T/err"
	is "$?|$(wc -l < "$T/err")|$([ -e "$T/bad.sock" ]; echo $?)" "1|1|1" \
	    "CHECKPOINT_DB=$_db: the app stops at start, exit 1, one line"
	grep -qF "CHECKPOINT_DB=\"$(echo "$_db" | sed 's/:pw@/:***@/')\": " "$T/err"
	ok $? "CHECKPOINT_DB=$_db: the line names it, no password ($(cat "$T/err"))"
done
CGI_ENV=CHECKPOINT_DB=$T
fcgi GET /jobs/$J/checkpoints/$T5
check "cgi: database unreachable is 503, the cause named" \
    "503 Service Unavailable" \
    '{"errors":["Service temporarily unavailable: the checkpoint database cannot be opened or read. Please retry."]}'
case $BODY in
*missing*|*checkpoints.db*) rc=1 ;;
*) rc=0 ;;
esac
ok $rc "cgi: 503 body does not show the database path"

# The CORS setting: empty means no header at all (lighttpd would hide an
# empty header line, so this is checked here).
CGI_ENV=CHECKPOINT_CORS_ORIGIN=
CORS=
fcgi GET /jobs/$J/checkpoints/$T5
check "cgi: CHECKPOINT_CORS_ORIGIN empty sends no CORS header" "200 OK" "$in_progress"
CGI_ENV=CHECKPOINT_CORS_ORIGIN=https://ops.example
CORS='Access-Control-Allow-Origin: https://ops.example\r'
fcgi GET /jobs/$J/checkpoints/$T5
check "cgi: CHECKPOINT_CORS_ORIGIN sets the CORS header" "200 OK" "$in_progress"
CORS='Access-Control-Allow-Origin: *\r'
unset CGI_ENV
MODE=fcgi

# --- syslog asked for where there is none ---------------------------------

# Without /dev/log, syslog(3) would drop the one line that explains the
# 503: it goes to standard error, after a line that says why.
if [ -e /dev/log ]; then
	skip "-l syslog without /dev/log: standard error" "this host has /dev/log"
else
	env -i REQUEST_METHOD=GET PATH_INFO=/jobs/overview \
	    REQUEST_URI=/jobs/overview CHECKPOINT_DB="$T/nodir/c.db" \
	    "$API" -l syslog < /dev/null > "$T/out" 2> "$T/err"
	like "$(head -n 1 "$T/out")" '^Status: 503' "-l syslog without /dev/log: the answer is a 503"
	like "$(cat "$T/err")" "warn: syslog's /dev/log is not there: logging to standard error instead" \
	    "-l syslog without /dev/log: says so"
	like "$(cat "$T/err")" "error: open store: $T/nodir/c\\.db: no database there; checkpointctl init makes it" \
	    "-l syslog without /dev/log: and the 503's cause is on standard error"
fi

# --- usage ---------------------------------------------------------------

env -i CHECKPOINT_DB="$DB" "$API" < /dev/null > "$T/out" 2> "$T/err"
rc=$?
ok "$([ $rc -ne 0 ] && echo 0 || echo 1)" "no REQUEST_METHOD and no socket: exits non-zero (got $rc)"
like "$(cat "$T/err")" '^usage: checkpoint-api\.fcgi ' "no REQUEST_METHOD and no socket: prints a usage line"
is "$(cat "$T/out")" "" "no REQUEST_METHOD and no socket: nothing on stdout"

"$API" -x < /dev/null > /dev/null 2> "$T/err"
rc=$?
ok "$([ $rc -ne 0 ] && echo 0 || echo 1)" "unknown option: exits non-zero (got $rc)"
like "$(cat "$T/err")" 'usage: checkpoint-api\.fcgi ' "unknown option: prints a usage line"

done_testing
