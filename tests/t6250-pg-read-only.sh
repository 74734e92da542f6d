#!/bin/sh
# A PostgreSQL server that stops taking writes (a primary demoted after a
# failover, or default_transaction_read_only set) under the running app
# and runner: a POST is the 503 that says the database is not writable
# (retrying alone cannot help; but with target_session_attrs=read-write
# in the URI, which looks for another host, the 503 to retry) and stores
# nothing, GETs are
# still answered, and once the server takes writes again the same app
# behind the same lighttpd answers 202 without a restart; a runner pass
# fails without completing anything, and the next pass completes the
# triggers it left.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg.sh"

for c in lighttpd curl; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing"
done

J=0123456789abcdef0123456789abcdef
A=$(printf '%032x' 1)
B=$(printf '%032x' 2)
NOT_WRITABLE='{"errors":["Service unavailable: the checkpoint database is not writable by this service (file permissions, a read-only file system or a read-only server). Retrying will not help until the operator fixes it."]}'
IN_PROGRESS='{"status":{"id":"IN_PROGRESS"},"operation":null}'

pg_start
pg_app_db ro
"$CTL" init > /dev/null && "$CTL" job add "$J" > /dev/null ||
    bail "checkpointctl init, job add"
start_lighttpd
LPID=$LIGHTTPD_PID

post() {
	http POST "/jobs/$J/checkpoints" "{\"triggerId\":\"$1\"}"
	printf '%s %s' "$STATUS" "$BODY"
}
get() {
	http GET "/jobs/$J/checkpoints/$1"
	printf '%s %s' "$STATUS" "$BODY"
}
read_only() {
	pg_sql "ALTER SYSTEM SET default_transaction_read_only = $1" &&
	    pg_sql "SELECT pg_reload_conf()" > /dev/null ||
	    bail "cannot set default_transaction_read_only"
	# Every backend takes the reload in at its next command.
	_want=$1
	wait_until 100 '[ "$(pg_sql "SHOW default_transaction_read_only")" = "$_want" ]' ||
	    bail "default_transaction_read_only is not $1"
}

is "$(post "$A")" "202 {\"request-id\":\"$A\"}" "POST while the server takes writes: 202"

read_only on
is "$(post "$B")" "503 $NOT_WRITABLE" "read-only server: POST is the 503 of a database not writable"
is "$(pg_sql "SELECT count(*) FROM triggers WHERE trigger_id = '$B'")" 0 \
    "  nothing of it stored"
is "$(get "$A")" "200 $IN_PROGRESS" "  GET is still answered"
is "$(post "$B")" "503 $NOT_WRITABLE" "  and POST again: the same 503, not 500"
"$RUNNER" 2>> "$T/runner.log"
rc=$?
[ "$rc" -ne 0 ]
ok $? "  a runner pass fails (exit $rc)"
is "$(get "$A")" "200 $IN_PROGRESS" "  and completed nothing"
grep -q 'read-only' "$T/runner.log"
ok $? "  its log says why (read-only transaction)"

read_only off
is "$(post "$B")" "202 {\"request-id\":\"$B\"}" \
    "writes again: the same app answers 202, no restart"
! gone "$LPID"
ok $? "  the same lighttpd, still running"
"$RUNNER" 2>> "$T/runner.log"
ok $? "  a runner pass succeeds"
is "$(get "$A")" '200 {"status":{"id":"COMPLETED"},"operation":{"checkpointId":1}}' \
    "  the trigger left is completed, checkpoint 1"
is "$(get "$B")" '200 {"status":{"id":"COMPLETED"},"operation":{"checkpointId":2}}' \
    "  the one posted after, checkpoint 2"

# With target_session_attrs=read-write (a URI for failover), a host that
# turns read-only is taken for a primary no longer: the connection looks
# for a writable host again, and the answer is the 503 to retry, the
# log naming the cause.
stop_lighttpd
CHECKPOINT_DB="$CHECKPOINT_DB&target_session_attrs=read-write"
export CHECKPOINT_DB
start_lighttpd
C=$(printf '%032x' 3)
D=$(printf '%032x' 4)
UNAVAILABLE='{"errors":["Service temporarily unavailable: the checkpoint database cannot be opened or read. Please retry."]}'
is "$(post "$C")" "202 {\"request-id\":\"$C\"}" "read-write URI: 202"
read_only on
is "$(post "$D")" "503 $UNAVAILABLE" \
    "read-write URI, the host turned read-only: the 503 to retry"
is "$(post "$D")" "503 $UNAVAILABLE" \
    "  and again, no writable host found"
read_only off
is "$(post "$D")" "202 {\"request-id\":\"$D\"}" \
    "  a writable host again: 202, no restart"
done_testing
