#!/bin/sh
# Stopping the app behind nginx keeping its FastCGI connections
# open (scripts/nginx-keepalive.conf), as a process manager or an operator
# does, with SIGTERM.  Threads waiting for the next request on a kept
# connection close it and leave, so that the process exits with every
# thread joined; under load, every POST answered 202 is in the database;
# and nginx goes on to the next process on the same socket.

SERVER=nginx-keepalive
. "$(dirname "$0")/lib.sh"
for c in nginx curl sqlite3; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing"
done
if [ "$(id -u)" -eq 0 ]; then
	command -v setpriv >/dev/null 2>&1 || bail "setpriv (util-linux) is missing"
fi

J=0123456789abcdef0123456789abcdef
API_ARGS=-d	# logs the stop in detail
SOCK_PATH=$T/$SERVER/api.sock

# sockets APP: how many sockets the app holds (listening and kept ones).
sockets() {
	ls -l "/proc/$1/fd" 2>/dev/null | grep -c 'socket:'
}

# app_stop: SIGTERM to the app; sets STOP_RC to its exit status.
app_stop() {
	stop_pid "$APP_PID"
	STOP_RC=$?
}

# app_restart: a new app on the same socket, as a process manager would
# start it; nginx keeps running.
app_restart() {
	rm -f "$SOCK_PATH"
	spawn_keepalive_app "$SOCK_PATH"
	wait_until 100 '[ -S "$SOCK_PATH" ]' || bail "the app did not listen again"
}

trigger() {
	printf '%08x%024x' "$1" "$2"
}

# poster N: POSTs fresh triggers until $T/go goes; each answer's status and
# triggerId go to $T/answers.N.
poster() {
	_k=0
	while [ -e "$T/go" ]; do
		_k=$((_k + 1))
		_id=$(trigger "$1" "$_k")
		_st=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 \
		    -X POST -H 'Content-Type: application/json' \
		    --data-binary "{\"triggerId\":\"$_id\"}" \
		    "$BASE/jobs/$J/checkpoints")
		echo "$_st $_id" >> "$T/answers.$1"
	done
}

start_server

# === Idle kept connections ====================================================
# Eight POSTs at once make nginx open (and keep) several connections.
n=0
for i in 1 2 3 4 5 6 7 8; do
	curl -s -o /dev/null -w '%{http_code}\n' -X POST \
	    --data-binary "{\"triggerId\":\"$(trigger 1 $i)\"}" \
	    "$BASE/jobs/$J/checkpoints" >> "$T/idle" &
done
wait_until 100 '[ "$(wc -l < "$T/idle")" -eq 8 ]'
is "$(sort -u "$T/idle")" 202 "idle: eight POSTs at once, all 202"
kept=$(sockets "$APP_PID")
[ "$kept" -ge 3 ]
ok $? "idle: the app holds kept connections from nginx ($((kept - 1)) besides its listening socket)"

app_stop
is "$STOP_RC" 0 "idle: SIGTERM: the app exits with status 0"
like "$(cat "$SERVER_LOG")" 'signal 15: finishing' "idle: the app took SIGTERM"
! grep -q 'did not leave' "$SERVER_LOG"
ok $? "idle: every thread left: none was left waiting on a kept connection"

app_restart
http GET /jobs/$J/checkpoints/$(trigger 1 1)
is "$STATUS" 200 "idle: nginx goes on to the next process on the same socket"

# === Under load =============================================================
logged=$(wc -l < "$SERVER_LOG")
: > "$T/go"
LOADERS=
for k in 2 3 4 5; do
	poster $k &
	LOADERS="$LOADERS $!"
done
wait_until 100 '[ "$(cat "$T"/answers.* 2>/dev/null | grep -c "^202 ")" -ge 40 ]' ||
    diag "the posters were slow to start"
kept=$(sockets "$APP_PID")
app_stop
rm -f "$T/go"
for p in $LOADERS; do
	wait "$p"
done
is "$STOP_RC" 0 "load: SIGTERM under load: the app exits with status 0"
tail -n +$((logged + 1)) "$SERVER_LOG" | grep -q 'signal 15: finishing' &&
    ! tail -n +$((logged + 1)) "$SERVER_LOG" | grep -q 'did not leave'
ok $? "load: every thread left (the app held $((kept - 1)) connections besides its listening socket)"
cat "$T"/answers.* | awk '$1 == 202 { print $2 }' | sort > "$T/accepted"
sql "SELECT trigger_id FROM triggers" | sort > "$T/stored"
[ -s "$T/accepted" ]
ok $? "load: $(wc -l < "$T/accepted") POSTs answered 202 before and during the stop"
is "$(comm -23 "$T/accepted" "$T/stored" | wc -l)" 0 \
    "load: every POST answered 202 is in the database"
is "$(cat "$T"/answers.* | awk '$1 != 202 && $1 != 502 && $1 != 503' | wc -l)" 0 \
    "load: every other answer is nginx's 502 or 503 once the app is gone"

app_restart
http GET /jobs/$J/checkpoints/$(head -n 1 "$T/accepted")
is "$STATUS" 200 "load: nginx goes on to the next process on the same socket"

done_testing
