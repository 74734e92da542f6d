#!/bin/sh
# GET /metrics through lighttpd, after a known sequence of triggers advanced
# by the real runner: every line of the answer, exactly, at each step (no
# job; triggers queued; one claimed while the others completed, declined,
# expired or found no job; all done; an idle pass; a purge, which no count
# may feel), each job's series asked for (?per-job=1), and the fleet's
# alone by default, the jobs by state and by health at each step;
# `promtool check metrics` on each answer; Flink's label filter
# and, with CHECKPOINT_METRICS_FILTER=0, the format's escapes on a hostile
# job name; the routing rules (405 with Allow, no /v1, slashes, query);
# CHECKPOINT_METRICS=0; 503 when the database cannot be read.
# checkpoint-api(7), "GET /metrics".
#
# The actions' commands are in single quotes on purpose: their $VARS are
# for the action's shell.
# shellcheck disable=SC2016

. "$(dirname "$0")/lib.sh"

for c in lighttpd sqlite3 curl promtool; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing"
done
unset CHECKPOINT_STORE_DURATION CHECKPOINT_MAX_BODY CHECKPOINT_CORS_ORIGIN \
    CHECKPOINT_REJECT_UNKNOWN_JOBS CHECKPOINT_BUSY_TIMEOUT CHECKPOINT_SYNC \
    CHECKPOINT_METRICS CHECKPOINT_METRICS_FILTER

J1=feed0000000000000000000000000001 # no command: completes at once
J2=feed0000000000000000000000000002 # hostile name; its action succeeds
J3=feed0000000000000000000000000003 # its action fails: declined
J4=feed0000000000000000000000000004 # its action overruns: expired
J5=feed0000000000000000000000000005 # SUSPENDED: job not found
J6=feed0000000000000000000000000006 # its action waits for $T/release
JU=dead0000000000000000000000000000 # never registered: job not found
TAB=$(printf '\t')
NL='
'
# A name with everything a label value must survive: quotes, backslashes,
# a line feed, a two-byte and a four-byte UTF-8 character, a byte that is
# not UTF-8.
HOSTILE="a \"quoted\" \\back\\slash${NL}line two $(printf '\303\274 \360\237\231\202 \377')"
# As Flink's reporter writes it by default: each character (UTF-16 unit)
# outside [a-zA-Z0-9:_] is '_', the four-byte one two.
HOSTILE_FLINK=a__quoted___back_slash_line_two_______
# As the format escapes it (CHECKPOINT_METRICS_FILTER=0), with '?' for
# what is not UTF-8.
HOSTILE_RAW="a \\\"quoted\\\" \\\\back\\\\slash\\nline two $(printf '\303\274 \360\237\231\202 ?')"
FAMILIES="numberOfCompletedCheckpoints numberOfFailedCheckpoints
    numberOfInProgressCheckpoints totalNumberOfCheckpoints
    lastCheckpointDuration lastCompletedCheckpointId lastCheckpointSize
    lastCheckpointFullSize"

now_ms() {
	echo $(($(date +%s%N) / 1000000))
}

sqlq() {
	printf '%s' "$1" | sed "s/'/''/g"
}

# add_job JOB NAME STATE COMMAND [TIMEOUT_S]: COMMAND '' for none.
add_job() {
	_now=$(now_ms)
	_cmd=NULL
	[ -n "$4" ] && _cmd="'$(sqlq "$4")'"
	sql "INSERT INTO jobs (job_id, name, state, command, timeout_s,
	    created_ms, updated_ms) VALUES ('$1', '$(sqlq "$2")', '$3', $_cmd,
	    ${5:-600}, $_now, $_now)"
}

post() {
	http POST "/jobs/$1/checkpoints" "{\"triggerId\":\"$2\"}"
	[ "$STATUS" = 202 ] || diag "POST /jobs/$1/checkpoints: $STATUS $BODY"
}

# duration JOB ID: lastCheckpointDuration of that completed checkpoint,
# from its row: completion less the trigger's start (its claim, or its
# arrival when no action ran).
duration() {
	sql "SELECT max(0, completed_ms - coalesce(claimed_ms, created_ms))
	    FROM triggers
	    WHERE job_id = '$1' AND checkpoint_id = $2"
}

# jobs_after_runner J6-VALUES: $T/jobs once the runner is done with J1 to
# J5: J1's two and J2's one completed, J3's two declined (the second
# counted on a row with no completed checkpoint), J4's expired, J5's
# not found (not RUNNING: no id, so no count of its own).
jobs_after_runner() {
	cat > "$T/jobs" <<-EOF
	$J1	plain	2 0 0 2 $(duration "$J1" 2) 2 0 0
	$J2	$HOSTILE_FLINK	1 0 0 1 $(duration "$J2" 1) 1 0 0
	$J3	declines	0 2 0 2 -1 -1 -1 -1
	$J4	overruns	0 1 0 1 -1 -1 -1 -1
	$J5	suspended	0 0 0 0 -1 -1 -1 -1
	$J6	waits	$1
	EOF
}

# scrape [PATH]: GET /metrics?per-job=1 into BODY (kept whole, with its
# last line feed, in $T/scrape).
scrape() {
	http GET "${1:-/metrics?per-job=1}"
	cp "$T/resp-body" "$T/scrape"
}

# fleet_expected RUNNING SUSPENDED FAILING NORUNNER STALE NEW OK OFF
#     IN_PROGRESS: the fleet's families, which every answer ends with.
fleet_expected() {
	cat <<-EOF
	# HELP checkpoint_api_jobs Registered jobs by state.
	# TYPE checkpoint_api_jobs gauge
	checkpoint_api_jobs{state="RUNNING"} $1
	checkpoint_api_jobs{state="FINISHED"} 0
	checkpoint_api_jobs{state="CANCELED"} 0
	checkpoint_api_jobs{state="FAILED"} 0
	checkpoint_api_jobs{state="SUSPENDED"} $2
	# HELP checkpoint_api_jobs_health Jobs by health, as the status page sums them.
	# TYPE checkpoint_api_jobs_health gauge
	checkpoint_api_jobs_health{health="failing"} $3
	checkpoint_api_jobs_health{health="norunner"} $4
	checkpoint_api_jobs_health{health="stale"} $5
	checkpoint_api_jobs_health{health="new"} $6
	checkpoint_api_jobs_health{health="ok"} $7
	checkpoint_api_jobs_health{health="off"} $8
	# HELP checkpoint_api_jobs_in_progress Jobs with triggers waiting or running.
	# TYPE checkpoint_api_jobs_in_progress gauge
	checkpoint_api_jobs_in_progress $9
	# HELP checkpoint_api_jobs_missed_slots Jobs whose schedules ever missed a slot.
	# TYPE checkpoint_api_jobs_missed_slots gauge
	checkpoint_api_jobs_missed_slots 0
	EOF
}

# fleet_is WHAT FLEET-ARGS...: the scrape's fleet families are those.
fleet_is() {
	_what=$1
	shift
	fleet_expected "$@" > "$T/fleet-expected"
	sed -n '/^# HELP checkpoint_api_jobs /,$p' "$T/scrape" |
	    cmp -s "$T/fleet-expected" -
	ok $? "$_what: the jobs by state and by health"
}

# flink_expected: the eight families from $T/jobs, one line a job:
# job_id, job_name as written, then the eight values, tab-separated.
flink_expected() {
	[ -s "$T/jobs" ] || return 0
	_i=0
	for _f in $FAMILIES; do
		_i=$((_i + 1))
		printf '# HELP flink_jobmanager_job_%s %s (scope: jobmanager_job)\n' \
		    "$_f" "$_f"
		printf '# TYPE flink_jobmanager_job_%s gauge\n' "$_f"
		while IFS=$TAB read -r _id _name _v; do
			# shellcheck disable=SC2086
			set -- $_v
			eval "_x=\${$_i}"
			printf 'flink_jobmanager_job_%s{job_id="%s",job_name="%s",host="checkpoint_api"} %s\n' \
			    "$_f" "$_id" "$_name" "$_x"
		done < "$T/jobs"
	done
}

# service_expected QUEUED AGE CLAIMED COMPLETED DECLINED EXPIRED NOTFOUND
#     PASS_S ADVANCED PASS_DURATION_S
service_expected() {
	cat <<-EOF
	# HELP checkpoint_api_triggers_queued Triggers recorded and not yet taken by a runner.
	# TYPE checkpoint_api_triggers_queued gauge
	checkpoint_api_triggers_queued $1
	# HELP checkpoint_api_triggers_queued_oldest_seconds Age of the oldest queued trigger; 0 when none.
	# TYPE checkpoint_api_triggers_queued_oldest_seconds gauge
	checkpoint_api_triggers_queued_oldest_seconds $2
	# HELP checkpoint_api_triggers_claimed Triggers whose checkpoint action is running.
	# TYPE checkpoint_api_triggers_claimed gauge
	checkpoint_api_triggers_claimed $3
	# HELP checkpoint_api_triggers_completed_total Triggers completed with a checkpoint.
	# TYPE checkpoint_api_triggers_completed_total counter
	checkpoint_api_triggers_completed_total $4
	# HELP checkpoint_api_triggers_failed_total Triggers completed with a failure, by kind.
	# TYPE checkpoint_api_triggers_failed_total counter
	checkpoint_api_triggers_failed_total{kind="declined"} $5
	checkpoint_api_triggers_failed_total{kind="expired"} $6
	checkpoint_api_triggers_failed_total{kind="job_not_found"} $7
	# HELP checkpoint_api_triggers_refused_total Triggers failed at once: their job had CHECKPOINT_MAX_QUEUED triggers waiting.
	# TYPE checkpoint_api_triggers_refused_total counter
	checkpoint_api_triggers_refused_total 0
	# HELP checkpoint_api_runner_last_pass_timestamp_seconds When a runner last recorded a pass: each that advanced triggers, others at most every 10 s; 0: never.
	# TYPE checkpoint_api_runner_last_pass_timestamp_seconds gauge
	checkpoint_api_runner_last_pass_timestamp_seconds $8
	# HELP checkpoint_api_runner_last_pass_advanced Triggers that pass completed or failed.
	# TYPE checkpoint_api_runner_last_pass_advanced gauge
	checkpoint_api_runner_last_pass_advanced $9
	# HELP checkpoint_api_runner_last_pass_duration_seconds How long that pass took.
	# TYPE checkpoint_api_runner_last_pass_duration_seconds gauge
	checkpoint_api_runner_last_pass_duration_seconds ${10}
	# HELP checkpoint_api_savepoint_disposals Disposals of savepoints by status, each path's last attempt.
	# TYPE checkpoint_api_savepoint_disposals gauge
	checkpoint_api_savepoint_disposals{status="in_progress"} 0
	checkpoint_api_savepoint_disposals{status="completed"} 0
	checkpoint_api_savepoint_disposals{status="failed"} 0
	EOF
}

# ms_s MS: milliseconds as the answer shows seconds.
ms_s() {
	printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000))
}

# pass_s, pass_n, pass_d: the runner's last pass as the database has it.
pass_s() {
	ms_s "$(sql 'SELECT pass_ms FROM service_metrics')"
}
pass_n() {
	sql 'SELECT pass_advanced FROM service_metrics'
}
pass_d() {
	ms_s "$(sql 'SELECT pass_duration_ms FROM service_metrics')"
}

# answer_is WHAT SERVICE-ARGS...: the scrape is 200, text 0.0.4, and
# exactly flink_expected then service_expected.
answer_is() {
	_what=$1
	shift
	{
		flink_expected
		service_expected "$@"
	} > "$T/expected"
	is "$STATUS" 200 "$_what: 200"
	is "$(header content-type)" "text/plain; version=0.0.4; charset=utf-8" \
	    "$_what: Content-Type is the text format 0.0.4"
	# The fleet's families, last, are fleet_is's.
	sed '/^# HELP checkpoint_api_jobs /,$d' "$T/scrape" > "$T/per-job"
	if cmp -s "$T/per-job" "$T/expected"; then
		ok 0 "$_what: every line as expected"
	else
		ok 1 "$_what: every line as expected"
		diff "$T/expected" "$T/per-job" | sed 's/^/#   /'
	fi
	lint "$_what"
}

# lint WHAT: promtool parses the scrape; what it lints is only Flink's
# camelCase names, one complaint for each family there is (exit 3: lint
# problems; 1 would be a parse error).
lint() {
	promtool check metrics < "$T/scrape" > "$T/lint" 2>&1
	is "$?" "$(if grep -q '^flink_' "$T/scrape"; then echo 3; else echo 0; fi)" \
	    "$1: promtool check metrics parses it"
	grep '^# TYPE flink_' "$T/scrape" | awk '{ print $3 " metric names should be written in '"'"'snake_case'"'"' not '"'"'camelCase'"'"'" }' |
	    sort > "$T/lint-expected"
	sort "$T/lint" | cmp -s - "$T/lint-expected"
	ok $? "$1: promtool's only complaints are Flink's camelCase names"
}

# queued_age WHAT: AGE, the age of the oldest queued trigger as the scrape
# shows it, checked against its row and the times around the scrape.
queued_age() {
	AGE=$(sed -n 's/^checkpoint_api_triggers_queued_oldest_seconds //p' \
	    "$T/scrape")
	_created=$(sql "SELECT min(created_ms) FROM triggers
	    WHERE status = 'IN_PROGRESS' AND claimed_by IS NULL")
	_ms=$(printf '%s' "$AGE" | awk '{ printf "%d", $1 * 1000 + 0.5 }')
	[ "$_ms" -ge $((BEFORE - _created)) ] &&
	    [ "$_ms" -le $(($(now_ms) - _created)) ]
	ok $? "$1: the oldest queued trigger's age ($AGE s) is its row's"
}

# runner_at_j6: every trigger done but J6's, the first of which is claimed.
runner_at_j6() {
	[ "$(sql "SELECT count(*) FROM triggers WHERE status = 'COMPLETED'")" = 8 ] &&
	    [ "$(sql "SELECT count(*) FROM triggers
		WHERE claimed_by IS NOT NULL AND status = 'IN_PROGRESS'")" = 1 ]
}

# --- No job, nothing recorded --------------------------------------------

"$CTL" init > /dev/null || bail "checkpointctl init"
start_server
: > "$T/jobs"
scrape
answer_is "no job" 0 0.000 0 0 0 0 0 0.000 0 0.000
fleet_is "no job" 0 0 0 0 0 0 0 0 0
is "$(tail -c 1 "$T/scrape" | od -An -c | tr -d ' ')" '\n' \
    "no job: the answer ends with a line feed"

# --- Jobs registered, triggers queued ---------------------------------------

add_job "$J1" plain RUNNING ''
add_job "$J2" "$HOSTILE" RUNNING 'echo "file:/ckpt/$CHECKPOINT_ID"'
add_job "$J3" declines RUNNING 'echo no space left >&2; exit 3'
add_job "$J4" overruns RUNNING 'exec sleep 30' 1
add_job "$J5" suspended SUSPENDED ''
# Its timeout bounds a failed run: the runner, stopped, waits for it.
add_job "$J6" waits RUNNING \
    "while [ ! -e '$T/release' ]; do sleep 0.05; done" 20
post "$J1" 00000000000000000000000000000101
post "$J1" 00000000000000000000000000000102
post "$J2" 00000000000000000000000000000201
post "$J3" 00000000000000000000000000000301
post "$J3" 00000000000000000000000000000302
post "$J4" 00000000000000000000000000000401
post "$J5" 00000000000000000000000000000501
post "$JU" 00000000000000000000000000000901
post "$J6" 00000000000000000000000000000601
post "$J6" 00000000000000000000000000000602

cat > "$T/jobs" <<-EOF
$J1	plain	0 0 0 0 -1 -1 -1 -1
$J2	$HOSTILE_FLINK	0 0 0 0 -1 -1 -1 -1
$J3	declines	0 0 0 0 -1 -1 -1 -1
$J4	overruns	0 0 0 0 -1 -1 -1 -1
$J5	suspended	0 0 0 0 -1 -1 -1 -1
$J6	waits	0 0 0 0 -1 -1 -1 -1
EOF
BEFORE=$(now_ms)
scrape
queued_age "queued"
answer_is "10 queued, no runner yet" 10 "$AGE" 0 0 0 0 0 0.000 0 0.000
# Waiting, and no runner ever: the five RUNNING; J5's waits too.
fleet_is "10 queued, no runner yet" 5 1 0 5 0 0 0 1 6

# --- The runner's pass, held by J6's action -------------------------------

RUN_START=$(now_ms)
spawn "$RUNNER" --parallel 8 2> "$T/runner.log"
RUNNER_PID=$LAST_PID
wait_until 100 runner_at_j6 ||
    bail "the runner did not get to J6's action: $(cat "$T/runner.log")"
jobs_after_runner "0 0 1 1 -1 -1 -1 -1"
BEFORE=$(now_ms)
scrape
queued_age "one claimed"
answer_is "one claimed, one queued behind it, the rest done" \
    1 "$AGE" 1 3 2 1 2 0.000 0 0.000
is "$(grep -cF "job_name=\"$HOSTILE_FLINK\"" "$T/scrape")" 8 \
    "the hostile name is filtered as Flink's reporter does, in all 8"

# --- All done -------------------------------------------------------------

touch "$T/release"
stop_pid "$RUNNER_PID" 0 # signal 0: only waits for it
is "$?" 0 "the runner's pass ended well"
RUN_END=$(now_ms)
jobs_after_runner "2 0 0 2 $(duration "$J6" 2) 2 0 0"
scrape
answer_is "all done" 0 0.000 0 5 2 1 2 "$(pass_s)" 10 "$(pass_d)"
# J3 declined, J4 expired: failing; J1, J2, J6 ok; J5 off.
fleet_is "all done" 5 1 2 0 0 0 3 1 0
all_done_s=$(pass_s)
all_done_d=$(pass_d)
pass_ms=$(sql 'SELECT pass_ms FROM service_metrics')
[ "$pass_ms" -ge "$RUN_START" ] && [ "$pass_ms" -le "$RUN_END" ]
ok $? "the pass is recorded when it ended"
[ "$(sql 'SELECT pass_duration_ms FROM service_metrics')" -ge 1000 ]
ok $? "the pass lasted past J4's one-second timeout"
like "$(sed -n 's/^flink_jobmanager_job_lastCheckpointDuration{job_id="'"$J6"'".* //p' "$T/scrape")" \
    '^[0-9]+$' "lastCheckpointDuration is a whole number of milliseconds"

# By default, the fleet's alone: its size is not the fleet's.
scrape /metrics
{
	service_expected 0 0.000 0 5 2 1 2 "$all_done_s" 10 "$all_done_d"
	printf '%s\n' \
	    '# HELP checkpoint_api_schedule_slots_missed_total Slots of the schedules not fired before the next was due.' \
	    '# TYPE checkpoint_api_schedule_slots_missed_total counter' \
	    'checkpoint_api_schedule_slots_missed_total 0'
	fleet_expected 5 1 2 0 0 0 3 1 0
} > "$T/expected"
cmp -s "$T/scrape" "$T/expected"
ok $? "GET /metrics: the service's and the fleet's series, no job's" ||
    diff "$T/expected" "$T/scrape" | sed 's/^/#   /'
lint "GET /metrics, the fleet's"
for p in '/metrics?per-job=0' '/metrics?per-job=2'; do
	scrape "$p"
	case $p in
	*=0) cmp -s "$T/scrape" "$T/expected"
	     ok $? "GET $p: the fleet's, as by default" ;;
	*) is "$STATUS $BODY" '400 {"errors":["Bad request, could not parse parameters: Cannot resolve query parameter (per-job) from value \"2\"."]}' \
	    "GET $p: the contract's 400" ;;
	esac
done

# --- Idle passes ------------------------------------------------------------

"$RUNNER" 2>> "$T/runner.log"
scrape
answer_is "an idle pass within 10 s of the last record is not recorded" \
    0 0.000 0 5 2 1 2 "$(ms_s "$pass_ms")" 10 "$(pass_d)"
sql 'UPDATE service_metrics SET pass_ms = pass_ms - 10000'
RUN_START=$(now_ms)
"$RUNNER" 2>> "$T/runner.log"
scrape
answer_is "an idle pass 10 s after the last record is" \
    0 0.000 0 5 2 1 2 "$(pass_s)" 0 "$(pass_d)"
[ "$(sql 'SELECT pass_ms FROM service_metrics')" -ge "$RUN_START" ]
ok $? "the idle pass's record is new"
idle_d=$(pass_d)

# Two runners watching an idle database: a record wakes the other, whose
# idle pass must not record in turn (nor commit anything), or they would
# wake each other for ever.
spawn "$RUNNER" --watch 2>> "$T/runner.log"
W1=$LAST_PID
spawn "$RUNNER" --watch 2>> "$T/runner.log"
W2=$LAST_PID
sleep 1
first=$(sql 'SELECT pass_ms FROM service_metrics')
sleep 3
is "$(sql 'SELECT pass_ms FROM service_metrics')" "$first" \
    "two idle watching runners leave the record alone within 10 s"
stop_pid "$W1"
stop_pid "$W2"
sql 'UPDATE service_metrics SET pass_ms = pass_ms - 10000'
idle_s=$(pass_s)

# --- A purge: no count goes down ----------------------------------------------

sleep 0.01
CHECKPOINT_STORE_DURATION=1ms "$CTL" purge > /dev/null
is "$(sql 'SELECT count(*) FROM triggers')" 0 "every trigger was purged"
scrape
answer_is "after the purge, the same" \
    0 0.000 0 5 2 1 2 "$idle_s" 0 "$idle_d"

# --- Routing ------------------------------------------------------------------

cp "$T/scrape" "$T/full"
for p in /metrics/?per-job=1 //metrics//?per-job \
    '/metrics?name=x&a=%22&per-job=1'; do
	scrape "$p"
	is "$STATUS" 200 "GET $p: 200"
	cmp -s "$T/scrape" "$T/full"
	ok $? "GET $p: the same answer"
done
http POST /metrics
is "$STATUS $BODY" \
    '405 {"errors":["Method POST is not allowed here; see the Allow header."]}' \
    "POST /metrics: 405"
is "$(header allow)" GET "POST /metrics: Allow: GET"
is "$(header content-type)" "application/json; charset=UTF-8" \
    "POST /metrics: the 405 is JSON"
http GET /v1/metrics
is "$STATUS $BODY" '404 {"errors":["Not found: /v1/metrics"]}' \
    "GET /v1/metrics: 404, metrics are not Flink's REST API"
http GET /Metrics
is "$STATUS" 404 "GET /Metrics: 404 (case-sensitive)"
stop_server

# --- CHECKPOINT_METRICS_FILTER=0: label values escaped ------------------------

CHECKPOINT_METRICS_FILTER=0
export CHECKPOINT_METRICS_FILTER
start_server
scrape
is "$(grep -cF "job_name=\"$HOSTILE_RAW\"" "$T/scrape")" 8 \
    "CHECKPOINT_METRICS_FILTER=0: the hostile name escaped, in all 8"
sed "s/$HOSTILE_FLINK/$(printf '%s' "$HOSTILE_RAW" | sed 's/[\\&/]/\\&/g')/" \
    "$T/full" > "$T/full-raw"
cmp -s "$T/scrape" "$T/full-raw"
ok $? "CHECKPOINT_METRICS_FILTER=0: nothing else changes"
lint "CHECKPOINT_METRICS_FILTER=0"
stop_server
unset CHECKPOINT_METRICS_FILTER

# --- CHECKPOINT_METRICS=0 -------------------------------------------------------

CHECKPOINT_METRICS=0
export CHECKPOINT_METRICS
start_server
http GET /metrics
is "$STATUS $BODY" '404 {"errors":["Not found: /metrics"]}' \
    "CHECKPOINT_METRICS=0: GET /metrics is 404"
http POST /metrics
is "$STATUS $BODY" '404 {"errors":["Not found: /metrics"]}' \
    "CHECKPOINT_METRICS=0: POST /metrics is 404, not 405"
http GET /jobs/$J1/checkpoints/00000000000000000000000000000101
is "$STATUS" 404 "CHECKPOINT_METRICS=0: the API still answers"
stop_server
unset CHECKPOINT_METRICS

# --- A database from before the metrics: its triggers counted -------------

# Made as versions 1 and 2 of the schema made it, with a trigger of each
# kind; the first program to open it migrates it.
K=beef0000000000000000000000000001
KU=beef0000000000000000000000000009
OLD=$T/old.db
EXPIRED_TRACE='org.apache.flink.runtime.checkpoint.CheckpointException: Checkpoint expired before completing.
	at checkpoint action (killed after its timeout of 1 s)'
DECLINED_TRACE='org.apache.flink.runtime.checkpoint.CheckpointException: Checkpoint was declined. Checkpoint expired before completing.
	at checkpoint action (it exited with status 1)'
NOW=$(now_ms)
{
	cat "$top_srcdir/schema/0001-initial.sql" \
	    "$top_srcdir/schema/0002-triggers-check.sql"
	cat <<-EOF
	PRAGMA user_version = 2;
	PRAGMA application_id = $((0x636b7074));
	INSERT INTO jobs (job_id, name, created_ms, updated_ms)
	VALUES ('$K', 'old job', 1, 1);
	INSERT INTO checkpoint_counters VALUES ('$K', 5);
	INSERT INTO triggers (job_id, trigger_id, requested_type, status,
	    checkpoint_id, created_ms, claimed_by, claimed_ms, completed_ms,
	    failure_class, failure_trace) VALUES
	('$K', '$(printf '%032x' 1)', 'FULL', 'COMPLETED', 1, 1000, NULL,
	    NULL, 1300, NULL, NULL),
	('$K', '$(printf '%032x' 2)', 'FULL', 'COMPLETED', 2, 1500, 'r:1:1',
	    1600, 1700, 'org.apache.flink.runtime.checkpoint.CheckpointException',
	    '$(sqlq "$DECLINED_TRACE")'),
	('$K', '$(printf '%032x' 3)', 'FULL', 'COMPLETED', 3, 2000, 'r:1:1',
	    2100, 2600, NULL, NULL),
	('$K', '$(printf '%032x' 4)', 'FULL', 'COMPLETED', 4, 3000, 'r:1:1',
	    3100, 4100, 'org.apache.flink.runtime.checkpoint.CheckpointException',
	    '$(sqlq "$EXPIRED_TRACE")'),
	('$KU', '$(printf '%032x' 5)', 'FULL', 'COMPLETED', NULL, 5000, NULL,
	    NULL, 5001, 'java.util.concurrent.CompletionException', 'x'),
	('$K', '$(printf '%032x' 6)', 'FULL', 'IN_PROGRESS', 5, 6000, 'r:1:1',
	    6100, NULL, NULL, NULL),
	('$K', '$(printf '%032x' 7)', 'FULL', 'IN_PROGRESS', NULL, $((NOW - 60000)),
	    NULL, NULL, NULL, NULL, NULL);
	EOF
} | sqlite3 -batch "$OLD" || bail "cannot make a database of version 2"
NEW_DB=$DB
DB=$OLD
CHECKPOINT_DB=$OLD
start_server
printf '%s\told_job\t2 2 1 5 500 3 0 0\n' "$K" > "$T/jobs"
BEFORE=$(now_ms)
scrape
queued_age "migrated"
answer_is "a database of version 2, migrated: its triggers counted" \
    1 "$AGE" 1 2 1 1 1 0.000 0 0.000
stop_server
DB=$NEW_DB
CHECKPOINT_DB=$DB

# --- The database unavailable -----------------------------------------------------

UNAVAILABLE='{"errors":["Service temporarily unavailable: the checkpoint database cannot be opened or read. Please retry."]}'
printf 'not a database, but long enough to be read as one...%0512d' 0 \
    > "$T/garbage.db"
for db in "$T/garbage.db" "$T/missing/checkpoints.db"; do
	CHECKPOINT_DB=$db
	start_server
	http GET /metrics
	case $db in
	*missing*) _want=$NO_DATABASE ;; # only checkpointctl init makes one
	*) _want=$UNAVAILABLE ;;
	esac
	is "$STATUS $BODY" "503 $_want" "${db#"$T"/}: 503"
	is "$(header content-type)" "application/json; charset=UTF-8" \
	    "${db#"$T"/}: the 503 is JSON"
	stop_server
done
CHECKPOINT_DB=$DB

done_testing
