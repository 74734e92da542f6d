#!/bin/sh
# Two hosts in front of one PostgreSQL database (checkpoint-api(7),
# "IDEMPOTENCY" and "CHECKPOINT IDS"; checkpoint-runner(8)): two lighttpd
# servers, each with FastCGI processes of its own, and two
# checkpoint-runner --watch processes, all sharing the database through
# CHECKPOINT_DB alone.  A trigger POSTed to one host is read on the other,
# the two answers byte for byte the same, while pending and once
# completed; the same triggerId POSTed again through the other host is the
# same trigger (202 with its id, one row, no second checkpoint id), before
# and after completion; triggers POSTed alternately through both hosts, and
# from two clients at once, get per-job checkpoint ids exactly 1..n; and
# with three jobs whose command is slow and each runner running one command
# at a time, the jobs pass from runner to runner, yet one job's commands
# never overlap, whichever runner runs them.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg.sh"
. "$(dirname "$0")/pg-hosts.sh"

# Results are kept: a re-POST after completion is the same trigger.
CHECKPOINT_STORE_DURATION=0
export CHECKPOINT_STORE_DURATION

JA=6300000000000000000000000000000a	# no command
JB=6300000000000000000000000000000b	# no command
JS=63000000000000000000000000000001	# slow command
JT=63000000000000000000000000000002	# slow command
JU=63000000000000000000000000000003	# slow command
SLOWLOG=$T/slow.log
# The command logs its job, checkpoint id, runner (its parent) and when it
# started and ended, in ms.
SLOW='s=$(date +%s%3N); sleep 0.3; echo "$CHECKPOINT_JOB_ID $CHECKPOINT_ID $PPID $s $(date +%s%3N)"'

IN_PROGRESS='{"status":{"id":"IN_PROGRESS"},"operation":null}'

tid() {
	printf '63%030x' "$1"
}

# post HOST JOB TID: sets STATUS and BODY.
post() {
	eval "BASE=\$HOST_$1"
	http POST "/jobs/$2/checkpoints" "{\"triggerId\":\"$3\"}"
}

# get HOST JOB TID: sets STATUS and BODY.
get() {
	eval "BASE=\$HOST_$1"
	http GET "/jobs/$2/checkpoints/$3"
}

pg_start
export CHECKPOINT_DB=$PGURI
"$CTL" init > /dev/null
ok $? "checkpointctl init makes the schema in PostgreSQL"
"$CTL" job add "$JA" > /dev/null && "$CTL" job add "$JB" > /dev/null &&
    "$CTL" job add "$JS" --timeout 30 \
    --command "$SLOW >> '$SLOWLOG'" > /dev/null &&
    "$CTL" job add "$JT" --timeout 30 \
    --command "$SLOW >> '$SLOWLOG'" > /dev/null &&
    "$CTL" job add "$JU" --timeout 30 \
    --command "$SLOW >> '$SLOWLOG'" > /dev/null
ok $? "five jobs registered"

host_start A
host_start B
host_apps A > "$T/apps-A"
host_apps B > "$T/apps-B"
is "$(grep -c . "$T/apps-A") $(grep -c . "$T/apps-B")" "2 2" \
    "two lighttpd hosts, each running 2 FastCGI processes"
is "$(sort "$T/apps-A" "$T/apps-B" | uniq -d)" "" \
    "  of its own: none is both hosts'"

# --- One trigger, two hosts --------------------------------------------------

# No runner yet: the trigger stays pending while both hosts read it.
post A "$JA" "$(tid 1)"
is "$STATUS $BODY" "202 {\"request-id\":\"$(tid 1)\"}" "POST through A: 202"
get B "$JA" "$(tid 1)"
is "$STATUS $BODY" "200 $IN_PROGRESS" "  read through B: IN_PROGRESS"
cp "$T/resp-body" "$T/b-pending"
get A "$JA" "$(tid 1)"
cmp -s "$T/resp-body" "$T/b-pending"
ok $? "  A's answer is byte for byte B's"
post B "$JB" "$(tid 2)"
is "$STATUS $BODY" "202 {\"request-id\":\"$(tid 2)\"}" "POST through B: 202"
get A "$JB" "$(tid 2)"
is "$STATUS $BODY" "200 $IN_PROGRESS" "  read through A: IN_PROGRESS"

# The same triggerId again, through the other host, while pending.
post B "$JA" "$(tid 1)"
is "$STATUS $BODY" "202 {\"request-id\":\"$(tid 1)\"}" \
    "the same triggerId POSTed again through B: 202, the same id"
is "$(q "SELECT count(*) FROM triggers WHERE trigger_id = '$(tid 1)'")" 1 \
    "  one trigger"

runner_start 1 --parallel 1
runner_start 2 --parallel 1
wait_until 100 '[ "$(pending)" -eq 0 ]'
ok $? "two watching runners complete both"
get A "$JA" "$(tid 1)"
is "$STATUS $BODY" \
    '200 {"status":{"id":"COMPLETED"},"operation":{"checkpointId":1}}' \
    "  read through A: COMPLETED, checkpoint 1"
cp "$T/resp-body" "$T/a-done"
get B "$JA" "$(tid 1)"
cmp -s "$T/resp-body" "$T/a-done"
ok $? "  B's answer is byte for byte A's"
get B "$JB" "$(tid 2)"
is "$STATUS $BODY" \
    '200 {"status":{"id":"COMPLETED"},"operation":{"checkpointId":1}}' \
    "  the other job's, read through B: its own checkpoint 1"

# And again once completed, through each host: no second checkpoint.
post B "$JA" "$(tid 1)"
is "$STATUS $BODY" "202 {\"request-id\":\"$(tid 1)\"}" \
    "the completed triggerId POSTed again through B: 202, the same id"
post A "$JA" "$(tid 1)"
is "$STATUS $BODY" "202 {\"request-id\":\"$(tid 1)\"}" "  and through A"
sleep 0.5
is "$(q "SELECT count(*) || ' ' || min(status) || ' ' || min(checkpoint_id)
    FROM triggers WHERE trigger_id = '$(tid 1)'")" \
    "1 COMPLETED 1" "  still one trigger, COMPLETED, checkpoint 1"
is "$(q "SELECT last_id FROM checkpoint_counters WHERE job_id = '$JA'")" 1 \
    "  no second checkpoint id was taken"
get B "$JA" "$(tid 1)"
cmp -s "$T/resp-body" "$T/a-done"
ok $? "  and it reads the same through both"

# --- Dense ids across hosts ---------------------------------------------------

# 40 triggers per job, alternately through A and B, from two clients at
# once (one starting on each host), the runners completing as they come.
burst() {
	_i=$1
	while [ "$_i" -le "$2" ]; do
		if [ $((_i % 2)) -eq 0 ]; then _h=A; else _h=B; fi
		_job=$JA
		[ $((_i % 4)) -ge 2 ] && _job=$JB
		eval "_base=\$HOST_$_h"
		_code=$(curl -s -o "$T/burst-$1.body" -w '%{http_code}' -X POST \
		    --data-binary "{\"triggerId\":\"$(tid "$_i")\"}" \
		    "$_base/jobs/$_job/checkpoints")
		echo "$_h $_job $(tid "$_i") $_code $(cat "$T/burst-$1.body")"
		_i=$((_i + 1))
	done
}
burst 3 42 > "$T/burst-1" &
B1=$!
burst 43 82 > "$T/burst-2" &
B2=$!
wait "$B1"
wait "$B2"
is "$(awk '$4 != 202 || $5 != "{\"request-id\":\"" $3 "\"}"' \
    "$T/burst-1" "$T/burst-2")" "" "80 POSTs alternately through A and B: each 202"
is "$(awk '{ print $1 }' "$T/burst-1" "$T/burst-2" | sort | uniq -c |
    awk '{ printf "%s%s", s, $1; s = " " }')" "40 40" "  40 through each host"
wait_until 150 '[ "$(pending)" -eq 0 ]'
ok $? "  all completed by the runners"
is "$(q "SELECT job_id || ' ' || count(*) FROM triggers
    WHERE job_id IN ('$JA', '$JB') GROUP BY job_id ORDER BY job_id")" \
    "$JA 41
$JB 41" "  41 triggers per job"
is "$(ids_not_dense "$JA" "$JB")" "" \
    "  each job's checkpoint ids are exactly 1..41, its counter at 41"
is "$(q "SELECT count(*) FROM triggers WHERE failure_class IS NOT NULL")" 0 \
    "  no failures"
# Each checkpoint read through the host that did not take its POST: the
# answer the database holds for it.
q "SELECT trigger_id || ' ' || response FROM trigger_status
    WHERE job_id IN ('$JA', '$JB')" > "$T/want"
bad=0
cat "$T/burst-1" "$T/burst-2" > "$T/bursts"
while read -r h job t _; do
	if [ "$h" = A ]; then o=B; else o=A; fi
	get "$o" "$job" "$t"
	want=$(sed -n "s/^$t //p" "$T/want")
	if [ "$STATUS $BODY" != "200 $want" ]; then
		bad=$((bad + 1))
		diag "GET $job/$t through $o: $STATUS $BODY (want $want)"
	fi
done < "$T/bursts"
is "$bad" 0 "  each read through the other host is its COMPLETED answer"

# --- Slow commands: one job never runs two at once ---------------------------

# Three slow jobs, six triggers each in turn, and two runners running one
# command at a time each: a runner done with one job's command takes the
# next trigger in arrival order, so the jobs pass from runner to runner.
: > "$SLOWLOG"
i=100
for h in A B A B A B; do
	for job in "$JS" "$JT" "$JU"; do
		post "$h" "$job" "$(tid "$i")"
		i=$((i + 1))
	done
done
is "$(q "SELECT count(*) FROM triggers
    WHERE job_id IN ('$JS', '$JT', '$JU')")" 18 \
    "6 triggers for each of three slow jobs, through both hosts"
wait_until 200 '[ "$(pending)" -eq 0 ]'
ok $? "  all completed (each command takes 0.3 s)"
is "$(grep -c . "$SLOWLOG")" 18 "  18 command runs logged"
is "$(q "SELECT count(*) FROM triggers WHERE job_id IN ('$JS', '$JT', '$JU')
    AND (failure_class IS NOT NULL OR checkpoint_id IS NULL)")" 0 \
    "  each succeeded"
is "$(ids_not_dense "$JS" "$JT" "$JU")" "" "  ids 1..6 per job"
is "$(awk '{ print $3 }' "$SLOWLOG" | sort -u | tr '\n' ' ')" \
    "$(printf '%s\n' "$RUNNER_1" "$RUNNER_2" | sort | tr '\n' ' ')" \
    "  both runners ran commands"
shared=$(awk '{ print $1, $3 }' "$SLOWLOG" | sort -u | awk '{ print $1 }' |
    uniq -d | grep -c .)
[ "$shared" -gt 0 ]
ok $? "  and some job's commands ran on both ($shared of 3 jobs)"
# For each job, runs by start time: one starting before the previous one
# ended is an overlap (job ids compared as strings: awk would compare
# these all-digit ones as numbers).
is "$(sort -k1,1 -k4,4n "$SLOWLOG" | awk '
    $1 "" == job && $4 < end { print "job " $1 ": checkpoint " $2 \
        " (runner " $3 ") started before checkpoint " id \
        " (runner " r ") ended" }
    { job = $1 ""; end = $5; id = $2; r = $3 }')" "" \
    "  one job's commands never overlap, across the two runners"
diag "runs per job and runner: $(awk '{ print substr($1, 31), $3 }' \
    "$SLOWLOG" | sort | uniq -c | tr -s ' ' | tr '\n' ',')"

# --- Afterwards ---------------------------------------------------------------

runner_stop 1
is "$?" 0 "runner 1 exits 0 on SIGTERM"
runner_stop 2
is "$?" 0 "runner 2 exits 0 on SIGTERM"
is "$(host_crashes A)$(host_crashes B)" "" "no FastCGI process of either host ended"
is "$(grep -h ']: error: ' "$T"/runner-*.log)" "" \
    "the runners logged no error"

done_testing
