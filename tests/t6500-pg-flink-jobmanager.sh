#!/bin/sh
# t7100 on PostgreSQL (a throwaway cluster, tests/pg.sh): a job bound to a
# real JobManager, its checkpoints triggered on Flink's REST API and
# Flink's ids, paths and failures recorded, every check as on SQLite.
FLINK_STORE=pg
. "$(dirname "$0")/t7100-flink-jobmanager.sh"
