#!/bin/sh
# checkpoint-runner, black-box, its command line and its store: --stats;
# purging (CHECKPOINT_STORE_DURATION); bad options and databases, with their
# exit statuses; batched passes (--batch) over thousands of triggers.
#
# Actions' commands are written in single quotes on purpose: their $VARS
# are for the action's shell, not this one.
# shellcheck disable=SC2016,SC2086

. "$(dirname "$0")/runner-lib.sh"

pass || bail "checkpoint-runner cannot open $DB"
start_lighttpd

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
    '^\{"completed":3,"failed":2,"stale":0,"purged":0,"actions":2,"transactions":[1-9][0-9]*,"duration_ms":[0-9]+,"scheduled":0,"schedule_transactions":0\}$' \
    "--stats: the keys in order, with the right counts"
is "$(pass)" "" "without --stats nothing goes to stdout"

# --- purging ----------------------------------------------------------------------------------------

PDB=$T/purge.db
init_db "$PDB"
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

# Only checkpointctl init makes a database (checkpoint-api(7), "SECURITY").
"$RUNNER" --db "$T/never.db" > "$T/out" 2> "$T/err"
is "$?|$(wc -l < "$T/err")" "3|1" "no database: exit 3, one line"
like "$(cat "$T/err")" "$T/never.db: no database there; checkpointctl init makes it\$" \
    "no database: the line names the path and init"
test ! -e "$T/never.db"
ok $? "no database: none made"
# A watcher waits for init (t4020), having said so once.
spawn "$RUNNER" --watch --db "$T/never.db" 2> "$T/err"
sleep 2.5
term_wait "$LAST_PID"
is "$RC|$(grep -c 'checkpointctl init makes it' "$T/err")" "0|1" \
    "no database: --watch says so once in 2.5 s, waits, ends on SIGTERM"
test ! -e "$T/never.db"
ok $? "no database: --watch made none"

# A CHECKPOINT_DB no retry mends: exit 2 at start, one line.
for _db in 'sqlite:///' 'postgresql://[::1'; do
	CHECKPOINT_DB=$_db "$RUNNER" > "$T/out" 2> "$T/err"
	is "$?|$(wc -l < "$T/err")" "2|1" "CHECKPOINT_DB=$_db: exit 2, one line"
	grep -qF "CHECKPOINT_DB=\"$_db\": " "$T/err"
	ok $? "CHECKPOINT_DB=$_db: named in the line ($(cat "$T/err"))"
done

# As root only when told: every job's command would run as root.
if [ "$(id -u)" -eq 0 ]; then
	"$RUNNER_AS_IS" --db "$DB" > "$T/out" 2> "$T/err"
	is "$?|$(wc -l < "$T/err")" "2|1" "as root without --allow-root: exit 2, one line"
	like "$(cat "$T/err")" "refusing to run as root.*--allow-root\$" \
	    "as root: the line says why and names --allow-root"
	"$RUNNER_AS_IS" --allow-root --db "$DB" > "$T/out" 2> "$T/err"
	is "$?" 0 "as root with --allow-root: a pass"
else
	for _d in "as root without --allow-root" "as root: the line" \
	    "as root with --allow-root"; do
		skip "$_d" "not run as root"
	done
fi

echo "not a database, just text" > "$T/text.db"
sum=$(md5sum < "$T/text.db")
"$RUNNER" --db "$T/text.db" 2> "$T/err"
is "$?" 3 "a text file as database: exit 3"
is "$(md5sum < "$T/text.db")" "$sum" "a text file as database: unchanged"
"$RUNNER" --db "$T/no/such/dir/x.db" 2> "$T/err"
is "$?" 3 "a database in a missing directory: exit 3"

init_db "$T/newer.db"
sqlite3 "$T/newer.db" 'PRAGMA user_version = 99'
sum=$(md5sum < "$T/newer.db")
"$RUNNER" --db "$T/newer.db" 2> "$T/err"
is "$?" 3 "a database from a newer version: exit 3"
is "$(md5sum < "$T/newer.db")" "$sum" "a database from a newer version: unchanged"
like "$(cat "$T/err")" "newer" "a database from a newer version: says so"

# --- batches --------------------------------------------------------------------------------------

BDB=$T/batch.db
init_db "$BDB"
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

# --syslog where there is no /dev/log: standard error, said once.
if [ -e /dev/log ]; then
	skip "--syslog without /dev/log: standard error" "this host has /dev/log"
else
	"$RUNNER" --syslog --db "$T/nodir/c.db" > /dev/null 2> "$T/syslog.err"
	is "$?|$(grep -c "warn: syslog's /dev/log is not there: logging to standard error instead" "$T/syslog.err")" \
	    "3|1" "--syslog without /dev/log: says so once, exit 3"
	like "$(cat "$T/syslog.err")" "error: $T/nodir/c\\.db: no database there; checkpointctl init makes it" \
	    "--syslog without /dev/log: the cause is on standard error"
fi

done_testing
