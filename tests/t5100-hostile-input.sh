#!/bin/sh
# Hostile input (README.md, "Security"; checkpoint-api(7), "IDENTIFIERS",
# "ENDPOINTS" and "ERRORS"): SQL in the path ids and in the body, path
# traversal, NUL and control bytes, invalid UTF-8 in the path and in the body,
# deeply nested JSON, duplicate keys, thousands of unknown fields, triggerIds
# of every wrong length, a 10 MB body, a CONTENT_LENGTH that lies, a
# REMOTE_USER past its bound, and savepoint directories and disposal paths
# that are long, relative, traversing or written for a shell.  Each
# case checks the exact answer (the app's JSON, or lighttpd's own page where
# lighttpd refuses the request before the app sees it), that nothing was
# recorded (or exactly the one trigger it asked for), and that the app keeps
# serving: a valid POST afterwards answers 202 from the same FastCGI process.
# Lying CONTENT_LENGTHs need the FastCGI binary driven directly
# (checkpoint-api.fcgi -s, cgi-fcgi), since a web server fixes them.
#
# Duplicate keys, as the app behaves: the last occurrence wins, whatever
# an earlier one held (even a value that alone would be a 400).
#
# body() takes printf escapes on purpose (NUL and invalid UTF-8 bytes);
# app_pids joins pgrep's lines.
# shellcheck disable=SC2005,SC2059

. "$(dirname "$0")/lib.sh"

for c in lighttpd sqlite3 curl cgi-fcgi pgrep awk; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing"
done

unset CHECKPOINT_STORE_DURATION CHECKPOINT_MAX_BODY CHECKPOINT_CORS_ORIGIN \
    CHECKPOINT_REJECT_UNKNOWN_JOBS CHECKPOINT_BUSY_TIMEOUT CHECKPOINT_SYNC
CHECKPOINT_PROCS=1
export CHECKPOINT_PROCS

J=0123456789abcdef0123456789abcdef
TID=abcdef0123456789abcdef0123456789
JSON_CT='application/json; charset=UTF-8'
BAD_BODY='{"errors":["Request did not match expected format CheckpointTriggerRequestBody."]}'
BAD_LENGTH='{"errors":["Bad request received: the body does not match its Content-Length."]}'
TOO_LARGE='{"errors":["Request entity too large: the limit is 65536 bytes. Try to raise [CHECKPOINT_MAX_BODY]"]}'
REQUEST_ID_RE='^\{"request-id":"[0-9a-f]{32}"\}$'

bad_param() {
	printf '{"errors":["Bad request, could not parse parameters: Cannot resolve path parameter (%s) from value \\"%s\\"."]}' "$1" "$2"
}
not_found() {
	printf '{"errors":["Not found: %s"]}' "$1"
}
request_id() {
	printf '{"request-id":"%s"}' "$1"
}

rows() {
	sql "SELECT count(*) FROM triggers"
}

# The FastCGI processes our lighttpd runs now, on one line.
app_pids() {
	echo $(pgrep -P "$LIGHTTPD_PID")
}

# req METHOD PATH [BODY-FILE]: one request through lighttpd, the path sent
# exactly as written (no dot-segment squashing) and the body taken from a
# file, NUL bytes and all.  Sets STATUS, BODY and HEADERS as lib.sh's http.
req() {
	if [ "$1" = GET ]; then
		STATUS=$(curl -s -g --path-as-is -o "$T/resp-body" \
		    -D "$T/resp-head" -w '%{http_code}' "$BASE$2")
	else
		STATUS=$(curl -s -g --path-as-is -o "$T/resp-body" \
		    -D "$T/resp-head" -w '%{http_code}' -X "$1" \
		    --data-binary "@${3:-/dev/null}" "$BASE$2")
	fi
	BODY=$(cat "$T/resp-body")
	HEADERS=$(tr -d '\r' < "$T/resp-head" |
	    awk 'BEGIN { FS = OFS = ": " } { $1 = tolower($1); print }')
}

# post_body BODY-FILE: POST it to the job's trigger route.
post_body() {
	req POST "/jobs/$J/checkpoints" "$1"
}

# body TEXT: TEXT (printf escapes and all) into $T/body; echoes the path.
body() {
	printf "$1" > "$T/body"
	echo "$T/body"
}

# begin: remembers the row count before a case.
begin() {
	ROWS=$(rows)
}

# answer NAME CODE BODY: the app answered the last request with exactly
# this status and JSON body.
answer() {
	is "$STATUS|$(header content-type)|$BODY" "$2|$JSON_CT|$3" "$1: $2, exact body"
}

# server_answer NAME CODE TITLE: lighttpd answered the last request itself
# with its own page; the app never saw it.
server_answer() {
	is "$STATUS|$(header content-type)|$(printf '%s' "$BODY" |
	    sed -n 's:.*<title>\(.*\)</title>.*:\1:p')" "$2|text/html|$3" \
	    "$1: lighttpd's own $2 page"
}

SEQ=0
# survives NAME [ADDED]: ADDED (default 0) rows were recorded since begin,
# and the app still serves: a valid POST answers 202 from the same pid.
survives() {
	_rows=$(rows)
	SEQ=$((SEQ + 1))
	_tid=$(printf '5afe%028x' "$SEQ")
	http POST "/jobs/$J/checkpoints" "{\"triggerId\":\"$_tid\"}"
	is "rows +$((_rows - ROWS)); $STATUS $BODY; pid $(app_pids)" \
	    "rows +${2:-0}; 202 $(request_id "$_tid"); pid $FCGI_PID" \
	    "$1: recorded ${2:-nothing} and still serving (same FastCGI pid)"
}

# row TID: requested_type of that trigger of J, if recorded.
row() {
	sql "SELECT requested_type FROM triggers WHERE job_id = '$J' AND trigger_id = '$1'"
}

"$CTL" init >/dev/null || bail "checkpointctl init failed"
start_lighttpd 2>>"$T/lighttpd-stderr.log"
i=0
while [ "$(app_pids)" = "" ] && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
FCGI_PID=$(app_pids)
like "$FCGI_PID" '^[0-9]+$' "lighttpd runs one FastCGI process"

# --- SQL in the ids ----------------------------------------------------------

begin
req GET "/jobs/'%20OR%201=1--/checkpoints/$TID"
answer "GET, jobid ' OR 1=1--" 400 "$(bad_param jobid "' OR 1=1--")"
survives "GET, jobid ' OR 1=1--"

begin
req POST "/jobs/'%20OR%201=1--/checkpoints"
answer "POST, jobid ' OR 1=1--" 400 "$(bad_param jobid "' OR 1=1--")"
survives "POST, jobid ' OR 1=1--"

begin
req GET "/jobs/$J/checkpoints/'%20OR%20'1'='1"
answer "GET, triggerid ' OR '1'='1" 400 "$(bad_param triggerid "' OR '1'='1")"
survives "GET, triggerid ' OR '1'='1"

begin
req GET "/jobs/$J/checkpoints/x'%3B%20DROP%20TABLE%20triggers%3B--"
answer "GET, triggerid x'; DROP TABLE triggers;--" 400 \
    "$(bad_param triggerid "x'; DROP TABLE triggers;--")"
survives "GET, triggerid x'; DROP TABLE triggers;--"

# 32 characters, as long as an id, but not hex.
begin
req GET "/jobs/$J/checkpoints/0'%20OR%20'1'='1'%20--%20aaaaaaaaaaaaaaa"
answer "GET, 32-character triggerid with SQL" 400 \
    "$(bad_param triggerid "0' OR '1'='1' -- aaaaaaaaaaaaaaa")"
survives "GET, 32-character triggerid with SQL"

begin
post_body "$(body '{"triggerId":"'"'"' OR 1=1--"}')"
answer "POST, body triggerId ' OR 1=1--" 400 "$BAD_BODY"
survives "POST, body triggerId ' OR 1=1--"

begin
post_body "$(body '{"triggerId":"'"'"');DROP TABLE triggers;--aaaaaaa"}')"
answer "POST, body triggerId of 32 characters with SQL" 400 "$BAD_BODY"
survives "POST, body triggerId of 32 characters with SQL"

is "$(sql "SELECT count(*) FROM sqlite_master WHERE name IN ('jobs', 'triggers', 'checkpoint_counters')")" 3 \
    "after the SQL cases every table is still there"

# Long bad ids are echoed whole, as Flink does, multibyte characters and all.
begin
LONG=$(head -c 3000 /dev/zero | tr '\0' z)
req GET "/jobs/$LONG/checkpoints/$TID"
answer "GET, a jobid of 3000 characters" 400 "$(bad_param jobid "$LONG")"
survives "GET, a jobid of 3000 characters"
begin
req GET "/jobs/$J/checkpoints/$(awk 'BEGIN { for (i = 0; i < 200; i++) printf "%%C3%%A9" }')"
answer "GET, a triggerid of 200 two-byte characters" 400 \
    "$(bad_param triggerid "$(awk 'BEGIN { for (i = 0; i < 200; i++) printf "\303\251" }')")"
survives "GET, a triggerid of 200 two-byte characters"

# --- path traversal -----------------------------------------------------------
# lighttpd decodes %2F and squashes dot segments before the app routes on
# PATH_INFO: more segments than any route, so the app's 404 with
# REQUEST_URI as sent.  %5C is a backslash, JSON-escaped in the echo; %25
# is decoded once, never twice.

begin
req GET "/jobs/$J/checkpoints/..%2F..%2Fetc%2Fpasswd"
answer "GET, triggerid ..%2F..%2Fetc%2Fpasswd" 404 \
    "$(not_found "/jobs/$J/checkpoints/..%2F..%2Fetc%2Fpasswd")"
survives "GET, triggerid ..%2F..%2Fetc%2Fpasswd"

begin
req GET "/jobs/..%2F..%2Fetc%2Fpasswd/checkpoints/$TID"
answer "GET, jobid ..%2F..%2Fetc%2Fpasswd" 404 \
    "$(not_found "/jobs/..%2F..%2Fetc%2Fpasswd/checkpoints/$TID")"
survives "GET, jobid ..%2F..%2Fetc%2Fpasswd"

begin
req POST "/jobs/..%2F..%2Fetc%2Fpasswd/checkpoints"
answer "POST, jobid ..%2F..%2Fetc%2Fpasswd" 404 \
    "$(not_found "/jobs/..%2F..%2Fetc%2Fpasswd/checkpoints")"
survives "POST, jobid ..%2F..%2Fetc%2Fpasswd"

begin
req GET "/jobs/$J/checkpoints/../../../../etc/passwd"
answer "GET, literal ../../../../etc/passwd" 404 \
    "$(not_found "/jobs/$J/checkpoints/../../../../etc/passwd")"
survives "GET, literal ../../../../etc/passwd"

begin
req GET "/jobs/$J/checkpoints/%2e%2e%2f%2e%2e%2fetc%2fpasswd"
answer "GET, triggerid %2e%2e%2f%2e%2e%2fetc%2fpasswd" 404 \
    "$(not_found "/jobs/$J/checkpoints/%2e%2e%2f%2e%2e%2fetc%2fpasswd")"
survives "GET, triggerid %2e%2e%2f%2e%2e%2fetc%2fpasswd"

begin
req GET "/jobs/$J/checkpoints/..%5C..%5Cetc%5Cpasswd"
answer "GET, triggerid ..%5C..%5Cetc%5Cpasswd" 400 \
    "$(bad_param triggerid '..\\..\\etc\\passwd')"
survives "GET, triggerid ..%5C..%5Cetc%5Cpasswd"

begin
req GET "/jobs/..%252F..%252Fetc%252Fpasswd/checkpoints/$TID"
answer "GET, jobid ..%252F..%252Fetc%252Fpasswd (decoded once)" 400 \
    "$(bad_param jobid "..%2F..%2Fetc%2Fpasswd")"
survives "GET, jobid ..%252F..%252Fetc%252Fpasswd (decoded once)"

# --- NUL and control bytes ----------------------------------------------------
# lighttpd refuses control characters in the decoded path itself.

begin
req GET "/jobs/$J/checkpoints/$TID%00"
server_answer "GET, triggerid with %00" 400 "400 Bad Request"
survives "GET, triggerid with %00"

begin
req POST "/jobs/$J%00/checkpoints"
server_answer "POST, jobid with %00" 400 "400 Bad Request"
survives "POST, jobid with %00"

begin
req GET "/jobs/%00/checkpoints/$TID"
server_answer "GET, jobid %00" 400 "400 Bad Request"
survives "GET, jobid %00"

begin
req GET "/jobs/$J/checkpoints/%01"
server_answer "GET, triggerid %01" 400 "400 Bad Request"
survives "GET, triggerid %01"

begin
req GET "/jobs/$J/checkpoints/%0a"
server_answer "GET, triggerid %0a" 400 "400 Bad Request"
survives "GET, triggerid %0a"

begin
post_body "$(body '{"triggerId":"\000aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}')"
answer "POST, a raw NUL byte in the body" 400 "$BAD_BODY"
survives "POST, a raw NUL byte in the body"

begin
post_body "$(body '{}\000')"
answer "POST, a raw NUL byte after {}" 400 "$BAD_BODY"
survives "POST, a raw NUL byte after {}"

begin
post_body "$(body '{"triggerId":"ddddddddddddddddddddddddddddddd\\u0000"}')"
answer "POST, triggerId ending in \\u0000" 400 "$BAD_BODY"
survives "POST, triggerId ending in \\u0000"

begin
post_body "$(body '{"checkpointType":"FULL\\u0000"}')"
answer "POST, checkpointType FULL\\u0000" 400 "$BAD_BODY"
survives "POST, checkpointType FULL\\u0000"

begin
post_body "$(body '{"triggerId":"aaaaaaaaaaaaaaaa\001aaaaaaaaaaaaaaa"}')"
answer "POST, a raw control character in a string" 400 "$BAD_BODY"
survives "POST, a raw control character in a string"

# --- invalid UTF-8 ------------------------------------------------------------

begin
req GET "/jobs/$J/checkpoints/%ff"
server_answer "GET, triggerid %ff" 400 "400 Bad Request"
survives "GET, triggerid %ff"

begin
req GET "/jobs/$J/checkpoints/%c3%28"
answer "GET, triggerid %c3%28 (invalid UTF-8 echoed as U+FFFD)" 400 \
    "$(bad_param triggerid '\ufffd(')"
survives "GET, triggerid %c3%28"

begin
req GET "/jobs/%c3%a9/checkpoints/$TID"
answer "GET, jobid %c3%a9 (valid UTF-8 echoed as is)" 400 \
    "$(bad_param jobid "$(printf '\303\251')")"
survives "GET, jobid %c3%a9"

# LABEL=BYTES (printf escapes); the labels keep the TAP lines plain text.
for u in 'byte 0xff=\377' 'overlong 0xc0 0xaf=\300\257' \
    'surrogate 0xed 0xa0 0x80=\355\240\200' 'truncated 0xc3=\303' \
    'above U+10FFFF 0xf4 0x90 0x80 0x80=\364\220\200\200' \
    'five bytes 0xf8 0x88 0x80 0x80 0x80=\370\210\200\200\200'; do
	begin
	post_body "$(body '{"x":"'"${u#*=}"'"}')"
	answer "POST, invalid UTF-8 in a string (${u%%=*})" 400 "$BAD_BODY"
	survives "POST, invalid UTF-8 in a string (${u%%=*})"
done

begin
post_body "$(body '{"\377":1}')"
answer "POST, invalid UTF-8 in a key" 400 "$BAD_BODY"
survives "POST, invalid UTF-8 in a key"

begin
SEQ=$((SEQ + 1))
T_UTF8=$(printf 'c0de%028x' "$SEQ")
post_body "$(body '{"x":"caf\303\251 \360\237\230\200","triggerId":"'"$T_UTF8"'"}')"
answer "POST, valid UTF-8 in an unknown field" 202 "$(request_id "$T_UTF8")"
survives "POST, valid UTF-8 in an unknown field" 1

# --- deep nesting -------------------------------------------------------------

nest() {
	awk -v n="$1" -v o="$2" -v c="$3" 'BEGIN {
	    for (i = 0; i < n; i++) printf "%s", o
	    printf "1"
	    for (i = 0; i < n; i++) printf "%s", c }' > "$T/body"
	echo "$T/body"
}

begin
post_body "$(nest 100 '{"a":' '}')"
answer "POST, objects nested 100 deep" 400 "$BAD_BODY"
survives "POST, objects nested 100 deep"

begin
post_body "$(nest 100 '[' ']')"
answer "POST, arrays nested 100 deep" 400 "$BAD_BODY"
survives "POST, arrays nested 100 deep"

begin
post_body "$(nest 30000 '[' ']')"
answer "POST, arrays nested 30000 deep (60 KB)" 400 "$BAD_BODY"
survives "POST, arrays nested 30000 deep"

begin
post_body "$(nest 100 '{"triggerId":' '}')"
answer "POST, triggerId nested 100 deep" 400 "$BAD_BODY"
survives "POST, triggerId nested 100 deep"

# --- duplicate keys: the last one wins ------------------------------------------

A=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
B=bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb
C=cccccccccccccccccccccccccccccccc
D=dddddddddddddddddddddddddddddddd
E=eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee

begin
post_body "$(body '{"triggerId":"'$A'","triggerId":"'$B'"}')"
answer "POST, triggerId A then B" 202 "$(request_id $B)"
is "$(row $A)|$(row $B)" "|CONFIGURED" "POST, triggerId A then B: B recorded, A not"
survives "POST, triggerId A then B" 1

begin
post_body "$(body '{"triggerId":5,"triggerId":"'$C'"}')"
answer "POST, triggerId 5 then C (an earlier bad value is overridden)" 202 "$(request_id $C)"
survives "POST, triggerId 5 then C" 1

begin
post_body "$(body '{"triggerId":"'$D'","triggerId":5}')"
answer "POST, triggerId D then 5" 400 "$BAD_BODY"
survives "POST, triggerId D then 5"

begin
post_body "$(body '{"triggerId":"'$D'","triggerId":null}')"
like "$STATUS $BODY" "^202 \{\"request-id\":\"[0-9a-f]{32}\"\}$" \
    "POST, triggerId D then null: 202 with a random id"
is "$(printf '%s' "$BODY" | cut -d'"' -f4 | grep -cx "$D")|$(row "$D")" "0|" \
    "POST, triggerId D then null: D neither answered nor recorded"
survives "POST, triggerId D then null" 1

begin
post_body "$(body '{"checkpointType":"bogus","checkpointType":"FULL","triggerId":"'$E'"}')"
answer "POST, checkpointType bogus then FULL" 202 "$(request_id $E)"
is "$(row $E)" FULL "POST, checkpointType bogus then FULL: recorded as FULL"
survives "POST, checkpointType bogus then FULL" 1

begin
post_body "$(body '{"checkpointType":"FULL","checkpointType":"bogus"}')"
answer "POST, checkpointType FULL then bogus" 400 "$BAD_BODY"
survives "POST, checkpointType FULL then bogus"

# --- unknown fields ------------------------------------------------------------

# fields N DISTINCT TID: {"f0":0,...} with N fields (all named "f" unless
# DISTINCT is 1), then "triggerId":TID.
fields() {
	awk -v n="$1" -v d="$2" -v tid="$3" 'BEGIN {
	    printf "{"
	    for (i = 0; i < n; i++) printf "\"f%s\":0,", d ? i : ""
	    printf "\"triggerId\":\"%s\"}", tid }' > "$T/body"
	echo "$T/body"
}
F1=f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1f1
F2=f2f2f2f2f2f2f2f2f2f2f2f2f2f2f2f2
F3=f3f3f3f3f3f3f3f3f3f3f3f3f3f3f3f3

begin
post_body "$(fields 10000 1 "$F1")"
diag "10,000 distinct unknown fields: $(wc -c < "$T/body" | tr -d ' ') bytes"
answer "POST, 10,000 distinct unknown fields (over 64 KiB)" 413 "$TOO_LARGE"
survives "POST, 10,000 distinct unknown fields"

begin
post_body "$(fields 10000 0 "$F2")"
diag "10,000 copies of one unknown field: $(wc -c < "$T/body" | tr -d ' ') bytes"
answer "POST, 10,000 copies of one unknown field (under 64 KiB)" 202 "$(request_id "$F2")"
survives "POST, 10,000 copies of one unknown field" 1

begin
post_body "$(fields 5000 1 "$F3")"
diag "5,000 distinct unknown fields: $(wc -c < "$T/body" | tr -d ' ') bytes"
answer "POST, 5,000 distinct unknown fields (under 64 KiB)" 202 "$(request_id "$F3")"
survives "POST, 5,000 distinct unknown fields" 1

# --- a 10 MB body: lighttpd's server.max-request-size (1 MiB) refuses it ---------

begin
head -c 10485760 /dev/zero | tr '\0' ' ' > "$T/big"
req POST "/jobs/$J/checkpoints" "$T/big"
server_answer "POST, a 10 MB body" 413 "413 Payload Too Large"
survives "POST, a 10 MB body"
rm -f "$T/big"

# --- triggerIds of every wrong length -------------------------------------------

n=0
while [ "$n" -le 64 ]; do
	if [ "$n" -ne 32 ]; then
		id=
		[ "$n" -gt 0 ] && id=$(printf '%064x' 0 | tr 0 a | cut -c1-"$n")
		begin
		post_body "$(body '{"triggerId":"'"$id"'"}')"
		answer "POST, body triggerId of length $n" 400 "$BAD_BODY"
		survives "POST, body triggerId of length $n"
		begin
		req GET "/jobs/$J/checkpoints/$id"
		if [ "$n" -eq 0 ]; then
			# /jobs/J/checkpoints/ is the statistics of J,
			# not registered here.
			answer "GET, path triggerid of length 0" 404 \
			    "{\"errors\":[\"Job $J not found\"]}"
		else
			answer "GET, path triggerid of length $n" 400 \
			    "$(bad_param triggerid "$id")"
		fi
		survives "GET, path triggerid of length $n"
	fi
	n=$((n + 1))
done

# --- a CONTENT_LENGTH that lies: the FastCGI binary driven directly ---------------

CONNECT=$T/app.sock
spawn "$API" -s "$CONNECT" 2>>"$T/app.log"
DIRECT=$LAST_PID

# fcgi CONTENT_LENGTH BODY-FILE [PATH_INFO]: one POST through cgi-fcgi;
# sets STATUS (the Status line's code), CTYPE and BODY.
fcgi() {
	_pi=${3:-/jobs/$J/checkpoints}
	env -i REQUEST_METHOD=POST PATH_INFO="$_pi" REQUEST_URI="$_pi" \
	    REMOTE_ADDR=192.0.2.7 CONTENT_LENGTH="$1" \
	    ${FCGI_USER:+REMOTE_USER=$FCGI_USER} \
	    cgi-fcgi -bind -connect "$CONNECT" < "$2" > "$T/fcgi-out" 2>&1
	STATUS=$(sed -n 's/^Status: \([0-9]*\) .*/\1/p' "$T/fcgi-out")
	CTYPE=$(sed -n 's/^Content-Type: \(.*\)\r$/\1/p' "$T/fcgi-out")
	BODY=$(sed '1,/^\r$/d' "$T/fcgi-out")
}

# fanswer NAME CODE BODY: the exact answer of the last fcgi call.
fanswer() {
	is "$STATUS|$CTYPE|$BODY" "$2|$JSON_CT|$3" "$1: $2, exact body"
}

# fsurvives NAME [ADDED]: as survives, for the directly driven process.
fsurvives() {
	_rows=$(rows)
	SEQ=$((SEQ + 1))
	_tid=$(printf '5afe%028x' "$SEQ")
	printf '{"triggerId":"%s"}' "$_tid" > "$T/ok-body"
	fcgi 48 "$T/ok-body"
	_alive=dead
	kill -0 "$DIRECT" 2>/dev/null && _alive=alive
	is "rows +$((_rows - ROWS)); $STATUS $BODY; $_alive" \
	    "rows +${2:-0}; 202 $(request_id "$_tid"); alive" \
	    "$1: recorded ${2:-nothing} and still serving (same process)"
}

i=0
until [ -S "$CONNECT" ] || [ $i -ge 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
begin
fsurvives "checkpoint-api.fcgi -s: a valid POST with CONTENT_LENGTH 48"

printf '{"triggerId":"%s"}' "$TID" > "$T/b48"
is "$(wc -c < "$T/b48" | tr -d ' ')" 48 "the test body is 48 bytes"

begin
fcgi 100 "$T/b48"
fanswer "CONTENT_LENGTH 100 for a 48-byte body" 400 "$BAD_LENGTH"
fsurvives "CONTENT_LENGTH 100 for a 48-byte body"

begin
fcgi 65536 "$T/b48"
fanswer "CONTENT_LENGTH 65536 (the limit) for a 48-byte body" 400 "$BAD_LENGTH"
fsurvives "CONTENT_LENGTH 65536 for a 48-byte body"

begin
fcgi 5 "$T/b48"
fanswer "CONTENT_LENGTH 5 for a 48-byte body (only {\"tri is read)" 400 "$BAD_BODY"
fsurvives "CONTENT_LENGTH 5 for a 48-byte body"

begin
TG=99999999999999999999999999999999
printf '{"triggerId":"%s"}{"triggerId":"%s"}' "$TG" "$TID" > "$T/b96"
fcgi 48 "$T/b96"
fanswer "CONTENT_LENGTH 48 for a 96-byte body (only the first object is read)" 202 \
    "$(request_id "$TG")"
is "$(row "$TG")|$(row "$TID")" "CONFIGURED|" \
    "CONTENT_LENGTH 48 for a 96-byte body: the first trigger recorded, not the second"
fsurvives "CONTENT_LENGTH 48 for a 96-byte body" 1

for cl in -1 abc ' 12' '12 ' +48 0x30 4.8e1 '48;' -0; do
	begin
	fcgi "$cl" "$T/b48"
	fanswer "CONTENT_LENGTH \"$cl\"" 400 "$BAD_LENGTH"
	fsurvives "CONTENT_LENGTH \"$cl\""
done

for cl in 99999999999999999999 18446744073709551616 65537; do
	begin
	fcgi "$cl" "$T/b48"
	fanswer "CONTENT_LENGTH $cl" 413 "$TOO_LARGE"
	fsurvives "CONTENT_LENGTH $cl"
done

for cl in '' 0 000; do
	begin
	fcgi "$cl" "$T/b48"
	is "$STATUS|$CTYPE|$(printf '%s' "$BODY" | grep -Ec "$REQUEST_ID_RE")|$(row "$TID")" \
	    "202|$JSON_CT|1|" \
	    "CONTENT_LENGTH \"$cl\": no body read, 202 with a random id"
	fsurvives "CONTENT_LENGTH \"$cl\"" 1
done

# Invalid UTF-8 in PATH_INFO itself (lighttpd refuses some of it first).
begin
: > "$T/empty"
fcgi 0 "$T/empty" "$(printf '/jobs/\377\376/checkpoints')"
fanswer "PATH_INFO with bytes 0xff 0xfe as the jobid" 400 \
    "$(bad_param jobid '\ufffd\ufffd')"
fsurvives "PATH_INFO with bytes 0xff 0xfe as the jobid"

# The caller the web server names is kept with every POST, so bounded.
begin
printf '{"triggerId":"%s"}' 5afec0000000000000000000000000c1 > "$T/bu"
FCGI_USER=$(printf '%0257d' 0)
fcgi 48 "$T/bu"
fanswer "REMOTE_USER of 257 bytes" 400 \
    '{"errors":["Field REMOTE_USER is refused: it is longer than 256 bytes."]}'
FCGI_USER=$(printf '%0256d' 0)
fcgi 48 "$T/bu"
fanswer "REMOTE_USER of 256 bytes" 202 "$(request_id 5afec0000000000000000000000000c1)"
unset FCGI_USER
fsurvives "REMOTE_USER past its bound" 1

# --- savepoint directories and disposal paths (checkpoint-api(7),
# "Directories and paths"): refused before anything is stored -----------------

sql "INSERT INTO jobs (job_id, savepoint_dir, created_ms, updated_ms)
    VALUES ('$J', 'file:/sp', 0, 0)" >/dev/null
refused() {
	printf '{"errors":["Field %s is refused: %s."]}' "$1" "$2"
}
sp_rows() {
	sql "SELECT (SELECT count(*) FROM savepoints) + (SELECT count(*)
	    FROM savepoint_disposals)"
}
# hostile NAME BODY FIELD WHY: the savepoint POST, then the disposal's.
hostile() {
	begin
	req POST "/jobs/$J/savepoints" "$(body "{\"target-directory\":$2}")"
	answer "savepoint, $1" 400 "$(refused target-directory "$4")"
	req POST "/jobs/$J/stop" "$(body "{\"targetDirectory\":$2}")"
	answer "stop, $1" 400 "$(refused targetDirectory "$4")"
	is "$(sp_rows)" 0 "$1: no savepoint recorded"
	survives "$1"
}
CHARS="it holds a character other than letters, digits and - . _ ~ / : @ % + = ,"
hostile "NUL in the directory" '"file:/sp/a\\u0000b"' - "it holds a NUL or a noncharacter"
begin
req POST /savepoint-disposal "$(body '{"savepoint-path":"file:/sp/a\\u0000b"}')"
answer "disposal, NUL in the path" 400 "$(refused savepoint-path "it holds a NUL or a noncharacter")"
is "$(sp_rows)" 0 "NUL: nothing recorded"
survives "NUL in a directory or path"
hostile "a newline" '"file:/sp/a\\nb"' - "it holds a control character"
hostile "a path traversal" '"file:/sp/../../etc"' - "it holds a . or .. segment"
hostile "a relative directory" '"file:etc"' - "it is not an absolute path"
hostile "options for tar" '"file:/sp/x --checkpoint=1 --checkpoint-action=exec=sh"' - "$CHARS"
hostile "a command substitution" '"file:/sp/$(id)"' - "$CHARS"
hostile "60 KB" "\"file:/sp/$(printf '%061440d' 0)\"" - "it is longer than 4096 bytes"
begin
req POST /savepoint-disposal "$(body "{\"savepoint-path\":\"file:/$(printf '%061440d' 0)\"}")"
answer "disposal, a 60 KB path" 400 "$(refused savepoint-path "it is longer than 4096 bytes")"
req POST /savepoint-disposal "$(body '{"savepoint-path":"file:/a\\nb"}')"
answer "disposal, a newline" 400 "$(refused savepoint-path "it holds a control character")"
is "$(sp_rows)" 0 "disposals refused: nothing recorded"
survives "disposals refused"

is "$(sql "PRAGMA integrity_check")" ok "PRAGMA integrity_check is ok"
is "$(sql "SELECT count(*) FROM triggers WHERE job_id != '$J'")" 0 \
    "every trigger recorded belongs to the one job"

done_testing
