#!/bin/sh
# A POST batch that PostgreSQL aborts for a deadlock (SQLSTATE 40P01) is
# tried once more, and every POST in it is answered 202: the store's
# promise, proved through lighttpd on a throwaway cluster (tests/pg.sh).
# The batch upserts its triggers in (job, triggerId) order and keeps each
# row it met locked to its end, live triggers included; three triggers
# A < M < B are recorded first.  Sessions of the test's own then hold
# rows: W the row of a fourth trigger Z, so that a POST of Z holds the
# app's committer while POSTs of A, M and B queue behind it, then two
# more, of E and G.  The committer's next batch takes half the POSTs in
# flight, the oldest (commit.c, commit_main_remote): three of six, A, M
# and B, all three in one batch; Y holds M, X holds B.  W lets go: the
# batch locks A and waits for Y.  X asks for A and waits for the batch.  Y lets go: the
# batch goes on to B and waits for X, which waits for it.  The server's
# deadlock_timeout is short, X's own long, so the batch is the one
# aborted, and its retry is seen waiting for X; once X ends, the three
# POSTs are answered 202, each trigger is stored once with its row
# untouched, and the app goes on answering.  Each step waits for what
# pg_stat_activity shows (who waits for whom), not for a time; the one
# pause is for the app to queue three POSTs that ss shows it has read.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg.sh"

for c in lighttpd curl ss; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing"
done

J=0123456789abcdef0123456789abcdef
A=00000000000000000000000000000001
M=00000000000000000000000000000002
B=00000000000000000000000000000003
Z=0000000000000000000000000000000f
D=0000000000000000000000000000000d
E=0000000000000000000000000000000e
G=0000000000000000000000000000000c
IN_PROGRESS='{"status":{"id":"IN_PROGRESS"},"operation":null}'
APP=checkpoint-api.fcgi

# The server looks for a deadlock 200 ms into a lock wait; the app waits
# for a lock up to 30 s (lock_timeout), so that only a deadlock ends its
# waits here.  One FastCGI process: one committer, whose batches are
# the test's.
PG_SERVER_OPTS="-c deadlock_timeout=200ms"
pg_start
pg_app_db deadlock
export CHECKPOINT_BUSY_TIMEOUT=30s
export CHECKPOINT_PROCS=1
"$CTL" init > /dev/null || bail "checkpointctl init"
start_lighttpd 2> "$T/app.log"

post() {
	http POST "/jobs/$J/checkpoints" "{\"triggerId\":\"$1\"}"
	printf '%s %s' "$STATUS" "$BODY"
}
accepted() {
	printf '202 {"request-id":"%s"}' "$1"
}

for _t in $A $M $B $Z $E $G; do
	[ "$(post "$_t")" = "$(accepted "$_t")" ] || bail "POST $_t: $STATUS $BODY"
done
ROWS="SELECT id, trigger_id, status, created_ms FROM triggers ORDER BY id"
BEFORE=$(pg_sql "$ROWS")

# session NAME FD: a psql session of its own (application_name
# deadlock-NAME), reading what say sends it from a FIFO on file
# descriptor FD of the test; its output in $T/NAME.out.
session() {
	mkfifo "$T/$1.fifo" || bail "mkfifo"
	# The FIFOs of the other sessions closed: each psql sees its own
	# end.
	spawn sh -c 'exec 4>&- 5>&- 6>&-; exec "$1" -X -q -A -t -d "$2" \
	    < "$3" >> "$4" 2>&1' sh "$PG_BIN/psql" \
	    "$(pg_uri deadlock)?application_name=deadlock-$1" \
	    "$T/$1.fifo" "$T/$1.out"
	# Read-write: never blocks, and psql's open for reading completes.
	eval "exec $2<> \"\$T/\$1.fifo\""
	eval "FD_$1=$2 PID_$1=\$LAST_PID"
}

# say NAME LINE...: sends the lines to session NAME.
say() {
	_s=$1
	shift
	eval "printf '%s\\n' \"\$@\" >&\$FD_$_s"
}

# lock NAME TRIGGER: session NAME, in a transaction, locks the row of
# TRIGGER as a writer would, and says so.
lock() {
	say "$1" "SELECT 'locked ' || trigger_id FROM triggers
	    WHERE trigger_id = '$2' FOR UPDATE;"
	wait_until 100 "grep -q '^locked $2\$' \"\$T/$1.out\"" ||
	    bail "session $1 did not lock $2: $(cat "$T/$1.out")"
}

# blocked WHO BY: the session named WHO (application_name) waits for a
# lock, held by BY's session and nobody else.
blocked() {
	[ "$(psql_q "SELECT count(*) FROM pg_stat_activity
	    WHERE application_name = '$1' AND wait_event_type = 'Lock'
	    AND pg_blocking_pids(pid) = ARRAY(SELECT pid FROM pg_stat_activity
	    WHERE application_name = '$2')" postgres)" = 1 ]
}

# read_all N: lighttpd has N connections to the app's socket, and the app
# has read every byte sent on them (nothing waits in their queues).
read_all() {
	ss -xnH | awk -v s="$H/checkpoint-api.sock" -v n="$1" '
	    index($5, s) == 1 && $2 == "ESTAB" { c++; q += $3 }
	    END { exit !(c == n && q == 0) }'
}

session W 4
session Y 5
session X 6
# X's own deadlock_timeout: far longer than the server's, so that when
# the app's batch and X wait for each other the batch finds it first.
say X "SET deadlock_timeout = '60s';"
for _s in W Y X; do
	say "$_s" "BEGIN;"
done
lock W "$Z"
lock Y "$M"
lock X "$B"

# post_bg TRIGGER...: POSTs of the TRIGGERs, each in the background (its
# answer in $T/status-TRIGGER and $T/post-TRIGGER); BG: their pids.
post_bg() {
	BG=
	for _t in "$@"; do
		curl -s -o "$T/post-$_t" -w '%{http_code}' -X POST \
		    -d "{\"triggerId\":\"$_t\"}" "$BASE/jobs/$J/checkpoints" \
		    > "$T/status-$_t" &
		BG="$BG $!"
	done
}

# The committer held by W, behind Z; A, M and B queue for the next batch.
post_bg "$Z"
POST_Z=$BG
wait_until 100 "blocked $APP deadlock-W" ||
    bail "the POST of $Z does not wait for session W"
ok 0 "a POST of Z waits for session W, which holds Z's row"
post_bg "$A" "$M" "$B"
POSTS=$BG
# All four read by the app; then a moment for its workers to queue
# the last ones (no I/O left between the read and the queue).  Then E
# and G, the same way, queued after them.
wait_until 100 "read_all 4" || bail "the app did not read the four POSTs"
sleep 0.5
post_bg "$E" "$G"
LATER=$BG
wait_until 100 "read_all 6" || bail "the app did not read the six POSTs"
sleep 0.5
say W "COMMIT;"
wait $POST_Z
is "$(cat "$T/status-$Z") $(cat "$T/post-$Z")" "$(accepted "$Z")" \
    "W commits: the POST of Z is answered 202"

# The next batch: A locked, M waited for.  Why M: the server checks a
# wait for a deadlock once, deadlock_timeout into it.  Had the batch gone
# from A straight to B, X's wait for A would have to begin within those
# 200 ms for the batch's check to see the cycle (else X's, 60 s later,
# would).  With M between, the batch's wait for B begins only once X
# already waits: its check sees the cycle, however slow the test is.
wait_until 100 "blocked $APP deadlock-Y"
ok $? "the batch of A, M and B locked A and waits for Y, which holds M"
say X "SELECT 'locked ' || trigger_id FROM triggers
    WHERE trigger_id = '$A' FOR UPDATE;"
wait_until 100 "blocked deadlock-X $APP"
ok $? "X asks for A and waits for the batch"
APP_PID=$(psql_q "SELECT pid FROM pg_stat_activity
    WHERE application_name = '$APP' AND wait_event_type = 'Lock'" postgres)
say Y "COMMIT;"

# The batch meets B, held by X: a deadlock.  The server aborts the batch,
# X gets A, and the retry waits for X.
wait_until 100 "grep -q '\\[$APP_PID\\] ERROR:  deadlock detected' \
    \"\$PG_DIR/server.log\""
ok $? "the server detected the deadlock in the app's batch (backend $APP_PID)"
like "$(sed -n "/\\[$APP_PID\\] ERROR:  deadlock detected/,/STATEMENT:/p" \
    "$PG_DIR/server.log" | grep "\\[$APP_PID\\] STATEMENT:")" \
    'STATEMENT: .*INSERT INTO triggers' "  in its upsert of the triggers"
wait_until 100 "grep -q '^locked $A\$' \"\$T/X.out\""
ok $? "  X, the survivor, got A"
wait_until 100 "blocked $APP deadlock-X"
ok $? "the batch is tried again, and waits for X"
grep -q 'warn: .*deadlock detected' "$T/app.log"
ok $? "the app logged the deadlock"
say X "ROLLBACK;"

for _p in $POSTS; do
	wait "$_p"
done
for _t in $A $M $B; do
	is "$(cat "$T/status-$_t") $(cat "$T/post-$_t")" "$(accepted "$_t")" \
	    "X ends: the POST of $_t in the retried batch is answered 202"
done
for _p in $LATER; do
	wait "$_p"
done
for _t in $E $G; do
	is "$(cat "$T/status-$_t") $(cat "$T/post-$_t")" "$(accepted "$_t")" \
	    "  and the POST of $_t, in the batch after it"
done
is "$(pg_sql "SELECT count(*), count(DISTINCT trigger_id) FROM triggers")" \
    "6|6" "each trigger stored once"
is "$(pg_sql "$ROWS")" "$BEFORE" "  each row as it was: id, status, created_ms"
grep -q 'ERROR' "$T/X.out" "$T/Y.out" "$T/W.out"
ok $((!$?)) "the sessions W, Y and X met no error"
for _s in W Y X; do
	say "$_s" '\q'
	eval "_pid=\$PID_$_s"
	wait "$_pid"
	forget "$_pid"
done

# The app goes on: a new trigger, and a GET.
is "$(post "$D")" "$(accepted "$D")" "a later POST: 202"
http GET "/jobs/$J/checkpoints/$A"
is "$STATUS $BODY" "200 $IN_PROGRESS" "a GET of A: 200, IN_PROGRESS"
is "$(pg_sql "SELECT count(*) FROM triggers")" 7 "  seven triggers in all"
stop_lighttpd

done_testing
