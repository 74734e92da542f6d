#!/bin/sh
# checkpoint-runner's schedules on SQLite (tests/runner-schedule-checks.sh):
# set and shown by checkpointctl, fired by the runner one slot at a time,
# once each, across a runner killed with SIGKILL and runners side by side.
# shellcheck disable=SC2016,SC2086

. "$(dirname "$0")/runner-lib.sh"
. "$(dirname "$0")/runner-schedule-checks.sh"
done_testing
