#!/bin/sh
# The PostgreSQL store (CHECKPOINT_DB=postgresql://...) on a real server
# (tests/pg.sh): checkpointctl prints what it prints on SQLite; POST and GET
# through lighttpd answer byte for byte what checkpoint-api(7) says, the
# runner completing and failing triggers as on SQLite (the same
# serialized-throwable); a watching runner is woken by the POST's
# notification; several runners at once, while triggers arrive, never give
# one job's id twice and leave each job's ids exactly 1..n; migrations run
# once under hosts starting together, and a newer or a foreign database is
# refused untouched; a password in the URI is never printed or logged.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg.sh"

for c in lighttpd sqlite3 curl; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing"
done

J1=0123456789abcdef0123456789abcdef
J2=fedcba9876543210fedcba9876543210
J3=33333333333333333333333333333333
NOJOB=99999999999999999999999999999999
V=$(ls "$top_srcdir"/schema/pg/[0-9][0-9][0-9][0-9]-*.sql | wc -l)
IN_PROGRESS='{"status":{"id":"IN_PROGRESS"},"operation":null}'

pg_start
# The password, from the test's password file, in the URI itself: it must
# show nowhere.
PW=$(sed 's/^.*://' "$T/pgpass")
[ ${#PW} -ge 16 ] || bail "no password in $T/pgpass"
uri() {
	printf 'postgresql://postgres:%s@127.0.0.1:%s/%s' "$PW" "$PG_PORT" "$1"
}
shown() {
	printf 'postgresql://postgres:***@127.0.0.1:%s/%s' "$PG_PORT" "$1"
}
URI=$(uri checkpoints)
SHOWN=$(shown checkpoints)


# --- checkpointctl: the same answers as on SQLite --------------------------

export CHECKPOINT_DB=$URI
run init
is "$RC|$OUT|$ERR" "0|$SHOWN: schema version $V|" "init creates the schema"
is "$(psql_q "SELECT application, version FROM schema_version")" \
    "checkpoint-api|$V" "  schema_version says version $V"
run init
is "$RC|$OUT|$ERR" "0|$SHOWN: schema version $V|" "init again"

# The same commands on both stores: every output and status the same,
# the database's name aside.
CTL_SCRIPT="job add $J1 --name one --type INCREMENTAL
job add $J1
job add $J2 --command true --timeout 30
job add $J3 --name three
job list
job set $J1 --state SUSPENDED --name uno
job set $NOJOB --state RUNNING
job set $J1 --state RUNNING --type FULL
job list
job rm $J3
job rm $J3
job list
triggers
triggers --job $J1
purge"
both() {
	_pat=$(printf '%s' "$2" | sed 's/[][\\.*^$|]/\\&/g')
	printf '%s\n' "$CTL_SCRIPT" | while read -r _line; do
		# shellcheck disable=SC2086
		"$CTL" --db "$1" $_line > "$T/o" 2> "$T/e"
		echo "$_line: $?"
		cat "$T/o" "$T/e"
	done | sed "s|$_pat|DB|g"
}
"$CTL" --db "$DB" init > /dev/null || bail "checkpointctl init (SQLite)"
both "$DB" "$DB" > "$T/ctl-sqlite"
both "$URI" "$SHOWN" > "$T/ctl-pg"
cat "$T/ctl-pg" >> "$T/all-output"
if cmp -s "$T/ctl-sqlite" "$T/ctl-pg"; then
	ok 0 "job add/set/rm/list, triggers, purge: as on SQLite"
else
	ok 1 "job add/set/rm/list, triggers, purge: as on SQLite"
	diff "$T/ctl-sqlite" "$T/ctl-pg" | sed 's/^/# /'
fi
is "$(psql_q "SELECT job_id, name, state, checkpoint_type,
    coalesce(command, '-'), timeout_s FROM jobs ORDER BY job_id")" \
    "$J1|uno|RUNNING|FULL|-|600
$J2||RUNNING|FULL|true|30" "  the jobs table holds what they made"
_t=$(psql_q "SELECT floor(extract(epoch FROM now()) * 1000)::bigint
    - updated_ms FROM jobs WHERE job_id = '$J1'")
[ "$_t" -ge 0 ] && [ "$_t" -lt 60000 ]
ok $? "  updated_ms is the server's clock ($_t ms ago)"

# --- POST and GET through lighttpd, the runner -------------------------------

start_lighttpd
post() {
	http POST "/jobs/$1/checkpoints" "{\"triggerId\":\"$2\"}"
	printf '%s %s' "$STATUS" "$BODY"
}
get() {
	http GET "/jobs/$1/checkpoints/$2"
	printf '%s %s' "$STATUS" "$BODY"
}
tid() {
	printf '%032x' "$1"
}
# done_waiting JOB TRIGGER: the trigger's status is no longer IN_PROGRESS.
# (A test, not a string: $IN_PROGRESS holds quotes.)
done_waiting() {
	[ "$(get "$1" "$2")" != "200 $IN_PROGRESS" ]
}
A=$(tid 1)
B=$(tid 2)
is "$(post $J1 "$A")" "202 {\"request-id\":\"$A\"}" "POST: 202 with the triggerId"
is "$(post $J1 "$A")" "202 {\"request-id\":\"$A\"}" "POST again: the same 202"
is "$(psql_q "SELECT count(*) FROM triggers")" 1 "  one trigger recorded"
_t=$(psql_q "SELECT floor(extract(epoch FROM now()) * 1000)::bigint
    - created_ms FROM triggers")
[ "$_t" -ge 0 ] && [ "$_t" -lt 60000 ]
ok $? "  created_ms is the server's clock ($_t ms ago)"
is "$(get $J1 "$A")" "200 $IN_PROGRESS" "GET: IN_PROGRESS"
"$RUNNER" 2>> "$T/runner.log"
ok $? "checkpoint-runner --db URI: one pass"
is "$(get $J1 "$A")" \
    '200 {"status":{"id":"COMPLETED"},"operation":{"checkpointId":1}}' \
    "GET: COMPLETED with checkpoint 1"
is "$(post $J1 "$A")" "202 {\"request-id\":\"$A\"}" "POST of a completed one: 202"
is "$(get $J1 "$A")" \
    '200 {"status":{"id":"COMPLETED"},"operation":{"checkpointId":1}}' \
    "  which starts nothing"
is "$(post $NOJOB "$A")" "202 {\"request-id\":\"$A\"}" "POST for an unknown job"
is "$(post $J2 "$B")" "202 {\"request-id\":\"$B\"}" "POST for a job with a command"
"$RUNNER" 2>> "$T/runner.log"
is "$(get $J2 "$B")" \
    '200 {"status":{"id":"COMPLETED"},"operation":{"checkpointId":1}}' \
    "  its command ran and completed it"
is "$(psql_q "SELECT claimed_by IS NOT NULL, lease_ms > claimed_ms,
    completed_ms >= claimed_ms FROM triggers WHERE trigger_id = '$B'")" \
    "t|t|t" "  claimed with a lease, by the server's clock"

# The failure of an unknown job, byte for byte as the SQLite store makes
# it: the same trigger through the SQLite store and its runner.
_pg=$(get $NOJOB "$A")
_now=$(now_ms)
sql "INSERT INTO triggers (job_id, trigger_id, requested_type, created_ms)
    VALUES ('$NOJOB', '$A', 'CONFIGURED', $_now)" || bail "sqlite insert"
"$RUNNER" --db "$DB" 2>> "$T/runner.log"
_lite=$(sql "SELECT response FROM trigger_status WHERE trigger_id = '$A'
    AND job_id = '$NOJOB'")
case $_pg in
"200 {\"status\":{\"id\":\"COMPLETED\"},\"operation\":{\"failureCause\":{\"class\":\"java.util.concurrent.CompletionException\",\"stack-trace\":\"java.util.concurrent.CompletionException: org.apache.flink.runtime.messages.FlinkJobNotFoundException: Could not find Flink job ($NOJOB)\\nCaused by: org.apache.flink.runtime.messages.FlinkJobNotFoundException: Could not find Flink job ($NOJOB)\\n\",\"serialized-throwable\":\"rO0AB"*)
	ok 0 "GET of an unknown job's trigger: FlinkJobNotFoundException" ;;
*)
	ok 1 "GET of an unknown job's trigger: FlinkJobNotFoundException"
	diag "got: $_pg" ;;
esac
is "$_pg" "200 $_lite" "  the very bytes the SQLite store answers"

# A declined command: its failure stored with its serialized-throwable.
"$CTL" job set $J2 --command 'echo no >&2; exit 3' > /dev/null
C=$(tid 3)
post $J2 "$C" > /dev/null
"$RUNNER" 2>> "$T/runner.log"
is "$(psql_q "SELECT checkpoint_id, failure_class,
    failure_throwable LIKE 'rO0AB%' FROM triggers WHERE trigger_id = '$C'")" \
    "2|org.apache.flink.runtime.checkpoint.CheckpointException|t" \
    "a declined command: failed with checkpoint 2 and its throwable"
is "$(psql_q "SELECT completed, failed FROM checkpoint_stats
    WHERE job_id = '$J2'")" "1|1" "  the statistics count both"

# --- Batches: the same key at once, a failing statement, a lock ---------------

# Sixteen POSTs of one new triggerId at once: the committers' batches
# hold the key twice or more; every one is 202, one row is recorded.
K=$(tid 11)
_pids=
for _i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do
	curl -s -o "$T/dup-$_i" -w '%{http_code}\n' -X POST \
	    -d "{\"triggerId\":\"$K\"}" "$BASE/jobs/$J1/checkpoints" \
	    > "$T/dup-status-$_i" &
	_pids="$_pids $!"
done
for _p in $_pids; do
	wait "$_p"
done
is "$(cat "$T"/dup-status-* | sort | uniq -c | tr -s ' ')" " 16 202" \
    "16 POSTs of one triggerId at once: all 202"
is "$(psql_q "SELECT count(*) FROM triggers WHERE trigger_id = '$K'")" 1 \
    "  one trigger recorded"

# A statement of a batch that fails (a trigger of the test's own raises):
# nothing of the batch is committed, the answer is 500, and the
# connection serves the next batch.
BOOM=$(tid 12)
psql_q "CREATE FUNCTION boom() RETURNS trigger LANGUAGE plpgsql AS \$\$
    BEGIN IF NEW.trigger_id = '$BOOM' THEN RAISE EXCEPTION 'boom'; END IF;
    RETURN NEW; END \$\$;
    CREATE TRIGGER boom BEFORE INSERT ON triggers FOR EACH ROW
    EXECUTE FUNCTION boom()" || bail "CREATE TRIGGER boom"
like "$(post $J1 "$BOOM")" '^500 ' "a batch whose statement fails: 500"
is "$(psql_q "SELECT count(*) FROM triggers WHERE trigger_id = '$BOOM'")" 0 \
    "  nothing recorded"
_ok=0
for _i in 21 22 23 24 25 26; do
	[ "$(post $J1 "$(tid $_i)")" = "202 {\"request-id\":\"$(tid $_i)\"}" ] &&
	    _ok=$((_ok + 1))
done
is "$_ok" 6 "  the POSTs after it: 202 from every process"
psql_q "DROP TRIGGER boom ON triggers; DROP FUNCTION boom()" ||
    bail "DROP TRIGGER boom"

# A row locked by another session past CHECKPOINT_BUSY_TIMEOUT (2 s):
# lock_timeout, 503 "locked", and 202 once the lock is gone.
spawn "$PG_BIN/psql" -X -q -d "$PGURI" -c "BEGIN;
    SELECT 1 FROM triggers WHERE trigger_id = '$K' FOR UPDATE;
    SELECT pg_sleep(4); COMMIT" > /dev/null
_locker=$LAST_PID
wait_until 50 '[ "$(psql_q "SELECT count(*) FROM pg_locks l JOIN
    pg_stat_activity a USING (pid) WHERE a.query LIKE '"'%pg_sleep(4)%'"'
    AND l.locktype = '"'transactionid'"'")" -ge 1 ]' ||
    bail "the locking session did not start"
is "$(post $J1 "$K")" \
    '503 {"errors":["Service temporarily unavailable: the checkpoint database is locked. Please retry."]}' \
    "a row locked past the busy timeout: 503, locked"
wait "$_locker"
is "$(post $J1 "$K")" "202 {\"request-id\":\"$K\"}" "  202 once it is free"

# --- A watching runner is woken by the notification of a POST ---------------

"$CTL" job set $J2 --command true > /dev/null
spawn "$RUNNER" --watch 2>> "$T/runner.log"
WATCHER=$LAST_PID
sleep 1 # its first pass done, it sleeps: up to 5 s without news
D=$(tid 4)
_t0=$(now_ms)
post $J1 "$D" > /dev/null
wait_until 30 "done_waiting $J1 $D"
ok $? "a --watch runner completes a POST within 3 s (woken by NOTIFY, $(($(now_ms) - _t0)) ms)"
# Every trigger of the job took an id, 1..n in arrival order: this,
# the newest, n.
_n=$(psql_q "SELECT count(*) FROM triggers WHERE job_id = '$J1'")
is "$(get $J1 "$D")" \
    "200 {\"status\":{\"id\":\"COMPLETED\"},\"operation\":{\"checkpointId\":$_n}}" \
    "  with the job's next id ($_n)"

# A POST of plain CGI: a process that records its trigger and exits at
# once.  Its NOTIFY, sent after its commit and never waited for, is not
# lost with it.
sleep 1.5 # the watcher's pass done: it sleeps
G=$(tid 7)
printf '{"triggerId":"%s"}' "$G" > "$T/cgi-req"
env -i REQUEST_METHOD=POST PATH_INFO=/jobs/$J1/checkpoints \
    CONTENT_LENGTH="$(wc -c < "$T/cgi-req" | tr -d ' ')" \
    CHECKPOINT_DB="$URI" "$API" < "$T/cgi-req" > "$T/cgi-out" 2>> "$T/cgi.log"
like "$(tr -d '\r' < "$T/cgi-out")" "^Status: 202 Accepted" \
    "a POST of plain CGI: 202"
wait_until 30 "done_waiting $J1 $G"
ok $? "  and the watching runner, woken by its NOTIFY, completes it within 3 s"
_n=$(psql_q "SELECT count(*) FROM triggers WHERE job_id = '$J1'")
is "$(get $J1 "$G")" \
    "200 {\"status\":{\"id\":\"COMPLETED\"},\"operation\":{\"checkpointId\":$_n}}" \
    "  with the job's next id ($_n)"
stop_pid "$WATCHER"

# --- Several runners at once while triggers arrive ---------------------------

# Five jobs without a command and one with; four watching runners and a
# loop of one-shot runners with small batches, so that rounds overlap; four
# clients POSTing.  Then every job's ids must be exactly 1..n.
for _j in 1 2 3 4 5 6; do
	_job=$(printf 'acce%028x' "$_j")
	if [ "$_j" -eq 6 ]; then
		"$CTL" job add "$_job" --command true > /dev/null
	else
		"$CTL" job add "$_job" > /dev/null
	fi
done
RUNNERS=
for _r in 1 2 3 4; do
	spawn "$RUNNER" --watch --batch 7 2>> "$T/runner.log"
	RUNNERS="$RUNNERS $LAST_PID"
done
spawn sh -c 'while [ ! -e "$1" ]; do "$2" --batch 3 2>>"$3"; done' sh \
    "$T/race-done" "$RUNNER" "$T/runner.log"
LOOP=$LAST_PID
CLIENTS=
for _c in 1 2 3 4; do
	spawn sh -c '
	i=0
	while [ $i -lt 60 ]; do
		j=$((i % 6 + 1))
		job=$(printf "acce%028x" $j)
		trig=$(printf "%08x%024x" "$1" $i)
		curl -s -o /dev/null -X POST -d "{\"triggerId\":\"$trig\"}" \
		    "$2/jobs/$job/checkpoints"
		i=$((i + 1))
	done' sh "$_c" "$BASE"
	CLIENTS="$CLIENTS $LAST_PID"
done
for _p in $CLIENTS; do
	wait "$_p"
done
is "$(psql_q "SELECT count(*) FROM triggers WHERE job_id LIKE 'acce%'")" 240 \
    "race: 240 triggers recorded"
wait_until 300 '[ "$(psql_q "SELECT count(*) FROM triggers
    WHERE job_id LIKE '"'acce%'"' AND status = '"'IN_PROGRESS'"'")" = 0 ]'
ok $? "  all completed by the runners"
touch "$T/race-done"
stop_pid "$LOOP"
for _p in $RUNNERS; do
	stop_pid "$_p"
done
is "$(psql_q "SELECT count(*) FROM (SELECT job_id, checkpoint_id
    FROM triggers WHERE job_id LIKE 'acce%' GROUP BY 1, 2
    HAVING count(*) > 1) AS d")" 0 "  no (job, checkpoint id) twice"
is "$(psql_q "SELECT string_agg(job_id || ':' || n || ':' || lo || '-' || hi,
    ' ' ORDER BY job_id) FROM (SELECT job_id, count(*) AS n,
    min(checkpoint_id) AS lo, max(checkpoint_id) AS hi FROM triggers
    WHERE job_id LIKE 'acce%' GROUP BY job_id) AS r")" \
    "$(for _j in 1 2 3 4 5 6; do
	printf 'acce%028x:40:1-40\n' "$_j"
    done | paste -sd ' ' -)" "  each job's ids exactly 1..40"
is "$(psql_q "SELECT count(*) FROM triggers t JOIN checkpoint_counters c
    USING (job_id) WHERE job_id LIKE 'acce%' AND c.last_id <> 40
    AND t.checkpoint_id = 40")" 0 "  and each counter at 40"
is "$(psql_q "SELECT DISTINCT completed || '/' || failed || '/' ||
    last_completed FROM checkpoint_stats WHERE job_id LIKE 'acce%'")" \
    "40/0/40" "  the statistics: 40 completed each, the last one 40"

# --- The server restarted under them ------------------------------------------

spawn "$RUNNER" --watch 2>> "$T/runner.log"
WATCHER=$LAST_PID
wait_until 50 '[ -n "$(psql_q "SELECT 1 FROM pg_stat_activity
    WHERE application_name = '"'checkpoint-runner'"'")" ]'
ok $? "the runner's connection is named checkpoint-runner (application_name)"
get $J1 "$A" > /dev/null
is "$(psql_q "SELECT DISTINCT application_name FROM pg_stat_activity
    WHERE application_name LIKE 'checkpoint-api%'")" "checkpoint-api.fcgi" \
    "  the app's, checkpoint-api.fcgi"
(cd "$PG_DIR" && as_pg_user "$PG_BIN/pg_ctl" -D "$PGDATA_DIR" -m fast -w \
    -t 60 restart) > "$PG_DIR/restart.log" 2>&1 || bail "pg_ctl restart"
is "$(get $J1 "$A")" \
    '200 {"status":{"id":"COMPLETED"},"operation":{"checkpointId":1}}' \
    "after a restart: the first GET is answered (its idle connection made again)"
E=$(tid 5)
is "$(post $J1 "$E")" "202 {\"request-id\":\"$E\"}" "  and the first POST"
wait_until 100 'grep -q "changed or failing; opening it again" "$T/runner.log"'
ok $? "the watching runner noticed the lost connection"
wait_until 100 '[ "$(get $J1 "$E")" != "200 $IN_PROGRESS" ]'
ok $? "  reopened, and completed the trigger"
sleep 1.5 # its pass done: it sleeps, and listens again
F=$(tid 6)
post $J1 "$F" > /dev/null
wait_until 30 "done_waiting $J1 $F"
ok $? "  and is woken by the next POST's notification"
stop_pid "$WATCHER"
stop_lighttpd

# --- A commit the synchronous standby never confirmed --------------------------

# A standby that never comes: every commit waits.  The store cancels the
# wait after 5 times CHECKPOINT_BUSY_TIMEOUT and a second; the server
# then commits locally, with a warning, and that is a 503, never a 202.
psql_q "ALTER SYSTEM SET synchronous_standby_names = 'nosuch'" postgres &&
    psql_q "SELECT pg_reload_conf()" postgres > /dev/null ||
    bail "synchronous_standby_names"
export CHECKPOINT_BUSY_TIMEOUT=200ms
start_app "" 2> "$T/app-sync.log"
G=$(tid 7)
_t0=$(now_ms)
like "$(fcgi_raw POST "/jobs/$J1/checkpoints" "{\"triggerId\":\"$G\"}" |
    head -n 1)" "^Status: 503" \
    "a commit whose wait for the standby was cancelled: 503 ($(($(now_ms) - _t0)) ms)"
grep -q 'synchronous replication was cancelled' "$T/app-sync.log"
ok $? "  the log says why"
stop_pid "$APP"
# CHECKPOINT_SYNC=NORMAL (asynchronous commit) does not wait.
export CHECKPOINT_SYNC=NORMAL
start_app "" 2>> "$T/app-sync.log"
H7=$(tid 8)
is "$(fcgi_raw POST "/jobs/$J1/checkpoints" "{\"triggerId\":\"$H7\"}" |
    head -n 1 | tr -d '\r')" "Status: 202 Accepted" \
    "  with CHECKPOINT_SYNC=NORMAL: 202, not waiting for the standby"
stop_pid "$APP"
unset CHECKPOINT_SYNC CHECKPOINT_BUSY_TIMEOUT
psql_q "ALTER SYSTEM RESET synchronous_standby_names" postgres &&
    psql_q "SELECT pg_reload_conf()" postgres > /dev/null ||
    bail "synchronous_standby_names"
cat "$T/app-sync.log" >> "$T/all-output"

# --- Migrations ---------------------------------------------------------------

# Hosts starting at once on an empty database: one migrates, the others
# find it done.
psql_q "CREATE DATABASE fresh" postgres || bail "CREATE DATABASE fresh"
for _i in 1 2 3 4 5 6; do
	"$CTL" --db "$(uri fresh)" init > "$T/init-$_i.out" 2>&1 &
	eval "_init$_i=\$!"
done
_fails=0
for _i in 1 2 3 4 5 6; do
	eval "wait \$_init$_i" || _fails=$((_fails + 1))
done
cat "$T"/init-*.out >> "$T/all-output"
is "$_fails|$(sort -u "$T"/init-*.out)" \
    "0|$(shown fresh): schema version $V" "six inits at once: all succeed"
is "$(psql_q "SELECT version FROM schema_version" fresh)" "$V" \
    "  the schema once, at version $V"

# A database at version 1 (schema/pg/0001 as psql applies it), with a
# trigger in it: brought up to date, the trigger kept.
psql_q "CREATE DATABASE old" postgres || bail "CREATE DATABASE old"
"$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 --single-transaction \
    -d "$(pg_uri old)" -f "$top_srcdir/schema/pg/0001-initial.sql" ||
    bail "schema/pg/0001"
psql_q "INSERT INTO triggers (job_id, trigger_id, requested_type, created_ms)
    VALUES ('$J1', '$A', 'CONFIGURED', 1)" old || bail "INSERT"
run --db "$(uri old)" init
is "$RC|$OUT|$ERR" "0|$(shown old): schema version $V|" \
    "a database at version 1 is migrated to $V"
is "$(psql_q "SELECT s.version, t.trigger_id, i.indisunique
    FROM schema_version s, triggers t, pg_index i
    WHERE i.indexrelid = 'triggers_claimed'::regclass" old)" \
    "$V|$A|t" "  its trigger kept; one claim per job enforced (0002)"

# A migration that fails half way, in one transaction with the others:
# a database at version 1 with a table of migration 9's name already
# there.  Nothing of migrations 2 to 8 stays, and the error names the
# migration; once the table is gone, the database is brought up to date.
psql_q "CREATE DATABASE halfway" postgres || bail "CREATE DATABASE halfway"
"$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 --single-transaction \
    -d "$(pg_uri halfway)" -f "$top_srcdir/schema/pg/0001-initial.sql" ||
    bail "schema/pg/0001"
psql_q "CREATE TABLE retention (x int)" halfway || bail "CREATE TABLE"
run --db "$(uri halfway)" init
is "$RC|$OUT|$ERR" \
    "1||checkpointctl: postgresql://127.0.0.1:$PG_PORT/halfway: migration 9: ERROR:  relation \"retention\" already exists" \
    "a migration that fails: refused, in one line naming it"
is "$(psql_q "SELECT s.version, i.indisunique, (SELECT count(*)
    FROM pg_class WHERE relname IN ('savepoints', 'schedules'))
    FROM schema_version s, pg_index i
    WHERE i.indexrelid = 'triggers_claimed'::regclass" halfway)" "1|f|0" \
    "  left at version 1: nothing of migrations 2 (unique claims), 3 or 8"
psql_q "DROP TABLE retention" halfway || bail "DROP TABLE"
run --db "$(uri halfway)" init
is "$RC|$OUT|$ERR" "0|$(shown halfway): schema version $V|" \
    "  without the table in the way, migrated to $V"

psql_q "UPDATE schema_version SET version = 99" fresh || bail "UPDATE"
run --db "$(uri fresh)" job list
is "$RC|$OUT|$ERR" \
    "1||checkpointctl: postgresql://127.0.0.1:$PG_PORT/fresh: schema version 99 is newer than this program's $V; upgrade checkpoint-api" \
    "a newer schema version is refused"
is "$(psql_q "SELECT version FROM schema_version" fresh)" 99 "  and left as it was"

psql_q "CREATE DATABASE foreign_db" postgres || bail "CREATE DATABASE"
psql_q "CREATE TABLE orders (id int PRIMARY KEY)" foreign_db || bail "CREATE"
run --db "$(uri foreign_db)" init
is "$RC|$OUT|$ERR" \
    "1||checkpointctl: postgresql://127.0.0.1:$PG_PORT/foreign_db: not a checkpoint-api database (no schema_version, 2 objects in its schema)" \
    "a database with tables of another program is refused"
is "$(psql_q "SELECT string_agg(relname::text, ',' ORDER BY relname)
    FROM pg_class WHERE relnamespace = 'public'::regnamespace" foreign_db)" \
    "orders,orders_pkey" "  and left as it was"

# --- The password never shows --------------------------------------------------

BADPW='Wr0ng%2Fpw-7c1e9'
BAD=postgresql://postgres:$BADPW@127.0.0.1:$PG_PORT/checkpoints
run --db "$BAD" job list
is "$RC|$OUT" "1|" "a wrong password: refused"
like "$ERR" "^checkpointctl: postgresql://postgres@127.0.0.1:$PG_PORT/checkpoints: .*password authentication failed for user \"postgres\": the password is not this role's, or there is no such role: are the user and the password \\(its pgpass line\\) right\\?\$" \
    "  the server named by user, host, port and database, and the likely cause"

# A refused connection says the user it tried and the likely cause: what
# a typo in the URI, a missing pgpass and a server not there look like.
PGPASSFILE=$T/no-pgpass "$CTL" --db "postgresql://postgres@127.0.0.1:$PG_PORT/checkpoints" \
    job list > /dev/null 2> "$T/err"
like "$(cat "$T/err")" "^checkpointctl: postgresql://postgres@127.0.0.1:$PG_PORT/checkpoints: .*no password supplied: is there a pgpass for this user \\(PGPASSFILE, else the system user's ~/.pgpass, mode 0600, with a line for this host, port, database and user\\)\\?\$" \
    "no pgpass: the user, and the pgpass asked for"
run --db "postgresql://postgres@127.0.0.1:$PG_PORT/checkpionts" job list
like "$ERR" "^checkpointctl: postgresql://postgres@127.0.0.1:$PG_PORT/checkpionts: .*database \"checkpionts\" does not exist: is the name right \\(a typo in the URI's user or database\\)\\?\$" \
    "a database name mistyped: said, with the likely cause"
printf '127.0.0.1:*:*:postgers:x\n' >> "$PGPASSFILE"
run --db "postgresql://postgers@127.0.0.1:$PG_PORT/checkpoints" job list
like "$ERR" "^checkpointctl: postgresql://postgers@127.0.0.1:$PG_PORT/checkpoints: .*password authentication failed for user \"postgers\".*: the password is not .*are the user and the password \\(its pgpass line\\) right\\?\$" \
    "a user name mistyped: the URI shown has it"
run --db "postgresql://postgres@127.0.0.1:$(free_port)/checkpoints" job list
like "$ERR" "Connection refused.*: is the server running, and listening on this host and port\\?\$" \
    "no server on that port: said, with the likely cause"
# The app logs its failure to open the store, and answers 503.
export CHECKPOINT_DB="$BAD"
rm -f "$SOCK"
spawn "$API" -s "$SOCK" 2> "$T/app-bad.log"
_app=$LAST_PID
wait_until 100 '[ -n "$(fcgi_raw GET /jobs/$J1/checkpoints/$A 2>/dev/null)" ]' ||
    bail "the app did not answer"
like "$(fcgi_raw GET "/jobs/$J1/checkpoints/$A" | head -n 1)" "^Status: 503" \
    "  the app answers 503"
stop_pid "$_app"
grep -q 'password authentication failed' "$T/app-bad.log"
ok $? "  and logs why"
cat "$T/err" "$T/app-bad.log" >> "$T/all-output"
CHECKPOINT_DB=$URI
export CHECKPOINT_DB
for _f in "$T/all-output" "$T/runner.log" "$H/lighttpd-error.log" \
    "$PG_DIR/server.log"; do
	[ -s "$_f" ] || bail "$_f is empty"
done
_found=$(grep -l -F -e "$PW" -e "$BADPW" -e 'Wr0ng/pw-7c1e9' \
    "$T/all-output" "$T/runner.log" "$H/lighttpd-error.log" 2>/dev/null)
is "$_found" "" "no password in any output, error or log"

done_testing
