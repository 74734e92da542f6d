#!/bin/sh
# GET /jobs/:jobid/checkpoints and GET /metrics tell one truth, as Flink's
# both come from one CheckpointStatsTracker (checkpoint-api(7),
# "Checkpoint statistics"; checkpoint-api.fcgi(8), "GET /metrics"): after
# each step of a mixed sequence run by the real runner (completed,
# declined, expired, an unknown job, the job not RUNNING, retention's
# purge), for each registered job
#   counts.completed                    == numberOfCompletedCheckpoints
#   counts.failed                       == numberOfFailedCheckpoints
#   counts.in_progress                  == numberOfInProgressCheckpoints
#   counts.total                        == totalNumberOfCheckpoints
#   latest.completed.id                 == lastCompletedCheckpointId
#   latest.completed.end_to_end_duration == lastCheckpointDuration
# (-1 in the gauges when latest.completed is null), the service's totals
# are the jobs' sums, and each figure is the one the sequence must give.
# A job id no one registered counts only in job_not_found: it gets no row.
# The checks are tests/stats-metrics-agree.sh, which t6240 runs on
# PostgreSQL.

. "$(dirname "$0")/stats-metrics-agree.sh"
