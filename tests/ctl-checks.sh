# Shared by tests/t2000 (SQLite) and t6220 (PostgreSQL): checkpointctl's
# job and trigger commands, what each prints, how it exits and what it
# leaves in the database, the same on both stores.  Sourced once the test
# has made the database CHECKPOINT_DB names, with: run, refused and
# succeeds (running checkpointctl); sql (the database, as an operator asks
# it); QUOTE, the SQL function that writes a value as a literal (NULL as
# NULL); jobs_rows and jobs_dump; remaining (the first letter of each
# trigger's id, in arrival order); NL and TAB; J1, J2, J2UP, J3, NOJOB.

# --- job add ---

succeeds "" "job add with defaults" job add "$J1"
is "$(jobs_rows)" "$J1|''|RUNNING|FULL|NULL|600" \
    "job add: RUNNING, FULL, no command, 600 s"

succeeds "" "job add with every option, id in uppercase" \
    job add "$J2UP" --name 'nightly backup' --type INCREMENTAL \
    --command 'sqlite3 /srv/app.db ".backup /srv/ckpt.db"' --timeout 30
is "$(sql "SELECT $QUOTE(name), state, checkpoint_type, $QUOTE(command),
    timeout_s FROM jobs WHERE job_id = '$J2'")" \
    "'nightly backup'|RUNNING|INCREMENTAL|'sqlite3 /srv/app.db \".backup /srv/ckpt.db\"'|30" \
    "job add: every option stored, id in lowercase"

before=$(jobs_dump)
refused 1 "job $J2 already exists" "job add of a known job fails" \
    job add "$J2" --name other
refused 1 "job $J2 already exists" \
    "job add of a known job in another case fails" job add "$J2UP"
is "$(jobs_dump)" "$before" "job add duplicate: jobs unchanged"

succeeds "" "job add --command '' means no command" \
    job add "$J3" --command ''
is "$(sql "SELECT $QUOTE(command) FROM jobs WHERE job_id = '$J3'")" NULL \
    "job add --command '': command is NULL"
run job rm "$J3"

before=$(jobs_dump)
for id in 0123456789abcdef0123456789abcde 0123456789abcdef0123456789abcdef0 \
    0123456789abcdef0123456789abcdeg '' ' 0123456789abcdef0123456789abcde'; do
	refused 2 "bad job id '$id': expected 32 hexadecimal characters" \
	    "job add refuses the id '$id'" job add "$id"
done
for t in full CONFIGURED ''; do
	refused 2 "bad --type '$t': expected FULL or INCREMENTAL" \
	    "job add refuses --type '$t'" job add "$J3" --type "$t"
done
for n in 0 -1 abc 99999999999 31536001 '' ' 5' 5s; do
	refused 2 "bad --timeout '$n': expected a whole number from 1 to 31536000" \
	    "job add refuses --timeout '$n'" job add "$J3" --timeout "$n"
done
refused 2 "job add: unknown option --state" \
    "job add refuses --state (a new job is RUNNING)" \
    job add "$J3" --state FAILED
refused 2 "job add: missing JOBID" "job add without an id" job add
refused 2 "job add: unexpected argument 'extra'" \
    "job add with a second operand" job add "$J3" extra
refused 2 "job add: unexpected argument 'a'" \
    "job add with many operands names the first extra" job add "$J3" a b c d
refused 2 "option --name needs a value" "job add --name without a value" \
    job add "$J3" --name
is "$(jobs_dump)" "$before" "refused job adds: jobs unchanged"

# --- job set ---

succeeds "" "job set --state" job set "$J1" --state FINISHED
succeeds "" "job set --name" job set "$J1" --name 'renamed'
succeeds "" "job set --type" job set "$J1" --type INCREMENTAL
succeeds "" "job set --command" job set "$J1" --command 'true'
succeeds "" "job set --timeout (upper bound)" job set "$J1" --timeout 31536000
is "$(jobs_rows | grep "^$J1")" \
    "$J1|'renamed'|FINISHED|INCREMENTAL|'true'|31536000" \
    "job set: each field changed"
succeeds "" "job set several fields at once, id in uppercase" \
    job set 0123456789ABCDEF0123456789ABCDEF --state RUNNING --type FULL \
    --timeout 1 --name ''
is "$(jobs_rows | grep "^$J1")" "$J1|''|RUNNING|FULL|'true'|1" \
    "job set: several fields changed, the others kept"
succeeds "" "job set --command '' clears the command" \
    job set "$J1" --command ''
is "$(sql "SELECT $QUOTE(command) FROM jobs WHERE job_id = '$J1'")" NULL \
    "job set --command '': command is NULL"

before=$(jobs_dump)
for s in running PAUSED CONFIGURED ''; do
	refused 2 "bad --state '$s': expected RUNNING, FINISHED, CANCELED, FAILED or SUSPENDED" \
	    "job set refuses --state '$s'" job set "$J1" --state "$s"
done
refused 2 "bad --type 'CONFIGURED': expected FULL or INCREMENTAL" \
    "job set refuses --type CONFIGURED" job set "$J1" --type CONFIGURED
refused 2 "bad --timeout '0': expected a whole number from 1 to 31536000" \
    "job set refuses --timeout 0" job set "$J1" --timeout 0 --name x
# The root under which requests name directories: in their normal form.
refused 2 "bad --savepoint-dir 'sp': it is not an absolute path" \
    "job set refuses a relative --savepoint-dir" job set "$J1" --savepoint-dir sp
refused 2 "bad --savepoint-dir 'file:/sp/../etc': it holds a . or .. segment" \
    "job set refuses --savepoint-dir with .." job set "$J1" --savepoint-dir file:/sp/../etc
refused 2 "bad --savepoint-dir 'file:/my sp': it holds a character other than letters, digits and - . _ ~ / : @ % + = ," \
    "job set refuses --savepoint-dir with a space" job set "$J1" --savepoint-dir 'file:/my sp'
refused 2 "job set: nothing to change; give --state, --name, --type, --command, --timeout, --flink, --savepoint-dir, a savepoint, stop or dispose command, a schedule (--every, --cron, --savepoint-every, --savepoint-cron) or a retention (--keep-savepoints, --keep-checkpoints and their -for)" \
    "job set without an option" job set "$J1"
refused 2 "bad job id 'nope': expected 32 hexadecimal characters" \
    "job set refuses a bad id" job set nope --state FAILED
refused 1 "job $NOJOB not found" "job set of an unknown job fails" \
    job set "$NOJOB" --state FAILED
is "$(jobs_dump)" "$before" "refused job sets: jobs unchanged"

# --- job list and job rm ---

sql "INSERT INTO checkpoint_counters VALUES ('$J2', 7);
    INSERT INTO triggers (job_id, trigger_id, requested_type, created_ms)
    VALUES ('$J2', '$J1', 'FULL', 1)"
succeeds "JOB ID                            STATE    TYPE         TIMEOUT  CHECKPOINT  PENDING  SAVEPOINTS  NAME            COMMAND
$J1  RUNNING  FULL         1s       -           0        run         -               -
$J2  RUNNING  INCREMENTAL  30s      7           1        run         nightly backup  sqlite3 /srv/app.db \".backup /srv/ckpt.db\"" \
    "job list: a header and one aligned line per job" job list

succeeds "" "job rm" job rm "$J2UP"
is "$(sql "SELECT (SELECT count(*) FROM jobs WHERE job_id = '$J2') || '|' ||
    (SELECT last_id FROM checkpoint_counters WHERE job_id = '$J2')")" "0|7" \
    "job rm: the job is gone, its checkpoint counter kept"
refused 1 "job $J2 not found" "job rm of an unknown job fails" job rm "$J2"
refused 2 "bad job id '': expected 32 hexadecimal characters" \
    "job rm refuses an empty id" job rm ''
succeeds "" "job rm of the last job" job rm "$J1"
succeeds "JOB ID  STATE  TYPE  TIMEOUT  CHECKPOINT  PENDING  SAVEPOINTS  NAME  COMMAND" \
    "job list with no jobs prints the header only" job list
succeeds "" "a job added again" job add "$J2"
like "$(sql 'SELECT last_checkpoint_id FROM job_overview')" '^7$' \
    "a job added again continues from its old checkpoint counter"
run job rm "$J2"

# --- triggers ---

sql "DELETE FROM triggers"
succeeds "CREATED (UTC)  JOB ID  TRIGGER ID  STATUS  CHECKPOINT  TYPE  CLIENT  RESULT" \
    "triggers with none prints the header only" triggers

A=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
B=bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb
C=cccccccccccccccccccccccccccccccc
D=dddddddddddddddddddddddddddddddd
# D's failure carries its serialized-throwable, as the runner would store it
# (cgi/throwable.c): the schema wants one with every failure.
THROWABLE_TIMEOUT=$THROWABLE_HEAD\
'dAAUdGltZWQgb3V0IGFmdGVyIDMwIHN1cgAeW0xqYXZhLmxhbmcuU3RhY2tUcmFj'\
'ZUVsZW1lbnQ7AkYqPDz9IjkCAAB4cAAAAABzcgAfamF2YS51dGlsLkNvbGxlY3Rp'\
'b25zJEVtcHR5TGlzdHq4F7Q8p57eAgAAeHB4dAAfdGltZWQgb3V0IGFmdGVyIDMw'\
'IHMKCWF0IHJ1bm5lcnQAJWphdmEudXRpbC5jb25jdXJyZW50LlRpbWVvdXRFeGNl'\
'cHRpb25w'
sql "INSERT INTO triggers (job_id, trigger_id, requested_type, created_ms)
    VALUES ('$J1', '$A', 'FULL', 1700000000000);
INSERT INTO triggers (job_id, trigger_id, requested_type, created_ms,
    claimed_by, claimed_ms, checkpoint_id, checkpoint_type, remote_user,
    remote_addr)
    VALUES ('$J1', '$B', 'CONFIGURED', 1700000001000, 'host:4242',
    1700000001500, 3, 'INCREMENTAL', 'alice', '127.0.0.1');
INSERT INTO triggers (job_id, trigger_id, requested_type, created_ms,
    status, checkpoint_id, checkpoint_type, location, completed_ms,
    remote_addr)
    VALUES ('$J2', '$C', 'FULL', 1700000002000, 'COMPLETED', 1, 'FULL',
    '/srv/ckpt/1', 1700000002500, '::1');
INSERT INTO triggers (job_id, trigger_id, requested_type, created_ms,
    status, checkpoint_id, checkpoint_type, failure_class, failure_trace,
    failure_throwable, completed_ms)
    VALUES ('$J1', '$D', 'INCREMENTAL', 1700000003000, 'COMPLETED', 4,
    'INCREMENTAL', 'java.util.concurrent.TimeoutException',
    'timed out after 30 s$NL${TAB}at runner',
    '$THROWABLE_TIMEOUT', 1700000033000)"
succeeds "CREATED (UTC)        JOB ID                            TRIGGER ID                        STATUS       CHECKPOINT  TYPE         CLIENT           RESULT
2023-11-14 22:13:23  $J1  $D  FAILED       4           INCREMENTAL  -                timed out after 30 s
2023-11-14 22:13:22  $J2  $C  COMPLETED    1           FULL         ::1              /srv/ckpt/1
2023-11-14 22:13:21  $J1  $B  IN_PROGRESS  3           INCREMENTAL  alice@127.0.0.1  claimed by host:4242
2023-11-14 22:13:20  $J1  $A  IN_PROGRESS  -           FULL         -                -" \
    "triggers: newest first, with status (FAILED for a failure cause), id, type, client and result" \
    triggers
succeeds "CREATED (UTC)        JOB ID                            TRIGGER ID                        STATUS     CHECKPOINT  TYPE         CLIENT  RESULT
2023-11-14 22:13:23  $J1  $D  FAILED     4           INCREMENTAL  -       timed out after 30 s
2023-11-14 22:13:22  $J2  $C  COMPLETED  1           FULL         ::1     /srv/ckpt/1" \
    "triggers --limit 2: the two newest" triggers --limit 2
succeeds "CREATED (UTC)        JOB ID                            TRIGGER ID                        STATUS     CHECKPOINT  TYPE  CLIENT  RESULT
2023-11-14 22:13:22  $J2  $C  COMPLETED  1           FULL  ::1     /srv/ckpt/1" \
    "triggers --job: that job's only, id in any case" triggers --job "$J2UP"
run triggers --job "$J1" --limit 1
is "$(printf '%s\n' "$OUT" | sed 1d | cut -c 22-53,56-87)" "$J1$D" \
    "triggers --job --limit 1: that job's newest"
refused 2 "bad --limit '0': expected a whole number from 1 to 1000000" \
    "triggers refuses --limit 0" triggers --limit 0
refused 2 "bad --limit 'ten': expected a whole number from 1 to 1000000" \
    "triggers refuses --limit ten" triggers --limit ten
refused 2 "bad --job 'j1': expected 32 hexadecimal characters" \
    "triggers refuses a bad --job" triggers --job j1
refused 2 "triggers: unknown option --name" \
    "triggers refuses an option it does not take" triggers --name x

# --- purge ---

now=$(($(date +%s) * 1000))
sql "DELETE FROM triggers;
INSERT INTO triggers (job_id, trigger_id, requested_type, created_ms,
    status, checkpoint_id, completed_ms)
    VALUES ('$J1', '$A', 'FULL', $now - 3600000, 'COMPLETED', 1,
    $now - 3600000),
    ('$J1', '$B', 'FULL', $now, 'COMPLETED', 2, $now + 60000);
INSERT INTO triggers (job_id, trigger_id, requested_type, created_ms)
    VALUES ('$J1', '$C', 'FULL', $now - 3600000)"
CHECKPOINT_STORE_DURATION=0
export CHECKPOINT_STORE_DURATION
succeeds "purged 0" "purge with a store duration of 0 keeps everything" purge
is "$(remaining)" abc "purge with 0: all rows kept"
CHECKPOINT_STORE_DURATION=1
succeeds "purged 1" "purge drops the expired result" purge
is "$(remaining)" bc \
    "purge: the pending trigger and the recent result are kept"
CHECKPOINT_STORE_DURATION=soon
refused 1 "CHECKPOINT_STORE_DURATION=\"soon\": expected a duration such as 300, 90s, 5min, 1h, 500ms or 0" \
    "a bad CHECKPOINT_STORE_DURATION is refused" purge
unset CHECKPOINT_STORE_DURATION
is "$(remaining)" bc "a bad setting: nothing purged"
