# Shared by tests/t3000-t3400: every rule of checkpoint-api(7) through the web
# server $SERVER names (see start_server in lib.sh) in front of
# checkpoint-api.fcgi: routing, ids, the trigger body, status answers,
# errors and their headers, GET /metrics's headers and routing,
# idempotency, retention, the body limits, the CORS and unknown-job
# settings, a locked and an unreachable database, a mount under /api, and
# HTTP Basic authentication, and the savepoint family's way through the
# server.  Each case checks the
# exact status line, headers and bytes, the same through every server; where
# a server answers before the app, a case named for that server says what it
# does.  Results are completed by hand with SQL, as an operator (or the
# runner) would.  Sourced by a test that sets SERVER, and STORE: sqlite (the
# default: a database file per phase, sqlite3) or pg (a database per phase
# in a throwaway PostgreSQL cluster, tests/pg.sh, psql), the same checks on
# both; the few that are about a store's own way of failing (another
# writer's lock, the database gone) are done each store's way.

. "$(dirname "$0")/http-lib.sh"

# === defaults ==============================================================
phase defaults

# --- POST: bodies that are accepted ----------------------------------------

http POST /jobs/$J/checkpoints
check_like "POST, empty body" 202 "$ID_RE"
ID1=$(printf '%s' "$BODY" | cut -d'"' -f4)
is "$(sql "SELECT requested_type || ' ' || status FROM triggers WHERE trigger_id='$ID1'")" \
    "CONFIGURED IN_PROGRESS" "POST, empty body: recorded as CONFIGURED"
is "$(sql "SELECT remote_addr FROM triggers WHERE trigger_id='$ID1'")" 127.0.0.1 \
    "POST: REMOTE_ADDR recorded"
http POST /jobs/$J/checkpoints '{}'
check_like "POST {}: random id (Content-Type is not checked: curl sent form-urlencoded)" 202 "$ID_RE"
ID2=$(printf '%s' "$BODY" | cut -d'"' -f4)
ok "$([ "$ID1" != "$ID2" ] && echo 0 || echo 1)" "two POSTs get different random ids"

http GET /jobs/$J/checkpoints/$ID1
check "GET right after 202 is IN_PROGRESS" 200 "$IN_PROGRESS"
if [ "$SERVER" = cgi ]; then
	like "$(header content-length)|$(header transfer-encoding)" '^(48\||\|chunked)$' \
	    "cgi: mod_cgi frames the answer itself: its own Content-Length, or chunked"
fi
is "$BODY" "$(view $J $ID1)" "GET body equals the trigger_status view"

T1=abcdef0123456789abcdef0123456789
http POST /jobs/$J/checkpoints '{"triggerId":"ABCDEF0123456789ABCDEF0123456789"}'
check "POST, uppercase triggerId echoed in lowercase" 202 "$(request_id $T1)"
is "$(sql "SELECT count(*) FROM triggers WHERE job_id='$J' AND trigger_id='$T1'")" 1 \
    "POST, uppercase triggerId: stored in lowercase"

T2=22222222222222222222222222222222
http POST /jobs/$J/checkpoints "{\"checkpointType\":\"FULL\",\"triggerId\":null}"
check_like "POST, Flink client's body (triggerId null)" 202 "$ID_RE"
is "$(sql "SELECT requested_type FROM triggers WHERE trigger_id='$(printf '%s' "$BODY" | cut -d'"' -f4)'")" \
    FULL "POST, Flink client's body: recorded as FULL"

http POST /jobs/$J/checkpoints "{\"checkpointType\":null,\"triggerId\":\"$T2\"}"
check "POST, checkpointType null" 202 "$(request_id $T2)"
is "$(sql "SELECT requested_type FROM triggers WHERE trigger_id='$T2'")" CONFIGURED \
    "POST, checkpointType null: recorded as CONFIGURED"

T3=33333333333333333333333333333333
http POST /jobs/$J/checkpoints "{\"foo\":1,\"bar\":{\"x\":[1,null,\"y\"]},\"triggerId\":\"$T3\",\"checkpointType\":\"FULL\",\"zzz\":true}"
check "POST, unknown fields ignored" 202 "$(request_id $T3)"
is "$(sql "SELECT requested_type FROM triggers WHERE trigger_id='$T3'")" FULL \
    "POST, unknown fields ignored: FULL recorded"

T4=44444444444444444444444444444444
http POST /jobs/$J/checkpoints "{\"checkpointType\":\"INCREMENTAL\",\"triggerId\":\"$T4\"}"
check "POST, INCREMENTAL accepted" 202 "$(request_id $T4)"
is "$(sql "SELECT requested_type FROM triggers WHERE trigger_id='$T4'")" INCREMENTAL \
    "POST, INCREMENTAL recorded"

T5=55555555555555555555555555555555
http POST /jobs/$J/checkpoints "{\"checkpointType\":\"CONFIGURED\",\"triggerId\":\"$T5\"}"
check "POST, CONFIGURED accepted" 202 "$(request_id $T5)"

# --- POST: bodies that are refused -----------------------------------------

bad() {
	http POST /jobs/$JBAD/checkpoints "$2"
	check "POST, $1: 400" 400 "$BAD_BODY"
}
bad "lowercase enum" '{"checkpointType":"full"}'
bad "unknown enum" '{"checkpointType":"SAVEPOINT"}'
bad "empty enum" '{"checkpointType":""}'
bad "number type" '{"checkpointType":1}'
bad "array body" '[]'
bad "string body" '"FULL"'
bad "null body" 'null'
bad "number body" '42'
bad "malformed JSON" '{"checkpointType":'
bad "trailing garbage" '{} x'
bad "two objects" '{}{}'
bad "whitespace-only body" '   '
bad "single quotes" "{'checkpointType':'FULL'}"
bad "triggerId of 31 chars" '{"triggerId":"0123456789abcdef0123456789abcde"}'
bad "triggerId of 33 chars" '{"triggerId":"0123456789abcdef0123456789abcdef0"}'
bad "non-hex triggerId" '{"triggerId":"0123456789abcdef0123456789abcdeg"}'
bad "empty triggerId" '{"triggerId":""}'
bad "triggerId as number" '{"triggerId":12345678901234567890123456789012}'
bad "triggerId as object" '{"triggerId":{}}'
bad "invalid UTF-8" "$(printf '{"x":"\377"}')"
is "$(sql "SELECT count(*) FROM triggers WHERE job_id='$JBAD'")" 0 \
    "refused bodies recorded nothing"

http POST /jobs/xyz/checkpoints '[]'
check "POST, bad body and bad jobid: the body is reported" 400 "$BAD_BODY"

# Not JSON by RFC 8259 either (Flink's Jackson refuses them too): the
# non-numeric literals, and control characters left unescaped in a string.
JSTRICT=5afe5afe5afe5afe5afe5afe5afe5afe
strict() {
	http POST /jobs/$JSTRICT/checkpoints "$2"
	check "POST, $1: 400" 400 "$BAD_BODY"
}
strict "NaN literal" '{"a":NaN}'
strict "Infinity literal" '{"a":Infinity}'
strict "-Infinity literal" '{"a":[-Infinity]}'
strict "raw tab in a string" "$(printf '{"x":"a\tb"}')"
strict "raw newline in a string" "$(printf '{"x":"a\nb"}')"
strict "raw control character in a string" "$(printf '{"x":"a\001b"}')"
is "$(sql "SELECT count(*) FROM triggers WHERE job_id='$JSTRICT'")" 0 \
    "refused non-JSON bodies recorded nothing"

# Valid JSON in every form is accepted.
ok_body() {
	http POST /jobs/$J/checkpoints "$2"
	check_like "POST, $1: 202" 202 "$ID_RE"
}
b=$(printf ' \t{ "checkpointType" : "FULL" }\r\n\n.')
ok_body "surrounding whitespace and a trailing newline" "${b%.}"
ok_body "an escaped enum value" '{"checkpointType":"F\u0055LL"}'
is "$(sql "SELECT requested_type FROM triggers WHERE trigger_id='$(printf '%s' "$BODY" | cut -d'"' -f4)'")" \
    FULL "POST, an escaped enum value: FULL recorded"
ok_body "unknown fields of every type" \
    '{"n":-0.5e-3,"big":123456789012345678901234567890,"huge":1e999,"t":true,"f":false,"z":null,"s":"\u0000\ud83d\ude00\"\\/","u":"\u00e9\u20ac","raw":"é€","o":{"a":[{}]}}'
ok_body "DEL unescaped in a string" "$(printf '{"x":"a\177b"}')"

# --- path ids ---------------------------------------------------------------

http POST /jobs/xyz/checkpoints '{}'
check "POST, bad jobid" 400 "$(bad_param jobid xyz)"
http POST /jobs/${J}0/checkpoints
check "POST, jobid of 33 chars" 400 "$(bad_param jobid ${J}0)"
http GET /jobs/xyz/checkpoints/nothex
check "GET, bad jobid and bad triggerid: jobid reported" 400 "$(bad_param jobid xyz)"
http GET /jobs/$J/checkpoints/nothex
check "GET, bad triggerid" 400 "$(bad_param triggerid nothex)"

http POST /jobs/$JU/checkpoints "{\"triggerId\":\"$T1\"}"
check "POST, mixed-case jobid" 202 "$(request_id $T1)"
is "$(sql "SELECT count(*) FROM triggers WHERE job_id='$(echo $JU | tr A-F a-f)' AND trigger_id='$T1'")" 1 \
    "POST, mixed-case jobid: stored in lowercase"
http GET "/jobs/$(echo $J | tr a-f A-F)/checkpoints/$(echo $T1 | tr a-f A-F)"
check "GET, uppercase ids answer the same" 200 "$IN_PROGRESS"

# The server decodes the path once; the app must not decode it again.
http GET /jobs/%30123456789abcdef0123456789abcdef/checkpoints/$T1
check "GET, percent-encoded id decoded once" 200 "$IN_PROGRESS"
http GET /jobs/%2530123456789abcdef0123456789abcdef/checkpoints/$T1
check "GET, double-encoded id is not decoded twice" 400 \
    "$(bad_param jobid %30123456789abcdef0123456789abcdef)"

# Echoed values are JSON-escaped; UTF-8 passes through.
http GET /jobs/%22x%5C/checkpoints/$T1
check "GET, a jobid with a quote and a backslash is JSON-escaped" 400 \
    '{"errors":["Bad request, could not parse parameters: Cannot resolve path parameter (jobid) from value \"\"x\\\"."]}'
http GET /jobs/$J/checkpoints/%C3%A9
check "GET, a UTF-8 triggerid is echoed as UTF-8" 400 \
    "$(printf '{"errors":["Bad request, could not parse parameters: Cannot resolve path parameter (triggerid) from value \\"\303\251\\"."]}')"
http GET '/no"pe\x?q="\'
check "unknown path: quotes and backslashes in the URI are JSON-escaped" 404 \
    '{"errors":["Not found: /no\"pe\\x?q=\"\\"]}'

# --- routing -----------------------------------------------------------------

T6=66666666666666666666666666666666
http POST /v1/jobs/$J/checkpoints "{\"triggerId\":\"$T6\"}"
check "POST under /v1" 202 "$(request_id $T6)"
http GET /v1/jobs/$J/checkpoints/$T6
check "GET under /v1" 200 "$IN_PROGRESS"
http POST /v0/jobs/$J/checkpoints '{}'
check "POST under /v0 is unknown" 404 "{\"errors\":[\"Not found: /v0/jobs/$J/checkpoints\"]}"
http GET /v2/jobs/$J/checkpoints/$T6
check "GET under /v2 is unknown" 404 "{\"errors\":[\"Not found: /v2/jobs/$J/checkpoints/$T6\"]}"
http GET /v1/v1/jobs/$J/checkpoints/$T6
check "GET under /v1/v1 is unknown" 404 "{\"errors\":[\"Not found: /v1/v1/jobs/$J/checkpoints/$T6\"]}"

T7=77777777777777777777777777777777
http POST /jobs/$J/checkpoints/ "{\"triggerId\":\"$T7\"}"
check "POST with a trailing slash" 202 "$(request_id $T7)"
http GET /jobs/$J/checkpoints/$T7/
check "GET with a trailing slash" 200 "$IN_PROGRESS"
http GET /v1/jobs/$J/checkpoints/$T7/
check "GET under /v1 with a trailing slash" 200 "$IN_PROGRESS"

T8=88888888888888888888888888888888
http POST "/jobs/$J/checkpoints?triggerId=$T8&x=1" "{\"triggerId\":\"$T8\"}"
check "POST with a query string" 202 "$(request_id $T8)"
http POST "/jobs/$J/checkpoints?triggerId=$T8"
check_like "POST, the query string is not read" 202 "$ID_RE"
ok "$([ "$BODY" != "$(request_id $T8)" ] && echo 0 || echo 1)" \
    "POST, a triggerId in the query is not used"
http GET "/jobs/$J/checkpoints/$T8?a=1&b=2"
check "GET with a query string" 200 "$IN_PROGRESS"
http GET "/jobs/$J/checkpoints/$T8/?a=1"
check "GET with a trailing slash and a query string" 200 "$IN_PROGRESS"
# Plain CGI passes a query without '=' as arguments too (RFC 3875 4.4).
http GET "/jobs/$J/checkpoints/$T8?x+y"
check "GET with a query string without '='" 200 "$IN_PROGRESS"

http GET "/nope?a=1"
check "unknown path: message has the query as sent" 404 '{"errors":["Not found: /nope?a=1"]}'
# Apache decodes %2F only with AllowEncodedSlashes On (apache-*.conf):
# without it Apache itself answers with its HTML 404.
http GET "/jobs/a%2Fb/checkpoints/$T8"
check "%2F in a path is decoded by the server: unknown path" 404 \
    "{\"errors\":[\"Not found: /jobs/a%2Fb/checkpoints/$T8\"]}"
http GET "/nope%41"
check "unknown path: message has the URI undecoded" 404 '{"errors":["Not found: /nope%41"]}'
http GET /
check "unknown path: /" 404 '{"errors":["Not found: /"]}'
http POST /JOBS/$J/checkpoints '{}'
check "path literals are case-sensitive (/JOBS)" 404 "{\"errors\":[\"Not found: /JOBS/$J/checkpoints\"]}"
http GET /jobs/$J/Checkpoints/$T8
check "path literals are case-sensitive (Checkpoints)" 404 "{\"errors\":[\"Not found: /jobs/$J/Checkpoints/$T8\"]}"
http GET /jobs/$J/checkpoints/$T8/extra
check "a longer path is unknown" 404 "{\"errors\":[\"Not found: /jobs/$J/checkpoints/$T8/extra\"]}"
http GET /jobs/$J
check "a shorter path is unknown" 404 "{\"errors\":[\"Not found: /jobs/$J\"]}"

# --- wrong method: 405 with Allow ------------------------------------------

method() {
	http "$2" "$3"
	check_like "$1" 405 "$ERRORS_RE"
	is "$(header allow)" "$4" "$1: Allow: $4"
}
method "PATCH on the trigger path" PATCH /jobs/$J/checkpoints "GET, POST"
method "PUT on the trigger path" PUT /jobs/$J/checkpoints "GET, POST"
method "DELETE on the trigger path" DELETE /v1/jobs/$J/checkpoints/ "GET, POST"
method "POST on the status path" POST /jobs/$J/checkpoints/$T8 GET
method "PUT on the status path" PUT /jobs/$J/checkpoints/$T8 GET
method "DELETE on the status path" DELETE /jobs/$J/checkpoints/$T8 GET
is "$(sql "SELECT count(*) FROM triggers WHERE trigger_id='$T8'")" 1 \
    "405s recorded nothing"

# --- savepoints, stops, disposals: the way through this server -------------
# (t3050 and t6205 check every rule of them behind lighttpd.)

S1=5a000000000000000000000000000a01
S2=5a000000000000000000000000000a02
# A directory is taken under the job's own: J is registered with one.
sql "INSERT INTO jobs (job_id, savepoint_dir, created_ms, updated_ms)
    VALUES ('$J', 'file:/sp', 0, 0)" >/dev/null
http POST /jobs/$J/savepoints "{\"target-directory\":\"file:/sp\",\"formatType\":\"NATIVE\",\"triggerId\":\"$S1\"}"
check "POST savepoints" 202 "$(request_id $S1)"
http GET /jobs/$J/savepoints/$S1
check "GET the savepoint's status" 200 "$IN_PROGRESS"
http POST /jobs/$J/stop "{\"targetDirectory\":\"file:/sp\",\"drain\":true,\"triggerId\":\"$S2\"}"
check "POST stop" 202 "$(request_id $S2)"
is "$(sql "SELECT kind || ' ' || target_directory || ' ' || format_type || ' ' ||
    CASE WHEN drain THEN 1 ELSE 0 END FROM savepoints WHERE job_id = '$J'
    ORDER BY id")" \
    "$(printf '%s\n' 'SAVEPOINT file:/sp NATIVE 0' 'STOP file:/sp CANONICAL 1')" \
    "the savepoint and the stop recorded as asked"
http POST /savepoint-disposal '{"savepoint-path":"file:/sp/savepoint-1"}'
check_like "POST savepoint-disposal" 200 "$ID_RE"
D1=$(printf '%s' "$BODY" | cut -d'"' -f4)
http GET /savepoint-disposal/$D1
check "GET the disposal's status" 200 "$IN_PROGRESS"
http POST /savepoint-disposal '{}'
check "POST savepoint-disposal without a path: Flink's 400" 400 \
    '{"errors":["Field savepoint-path must not be omitted or be null."]}'
method "GET on the stop path" GET /jobs/$J/stop POST
sql "DELETE FROM jobs WHERE job_id = '$J'" >/dev/null

# --- GET /metrics (checkpoint-api.fcgi(8); t3700 checks its lines) -----------

http GET /metrics
_n=$(wc -c < "$T/resp-body" | tr -d ' ')
is "$(summary)" \
    "HTTP/1.1 200 OK|text/plain; version=0.0.4; charset=utf-8|$_n=$_n|$CORS_WANT" \
    "GET /metrics: status and headers"
like "$(tail -n 1 "$T/resp-body")" \
    '^checkpoint_api_jobs_missed_slots [0-9]+$' \
    "GET /metrics: the exposition, to its last line"
http GET /v1/metrics
check "GET /v1/metrics is unknown" 404 '{"errors":["Not found: /v1/metrics"]}'
method "POST on /metrics" POST /metrics GET

# --- unknown triggers --------------------------------------------------------

T9=99999999999999999999999999999999
http GET /jobs/$J/checkpoints/$T9
check "GET, unknown trigger" 404 "$(no_trigger $T9 $J)"
http GET /jobs/$JB/checkpoints/$T6
check "GET, a trigger of job A read under job B" 404 "$(no_trigger $T6 $JB)"
http GET "/jobs/$(echo $JB | tr a-f A-F)/checkpoints/$(echo $T1 | tr a-f A-F)"
check "GET, unknown trigger: ids in lowercase in the message" 404 "$(no_trigger $T1 $JB)"

# --- idempotency -------------------------------------------------------------

TA=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
http POST /jobs/$J/checkpoints "{\"triggerId\":\"$TA\",\"checkpointType\":\"FULL\"}"
check "idempotency: first POST" 202 "$(request_id $TA)"
http POST /jobs/$J/checkpoints "{\"triggerId\":\"$TA\",\"checkpointType\":\"INCREMENTAL\"}"
check "idempotency: second POST, same id" 202 "$(request_id $TA)"
is "$(sql "SELECT count(*) FROM triggers WHERE trigger_id='$TA'")" 1 \
    "idempotency: exactly one row"
is "$(sql "SELECT requested_type FROM triggers WHERE trigger_id='$TA'")" FULL \
    "idempotency: the second checkpointType is ignored"
http POST /jobs/$JB/checkpoints "{\"triggerId\":\"$TA\",\"checkpointType\":\"INCREMENTAL\"}"
check "idempotency: same triggerId on another job" 202 "$(request_id $TA)"
is "$(sql "SELECT job_id || ' ' || requested_type FROM triggers WHERE trigger_id='$TA' ORDER BY job_id")" \
    "$(printf '%s FULL\n%s INCREMENTAL' $J $JB)" "idempotency: another job's trigger is an independent row"

# --- concurrent POSTs ---------------------------------------------------------
# Eight clients at once, ten POSTs each with triggerIds of their own (four
# of them sent twice): every answer names the trigger its own request sent
# (a threaded responder answers a POST from its committer thread, not the
# thread that read it), and each trigger is one row.
JC=c0ffeec0ffeec0ffeec0ffeec0ffee00
_pids=
for _c in 1 2 3 4 5 6 7 8; do
	(
		_i=0
		while [ $_i -lt 10 ]; do
			_i=$((_i + 1))
			_t=$(printf 'c0c0c0c0%08x%016x' "$_c" $((_i - _i % 2)))
			printf '%s %s\n' "$_t" "$(curl -s -X POST -w ' %{http_code}' \
			    --data-binary "{\"triggerId\":\"$_t\"}" \
			    "$BASE/jobs/$JC/checkpoints")"
		done > "$T/concurrent-$_c"
	) &
	_pids="$_pids $!"
done
# shellcheck disable=SC2086
wait $_pids
is "$(cat "$T"/concurrent-* | wc -l | tr -d ' ')" 80 \
    "concurrent POSTs: 8 clients got 80 answers"
is "$(cat "$T"/concurrent-* |
    awk '$2 != "{\"request-id\":\"" $1 "\"}" || $3 != 202' | head -n 3)" "" \
    "concurrent POSTs: each a 202 naming its own trigger"
is "$(sql "SELECT count(*), count(DISTINCT trigger_id) FROM triggers WHERE job_id='$JC'")" \
    "48|48" "concurrent POSTs: 48 distinct triggers, one row each"

# --- completed results ---------------------------------------------------------

DONE_MS=$(now_ms)
finish $J $TA 7 "$DONE_MS"
http GET /jobs/$J/checkpoints/$TA
check "GET, completed" 200 '{"status":{"id":"COMPLETED"},"operation":{"checkpointId":7}}'
is "$BODY" "$(view $J $TA)" "GET, completed: body equals the trigger_status view"
http GET /jobs/$JB/checkpoints/$TA
check "GET, the other job's trigger is still running" 200 "$IN_PROGRESS"
http POST /jobs/$J/checkpoints "{\"triggerId\":\"$TA\"}"
check "POST again after completion: same id" 202 "$(request_id $TA)"
http GET /jobs/$J/checkpoints/$TA
check "POST again after completion starts nothing" 200 \
    '{"status":{"id":"COMPLETED"},"operation":{"checkpointId":7}}'
is "$(sql "SELECT completed_ms FROM triggers WHERE job_id='$J' AND trigger_id='$TA'")" \
    "$DONE_MS" "polling and re-POSTing do not extend the result's life"

# Each failure's serialized-throwable below, exactly as the runner stores
# it (cgi/throwable.c, whose streams unit-throwable and t4200 check).
THROWABLE_LINES=$THROWABLE_HEAD\
'dAALbGluZTEKbGluZTJ1cgAeW0xqYXZhLmxhbmcuU3RhY2tUcmFjZUVsZW1lbnQ7'\
'AkYqPDz9IjkCAAB4cAAAAABzcgAfamF2YS51dGlsLkNvbGxlY3Rpb25zJEVtcHR5'\
'TGlzdHq4F7Q8p57eAgAAeHB4dAALbGluZTEKbGluZTJ0AChqYXZhLnV0aWwuY29u'\
'Y3VycmVudC5Db21wbGV0aW9uRXhjZXB0aW9ucA=='
THROWABLE_QUOTED=$THROWABLE_HEAD\
'dAAVYSAicXVvdGVkIiBcIGJhY2sJdGFidXIAHltMamF2YS5sYW5nLlN0YWNrVHJh'\
'Y2VFbGVtZW50OwJGKjw8/SI5AgAAeHAAAAAAc3IAH2phdmEudXRpbC5Db2xsZWN0'\
'aW9ucyRFbXB0eUxpc3R6uBe0PKee3gIAAHhweHQAFWEgInF1b3RlZCIgXCBiYWNr'\
'CXRhYnQAN29yZy5hcGFjaGUuZmxpbmsucnVudGltZS5jaGVja3BvaW50LkNoZWNr'\
'cG9pbnRFeGNlcHRpb25w'
FAILED_LINES='{"status":{"id":"COMPLETED"},"operation":{"failureCause":{"class":"java.util.concurrent.CompletionException","stack-trace":"line1\nline2","serialized-throwable":"'"$THROWABLE_LINES"'"}}}'

TB=bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb
http POST /jobs/$J/checkpoints "{\"triggerId\":\"$TB\"}"
sql "UPDATE triggers SET status='COMPLETED', checkpoint_id=8,
    failure_class='java.util.concurrent.CompletionException',
    failure_trace='line1${NL}line2',
    failure_throwable='$THROWABLE_LINES', completed_ms=$(now_ms)
    WHERE trigger_id='$TB'"
http GET /jobs/$J/checkpoints/$TB
check "GET, failed" 200 "$FAILED_LINES"
is "$BODY" "$(view $J $TB)" "GET, failed: body equals the trigger_status view"
http POST /jobs/$J/checkpoints "{\"triggerId\":\"$TB\"}"
check "POST again after a failure: same id" 202 "$(request_id $TB)"
http GET /jobs/$J/checkpoints/$TB
check "POST again after a failure: not retried" 200 "$FAILED_LINES"

TC=cccccccccccccccccccccccccccccccc
http POST /jobs/$J/checkpoints "{\"triggerId\":\"$TC\"}"
sql "UPDATE triggers SET status='COMPLETED',
    failure_class='org.apache.flink.runtime.checkpoint.CheckpointException',
    failure_trace='a \"quoted\" \\ back${TAB}tab',
    failure_throwable='$THROWABLE_QUOTED', completed_ms=$(now_ms)
    WHERE trigger_id='$TC'"
http GET /jobs/$J/checkpoints/$TC
check "GET, failed: the trace is JSON-escaped" 200 \
    '{"status":{"id":"COMPLETED"},"operation":{"failureCause":{"class":"org.apache.flink.runtime.checkpoint.CheckpointException","stack-trace":"a \"quoted\" \\ back\ttab","serialized-throwable":"'"$THROWABLE_QUOTED"'"}}}'

# Default store duration: 5 minutes from completion.
TD=dddddddddddddddddddddddddddddddd
http POST /jobs/$J/checkpoints "{\"triggerId\":\"$TD\"}"
finish $J $TD 9 $(($(now_ms) - 240000))
http GET /jobs/$J/checkpoints/$TD
check "default retention: a 4-minute-old result is kept" 200 \
    '{"status":{"id":"COMPLETED"},"operation":{"checkpointId":9}}'
finish $J $TD 9 $(($(now_ms) - 301000))
http GET /jobs/$J/checkpoints/$TD
check "default retention: a 5-minute-old result has expired" 404 "$(no_trigger $TD $J)"

# --- every answer carries the JSON type and the CORS header -------------------
# (check above compares both for 200, 202, 400, 404 and 405 answers)

http POST /jobs/$J/checkpoints "$(printf '{"x":"%s"}' "$(head -c 65528 /dev/zero | tr '\0' x)")"
check_like "POST, a body of exactly 64 KiB is accepted" 202 "$ID_RE"
http POST /jobs/$J/checkpoints "$(printf '{"x":"%s"}' "$(head -c 65529 /dev/zero | tr '\0' x)")"
check "POST, a body over 64 KiB is 413" 413 \
    '{"errors":["Request entity too large: the limit is 65536 bytes. Try to raise [CHECKPOINT_MAX_BODY]"]}'

# A POST without Content-Length (curl -X POST URL).
curl -s -o "$T/resp-body" -D "$T/resp-head" -X POST "$BASE/jobs/$J/checkpoints"
BODY=$(cat "$T/resp-body")
HEADERS=$(tr -d '\r' < "$T/resp-head" |
    awk 'BEGIN { FS = OFS = ": " } { $1 = tolower($1); print }')
if [ "$SERVER" = lighttpd ]; then
	# lighttpd before 1.4.78 answers it itself (scripts/README.examples).
	like "$(grep -a '^HTTP/' "$T/resp-head" | tr -d '\r')" '^HTTP/1.1 411 ' \
	    "lighttpd: a POST without Content-Length gets lighttpd's own 411"
else
	check_like "$SERVER: a POST without Content-Length is an empty body" 202 "$ID_RE"
fi

# A chunked body (Transfer-Encoding: chunked): lighttpd, nginx and mod_fcgid
# pass it on with a CONTENT_LENGTH, Apache's mod_cgi without one, and the
# app reads it to its end.
TCH=c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0
HTTP_CHUNKED=1
http POST /jobs/$J/checkpoints "{\"checkpointType\":\"INCREMENTAL\",\"triggerId\":\"$TCH\"}"
unset HTTP_CHUNKED
check "POST, a chunked body is read: its triggerId" 202 "$(request_id $TCH)"
is "$(sql "SELECT requested_type FROM triggers WHERE job_id='$J' AND trigger_id='$TCH'")" \
    INCREMENTAL "POST, a chunked body is read: its checkpointType is recorded"
HTTP_CHUNKED=1
http POST /jobs/$J/checkpoints
unset HTTP_CHUNKED
check_like "POST, an empty chunked body is {}" 202 "$ID_RE"

# A Range header cuts nothing: every answer is whole (lighttpd would
# answer 206 with part of the JSON, or its own HTML 416, unless its config
# disables ranges).
HTTP_RANGE=0-5
http GET /jobs/$J/checkpoints/$TCH
check "GET with Range: bytes=0-5 is the whole answer" 200 "$IN_PROGRESS"
HTTP_RANGE=100-200
http GET /jobs/$J/checkpoints/$TCH
check "GET with Range: bytes=100-200 is the whole answer" 200 "$IN_PROGRESS"
unset HTTP_RANGE

# A body over the server's own limit (1 MiB in every shipped config): the
# server answers before the app, with its own page.
head -c 1100000 /dev/zero | tr '\0' x > "$T/huge"
STATUS=$(curl -s -o "$T/resp-body" -D "$T/resp-head" -w '%{http_code}' \
    --data-binary "@$T/huge" "$BASE/jobs/$J/checkpoints")
TYPE=$(tr -d '\r' < "$T/resp-head" | sed -n 's/^[Cc]ontent-[Tt]ype: //p' | tail -n 1)
case $SERVER in
lighttpd|nginx|nginx-keepalive)
	is "$STATUS $TYPE" "413 text/html" \
	    "$SERVER: a body over its own 1 MiB limit gets its own HTML 413"
	;;
apache)
	is "$STATUS $TYPE" "500 text/html; charset=iso-8859-1" \
	    "apache: a body over FcgidMaxRequestLen gets Apache's own HTML 500"
	;;
cgi)
	is "$STATUS $TYPE" "413 text/html; charset=iso-8859-1" \
	    "cgi: a body over LimitRequestBody gets Apache's own HTML 413"
	;;
esac

# === body limit ===============================================================
export CHECKPOINT_MAX_BODY=100
phase max-body

pad() {
	head -c "$1" /dev/zero | tr '\0' x
}
TE=eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee
TF=ffffffffffffffffffffffffffffffff
# {"triggerId":"<32>","pad":"<n>"} is 57 + n bytes.
http POST /jobs/$J/checkpoints "{\"triggerId\":\"$TF\",\"pad\":\"$(pad 43)\"}"
check "CHECKPOINT_MAX_BODY=100: 100 bytes is accepted" 202 "$(request_id $TF)"
http POST /jobs/$J/checkpoints "{\"triggerId\":\"$TE\",\"pad\":\"$(pad 143)\"}"
check "CHECKPOINT_MAX_BODY=100: 200 bytes is 413" 413 \
    '{"errors":["Request entity too large: the limit is 100 bytes. Try to raise [CHECKPOINT_MAX_BODY]"]}'
http POST /jobs/$J/checkpoints "{\"triggerId\":\"$TE\",\"pad\":\"$(pad 44)\"}"
check "CHECKPOINT_MAX_BODY=100: 101 bytes is 413" 413 \
    '{"errors":["Request entity too large: the limit is 100 bytes. Try to raise [CHECKPOINT_MAX_BODY]"]}'
HTTP_CHUNKED=1
http POST /jobs/$J/checkpoints "{\"triggerId\":\"$TE\",\"pad\":\"$(pad 44)\"}"
unset HTTP_CHUNKED
check "CHECKPOINT_MAX_BODY=100: 101 bytes chunked is 413" 413 \
    '{"errors":["Request entity too large: the limit is 100 bytes. Try to raise [CHECKPOINT_MAX_BODY]"]}'
is "$(sql "SELECT count(*) FROM triggers WHERE trigger_id='$TE'")" 0 \
    "CHECKPOINT_MAX_BODY=100: bodies over the limit recorded nothing"
unset CHECKPOINT_MAX_BODY

# === CORS off =================================================================
export CHECKPOINT_CORS_ORIGIN=
phase cors-off
CORS_WANT=
http POST /jobs/$J/checkpoints "{\"triggerId\":\"$TF\"}"
check "CORS off: 202" 202 "$(request_id $TF)"
no_cors() {
	printf '%s\n' "$HEADERS" | grep -c '^access-control-allow-origin:'
}
is "$(no_cors)" 0 "CORS off: 202 has no Access-Control-Allow-Origin"
http GET /jobs/$J/checkpoints/$TF
check "CORS off: 200" 200 "$IN_PROGRESS"
is "$(no_cors)" 0 "CORS off: 200 has no Access-Control-Allow-Origin"
http GET /jobs/$J/checkpoints/$TE
check "CORS off: 404" 404 "$(no_trigger $TE $J)"
is "$(no_cors)" 0 "CORS off: 404 has no Access-Control-Allow-Origin"
http PUT /jobs/$J/checkpoints
check_like "CORS off: 405" 405 "$ERRORS_RE"
is "$(no_cors)" 0 "CORS off: 405 has no Access-Control-Allow-Origin"
http POST /jobs/$J/checkpoints '[]'
check "CORS off: 400" 400 "$BAD_BODY"
is "$(no_cors)" 0 "CORS off: 400 has no Access-Control-Allow-Origin"

# === CORS origin ==============================================================
export CHECKPOINT_CORS_ORIGIN=https://ops.example
phase cors-origin
CORS_WANT=https://ops.example
http POST /jobs/$J/checkpoints "{\"triggerId\":\"$TF\"}"
check "CORS origin: 202" 202 "$(request_id $TF)"
http GET /jobs/$J/checkpoints/$TF
check "CORS origin: 200" 200 "$IN_PROGRESS"
http POST /jobs/xyz/checkpoints
check "CORS origin: 400" 400 "$(bad_param jobid xyz)"
http GET /nope
check "CORS origin: 404" 404 '{"errors":["Not found: /nope"]}'
unset CHECKPOINT_CORS_ORIGIN
CORS_WANT='*'

# === the service's origins ====================================================
# CHECKPOINT_ORIGINS names them: a browser's POST from any other is
# refused, whatever Host says (checkpoint-api(7), "CROSS-SITE REQUESTS").
export CHECKPOINT_ORIGINS='https://ops.example http://flink.example:8081'
phase origins
TO=0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f
origin_status() {
	curl -s -o /dev/null -w '%{http_code}' -H "Origin: $1" -H "Host: $2" \
	    -d "{\"triggerId\":\"$3\"}" "$BASE/jobs/$J/checkpoints"
}
is "$(origin_status https://ops.example evil.example $TF)" 202 \
    "CHECKPOINT_ORIGINS: a listed origin's POST: 202"
is "$(origin_status http://FLINK.example:8081 127.0.0.1 $TE)" 202 \
    "CHECKPOINT_ORIGINS: another listed one, its host without case: 202"
is "$(origin_status "http://127.0.0.1:$PORT" "127.0.0.1:$PORT" $TO)" 403 \
    "CHECKPOINT_ORIGINS: Host and Origin alike but not listed: 403"
is "$(origin_status http://evil.example evil.example $TO)" 403 \
    "CHECKPOINT_ORIGINS: another site's name for the server: 403"
is "$(origin_status http://flink.example flink.example $TO)" 403 \
    "CHECKPOINT_ORIGINS: a listed host on another port: 403"
is "$(sql "SELECT count(*) FROM triggers WHERE trigger_id='$TO'")" 0 \
    "CHECKPOINT_ORIGINS: the refused recorded nothing"
is "$(curl -s -o /dev/null -w '%{http_code}' -d "{\"triggerId\":\"$TO\"}" \
    "$BASE/jobs/$J/checkpoints")" 202 "CHECKPOINT_ORIGINS: no Origin (curl): 202"
unset CHECKPOINT_ORIGINS

# === rejecting unknown jobs ===================================================
export CHECKPOINT_REJECT_UNKNOWN_JOBS=1
phase reject-unknown
http POST /jobs/$JU/checkpoints "{\"triggerId\":\"$TF\"}"
check "reject unknown jobs: unregistered job is 404" 404 \
    "{\"errors\":[\"Job $(echo $JU | tr A-F a-f) not found\"]}"
is "$(sql "SELECT count(*) FROM triggers")" 0 "reject unknown jobs: nothing recorded"
http POST /jobs/$JU/checkpoints 'null'
check "reject unknown jobs: the body is still checked first" 400 "$BAD_BODY"
sql "INSERT INTO jobs(job_id,created_ms,updated_ms) VALUES('$J',0,0)"
http POST /jobs/$JU/checkpoints "{\"triggerId\":\"$TF\"}"
check "reject unknown jobs: registered job gets 202" 202 "$(request_id $TF)"
http GET /jobs/$J/checkpoints/$TF
check "reject unknown jobs: registered job's trigger is IN_PROGRESS" 200 "$IN_PROGRESS"
unset CHECKPOINT_REJECT_UNKNOWN_JOBS

# === retention of one second ==================================================
export CHECKPOINT_STORE_DURATION=1
phase retention
http POST /jobs/$J/checkpoints "{\"triggerId\":\"$TA\",\"checkpointType\":\"INCREMENTAL\"}"
check "retention: POST" 202 "$(request_id $TA)"
finish $J $TA 7 $(($(now_ms) - 5000))
http GET /jobs/$J/checkpoints/$TA
check "retention: an expired result is 404" 404 "$(no_trigger $TA $J)"
is "$(view $J $TA)" '{"status":{"id":"COMPLETED"},"operation":{"checkpointId":7}}' \
    "retention: the view still shows the expired row"
http POST /jobs/$J/checkpoints "{\"triggerId\":\"$TA\",\"checkpointType\":\"FULL\"}"
check "retention: POST after expiry, same id" 202 "$(request_id $TA)"
http GET /jobs/$J/checkpoints/$TA
check "retention: POST after expiry starts again" 200 "$IN_PROGRESS"
is "$(sql "SELECT count(*) || ' ' || min(status) || ' ' || coalesce(CAST(min(checkpoint_id) AS TEXT), '-') || ' ' || min(requested_type) FROM triggers WHERE trigger_id='$TA'")" \
    "1 IN_PROGRESS - FULL" "retention: the same row restarted with the new type"

http POST /jobs/$J/checkpoints "{\"triggerId\":\"$TB\"}"
sql "UPDATE triggers SET created_ms=1 WHERE trigger_id='$TB'"
http GET /jobs/$J/checkpoints/$TB
check "retention: a running trigger never expires" 200 "$IN_PROGRESS"
http POST /jobs/$J/checkpoints "{\"triggerId\":\"$TB\",\"checkpointType\":\"FULL\"}"
check "retention: POST on an old running trigger" 202 "$(request_id $TB)"
is "$(sql "SELECT created_ms || ' ' || requested_type FROM triggers WHERE trigger_id='$TB'")" \
    "1 CONFIGURED" "retention: an old running trigger is left alone"
unset CHECKPOINT_STORE_DURATION

# === retention forever ========================================================
export CHECKPOINT_STORE_DURATION=0
phase forever
http POST /jobs/$J/checkpoints "{\"triggerId\":\"$TA\"}"
finish $J $TA 7 1
http GET /jobs/$J/checkpoints/$TA
check "CHECKPOINT_STORE_DURATION=0: a result from 1970 is kept" 200 \
    '{"status":{"id":"COMPLETED"},"operation":{"checkpointId":7}}'
http POST /jobs/$J/checkpoints "{\"triggerId\":\"$TA\"}"
check "CHECKPOINT_STORE_DURATION=0: POST again, same id" 202 "$(request_id $TA)"
http GET /jobs/$J/checkpoints/$TA
check "CHECKPOINT_STORE_DURATION=0: POST again starts nothing" 200 \
    '{"status":{"id":"COMPLETED"},"operation":{"checkpointId":7}}'
unset CHECKPOINT_STORE_DURATION

# === database locked past the busy timeout ====================================
export CHECKPOINT_BUSY_TIMEOUT=300ms
phase locked
http POST /jobs/$J/checkpoints "{\"triggerId\":\"$TA\"}"
check "locked: POST before the lock" 202 "$(request_id $TA)"
# Another writer holds the write lock until told to commit.
if [ "$STORE" = pg ]; then
	# PostgreSQL's writer lock of the same effect (tests/pg.sh, pg_lock):
	# the triggers table in EXCLUSIVE mode.
	pg_lock "$PG_DB" triggers \
	    "UPDATE triggers SET location='locker' WHERE trigger_id='$TA';"
	! psql_q "BEGIN; SET LOCAL lock_timeout = '100ms';
	    LOCK TABLE triggers IN ROW EXCLUSIVE MODE; ROLLBACK;" "$PG_DB" \
	    2>/dev/null 3>&-
else
	# fd 3 is opened read-write first so that no open of the FIFO
	# blocks; the FIFO is opened inside sh -c because dash gives a
	# background command /dev/null as stdin unless the command itself
	# redirects it.
	mkfifo "$T/lock.fifo"
	exec 3<> "$T/lock.fifo"
	spawn sh -c 'exec sqlite3 -batch -cmd ".timeout 5000" "$1" < "$2" > "$3" 2>&1' sh \
	    "$DB" "$T/lock.fifo" "$T/lock.out" 3>&-
	LOCKER=$LAST_PID
	# It waits for the lock itself (.timeout): under CGI the process that
	# answered the last request may still be checkpointing as it exits.
	printf '%s\n' "BEGIN IMMEDIATE;" \
	    "UPDATE triggers SET location='locker' WHERE trigger_id='$TA';" \
	    ".shell touch '$T/locked'" >&3
	i=0
	while [ ! -e "$T/locked" ] && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	! sqlite3 -batch "$DB" "BEGIN IMMEDIATE; ROLLBACK;" 2>/dev/null 3>&-
fi
ok $? "locked: another writer holds the lock"
http POST /jobs/$J/checkpoints "{\"triggerId\":\"$TB\"}"
check "locked: POST is 503, the lock named" 503 "$LOCKED"
http GET /jobs/$J/checkpoints/$TA
check "locked: GET still answers (readers are not blocked)" 200 "$IN_PROGRESS"
if [ "$STORE" = pg ]; then
	pg_unlock
else
	echo "COMMIT;" >&3
	exec 3>&-
	wait "$LOCKER"
	stop_pid "$LOCKER"
fi
is "$(sql "SELECT location FROM triggers WHERE trigger_id='$TA'")" locker \
    "locked: the other writer committed once the lock was let go"
is "$(sql "SELECT count(*) FROM triggers WHERE trigger_id='$TB'")" 0 \
    "locked: the 503 left nothing behind"
http POST /jobs/$J/checkpoints "{\"triggerId\":\"$TB\"}"
check "locked: the retried POST is 202" 202 "$(request_id $TB)"
if [ "$STORE" = pg ]; then
	# The same with no POST before the lock: the app's statements are
	# prepared on a connection's first use, which waits for the lock too.
	phase locked-first
	http GET /jobs
	check "locked, first POST: the app made the database" 200 '{"jobs":[]}'
	pg_lock "$PG_DB" triggers
	http POST /jobs/$J/checkpoints "{\"triggerId\":\"$TB\"}"
	check "locked, first POST: 503, the lock named" 503 "$LOCKED"
	pg_unlock
	http POST /jobs/$J/checkpoints "{\"triggerId\":\"$TB\"}"
	check "locked, first POST: retried, 202" 202 "$(request_id $TB)"
fi
unset CHECKPOINT_BUSY_TIMEOUT

# === checkpoint statistics and job lists ======================================
. "$(dirname "$0")/http-stats.sh"

# === the page and cross-site POSTs ============================================
. "$(dirname "$0")/http-ui.sh"

# === database unavailable =====================================================
if [ "$STORE" = pg ]; then
	# The database server goes away under a running app whose connections
	# are open (a POST and a GET made them), and comes back on the same
	# port: neither the app nor the web server is restarted.
	phase unreachable
	http POST /jobs/$J/checkpoints "{\"triggerId\":\"$TB\"}"
	check "database up: POST" 202 "$(request_id $TB)"
	http GET /jobs/$J/checkpoints/$TB
	check "database up: GET" 200 "$IN_PROGRESS"
	pg_down fast || bail "pg_ctl stop -m fast failed"
	WHAT="database server stopped"
	# Nothing of the URI in an answer: host, port, database, password file.
	SECRETS="$T|127.0.0.1|:$PG_PORT|pgpass|unreachable|postgres"
	DOWN=$CANNOT_OPEN
else
	stop_server
	DB=$T/missing/checkpoints.db
	export CHECKPOINT_DB=$DB
	start_server 2>>"$T/server-stderr.log"
	WHAT="database missing"
	SECRETS="$T|missing|checkpoints.db"
	# Only checkpointctl init makes one: retrying is vain until then.
	DOWN=$NO_DATABASE
fi
no_path() {
	printf '%s' "$BODY" | grep -Fq "$(printf '%s' "$SECRETS" | tr '|' '\n')"
	[ $? -eq 0 ] && echo 1 || echo 0
}
http POST /jobs/$J/checkpoints "{\"triggerId\":\"$TA\"}"
check "$WHAT: POST is 503, the cause named" 503 "$DOWN"
ok "$(no_path)" "$WHAT: POST's error does not show the path"
http GET /jobs/$J/checkpoints/$TA
check "$WHAT: GET is 503, the cause named" 503 "$DOWN"
ok "$(no_path)" "$WHAT: GET's error does not show the path"
http GET /jobs/$J/checkpoints
check "$WHAT: statistics are 503" 503 "$DOWN"
http GET /jobs/$J/checkpoints/details/1
check "$WHAT: details are 503" 503 "$DOWN"
http GET /jobs/$J/checkpoints/config
check "$WHAT: config is 503" 503 "$DOWN"
http GET /jobs/overview
check "$WHAT: the job overview is 503" 503 "$DOWN"
if [ "$STORE" = pg ]; then
	pg_up || bail "pg_ctl start failed"
else
	test ! -e "$T/missing"
	ok $? "$WHAT: nothing made"
	share_dir "$T/missing"
	init_db "$DB"
fi
http POST /jobs/$J/checkpoints "{\"triggerId\":\"$TA\"}"
check "database back: the same server answers 202" 202 "$(request_id $TA)"
http GET /jobs/$J/checkpoints/$TA
check "database back: GET" 200 "$IN_PROGRESS"
http GET /jobs/$J/checkpoints/$TA
check "database back: GET again" 200 "$IN_PROGRESS"
if [ "$STORE" = pg ]; then
	http GET /jobs/$J/checkpoints/$TB
	check "database back: the trigger from before it went is there" 200 \
	    "$IN_PROGRESS"
	is "$(sql "SELECT count(*) FROM triggers")" 2 \
	    "database back: the two triggers answered 202, no more"
	# A restart that no request sees (pg_ctl restart, a failover): the
	# connections the app holds are dead, the database is there; every
	# request after it is answered as ever, none with a 503.
	for _mode in fast immediate; do
		pg_down "$_mode" && pg_up || bail "pg_ctl restart -m $_mode"
		_codes=
		for _i in 1 2 3 4; do
			_t=$(printf '%08x%024x' "$_i" "$(printf '%s' "$_mode" | wc -c)")
			http POST /jobs/$J/checkpoints "{\"triggerId\":\"$_t\"}"
			_codes="$_codes $STATUS"
			http GET /jobs/$J/checkpoints/$_t
			_codes="$_codes $STATUS"
		done
		is "$_codes" " 202 200 202 200 202 200 202 200" \
		    "restart -m $_mode unseen by the app: the next POSTs and GETs answered"
	done
fi

# === mounted under /api =======================================================
# BASE ends in /api now: the paths below are relative to the mount point.
MOUNT=/api
phase prefix
TM=12121212121212121212121212121212
http POST /jobs/$J/checkpoints "{\"triggerId\":\"$TM\"}"
check "under /api: POST" 202 "$(request_id $TM)"
http GET /jobs/$J/checkpoints/$TM
check "under /api: GET" 200 "$IN_PROGRESS"
http GET /v1/jobs/$J/checkpoints/$TM/
check "under /api: GET under /api/v1 with a trailing slash" 200 "$IN_PROGRESS"
http PUT /jobs/$J/checkpoints
check_like "under /api: 405" 405 "$ERRORS_RE"
http GET /metrics
is "$STATUS" 200 "under /api: GET /metrics"
http GET "/nope?a=1"
check "under /api: unknown path: the message has the whole URI" 404 \
    '{"errors":["Not found: /api/nope?a=1"]}'
http GET /
check "under /api: /api/ itself is an unknown path" 404 '{"errors":["Not found: /api/"]}'
http GET /ui
is "$STATUS $(header location)" "302 ui/" "under /api: /api/ui redirects to ui/"
http GET /ui/
is "$STATUS" 200 "under /api: /api/ui/ is the page"
STATUS=$(curl -s -o "$T/resp-body" -w '%{http_code}' \
    "http://127.0.0.1:$PORT/jobs/$J/checkpoints/$TM")
is "$STATUS $(grep -c '^{"errors"' "$T/resp-body")" "404 0" \
    "under /api: a path outside the mount gets the server's own 404"
MOUNT=

# === HTTP Basic authentication by the server ==================================
AUTH=1
phase auth
http GET /jobs/$J/checkpoints/$TA
is "$STATUS" 401 "auth: no credentials: the server's own 401"
like "$(header www-authenticate)" '^Basic realm="checkpoint-api"' \
    "auth: no credentials: WWW-Authenticate: Basic"
HTTP_USER=alice:wrong
http POST /jobs/$J/checkpoints "{\"triggerId\":\"$TA\"}"
is "$STATUS" 401 "auth: a wrong password: the server's own 401"
HTTP_USER=alice:$AUTH_PASSWORD
http POST /jobs/$J/checkpoints "{\"triggerId\":\"$TA\"}"
check "auth: alice's POST" 202 "$(request_id $TA)"
is "$(sql "SELECT count(*) FROM triggers")" 1 "auth: the refused POST recorded nothing"
http GET /jobs/$J/checkpoints/$TA
check "auth: alice's GET" 200 "$IN_PROGRESS"
is "$(sql "SELECT remote_user || ' ' || remote_addr FROM triggers WHERE trigger_id='$TA'")" \
    "alice 127.0.0.1" "auth: REMOTE_USER and REMOTE_ADDR recorded with the trigger"
like "$("$CTL" triggers --job $J | grep $TA)" " alice@127\.0\.0\.1 " \
    "auth: checkpointctl triggers shows alice@127.0.0.1"
HTTP_USER=
AUTH=

done_testing
