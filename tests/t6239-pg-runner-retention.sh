#!/bin/sh
# checkpoint-runner's retention of savepoints with the store in PostgreSQL
# (tests/runner-retention-checks.sh, as t4070 on SQLite).
# shellcheck disable=SC2016,SC2086

. "$(dirname "$0")/runner-lib.sh"
. "$(dirname "$0")/pg.sh"

pg_runner_db
. "$(dirname "$0")/runner-retention-checks.sh"
done_testing
