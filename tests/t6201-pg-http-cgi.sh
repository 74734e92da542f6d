#!/bin/sh
# Every rule of checkpoint-api(7) through Apache 2.4 + mod_cgi, as t3400
# checks it, with the store in PostgreSQL: each request a process of its
# own, which records its trigger as a batch of one through the driver's
# pipeline (the committer's way) and wakes the watching runners before
# it exits.  The checks are tests/http-checks.sh, shared by every web
# server and both stores.

SERVER=cgi
STORE=pg
. "$(dirname "$0")/http-checks.sh"
