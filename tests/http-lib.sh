# Sourced by the tests that speak HTTP to the app behind a web server
# (tests/http-checks.sh, t3050): the store of the phase (STORE: sqlite or
# pg), the exact-answer checks (check, check_like) and phases, each on a
# database of its own.  The sourcing test sets SERVER.

. "$(dirname "$0")/lib.sh"
STORE=${STORE:-sqlite}
if [ "$STORE" = pg ]; then
	. "$(dirname "$0")/pg.sh"
fi

case $SERVER in
lighttpd) NEED=lighttpd ;;
apache|cgi) NEED=apache2 ;;
nginx) NEED="nginx spawn-fcgi" ;;
nginx-keepalive) NEED=nginx ;;
esac
[ "$STORE" = pg ] && NEED="$NEED psql"
for c in $NEED sqlite3 htpasswd; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing"
done
if [ "$(id -u)" -eq 0 ] && [ "$SERVER" != lighttpd ]; then
	command -v setpriv >/dev/null 2>&1 || bail "setpriv (util-linux) is missing"
fi

unset CHECKPOINT_STORE_DURATION CHECKPOINT_MAX_BODY CHECKPOINT_CORS_ORIGIN \
    CHECKPOINT_REJECT_UNKNOWN_JOBS CHECKPOINT_BUSY_TIMEOUT CHECKPOINT_SYNC

J=0123456789abcdef0123456789abcdef
JB=fedcba9876543210fedcba9876543210
JU=0123456789ABCDEF0123456789abcdef
JBAD=badbadbadbadbadbadbadbadbadbad00
CORS_WANT='*'
BAD_BODY='{"errors":["Request did not match expected format CheckpointTriggerRequestBody."]}'
LOCKED='{"errors":["Service temporarily unavailable: the checkpoint database is locked. Please retry."]}'
CANNOT_OPEN='{"errors":["Service temporarily unavailable: the checkpoint database cannot be opened or read. Please retry."]}'
IN_PROGRESS='{"status":{"id":"IN_PROGRESS"},"operation":null}'
# Control characters for SQL text, written as they are: both stores take
# them inside a string literal (their char() and chr() differ).
TAB=$(printf '\t')
NL=$(printf '\nx')
NL=${NL%x}

if [ "$STORE" = pg ]; then
	pg_start
	# sql SQL: the phase's database, as an operator would ask it.
	sql() {
		pg_sql "$1"
	}
fi

# use_db NAME: a new, empty database for the app (CHECKPOINT_DB) and sql.
use_db() {
	if [ "$STORE" = pg ]; then
		pg_app_db "$1"
	else
		DB=$T/$1.db
		export CHECKPOINT_DB=$DB
		init_db
	fi
}

# Reason phrases of checkpoint-api(7), "ERRORS".
reason() {
	case $1 in
	200) echo "200 OK" ;;
	202) echo "202 Accepted" ;;
	400) echo "400 Bad Request" ;;
	404) echo "404 Not Found" ;;
	405) echo "405 Method Not Allowed" ;;
	413) echo "413 Payload Too Large" ;;
	500) echo "500 Internal Server Error" ;;
	503) echo "503 Service Unavailable" ;;
	esac
}

# The body's framing: Content-Length, checked against the body's real size.
# Apache's mod_cgi drops the app's Content-Length and sends the body
# chunked, unless it happened to read the whole answer at once (then it
# computes the length itself): under SERVER=cgi, chunked counts as framed
# right (and a case below names it).
framing() {
	_n=$(wc -c < "$T/resp-body" | tr -d ' ')
	if [ "$SERVER" = cgi ] && [ -z "$(header content-length)" ] &&
	    [ "$(header transfer-encoding)" = chunked ]; then
		echo "$_n=$_n"
	else
		echo "$(header content-length)=$_n"
	fi
}

# The response's head, summarised on one line: status line, Content-Type,
# framing, the CORS header.
summary() {
	printf '%s|%s|%s|%s' \
	    "$(grep -a '^HTTP/' "$T/resp-head" | tail -n 1 | tr -d '\r')" \
	    "$(header content-type)" "$(framing)" \
	    "$(header access-control-allow-origin)"
}

# What summary must print for a CODE answer carrying BODY.
want() {
	_n=$(printf '%s' "$2" | wc -c | tr -d ' ')
	printf 'HTTP/1.1 %s|application/json; charset=UTF-8|%s=%s|%s' \
	    "$(reason "$1")" "$_n" "$_n" "$CORS_WANT"
}

# check NAME CODE BODY: the exact answer to the last http call.
check() {
	is "$(summary)" "$(want "$2" "$3")" "$1: status and headers"
	is "$BODY" "$3" "$1: body"
}

# check_like NAME CODE REGEX: exact status and headers, body matching REGEX.
check_like() {
	is "$(summary)" "$(want "$2" "$BODY")" "$1: status and headers"
	like "$BODY" "$3" "$1: body"
}

ERRORS_RE='^\{"errors":\["[^"]+"\]\}$'
ID_RE='^\{"request-id":"[0-9a-f]{32}"\}$'

no_trigger() {
	printf '{"errors":["There is no checkpoint operation with triggerId=%s for job %s."]}' "$1" "$2"
}
bad_param() {
	printf '{"errors":["Bad request, could not parse parameters: Cannot resolve path parameter (%s) from value \\"%s\\"."]}' "$1" "$2"
}
request_id() {
	printf '{"request-id":"%s"}' "$1"
}
# finish JOB TRIGGER CHECKPOINT-ID COMPLETED-MS: a successful result, by hand.
finish() {
	sql "UPDATE triggers SET status='COMPLETED', checkpoint_id=$3,
	    checkpoint_type='FULL', completed_ms=$4
	    WHERE job_id='$1' AND trigger_id='$2'"
}
view() {
	sql "SELECT response FROM trigger_status WHERE job_id='$1' AND trigger_id='$2'"
}

# phase NAME: (re)starts the server with the settings now exported, on a
# database of its own.
phase() {
	if [ -n "${SERVER_PID:-}" ]; then
		stop_server
	fi
	use_db "$1"
	start_server 2>>"$T/server-stderr.log"
	diag "phase $1: $SERVER at $BASE"
}
