#!/bin/sh
# The OpenAPI document (cgi/checkpoint-api.openapi.json) against the live
# app behind lighttpd, so that neither can drift from the other: jobs made
# with checkpointctl, triggers completed, failed and left running by
# checkpoint-runner, then every endpoint with its success and its errors
# (400, 404, 405, 413, 503, unknown paths), each answer checked by
# tests/openapi-check (status, content type, body against the schema).
# Then coverage, both ways: every route of the app's route table
# (cgi/route.c) is documented, and every method, path and status the
# document lists was answered here (but 500, which no request can
# provoke: it is the answer to a fault of the service itself).  An
# operation documented and not routed fails too.

. "$(dirname "$0")/lib.sh"

for c in lighttpd curl sqlite3; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing"
done
unset CHECKPOINT_STORE_DURATION CHECKPOINT_MAX_BODY CHECKPOINT_CORS_ORIGIN \
    CHECKPOINT_REJECT_UNKNOWN_JOBS CHECKPOINT_BUSY_TIMEOUT CHECKPOINT_SYNC \
    CHECKPOINT_METRICS CHECKPOINT_METRICS_FILTER

CHECK=$top_builddir/tests/openapi-check
DOC=$top_srcdir/cgi/checkpoint-api.openapi.json
EXERCISED=$T/exercised
: > "$EXERCISED"

J=0123456789abcdef0123456789abcdef # completes its checkpoints
JF=fa11fa11fa11fa11fa11fa11fa11fa11 # its action fails
JR=4444444444444444444444444444444a # running: its trigger is left alone
JX=dddddddddddddddddddddddddddddddd # not registered
JS=5105105105105105105105105105105a # its action waits for $T/go
JC=cccccccccccccccccccccccccccccccc # canceled, never checkpointed
TJ=11111111111111111111111111111111
TF=22222222222222222222222222222222
TR=33333333333333333333333333333333
TX=44444444444444444444444444444444
TS=55555555555555555555555555555555

# answer NAME METHOD PATH [BODY]: one request; its answer must be what the
# document says of it.  What it matched is recorded for the coverage.
answer() {
	_name=$1
	shift
	http "$@"
	if "$CHECK" "$DOC" "$1" "$2" "$STATUS" "$(header content-type)" \
	    "$T/resp-body" >> "$EXERCISED" 2> "$T/check-err"; then
		ok 0 "$_name: $1 $2: $STATUS as documented"
	else
		ok 1 "$_name: $1 $2: $STATUS as documented"
		diag "$(cat "$T/check-err")" "body: $(head -c 600 "$T/resp-body")"
	fi
}

# answer_is NAME STATUS METHOD PATH [BODY]: the same, and the status is
# STATUS (so that the case is the one its name says).
answer_is() {
	_name=$1 _want=$2
	shift 2
	answer "$_name" "$@"
	is "$STATUS" "$_want" "$_name: status"
}

# not_allowed NAME METHOD PATH: a 405 whose Allow names exactly the methods
# the document lists for the path (those this build serves: see coverage).
not_allowed() {
	answer_is "$1" 405 "$2" "$3"
	set -- $("$CHECK" -a "$DOC" "$3")
	_g=$(echo "$1" | generic)
	shift
	is "$(header allow | tr ', ' '\n\n' | grep . | sort | tr '\n' ' ')" \
	    "$(for _m; do
		grep -qxF "$_m $_g" "$T/served-ops" && echo "$_m"
	    done | sort | tr '\n' ' ')" "$_name: Allow lists the document's methods"
}

# "METHOD TEMPLATE" of every route in cgi/route.c's table ($T/table),
# parameters as {}: the table's rows, joined, each { ROUTE_X, "METHOD",
# ..., { "jobs", NULL, "checkpoints" } }: its first quoted word and its
# last braces.
routes() {
	tr '\n' ' ' < "$T/table" |
	    sed 's/{ *ROUTE_/\
&/g' | grep '^{ *ROUTE_' |
	    awk '{
		match($0, /"[A-Z]+"/)
		out = substr($0, RSTART + 1, RLENGTH - 2) " "
		s = $0
		sub(/.*\{/, "", s)
		sub(/\}.*/, "", s)
		n = split(s, seg, ",")
		for (i = 1; i <= n; i++) {
			x = seg[i]
			gsub(/[ \t"]/, "", x)
			if (x != "")
				out = out "/" (x == "NULL" ? "{}" : x)
		}
		print out
	    }'
}
# The documented "METHOD TEMPLATE STATUS" lines with parameters as {}.
# Templates as routes() writes them: parameters as {}, no trailing slash
# (the app takes one anywhere).
generic() {
	sed -e 's/{[^}/]*}/{}/g' -e 's|\([^ ]\)/\( \)|\1\2|' -e 's|\([^ ]\)/$|\1|'
}

awk '/routes\[\] = \{/ { on = 1; next } on && /^};/ { on = 0 } on' \
    "$top_srcdir/cgi/route.c" > "$T/table"
routes | sort -u > "$T/served-ops"

phase() {
	if [ -n "${SERVER_PID:-}" ]; then
		stop_server
	fi
	start_server 2>>"$T/server-stderr.log"
	diag "phase $1: lighttpd at $BASE"
}

# --- jobs and triggers of every kind ----------------------------------------------

"$CTL" job add $J --name completes --savepoint-dir file:/sp > /dev/null ||
    bail "checkpointctl job add"
"$CTL" job add $JF --name fails --command 'echo no space left >&2; exit 3' \
    > /dev/null || bail "checkpointctl job add"
"$CTL" job add $JR --name running --savepoint-dir file:/sp > /dev/null ||
    bail "checkpointctl job add"
"$CTL" job add $JS --name slow \
    --command "while [ ! -e '$T/go' ]; do sleep 0.1; done" > /dev/null ||
    bail "checkpointctl job add"
"$CTL" job add $JC --name canceled > /dev/null &&
    "$CTL" job set $JC --state CANCELED > /dev/null || bail "checkpointctl job"
phase defaults

answer_is "trigger, an empty body" 202 POST /jobs/$J/checkpoints
answer_is "trigger, Flink's client's body" 202 POST /v1/jobs/$JF/checkpoints \
    "{\"checkpointType\":\"FULL\",\"triggerId\":\"$TF\"}"
answer_is "trigger with a triggerId" 202 POST /jobs/$J/checkpoints/ \
    "{\"checkpointType\":\"INCREMENTAL\",\"triggerId\":\"$TJ\"}"
answer_is "trigger of a job not registered" 202 POST /jobs/$JX/checkpoints \
    "{\"triggerId\":\"$TX\"}"
"$RUNNER" 2>> "$T/runner.log"
ok $? "checkpoint-runner ran every trigger"
answer_is "trigger left running" 202 POST /jobs/$JR/checkpoints \
    "{\"checkpointType\":null,\"triggerId\":\"$TR\"}"

answer_is "status, completed" 200 GET /jobs/$J/checkpoints/$TJ
like "$BODY" '"checkpointId":[0-9]+' "status, completed: with its checkpoint id"
answer_is "status, the action failed" 200 GET /v1/jobs/$JF/checkpoints/$TF/
like "$BODY" '"failureCause":\{"class":"org.apache.flink.runtime.checkpoint.CheckpointException"' \
    "status, the action failed: a CheckpointException"
answer_is "status, the job is unknown" 200 GET "/jobs/$JX/checkpoints/$TX?x=1"
like "$BODY" '"class":"java.util.concurrent.CompletionException"' \
    "status, the job is unknown: a CompletionException"
answer_is "status, running" 200 GET /jobs/$JR/checkpoints/$TR
is "$BODY" '{"status":{"id":"IN_PROGRESS"},"operation":null}' "status, running: IN_PROGRESS"

# A checkpoint that runs (its action waits) has an id and is in the
# statistics' history as in_progress.
answer_is "trigger of a slow action" 202 POST /jobs/$JS/checkpoints "{\"triggerId\":\"$TS\"}"
spawn "$RUNNER" 2>> "$T/runner.log"
SLOW_RUNNER=$LAST_PID
wait_until 100 '[ -n "$(sql "SELECT checkpoint_id FROM triggers WHERE trigger_id = '"'$TS'"'")" ]' ||
    bail "the slow checkpoint was not claimed"
CK_J=$(sql "SELECT checkpoint_id FROM triggers WHERE trigger_id = '$TJ'")
CK_F=$(sql "SELECT checkpoint_id FROM triggers WHERE trigger_id = '$TF'")
CK_S=$(sql "SELECT checkpoint_id FROM triggers WHERE trigger_id = '$TS'")

# --- statistics, details, config and the job lists --------------------------------

answer_is "job list" 200 GET /jobs
like "$BODY" "\"id\":\"$JC\",\"status\":\"CANCELED\"" "job list: the canceled job"
answer_is "job list under /v1" 200 GET /v1/jobs/
answer_is "job overview" 200 GET /jobs/overview
answer_is "job overview, a page" 200 GET '/jobs/overview?limit=1&q=a'
answer_is "job list, a page" 200 GET '/jobs?limit=1'
answer_is "job list, a bad limit" 400 GET '/jobs?limit=0'
answer_is "job overview, a bad cursor" 400 GET '/jobs/overview?after=zz'
answer_is "the fleet's health" 200 GET '/ui/fleet?limit=2'
answer_is "the fleet's health, by id, found by name" 200 GET '/ui/fleet?order=id&q=a'
answer_is "the fleet's health, a bad order" 400 GET '/ui/fleet?order=name'
answer_is "statistics, completed" 200 GET /jobs/$J/checkpoints
like "$BODY" '"latest":\{"completed":\{"className":"completed"' "statistics, completed: latest.completed"
answer_is "statistics, failed" 200 GET /v1/jobs/$JF/checkpoints/
like "$BODY" '"failed":\{"className":"failed"' "statistics, failed: latest.failed"
answer_is "statistics, running" 200 GET /jobs/$JS/checkpoints
like "$BODY" '"history":\[\{"className":"in_progress"' "statistics, running: in_progress"
answer_is "statistics, a job without checkpoints" 200 GET /jobs/$JC/checkpoints
like "$BODY" '"p50":"NaN"' "statistics, a job without checkpoints: quantiles NaN"
answer_is "details, completed" 200 GET /jobs/$J/checkpoints/details/$CK_J
answer_is "details, failed" 200 GET /jobs/$JF/checkpoints/details/$CK_F
answer_is "details, running" 200 GET /v1/jobs/$JS/checkpoints/details/$CK_S/
answer_is "config" 200 GET /jobs/$J/checkpoints/config
answer_is "config under /v1" 200 GET /v1/jobs/$JS/checkpoints/config/
answer_is "job status" 200 GET /jobs/$J/status
answer_is "triggers, one running" 200 GET /jobs/$JS/triggers
like "$BODY" '^\{"in_progress":1,"oldest_in_progress_ms":[0-9]+,' \
    "triggers, one running: waiting counted"
answer_is "triggers, one failed, under /v1" 200 GET /v1/jobs/$JF/triggers/
like "$BODY" '"failure_class":"org.apache.flink.runtime.checkpoint.CheckpointException","failure_trace":"' \
    "triggers, one failed: its class and trace"
touch "$T/go"
wait_until 100 "gone $SLOW_RUNNER"
ok $? "the slow checkpoint's runner ended its pass"
stop_pid $SLOW_RUNNER
answer_is "details, the slow one completed" 200 GET /jobs/$JS/checkpoints/details/$CK_S
like "$BODY" '^\{"className":"completed"' "details, the slow one completed: completed"

answer_is "metrics" 200 GET "/metrics?per-job=1"
like "$BODY" 'flink_jobmanager_job_lastCheckpointSize|flink_jobmanager_job_numberOfCompletedCheckpoints' \
    "metrics: Flink's checkpoint gauges"
answer_is "metrics, a trailing slash and a query" 200 GET '/metrics/?x=1'
answer_is "metrics, a bad per-job" 400 GET '/metrics?per-job=yes'

# The web console: the page, its files, revalidation.
answer_is "console" 200 GET /ui/
like "$BODY" '<html' "console: a page"
ETAG=$(header etag)
answer_is "console, without its slash" 302 GET /ui
is "$(header location)" ui/ "console, without its slash: to ui/"
HTTP_HEADER="If-None-Match: $ETAG"
answer_is "console, unchanged" 304 GET /ui/
unset HTTP_HEADER
for _f in chart.js format.js style.css index.html app.js; do
	answer_is "console file $_f" 200 GET /ui/$_f
done
HTTP_HEADER="If-None-Match: $(header etag)"
answer_is "console file, unchanged" 304 GET /ui/app.js
unset HTTP_HEADER
answer_is "console file, never under /v1" 404 GET /v1/ui/app.js
answer_is "console, never under /v1" 404 GET /v1/ui/
answer_is "console file, unknown" 404 GET /ui/nope.js

# Another site's page may read but not trigger.
HTTP_HEADER="Origin: https://elsewhere.example"
answer_is "trigger from another site" 403 POST /jobs/$J/checkpoints
answer_is "statistics read from another site" 200 GET /jobs/$J/checkpoints
unset HTTP_HEADER
HTTP_HEADER="Origin: http://127.0.0.1:$PORT"
answer_is "trigger from the console's own origin" 202 POST /jobs/$JR/checkpoints
unset HTTP_HEADER

answer_is "statistics, an unknown job" 404 GET /jobs/$JX/checkpoints
answer_is "statistics, a bad jobid" 400 GET /jobs/xyz/checkpoints
answer_is "details, an unknown checkpoint" 404 GET /jobs/$J/checkpoints/details/999999
answer_is "details, an unknown job" 404 GET /jobs/$JX/checkpoints/details/1
answer_is "details, a bad checkpointid" 400 GET /jobs/$J/checkpoints/details/abc
answer_is "details, a bad jobid" 400 GET /jobs/xyz/checkpoints/details/1
answer_is "config, an unknown job" 404 GET /jobs/$JX/checkpoints/config
answer_is "job status, an unknown job" 404 GET /jobs/$JX/status
answer_is "job status, a bad jobid" 400 GET /jobs/xyz/status
answer_is "config, a bad jobid" 400 GET /jobs/xyz/checkpoints/config
answer_is "triggers, an unknown job" 404 GET /jobs/$JX/triggers
answer_is "triggers, a bad jobid" 400 GET /jobs/xyz/triggers
answer_is "triggers, a bad limit" 400 GET "/jobs/$JS/triggers?limit=0"
answer_is "triggers, limit=1000" 200 GET "/jobs/$JS/triggers?limit=1000"

# --- errors -------------------------------------------------------------------------

answer_is "trigger, a body that is not JSON" 400 POST /jobs/$J/checkpoints '{"checkpointType":'
answer_is "trigger, an unknown checkpointType" 400 POST /jobs/$J/checkpoints '{"checkpointType":"full"}'
answer_is "trigger, a bad jobid" 400 POST /jobs/xyz/checkpoints
answer_is "trigger, a body over the limit" 413 POST /jobs/$J/checkpoints \
    "$(printf '{"x":"%s"}' "$(head -c 65536 /dev/zero | tr '\0' x)")"
answer_is "status, a bad triggerid" 400 GET /jobs/$J/checkpoints/nothex
answer_is "status, a bad jobid" 400 GET /jobs/xyz/checkpoints/$TJ
answer_is "status, an unknown trigger" 404 GET /jobs/$J/checkpoints/$TX
answer_is "status, another job's trigger" 404 GET /jobs/$JF/checkpoints/$TJ

# --- savepoints, stops and disposals -------------------------------------------------

SP1=66666666666666666666666666666666
SP2=77777777777777777777777777777777
answer_is "savepoint, the flink CLI's body" 202 POST /jobs/$J/savepoints \
    "{\"target-directory\":\"file:/sp\",\"cancel-job\":false,\"formatType\":\"CANONICAL\",\"triggerId\":\"$SP1\"}"
answer_is "stop, the flink CLI's body" 202 POST /v1/jobs/$JR/stop/ \
    "{\"targetDirectory\":\"file:/sp\",\"drain\":true,\"formatType\":\"NATIVE\",\"triggerId\":\"$SP2\"}"
answer_is "savepoint status, running" 200 GET /jobs/$JR/savepoints/$SP2
answer_is "savepoints of a job, one running" 200 GET /jobs/$JR/savepoints
sql "UPDATE savepoints SET status='COMPLETED', checkpoint_id=9,
    location='file:/sp/savepoint-666666-000000000009', completed_ms=1
    WHERE trigger_id='$SP1'" >/dev/null
answer_is "savepoint status, completed" 200 GET /jobs/$J/savepoints/$SP1
answer_is "statistics with a savepoint" 200 GET /jobs/$J/checkpoints
answer_is "details of a savepoint" 200 GET /jobs/$J/checkpoints/details/9
sql "UPDATE savepoints SET status='COMPLETED', completed_ms=1,
    failure_class='org.apache.flink.util.SerializedThrowable',
    failure_trace='java.lang.IllegalStateException: x',
    failure_throwable='$THROWABLE_HEAD' WHERE trigger_id='$SP2'" >/dev/null
answer_is "savepoint status, failed" 200 GET /jobs/$JR/savepoints/$SP2
answer_is "savepoint, no directory" 400 POST /jobs/$JF/savepoints
answer_is "savepoint, a directory not under the job's" 400 POST /jobs/$J/savepoints \
    '{"target-directory":"file:/etc"}'
answer_is "stop, a bad body" 400 POST /jobs/$J/stop '{"drain":"yes"}'
answer_is "savepoint, a body over the limit" 413 POST /jobs/$J/savepoints \
    "$(printf '{"x":"%s"}' "$(head -c 65536 /dev/zero | tr '\0' x)")"
answer_is "stop, a body over the limit" 413 POST /jobs/$J/stop \
    "$(printf '{"x":"%s"}' "$(head -c 65536 /dev/zero | tr '\0' x)")"
answer_is "savepoint status, a bad triggerid" 400 GET /jobs/$J/savepoints/nothex
answer_is "savepoints of a job, a bad jobid" 400 GET /jobs/xyz/savepoints
answer_is "savepoints of a job, completed and failed" 200 GET /v1/jobs/$JR/savepoints/
answer_is "savepoint status, unknown" 404 GET /jobs/$J/savepoints/$TX
answer_is "disposal" 200 POST /savepoint-disposal \
    '{"savepoint-path":"file:/sp/savepoint-666666-000000000009"}'
DSP=$(printf '%s' "$BODY" | cut -d'"' -f4)
answer_is "disposal status, running" 200 GET /savepoint-disposal/$DSP
sql "UPDATE savepoint_disposals SET status='COMPLETED', completed_ms=1
    WHERE trigger_id='$DSP'" >/dev/null
answer_is "disposal status, done" 200 GET /v1/savepoint-disposal/$DSP/
answer_is "disposal, no path" 400 POST /savepoint-disposal '{}'
answer_is "disposal, a body over the limit" 413 POST /savepoint-disposal \
    "$(printf '{"x":"%s"}' "$(head -c 65536 /dev/zero | tr '\0' x)")"
answer_is "disposal status, a bad triggerid" 400 GET /savepoint-disposal/nothex
answer_is "disposal status, unknown" 404 GET /savepoint-disposal/$TX
HTTP_HEADER="Origin: https://elsewhere.example"
answer_is "savepoint from another site" 403 POST /jobs/$J/savepoints
answer_is "stop from another site" 403 POST /jobs/$J/stop
answer_is "disposal from another site" 403 POST /savepoint-disposal
unset HTTP_HEADER
not_allowed "savepoint path, GET" GET /jobs/$J/stop
not_allowed "savepoint path, PUT" PUT /jobs/$J/savepoints
not_allowed "savepoint path, DELETE" DELETE /jobs/$J/savepoints
not_allowed "savepoint status path, POST" POST /jobs/$J/savepoints/$SP1
not_allowed "disposal path, GET" GET /savepoint-disposal
not_allowed "disposal status path, DELETE" DELETE /savepoint-disposal/$TX

not_allowed "trigger path, PUT" PUT /jobs/$J/checkpoints
not_allowed "trigger path, DELETE" DELETE /v1/jobs/$J/checkpoints/
not_allowed "status path, POST" POST /jobs/$J/checkpoints/$TJ
not_allowed "status path, DELETE" DELETE /jobs/$J/checkpoints/$TJ
not_allowed "job list, POST" POST /jobs
not_allowed "job overview, DELETE" DELETE /jobs/overview
not_allowed "config, POST" POST /jobs/$J/checkpoints/config
not_allowed "job status, POST" POST /jobs/$J/status
not_allowed "details, PUT" PUT /jobs/$J/checkpoints/details/1
not_allowed "triggers, POST" POST /jobs/$J/triggers
not_allowed "metrics, POST" POST /metrics
not_allowed "console, POST" POST /ui/
not_allowed "the fleet's health, POST" POST /ui/fleet
not_allowed "console file, DELETE" DELETE /ui/app.js

answer_is "unknown path" 404 GET /nope
answer_is "unknown path: the root" 404 GET /
answer_is "unknown path: another version" 404 GET /v2/jobs/$J/checkpoints/$TJ
answer_is "unknown path: literals are case-sensitive" 404 POST /JOBS/$J/checkpoints
answer_is "unknown path: too long" 404 GET /jobs/$J/checkpoints/$TJ/extra
answer_is "unknown path: metrics are not under /v1" 404 GET /v1/metrics

# --- settings that change the answers ----------------------------------------------

export CHECKPOINT_REJECT_UNKNOWN_JOBS=1
phase reject-unknown
answer_is "trigger, unknown jobs rejected" 404 POST /jobs/$JX/checkpoints
answer_is "savepoint, unknown jobs rejected" 404 POST /jobs/$JX/savepoints '{"target-directory":"file:/x"}'
answer_is "stop, unknown jobs rejected" 404 POST /jobs/$JX/stop '{"targetDirectory":"file:/x"}'
unset CHECKPOINT_REJECT_UNKNOWN_JOBS

export CHECKPOINT_METRICS=0
phase metrics-off
answer_is "metrics turned off" 404 GET /metrics
unset CHECKPOINT_METRICS

export CHECKPOINT_CORS_ORIGIN=
phase cors-off
answer_is "status, CORS off" 200 GET /jobs/$J/checkpoints/$TJ
answer_is "error, CORS off" 404 GET /nope
unset CHECKPOINT_CORS_ORIGIN

# No database (only checkpointctl init makes one): every endpoint that
# reads it is 503.
DB_KEPT=$DB
DB=$T/missing/checkpoints.db
export CHECKPOINT_DB=$DB
phase unavailable
answer_is "trigger, the database cannot be opened" 503 POST /jobs/$J/checkpoints
answer_is "status, the database cannot be opened" 503 GET /jobs/$J/checkpoints/$TJ
answer_is "savepoint, the database cannot be opened" 503 POST /jobs/$J/savepoints
answer_is "stop, the database cannot be opened" 503 POST /jobs/$J/stop
answer_is "savepoint status, the database cannot be opened" 503 GET /jobs/$J/savepoints/$TJ
answer_is "savepoints of a job, the database cannot be opened" 503 GET /jobs/$J/savepoints
answer_is "disposal, the database cannot be opened" 503 POST /savepoint-disposal '{"savepoint-path":"x"}'
answer_is "disposal status, the database cannot be opened" 503 GET /savepoint-disposal/$TJ
answer_is "job list, the database cannot be opened" 503 GET /jobs
answer_is "job overview, the database cannot be opened" 503 GET /jobs/overview
answer_is "statistics, the database cannot be opened" 503 GET /jobs/$J/checkpoints
answer_is "details, the database cannot be opened" 503 GET /jobs/$J/checkpoints/details/1
answer_is "config, the database cannot be opened" 503 GET /jobs/$J/checkpoints/config
answer_is "job status, the database cannot be opened" 503 GET /jobs/$J/status
answer_is "triggers, the database cannot be opened" 503 GET /jobs/$J/triggers
answer_is "metrics, the database cannot be opened" 503 GET /metrics
answer_is "the fleet's health, the database cannot be opened" 503 GET /ui/fleet
DB=$DB_KEPT
export CHECKPOINT_DB=$DB

# --- coverage -------------------------------------------------------------------------

"$CHECK" -l "$DOC" > "$T/documented" || bail "openapi-check -l failed"
routes > "$T/routes"
# The reading of the table is checked: a line for each of its rows, and
# each route of route.h (but ROUTE_NONE) in a row.
is "$(wc -l < "$T/routes" | tr -d ' ')" \
    "$(grep -o '{ *ROUTE_[A-Z_]*' "$T/table" | wc -l | tr -d ' ')" \
    "cgi/route.c: a route read for each row of its table"
is "$(sed -n '/^enum route_id/,/^}/p' "$top_srcdir/cgi/route.h" |
    sed -n 's/^[[:space:]]*\(ROUTE_[A-Z_]*\).*/\1/p' | grep -vx ROUTE_NONE |
    while read -r _id; do grep -q "{ *$_id," "$T/table" || echo "$_id"; done)" "" \
    "cgi/route.c: every route of route.h has a row"
generic < "$T/documented" | cut -d' ' -f1,2 | sort -u > "$T/documented-ops"
is "$(comm -23 "$T/served-ops" "$T/documented-ops" | tr '\n' ';')" "" \
    "every route the app serves is in the document"

# Every documented answer but 500 was given here: a case is missing from
# this test, or the document has what the app does not serve.
grep -v ' 500$' "$T/documented" | sort -u > "$T/want"
sort -u "$EXERCISED" > "$T/got"
comm -23 "$T/want" "$T/got" > "$T/missed"
cut -d' ' -f2 "$T/served-ops" | sort -u > "$T/served-paths"
while read -r _m _t _s; do
	_g=$(echo "$_t" | generic)
	if [ "$_m" = ANY ] || grep -qxF "$_m $_g" "$T/served-ops" ||
	    { [ "$_m" = OTHER ] && grep -qxF "$_g" "$T/served-paths"; }; then
		ok 1 "documented and routed, but never answered here: $_m $_t $_s"
	else
		ok 1 "documented, but cgi/route.c does not route it: $_m $_t $_s"
	fi
done < "$T/missed"
is "$(wc -l < "$T/missed" | tr -d ' ')" 0 \
    "every documented answer was given ($(wc -l < "$T/got" | tr -d ' ') of them)"
is "$(comm -13 "$T/want" "$T/got")" "" "every answer given is a documented one"

done_testing
