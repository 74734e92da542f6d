#!/bin/sh
# checkpoint-runner under concurrency and crashes: three one-shot runners
# and a watcher over thousands of triggers at once (per-job ids exactly
# 1..n, no command run twice), a runner SIGKILLed in the middle of a big
# batch (the next pass completes everything, ids still 1..n), a runner
# SIGKILLed while its command runs (the command dies with it), and the WAL
# truncated after a pass that grew it.
. "$(dirname "$0")/lib.sh"

J1=00000000000000000000000000000001
J2=00000000000000000000000000000002
J3=00000000000000000000000000000003
JC=0000000000000000000000000000000c

# queue DB N JOB...: N pending triggers spread over the jobs, arrival order.
queue() {
	_db=$1 _n=$2
	shift 2
	_jobs=$(printf "'%s'," "$@" | sed 's/,$//')
	sqlite3 -cmd ".timeout 5000" "$_db" "
	    CREATE TEMP TABLE j(k INTEGER PRIMARY KEY, id TEXT);
	    INSERT INTO j(id) SELECT value FROM json_each('[' || replace(\"$_jobs\", '''', '\"') || ']');
	    WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < $_n - 1)
	    INSERT INTO triggers (job_id, trigger_id, requested_type, created_ms)
	    SELECT (SELECT id FROM j WHERE k = 1 + i % (SELECT count(*) FROM j)),
	        printf('%08x%024x', abs(random()) % 4294967296, i), 'CONFIGURED', i FROM n;"
}

# ids_ok DB JOB: the job's checkpoint ids are exactly 1..n, each once.
ids_ok() {
	sqlite3 -cmd ".timeout 5000" "$1" "SELECT count(*) = count(DISTINCT checkpoint_id)
	    AND min(checkpoint_id) = 1 AND max(checkpoint_id) = count(*)
	    AND max(checkpoint_id) = (SELECT last_id FROM checkpoint_counters WHERE job_id = '$2')
	    FROM triggers WHERE job_id = '$2'"
}

# --- three one-shot runners and a watcher at once -------------------------
$CTL job add $J1 >/dev/null && $CTL job add $J2 >/dev/null &&
    $CTL job add $J3 --type INCREMENTAL >/dev/null &&
    $CTL job add $JC --command "echo \"\$CHECKPOINT_TRIGGER_ID \$CHECKPOINT_ID\" >> '$T/commands.log'" >/dev/null
ok $? "four jobs registered"
queue "$DB" 3000 $J1 $J2 $J3
queue "$DB" 60 $JC
is "$(sql "SELECT count(*) FROM triggers WHERE status = 'IN_PROGRESS'")" 3060 \
    "3060 pending triggers"

spawn $RUNNER --watch --batch 50 --log-level error
WATCHER=$LAST_PID
for r in 1 2 3; do
	$RUNNER --batch 100 --log-level error > "$T/pass-$r.out" 2>&1 &
	eval "P$r=\$!"
done
wait "$P1"; s1=$?
wait "$P2"; s2=$?
wait "$P3"; s3=$?
is "$s1 $s2 $s3" "0 0 0" "three overlapping one-shot passes exit 0"
i=0
while [ "$(sql "SELECT count(*) FROM triggers WHERE status = 'IN_PROGRESS'")" != 0 ] &&
    [ $i -lt 200 ]; do
	sleep 0.05
	i=$((i + 1))
done
stop_pid "$WATCHER"
is "$(sql "SELECT status, count(*) FROM triggers GROUP BY 1")" "COMPLETED|3060" \
    "every trigger completed"
for j in $J1 $J2 $J3 $JC; do
	is "$(ids_ok "$DB" $j)" 1 "job $j: checkpoint ids exactly 1..n, counter at n"
done
is "$(sql "SELECT count(*) FROM triggers WHERE failure_class IS NOT NULL")" 0 \
    "no failures"
is "$(sort "$T/commands.log" | uniq -d | wc -l)" 0 "no command ran twice for a trigger"
is "$(wc -l < "$T/commands.log")" 60 "each of the 60 commands ran once"
is "$(sql "SELECT trigger_id || ' ' || checkpoint_id FROM triggers WHERE job_id = '$JC' ORDER BY 1")" \
    "$(sort "$T/commands.log")" "each command saw its trigger's checkpoint id"
is "$(sql "SELECT count(DISTINCT checkpoint_type) || checkpoint_type FROM triggers WHERE job_id = '$J3'")" \
    "1INCREMENTAL" "CONFIGURED resolved to the job's type in every round"

# --- SIGKILL in the middle of one big batch ------------------------------
B=$T/batch.db
init_db "$B"
$CTL --db "$B" job add $J1 >/dev/null && $CTL --db "$B" job add $J2 >/dev/null
queue "$B" 60000 $J1 $J2
$RUNNER --db "$B" --batch 60000 --log-level error &
KP=$!
sleep 0.15
kill -9 "$KP" 2>/dev/null
wait "$KP"
ks=$?
is "$ks" 137 "a runner killed with SIGKILL in the middle of a 60,000-trigger batch"
is "$(sqlite3 -cmd '.timeout 5000' "$B" "SELECT count(*) FROM triggers WHERE status = 'IN_PROGRESS'")" 60000 \
    "its transaction left nothing half-done (all still pending)"
# In one transaction, so that its WAL passes 4 MiB (WAL housekeeping,
# below): in rounds of 5000 rows it peaks where SQLite's automatic
# checkpoint happens to fall, a few frames either side of 4 MiB.
$RUNNER --db "$B" --batch 60000 --log-level info 2> "$T/pass.log"
ok $? "the next pass exits 0"
is "$(sqlite3 -cmd '.timeout 5000' "$B" "SELECT status, count(*) FROM triggers GROUP BY 1")" \
    "COMPLETED|60000" "the next pass completed everything"
is "$(ids_ok "$B" $J1)$(ids_ok "$B" $J2)" 11 "ids per job exactly 1..30000 after the kill"
is "$(sqlite3 "$B" 'PRAGMA integrity_check')" ok "integrity_check is ok"

# --- a runner killed while its command runs takes the command with it ------
O=$T/orphan.db
JO=0000000000000000000000000000000e
init_db "$O"
$CTL --db "$O" job add $JO --timeout 60 \
    --command "echo started > '$T/orphan.started'; sleep 4141; echo done" >/dev/null
sqlite3 "$O" "INSERT INTO triggers (job_id, trigger_id, requested_type, created_ms)
    VALUES ('$JO', 'eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee', 'CONFIGURED', 1)"
$RUNNER --db "$O" --log-level error &
KP=$!
i=0
while [ ! -f "$T/orphan.started" ] && [ $i -lt 100 ]; do
	sleep 0.05
	i=$((i + 1))
done
ok "$([ -f "$T/orphan.started" ] && pgrep -f 'sleep 4141' >/dev/null && echo 0 || echo 1)" \
    "the command is running"
kill -9 "$KP"
wait "$KP" 2>/dev/null
i=0
while pgrep -f 'sleep 4141' >/dev/null && [ $i -lt 40 ]; do
	sleep 0.05
	i=$((i + 1))
done
ok "$(pgrep -f 'sleep 4141' >/dev/null && echo 1 || echo 0)" \
    "SIGKILL of the runner: its command's whole group is gone within 2 s (watchdog)"
$RUNNER --db "$O" --log-level error
like "$(sqlite3 "$O" "SELECT status || ' ' || checkpoint_id || ' ' || failure_trace FROM triggers")" \
    "^COMPLETED 1 org.apache.flink.runtime.checkpoint.CheckpointException: Checkpoint expired before completing." \
    "the next pass resolves the dead runner's claim as expired, id 1 kept"

# --- WAL housekeeping -----------------------------------------------------
# The pass above rewrote 60,000 rows in one transaction: more than 4 MiB
# of WAL, truncated at the end of the pass (SQLite removes the file itself
# once the last connection closes, so the runner's log is the witness).
like "$(cat "$T/pass.log")" "info: $B: WAL truncated from [0-9]{7,} bytes" \
    "the WAL was truncated after a pass that grew it past 4 MiB"

done_testing
