#!/bin/sh
# Stress and kills on two hosts sharing one PostgreSQL database
# (checkpoint-api(7), "IDEMPOTENCY" and "CHECKPOINT IDS"; checkpoint-runner(8),
# "Crashes").  First, the database crashes (pg_ctl stop -m immediate)
# while a watching runner's command runs, and is still down when the
# command ends: once the database is back, the runner records the
# command's result within 10 s, not when its lease (the job's timeout and
# 30 s) runs out.  Then sixteen curl clients POST triggers with triggerIds
# of their own through two lighttpd hosts (two FastCGI processes each),
# retrying a POST not answered 202 with the same triggerId through the
# other host, and read each trigger answered 202 through a host; two
# checkpoint-runner --watch complete them over four jobs (no command, a
# 50 ms command, a quick one, one that fails on odd checkpoint ids), every
# command appending its trigger and checkpoint id to a log.  Meanwhile,
# every 1.5 s, a FastCGI process (its lighttpd starts another) or a runner
# (started again here) gets SIGKILL, and half-way the database server
# itself crashes again and is started again, fsync on.  Afterwards, the
# watchers stopped and plain passes run until nothing is pending: every
# trigger answered 202 is COMPLETED; no read after a 202 answered 404;
# every answer was a 202, a 503 of checkpoint-api(7), or lighttpd's own
# for a killed process, never the app's 500; checkpoint ids are exactly
# 1..n per job, the counter at n; no command ran twice (no trigger, no
# checkpoint id twice in the log); every command's run is its trigger's
# checkpoint id.  Figures are TAP diag lines.
#
# Bounded: a few seconds for the first crash (10 more if its result is not
# recorded), PG_STRESS_SECONDS (default 16) of load and kills, then at
# most ~15 s to stop the clients, 10 s for the watchers and ~20 s to drain.
#
# Commands are written in single quotes on purpose: their $VARS are for
# the action's shell.
# shellcheck disable=SC2016,SC2086,SC2154
. "$(dirname "$0")/lib.sh"
# What this test proves is what survives crashes: fsync stays on.
PG_FSYNC=on
. "$(dirname "$0")/pg.sh"
. "$(dirname "$0")/pg-hosts.sh"

# Keep every result: nothing may be purged before it is checked.
CHECKPOINT_STORE_DURATION=0
export CHECKPOINT_STORE_DURATION

LOAD_S=${PG_STRESS_SECONDS:-16}
CMDLOG=$T/commands.log
: > "$CMDLOG"

JA=6310000000000000000000000000000a	# no command
JB=6310000000000000000000000000000b	# ~50 ms command
JC=6310000000000000000000000000000c	# quick command
JD=6310000000000000000000000000000d	# fails on odd checkpoint ids
JE=6310000000000000000000000000000e	# 1 s command, a crash while it runs
LINE='echo "$CHECKPOINT_TRIGGER_ID $CHECKPOINT_JOB_ID $CHECKPOINT_ID"'

pg_start
export CHECKPOINT_DB=$PGURI
is "$(psql_q "SHOW fsync")" on "the server runs with fsync on"
"$CTL" init > /dev/null || bail "checkpointctl init failed"
"$CTL" job add "$JA" --name none > /dev/null &&
"$CTL" job add "$JB" --name slow --timeout 10 \
    --command "sleep 0.05; $LINE >> '$CMDLOG'" > /dev/null &&
"$CTL" job add "$JC" --name quick --timeout 10 \
    --command "$LINE >> '$CMDLOG'" > /dev/null &&
"$CTL" job add "$JD" --name flaky --timeout 10 --command "$LINE >> '$CMDLOG';
    if [ \$((CHECKPOINT_ID % 2)) -eq 1 ]; then echo odd >&2; exit 1; fi" \
    > /dev/null
ok $? "four jobs registered with checkpointctl job add"

host_start A
host_start B
runner_start 0
runner_start 1

# --- a crash while a command runs -------------------------------------------

# The database goes down while a runner's command runs, and is still down
# when the command ends: once it is back, the watcher that ran the command
# records its result (not left for its lease to run out: the job's timeout
# and 30 s, the job's later triggers waiting as long).
"$CTL" job add "$JE" --name crash --timeout 10 --command "touch '$T/e-started';
    sleep 1; $LINE >> '$CMDLOG'; touch '$T/e-ended'" > /dev/null ||
    bail "checkpointctl job add $JE failed"
BASE=$HOST_A
http POST "/jobs/$JE/checkpoints" "{\"triggerId\":\"$(printf '%032x' 1)\"}"
is "$STATUS" 202 "a trigger of a job whose command takes 1 s"
wait_until 100 '[ -e "$T/e-started" ]' || bail "the command did not start"
pg_crash
wait_until 50 '[ -e "$T/e-ended" ]'
ok $? "  the database crashed while the command ran, and it ended while down"
sleep 0.5
pg_restart
wait_until 100 '[ "$(pending)" -eq 0 ]'
ok $? "  with the database back, the watchers record its result within 10 s"
is "$(q "SELECT status || ' ' || coalesce(checkpoint_id::text, '-') || ' ' ||
    coalesce(failure_class, 'ok') FROM triggers WHERE job_id = '$JE'")" \
    "COMPLETED 1 ok" "  COMPLETED, checkpoint 1, the command's success"

CLIENT_HOSTS="$HOST_A $HOST_B"
CLIENT_JOBS="$JA $JB $JC $JD"
clients_start 16

# --- load and kills ---------------------------------------------------------

FKILLS=0
RKILLS=0
RCRASHES=0
DB_RESTARTS=0
ROUND=0
start_ms=$(now_ms)
end_ms=$((start_ms + LOAD_S * 1000))
while [ "$(now_ms)" -lt "$end_ms" ]; do
	sleep 1.5
	# A runner that ended without being killed crashed: count, restart.
	for k in 0 1; do
		eval "p=\$RUNNER_$k"
		if gone "$p"; then
			wait "$p"
			diag "runner $k (pid $p) ended by itself with status $?"
			forget "$p"
			RCRASHES=$((RCRASHES + 1))
			runner_start "$k"
		fi
	done
	if [ "$DB_RESTARTS" -eq 0 ] &&
	    [ "$(now_ms)" -ge $((start_ms + LOAD_S * 500)) ]; then
		diag "pg_ctl stop -m immediate at +$(($(now_ms) - start_ms)) ms"
		pg_restart_immediate
		diag "started again at +$(($(now_ms) - start_ms)) ms"
		DB_RESTARTS=1
		continue
	fi
	# In turn: a FastCGI process of A, a runner, one of B, a runner.
	ROUND=$((ROUND + 1))
	case $((ROUND % 4)) in
	1) host_kill_app A && FKILLS=$((FKILLS + 1)) ;;
	3) host_kill_app B && FKILLS=$((FKILLS + 1)) ;;
	*)
		k=$(rand 2)
		eval "victim=\$RUNNER_$k"
		kill9 "$victim"
		RKILLS=$((RKILLS + 1))
		runner_start "$k"
		;;
	esac
done
LOAD_MS=$(($(now_ms) - start_ms))
clients_stop

# --- drain ------------------------------------------------------------------

# Both hosts run their processes again and answer.
wait_until 50 '[ "$(host_apps A | grep -c .)" -eq 2 ] &&
    [ "$(host_apps B | grep -c .)" -eq 2 ]'
ok $? "both lighttpd hosts run two FastCGI processes again"
for h in A B; do
	eval "BASE=\$HOST_$h"
	http POST "/jobs/$JA/checkpoints" "{\"triggerId\":\"ffffffffffffffffffffffffffffff0$h\"}"
	is "$STATUS $BODY" \
	    "202 {\"request-id\":\"ffffffffffffffffffffffffffffff0$(echo $h | tr AB ab)\"}" \
	    "  host $h answers a POST"
done

# The watchers, left alone with the database back, complete what they
# can: what is left waits for the leases of claims whose result could not
# be recorded while the database was down (see above) or of runners
# killed since (another runner's pass resolves those).
wait_until 100 '[ "$(pending)" -eq 0 ]'
LEFT=$(pending)
[ "$LEFT" -eq 0 ] || diag "$(q "SELECT job_id || ': ' || count(*) ||
    ' pending, claimed by ' || coalesce(string_agg(claimed_by, ' '), 'none')
    FROM triggers WHERE status = 'IN_PROGRESS' GROUP BY job_id")"
# Then they stop, and plain passes resolve what is left (the claims of
# the stopped watchers, failed as expired).
for k in 0 1; do
	runner_stop "$k"
	is "$?" 0 "runner $k exits 0 on SIGTERM"
done
i=0
while [ "$(pending)" -ne 0 ] && [ "$i" -lt 20 ]; do
	"$RUNNER" --log-level info 2>>"$T/runner-pass.log"
	[ "$(pending)" -eq 0 ] || sleep 1
	i=$((i + 1))
done
is "$(pending)" 0 "after the watchers, plain passes leave nothing IN_PROGRESS"

# --- figures ----------------------------------------------------------------

POSTS=$(awk '$2 == "POST"' "$T/answers" | grep -c .)
ACC=$(grep -c . "$T/accepted")
STALE=$(q "SELECT count(*) FROM triggers
    WHERE failure_trace LIKE '%claimed it is gone%'")
EXPIRED=$(q "SELECT count(*) FROM triggers
    WHERE failure_trace LIKE '%Checkpoint expired%'")
diag "load: $LOAD_MS ms"
diag "requests: $(grep -c . "$T/answers") ($POSTS POST)"
diag "answers: $(awk '{ print $2 " " $3 }' "$T/answers" | sort | uniq -c |
    tr -s ' ' | tr '\n' ',')"
diag "202s: $ACC"
diag "FastCGI kills: $FKILLS"
diag "runner kills: $RKILLS"
diag "database restarts: $DB_RESTARTS"
diag "triggers: $(q "SELECT count(*) FROM triggers")"
diag "pending 10 s after the load ended: $LEFT"
diag "stale claims resolved: $STALE (expired: $EXPIRED)"
diag "command runs logged: $(grep -c . "$CMDLOG")"

# --- assertions -------------------------------------------------------------

[ "$ACC" -gt 0 ] && [ "$FKILLS" -gt 0 ] && [ "$RKILLS" -gt 0 ] &&
    [ "$DB_RESTARTS" -eq 1 ]
ok $? "the run had 202s, FastCGI kills, runner kills and a database crash"
is "$RCRASHES" 0 "no runner ended but by our kills"
is "$(host_crashes A)$(host_crashes B)" "" \
    "no FastCGI process ended but by our kills"
# lighttpd's own answers while a process is down (an HTML 5xx, or none:
# 000) are expected here.
odd_answers | awk '$3 != "000" && !($3 ~ /^5/ && $8 !~ /^{/)' > "$T/odd"
is "$(head -n 5 "$T/odd")" "" "every answer a 202, a read, the app's 503 or lighttpd's own"
is "$(awk '$2 == "GET" && $3 == 404' "$T/answers" | head -n 3)" "" \
    "  no read after a 202 answered 404"
is "$(awk '$3 == 500 && $8 ~ /^{/' "$T/answers" | head -n 3)" "" \
    "  the app never answered 500"
[ "$(awk '$3 == 503 && $8 ~ /^{/' "$T/answers" | grep -c .)" -gt 0 ]
ok $? "  some answers were the app's 503, the database being down"

is "$(accepted_not_completed)" 0 "every trigger that got a 202 exists and is COMPLETED"
is "$(ids_not_dense "$JA" "$JB" "$JC" "$JD" "$JE")" "" \
    "checkpoint ids are exactly 1..n per job, each once, the counter at n"

ok "$([ -s "$CMDLOG" ] && echo 0 || echo 1)" "the commands ran"
is "$(grep -Evc '^[0-9a-f]{32} [0-9a-f]{32} [1-9][0-9]*$' "$CMDLOG")" 0 \
    "every command-log line is whole"
is "$(awk '{ print $1 }' "$CMDLOG" | sort | uniq -d)" "" \
    "no trigger's command ran twice"
is "$(awk '{ print $2, $3 }' "$CMDLOG" | sort | uniq -d)" "" \
    "no checkpoint id's command ran twice"
{
	echo "CREATE TEMP TABLE ran (trigger_id text, job_id text, checkpoint_id bigint);"
	echo "COPY ran FROM STDIN (DELIMITER ' ');"
	cat "$CMDLOG"
	printf '\\.\n'
	echo "SELECT r.trigger_id || ' ' || r.checkpoint_id FROM ran r
	    LEFT JOIN triggers t USING (job_id, trigger_id)
	    WHERE t.status IS DISTINCT FROM 'COMPLETED'
	    OR t.checkpoint_id IS DISTINCT FROM r.checkpoint_id;"
	echo "SELECT 'not logged: ' || t.trigger_id FROM triggers t
	    WHERE t.job_id IN ('$JB', '$JC', '$JD', '$JE') AND t.failure_class IS NULL
	    AND NOT EXISTS (SELECT 1 FROM ran r WHERE r.trigger_id = t.trigger_id
	    AND r.job_id = t.job_id);"
	echo "SELECT 'checked';"
} | q_in > "$T/ran.out"
is "$(cat "$T/ran.out")" checked \
    "every command's run is its COMPLETED trigger's checkpoint id, every success logged"
is "$(q "SELECT count(*) FROM triggers WHERE job_id = '$JA'
    AND (failure_class IS NOT NULL OR checkpoint_id IS NULL)")" 0 \
    "the job without a command: every checkpoint succeeded with an id"
is "$(q "SELECT count(*) FROM triggers WHERE job_id = '$JD' AND (
    (checkpoint_id % 2 = 1 AND failure_class IS NULL) OR
    (checkpoint_id % 2 = 0 AND failure_trace LIKE '%Checkpoint was declined.%'))")" 0 \
    "the flaky job: odd ids declined, even ids never declined"
is "$(q "SELECT count(*) FROM triggers WHERE failure_class IS NOT NULL
    AND failure_trace NOT LIKE '%claimed it is gone%'
    AND failure_trace NOT LIKE '%Checkpoint expired%'
    AND NOT (job_id = '$JD' AND checkpoint_id % 2 = 1)")" 0 \
    "the only failures are the flaky job's odd ids and stale claims"

done_testing
