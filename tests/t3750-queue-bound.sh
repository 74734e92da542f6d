#!/bin/sh
# CHECKPOINT_MAX_QUEUED through lighttpd on SQLite: tests/queue-checks.sh.
STORE=sqlite
. "$(dirname "$0")/queue-checks.sh"
