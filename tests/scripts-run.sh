#!/bin/sh
# scripts/run, the README's first command, as a newcomer uses it: start it,
# run every command its banner prints, each as printed, in a shell of
# their own (without the test's CHECKPOINT_DB), then Ctrl-C.  Each printed
# line must work as it stands, and Ctrl-C must stop everything it started.
#
# It runs scripts/run in the checkout it belongs to, so scripts/test runs
# it there after make check (not make check itself, which may build from
# a read-only copy).  Its files go to the trash directory
# (CHECKPOINT_RUN_DIR), on a free port.
. "$(dirname "$0")/lib.sh"

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PORT=$(free_port)
RUN=$T/run
OUT=$T/run.out

# Ctrl-C reaches a foreground program as SIGINT; a program started in the
# background of a script ignores SIGINT unless it is given back.
(cd "$ROOT" && PORT=$PORT CHECKPOINT_RUN_DIR=$RUN \
    exec env --default-signal=INT sh scripts/run) > "$OUT" 2>&1 &
run=$!
PIDS="$PIDS $run"

wait_until 1200 'grep -q "^Ctrl-C stops" "$OUT" || gone $run'
ok $? "scripts/run prints its banner"
like "$(cat "$OUT")" "serving on http://127.0.0.1:$PORT \\(database: $RUN/checkpoints.db\\)" \
    "the banner names the port and the database"

# The page's address, printed beside the curl lines, serves the page.
page=$(sed -n 's|^  \(http://127\.0\.0\.1:[0-9]*/ui/\)$|\1|p' "$OUT")
like "$(curl -s "$page")" '<title>Checkpoints</title>' \
    "the page's address ($page) serves the page"

# printed PATTERN: the banner's command lines that match PATTERN, with
# continuation lines joined.
printed() {
	sed -n '/^Trigger a checkpoint/,/^Ctrl-C/p' "$OUT" |
	    sed -e ':a' -e '/\\$/N; s/\\\n//; ta' |
	    grep -E "^  $1" | sed 's/^  //'
}
# as_newcomer LINE: runs LINE in the checkout, as a new shell would.
as_newcomer() {
	(cd "$ROOT" && env -u CHECKPOINT_DB sh -c "$1")
}

post=$(printed "curl -s -X POST .*-d ''$")
is "$(printf '%s\n' "$post" | grep -c .)" 1 "one plain POST line"
answer=$(as_newcomer "$post")
like "$answer" '^\{"request-id":"[0-9a-f]{32}"\}$' "the POST line answers a request-id"
id=$(printf '%s' "$answer" | sed 's/.*"request-id":"\([0-9a-f]*\)".*/\1/')

get=$(printed "curl -s http://" | sed "s/<request-id>/$id/")
wait_until 100 '[ "$(as_newcomer "$get")" = "{\"status\":{\"id\":\"COMPLETED\"},\"operation\":{\"checkpointId\":1}}" ]'
ok $? "the status line shows the checkpoint completed, id 1"

own=$(printed "curl -s -X POST .*triggerId")
is "$(as_newcomer "$own")" '{"request-id":"00000000000000000000000000000001"}' \
    "the POST line with an idempotency key answers that key"

ctl=$(printed "cgi/checkpointctl")
listing=$(as_newcomer "$ctl" 2>&1)
ok $? "the checkpointctl line runs: $ctl"
like "$listing" "$id" "and lists the trigger"

q=$(printed "sqlite3 ")
rows=$(as_newcomer "$q" 2>&1)
ok $? "the sqlite3 line runs"
like "$rows" "^$id\\|COMPLETED\\|1\\|file:$RUN/snapshots/chk-1$" \
    "and shows the trigger with its location"
[ -d "$RUN/snapshots/chk-1" ]
ok $? "the demo job's action made its snapshot directory"

# Everything scripts/run started (lighttpd, its FastCGI processes, the
# runner), before Ctrl-C.
family=
add_children() {
	for _c in $(pgrep -P "$1"); do
		family="$family $_c"
		add_children "$_c"
	done
}
add_children $run
like "$family" '[0-9]+ [0-9]+ [0-9]+' "scripts/run has lighttpd, the app and the runner"

# A second one on the same port must not claim to serve.
(cd "$ROOT" && PORT=$PORT CHECKPOINT_RUN_DIR=$T/run2 timeout 60 sh scripts/run) \
    > "$T/run2.out" 2>&1
is $? 1 "scripts/run on a port already taken exits 1"
like "$(cat "$T/run2.out")" "^lighttpd did not start on 127.0.0.1:$PORT; see " \
    "and says lighttpd did not start"
grep -q '^checkpoint-api is serving' "$T/run2.out"
ok $((!$?)) "and prints no banner"

kill -INT $run
wait_until 100 "gone $run"
ok $? "Ctrl-C stops scripts/run"
wait $run
is $? 0 "and it exits 0"
left=
for p in $family; do
	gone "$p" || left="$left $p"
done
is "$left" "" "nothing it started is left"
like "$(tail -n 1 "$OUT")" '^stopped\.$' "it says so"
PIDS=

# Started as one run of it stopped after its banner: in a session of its
# own (setsid), stdin /dev/null, from a background job.  It keeps serving;
# whatever ends it is said: a runner stopped by a signal names its sender,
# and scripts/run does not outlive its runner (a bare wait kept lighttpd
# serving with no one to complete a trigger, and said nothing).
PORT3=$(free_port)
(cd "$ROOT" && PORT=$PORT3 CHECKPOINT_RUN_DIR=$T/run3 exec setsid sh scripts/run) \
    < /dev/null > "$T/run3.out" 2>&1 &
run3=$!
PIDS="$PIDS $run3"
wait_until 600 'grep -q "^Ctrl-C stops" "$T/run3.out" 2>/dev/null || gone $run3'
ok $? "setsid sh scripts/run < /dev/null prints its banner"
sleep 2
gone $run3
ok $((!$?)) "and still serves after it"
wait_until 50 '[ -n "$(pgrep -P $run3 -f checkpoint-runner)" ]'
runner3=$(pgrep -P $run3 -f checkpoint-runner)
kill -TERM "$runner3"
wait_until 100 "gone $run3"
ok $? "a runner stopped from elsewhere stops scripts/run"
wait $run3
is $? 1 "which exits 1"
out3=$(cat "$T/run3.out")
like "$out3" "checkpoint-runner\\[$runner3\\]: info: stopped by SIGTERM from pid $$ " \
    "the runner's log names the signal and its sender"
like "$out3" "stopping: the runner \\(pid $runner3\\) exited with status 0" \
    "scripts/run says the runner ended, with its status"
like "$(tail -n 1 "$T/run3.out")" '^stopped\.$' "and that it stopped"
PIDS=

done_testing
