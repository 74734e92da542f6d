#!/bin/sh
# checkpoint-runner(8)'s promises with the store in PostgreSQL (a throwaway
# cluster, tests/pg.sh; triggers recorded through the real API behind
# lighttpd, rows read with psql), as t4000-t4030 check them on SQLite:
# checkpoint ids dense per job in arrival order; an unregistered or
# stopped job's trigger fails without using an id, a declined action's
# uses its own; two runners watching at once never run one job's
# commands at the same time, nor give an id twice, even to plain jobs'
# triggers POSTed by four clients at once under three; an action past its
# job's timeout is killed and its trigger fails as expired; the claim of
# a SIGKILLed runner is resolved as expired by the next one, the command
# never run again, and a claim of another host is left alone within its
# lease and expired past it; --watch, woken by LISTEN/NOTIFY, completes
# each of 200 triggers POSTed one at a time within a generous bound (the
# p50 and p99 from the 202 to the GET that shows COMPLETED are printed,
# never judged: speed is the benchmark's); and a watching runner goes on,
# without a restart, after the database server restarts (pg_ctl restart
# -m fast, and -m immediate, a crash); a pass started under another
# session's lock on the triggers table waits for it, then does its work.
#
# Actions' commands are written in single quotes on purpose: their $VARS
# are for the action's shell, not this one.
# shellcheck disable=SC2016,SC2086

. "$(dirname "$0")/runner-lib.sh"
. "$(dirname "$0")/pg.sh"

pg_runner_db

pass
ok $? "a pass over a new PostgreSQL database (init made its tables) exits 0"
is "$(dbq "SELECT application FROM schema_version")" checkpoint-api \
    "  the schema is there"
start_lighttpd

# ids JOB: the job's checkpoint ids in arrival order ('-' for none).
ids() {
	dbq "SELECT string_agg(coalesce(CAST(checkpoint_id AS TEXT), '-'), ' '
	    ORDER BY id) FROM triggers WHERE job_id = '$1'"
}

# --- ids, per job, dense -------------------------------------------------

JA=$(jid 1)
JB=$(jid 2)
add_job "$JA" RUNNING FULL ""
add_job "$JB" RUNNING INCREMENTAL ""
post "$JA" "$(tid 101)" && post "$JB" "$(tid 102)" &&
    post "$JA" "$(tid 103)" FULL && post "$JB" "$(tid 104)" &&
    post "$JA" "$(tid 105)" INCREMENTAL
ok $? "ids: five triggers of two jobs, interleaved"
pass
ok $? "ids: the pass exits 0"
is "$(ids "$JA")|$(ids "$JB")" "1 2 3|1 2" \
    "ids: 1 2 3 and 1 2, per job in arrival order"
is "$(status "$JB" "$(tid 104)")" "$(completed 2)" \
    "ids: GET of the second job's second trigger"
is "$(dbq "SELECT string_agg(requested_type || '>' || checkpoint_type, ' '
    ORDER BY id) FROM triggers WHERE job_id IN ('$JA', '$JB')")" \
    "CONFIGURED>FULL CONFIGURED>INCREMENTAL FULL>FULL CONFIGURED>INCREMENTAL INCREMENTAL>INCREMENTAL" \
    "ids: CONFIGURED resolved to each job's type, the others kept"

# --- failures: which use an id -------------------------------------------

JU=$(jid 3)
JS=$(jid 4)
JD=$(jid 5)
add_job "$JS" SUSPENDED FULL "touch $T/suspended-ran"
add_job "$JD" RUNNING FULL 'echo "no space left" >&2; exit 3'
post "$JU" "$(tid 301)" && post "$JS" "$(tid 302)" &&
    post "$JD" "$(tid 303)" && post "$JA" "$(tid 304)"
ok $? "failures: four triggers"
pass
begins "$(status "$JU" "$(tid 301)")" \
    "$(failed_body "$JOB_CLASS" "$JOB_TRACE ($JU)")" \
    "failures: an unregistered job's trigger: Flink's FlinkJobNotFoundException"
begins "$(status "$JS" "$(tid 302)")" \
    "$(failed_body "$JOB_CLASS" "$JOB_TRACE ($JS)")" \
    "failures: a SUSPENDED job's trigger: the same"
is "$(ids "$JU")|$(ids "$JS")" "-|-" "failures: neither took an id"
is "$(dbq "SELECT count(*) FROM checkpoint_counters
    WHERE job_id IN ('$JU', '$JS')")" 0 "  nor a counter"
test ! -e "$T/suspended-ran"
ok $? "  a stopped job's command is not run"
begins "$(status "$JD" "$(tid 303)")" \
    "$(failed_body "$CKPT_CLASS" "$DECLINED")" \
    "failures: a command exiting 3 declines the checkpoint"
is "$(ids "$JD")" 1 "  its id 1 is used"
post "$JD" "$(tid 305)" && pass
is "$(ids "$JD")" "1 2" "  the next trigger of that job gets 2"
is "$(ids "$JA")" "1 2 3 4" "  and the other job went on with 4"
add_job "$JU" RUNNING FULL ""
dbq "UPDATE jobs SET state = 'RUNNING' WHERE job_id = '$JS'" > /dev/null
post "$JU" "$(tid 306)" && post "$JS" "$(tid 307)" && pass
is "$(ids "$JU")|$(ids "$JS")" "- 1|- 1" \
    "failures: registered, or RUNNING again, a job's first id is 1"

# --- a timeout ------------------------------------------------------------

JT=$(jid 6)
add_job "$JT" RUNNING FULL "echo \$\$ > $T/slow.pid; exec sleep 60" 1
post "$JT" "$(tid 601)"
START=$(date +%s%N)
pass
ok $? "timeout: the pass exits 0"
took=$(ms_since "$START")
is "$(col "$JT" "$(tid 601)" status)|$(trace1 "$JT" "$(tid 601)")" \
    "COMPLETED|$EXPIRED" "timeout: the trigger fails as expired"
ok "$([ "$took" -lt 20000 ] && echo 0 || echo 1)" \
    "timeout: the pass did not wait for the command's 60 s (${took} ms)"
gone "$(cat "$T/slow.pid" 2>/dev/null)"
ok $? "timeout: the command was killed"
is "$(ids "$JT")" 1 "timeout: its id is used"

# --- two watching runners, one job's commands never at once ---------------

JW=$(jid 7)
JX=$(jid 8)
# Each command writes a line as it starts and one as it ends (O_APPEND:
# whole lines in the order they happened); two at once would put two
# starts in a row.
add_job "$JW" RUNNING FULL \
    "echo start \$CHECKPOINT_ID >> $T/w.log; sleep 0.2; echo end \$CHECKPOINT_ID >> $T/w.log"
add_job "$JX" RUNNING FULL \
    "echo start \$CHECKPOINT_ID >> $T/x.log; sleep 0.2; echo end \$CHECKPOINT_ID >> $T/x.log"
spawn "$RUNNER" --watch --parallel 4 2>>"$RLOG"
W1=$LAST_PID
spawn "$RUNNER" --watch --parallel 4 2>>"$RLOG"
W2=$LAST_PID
_i=1
while [ $_i -le 10 ]; do
	post "$JW" "$(tid $((700 + _i)))" && post "$JX" "$(tid $((720 + _i)))" ||
	    break
	_i=$((_i + 1))
done
is "$_i" 11 "two runners: 20 triggers of two jobs with commands"
wait_until 300 "[ \"\$(dbq \"SELECT count(*) FROM triggers WHERE job_id IN
    ('$JW', '$JX') AND status = 'COMPLETED'\")\" = 20 ]"
ok $? "two runners: all 20 completed"
expect=$(for _n in 1 2 3 4 5 6 7 8 9 10; do echo "start $_n"; echo "end $_n"; done)
is "$(cat "$T/w.log")" "$expect" \
    "two runners: one job's commands one after another, ids 1 to 10 in order"
is "$(cat "$T/x.log")" "$expect" "two runners: and the other job's"
is "$(ids "$JW")|$(ids "$JX")" "1 2 3 4 5 6 7 8 9 10|1 2 3 4 5 6 7 8 9 10" \
    "two runners: ids dense, in arrival order"
is "$(dbq "SELECT count(*) FROM triggers WHERE job_id IN ('$JW', '$JX')
    AND failure_class IS NOT NULL")" 0 "two runners: no failure"
diag "claims by runner: $(dbq "SELECT string_agg(n::text, ' ') FROM
    (SELECT count(*) AS n FROM triggers WHERE job_id IN ('$JW', '$JX')
    GROUP BY split_part(claimed_by, ':', 2)) AS c")"
# Plain jobs (no command: no claim, ids given in the round itself), the
# triggers POSTed by four clients at once while three runners watch, one
# of them taking small batches: every id 1..n once per job.  (Not checked
# here: that they follow the rows' ids, which PostgreSQL hands out at
# INSERT, not at commit, so two app processes' commits may land out of
# that order.)
spawn "$RUNNER" --watch --batch 3 2>>"$RLOG"
W4=$LAST_PID
for _j in 13 14 15; do
	add_job "$(jid $_j)" RUNNING FULL ""
done
_pids=
for _c in 1 2 3 4; do
	(
		_i=0
		while [ $_i -lt 30 ]; do
			_i=$((_i + 1))
			curl -s -o /dev/null -w '%{http_code}\n' -X POST \
			    --data-binary "{\"triggerId\":\"$(printf 'c%07x%024x' $_c $_i)\"}" \
			    "$BASE/jobs/$(jid $((13 + _i % 3)))/checkpoints"
		done > "$T/race-$_c"
	) &
	_pids="$_pids $!"
done
wait $_pids
is "$(cat "$T"/race-* | sort | uniq -c | tr -s ' ')" " 120 202" \
    "race: 120 POSTs from four clients at once, all 202"
wait_until 300 "[ \"\$(dbq \"SELECT count(*) FROM triggers WHERE job_id IN
    ('$(jid 13)', '$(jid 14)', '$(jid 15)') AND status = 'COMPLETED'\")\" = 120 ]"
ok $? "race: all 120 completed by three watching runners"
for _j in 13 14 15; do
	is "$(dbq "SELECT string_agg(CAST(checkpoint_id AS TEXT), ' '
	    ORDER BY checkpoint_id) = string_agg(CAST(n AS TEXT), ' ' ORDER BY n)
	    FROM (SELECT checkpoint_id, row_number() OVER (ORDER BY id) AS n
	    FROM triggers WHERE job_id = '$(jid $_j)') AS r")|$(dbq "SELECT
	    count(*) FROM triggers WHERE job_id = '$(jid $_j)'")" "t|40" \
	    "race: job $_j's 40 triggers have the ids 1..40, each once"
done
term_wait "$W4"
term_wait "$W2"
is "$RC" 0 "two runners: one stopped by SIGTERM, exit status 0"

# --- LISTEN/NOTIFY: each trigger completes promptly -----------------------

JL=$(jid 9)
add_job "$JL" RUNNING FULL ""
# W1 is watching: a first trigger shows it in its loop.
post "$JL" "$(tid 900)"
wait_until 50 "[ \"\$(status $JL $(tid 900))\" = '$(completed 1)' ]"
ok $? "--watch: a trigger completes"
N=200
late=0
: > "$T/latency"
_i=1
while [ $_i -le $N ]; do
	_t=$(printf 'a0a0%028x' $_i)
	curl -s -o /dev/null -w '%{http_code}' -X POST \
	    --data-binary "{\"triggerId\":\"$_t\"}" \
	    "$BASE/jobs/$JL/checkpoints" > "$T/code"
	_t0=$(date +%s%N)
	_done=
	while :; do
		_b=$(curl -s "$BASE/jobs/$JL/checkpoints/$_t")
		_now=$(date +%s%N)
		case $_b in
		*'"COMPLETED"'*)
			_done=1
			break
			;;
		esac
		[ $((_now - _t0)) -gt 3000000000 ] && break
	done
	if [ "$(cat "$T/code")" != 202 ] || [ -z "$_done" ]; then
		late=$((late + 1))
		diag "trigger $_i: POST $(cat "$T/code"), last GET $_b"
	fi
	echo $(((_now - _t0) / 1000)) >> "$T/latency"
	_i=$((_i + 1))
done
is "$late" 0 "--watch: each of $N triggers POSTed one at a time is COMPLETED within 3 s"
is "$(ids "$JL" | tr ' ' '\n' | tail -n 1)" $((N + 1)) \
    "--watch: their ids ran to $((N + 1))"
# pct P: the P-th percentile of the latencies (µs), nearest rank.
pct() {
	sort -n "$T/latency" | awk -v p="$1" '{ v[NR] = $1 }
	    END { i = int((p * NR + 99) / 100); printf "%.1f", v[i] / 1000 }'
}
diag "202 -> GET shows COMPLETED, over $N triggers (each GET a curl):" \
    "p50 $(pct 50) ms, p99 $(pct 99) ms, max $(pct 100) ms"
diag "created_ms -> completed_ms in the store: $(dbq "SELECT
    'p50 ' || percentile_disc(0.5) WITHIN GROUP (ORDER BY d) || ' ms, p99 '
    || percentile_disc(0.99) WITHIN GROUP (ORDER BY d) || ' ms' FROM
    (SELECT completed_ms - created_ms AS d FROM triggers
    WHERE job_id = '$JL') AS l")"

# --- the database server restarts under the watching runner ---------------

n=1
for mode in fast immediate; do
	pg_down "$mode" || bail "pg_ctl stop -m $mode"
	pg_up || bail "pg_ctl start after -m $mode"
	ok "$(gone "$W1" && echo 1 || echo 0)" \
	    "restart -m $mode: the watching runner is still running"
	_t=$(printf 'b0b0%028x' $n)
	post "$JL" "$_t"
	ok $? "restart -m $mode: a trigger POSTed after it, answered 202"
	wait_until 300 "[ \"\$(status $JL $_t)\" = '$(completed $((N + 1 + n)))' ]"
	ok $? "restart -m $mode: COMPLETED by the same runner, id $((N + 1 + n))"
	n=$((n + 1))
done
term_wait "$W1"
is "$RC" 0 "restarts: the runner stops on SIGTERM with exit status 0"

# --- a SIGKILLed runner's claim ----------------------------------------------

JK=$(jid 10)
add_job "$JK" RUNNING FULL \
    "echo \$\$ >> $T/k.pids; exec sleep 60" 5
spawn "$RUNNER" --watch 2>>"$RLOG"
K=$LAST_PID
post "$JK" "$(tid 1001)"
wait_until 100 "[ -s $T/k.pids ]"
ok $? "SIGKILL: the runner claimed the trigger and started the command"
stop_pid "$K" KILL
wait_until 100 "gone $(head -n 1 "$T/k.pids")"
ok $? "SIGKILL: the command died with its runner"
is "$(col "$JK" "$(tid 1001)" status)" IN_PROGRESS \
    "SIGKILL: the claim is left behind"
spawn "$RUNNER" --watch 2>>"$RLOG"
W3=$LAST_PID
wait_until 600 "[ \"\$(col $JK $(tid 1001) status)\" = COMPLETED ]"
is "$(col "$JK" "$(tid 1001)" status)|$(trace1 "$JK" "$(tid 1001)")" \
    "COMPLETED|$EXPIRED" "SIGKILL: the next runner resolves it as expired"
is "$(wc -l < "$T/k.pids" | tr -d ' ')" 1 "SIGKILL: the command not run again"
dbq "UPDATE jobs SET command = NULL WHERE job_id = '$JK'" > /dev/null
post "$JK" "$(tid 1002)"
wait_until 50 "[ \"\$(status $JK $(tid 1002))\" = '$(completed 2)' ]"
ok $? "SIGKILL: the next trigger gets id 2"

# Another host's claim: its lease decides.  (No runner watching: passes
# one at a time.)
term_wait "$W3"
JH=$(jid 11)
add_job "$JH" RUNNING FULL "touch $T/h-ran" 5
post "$JH" "$(tid 1101)" && post "$JH" "$(tid 1102)"
dbq "UPDATE triggers SET claimed_by = 'elsewhere:1:1', claimed_ms = $(now_ms),
    lease_ms = $FAR, checkpoint_id = 1, checkpoint_type = 'FULL'
    WHERE job_id = '$JH' AND trigger_id = '$(tid 1101)';
    INSERT INTO checkpoint_counters VALUES ('$JH', 1)" > /dev/null
pass
is "$(col "$JH" "$(tid 1101)" status)|$(col "$JH" "$(tid 1102)" status)" \
    "IN_PROGRESS|IN_PROGRESS" \
    "another host's claim within its lease: left alone, the job's next waits"
dbq "UPDATE triggers SET lease_ms = $(($(now_ms) - 1000))
    WHERE job_id = '$JH' AND trigger_id = '$(tid 1101)'" > /dev/null
pass
is "$(col "$JH" "$(tid 1101)" status)|$(trace1 "$JH" "$(tid 1101)")" \
    "COMPLETED|$EXPIRED" "another host's claim past its lease: expired"
is "$(ids "$JH")" "1 2" "  and the job's next trigger got id 2"
test -e "$T/h-ran"
ok $? "  its command ran for that one"

# --- another session's lock ---------------------------------------------

# A pass started while the triggers table is locked (tests/pg.sh,
# pg_lock) past CHECKPOINT_BUSY_TIMEOUT waits, trying again, and takes
# the trigger once the lock is gone (checkpoint-runner(8): a busy round
# is tried again).
JLK=$(jid 12)
add_job "$JLK" RUNNING FULL ""
post "$JLK" "$(tid 1201)"
pg_lock runner triggers
CHECKPOINT_BUSY_TIMEOUT=200ms spawn "$RUNNER" 2>>"$RLOG"
P=$LAST_PID
wait_until 100 "[ \"\$(psql_q \"SELECT count(*) FROM pg_stat_activity
    WHERE datname = 'runner' AND wait_event_type = 'Lock'\" postgres)\" = 1 ]"
ok $? "lock: the pass waits for the lock"
is "$(col "$JLK" "$(tid 1201)" status)" IN_PROGRESS "lock: nothing done under it"
pg_unlock ROLLBACK
wait_until 100 "gone $P"
stop_pid "$P"
is "$?|$(status "$JLK" "$(tid 1201)")" "0|$(completed 1)" \
    "lock: once it is gone, the same pass completes the trigger, exit 0"

is "$(dbq "SELECT count(*) FROM (SELECT job_id, checkpoint_id FROM triggers
    WHERE checkpoint_id IS NOT NULL GROUP BY job_id, checkpoint_id
    HAVING count(*) > 1) AS d")" 0 "no (job, checkpoint id) given twice"

done_testing
