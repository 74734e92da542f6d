#!/bin/sh
# checkpoint-runner's savepoints, stops and disposals with the store in
# PostgreSQL (tests/runner-savepoint-checks.sh, as t4050 on SQLite).
# shellcheck disable=SC2016,SC2086

. "$(dirname "$0")/runner-lib.sh"
. "$(dirname "$0")/pg.sh"

pg_start
psql_q "CREATE DATABASE runner" postgres || bail "CREATE DATABASE runner"
CHECKPOINT_DB="$(pg_uri runner)?passfile=$PGPASSFILE"
export CHECKPOINT_DB

dbq() {
	psql_q "$1" runner
}

. "$(dirname "$0")/runner-savepoint-checks.sh"
