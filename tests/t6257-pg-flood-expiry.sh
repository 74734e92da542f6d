#!/bin/sh
# A flood of every POST endpoint on PostgreSQL, and its expiry:
# tests/flood-checks.sh.
STORE=pg
. "$(dirname "$0")/flood-checks.sh"
