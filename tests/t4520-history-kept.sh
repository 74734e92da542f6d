#!/bin/sh
# A job's checkpoint history outlives its trigger records (checkpoint-api(7),
# "RETENTION"): checkpoints completed and failed by the real runner, their
# results left to expire (CHECKPOINT_STORE_DURATION=4s) and purged by the
# runner; GET /jobs/:jobid/checkpoints, every details/:id, GET
# /jobs/:jobid/triggers (failure traces included), the job's gauges of GET
# /metrics and `checkpointctl triggers` answer byte for byte as before,
# while the triggers' own results answer 404 as Flink's do.  `checkpointctl
# migrate` copies the history; CHECKPOINT_HISTORY_KEEP prunes it by count in
# the runner's pass, CHECKPOINT_HISTORY_AGE by age in `checkpointctl
# purge`, and the counts and latest stay.  The checks are
# tests/history-kept.sh, which t6245 runs on PostgreSQL.

. "$(dirname "$0")/history-kept.sh"
