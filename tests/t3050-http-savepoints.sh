#!/bin/sh
# The savepoint family through lighttpd on SQLite (tests/savepoint-checks.sh).
STORE=sqlite
. "$(dirname "$0")/savepoint-checks.sh"
