#!/bin/sh
# checkpoint-runner's savepoints, stops and disposals with the store in
# PostgreSQL (tests/runner-savepoint-checks.sh, as t4050 on SQLite); then
# a watching runner (NOTIFY wakes it; its idle pass would too, so no
# timing is judged) takes a savepoint and a disposal as they are POSTed.
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
http POST /savepoint-disposal '{"savepoint-path":"file:/w/sp-1"}'
DW=$(printf '%s' "$BODY" | cut -d'"' -f4)
wait_until 200 '[ "$(dbq "SELECT status FROM savepoint_disposals
    WHERE trigger_id = '"'"'$DW'"'"'")" = COMPLETED ]'
ok $? "--watch: a watching runner takes the disposal POSTed"
term_wait "$WATCHER"
is "$RC" 0 "--watch: the runner stops on SIGTERM"
done_testing
