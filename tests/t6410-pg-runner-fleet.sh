#!/bin/sh
# checkpoint-runner over PostgreSQL without the server's JIT compiler:
# the runner's generic plans of statements over the fleet (the history's
# pruning by count, whose estimates follow statistics gathered when the
# list of grown jobs was full) cost more than jit_above_cost, and the
# server compiled them at each pass, for longer than the statement ran.
# Every session of the store turns JIT off.  Seen without
# timing: the server is told to compile everything and to write what it
# compiles to its data directory (jit_dump_bitcode), and a pass with
# work to do, then an idle one, must leave nothing there.
#
# Actions' commands are written in single quotes on purpose: their $VARS
# are for the action's shell, not this one.
# shellcheck disable=SC2016,SC2086

. "$(dirname "$0")/runner-lib.sh"
. "$(dirname "$0")/pg.sh"

pg_runner_db

if [ "$(pg_sql "SELECT pg_jit_available()")" != t ]; then
	skip "the runner's sessions compile nothing" \
	    "this server has no JIT compiler"
	done_testing
	exit 0
fi

# bitcode: the files the server's JIT wrote to its data directory.
bitcode() {
	find "$PGDATA_DIR" -maxdepth 1 -name '*.bc' | wc -l
}

J=$(jid 41001)
add_job "$J" RUNNING FULL 'echo "done $CHECKPOINT_ID"'
dbq "INSERT INTO triggers (job_id, trigger_id, requested_type, created_ms)
    VALUES ('$J', '$(tid 41001)', 'CONFIGURED', 1)"
dbq "ALTER DATABASE $PG_DB SET jit_above_cost = 0;
    ALTER DATABASE $PG_DB SET jit_dump_bitcode = on" >/dev/null
# A session of the database's settings compiles (the check checks).
dbq "SELECT count(*) FROM triggers" >/dev/null
[ "$(bitcode)" -gt 0 ]
ok $? "a psql session under these settings has its statements compiled"
find "$PGDATA_DIR" -maxdepth 1 -name '*.bc' -delete

pass
ok $? "a pass with a trigger to run exits 0"
pass
ok $? "an idle pass exits 0"
is "$(bitcode)" 0 "the runner's statements were compiled by no JIT"
# Read last: psql's own statements are compiled.
is "$(rows "$J")" "COMPLETED|1|FULL|done 1|-" "  the first pass completed its trigger"

done_testing
