#!/bin/sh
# checkpoint-runner, black-box, what one pass records: real processes, a real
# database, triggers recorded through the real API behind lighttpd
# (checkpoint-api(7), "FAILURE CAUSES" and "CHECKPOINT IDS";
# checkpoint-runner(8)).  Checkpoint ids per job in arrival order; CONFIGURED
# resolved to the job's type; unknown and stopped jobs failed as Flink's
# FlinkJobNotFoundException; idempotent re-POSTs.  Actions are t4010, --watch
# t4020, stale claims t4030, the command line and the store t4040.
#
# Actions' commands are written in single quotes on purpose: their $VARS
# are for the action's shell, not this one.
# shellcheck disable=SC2016,SC2086

. "$(dirname "$0")/runner-lib.sh"

# --- set-up -----------------------------------------------------------------

pass
ok $? "a pass over a new database creates it and exits 0"
like "$(pass --stats)" \
    '^\{"completed":0,"failed":0,"stale":0,"purged":0,"actions":0,"transactions":[0-9]+,"duration_ms":[0-9]+,"scheduled":0,"schedule_transactions":0\}$' \
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

# checkpoint-runner, black-box, what one pass records: real processes, a real
# database, triggers recorded through the real API behind lighttpd
# (checkpoint-api(7), "FAILURE CAUSES" and "CHECKPOINT IDS";
# checkpoint-runner(8)).  Checkpoint ids per job in arrival order; CONFIGURED
# resolved to the job's type; unknown and stopped jobs failed as Flink's
# FlinkJobNotFoundException; idempotent re-POSTs.  Actions are t4010, --watch
# t4020, stale claims t4030, the command line and the store t4040.
done_testing
