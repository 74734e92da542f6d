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
#   pg_uri [DB [PORT]]  a postgresql:// URI for DB (default: checkpoints),
#                    by TCP, to PORT (default: PG_PORT)
#   psql_q SQL [DB [PORT]]  runs SQL (stops at the first error), prints the
#                    rows unaligned, tuples only, fields separated by '|'
#   pg_down [MODE]   stop it (pg_ctl -m MODE), keeping data and port
#   pg_up            start it again after pg_down
#   pg_app_db NAME   a new database for the app, named by CHECKPOINT_DB,
#                    its tables made by checkpointctl init
#   pg_sql SQL       runs SQL in it, as psql_q
#   pg_lock DB TABLE another session holds TABLE locked until pg_unlock
#   PGURI            pg_uri checkpoints, once pg_start has run
#   PG_BIN           where initdb, pg_ctl and psql are
#   PG_PORT          the TCP port
#   PG_FSYNC         fsync of the servers: off unless set (on) before
#                    pg_start, for a test of what survives a crash
#
# Crashes, and a second server, for the tests of what survives them:
#   pg_standby       a streaming standby of the first (pg_basebackup -R),
#                    named standby1 (its application_name), on a port of
#                    its own: PG_STANDBY_PORT, data in PG_STANDBY_DIR
#   pg_sync_standby  makes standby1 synchronous (ALTER SYSTEM, reload) and
#                    waits until pg_stat_replication says so
#   pg_promote       promotes the standby (pg_ctl promote -w)
#   pg_kill9 [DATA]  SIGKILL to the postmaster of DATA (default: the
#                    first server's), by the pid in its postmaster.pid
#   pg_crash         the first server stopped with -m immediate (a crash:
#                    no shutdown checkpoint)
#   pg_restart       the first server started again, on its port
#   pg_restart_immediate  the two
#   pg_uri_hosts     a URI naming both servers, the read-write one wanted,
#                    with connect_timeout=2
#   PG_SERVER_OPTS   more server settings, as postgres -c options after
#                    the test's own (set before pg_start; the benchmark
#                    sets fsync=on and synchronous_commit=on)
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
PG_FSYNC=${PG_FSYNC:-off}
PG_STANDBY_DIR=$PG_DIR/standby
PG_STANDBY_PORT=
PG_STANDBY_STARTED=

# as_pg_user CMD...: CMD as the server's user.
as_pg_user() {
	if [ "$(id -u)" -eq 0 ]; then
		setpriv --reuid=postgres --regid=postgres --clear-groups -- "$@"
	else
		"$@"
	fi
}

pg_uri() {
	printf 'postgresql://postgres@127.0.0.1:%s/%s' "${2:-$PG_PORT}" \
	    "${1:-checkpoints}"
}

psql_q() {
	"$PG_BIN/psql" -X -q -A -t -v ON_ERROR_STOP=1 \
	    -d "$(pg_uri "${2:-}" "${3:-}")" -c "$1"
}

# pg_server_start DATA LOG [PORT] [OPTION...]: starts the server of data
# directory DATA, logging to LOG, on PORT or else a free one, with the
# test's settings and the OPTIONs; sets PG_SERVER_PORT.  A port free a moment
# ago may be taken when the server binds it: without PORT, another one, a
# few times.
pg_server_start() {
	_data=$1 _log=$2 _fixed=${3:-}
	shift 2
	[ $# -gt 0 ] && shift
	_try=0
	while :; do
		PG_SERVER_PORT=${_fixed:-$(free_port)}
		if (cd "$PG_DIR" && as_pg_user "$PG_BIN/pg_ctl" -D "$_data" \
		    -l "$_log" -w -t 60 -o "-p $PG_SERVER_PORT \
		    -c listen_addresses=127.0.0.1 \
		    -c unix_socket_directories=$PG_DIR -c fsync=$PG_FSYNC \
		    ${PG_SERVER_OPTS:-} $*" \
		    start) >> "$PG_DIR/pg_ctl.log" 2>&1; then
			return 0
		fi
		_try=$((_try + 1))
		[ -z "$_fixed" ] && [ "$_try" -lt 3 ] ||
		    bail "pg_ctl start failed: $(tail -n 5 "$_log")"
	done
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
	PG_STARTED=1
	pg_server_start "$PGDATA_DIR" "$PG_DIR/server.log"
	PG_PORT=$PG_SERVER_PORT
	# Every server of the test (a standby too) has this password.
	printf '127.0.0.1:*:*:postgres:%s\n' "$_pw" > "$T/pgpass"
	chmod 600 "$T/pgpass"
	export PGPASSFILE=$T/pgpass
	unset _pw
	PGURI=$(pg_uri)
	psql_q "CREATE DATABASE checkpoints" postgres ||
	    bail "cannot create the database checkpoints"
}

# pg_up: starts the server of pg_start on its port (again, after pg_down);
# true once it accepts connections.
pg_up() {
	pg_restart
}

# pg_down [MODE]: stops the server with pg_ctl's shutdown MODE (fast unless
# told; immediate is a crash), keeping its data directory and port, for a
# test of the database going away under the programs; pg_up brings it back.
pg_down() {
	(cd "$PG_DIR" && as_pg_user "$PG_BIN/pg_ctl" -D "$PGDATA_DIR" \
	    -m "${1:-fast}" -w -t 30 stop) >> "$PG_DIR/pg_ctl.log" 2>&1
}

# pg_app_db NAME: a new database NAME for the programs under test, which
# CHECKPOINT_DB (exported) names with a password file of their own
# (libpq's passfile; RUN_USER's, who runs the app behind Apache and
# nginx): lighttpd hands the app CHECKPOINT_DB but not PGPASSFILE.  The
# URI never holds the password.  pg_sql asks that database.
pg_app_db() {
	if [ ! -e "$T/app-pgpass" ]; then
		cp "$PGPASSFILE" "$T/app-pgpass"
		[ "$(id -u)" -eq 0 ] && chown "$RUN_USER:$RUN_GROUP" "$T/app-pgpass"
		chmod 600 "$T/app-pgpass"
	fi
	PG_DB=$1
	psql_q "CREATE DATABASE \"$1\"" postgres || bail "CREATE DATABASE $1"
	CHECKPOINT_DB="$(pg_uri "$1")?passfile=$T/app-pgpass"
	export CHECKPOINT_DB
	# Its tables: only checkpointctl init makes them (lib.sh's init_db).
	init_db "$CHECKPOINT_DB"
}

# pg_runner_db: for the runner's tests (runner-lib.sh), a started cluster
# and its database "runner" as the store, which dbq asks.
pg_runner_db() {
	pg_start
	pg_app_db runner
	dbq() {
		pg_sql "$1"
	}
}

# pg_sql SQL: pg_app_db's database, as an operator would ask it.
pg_sql() {
	psql_q "$1" "$PG_DB"
}

# pg_lock DB TABLE [SQL-LINE...]: another session takes TABLE of DB in
# EXCLUSIVE mode (readers pass, every INSERT and UPDATE waits), runs the
# SQL lines, and keeps the lock until pg_unlock.  The server ends that
# session after 30 s idle, so that a program waiting on the lock for ever
# ends (and fails its check) rather than hangs the test.  Uses fd 3; sets
# LOCKER, its pid.
pg_lock() {
	_db=$1 _table=$2
	shift 2
	rm -f "$T/pg-locked" "$T/pg-lock.fifo"
	mkfifo "$T/pg-lock.fifo"
	# Read-write, so that opening the FIFO does not block.
	exec 3<> "$T/pg-lock.fifo"
	spawn sh -c 'exec "$1" -X -q -v ON_ERROR_STOP=1 -d "$2" < "$3" >> "$4" 2>&1' \
	    sh "$PG_BIN/psql" "$(pg_uri "$_db")" "$T/pg-lock.fifo" \
	    "$T/pg-lock.out" 3>&-
	LOCKER=$LAST_PID
	printf '%s\n' "SET idle_in_transaction_session_timeout = '30s';" \
	    "BEGIN;" "LOCK TABLE $_table IN EXCLUSIVE MODE;" "$@" \
	    "\\! touch '$T/pg-locked'" >&3
	wait_until 100 '[ -e "$T/pg-locked" ]' ||
	    bail "psql did not lock $_table: $(cat "$T/pg-lock.out")"
}

# pg_unlock [COMMIT|ROLLBACK]: ends pg_lock's transaction (COMMIT unless
# told) and its session.
pg_unlock() {
	echo "${1:-COMMIT};" >&3
	exec 3>&-
	wait "$LOCKER"
	stop_pid "$LOCKER"
}

# Stops the server by its data directory (pg_ctl signals the pid in its
# postmaster.pid, nothing else), then removes the data directory; the logs
# stay in $T/pg with the trash.  Does nothing when no server was started.
pg_stop() {
	[ -n "$PG_STARTED" ] || return 0
	PG_STARTED=
	pg_server_stop "$PGDATA_DIR"
}
at_cleanup pg_stop

# pg_server_stop DATA: pg_stop's work for the server of DATA.  A server
# that was killed (pg_kill9) is not signalled again: its pid may be
# another process's by now.
pg_server_stop() {
	_pid=$(pg_postmaster "$1")
	if [ -n "$_pid" ] && ! gone "$_pid"; then
		if ! (cd "$PG_DIR" && as_pg_user "$PG_BIN/pg_ctl" \
		    -D "$1" -m fast -w -t 30 stop) \
		    >> "$PG_DIR/pg_ctl.log" 2>&1; then
			# A server that will not stop is ended by its pid.
			echo "# pg_ctl stop failed; SIGQUIT to $_pid"
			kill -QUIT "$_pid" 2>/dev/null
		fi
	fi
	rm -rf "$1"
}

# pg_postmaster DATA: the pid in DATA's postmaster.pid, if any.
pg_postmaster() {
	[ -f "$1/postmaster.pid" ] && head -n 1 "$1/postmaster.pid"
}

# --- A second server: replication and failover ------------------------------

pg_standby() {
	[ -n "$PG_STARTED" ] || bail "pg_standby before pg_start"
	# Through the socket, as the server's user: trusted.  -R writes
	# standby.signal and primary_conninfo (the same socket and port).
	_sync=
	[ "$PG_FSYNC" = on ] || _sync=--no-sync
	(cd "$PG_DIR" && as_pg_user "$PG_BIN/pg_basebackup" -h "$PG_DIR" \
	    -p "$PG_PORT" -U postgres -D "$PG_STANDBY_DIR" -R -X stream \
	    -c fast $_sync) > "$PG_DIR/basebackup.log" 2>&1 ||
	    bail "pg_basebackup failed: $(tail -n 5 "$PG_DIR/basebackup.log")"
	PG_STANDBY_STARTED=1
	pg_server_start "$PG_STANDBY_DIR" "$PG_DIR/standby.log" "" \
	    -c cluster_name=standby1
	PG_STANDBY_PORT=$PG_SERVER_PORT
	wait_until 300 '[ "$(psql_q "SELECT count(*) FROM pg_stat_replication
	    WHERE application_name = '\''standby1'\''
	    AND state = '\''streaming'\''" postgres)" = 1 ]' ||
	    bail "the standby does not stream: $(tail -n 5 "$PG_DIR/standby.log")"
}

pg_standby_stop() {
	[ -n "$PG_STANDBY_STARTED" ] || return 0
	PG_STANDBY_STARTED=
	pg_server_stop "$PG_STANDBY_DIR"
}
at_cleanup pg_standby_stop

pg_sync_standby() {
	psql_q "ALTER SYSTEM SET synchronous_standby_names = 'standby1'" \
	    postgres && psql_q "SELECT pg_reload_conf()" postgres > /dev/null ||
	    bail "cannot set synchronous_standby_names"
	wait_until 100 '[ "$(psql_q "SELECT sync_state FROM pg_stat_replication
	    WHERE application_name = '\''standby1'\''" postgres)" = sync ]' ||
	    bail "standby1 is not synchronous"
}

pg_promote() {
	(cd "$PG_DIR" && as_pg_user "$PG_BIN/pg_ctl" -D "$PG_STANDBY_DIR" \
	    -w -t 60 promote) >> "$PG_DIR/pg_ctl.log" 2>&1
}

# The killed postmaster's children (backends, walsenders, checkpointer...)
# notice its death and exit by themselves, within moments; those still
# there when the test ends are ended by their pids.
PG_ORPHANS=
pg_kill9() {
	_pid=$(pg_postmaster "${1:-$PGDATA_DIR}")
	[ -n "$_pid" ] || bail "no postmaster.pid in ${1:-$PGDATA_DIR}"
	PG_ORPHANS="$PG_ORPHANS $(pgrep -P "$_pid" | tr '\n' ' ')"
	kill -KILL "$_pid"
}

pg_orphans_stop() {
	for _p in $PG_ORPHANS; do
		wait_until 100 "gone $_p" && continue
		# Still a postgres process (not a pid taken since)?
		grep -q '^postgres' "/proc/$_p/cmdline" 2>/dev/null &&
		    kill -KILL "$_p" 2>/dev/null
	done
	PG_ORPHANS=
}
at_cleanup pg_orphans_stop

pg_crash() {
	(cd "$PG_DIR" && as_pg_user "$PG_BIN/pg_ctl" -D "$PGDATA_DIR" \
	    -m immediate -w -t 30 stop) >> "$PG_DIR/pg_ctl.log" 2>&1 ||
	    bail "pg_ctl stop -m immediate failed"
}

pg_restart() {
	pg_server_start "$PGDATA_DIR" "$PG_DIR/server.log" "$PG_PORT"
}

pg_restart_immediate() {
	pg_crash
	pg_restart
}

pg_uri_hosts() {
	printf 'postgresql://postgres@127.0.0.1:%s,127.0.0.1:%s/checkpoints?target_session_attrs=read-write&connect_timeout=2' \
	    "$PG_PORT" "$PG_STANDBY_PORT"
}
