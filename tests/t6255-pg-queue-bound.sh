#!/bin/sh
# CHECKPOINT_MAX_QUEUED through lighttpd on PostgreSQL:
# tests/queue-checks.sh.
STORE=pg
. "$(dirname "$0")/queue-checks.sh"
