#!/bin/sh
# checkpoint-runner's schedules with the store in PostgreSQL
# (tests/runner-schedule-checks.sh, as t4060 on SQLite): the row lock of
# the schedule is what lets one runner of several fire a slot.
# shellcheck disable=SC2016,SC2086

. "$(dirname "$0")/runner-lib.sh"
. "$(dirname "$0")/pg.sh"

pg_runner_db

. "$(dirname "$0")/runner-schedule-checks.sh"
done_testing
