#!/bin/sh
# The fleet's lists a page at a time, through lighttpd (checkpoint-api(7),
# "Paged lists", "GET /ui/fleet", "GET /metrics"), over 230 jobs of every
# health: GET /jobs and /jobs/overview asked without parameters are
# Flink's whole lists, with no key of a page; walked a page at a time by
# ?limit= and ?after= they give every job once, by id, and ?q= finds a
# job by name or id in any case, a LIKE wildcard taken as itself.  GET
# /ui/fleet sums the fleet as the database says it is (jobs by health,
# in progress, with missed slots), walked worst first (then by name) or
# by id gives every job once in that order, finds by name or id, and
# keeps the counts the fleet's under a search.  /metrics by default is
# the fleet's: the same lines at 230 jobs and at 2,030.  Bad values are
# the contract's 400.  The checks are tests/fleet-pages.sh.

. "$(dirname "$0")/fleet-pages.sh"
