#!/bin/sh
# checkpoint-runner, black-box, savepoints, stops and disposals: the jobs'
# commands (checkpointctl job add --savepoint-command, --stop-command,
# --dispose-command, --savepoint-dir) with their environment; the location
# they print; ids from the job's checkpoint sequence; the job's state after
# a stop or a cancel-job, and no checkpoint or savepoint of it after;
# failures; a dead runner's claim; disposal marking the savepoint.
#
# Commands are written in single quotes on purpose: their $VARS are for
# the command's shell, not this one.
# shellcheck disable=SC2016,SC2086

. "$(dirname "$0")/runner-lib.sh"
. "$(dirname "$0")/runner-savepoint-checks.sh"
done_testing
