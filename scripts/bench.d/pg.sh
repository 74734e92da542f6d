# scripts/bench --stage pg: the app on the PostgreSQL store, sourced by
# scripts/bench after its helpers (port, wrk_run, start_nginx,
# start_lighttpd, stop_server, ticks, busy_ticks, MED_AWK) and settings
# (W, RAW, ROOT, JOB, GETN, ROUNDS, DURATION, THREADS, PROCS, PIDS,
# PG_HOOKS).  pg_stage measures, pg_report prints its part of the report.
#
# It starts a throwaway cluster of its own (tests/pg.sh, the tests'
# helper, in the bench's scratch directory): fsync and synchronous_commit
# on, listening on its Unix socket and 127.0.0.1 only; everything here
# reaches it by the socket.  checkpointctl init makes the schema.  Then,
# round by round (A B A B, as the web stage alternates), at 16
# connections:
#   - the POST ceiling: pgbench running the store's own upsert, one row a
#     transaction, 16 clients (scripts/bench.d/upsert.sql): what
#     PostgreSQL does when every POST commits alone.  The app's group
#     commit should beat it (target 1.5 times);
#   - for nginx (kept FastCGI connections, 64 threads) and lighttpd (PROCS
#     processes of THREADS threads): the app with CHECKPOINT_DB a
#     postgresql:// URI, GET of GETN existing triggers and POST with
#     fresh triggerIds (synchronous=FULL: a 202 only after the commit is
#     on disk), then the same server in front of tests/fcgi-hello, the
#     GET ceiling of the web stage (target 0.6 of it).  CEILING=PROGRAM,
#     as in the web stage, puts another build's checkpoint-api.fcgi in
#     fcgi-hello's place: an A/B of two builds.  It gets a database of
#     its own in the same cluster (ceiling), made by CEILING_CTL (the
#     web stage's: that build's checkpointctl) and seeded as the app's,
#     since a build refuses a schema newer than its own.
# During the app's runs it samples pg_stat_activity (5 times a second)
# for the connections the server saw, and after each POST run it counts
# the transactions that recorded the run's triggers (their distinct
# xmin): the committer's batches.  Last, in a fresh database, the
# runner's --watch latency from 202 to COMPLETED over PG_WATCH_N
# triggers posted one at a time at a steady rate (target p99 < 50 ms).

PG_WATCH_N=${PG_WATCH_N:-300}
PG_CONNS=16

# What tests/pg.sh needs from tests/lib.sh, the bench's way.
T=$W
bail() {
	echo "bench: $*" >&2
	exit 1
}
free_port() {
	port
}
at_cleanup() {
	PG_HOOKS="$1 $PG_HOOKS"
}
# gone PID: true once PID has ended (as tests/lib.sh's).
gone() {
	[ -n "$1" ] || return 1
	[ -r "/proc/$1/stat" ] || return 0
	_st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)
	[ -z "$_st" ] || [ "$_st" = Z ] || [ "$_st" = X ]
}
# Durable, as a production server: the ceiling and the app pay for the
# same syncs.
PG_SERVER_OPTS="-c fsync=on -c synchronous_commit=on -c full_page_writes=on"
. tests/pg.sh

# pg_sock_uri DB: DB by the cluster's Unix socket (trusted; no password).
pg_sock_uri() {
	printf 'postgresql:///%s?host=%s&port=%s&user=postgres' "$1" \
	    "$PG_DIR" "$PG_PORT"
}

# pg_q DB SQL: one value or row, unaligned.  The bench's own connections
# are named scripts/bench (application_name), which the counts leave out.
pg_q() {
	PGAPPNAME=scripts/bench "$PG_BIN/psql" -X -q -A -t -v ON_ERROR_STOP=1 \
	    -d "$(pg_sock_uri "$1")" -c "$2"
}

# CPU ticks of the server: the postmaster, its processes (backends, WAL
# writer, checkpointer...), and those of its processes that have ended
# (pgbench's backends end with its run), which the postmaster reaped.
pg_ticks() {
	echo $(( $(awk '{ print $14 + $15 + $16 + $17 }' "/proc/$PG_PID/stat") +
	    $(ticks $(pgrep -P "$PG_PID")) ))
}

# sample_start DB: one connection of the bench's (psql's \watch) that
# appends to $W/pg-conns.txt, 5 times a second until sample_stop, "count
# names" of the other client connections to DB (names: their
# application_name, '-' when empty).
sample_start() {
	printf '%s\n' "SELECT count(*) || ' ' || coalesce(string_agg(
	    coalesce(nullif(application_name, ''), '-'), ','
	    ORDER BY application_name), '') FROM pg_stat_activity
	    WHERE datname = '$1' AND backend_type = 'client backend'
	    AND application_name <> 'scripts/bench' \\watch 0.2" |
	    PGAPPNAME=scripts/bench "$PG_BIN/psql" -X -q -A -t \
	    -d "$(pg_sock_uri "$1")" >> "$W/pg-conns.txt" 2>/dev/null &
	SAMPLE_PID=$!
	PIDS="$PIDS $SAMPLE_PID"
}
sample_stop() {	# $1: the label under which the peak is recorded
	kill "$SAMPLE_PID" 2>/dev/null
	wait "$SAMPLE_PID" 2>/dev/null
	sort -n "$W/pg-conns.txt" | tail -n 1 |
	    awk -v l="$1" 'NF { print "pgconns", l, $1, ($2 == "" ? "-" : $2) }' >> "$RAW"
	: > "$W/pg-conns.txt"
}

# pg_wrk LABEL METHOD: wrk_run at PG_CONNS connections, then the server's
# CPU ticks for it ("pgcpu LABEL METHOD ticks requests").
pg_wrk() {
	p0=$(pg_ticks)
	wrk_run "$1" "$PG_CONNS" "$2"
	p1=$(pg_ticks)
	tail -n 1 "$RAW" | awk -v t=$((p1 - p0)) '{ print "pgcpu", $1, $3, t, $7 }' >> "$RAW"
}

# The pgbench ceiling: "pgbench upsert tps p99ms p50ms transactions
# server-ticks machine-ticks".
pg_ceiling() {
	pg_q checkpoints "CHECKPOINT" >/dev/null
	rm -f "$W"/pgb.*
	p0=$(pg_ticks) bt0=$(busy_ticks)
	(cd "$W" && "$PG_BIN/pgbench" -n -M prepared -c "$PG_CONNS" -j 2 \
	    -T "$DURATION" -D job="$JOB" -f "$ROOT/scripts/bench.d/upsert.sql" \
	    -l --log-prefix=pgb "$(pg_sock_uri checkpoints)") > "$W/pgbench.out" 2>&1 ||
	    { cat "$W/pgbench.out" >&2; bail "pgbench failed"; }
	p1=$(pg_ticks) bt1=$(busy_ticks)
	tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$W/pgbench.out")
	# The per-transaction log: latency in µs is the third field.
	cat "$W"/pgb.* | awk '{ print $3 }' | sort -n > "$W/pgb-lat.txt"
	awk -v tps="$tps" -v t="$((p1 - p0)) $((bt1 - bt0))" '{ a[NR] = $1 } END {
		printf "pgbench upsert %.0f %.2f %.2f %d %s\n", tps,
		    a[int(NR * 0.99) + 1] / 1000, a[int(NR * 0.5) + 1] / 1000, NR, t
	}' "$W/pgb-lat.txt" >> "$RAW"
}

# After a POST run: "pgbatch LABEL rows transactions largest" for the
# triggers recorded since id $1 (each transaction's rows share its xmin).
pg_batches() {
	pg_q checkpoints "SELECT '$2', sum(n), count(*), max(n) FROM
	    (SELECT count(*) AS n FROM triggers WHERE id > $1
	     GROUP BY xmin::text) AS b" |
	    awk -F'|' '{ print "pgbatch", $1, $2 + 0, $3 + 0, $4 + 0 }' >> "$RAW"
}

# pg_seed DB CTL: DB's schema made by CTL (a checkpointctl), with GETN
# known triggers of JOB for the GET runs.
pg_seed() {
	"$2" --db "$(pg_sock_uri "$1")" init >/dev/null ||
	    bail "$2 init --db (the PostgreSQL store, $1) failed"
	pg_q "$1" "INSERT INTO triggers (job_id, trigger_id,
	    requested_type, created_ms) SELECT '$JOB', lpad(to_hex(i), 32, '0'),
	    'CONFIGURED', 0 FROM generate_series(1, $GETN) AS i" >/dev/null ||
	    bail "seeding the GET triggers of $1 failed"
	pg_q "$1" "VACUUM ANALYZE" >/dev/null
}

pg_stage() {
	echo "== PostgreSQL: a throwaway cluster, fsync and synchronous_commit on"
	pg_start
	PG_PID=$(head -n 1 "$PGDATA_DIR/postmaster.pid")
	unset CHECKPOINT_SYNC
	pg_q postgres "SELECT 'pgserver',
	    split_part(current_setting('server_version'), ' ', 1),
	    current_setting('fsync'), current_setting('synchronous_commit')" |
	    tr '|' ' ' >> "$RAW"
	export CHECKPOINT_DB
	pg_seed checkpoints cgi/checkpointctl
	if [ -n "${CEILING:-}" ]; then
		pg_q postgres "CREATE DATABASE ceiling" >/dev/null ||
		    bail "CREATE DATABASE ceiling"
		pg_seed ceiling "$CEILING_CTL"
	fi
	CHECKPOINT_DB=$(pg_sock_uri checkpoints)
	r=1
	while [ "$r" -le "$ROUNDS" ]; do
		pg_ceiling
		echo "   round $r pgbench done"
		for srv in nginx lighttpd; do
			for target in app ceiling; do
				CHECKPOINT_DB=$(pg_sock_uri checkpoints)
				if [ $target = app ]; then
					cmd=$ROOT/cgi/checkpoint-api.fcgi
				else
					cmd=${CEILING:-$ROOT/tests/fcgi-hello}
					[ -n "${CEILING:-}" ] &&
					    CHECKPOINT_DB=$(pg_sock_uri ceiling)
				fi
				if [ $srv = lighttpd ]; then
					start_lighttpd "$cmd -t $THREADS"
				else
					start_nginx "$cmd"
				fi
				[ $target = app ] && sample_start checkpoints
				pg_wrk "pg-$srv-$target" GET
				if [ $target = app ]; then
					pg_q checkpoints "CHECKPOINT" >/dev/null
					id0=$(pg_q checkpoints "SELECT coalesce(max(id), 0) FROM triggers")
				fi
				pg_wrk "pg-$srv-$target" POST
				if [ $target = app ]; then
					sample_stop "$srv"
					pg_batches "$id0" "$srv"
				fi
				stop_server
				echo "   round $r $srv $target done"
			done
		done
		r=$((r + 1))
	done

	echo "== PostgreSQL: watch mode, 202 to COMPLETED ($PG_WATCH_N triggers, one at a time)"
	pg_watch || echo "pgwatchskip $PG_WATCH_WHY" >> "$RAW"
	unset CHECKPOINT_DB
	pg_stop
	echo "   done"
}

# Watch mode on a fresh database: the runner (--watch) beside lighttpd,
# PG_WATCH_N POSTs one at a time 20 ms apart; "pgwatch N seconds"
# and the latencies in $W/pg-lat.txt.  Returns 1 with PG_WATCH_WHY when
# it could not be measured.
pg_watch() {
	pg_q postgres "CREATE DATABASE watch" >/dev/null || bail "CREATE DATABASE watch"
	CHECKPOINT_DB=$(pg_sock_uri watch)
	if ! cgi/checkpointctl --db "$CHECKPOINT_DB" init >/dev/null 2>"$W/ctl.err" ||
	    ! cgi/checkpointctl --db "$CHECKPOINT_DB" job add "$JOB" >/dev/null 2>"$W/ctl.err"; then
		PG_WATCH_WHY="checkpointctl init or job add failed: $(head -n 1 "$W/ctl.err")"
		return 1
	fi
	start_lighttpd "$ROOT/cgi/checkpoint-api.fcgi"
	cgi/checkpoint-runner --db "$CHECKPOINT_DB" --watch --log-level warn \
	    2>"$W/runner.err" &
	WATCH_PID=$!
	PIDS="$PIDS $WATCH_PID"
	sleep 0.5
	sample_start watch
	t0=$(date +%s%N)
	i=0
	while [ $i -lt "$PG_WATCH_N" ]; do
		curl -s -o /dev/null -X POST -d '' "http://127.0.0.1:$PORT/jobs/$JOB/checkpoints"
		sleep 0.02
		i=$((i + 1))
	done
	t1=$(date +%s%N)
	sleep 1
	sample_stop watch
	if ! kill -0 "$WATCH_PID" 2>/dev/null; then
		wait "$WATCH_PID"
		PG_WATCH_WHY="checkpoint-runner --watch exited ($?): $(head -n 1 "$W/runner.err")"
		stop_server
		return 1
	fi
	pg_watch_idle=$(awk '{ print $14 + $15 }' "/proc/$WATCH_PID/stat")
	sleep 5
	pg_watch_idle=$(( $(awk '{ print $14 + $15 }' "/proc/$WATCH_PID/stat") - pg_watch_idle ))
	echo "pgwatchidle $pg_watch_idle" >> "$RAW"
	kill "$WATCH_PID"
	wait "$WATCH_PID" 2>/dev/null
	stop_server
	echo "pgwatch $PG_WATCH_N $(( (t1 - t0) / 1000000 ))" >> "$RAW"
	pg_q watch "SELECT completed_ms - created_ms FROM triggers
	    WHERE status = 'COMPLETED' ORDER BY 1" > "$W/pg-lat.txt"
	pg_q watch "SELECT count(*) FROM triggers WHERE status <> 'COMPLETED'" |
	    awk '{ print "pgwatchleft", $1 }' >> "$RAW"
}

# The expected connections of one host: each FastCGI process holds its
# committer's (the writer) and its read pool's, min(threads, CPUs)
# (api_main.c, serve_fcgi), and each runner one.
pg_expected() {	# $1: processes, $2: threads each, $3: runners
	c=$(nproc 2>/dev/null || echo 1)
	r=$(( $2 < c ? $2 : c ))
	echo $(( $1 * (1 + r) + $3 ))
}

pg_report() {
	grep -q '^pgbench ' "$RAW" || return 0
	set -- $(sed -n 's/^pgserver //p' "$RAW")
	echo "## The PostgreSQL store: PostgreSQL $1, fsync=$2, synchronous_commit=$3, by its Unix socket"
	echo
	echo "A throwaway cluster on this host, defaults otherwise. At $PG_CONNS connections, wrk -t1, ${DURATION}s a run, median [min-max] of $ROUNDS round(s), pgbench, then each server with the app and with the ceiling, alternated. POST is durable (CHECKPOINT_SYNC=FULL: a 202 once the commit is on disk), with a fresh triggerId a request; GET reads $GETN existing triggers."
	echo
	awk "$MED_AWK"'
	$1 == "pgbench" { t[++n] = $3; p[n] = $4; q[n] = $5 }
	END {
		printf "POST ceiling: pgbench -M prepared -c 16 -j 2, the store'"'"'s upsert (scripts/bench.d/upsert.sql), one row a transaction: %.0f tx/s [%.0f-%.0f], p50 %.2f ms, p99 %.2f ms.\n",
		    med(t, n), t[1], t[n], med(q, n), med(p, n)
	}' "$RAW"
	# Against another build (CEILING) its columns are named for it.
	cname=fcgi-hello
	[ -n "${CEILING:-}" ] && cname="other build"
	if [ -n "${CEILING:-}" ]; then
		echo "GET and POST ceiling: $CEILING (another build), behind the same server, on a database of its own in the same cluster, made by $CEILING_CTL and seeded as the app's."
	else
		echo "GET ceiling: tests/fcgi-hello behind the same server, as in the web stage."
	fi
	echo
	echo "\"ratio\" is the app's median over the ceiling's; \"paired\" the median [min-max] of each round's app over the same round's ceiling."
	echo
	echo "| server | request | app req/s | ceiling | ceiling req/s | ratio | paired | target | app p99 ms | ceiling p99 ms | non-2xx |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|"
	for srv in nginx lighttpd; do
		for m in GET POST "POST hello"; do
			awk -v s="$srv" -v m="$m" -v cname="$cname" "$MED_AWK"'
			$1 == "pg-" s "-app" && $3 == substr(m, 1, index(m " ", " ") - 1) { a[++na] = $4; ap[na] = $5; bad += $6 }
			m == "GET" && $1 == "pg-" s "-ceiling" && $3 == "GET" { k[++nk] = $4; kp[nk] = $5 }
			m == "POST" && $1 == "pgbench" { k[++nk] = $3; kp[nk] = $4 }
			m == "POST hello" && $1 == "pg-" s "-ceiling" && $3 == "POST" { k[++nk] = $4; kp[nk] = $5 }
			END {
				if (!na || !nk) exit
				for (i = 1; i <= na && i <= nk; i++)
					pr[++np] = k[i] > 0 ? a[i] / k[i] : 0
				p = med(pr, np)
				x = med(a, na); y = med(k, nk); r = y > 0 ? x / y : 0
				if (m == "GET") { c = cname; g = sprintf(">= 0.6 (%s)", r >= 0.6 ? "met" : "not met") }
				else if (m == "POST") { c = "pgbench upsert"; g = sprintf(">= 1.5 (%s)", r >= 1.5 ? "met" : "not met") }
				else { c = cname; g = "-" }
				printf "| %s | %s | %.0f [%.0f-%.0f] | %s | %.0f [%.0f-%.0f] | %.2f | %.2f [%.2f-%.2f] | %s | %.2f | %.2f | %d |\n",
				    s, (m == "POST hello" ? "POST" : m), x, a[1], a[na], c, y, k[1], k[nk], r, p, pr[1], pr[np], g, med(ap, na), med(kp, nk), bad
			}' "$RAW"
		done
	done
	echo
	hz=$(getconf CLK_TCK)
	echo "Where the CPU goes: microseconds of CPU a request or transaction (user + system, from /proc, $hz ticks/s; median of the rounds); \"PostgreSQL\" is the postmaster and its processes, \"rest\" the machine's other busy time (wrk or pgbench, interrupts, anything else running)."
	echo
	echo "| run | web server | responder | PostgreSQL | rest | total |"
	echo "|---|---|---|---|---|---|"
	awk -v hz="$hz" -v cname="$cname" "$MED_AWK"'
	$1 == "pgbench" && $6 > 0 {
		k = 1e6 / hz / $6; n["pgbench"]++; j = n["pgbench"]
		w["pgbench", j] = 0; f["pgbench", j] = 0; g["pgbench", j] = $7 * k
		o["pgbench", j] = ($8 - $7) * k; t["pgbench", j] = $8 * k
	}
	$1 ~ /^pg-.*-(app|ceiling)$/ && ($3 == "GET" || $3 == "POST") && $7 > 0 { l = $1 " " $3; k = 1e6 / hz / $7; n[l]++; j = n[l]
		w[l, j] = $8 * k; f[l, j] = $9 * k; t[l, j] = $10 * k }
	$1 == "pgcpu" { l = $2 " " $3; pc[l] = pc[l] " " ($5 > 0 ? $4 * 1e6 / hz / $5 : 0) }
	END {
		no = split("pgbench,pg-nginx-app GET,pg-nginx-ceiling GET,pg-nginx-app POST,pg-nginx-ceiling POST,pg-lighttpd-app GET,pg-lighttpd-ceiling GET,pg-lighttpd-app POST,pg-lighttpd-ceiling POST", order, ",")
		for (x = 1; x <= no; x++) {
			l = order[x]
			if (!n[l]) continue
			if (l != "pgbench") {
				split(pc[l], pp, " ")
				for (j = 1; j <= n[l]; j++) {
					g[l, j] = pp[j]; o[l, j] = t[l, j] - w[l, j] - f[l, j] - pp[j]
				}
			}
			for (j = 1; j <= n[l]; j++) {
				a1[j] = w[l, j]; a2[j] = f[l, j]; a3[j] = g[l, j]; a4[j] = o[l, j]; a5[j] = t[l, j]
			}
			name = l == "pgbench" ? "pgbench upsert (a transaction)" : l
			sub(/^pg-/, "", name); sub(/-app /, " app ", name)
			sub(/-ceiling /, " " cname " ", name)
			printf "| %s | %.0f | %.0f | %.0f | %.0f | %.0f |\n", name,
			    med(a1, n[l]), med(a2, n[l]), med(a3, n[l]), med(a4, n[l]), med(a5, n[l])
		}
	}' "$RAW"
	echo
	echo "The committer's transactions during the app's POST runs (the rows of a run grouped by their xmin): rows a commit, mean [the largest batch]; pgbench commits one row each."
	echo
	awk '$1 == "pgbatch" && $4 > 0 {
		s[$2] = s[$2] sprintf("%s%.1f [%d]", s[$2] == "" ? "" : ", ", $3 / $4, $5)
	} END {
		for (x in s) printf "- %s: %s (round by round)\n", x, s[x]
	}' "$RAW" | sort
	echo
	e=$(pg_expected 1 64 0)
	l=$(pg_expected "$PROCS" "$THREADS" 0)
	w=$(pg_expected 1 16 1)
	echo "Connections PostgreSQL saw (pg_stat_activity, client backends of the database, sampled 5 times a second during the app's runs: the largest count, and their application_name) against what one host should hold at most: M FastCGI processes x (1 writer, the committer's, + min(threads, $(nproc) CPUs) readers, the read pool's, opened as GETs first need them) + 1 a runner. Watch mode only POSTs, so no reader is opened there."
	echo
	echo "| deployment | peak seen | expected, at most | names at the peak |"
	echo "|---|---|---|---|"
	awk -v e="$e" -v l="$l" -v w="$w" -v procs="$PROCS" -v th="$THREADS" '
	$1 == "pgconns" && ($3 > m[$2] || !($2 in nm)) { m[$2] = $3; nm[$2] = $4 }
	END {
		if ("nginx" in m) printf "| nginx: 1 process of 64 threads | %d | %d | %s |\n", m["nginx"], e, nm["nginx"]
		if ("lighttpd" in m) printf "| lighttpd: %d process(es) of %d threads | %d | %d | %s |\n", procs, th, m["lighttpd"], l, nm["lighttpd"]
		if ("watch" in m) printf "| lighttpd: 1 process of 16 threads, and 1 runner --watch | %d | %d | %s |\n", m["watch"], w, nm["watch"]
	}' "$RAW"
	echo
	if grep -q '^pgwatchskip ' "$RAW"; then
		echo "Watch mode was not measured: $(sed -n 's/^pgwatchskip //p' "$RAW")."
		echo
	elif [ -s "$W/pg-lat.txt" ]; then
		set -- $(sed -n 's/^pgwatch //p' "$RAW")
		left=$(sed -n 's/^pgwatchleft //p' "$RAW")
		awk -v left="${left:-0}" -v n="$1" -v ms="$2" '{ a[NR] = $1 } END {
			p = a[int(NR * 0.99) + 1]
			printf "Watch mode (checkpoint-runner --watch), 202 to COMPLETED (created_ms to completed_ms) over %d triggers posted one at a time through lighttpd, 20 ms apart (%.0f a second): p50 %d ms, p99 %d ms (target < 50 ms: %s), max %d ms; %d of %d left not completed.",
			    NR, n * 1000 / ms, a[int(NR * 0.5) + 1], p, p < 50 ? "met" : "not met", a[NR], left, n
		}' "$W/pg-lat.txt"
		echo " Idle watcher CPU over 5 s: $(sed -n 's/^pgwatchidle //p' "$RAW") clock ticks."
		echo
	fi
}
