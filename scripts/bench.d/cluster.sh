# Sourced by the bench's stage scripts that start a throwaway PostgreSQL
# cluster of their own (actions.sh, savepoints.sh): what tests/pg.sh
# needs from tests/lib.sh, the bench's way, then tests/pg.sh itself.
# The caller sets W (its scratch directory), STAGE_NAME (for messages)
# and PG_HOOKS (run at its exit), and calls pg_start and
# `at_cleanup pg_stop`.  fsync and synchronous_commit are on, as on a
# production server.
T=$W
RUN_USER=$(id -un)
RUN_GROUP=$(id -gn)
bail() {
	echo "$STAGE_NAME: $*" >&2
	exit 1
}
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
at_cleanup() {
	PG_HOOKS="$1 $PG_HOOKS"
}
# gone PID: true once PID has ended (as tests/lib.sh's).
gone() {
	[ -r "/proc/$1/stat" ] || return 0
	_st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)
	[ -z "$_st" ] || [ "$_st" = Z ] || [ "$_st" = X ]
}
PG_SERVER_OPTS="-c fsync=on -c synchronous_commit=on"
. tests/pg.sh
