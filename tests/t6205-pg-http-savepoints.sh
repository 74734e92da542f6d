#!/bin/sh
# The savepoint family through lighttpd on PostgreSQL
# (tests/savepoint-checks.sh).
STORE=pg
. "$(dirname "$0")/savepoint-checks.sh"
