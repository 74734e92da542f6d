#!/bin/sh
# The fleet's lists a page at a time and GET /ui/fleet's sums, as t3810
# checks them on SQLite, with the store in PostgreSQL (CHECKPOINT_DB a
# postgresql:// URI, a throwaway cluster, tests/pg.sh): the same pages,
# the same order, the same counts.  The checks are tests/fleet-pages.sh.

STORE=pg
. "$(dirname "$0")/fleet-pages.sh"
