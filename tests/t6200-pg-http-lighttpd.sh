#!/bin/sh
# Every rule of checkpoint-api(7) through lighttpd, as t3000 checks it, with
# the store in PostgreSQL (CHECKPOINT_DB a postgresql:// URI, a database
# per phase in a throwaway cluster, tests/pg.sh): the same answers byte for
# byte, the same rows asked with psql.  Where SQLite's checks are about its
# file, the PostgreSQL way of the same failure: another writer's lock on
# the triggers table past CHECKPOINT_BUSY_TIMEOUT is the contract's 503,
# readers still answered; the database server stopped under the running
# app is the contract's 503 on every endpoint, naming nothing of the URI,
# and once it is started again the same app behind the same lighttpd
# answers 202 and 200, the triggers from before still there.  The checks
# are tests/http-checks.sh, shared by every web server and both stores.

SERVER=lighttpd
STORE=pg
. "$(dirname "$0")/http-checks.sh"
