# Sourced by the bench's stage scripts that load the app behind lighttpd
# (savepoints.sh, flood.sh, fleet-lists.sh): the store, made and seeded;
# lighttpd started as scripts/lighttpd.conf starts the app (one process
# of 16 threads); and one wrk run summed up as a line.  The caller sets W (its
# scratch directory), APP (the checkpoint-api.fcgi to load), CONNS,
# DURATION, STAGE_NAME and PG_HOOKS, and stops the server it started
# (SERVER_PID) and runs PG_HOOKS at its exit.
SERVER_PID=

# start_app DB: lighttpd in front of the app on DB, on PORT.
start_app() {
	export CHECKPOINT_DB=$1
	export CHECKPOINT_HOME=$W/lighttpd CHECKPOINT_FCGI="$APP -t 16"
	export CHECKPOINT_PROCS=1
	mkdir -p "$CHECKPOINT_HOME/www" "$CHECKPOINT_HOME/tmp"
	PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	export PORT
	lighttpd -D -f scripts/lighttpd.conf &
	SERVER_PID=$!
	i=0
	until curl -s -o /dev/null "http://127.0.0.1:$PORT/"; do
		i=$((i + 1))
		[ $i -gt 200 ] && { echo "$STAGE_NAME: lighttpd did not start" >&2; exit 1; }
		sleep 0.05
	done
}

stop_app() {
	kill "$SERVER_PID" 2>/dev/null
	wait "$SERVER_PID" 2>/dev/null
	SERVER_PID=
}

# wrk_line LABEL SCRIPT ARG...: wrk with the Lua SCRIPT and its ARGs
# against the app; prints "LABEL REQUESTS/S P99-MS NON-2XX", appended to
# $W/raw too.
wrk_line() {
	_label=$1 _script=$2
	shift 2
	wrk -t1 -c"$CONNS" -d"${DURATION}s" --timeout 10s --latency \
	    -s "$_script" "http://127.0.0.1:$PORT" -- "$@" > "$W/wrk.out" 2>&1
	awk -v label="$_label" '
	function ms(v) {
		if (v ~ /us$/) return v / 1000
		if (v ~ /ms$/) return v + 0
		if (v ~ /s$/) return v * 1000
		return v
	}
	/Requests\/sec/ { rps = $2 }
	/^ +99%/ { p99 = ms($2) }
	/Non-2xx/ { bad = $5 }
	END { printf "%s %.0f %.2f %d\n", label, rps, p99, bad + 0 }
	' "$W/wrk.out" | tee -a "$W/raw"
}

# A run tag of 8 hex digits, new each call, for post.lua's triggerIds.
run_tag() {
	printf '%08x' "$(( $(date +%s%N) / 1000 % 4294967296 ))"
}

# make_store STORE [JOB]: a new store of kind STORE (sqlite, or
# postgresql on a throwaway cluster of scripts/bench.d/cluster.sh) into
# db, JOB registered if given, seeded with SEED_SQLITE or SEED_PG; false
# when this build has no such store, and says so.
make_store() {
	case $1 in
	sqlite)
		db=$W/bench.db
		cgi/checkpointctl --db "$db" init >/dev/null || exit 1
		;;
	postgresql)
		grep -q '^#define HAVE_LIBPQ 1' config.h || {
			echo "$STAGE_NAME: no PostgreSQL store in this build" >&2
			return 1
		}
		. scripts/bench.d/cluster.sh
		pg_start
		at_cleanup pg_stop
		db="postgresql:///checkpoints?host=$PG_DIR&port=$PG_PORT&user=postgres"
		cgi/checkpointctl --db "$db" init >/dev/null || exit 1
		;;
	*)
		echo "$STAGE_NAME: STORES: $1 is neither sqlite nor postgresql" >&2
		exit 2
		;;
	esac
	if [ -n "${2:-}" ]; then
		cgi/checkpointctl --db "$db" job add "$2" >/dev/null || exit 1
	fi
	if [ "$1" = sqlite ]; then
		sqlite3 "$db" "$SEED_SQLITE" || exit 1
	else
		psql_q "$SEED_PG" >/dev/null || exit 1
		psql_q "VACUUM ANALYZE" >/dev/null || exit 1
	fi
}

# An awk function for the summaries: med(a, n), the median of a[1..n].
AWK_MED='function med(a, n,   i, j, t) {
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
		if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}'
