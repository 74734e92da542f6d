#!/bin/sh
# GET /jobs/:jobid/checkpoints and GET /metrics tell one truth with the
# store in PostgreSQL (CHECKPOINT_DB a postgresql:// URI, a throwaway
# cluster, tests/pg.sh), as t4510 checks on SQLite: after each step of a
# mixed sequence run by the real runner (completed, declined, expired, an
# unknown job, the job not RUNNING, retention's purge) each job's counts,
# latest id and duration are the same in both, the service's totals are
# the jobs' sums and job not found, each the figure the sequence must
# give, and the purge lowers none of them (the counts are kept apart from
# the triggers by the schema's triggers, in PostgreSQL too).  The checks
# are tests/stats-metrics-agree.sh.

STORE=pg
. "$(dirname "$0")/stats-metrics-agree.sh"
