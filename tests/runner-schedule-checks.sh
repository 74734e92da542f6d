# Shared by t4060 (SQLite) and t6237 (PostgreSQL): schedules, black-box.
# checkpointctl sets them (job set --every, --cron, --savepoint-every,
# --savepoint-cron) and lists them (schedules); the runner fires what is
# due, one-shot or watching, with the clock in the test's hands through
# CHECKPOINT_TEST_CLOCK (a file holding "now" in ms, read by both).
# Every slot fires once: after a runner was away only the latest, after a
# watching runner is killed with SIGKILL across slots likewise, and never
# twice when several runners pass at once.  Sourced after runner-lib.sh
# (and, for PostgreSQL, CHECKPOINT_DB and dbq set to its database).
# shellcheck disable=SC2016,SC2086

command -v jq >/dev/null 2>&1 || bail "jq is missing"
# interval: GET .../checkpoints/config's interval, as digits (jq would
# round Long.MAX_VALUE).
interval() {
	http GET "/jobs/$1/checkpoints/config"
	printf '%s' "$BODY" | sed -n 's/^.*"interval":\([0-9]*\),.*$/\1/p'
}
# From 2026-01-01 00:00:00 UTC.
test_clock 1767225600000
pass || bail "checkpoint-runner cannot open its database"
start_lighttpd

# slots JOB KIND: the job's slots fired, in seconds after T0, one line.
slots() {
	dbq "SELECT (slot_ms - $T0) / 1000 FROM schedule_slots
	    WHERE job_id = '$1' AND kind = '$2' ORDER BY slot_ms" | tr '\n' ' '
}
# scheduled JOB: how many triggers the scheduler recorded for the job.
scheduled() {
	dbq "SELECT count(*) FROM triggers WHERE job_id = '$1'
	    AND remote_user = 'scheduler'"
}

J=$(jid 61)
"$CTL" job add "$J" --command 'echo "file:/chk/$CHECKPOINT_ID"' ||
    bail "job add $J"

# --- setting and showing -----------------------------------------------------
"$CTL" job set "$J" --every 10s
ok $? "job set --every 10s"
like "$("$CTL" schedules | tail -n +2)" \
    "^$J +CHECKPOINT +every 10s +- +2026-01-01 00:00:10 +0 +$(id -un)\$" \
    "schedules: the rule, no slot yet, the next one, who set it"
http GET "/metrics?per-job=1"
like "$(printf '%s\n' "$BODY" | grep '^checkpoint_api_schedule_next_slot')" \
    "^checkpoint_api_schedule_next_slot_timestamp_seconds\\{job_id=\"$J\",kind=\"checkpoint\"\\} [0-9]+0\\.000\$" \
    "GET /metrics: the schedule's next slot"
is "$(interval "$J")" 10000 \
    "checkpoints/config: the schedule's interval, in ms"
ctl_fails 2 "bad --every '500ms': something follows the unit (e.g. 30s, 10m, 2h, 1d)" \
    "--every 500ms: refused in one line" job set "$J" --every 500ms
ctl_fails 2 "bad --every '0': shorter than a second (e.g. 30s, 10m, 2h, 1d)" \
    "--every 0: refused" job set "$J" --every 0
ctl_fails 2 "bad --cron '0 3 * *': not five fields (minute hour day-of-month month day-of-week)" \
    "--cron of four fields: refused" job set "$J" --cron '0 3 * *'
ctl_fails 2 "bad --cron '0 25 * * *': the hour field is not valid" \
    "--cron with hour 25: refused" job set "$J" --cron '0 25 * * *'
ctl_fails 2 "give --every or --cron, not both" \
    "--every with --cron: refused" job set "$J" --every 1m --cron '* * * * *'
ctl_fails 1 "job $J has no savepoint directory (or is not known): give --savepoint-dir DIR" \
    "--savepoint-every without a savepoint directory: refused" \
    job set "$J" --savepoint-every 1h
ctl_fails 1 "job $(jid 99) not found" "a schedule for an unknown job: refused" \
    job set "$(jid 99)" --every 1m
is "$(dbq "SELECT kind || ' ' || coalesce(CAST(every_ms AS TEXT), '-')
    || ' ' || coalesce(cron, '-') FROM schedules")" "CHECKPOINT 10000 -" \
    "after the refusals: the one schedule, unchanged"

# --- the runner fires what is due, once ----------------------------------------
at 9
pass
is "$(scheduled "$J")" 0 "before the first slot: nothing"
at 10
pass
is "$(scheduled "$J")" 1 "at the first slot: one trigger"
is "$(rows "$J")" "COMPLETED|1|FULL|file:/chk/1|-" \
    "  run as any trigger: the job's type, checkpoint id and location"
is "$(dbq "SELECT coalesce(remote_addr, '-') FROM triggers
    WHERE job_id = '$J'")" - "  with the scheduler as caller, no address"
pass
is "$(scheduled "$J")" 1 "another pass in the same slot: nothing more"
at 45
pass
is "$(slots "$J" CHECKPOINT)" "10 40 " \
    "away over three slots: the latest fires, once"
is "$(scheduled "$J")" 2 "  one trigger for it"
like "$("$CTL" schedules --job "$J" | tail -n 1)" \
    " +every 10s +2026-01-01 00:00:40 +2026-01-01 00:00:50 +2 " \
    "schedules: the last slot and the next, the two passed over missed"
http GET /metrics
is "$(printf '%s\n' "$BODY" | grep '^checkpoint_api_schedule_slots_missed')" \
    "checkpoint_api_schedule_slots_missed_total 2" \
    "GET /metrics: the two slots missed"
http GET /jobs/$J/triggers
is "$(printf '%s' "$BODY" | jq -r '[.triggers[].remote_user] | unique | join(",")')" \
    scheduler "GET /jobs/:jobid/triggers: the scheduler as the caller"
is "$(printf '%s' "$BODY" | jq -c '.schedules[] | [.kind, .rule, .every_ms,
    .cron, .last_slot_ms - '$T0', .set_by, (.next_slot_ms > 0)]')" \
    "[\"CHECKPOINT\",\"every 10s\",10000,null,40000,\"$(id -un)\",true]" \
    "  and its schedule: the rule, the last slot, who set it, a next slot"
is "$(printf '%s' "$BODY" | jq '.schedules[0].missed')" 2 \
    "  and the two slots it missed"

# --- a watching runner, killed with SIGKILL across slots -------------------------
spawn "$RUNNER" --watch 2>>"$RLOG"
W=$LAST_PID
at 50
wait_until 100 '[ "$(scheduled "$J")" = 3 ]'
ok $? "--watch: the slot fires when the clock reaches it"
# Killed once that checkpoint is done: one still waiting on return would
# have the missed slot skipped (a checkpoint of the job in progress).
wait_until 100 '[ "$(dbq "SELECT count(*) FROM triggers WHERE job_id = '"'"'$J'"'"'
    AND status = '"'"'IN_PROGRESS'"'"'")" = 0 ]'
kill -KILL "$W"
reap "$W"
at 95
spawn "$RUNNER" --watch 2>>"$RLOG"
W=$LAST_PID
wait_until 100 '[ "$(scheduled "$J")" = 4 ]'
ok $? "after SIGKILL, four slots missed: one fires on return"
at 100
wait_until 100 '[ "$(scheduled "$J")" = 5 ]'
ok $? "  and the next slot on time"
term_wait "$W"
is "$RC" 0 "  the watching runner stops on SIGTERM"
is "$(slots "$J" CHECKPOINT)" "10 40 50 90 100 " \
    "every slot fired exactly once"
is "$(dbq "SELECT count(*) FROM schedule_slots s JOIN triggers t
    ON t.trigger_id = s.trigger_id AND t.job_id = s.job_id
    WHERE s.job_id = '$J' AND t.status = 'COMPLETED'")" 5 \
    "  each slot's trigger recorded and completed"

# --- several runners in one slot ------------------------------------------------
at 110
for i in 1 2 3 4 5; do
	spawn "$RUNNER" 2>>"$RLOG"
	eval "P$i=\$LAST_PID"
done
for i in 1 2 3 4 5; do
	eval "reap \$P$i"
done
is "$(slots "$J" CHECKPOINT)" "10 40 50 90 100 110 " \
    "five runners at once: the slot fires once"
is "$(scheduled "$J")" 6 "  one trigger"

# --- a job not RUNNING is skipped ------------------------------------------------
"$CTL" job set "$J" --state SUSPENDED
at 120
pass
is "$(scheduled "$J")" 6 "a SUSPENDED job: no trigger"
is "$(dbq "SELECT skipped FROM schedule_slots WHERE job_id = '$J'
    AND slot_ms = $T0 + 120000")" "the job is not RUNNING" \
    "  the slot recorded skipped, with why"
"$CTL" job set "$J" --state RUNNING
at 125
pass
is "$(scheduled "$J")" 6 "RUNNING again within the skipped slot: no burst"
at 130
pass
is "$(scheduled "$J")" 7 "  the next slot fires"

# --- one at a time: a slot finds a trigger still waiting -------------------------
J2=$(jid 62)
"$CTL" job add "$J2" --command true --every 10s
ok $? "job add with --every"
post "$J2" "$(tid 6201)"
at 140
pass
is "$(dbq "SELECT skipped FROM schedule_slots WHERE job_id = '$J2'")" \
    "a checkpoint of the job is still in progress" \
    "a slot while the job's own trigger waits: skipped, not queued behind it"
is "$(rows "$J2")" "COMPLETED|1|FULL|-|-" "  the waiting trigger ran"
at 150
pass
is "$(scheduled "$J2")" 1 "  the next slot fires"
"$CTL" job rm "$J2"

# --- a savepoint schedule, cron ------------------------------------------------
"$CTL" job set "$J" --savepoint-dir file:/sp \
    --savepoint-command 'echo "$CHECKPOINT_SAVEPOINT_DIR/sp-$CHECKPOINT_ID"' \
    --savepoint-cron '*/2 * * * *' --every none
ok $? "job set --savepoint-cron with --every none"
is "$("$CTL" schedules --job "$J" | tail -n +2 | awk '{ print $2, $3, $4 }')" \
    "SAVEPOINT cron */2" "  the checkpoint schedule gone, the savepoint's set"
is "$(interval "$J")" 9223372036854775807 \
    "checkpoints/config: no checkpoint schedule, no interval (as Flink's)"
at 239
pass
is "$(dbq "SELECT count(*) FROM savepoints WHERE job_id = '$J'")" 0 \
    "before 00:04: no savepoint"
at 241
pass
is "$(dbq "SELECT kind || ' ' || status || ' ' || location || ' '
    || remote_user FROM savepoints WHERE job_id = '$J'")" \
    "SAVEPOINT COMPLETED file:/sp/sp-10 scheduler" \
    "at 00:04: a savepoint into the job's directory, by the scheduler"
like "$("$CTL" savepoints --job "$J" | tail -n 1)" \
    " SAVEPOINT +COMPLETED +10 +CANONICAL +scheduler +file:/sp/sp-10\$" \
    "checkpointctl savepoints: the scheduler as the client"
is "$(scheduled "$J")" 9 "no checkpoint fired after --every none"

# --- removal ---------------------------------------------------------------------
"$CTL" job rm "$J"
is "$(dbq "SELECT count(*) FROM schedules") $(dbq "SELECT count(*)
    FROM schedule_slots")" "0 0" "job rm: its schedules and slots go with it"

# --- a fleet's slots, fired in batches --------------------------------------------
# 600 jobs by SQL (either store's), each every 10s from 300: a minute's
# slots of a fleet fall due together, and fire a few hundred a
# transaction, not one each (--stats: schedule_transactions).
at 300
dbq "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n
    WHERE i < 600) INSERT INTO jobs (job_id, name, created_ms, updated_ms)
    SELECT 'ba7c000000000000000000000000' || (1000 + i), 'fleet', 1, 1
    FROM n" >/dev/null
dbq "UPDATE jobs SET state = 'SUSPENDED' WHERE job_id LIKE 'ba7c%'
    AND job_id > 'ba7c0000000000000000000000001500'" >/dev/null
dbq "INSERT INTO schedules (job_id, kind, every_ms, since_ms, last_slot_ms,
    set_by) SELECT job_id, 'CHECKPOINT', 10000, $T0 + 300000,
    $T0 + 300000, 'test' FROM jobs WHERE job_id LIKE 'ba7c%'" >/dev/null
# fleet SLOT: the fleet's slots at SLOT, fired and skipped.
fleet() {
	dbq "SELECT count(*) FROM schedule_slots WHERE job_id LIKE 'ba7c%'
	    AND slot_ms = $T0 + $1 * 1000 AND trigger_id IS NOT NULL"
	dbq "SELECT count(*) FROM schedule_slots WHERE job_id LIKE 'ba7c%'
	    AND slot_ms = $T0 + $1 * 1000 AND skipped IS NOT NULL"
}
at 310
out=$(pass --stats)
is "$(fleet 310 | tr '\n' ' ')" "500 100 " \
    "600 slots due at once: 500 fired, the 100 SUSPENDED jobs' skipped"
is "$(printf '%s' "$out" | sed -n 's/.*"scheduled":\([0-9]*\).*/\1/p')" \
    500 "  --stats: 500 scheduled"
tx=$(printf '%s' "$out" |
    sed -n 's/.*"schedule_transactions":\([0-9]*\).*/\1/p')
ok "$([ "${tx:-0}" -ge 1 ] && [ "${tx:-0}" -le 3 ] && echo 0 || echo 1)" \
    "  in at most 3 transactions, not one a slot ($tx)"
is "$(dbq "SELECT count(*) FROM triggers WHERE job_id LIKE 'ba7c%'
    AND remote_user = 'scheduler' AND status = 'COMPLETED'")" 500 \
    "  their 500 triggers recorded and run"
at 320
for i in 1 2 3; do
	spawn "$RUNNER" 2>>"$RLOG"
	eval "P$i=\$LAST_PID"
done
for i in 1 2 3; do
	eval "reap \$P$i"
done
is "$(fleet 320 | tr '\n' ' ')" "500 100 " \
    "three runners at once over 600 slots: each fired or skipped once"
is "$(dbq "SELECT count(*) FROM triggers WHERE job_id LIKE 'ba7c%'
    AND remote_user = 'scheduler'")" 1000 "  one trigger each"

# --- a slot that comes while a pass still runs its actions ---------------------------
# J3's action waits for a file; J4 is scheduled every 10s from 400.  A
# pass that started at 400 fires J4's slot of 410 when it comes, not
# after J3's action: a pass over a large fleet's actions may outlast a
# schedule's period.
J3=$(jid 63)
J4=$(jid 64)
at 400
"$CTL" job add "$J3" \
    --command "touch '$T/started'; while [ ! -e '$T/go' ]; do sleep 0.05; done"
"$CTL" job add "$J4" --command true --every 10s
post "$J3" "$(tid 6301)"
spawn "$RUNNER" 2>>"$RLOG"
P=$LAST_PID
wait_until 100 '[ -e "$T/started" ]'
ok $? "a pass runs J3's action, which waits"
at 410
wait_until 100 '[ "$(scheduled "$J4")" = 1 ]'
ok $? "  J4's slot fires when it comes, within that pass"
gone "$P"
is "$?" 1 "  the pass still running J3's action meanwhile"
touch "$T/go"
reap "$P"
is "$(rows "$J4")" "COMPLETED|1|FULL|-|-" "  the pass ran J4's trigger too"
is "$(rows "$J3")" "COMPLETED|1|FULL|-|-" "  and J3's, once its action ended"

# --- a schedule keeps its hundred newest slots -------------------------------------
dbq "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n
    WHERE i < 150) INSERT INTO schedule_slots (job_id, kind, slot_ms,
    fired_ms, skipped) SELECT '$J4', 'CHECKPOINT', $T0 + i, $T0 + i, 'old'
    FROM n" >/dev/null
at 420
pass
is "$(dbq "SELECT count(*) FROM schedule_slots WHERE job_id = '$J4'")" 100 \
    "151 slots kept, one more fired: the hundred newest kept"
is "$(dbq "SELECT count(*) FROM schedule_slots WHERE job_id = '$J4'
    AND slot_ms >= $T0 + 410000")" 2 "  the slot just fired and the one before"
