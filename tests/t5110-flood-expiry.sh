#!/bin/sh
# A flood of every POST endpoint on SQLite, and its expiry:
# tests/flood-checks.sh.
STORE=sqlite
. "$(dirname "$0")/flood-checks.sh"
