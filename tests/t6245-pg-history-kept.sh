#!/bin/sh
# A job's checkpoint history outlives its trigger records with the store in
# PostgreSQL (a throwaway cluster, tests/pg.sh), as t4520 checks on SQLite:
# the statistics, details, GET /jobs/:jobid/triggers, the metrics and
# `checkpointctl triggers` answer byte for byte the same once the results
# expired and were purged; `checkpointctl migrate` copies the history into
# SQLite; the history's own retention prunes by count and by age.  The
# checks are tests/history-kept.sh.

STORE=pg
. "$(dirname "$0")/history-kept.sh"
