#!/bin/sh
# checkpoint-runner's retention of savepoints on SQLite
# (tests/runner-retention-checks.sh): a job's policy, savepoints kept,
# disposals through the job's command with their reason and backoff.
# shellcheck disable=SC2016,SC2086

. "$(dirname "$0")/runner-lib.sh"
. "$(dirname "$0")/runner-retention-checks.sh"
done_testing
