# A throwaway PostgreSQL cluster for a test: sourced after lib.sh by the
# tests that need one (and by the benchmark, scripts/bench.d/pg.sh, which
# gives it T, bail, free_port and at_cleanup of its own).  Never the
# system's cluster: the data directory and the Unix socket are in the
# test's trash directory ($T/pg), the server
# listens on a free port of 127.0.0.1 only, and it is stopped (by its own
# data directory) and removed when the test ends, however it ends.
#
#   pg_start         initdb, start, and create the database "checkpoints"
#   pg_stop          stop the server and remove its data directory
#   pg_uri [DB]      a postgresql:// URI for DB (default: checkpoints), by TCP
#   psql_q SQL [DB]  runs SQL (stops at the first error), prints the rows
#                    unaligned, tuples only, fields separated by '|'
#   PGURI            pg_uri checkpoints, once pg_start has run
#   PG_BIN           where initdb, pg_ctl and psql are
#   PG_PORT          the TCP port
#   PG_SERVER_OPTS   the server's settings, as postgres -c options (set
#                    before pg_start; default -c fsync=off: a test needs
#                    no durability, the benchmark sets fsync=on)
#
# The server runs as the postgres user when the test runs as root (it
# refuses to run as root), as the test's own user otherwise.  Local (socket)
# connections are trusted, the socket's directory being the server user's
# alone; TCP ones need the password, which only the test's password file
# (PGPASSFILE) holds: URIs never carry it.

# The newest installed server, unless PG_BIN says where.
if [ -z "${PG_BIN:-}" ]; then
	PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
fi
[ -n "$PG_BIN" ] && [ -x "$PG_BIN/initdb" ] && [ -x "$PG_BIN/pg_ctl" ] ||
    bail "no PostgreSQL server (initdb, pg_ctl) in /usr/lib/postgresql/*/bin"

# Nothing of the environment may point psql elsewhere (at the system's
# cluster, say).
unset PGHOST PGHOSTADDR PGPORT PGDATABASE PGUSER PGPASSWORD PGSERVICE \
    PGSERVICEFILE PGOPTIONS PGSSLMODE PGTARGETSESSIONATTRS PGDATA
# psql sends and prints UTF-8 whatever the locale (C's would be SQL_ASCII).
export PGCLIENTENCODING=UTF8

PG_DIR=$T/pg
PGDATA_DIR=$PG_DIR/data
PG_PORT=
PGURI=
PG_STARTED=

# as_pg_user CMD...: CMD as the server's user.
as_pg_user() {
	if [ "$(id -u)" -eq 0 ]; then
		setpriv --reuid=postgres --regid=postgres --clear-groups -- "$@"
	else
		"$@"
	fi
}

pg_uri() {
	printf 'postgresql://postgres@127.0.0.1:%s/%s' "$PG_PORT" \
	    "${1:-checkpoints}"
}

psql_q() {
	"$PG_BIN/psql" -X -q -A -t -v ON_ERROR_STOP=1 -d "$(pg_uri "${2:-}")" \
	    -c "$1"
}

pg_start() {
	mkdir -p "$PG_DIR" || bail "cannot make $PG_DIR"
	if [ "$(id -u)" -eq 0 ]; then
		getent passwd postgres >/dev/null ||
		    bail "no postgres user (Debian package postgresql)"
		# The server's user reaches its directory through $T.
		chmod 711 "$T"
		chown postgres:postgres "$PG_DIR"
	fi
	chmod 700 "$PG_DIR"
	as_pg_user test -w "$PG_DIR" ||
	    bail "the server's user cannot write $PG_DIR (a parent not searchable?)"
	_pw=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
	printf '%s\n' "$_pw" > "$PG_DIR/pwfile"
	[ "$(id -u)" -eq 0 ] && chown postgres "$PG_DIR/pwfile"
	(cd "$PG_DIR" && as_pg_user "$PG_BIN/initdb" -D "$PGDATA_DIR" \
	    -U postgres --pwfile="$PG_DIR/pwfile" --auth-local=trust \
	    --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 --no-sync \
	    --no-instructions) > "$PG_DIR/initdb.log" 2>&1 ||
	    bail "initdb failed: $(tail -n 5 "$PG_DIR/initdb.log")"
	rm -f "$PG_DIR/pwfile"
	# A port free a moment ago may be taken when the server binds it:
	# another one, a few times.
	_try=0
	while :; do
		PG_PORT=$(free_port)
		PG_STARTED=1
		if (cd "$PG_DIR" && as_pg_user "$PG_BIN/pg_ctl" -D "$PGDATA_DIR" \
		    -l "$PG_DIR/server.log" -w -t 60 -o "-p $PG_PORT \
		    -c listen_addresses=127.0.0.1 \
		    -c unix_socket_directories=$PG_DIR \
		    ${PG_SERVER_OPTS--c fsync=off}" start) \
		    > "$PG_DIR/pg_ctl.log" 2>&1; then
			break
		fi
		_try=$((_try + 1))
		[ "$_try" -lt 3 ] ||
		    bail "pg_ctl start failed: $(tail -n 5 "$PG_DIR/server.log")"
	done
	printf '127.0.0.1:%s:*:postgres:%s\n' "$PG_PORT" "$_pw" > "$T/pgpass"
	chmod 600 "$T/pgpass"
	export PGPASSFILE=$T/pgpass
	unset _pw
	PGURI=$(pg_uri)
	psql_q "CREATE DATABASE checkpoints" postgres ||
	    bail "cannot create the database checkpoints"
}

# Stops the server by its data directory (pg_ctl signals the pid in its
# postmaster.pid, nothing else), then removes the data directory; the logs
# stay in $T/pg with the trash.  Does nothing when no server was started.
pg_stop() {
	[ -n "$PG_STARTED" ] || return 0
	PG_STARTED=
	if [ -f "$PGDATA_DIR/postmaster.pid" ]; then
		_pid=$(head -n 1 "$PGDATA_DIR/postmaster.pid")
		if ! (cd "$PG_DIR" && as_pg_user "$PG_BIN/pg_ctl" \
		    -D "$PGDATA_DIR" -m fast -w -t 30 stop) \
		    >> "$PG_DIR/pg_ctl.log" 2>&1; then
			# A server that will not stop is ended by its pid.
			echo "# pg_ctl stop failed; SIGQUIT to $_pid"
			kill -QUIT "$_pid" 2>/dev/null
		fi
	fi
	rm -rf "$PGDATA_DIR"
}
at_cleanup pg_stop
