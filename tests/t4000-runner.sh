#!/bin/sh
# checkpoint-runner, black-box: real processes, a real database, triggers
# recorded through the real API behind lighttpd (checkpoint-api(7),
# "FAILURE CAUSES" and "CHECKPOINT IDS"; checkpoint-runner(8)).  Checkpoint
# ids per job in arrival order; CONFIGURED resolved to the job's type;
# unknown and stopped jobs failed as Flink's FlinkJobNotFoundException;
# actions with their environment, location, failures and timeouts; one
# job's actions never overlap, several jobs' run in parallel; idempotent
# re-POSTs; --watch and SIGTERM; stale claims of dead runners, simulated and
# real (kill -9); --stats; purging; bad options and databases; batched
# passes.
#
# Actions' commands are written in single quotes on purpose: their $VARS
# are for the action's shell, not this one.  $PIDS is a list.
# shellcheck disable=SC2016,SC2086

. "$(dirname "$0")/lib.sh"

for c in lighttpd sqlite3 curl md5sum timeout perl; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing"
done

HOST=$(uname -n)
RLOG=$T/runner.log

# --- helpers ----------------------------------------------------------------

now_ms() {
	echo $(($(date +%s%N) / 1000000))
}

jid() {
	printf 'feed%028x' "$1"
}

tid() {
	printf '%032x' "$1"
}

# The database, waiting for a lock rather than failing at once.
dbq() {
	sqlite3 -batch -noheader -cmd '.timeout 5000' "$DB" "$@"
}

sqlq() {
	printf '%s' "$1" | sed "s/'/''/g"
}

# add_job JOB STATE TYPE COMMAND [TIMEOUT_S]: COMMAND '' for none.
add_job() {
	_now=$(now_ms)
	if [ -n "$4" ]; then
		_cmd="'$(sqlq "$4")'"
	else
		_cmd=NULL
	fi
	dbq "INSERT INTO jobs (job_id, command, checkpoint_type, state,
	    timeout_s, created_ms, updated_ms) VALUES ('$1', $_cmd, '$3',
	    '$2', ${5:-600}, $_now, $_now)"
}

# post JOB TID [TYPE]: a trigger through the API; true on 202 with that id.
post() {
	if [ -n "${3:-}" ]; then
		http POST "/jobs/$1/checkpoints" \
		    "{\"checkpointType\":\"$3\",\"triggerId\":\"$2\"}"
	else
		http POST "/jobs/$1/checkpoints" "{\"triggerId\":\"$2\"}"
	fi
	if [ "$STATUS" = 202 ] && [ "$BODY" = "{\"request-id\":\"$2\"}" ]; then
		return 0
	fi
	diag "POST /jobs/$1/checkpoints ($2): $STATUS $BODY"
	return 1
}

# status JOB TID: the GET body.
status() {
	http GET "/jobs/$1/checkpoints/$2"
	printf '%s' "$BODY"
}

completed() {
	printf '{"status":{"id":"COMPLETED"},"operation":{"checkpointId":%s}}' "$1"
}

IN_PROGRESS='{"status":{"id":"IN_PROGRESS"},"operation":null}'
JOB_CLASS=java.util.concurrent.CompletionException
JOB_TRACE='java.util.concurrent.CompletionException: org.apache.flink.runtime.messages.FlinkJobNotFoundException: Could not find Flink job'
CKPT_CLASS=org.apache.flink.runtime.checkpoint.CheckpointException
DECLINED="$CKPT_CLASS: Checkpoint was declined."
EXPIRED="$CKPT_CLASS: Checkpoint expired before completing."

# failed_body CLASS TRACE-START: how a GET answering a failure begins.
failed_body() {
	printf '{"status":{"id":"COMPLETED"},"operation":{"failureCause":{"class":"%s","stack-trace":"%s' "$1" "$2"
}

# One pass of the runner (its log goes to $RLOG).
pass() {
	"$RUNNER" "$@" 2>>"$RLOG"
}

# rows JOB: status|checkpoint_id|checkpoint_type|location|failure_class of
# the job's triggers in arrival order, one per line.
rows() {
	dbq "SELECT status, coalesce(checkpoint_id, '-'),
	    coalesce(checkpoint_type, '-'), coalesce(location, '-'),
	    coalesce(failure_class, '-') FROM triggers WHERE job_id = '$1'
	    ORDER BY id"
}

# col JOB TID COLUMN: one column of one trigger (NULL shows as '-').
col() {
	dbq "SELECT coalesce($3, '-') FROM triggers
	    WHERE job_id = '$1' AND trigger_id = '$2'"
}

# trace1 JOB TID: the first line of the trigger's stack trace.
trace1() {
	col "$1" "$2" failure_trace | head -n 1
}

# lines ARG...: the arguments, one per line (what a file should hold).
lines() {
	printf '%s\n' "$@"
}

# begins GOT PREFIX DESCRIPTION: GOT starts with PREFIX, taken literally.
begins() {
	case $1 in
	"$2"*)
		ok 0 "$3"
		;;
	*)
		ok 1 "$3"
		printf '%s\n' "expected to begin with: $2" \
		    "                   got: $1" | sed 's/^/#   /'
		;;
	esac
}

# kill_leftover PID: ends a process a failed case left behind.
kill_leftover() {
	if [ -n "$1" ] && ! gone "$1"; then
		kill -9 "$1" 2>/dev/null
	fi
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
	PIDS=$(printf '%s\n' $PIDS | grep -vx "$1" | tr '\n' ' ')
}

# ms_since START_NS
ms_since() {
	echo $((($(date +%s%N) - $1) / 1000000))
}

# A pid that is not running now, for a dead runner's claim.
dead_pid() {
	_p=999999
	while [ -e "/proc/$_p" ]; do
		_p=$((_p - 1))
	done
	echo "$_p"
}

# --- set-up -----------------------------------------------------------------

pass
ok $? "a pass over a new database creates it and exits 0"
like "$(pass --stats)" \
    '^\{"completed":0,"failed":0,"stale":0,"purged":0,"actions":0,"transactions":[0-9]+,"duration_ms":[0-9]+\}$' \
    "--stats of a pass with nothing to do: all zero"
start_lighttpd

# --- a job without a command ---------------------------------------------------

J=$(jid 1)
add_job "$J" RUNNING FULL ""
post "$J" "$(tid 101)" && post "$J" "$(tid 102)" && post "$J" "$(tid 103)"
ok $? "no command: three triggers recorded through the API"
is "$(status "$J" "$(tid 101)")" "$IN_PROGRESS" \
    "no command: IN_PROGRESS before a pass"
pass
ok $? "no command: the pass exits 0"
is "$(status "$J" "$(tid 101)")" "$(completed 1)" \
    "no command: the first trigger completes with checkpointId 1"
is "$(status "$J" "$(tid 102)")" "$(completed 2)" \
    "no command: the second with checkpointId 2"
is "$(status "$J" "$(tid 103)")" "$(completed 3)" \
    "no command: the third with checkpointId 3"
is "$(rows "$J")" "$(lines 'COMPLETED|1|FULL|-|-' 'COMPLETED|2|FULL|-|-' \
    'COMPLETED|3|FULL|-|-')" "no command: the rows, no location, no failure"
is "$(dbq "SELECT count(*) FROM triggers WHERE job_id = '$J'
    AND (claimed_by IS NOT NULL OR completed_ms IS NULL)")" 0 \
    "no command: completed without a claim, with a completion time"
post "$J" "$(tid 104)" && pass
is "$(status "$J" "$(tid 104)")" "$(completed 4)" \
    "no command: a later pass goes on with checkpointId 4"

# --- ids are per job -------------------------------------------------------------

JA=$(jid 2)
JB=$(jid 3)
add_job "$JA" RUNNING FULL ""
add_job "$JB" RUNNING FULL ""
post "$JA" "$(tid 201)" && post "$JB" "$(tid 202)" &&
    post "$JA" "$(tid 203)" && post "$JB" "$(tid 204)" &&
    post "$JA" "$(tid 205)"
ok $? "per job: five triggers of two jobs, interleaved"
pass
is "$(dbq "SELECT group_concat(checkpoint_id, ' ') FROM (SELECT checkpoint_id
    FROM triggers WHERE job_id = '$JA' ORDER BY id)")" "1 2 3" \
    "per job: the first job's ids are 1 2 3 in arrival order"
is "$(dbq "SELECT group_concat(checkpoint_id, ' ') FROM (SELECT checkpoint_id
    FROM triggers WHERE job_id = '$JB' ORDER BY id)")" "1 2" \
    "per job: the second job's ids are 1 2"
is "$(status "$JB" "$(tid 204)")" "$(completed 2)" \
    "per job: GET of the second job's second trigger"

# --- checkpoint types --------------------------------------------------------------

JI=$(jid 4)
JF=$(jid 5)
add_job "$JI" RUNNING INCREMENTAL ""
add_job "$JF" RUNNING FULL ""
post "$JI" "$(tid 401)" && post "$JI" "$(tid 402)" FULL &&
    post "$JI" "$(tid 403)" INCREMENTAL && post "$JI" "$(tid 404)" CONFIGURED &&
    post "$JF" "$(tid 405)" && post "$JF" "$(tid 406)" INCREMENTAL
ok $? "types: six triggers recorded"
pass
is "$(dbq "SELECT requested_type || '>' || checkpoint_type FROM triggers
    WHERE job_id = '$JI' ORDER BY id")" \
    "$(lines 'CONFIGURED>INCREMENTAL' 'FULL>FULL' 'INCREMENTAL>INCREMENTAL' \
    'CONFIGURED>INCREMENTAL')" \
    "types: on an INCREMENTAL job CONFIGURED resolves to INCREMENTAL, FULL stays FULL"
is "$(dbq "SELECT requested_type || '>' || checkpoint_type FROM triggers
    WHERE job_id = '$JF' ORDER BY id")" \
    "$(lines 'CONFIGURED>FULL' 'INCREMENTAL>INCREMENTAL')" \
    "types: on a FULL job CONFIGURED resolves to FULL, INCREMENTAL stays"

# --- unknown and not-running jobs ------------------------------------------------------

JU=$(jid 6)
JFIN=$(jid 7)
JCAN=$(jid 8)
JSUS=$(jid 9)
JFLD=$(jid 10)
add_job "$JFIN" FINISHED FULL "touch $T/finished-ran"
add_job "$JCAN" CANCELED FULL ""
add_job "$JSUS" SUSPENDED FULL ""
add_job "$JFLD" FAILED FULL ""
TX=$(tid 600)
post "$JU" "$TX" && post "$JFIN" "$TX" && post "$JCAN" "$TX" &&
    post "$JSUS" "$TX" && post "$JFLD" "$TX"
ok $? "not running: one trigger (the same id) for each of five jobs"
pass
for pair in "unknown:$JU" "FINISHED:$JFIN" "CANCELED:$JCAN" \
    "SUSPENDED:$JSUS" "FAILED:$JFLD"; do
	what=${pair%%:*}
	j=${pair#*:}
	begins "$(status "$j" "$TX")" \
	    "$(failed_body "$JOB_CLASS" "$JOB_TRACE ($j)")" \
	    "$what job: GET answers Flink's FlinkJobNotFoundException"
	is "$(col "$j" "$TX" status)|$(col "$j" "$TX" failure_class)|$(trace1 "$j" "$TX")" \
	    "COMPLETED|$JOB_CLASS|$JOB_TRACE ($j)" \
	    "$what job: the row's failure class and first trace line"
	is "$(col "$j" "$TX" checkpoint_id)|$(col "$j" "$TX" checkpoint_type)" \
	    "-|-" "$what job: no checkpoint id, no type"
done
is "$(dbq "SELECT count(*) FROM checkpoint_counters WHERE job_id IN
    ('$JU', '$JFIN', '$JCAN', '$JSUS', '$JFLD')")" 0 \
    "not running: no checkpoint id consumed"
test ! -e "$T/finished-ran"
ok $? "not running: a FINISHED job's command is not run"
add_job "$JU" RUNNING FULL ""
dbq "UPDATE jobs SET state = 'RUNNING' WHERE job_id = '$JFIN'"
post "$JU" "$(tid 601)" && post "$JFIN" "$(tid 601)" && pass
is "$(status "$JU" "$(tid 601)")" "$(completed 1)" \
    "not running: once registered, the unknown job's first id is 1"
is "$(status "$JFIN" "$(tid 601)")" "$(completed 1)" \
    "not running: once RUNNING again, the job's first id is 1"
test -e "$T/finished-ran"
ok $? "not running: once RUNNING again, its command runs"

# --- an action that succeeds: environment and location ------------------------------------

J=$(jid 11)
add_job "$J" RUNNING INCREMENTAL 'printf "%s\n" "$CHECKPOINT_JOB_ID" "$CHECKPOINT_ID" "$CHECKPOINT_TYPE" "$CHECKPOINT_TRIGGER_ID" > '"$T"'/env11
env | cut -d= -f1 | grep -v -e "^PWD$" -e "^SHLVL$" -e "^_$" | sort | tr "\n" " " > '"$T"'/names11
echo "not the location"
echo "file:///backups/$CHECKPOINT_JOB_ID/chk-$CHECKPOINT_ID  "
echo'
post "$J" "$(tid 1101)"
SECRET_TOKEN=hunter2 pass
ok $? "action: the pass exits 0"
is "$(cat "$T/env11")" "$(lines "$J" 1 INCREMENTAL "$(tid 1101)")" \
    "action: CHECKPOINT_JOB_ID, _ID, _TYPE (resolved), _TRIGGER_ID reach it"
is "$(cat "$T/names11")" \
    "CHECKPOINT_ID CHECKPOINT_JOB_ID CHECKPOINT_TRIGGER_ID CHECKPOINT_TYPE PATH " \
    "action: nothing else of the runner's environment (CHECKPOINT_DB, SECRET_TOKEN)"
is "$(status "$J" "$(tid 1101)")" "$(completed 1)" \
    "action: GET answers COMPLETED with checkpointId 1"
is "$(rows "$J")" "COMPLETED|1|INCREMENTAL|file:///backups/$J/chk-1|-" \
    "action: its last non-empty stdout line, trimmed, is the location"
post "$J" "$(tid 1102)" FULL && pass
is "$(cat "$T/env11")" "$(lines "$J" 2 FULL "$(tid 1102)")" \
    "action: an explicit FULL reaches it as FULL, with id 2"

# --- request data is never spliced into the shell --------------------------------------

J=$(jid 12)
add_job "$J" RUNNING FULL 'echo "$CHECKPOINT_TRIGGER_ID" > '"$T"'/tid12; echo "$# $0" >> '"$T"'/tid12'
http POST "/jobs/$J/checkpoints" '{"triggerId":"ABCDEF0123456789ABCDEF0123456789"}'
is "$STATUS $BODY" '202 {"request-id":"abcdef0123456789abcdef0123456789"}' \
    "not spliced: a trigger with an upper-case id"
pass
is "$(cat "$T/tid12")" "$(lines abcdef0123456789abcdef0123456789 '0 sh')" \
    "not spliced: the id reaches the fixed command only by its environment"
is "$(dbq "SELECT command FROM jobs WHERE job_id = '$J'")" \
    'echo "$CHECKPOINT_TRIGGER_ID" > '"$T"'/tid12; echo "$# $0" >> '"$T"'/tid12' \
    "not spliced: the job's command is as the operator wrote it"

# --- an action that fails ---------------------------------------------------------------

J=$(jid 13)
add_job "$J" RUNNING FULL "echo 'disk full' >&2; exit 3"
post "$J" "$(tid 1301)" && pass
begins "$(status "$J" "$(tid 1301)")" \
    "$(failed_body "$CKPT_CLASS" "$DECLINED disk full")" \
    "failing action: GET answers CheckpointException, declined, with its stderr"
is "$(col "$J" "$(tid 1301)" failure_class)|$(trace1 "$J" "$(tid 1301)")" \
    "$CKPT_CLASS|$DECLINED disk full" \
    "failing action: the row's class and first trace line"
is "$(rows "$J")" "COMPLETED|1|FULL|-|$CKPT_CLASS" \
    "failing action: its checkpoint id 1 is consumed, no location"
post "$J" "$(tid 1302)" && pass
is "$(col "$J" "$(tid 1302)" checkpoint_id)" 2 \
    "failing action: the next attempt gets id 2"
dbq "UPDATE jobs SET command = 'echo ok' WHERE job_id = '$J'"
post "$J" "$(tid 1303)" && pass
is "$(status "$J" "$(tid 1303)")" "$(completed 3)" \
    "failing action: once it succeeds, checkpointId 3"

J=$(jid 14)
add_job "$J" RUNNING FULL 'exit 5'
JK=$(jid 15)
add_job "$JK" RUNNING FULL 'kill -9 $$'
post "$J" "$(tid 1401)" && post "$JK" "$(tid 1401)" && pass
begins "$(trace1 "$J" "$(tid 1401)")" "$DECLINED" \
    "failing action without stderr: declined"
begins "$(trace1 "$JK" "$(tid 1401)")" "$DECLINED" \
    "action killed by a signal: declined"

# --- an action past its timeout -----------------------------------------------------------

J=$(jid 16)
add_job "$J" RUNNING FULL "sleep 30 & echo \$! > $T/pid16; wait" 1
post "$J" "$(tid 1601)"
t0=$(date +%s%N)
pass
ms=$(ms_since "$t0")
is "$(trace1 "$J" "$(tid 1601)")" "$EXPIRED" \
    "timeout: Checkpoint expired before completing."
begins "$(status "$J" "$(tid 1601)")" "$(failed_body "$CKPT_CLASS" "$EXPIRED")" \
    "timeout: GET answers the expiry"
is "$(rows "$J")" "COMPLETED|1|FULL|-|$CKPT_CLASS" \
    "timeout: its checkpoint id is consumed"
ok "$([ "$ms" -ge 1000 ] && [ "$ms" -lt 8000 ]; echo $?)" \
    "timeout: the pass ends after the 1 s timeout ($ms ms)"
P=$(cat "$T/pid16" 2>/dev/null)
wait_until 20 "gone '$P'"
ok $? "timeout: the action's background sleep ($P) is gone"
kill_leftover "$P"

# --- what an action leaves running ---------------------------------------------------------

J=$(jid 17)
add_job "$J" RUNNING FULL "sleep 30 & echo \$! > $T/pid17; echo done" 20
post "$J" "$(tid 1701)"
t0=$(date +%s%N)
pass
ms=$(ms_since "$t0")
is "$(rows "$J")" "COMPLETED|1|FULL|done|-" \
    "leftover: an action that exits 0 with a child running completes"
ok "$([ "$ms" -lt 5000 ]; echo $?)" \
    "leftover: its result does not wait for the child ($ms ms)"
P=$(cat "$T/pid17" 2>/dev/null)
wait_until 20 "gone '$P'"
ok $? "leftover: the child it left running ($P) is killed"
kill_leftover "$P"

# --- one job's actions never overlap ---------------------------------------------------------

J=$(jid 18)
add_job "$J" RUNNING FULL "echo \"start \$CHECKPOINT_ID\" >> $T/log18; sleep 0.3; echo \"end \$CHECKPOINT_ID\" >> $T/log18"
post "$J" "$(tid 1801)" && post "$J" "$(tid 1802)" && post "$J" "$(tid 1803)"
pass --parallel 4
ok $? "no overlap: one pass over three triggers of one job"
post "$J" "$(tid 1804)" && post "$J" "$(tid 1805)" &&
    post "$J" "$(tid 1806)" && post "$J" "$(tid 1807)"
ok $? "no overlap: four more triggers"
spawn "$RUNNER" --watch --parallel 4 2>>"$RLOG"
W=$LAST_PID
"$RUNNER" --parallel 4 2>>"$RLOG" &
O=$!
wait "$O"
ok $? "no overlap: a one-shot pass beside a --watch runner exits 0"
wait_until 100 "[ \"\$(dbq \"SELECT count(*) FROM triggers
    WHERE job_id = '$J' AND status = 'IN_PROGRESS'\")\" = 0 ]"
ok $? "no overlap: all seven triggers completed"
term_wait "$W"
is "$(cat "$T/log18")" "$(for i in 1 2 3 4 5 6 7; do
	lines "start $i" "end $i"; done)" \
    "no overlap: start/end strictly alternate, ids 1..7 each once"
is "$(dbq "SELECT group_concat(checkpoint_id || ':' || coalesce(location, '')
    || coalesce(failure_class, ''), ' ') FROM (SELECT * FROM triggers
    WHERE job_id = '$J' ORDER BY id)")" "1: 2: 3: 4: 5: 6: 7:" \
    "no overlap: ids 1..7 in arrival order, all succeeded"

# --- several jobs' actions run in parallel ----------------------------------------------------

JA=$(jid 19)
JB=$(jid 20)
add_job "$JA" RUNNING FULL "echo start >> $T/log19; sleep 1; echo end >> $T/log19"
add_job "$JB" RUNNING FULL "echo start >> $T/log19; sleep 1; echo end >> $T/log19"
post "$JA" "$(tid 1901)" && post "$JB" "$(tid 1901)"
t0=$(date +%s%N)
pass --parallel 2
ms=$(ms_since "$t0")
is "$(head -n 2 "$T/log19" | tr '\n' ' ')" "start start " \
    "parallel 2: both jobs' actions started before either ended"
ok "$([ "$ms" -lt 1900 ]; echo $?)" \
    "parallel 2: one 1 s action per job, the pass takes < 1.9 s ($ms ms)"
is "$(dbq "SELECT count(*) FROM triggers WHERE job_id IN ('$JA', '$JB')
    AND status = 'COMPLETED' AND failure_class IS NULL")" 2 \
    "parallel 2: both completed"
: > "$T/log19"
post "$JA" "$(tid 1902)" && post "$JB" "$(tid 1902)"
pass --parallel 1
is "$(tr '\n' ' ' < "$T/log19")" "start end start end " \
    "parallel 1: one action at a time"

# --- idempotency across the runner --------------------------------------------------------------

J=$(jid 21)
add_job "$J" RUNNING FULL "echo x >> $T/count21"
post "$J" "$(tid 2101)" && pass
is "$(status "$J" "$(tid 2101)")" "$(completed 1)" "idempotency: completed"
post "$J" "$(tid 2101)" INCREMENTAL
ok $? "idempotency: the same triggerId again answers 202 with its id"
is "$(status "$J" "$(tid 2101)")" "$(completed 1)" \
    "idempotency: still the same result right after"
out=$(pass --stats)
like "$out" '"completed":0,.*"actions":0,' \
    "idempotency: the next pass has nothing to do"
is "$(wc -l < "$T/count21" | tr -d ' ')" 1 \
    "idempotency: the command ran once"
is "$(dbq "SELECT count(*) || ' ' || max(checkpoint_id) || ' ' ||
    max(checkpoint_type) FROM triggers WHERE job_id = '$J'")" "1 1 FULL" \
    "idempotency: one row, checkpoint 1, its type unchanged"
is "$(dbq "SELECT last_id FROM checkpoint_counters WHERE job_id = '$J'")" 1 \
    "idempotency: no second id handed out"

# --- --watch ------------------------------------------------------------------------------------

J=$(jid 22)
add_job "$J" RUNNING FULL ""
spawn "$RUNNER" --watch 2>>"$RLOG"
W=$LAST_PID
sleep 0.2
post "$J" "$(tid 2201)"
wait_until 30 "[ \"\$(status $J $(tid 2201))\" = '$(completed 1)' ]"
ok $? "--watch: a new trigger is COMPLETED within 3 s"
is "$(status "$J" "$(tid 2201)")" "$(completed 1)" "--watch: its GET body"
post "$J" "$(tid 2202)"
wait_until 30 "[ \"\$(status $J $(tid 2202))\" = '$(completed 2)' ]"
ok $? "--watch: and the next one, checkpointId 2"
term_wait "$W"
is "$RC" 0 "--watch: SIGTERM, exit status 0"
gone "$W"
ok $? "--watch: the process is gone"

J=$(jid 23)
add_job "$J" RUNNING FULL 'sleep 1; echo "done $CHECKPOINT_ID"'
spawn "$RUNNER" --watch 2>>"$RLOG"
W=$LAST_PID
sleep 0.2
post "$J" "$(tid 2301)"
wait_until 30 "[ \"\$(col $J $(tid 2301) claimed_by)\" != - ]"
ok $? "--watch: the slow action is claimed"
term_wait "$W"
is "$RC" 0 "--watch: SIGTERM while an action runs, exit status 0"
is "$(rows "$J")" "COMPLETED|1|FULL|done 1|-" \
    "--watch: the runner waited for the action and recorded its result"

# --- stale claims -----------------------------------------------------------------------------------

DEAD=$(dead_pid)

# claim JOB TID OWNER LEASE_MS ID: what a runner's claim leaves in the row.
claim() {
	_now=$(now_ms)
	dbq "UPDATE triggers SET claimed_by = '$3', claimed_ms = $_now,
	    lease_ms = $4, checkpoint_id = $5, checkpoint_type = 'FULL'
	    WHERE job_id = '$1' AND trigger_id = '$2';
	    INSERT INTO checkpoint_counters (job_id, last_id) VALUES ('$1', $5)
	    ON CONFLICT (job_id) DO UPDATE SET last_id = $5"
}
FAR=$(($(now_ms) + 86400000))

J=$(jid 24)
add_job "$J" RUNNING FULL "touch $T/ran24" 5
post "$J" "$(tid 2401)"
claim "$J" "$(tid 2401)" "$HOST:$DEAD:1" "$FAR" 1
is "$(status "$J" "$(tid 2401)")" "$IN_PROGRESS" "stale: a claimed trigger is IN_PROGRESS"
out=$(pass --stats)
like "$out" '"completed":0,"failed":1,"stale":1,.*"actions":0,' \
    "stale: a dead runner's claim (pid $DEAD, lease far ahead) counted as stale"
is "$(rows "$J")" "COMPLETED|1|FULL|-|$CKPT_CLASS" \
    "stale: resolved as a failure, its checkpoint id 1 kept"
is "$(trace1 "$J" "$(tid 2401)")" "$EXPIRED" \
    "stale: Checkpoint expired before completing."
test ! -e "$T/ran24"
ok $? "stale: the command is not run again"
post "$J" "$(tid 2402)" && pass
is "$(col "$J" "$(tid 2402)" checkpoint_id)" 2 "stale: the next trigger gets id 2"

# A reused pid: the process lives, but it is not the runner that claimed.
J=$(jid 25)
add_job "$J" RUNNING FULL "true" 5
post "$J" "$(tid 2501)"
claim "$J" "$(tid 2501)" "$HOST:$$:1" "$FAR" 1
pass
is "$(trace1 "$J" "$(tid 2501)")" "$EXPIRED" \
    "stale: a claim naming a live pid with another start time is stale"

# The claim of a live runner on this host is its own business...
MYSTART=$(sed 's/.*) //' /proc/$$/stat | cut -d' ' -f20)
J=$(jid 26)
add_job "$J" RUNNING FULL "true" 5
post "$J" "$(tid 2601)"
claim "$J" "$(tid 2601)" "$HOST:$$:$MYSTART" "$FAR" 1
pass
is "$(col "$J" "$(tid 2601)" status)|$(col "$J" "$(tid 2601)" claimed_by)" \
    "IN_PROGRESS|$HOST:$$:$MYSTART" \
    "stale: a live runner's claim within its lease is left alone"
# ...until its lease has run out (runner.c: "a claim whose runner is gone
# from this host, or whose lease has run out, is stale").
dbq "UPDATE triggers SET lease_ms = $(($(now_ms) - 1000))
    WHERE job_id = '$J' AND trigger_id = '$(tid 2601)'"
pass
is "$(col "$J" "$(tid 2601)" status)|$(trace1 "$J" "$(tid 2601)")" \
    "COMPLETED|$EXPIRED" \
    "stale: a live runner's claim past its lease is resolved as expired"
# Whatever the outcome above, nothing may stay IN_PROGRESS for later cases.
dbq "UPDATE triggers SET claimed_by = '$HOST:$DEAD:1'
    WHERE job_id = '$J' AND status = 'IN_PROGRESS'"
pass

J=$(jid 27)
add_job "$J" RUNNING FULL "touch $T/ran27" 5
post "$J" "$(tid 2701)"
claim "$J" "$(tid 2701)" "otherhost:1:1" "$FAR" 1
out=$(pass --stats)
is "$(col "$J" "$(tid 2701)" status)|$(col "$J" "$(tid 2701)" claimed_by)" \
    "IN_PROGRESS|otherhost:1:1" \
    "stale: another host's claim with its lease ahead is left alone"
like "$out" '"stale":0,' "stale: and not counted"
dbq "UPDATE triggers SET lease_ms = $(($(now_ms) - 1000))
    WHERE job_id = '$J' AND trigger_id = '$(tid 2701)'"
pass
is "$(rows "$J")" "COMPLETED|1|FULL|-|$CKPT_CLASS" \
    "stale: another host's claim past its lease is resolved, id 1 kept"
is "$(trace1 "$J" "$(tid 2701)")" "$EXPIRED" "stale: as expired"
test ! -e "$T/ran27"
ok $? "stale: the other host's command is not run here"

# A pass must end even while another runner holds a claim on a job that has
# more triggers waiting (one pass, then exit, for cron: checkpoint-runner(8)).
J=$(jid 28)
add_job "$J" RUNNING FULL "true" 5
post "$J" "$(tid 2801)" && post "$J" "$(tid 2802)"
claim "$J" "$(tid 2801)" "otherhost:1:1" "$FAR" 1
t0=$(date +%s%N)
timeout 5 "$RUNNER" >/dev/null 2>>"$RLOG"
RC=$?
ms=$(ms_since "$t0")
is "$RC" 0 "stale: a pass beside another host's live claim ends by itself ($ms ms)"
is "$(dbq "SELECT group_concat(status || ':' || coalesce(claimed_by, '-'), ' ')
    FROM (SELECT * FROM triggers WHERE job_id = '$J' ORDER BY id)")" \
    "IN_PROGRESS:otherhost:1:1 IN_PROGRESS:-" \
    "stale: the claimed trigger and the one behind it are left waiting"
dbq "UPDATE triggers SET lease_ms = $(($(now_ms) - 1000))
    WHERE job_id = '$J' AND trigger_id = '$(tid 2801)'"
pass
is "$(rows "$J")" "$(lines "COMPLETED|1|FULL|-|$CKPT_CLASS" \
    'COMPLETED|2|FULL|-|-')" \
    "stale: once the lease ran out, one pass resolves both, ids 1 and 2"

# A real runner, killed while its action runs.
J=$(jid 29)
add_job "$J" RUNNING FULL "echo \$\$ > $T/pid29; sleep 5" 60
post "$J" "$(tid 2901)"
spawn "$RUNNER" 2>>"$RLOG"
R=$LAST_PID
wait_until 50 "[ \"\$(col $J $(tid 2901) claimed_by)\" != - ] && [ -s $T/pid29 ]"
ok $? "killed runner: its action started"
like "$(col "$J" "$(tid 2901)" claimed_by)" "^$HOST:$R:[0-9]+\$" \
    "killed runner: the claim names host:pid:start"
stop_pid "$R" KILL
P=$(cat "$T/pid29")
wait_until 20 "gone '$P'"
ok $? "killed runner: its action's shell ($P) ends with it"
kill_leftover "$P"
out=$(pass --stats)
like "$out" '"stale":1,' "killed runner: the next pass finds one stale claim"
is "$(rows "$J")" "COMPLETED|1|FULL|-|$CKPT_CLASS" \
    "killed runner: the trigger completes as a failure, id 1 kept"
is "$(trace1 "$J" "$(tid 2901)")" "$EXPIRED" "killed runner: as expired"
is "$(dbq "SELECT count(*) FROM triggers WHERE status = 'IN_PROGRESS'")" 0 \
    "killed runner: no trigger stays IN_PROGRESS"
post "$J" "$(tid 2902)" && pass
is "$(col "$J" "$(tid 2902)" checkpoint_id)" 2 \
    "killed runner: the next trigger gets id 2"

# A runner killed after its action's timeout, in the grace period before
# SIGKILL, while the action ignores the SIGTERM it got: the watchdog, which
# that SIGTERM to the group must spare, kills the group when the runner
# dies.  The action notes the SIGTERM, and its shell lives on.
J=$(jid 38)
add_job "$J" RUNNING FULL "trap 'echo > $T/term38' TERM; echo \$\$ > $T/pid38; while :; do sleep 60 & wait; done" 1
post "$J" "$(tid 3801)"
spawn "$RUNNER" 2>>"$RLOG"
R=$LAST_PID
wait_until 100 "[ -e $T/term38 ]"
ok $? "killed in the grace period: the action got its timeout's SIGTERM"
stop_pid "$R" KILL
P=$(cat "$T/pid38")
wait_until 30 "gone '$P'"
ok $? "killed in the grace period: the action's shell ($P) ends with the runner"
kill_leftover "$P"
pass
is "$(rows "$J")" "COMPLETED|1|FULL|-|$CKPT_CLASS" \
    "killed in the grace period: the next pass resolves the trigger"

# A runner started with SIGCHLD ignored (as some supervisors leave it):
# the kernel would reap each action's shell, and a pass would wait for it
# forever.
J=$(jid 39)
add_job "$J" RUNNING FULL "echo here" 5
post "$J" "$(tid 3901)"
timeout -k 5 20 perl -e '$SIG{CHLD} = "IGNORE"; exec @ARGV' "$RUNNER" 2>>"$RLOG"
is $? 0 "SIGCHLD ignored: the pass ends"
is "$(rows "$J")" "COMPLETED|1|FULL|here|-" \
    "SIGCHLD ignored: the action's result is recorded"

# --- --stats ----------------------------------------------------------------------------------------

JOK=$(jid 30)
JT=$(jid 31)
JX=$(jid 32)
JU=$(jid 33)
add_job "$JOK" RUNNING FULL ""
add_job "$JT" RUNNING FULL "true"
add_job "$JX" RUNNING FULL "exit 1"
post "$JOK" "$(tid 3001)" && post "$JOK" "$(tid 3002)" &&
    post "$JT" "$(tid 3003)" && post "$JX" "$(tid 3004)" &&
    post "$JU" "$(tid 3005)"
ok $? "--stats: five triggers"
pass --stats > "$T/stats"
ok $? "--stats: the pass exits 0"
is "$(wc -l < "$T/stats" | tr -d ' ')" 1 "--stats: exactly one line"
like "$(cat "$T/stats")" \
    '^\{"completed":3,"failed":2,"stale":0,"purged":0,"actions":2,"transactions":[1-9][0-9]*,"duration_ms":[0-9]+\}$' \
    "--stats: the keys in order, with the right counts"
is "$(pass)" "" "without --stats nothing goes to stdout"

# --- purging ----------------------------------------------------------------------------------------

PDB=$T/purge.db
pass --db "$PDB"
JP=$(jid 34)
JQ=$(jid 35)
# The old rows are a day old and the purge keeps ten minutes, so however slow
# the machine (a sanitizer build), the result completed by the first pass is
# still fresh when the second pass looks.
now=$(now_ms)
old=$((now - 86400000))
sqlite3 "$PDB" "
INSERT INTO jobs (job_id, state, checkpoint_type, timeout_s, created_ms,
    updated_ms) VALUES ('$JP', 'RUNNING', 'FULL', 5, $old, $old);
INSERT INTO jobs (job_id, state, checkpoint_type, command, timeout_s,
    created_ms, updated_ms) VALUES ('$JQ', 'RUNNING', 'FULL', 'true', 5, $old,
    $old);
INSERT INTO checkpoint_counters VALUES ('$JP', 1), ('$JQ', 1);
INSERT INTO triggers (job_id, trigger_id, requested_type, checkpoint_type,
    status, checkpoint_id, created_ms, completed_ms) VALUES
    ('$JP', '$(tid 3401)', 'CONFIGURED', 'FULL', 'COMPLETED', 1, $old, $old);
INSERT INTO triggers (job_id, trigger_id, requested_type, created_ms)
    VALUES ('$JP', '$(tid 3402)', 'CONFIGURED', $old);
INSERT INTO triggers (job_id, trigger_id, requested_type, checkpoint_type,
    checkpoint_id, created_ms, claimed_by, claimed_ms, lease_ms) VALUES
    ('$JQ', '$(tid 3403)', 'CONFIGURED', 'FULL', 1, $old, 'otherhost:1:1',
    $old, $FAR);"
out=$(CHECKPOINT_STORE_DURATION=0 pass --db "$PDB" --stats)
like "$out" '"completed":1,.*"purged":0,' \
    "purge: with a store duration of 0 nothing is purged"
is "$(sqlite3 "$PDB" "SELECT count(*) FROM triggers")" 3 \
    "purge: all three rows kept"
out=$(CHECKPOINT_STORE_DURATION=10min pass --db "$PDB" --stats)
like "$out" '"purged":1,' "purge: with 10 min, one old result purged"
is "$(sqlite3 "$PDB" "SELECT trigger_id || ':' || status FROM triggers
    ORDER BY id")" "$(lines "$(tid 3402):COMPLETED" "$(tid 3403):IN_PROGRESS")" \
    "purge: the old result is gone; the fresh one and the running one stay"

# --- bad options and databases ------------------------------------------------------------------

for args in "--parallel 0" "--parallel 64" "--parallel" "--batch x" \
    "--batch 0" "--bogus" "extra-argument" "--log-level loud"; do
	"$RUNNER" --db "$T/never.db" $args > "$T/out" 2> "$T/err"
	is "$?" 2 "bad option $args: exit 2"
	test -s "$T/err"
	ok $? "bad option $args: a message on stderr"
done
test ! -e "$T/never.db"
ok $? "bad options: no database created"
CHECKPOINT_STORE_DURATION=forever "$RUNNER" --db "$T/never.db" 2> "$T/err"
is "$?" 2 "a bad CHECKPOINT_STORE_DURATION: exit 2"

echo "not a database, just text" > "$T/text.db"
sum=$(md5sum < "$T/text.db")
"$RUNNER" --db "$T/text.db" 2> "$T/err"
is "$?" 3 "a text file as database: exit 3"
is "$(md5sum < "$T/text.db")" "$sum" "a text file as database: unchanged"
"$RUNNER" --db "$T/no/such/dir/x.db" 2> "$T/err"
is "$?" 3 "a database in a missing directory: exit 3"

pass --db "$T/newer.db"
sqlite3 "$T/newer.db" 'PRAGMA user_version = 99'
sum=$(md5sum < "$T/newer.db")
"$RUNNER" --db "$T/newer.db" 2> "$T/err"
is "$?" 3 "a database from a newer version: exit 3"
is "$(md5sum < "$T/newer.db")" "$sum" "a database from a newer version: unchanged"
like "$(cat "$T/err")" "newer" "a database from a newer version: says so"

# --- batches --------------------------------------------------------------------------------------

BDB=$T/batch.db
pass --db "$BDB"
JA=$(jid 36)
JB=$(jid 37)
now=$(now_ms)
sqlite3 "$BDB" "BEGIN;
INSERT INTO jobs (job_id, state, checkpoint_type, timeout_s, created_ms,
    updated_ms) VALUES ('$JA', 'RUNNING', 'FULL', 5, $now, $now),
    ('$JB', 'RUNNING', 'INCREMENTAL', 5, $now, $now);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
INSERT INTO triggers (job_id, trigger_id, requested_type, created_ms)
    SELECT CASE i % 2 WHEN 1 THEN '$JA' ELSE '$JB' END, printf('%032x', i),
    'CONFIGURED', $now FROM n;
COMMIT;"
out=$(pass --db "$BDB" --batch 500 --stats)
ok $? "batch: one pass over 2000 triggers exits 0"
is "$(sqlite3 "$BDB" "SELECT status || ' ' || count(*) FROM triggers
    GROUP BY status")" "COMPLETED 2000" "batch: all 2000 COMPLETED"
for j in "$JA" "$JB"; do
	is "$(sqlite3 "$BDB" "SELECT count(*) || ' ' || count(DISTINCT
	    checkpoint_id) || ' ' || min(checkpoint_id) || ' ' ||
	    max(checkpoint_id) FROM triggers WHERE job_id = '$j'")" \
	    "1000 1000 1 1000" "batch: job $j has ids exactly 1..1000"
	is "$(sqlite3 "$BDB" "SELECT count(*) FROM (SELECT checkpoint_id,
	    row_number() OVER (ORDER BY id) AS n FROM triggers
	    WHERE job_id = '$j') WHERE checkpoint_id != n")" 0 \
	    "batch: job $j's ids follow arrival order"
done
like "$out" '^\{"completed":2000,"failed":0,' "batch: the stats count 2000"
tx=$(printf '%s' "$out" | sed -n 's/.*"transactions":\([0-9]*\).*/\1/p')
ok "$([ -n "$tx" ] && [ "$tx" -ge 4 ] && [ "$tx" -le 8 ]; echo $?)" \
    "batch: a handful of transactions for 2000 triggers (${tx:-?})"

done_testing
