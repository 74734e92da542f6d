#!/bin/sh
# checkpointctl migrate, SQLite to SQLite: the copy holds every job (with
# its times), checkpoint counter, job's statistics, the service's counts
# and every trigger whose result has not expired, each column as it was
# and each trigger under its own row id; checkpointctl and every GET of
# the API (checkpoint-api(7)) answer from it exactly as from its source
# once the source is purged; ids go on densely from where they were.  A
# target that holds anything is refused and left byte for byte, and so is
# a source holding savepoints, which migrate does not copy; a command
# line it cannot use is one line and exit 2, creating nothing.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/migrate-lib.sh"

SRC=$T/src.db
DST=$T/dst.db

fill_source "$SRC"
# A job's savepoint settings go with it.
"$CTL" --db "$SRC" job set "$J1" --savepoint-dir file:/sp \
    --savepoint-command 'echo sp' --dispose-command 'true' ||
    bail "job set --savepoint-dir"
is "$(sqlite3 "$SRC" "SELECT count(*), sum(status = 'IN_PROGRESS'),
    sum(claimed_by IS NOT NULL AND status = 'IN_PROGRESS'),
    sum(failure_class IS NOT NULL), sum(checkpoint_id IS NULL
    AND status = 'COMPLETED') FROM triggers;
    SELECT job_not_found, pass_ms > 0 FROM service_metrics;
    SELECT count(*), sum(expired) FROM checkpoint_stats;
    SELECT count(*) FROM jobs")" "11|2|1|4|2
2|1
3|1
3" "the source: 11 triggers, 2 waiting (1 claimed), 4 failed (2 without an id, 1 expired), a pass, 3 jobs' counts, 3 jobs"

# --- the copy ---

run migrate --from "$SRC" --to "$DST"
is "$RC|$OUT|$ERR" "0|$DST: 3 jobs, 3 checkpoint counters, 3 job statistics and 10 triggers from $SRC|" \
    "migrate copies, and says what, in one line"
is "$(dump "$DST")" "$(dump "$SRC" "trigger_id <> '$EXPIRED'")" \
    "every column of every row is the source's, less the expired trigger"
is "$(sqlite3 "$DST" "SELECT count(*) FROM triggers
    WHERE trigger_id = '$EXPIRED'")|$(sqlite3 "$SRC" "SELECT count(*)
    FROM triggers WHERE trigger_id = '$EXPIRED'")" "0|1" \
    "  the expired result is left behind, and the source keeps it"
is "$(sqlite3 "$DST" "SELECT count(*) FROM triggers WHERE failure_class
    IS NOT NULL AND failure_throwable NOT LIKE 'rO0ABX%'")|$(sqlite3 "$DST" \
    "SELECT count(*) FROM triggers WHERE failure_class IS NOT NULL")" "0|4" \
    "  each failure keeps its serialized-throwable"
is "$(sqlite3 "$DST" "PRAGMA integrity_check; PRAGMA foreign_key_check;
    PRAGMA user_version")" "ok
$(sqlite3 "$SRC" "PRAGMA user_version")" "  the copy is sound and of the current schema"

# What the operator and the API see: the source, once purged as the copy
# was made, answers exactly as the copy.
cp "$SRC" "$T/purged.db"
run --db "$T/purged.db" purge
is "$RC|$OUT" "0|purged 1" "the source's copy purged of its one expired result"
snapshot "$T/purged.db" > "$T/snap-src"
snapshot "$DST" > "$T/snap-dst"
grep -c '^Status: 200' "$T/snap-dst" > "$T/n200"
[ "$(cat "$T/n200")" -ge 25 ]
ok $? "  the snapshot holds the answers of the jobs' endpoints ($(cat "$T/n200") 200s)"
grep -q "/snap/1" "$T/snap-dst" && grep -q 'no space' "$T/snap-dst" &&
    grep -q 'that claimed it is gone' "$T/snap-dst" &&
    grep -q 'Could not find Flink job' "$T/snap-dst" &&
    grep -q 'claimed by elsewhere:4242:1' "$T/snap-dst"
ok $? "  with locations, failures of every kind and a claim in it"
if cmp -s "$T/snap-src" "$T/snap-dst"; then
	ok 0 "checkpointctl job list, triggers and every GET answer the same from the copy"
else
	ok 1 "checkpointctl job list, triggers and every GET answer the same from the copy"
	diff "$T/snap-src" "$T/snap-dst" | head -n 20 | sed 's/^/# /'
fi

# Ids go on from where they were: the next trigger's row follows the last,
# the next checkpoint of each job follows its counter.
app_on "$DST"
post_to 12 "$J2"
post_to 13 "$J4"
stop_pid "$APP"
at "$DST" "$RUNNER" 2>>"$RLOG"
last=$(sqlite3 "$SRC" "SELECT max(id) FROM triggers")
is "$(sqlite3 "$DST" "SELECT min(id) > $last FROM triggers
    WHERE trigger_id IN ('$(tid 12)', '$(tid 13)');
    SELECT group_concat(checkpoint_id, ' ') FROM (SELECT checkpoint_id
    FROM triggers WHERE job_id = '$J2' ORDER BY id)")" "1
2 3 4" \
    "on the copy: a new trigger's row follows the last; the job's ids go on densely"
is "$(sqlite3 "$DST" "SELECT checkpoint_id, failure_class IS NOT NULL
    FROM triggers WHERE trigger_id = '$(tid 13)'")" "|1" \
    "  a removed job's trigger fails as before"
is "$(sqlite3 "$DST" "SELECT last_id FROM checkpoint_counters
    WHERE job_id = '$J1'")" 5 "  the claimed checkpoint's id stays taken"

# --- a target that holds anything is refused, and left as it was ---

before=$(md5sum < "$DST")
run migrate --from "$SRC" --to "$DST"
is "$RC|$OUT|$ERR" "1||checkpointctl: $DST: not empty (it holds jobs, triggers or checkpoint counts); migrate only into a new database" \
    "a target that holds jobs and triggers is refused"
is "$(md5sum < "$DST")" "$before" "  and left byte for byte"
for what in "job add $J1" "purge"; do
	rm -f "$T/one.db"*
	init_db "$T/one.db"
	"$CTL" --db "$T/one.db" $what > /dev/null
	case $what in purge)
		sqlite3 "$T/one.db" "INSERT INTO checkpoint_counters VALUES ('$J1', 7)" ;;
	esac
	before=$(md5sum < "$T/one.db")
	run migrate --from "$SRC" --to "$T/one.db"
	is "$RC|$OUT|$ERR|$(md5sum < "$T/one.db")" "1||checkpointctl: $T/one.db: not empty (it holds jobs, triggers or checkpoint counts); migrate only into a new database|$before" \
	    "a target holding only $(case $what in purge) echo a counter ;; *) echo a job ;; esac) is refused and left as it was"
done

# An empty target that exists already is fine: init made it.
"$CTL" --db "$T/empty.db" init > /dev/null
run migrate --from "$SRC" --to "$T/empty.db"
is "$RC|$(dump "$T/empty.db")" "0|$(dump "$SRC" "trigger_id <> '$EXPIRED'")" \
    "an empty database made by init takes the copy"

# With results kept forever, nothing is left behind.
CHECKPOINT_STORE_DURATION=0 run migrate --from "$SRC" --to "$T/all.db"
is "$RC|$(dump "$T/all.db")" "0|$(dump "$SRC")" \
    "CHECKPOINT_STORE_DURATION=0: every trigger is copied"

# --- command lines it cannot use: one line, exit 2, nothing created ---

refused() {
	_status=$1 _stderr=$2 _desc=$3
	shift 3
	run "$@"
	is "$RC|$OUT|$ERR|$(ls "$T" | grep -c '^new')" \
	    "$_status||checkpointctl: $_stderr|0" "$_desc"
}
refused 2 "migrate: missing --from" "no --from" migrate --to "$T/new.db"
refused 2 "migrate: missing --to" "no --to" migrate --from "$SRC"
refused 2 "migrate: missing --from" "neither" migrate
refused 2 "migrate: --to: empty path" "an empty --to" \
    migrate --from "$SRC" --to ''
refused 2 "migrate: --from: empty path" "an empty --from" \
    migrate --from= --to "$T/new.db"
refused 2 "migrate: --from and --to name the same database" \
    "the same database twice" migrate --from "$SRC" --to "$SRC"
refused 2 "migrate: --db does not apply; give --from and --to" "--db" \
    migrate --db "$SRC" --from "$SRC" --to "$T/new.db"
refused 2 "migrate: unknown option --job" "an option of another command" \
    migrate --from "$SRC" --to "$T/new.db" --job "$J1"
refused 2 "migrate: unexpected argument 'extra'" "an extra argument" \
    migrate --from "$SRC" --to "$T/new.db" extra
refused 2 "option --to needs a value" "--to without its value" \
    migrate --from "$SRC" --to
refused 1 "$T/new-src.db: No such file or directory" \
    "a source that is not there (exit 1), and no target made" \
    migrate --from "$T/new-src.db" --to "$T/new.db"
refused 1 "unsupported database URI scheme: use a file path or postgresql://" \
    "a target of another scheme" migrate --from "$SRC" --to mysql://db/x
# Savepoints, disposals, schedules with their slots and retention
# policies go too, every column of every row.
cp "$SRC" "$T/with-savepoints.db"
"$CTL" --db "$T/with-savepoints.db" job set "$J1" --every 1h \
    --savepoint-cron '0 3 * * *' --keep-savepoints 3 ||
    bail "job set --every"
sqlite3 "$T/with-savepoints.db" "INSERT INTO savepoints (job_id, trigger_id,
    kind, target_directory, format_type, cancel_job, status, checkpoint_id,
    location, created_ms, completed_ms, remote_addr, kept_ms)
    VALUES ('$J1', '$J1', 'SAVEPOINT', 'file:/sp', 'NATIVE', 1, 'COMPLETED',
    9, 'file:/sp/savepoint-9', 1, 3, '192.0.2.1', 4);
    INSERT INTO savepoints (job_id, trigger_id, kind, target_directory,
    format_type, drain, created_ms) VALUES ('$J1', '$J2', 'STOP',
    'file:/sp', 'CANONICAL', 1, 5);
    INSERT INTO savepoint_disposals (trigger_id, savepoint_path, created_ms,
    attempts, reason) VALUES ('$J1', 'file:/sp/savepoint-9', 6, 2,
    'retention');
    INSERT INTO schedule_slots VALUES ('$J1', 'CHECKPOINT', 3600000, 3600010,
    NULL, 'not RUNNING');
    UPDATE checkpoint_history SET disposed_ms = 77 WHERE rowid =
    (SELECT min(rowid) FROM checkpoint_history)" ||
    bail "sqlite3 with-savepoints.db"
run migrate --from "$T/with-savepoints.db" --to "$T/new.db"
is "$RC|$OUT|$ERR" "0|$T/new.db: 3 jobs, 3 checkpoint counters, 3 job statistics, 10 triggers, 2 savepoints, 1 disposals, 2 schedules (1 slots) and 1 retention policies from $T/with-savepoints.db|" \
    "a source holding savepoints, disposals, schedules and retention: copied, and said"
copied() {
	sqlite3 -batch -cmd '.mode quote' "$1" "SELECT * FROM savepoints
	    ORDER BY id; SELECT * FROM savepoint_disposals ORDER BY id;
	    SELECT * FROM schedules ORDER BY job_id, kind;
	    SELECT * FROM schedule_slots; SELECT * FROM retention;
	    SELECT job_id, checkpoint_id, disposed_ms FROM checkpoint_history
	    ORDER BY job_id, checkpoint_id"
}
is "$(copied "$T/new.db")" "$(copied "$T/with-savepoints.db")" \
    "  every column of every row, types and NULLs as they were"
is "$(copied "$T/new.db" | grep -c "'NATIVE',1,0,'COMPLETED',9,\|,77\$")" 2 \
    "  (the rows are there: the savepoint, and a checkpoint's disposal)"
like "$("$CTL" -h)" "migrate --from SRC --to DST" "-h lists migrate"

# The triggers refused by the queue bound are counted across a copy: one
# refused long ago and purged, one whose result expired (not copied), one
# still stored (copied).
REFUSAL="'org.apache.flink.runtime.checkpoint.CheckpointException: The maximum number of queued checkpoint requests exceeded
	at checkpoint-api (the job has 1 triggers waiting: CHECKPOINT_MAX_QUEUED)
'"
refusal() {	# TID CREATED-MS
	printf "INSERT INTO triggers (job_id, trigger_id, requested_type,
	    status, failure_class, failure_trace, failure_throwable,
	    created_ms, completed_ms) VALUES ('%s', '%s', 'CONFIGURED',
	    'COMPLETED', 'org.apache.flink.runtime.checkpoint.CheckpointException',
	    %s, 'rO0ABQ==', %s, %s);" "$J2" "$(tid "$1")" "$REFUSAL" "$2" "$2"
}
"$CTL" --db "$T/refused.db" init > /dev/null || bail "init refused.db"
now=$(now_ms)
sqlite3 "$T/refused.db" "$(refusal 1 1000) $(refusal 2 1000) $(refusal 3 "$now")
    DELETE FROM triggers WHERE trigger_id = '$(tid 1)'" ||
    bail "sqlite3 refused.db"
refused_count() {
	sqlite3 "$1" "SELECT queue_refused, (SELECT count(*) FROM triggers
	    WHERE failure_trace LIKE '%CHECKPOINT_MAX_QUEUED%') FROM service_metrics"
}
is "$(refused_count "$T/refused.db")" "1|2" \
    "a refusal purged is counted in service_metrics as it leaves"
run migrate --from "$T/refused.db" --to "$T/refused-copy.db"
is "$RC $(refused_count "$T/refused-copy.db")" "0 2|1" \
    "  the copy: the refused still stored, the others counted (3 in all)"

done_testing
