#!/bin/sh
# Every rule of checkpoint-api(7) through nginx keeping its FastCGI
# connections open to the app (as t3310), the app running as an
# unprivileged user with 64 threads, with the store in PostgreSQL
# (CHECKPOINT_DB a postgresql:// URI, tests/pg.sh): the same answers as on
# SQLite, kept connections and the threads' database connections through
# another writer's lock and the database server stopped and started again
# under the running app (t6200 says what those check).  The checks are
# tests/http-checks.sh, shared by every web server and both stores.

SERVER=nginx-keepalive
STORE=pg
. "$(dirname "$0")/http-checks.sh"
