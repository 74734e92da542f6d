#!/bin/sh
# checkpoint-runner's savepoints, stops and disposals with the store in
# PostgreSQL (tests/runner-savepoint-checks.sh, as t4050 on SQLite); then
# a watching runner takes a savepoint and a disposal as they are POSTed,
# and a savepoint POSTed while it sleeps at once (its NOTIFY).
# shellcheck disable=SC2016,SC2086

. "$(dirname "$0")/runner-lib.sh"
. "$(dirname "$0")/pg.sh"

pg_runner_db

. "$(dirname "$0")/runner-savepoint-checks.sh"

# --- --watch: a savepoint and a disposal wake the runner ----------------------
JW=$(jid 57)
"$CTL" job add "$JW" --savepoint-dir file:/w \
    --savepoint-command 'echo "$CHECKPOINT_SAVEPOINT_DIR/sp-$CHECKPOINT_ID"' \
    --dispose-command 'true' || bail "job add $JW"
spawn "$RUNNER" --watch 2>>"$RLOG"
WATCHER=$LAST_PID
sleep 1
SW=$(tid 5701)
http POST /jobs/$JW/savepoints "{\"triggerId\":\"$SW\"}"
wait_until 200 '[ "$(sp "$JW" "$SW")" = "COMPLETED|1|file:/w/sp-1|-" ]'
ok $? "--watch: a watching runner takes the savepoint POSTed"
# The committer records a savepoint without a NOTIFY of its own, and
# sends one after the batch's commit: the runner, asleep for up to 5 s
# once its pass is done, must be woken by it.
# Its idle pass comes 5 s after its last, at least 3 s after this POST.
sleep 2
SW2=$(tid 5702)
_t0=$(now_ms)
http POST /jobs/$JW/savepoints "{\"triggerId\":\"$SW2\"}"
wait_until 60 '[ "$(sp "$JW" "$SW2")" = "COMPLETED|2|file:/w/sp-2|-" ]'
_ms=$(($(now_ms) - _t0))
ok "$([ "$_ms" -lt 2500 ] && echo 0 || echo 1)" \
    "--watch: woken by the committer's NOTIFY, it takes the next at once ($_ms ms)"
http POST /savepoint-disposal '{"savepoint-path":"file:/w/sp-1"}'
DW=$(printf '%s' "$BODY" | cut -d'"' -f4)
wait_until 200 '[ "$(dbq "SELECT status FROM savepoint_disposals
    WHERE trigger_id = '"'"'$DW'"'"'")" = COMPLETED ]'
ok $? "--watch: a watching runner takes the disposal POSTed"
term_wait "$WATCHER"
is "$RC" 0 "--watch: the runner stops on SIGTERM"
done_testing
