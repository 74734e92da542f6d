#!/bin/sh
# The two responders scripts/bench measures the app against, driven
# directly with cgi-fcgi, and its disk probe.  tests/fcgi-hello (the
# ceiling) answers its fixed body to anything; tests/fcgi-floor (the app
# with a file and fdatasync in place of SQLite, tests/floor-commit.c)
# answers POSTs exactly as the app does, each with its own 202 once its
# trigger's line is in the floor file, and bad requests with the app's
# errors.  If either drifted, the bench's ratios would compare the app with
# something else.  tests/sync-probe times the disk's syncs and must never
# write over a file not its own.

. "$(dirname "$0")/lib.sh"

command -v cgi-fcgi >/dev/null 2>&1 || bail "cgi-fcgi (libfcgi-bin) is missing"
HELLO=$top_builddir/tests/fcgi-hello
FLOOR=$top_builddir/tests/fcgi-floor
PROBE=$top_builddir/tests/sync-probe
[ -x "$HELLO" ] && [ -x "$FLOOR" ] && [ -x "$PROBE" ] ||
    bail "tests/fcgi-hello, fcgi-floor or sync-probe is not built (make check builds them)"

J=0123456789abcdef0123456789abcdef
TID=abcdef0123456789abcdef0123456789

# gone PID: PID has exited (a zombie until the shell waits for it).
gone() {
	! kill -0 "$1" 2>/dev/null ||
	    grep -q '^[0-9]* (.*) Z' "/proc/$1/stat" 2>/dev/null
}

# serve PROGRAM: PROGRAM listening on $SOCK with 4 threads, once it answers.
serve() {
	rm -f "$SOCK"
	spawn "$1" -s "$SOCK" -t 4
	SERVED=$LAST_PID
	wait_until 100 '[ -n "$(fcgi_raw GET /jobs 2>/dev/null)" ]' ||
	    bail "$1 -s $SOCK did not answer"
}

# --- The ceiling ----------------------------------------------------------
serve "$HELLO"
is "$(fcgi_raw GET "/jobs/$J/checkpoints/$TID" | status_body)" \
    '200 {"status":{"id":"IN_PROGRESS"},"operation":null}' \
    "fcgi-hello: a GET gets the fixed status body"
is "$(fcgi_raw POST "/jobs/$J/checkpoints" '{"type":"FULL"}' | status_body)" \
    '200 {"status":{"id":"IN_PROGRESS"},"operation":null}' \
    "fcgi-hello: a POST with a body gets the same"
# SIGTERM stops the whole process at once: libfcgi alone would end only the
# accept it interrupts and leave the other threads serving.
kill "$SERVED"
ok "$(wait_until 50 'gone "$SERVED"'; echo $?)" \
    "fcgi-hello: SIGTERM stops it, every thread"
stop_pid "$SERVED"
is "$?" 0 "fcgi-hello: ... with exit status 0"

# --- The floor ------------------------------------------------------------
serve "$FLOOR"
F=$DB-floor
ok "$([ -f "$F" ]; echo $?)" "fcgi-floor: the floor file is beside the database"
is "$(wc -c < "$F" | tr -d ' ')" 1048576 \
    "fcgi-floor: filled to its whole size at start, so a sync never grows it"

is "$(fcgi_raw POST "/jobs/$J/checkpoints" "{\"triggerId\":\"$TID\"}" |
    status_body)" "202 {\"request-id\":\"$TID\"}" \
    "fcgi-floor: a POST gets the app's 202 with its triggerId"
ok "$(grep -q "^$J $TID " "$F"; echo $?)" \
    "fcgi-floor: ... after the trigger's line was written to the floor file"

out=$(fcgi_raw POST "/jobs/$J/checkpoints" '' | status_body)
like "$out" '^202 \{"request-id":"[0-9a-f]{32}"\}$' \
    "fcgi-floor: a POST without a body gets a 202 with a fresh id"
rid=$(printf '%s' "$out" | sed 's/.*"request-id":"\([0-9a-f]*\)".*/\1/')
ok "$(grep -q "^$J $rid " "$F"; echo $?)" \
    "fcgi-floor: ... and that id is in the floor file"

# Concurrent POSTs share syncs; each must get its own answer.
pids=
i=1
while [ $i -le 12 ]; do
	printf '{"triggerId":"%032x"}' $i > "$T/floor-req-$i"
	fcgi_file POST "/jobs/$J/checkpoints" "$T/floor-req-$i" \
	    > "$T/floor-out-$i" &
	pids="$pids $!"
	i=$((i + 1))
done
for p in $pids; do
	wait "$p"
done
bad=0
i=1
while [ $i -le 12 ]; do
	id=$(printf '%032x' $i)
	got=$(status_body < "$T/floor-out-$i")
	[ "$got" = "202 {\"request-id\":\"$id\"}" ] ||
	    { diag "POST $i: $got"; bad=$((bad + 1)); }
	grep -q "^$J $id " "$F" || { diag "POST $i: no line"; bad=$((bad + 1)); }
	i=$((i + 1))
done
is "$bad" 0 "fcgi-floor: 12 concurrent POSTs, each answered with its own id and written"

# Bad requests get the app's errors and write nothing.
lines=$(tr -d '\0' < "$F" | grep -c "^$J ")
like "$(fcgi_raw POST "/jobs/$J/checkpoints" '{"type":' | status_body)" \
    '^400 \{"errors":\[' "fcgi-floor: a broken body gets the app's 400"
like "$(fcgi_raw POST /jobs/not-a-job/checkpoints '' | status_body)" \
    '^400 \{"errors":\[' "fcgi-floor: a bad job id gets the app's 400"
is "$(tr -d '\0' < "$F" | grep -c "^$J ")" "$lines" \
    "fcgi-floor: ... and neither wrote a line"

# SIGTERM: it ends, as the app does.
kill "$SERVED"
wait_until 100 'gone "$SERVED"'
ok $? "fcgi-floor: SIGTERM ends it"
stop_pid "$SERVED"

# --- The disk probe -------------------------------------------------------
out=$("$PROBE" "$T/probe" 20 2>&1)
is "$?" 0 "sync-probe: 20 syncs, exit status 0"
like "$out" '^syncs 20 p50 [0-9]+ p99 [0-9]+ max [0-9]+$' \
    "sync-probe: one line with p50, p99 and max"
set -- $out
ok "$([ "$4" -gt 0 ] && [ "$4" -le "$6" ] && [ "$6" -le "$8" ]; echo $?)" \
    "sync-probe: 0 < p50 <= p99 <= max ($4, $6, $8 µs)"
ok "$([ ! -e "$T/probe" ]; echo $?)" "sync-probe: its file is gone after it"

# Each sync is one fdatasync of its own.  (LeakSanitizer refuses to run
# under ptrace; there is nothing for it to find in these few lines.)
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    strace -f -c -o "$T/probe.strace" "$PROBE" "$T/probe" 7 >/dev/null 2>&1
is "$(awk '$NF == "fdatasync" { print $4 }' "$T/probe.strace" 2>/dev/null)" 7 \
    "sync-probe: COUNT 7 makes 7 fdatasync calls (strace)"

printf 'not the probe'"'"'s\n' > "$T/mine"
out=$("$PROBE" "$T/mine" 5 2>&1)
is "$?" 1 "sync-probe: a file that is already there: exit status 1"
like "$out" '^sync-probe: open .*mine: File exists$' "sync-probe: ... one line that says so"
is "$(cat "$T/mine")" "not the probe's" "sync-probe: ... and the file is untouched"

out=$("$PROBE" "$T/no-such-dir/probe" 2>&1)
is "$?" 1 "sync-probe: a path it cannot create: exit status 1"
like "$out" '^sync-probe: open .*: No such file or directory$' "sync-probe: ... one line that says so"

for count in 0 -3 12x '' 1000001; do
	out=$("$PROBE" "$T/probe" "$count" 2>&1)
	is "$?.$out" "2.sync-probe: COUNT must be 1 to 1000000, not \"$count\"" \
	    "sync-probe: COUNT \"$count\" is refused with exit status 2"
done
out=$("$PROBE" 2>&1)
is "$?.$out" "2.usage: sync-probe FILE [COUNT]" "sync-probe: no FILE: usage, exit status 2"
ok "$([ ! -e "$T/probe" ]; echo $?)" "sync-probe: no refused call left a file"

done_testing
