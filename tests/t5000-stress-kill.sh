#!/bin/sh
# Stress and kills (checkpoint-api(7), "IDEMPOTENCY" and "CHECKPOINT IDS";
# checkpoint-runner(8), "Crashes").  Sixteen curl clients POST triggers with
# triggerIds of their own through a real lighttpd with four FastCGI processes,
# retrying a failed POST with the same triggerId, and poll each until
# COMPLETED; two `checkpoint-runner --watch` complete them over four jobs (no
# command, a 50 ms command, a quick one, one that fails on odd checkpoint ids).
# Meanwhile every 1-2 s a FastCGI process (lighttpd respawns it) and a runner
# (restarted here) get SIGKILL.  Afterwards, with the runners left alone until
# nothing is pending and one plain pass: every 202 is a COMPLETED trigger, no
# GET after a 202 answered 404, checkpoint ids are unique per job and within
# checkpoint_counters, no command ran twice for one trigger, every command's
# run matches its trigger's checkpoint id, and PRAGMA integrity_check is ok.
# Figures are printed as TAP diag lines.
#
# Bounded to about a minute: LOAD_S seconds of load and kills, then at
# most ~15 s to stop the clients and ~15 s to drain.
#
# Commands are written in single quotes on purpose: their $VARS are for
# the action's shell.  $PIDS and pgrep's output are lists; the runners'
# and clients' pids live in variables named by eval; client() runs in the
# background only.
# shellcheck disable=SC2016,SC2046,SC2086,SC2154,SC2317

. "$(dirname "$0")/lib.sh"

for c in lighttpd sqlite3 curl pgrep od; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing"
done

unset CHECKPOINT_MAX_BODY CHECKPOINT_CORS_ORIGIN \
    CHECKPOINT_REJECT_UNKNOWN_JOBS CHECKPOINT_SYNC CHECKPOINT_BUSY_TIMEOUT
# Keep every result: nothing may be purged before it is checked.
CHECKPOINT_STORE_DURATION=0
CHECKPOINT_PROCS=4
export CHECKPOINT_STORE_DURATION CHECKPOINT_PROCS

NCLIENTS=16
LOAD_S=${STRESS_SECONDS:-44}	# seconds of load and kills
POST_TRIES=8			# a POST and its retries, same triggerId
POLLS=100			# GETs per trigger (~0.1 s apart) before giving up
CMDLOG=$T/commands.log
: > "$CMDLOG"

JA=5000000000000000000000000000000a	# no command
JB=5000000000000000000000000000000b	# ~50 ms command
JC=5000000000000000000000000000000c	# quick command
JD=5000000000000000000000000000000d	# fails on odd checkpoint ids
LINE='echo "$CHECKPOINT_TRIGGER_ID $CHECKPOINT_JOB_ID $CHECKPOINT_ID"'

# --- helpers ----------------------------------------------------------------

APP_EXE=$(readlink -f "$API")

# The FastCGI processes our lighttpd runs now, one pid a line.
app_pids() {
	for _p in $(pgrep -P "$LIGHTTPD_PID"); do
		[ "$(readlink -f "/proc/$_p/exe" 2>/dev/null)" = "$APP_EXE" ] &&
		    ! gone "$_p" && echo "$_p"
	done
}

# start_runner K: (re)starts watcher K (0 or 1); its pid in RUNNER_K.
start_runner() {
	spawn "$RUNNER" --watch --log-level warn 2>>"$T/runner-$1.log"
	eval "RUNNER_$1=\$LAST_PID"
}

pending() {
	sql "SELECT count(*) FROM triggers WHERE status = 'IN_PROGRESS'"
}

# client C: POSTs triggers with ids of its own until $T/stop exists, each
# retried on failure with the same triggerId, then polled until COMPLETED.
# Logs "JOB TID" for every 202 in $T/client-C.202 and problems in
# $T/client-C.bad; its counters go to $T/client-C.stats after each trigger.
client() {
	_c=$1 _n=0 _req=0 _acc=0 _retry=0 _5xx=0 _late=0
	_out=$T/client-$_c.out
	: > "$T/client-$_c.202"
	: > "$T/client-$_c.bad"
	while [ ! -e "$T/stop" ]; do
		_n=$((_n + 1))
		_tid=$(printf '%08x%024x' "$_c" "$_n")
		case $(((_c + _n) % 4)) in
		0) _job=$JA ;;
		1) _job=$JB ;;
		2) _job=$JC ;;
		*) _job=$JD ;;
		esac
		_try=0 _got=0
		while [ "$_try" -lt "$POST_TRIES" ]; do
			if [ "$_try" -gt 0 ]; then
				_retry=$((_retry + 1))
				sleep 0.2
			fi
			_try=$((_try + 1))
			_req=$((_req + 1))
			: > "$_out"
			_code=$(curl -s -o "$_out" -w '%{http_code}' \
			    --max-time 10 -X POST \
			    --data-binary "{\"triggerId\":\"$_tid\"}" \
			    "$BASE/jobs/$_job/checkpoints")
			case $_code in
			5*) _5xx=$((_5xx + 1)) ;;
			esac
			[ "$_code" = 202 ] || continue
			_b=
			IFS= read -r _b < "$_out"
			if [ "$_b" = "{\"request-id\":\"$_tid\"}" ]; then
				_got=1
				echo "$_job $_tid" >> "$T/client-$_c.202"
			else
				echo "POST $_job $_tid: 202 $_b" >> "$T/client-$_c.bad"
			fi
			break
		done
		if [ "$_got" -eq 1 ]; then
			_acc=$((_acc + 1))
			_p=0 _done=0
			while [ "$_p" -lt "$POLLS" ] && [ ! -e "$T/stop" ]; do
				_p=$((_p + 1))
				_req=$((_req + 1))
				: > "$_out"
				_code=$(curl -s -o "$_out" -w '%{http_code}' \
				    --max-time 10 \
				    "$BASE/jobs/$_job/checkpoints/$_tid")
				_b=
				IFS= read -r _b < "$_out"
				case $_code in
				200)
					case $_b in
					'{"status":{"id":"COMPLETED"},"operation":{"'*)
						_done=1
						break ;;
					'{"status":{"id":"IN_PROGRESS"},"operation":null}')
						;;
					*)
						echo "GET $_job $_tid: 200 $_b" >> "$T/client-$_c.bad"
						break ;;
					esac
					;;
				5*)
					_5xx=$((_5xx + 1)) ;;
				000)
					;;
				*)
					echo "GET $_job $_tid: $_code $_b" >> "$T/client-$_c.bad"
					break ;;
				esac
				sleep 0.1
			done
			[ "$_p" -ge "$POLLS" ] && [ "$_done" -eq 0 ] &&
			    _late=$((_late + 1))
		fi
		echo "$_req $_acc $_retry $_5xx $_late" > "$T/client-$_c.stats"
	done
}

# --- set-up -----------------------------------------------------------------

"$CTL" init >/dev/null || bail "checkpointctl init failed"
"$CTL" job add "$JA" --name none >/dev/null &&
"$CTL" job add "$JB" --name slow --timeout 30 \
    --command "sleep 0.05; $LINE >> '$CMDLOG'" >/dev/null &&
"$CTL" job add "$JC" --name quick --timeout 30 \
    --command "$LINE >> '$CMDLOG'" >/dev/null &&
"$CTL" job add "$JD" --name flaky --timeout 30 --command "$LINE >> '$CMDLOG';
    if [ \$((CHECKPOINT_ID % 2)) -eq 1 ]; then echo odd >&2; exit 1; fi" \
    >/dev/null
ok $? "four jobs registered with checkpointctl job add"

start_lighttpd 2>>"$T/lighttpd-stderr.log"
wait_until 50 '[ "$(app_pids | grep -c .)" -eq 4 ]'
ok $? "lighttpd runs four FastCGI processes"
start_runner 0
start_runner 1

i=1
while [ "$i" -le "$NCLIENTS" ]; do
	spawn client "$i"
	eval "CLIENT_$i=\$LAST_PID"
	i=$((i + 1))
done

# --- load and kills ---------------------------------------------------------

FKILLS=0
RKILLS=0
RCRASHES=0
end=$(($(date +%s) + LOAD_S))
start_ms=$(($(date +%s%N) / 1000000))
while [ "$(date +%s)" -lt "$end" ]; do
	# 0.6 to 1.5 s, plus the loop's own time under load: every 1-2 s.
	r=$(rand 10)
	if [ "$r" -lt 4 ]; then sleep "0.$((r + 6))"; else sleep "1.$((r - 4))"; fi
	# lighttpd's children are the FastCGI processes (checked above).
	set -- $(pgrep -P "$LIGHTTPD_PID")
	if [ $# -gt 0 ]; then
		shift "$(rand $#)"
		kill -9 "$1" 2>/dev/null && FKILLS=$((FKILLS + 1))
	fi
	# A runner that ended without being killed crashed: count, restart.
	for k in 0 1; do
		eval "p=\$RUNNER_$k"
		if gone "$p"; then
			wait "$p"
			diag "runner $k (pid $p) ended by itself with status $?"
			forget "$p"
			RCRASHES=$((RCRASHES + 1))
			start_runner "$k"
		fi
	done
	k=$(rand 2)
	eval "victim=\$RUNNER_$k"
	kill9 "$victim"
	RKILLS=$((RKILLS + 1))
	start_runner "$k"
done
LOAD_MS=$(($(date +%s%N) / 1000000 - start_ms))

# --- stop the clients, drain ------------------------------------------------

touch "$T/stop"
i=1
while [ "$i" -le "$NCLIENTS" ]; do
	eval "reap \$CLIENT_$i"
	i=$((i + 1))
done

# lighttpd and its processes survived the kills (the runners complete
# this trigger too).
wait_until 50 '[ "$(app_pids | grep -c .)" -eq 4 ]'
ok $? "lighttpd runs four FastCGI processes again"
http POST "/jobs/$JA/checkpoints" '{"triggerId":"ffffffffffffffffffffffffffffffff"}'
is "$STATUS $BODY" '202 {"request-id":"ffffffffffffffffffffffffffffffff"}' \
    "lighttpd and the app still answer a POST"

wait_until 150 '[ "$(pending)" -eq 0 ]'
ok $? "with the kills over, the watching runners leave nothing IN_PROGRESS"
for k in 0 1; do
	eval "p=\$RUNNER_$k"
	kill -TERM "$p"
	wait_until 100 "gone $p" || kill -9 "$p" 2>/dev/null
	wait "$p"
	is "$?" 0 "runner $k exits 0 on SIGTERM"
	forget "$p"
done
"$RUNNER" 2>>"$T/runner-pass.log"
is "$?" 0 "a plain pass afterwards exits 0"
is "$(pending)" 0 "nothing is IN_PROGRESS after the pass"

# --- figures ----------------------------------------------------------------

cat "$T"/client-*.202 > "$T/accepted"
cat "$T"/client-*.bad > "$T/bad"
set -- 0 0 0 0 0
for f in "$T"/client-*.stats; do
	[ -s "$f" ] || continue
	read -r a b c d e < "$f"
	set -- $(($1 + a)) $(($2 + b)) $(($3 + c)) $(($4 + d)) $(($5 + e))
done
REQS=$1 ACC=$2 RETRIES=$3 S5XX=$4 LATE=$5
TRIGGERS=$(sql "SELECT count(*) FROM triggers")
STALE=$(sql "SELECT count(*) FROM triggers
    WHERE failure_trace LIKE '%claimed it is gone%'")
diag "requests: $REQS"
diag "202s: $ACC ($(grep -c . "$T/accepted") logged)"
diag "retries: $RETRIES"
diag "5xx seen: $S5XX"
diag "FastCGI kills: $FKILLS"
diag "runner kills: $RKILLS"
diag "kill rounds: one every $((LOAD_MS / (RKILLS > 0 ? RKILLS : 1))) ms"
diag "triggers: $TRIGGERS"
diag "stale claims resolved: $STALE"
diag "command runs logged: $(grep -c . "$CMDLOG")"
diag "polls given up (trigger still IN_PROGRESS after $POLLS GETs): $LATE"

# --- assertions -------------------------------------------------------------

ok "$([ "$ACC" -gt 0 ] && [ "$FKILLS" -gt 0 ] && [ "$RKILLS" -gt 0 ] &&
    echo 0 || echo 1)" "the run had 202s, FastCGI kills and runner kills"
is "$RCRASHES" 0 "no runner ended but by our kills"
# lighttpd logs "child signalled: 9" for each of our kills; any other end
# of a FastCGI process was a crash.
is "$(grep -E 'child (signalled|exited)' "$T/lighttpd/lighttpd-error.log" |
    grep -v 'child signalled: 9$' | sed 's/^[^(]*//')" "" \
    "no FastCGI process ended but by our kills"
is "$(grep -c . "$T/accepted")" "$ACC" "every 202 is in the clients' logs"
is "$(cat "$T/bad")" "" \
    "no 202 with a wrong body, no GET after a 202 answered 404 or a bad body"

# The 202s as a table beside the triggers.
awk 'BEGIN { print "CREATE TEMP TABLE acc (job_id TEXT, trigger_id TEXT);" }
    { printf "INSERT INTO acc VALUES (\047%s\047, \047%s\047);\n", $1, $2 }' \
    "$T/accepted" > "$T/accepted.sql"
lost=$( { cat "$T/accepted.sql"; echo "SELECT count(*) FROM acc a
    LEFT JOIN triggers t USING (job_id, trigger_id)
    WHERE t.status IS NOT 'COMPLETED';"; } | sql)
is "$lost" 0 "every trigger that got a 202 exists and is COMPLETED"

is "$(sql "SELECT job_id, checkpoint_id, count(*) FROM triggers
    WHERE checkpoint_id IS NOT NULL GROUP BY 1, 2 HAVING count(*) > 1")" "" \
    "checkpoint ids are unique per job"
is "$(sql "SELECT count(*) FROM triggers t
    LEFT JOIN checkpoint_counters c USING (job_id)
    WHERE t.checkpoint_id IS NOT NULL
    AND (c.last_id IS NULL OR t.checkpoint_id > c.last_id)")" 0 \
    "per job, no checkpoint id exceeds checkpoint_counters.last_id"

ok "$([ -s "$CMDLOG" ] && echo 0 || echo 1)" "the commands ran"
is "$(awk '{ print $1 }' "$CMDLOG" | sort | uniq -d)" "" \
    "no trigger was checkpointed twice (command log)"
is "$(grep -Evc '^[0-9a-f]{32} [0-9a-f]{32} [1-9][0-9]*$' "$CMDLOG")" 0 \
    "every command-log line is whole"
awk 'BEGIN { print "CREATE TEMP TABLE ran (trigger_id TEXT, job_id TEXT, checkpoint_id INTEGER);" }
    { printf "INSERT INTO ran VALUES (\047%s\047, \047%s\047, %d);\n", $1, $2, $3 }' \
    "$CMDLOG" > "$T/ran.sql"
is "$( { cat "$T/ran.sql"; echo "SELECT r.trigger_id, r.checkpoint_id
    FROM ran r LEFT JOIN triggers t USING (job_id, trigger_id)
    WHERE t.status IS NOT 'COMPLETED'
    OR t.checkpoint_id IS NOT r.checkpoint_id;"; } | sql)" "" \
    "every command-log line matches a COMPLETED trigger with that checkpoint id"
is "$( { cat "$T/ran.sql"; echo "SELECT t.trigger_id FROM triggers t
    WHERE t.job_id IN ('$JB', '$JC', '$JD') AND t.failure_class IS NULL
    AND NOT EXISTS (SELECT 1 FROM ran r WHERE r.trigger_id = t.trigger_id
    AND r.job_id = t.job_id);"; } | sql)" "" \
    "every successful checkpoint of a job with a command has its run logged"

is "$(sql "SELECT count(*) FROM triggers WHERE job_id = '$JA'
    AND (failure_class IS NOT NULL OR checkpoint_id IS NULL)")" 0 \
    "the job without a command: every checkpoint succeeded with an id"
is "$(sql "SELECT count(*) FROM triggers WHERE job_id = '$JD' AND (
    (checkpoint_id % 2 = 1 AND failure_class IS NULL) OR
    (checkpoint_id % 2 = 0 AND failure_trace LIKE '%Checkpoint was declined.%'))")" 0 \
    "the flaky job: odd ids declined, even ids never declined"
is "$(sql "SELECT count(*) FROM triggers WHERE failure_class IS NOT NULL
    AND failure_trace NOT LIKE '%claimed it is gone%'
    AND NOT (job_id = '$JD' AND checkpoint_id % 2 = 1)")" 0 \
    "the only failures are the flaky job's odd ids and stale claims"
is "$(sql "PRAGMA integrity_check")" ok "PRAGMA integrity_check is ok"

done_testing
