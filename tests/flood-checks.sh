# Shared by t5110 (SQLite) and t6257 (PostgreSQL): what a flood of
# requests can make the service store is bounded, and leaves with the
# results' expiry (checkpoint-api(7), "RETENTION").  Through lighttpd,
# every POST endpoint is sent 160 requests with distinct values a client
# chooses (unknown jobs, triggerIds, directories and paths, each long):
# checkpoint triggers, savepoints and stops of unknown jobs, savepoints
# of a registered job past its queue bound, and disposals of paths that
# are no savepoint.  Then two runner passes a store duration apart: the
# first settles what waits, the second purges.  The database's used size
# must then be back within 64 KiB of what it was before the flood.
# Sourced by a test that sets STORE (sqlite or pg).

. "$(dirname "$0")/lib.sh"
if [ "$STORE" = pg ]; then
	. "$(dirname "$0")/pg.sh"
fi
for c in lighttpd curl sqlite3; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing"
done
unset CHECKPOINT_STORE_DURATION CHECKPOINT_MAX_BODY CHECKPOINT_CORS_ORIGIN \
    CHECKPOINT_REJECT_UNKNOWN_JOBS CHECKPOINT_BUSY_TIMEOUT CHECKPOINT_SYNC

if [ "$STORE" = pg ]; then
	pg_start
	pg_app_db flood
	sql() {
		pg_sql "$1"
	}
	# Live rows' bytes, every table: PostgreSQL frees pages by VACUUM.
	used() {
		sql "SELECT sum(n) FROM (
		    SELECT coalesce(sum(pg_column_size(t.*)), 0) AS n FROM triggers t
		    UNION ALL SELECT coalesce(sum(pg_column_size(s.*)), 0)
		    FROM savepoints s
		    UNION ALL SELECT coalesce(sum(pg_column_size(d.*)), 0)
		    FROM savepoint_disposals d
		    UNION ALL SELECT coalesce(sum(pg_column_size(h.*)), 0)
		    FROM checkpoint_history h) AS u"
	}
else
	export CHECKPOINT_DB=$DB
	# The pages in use: a deleted row's pages go to the free list.
	used() {
		sql "SELECT (SELECT page_count FROM pragma_page_count)
		    - (SELECT freelist_count FROM pragma_freelist_count)" |
		    awk -v size="$(sql 'PRAGMA page_size')" '{ print $1 * size }'
	}
fi
"$CTL" --db "$CHECKPOINT_DB" init > /dev/null || bail "checkpointctl init"
[ "$STORE" = pg ] || share_dir "$T"
if [ "$STORE" != pg ] && [ "$(id -u)" -eq 0 ]; then
	chown "$RUN_USER:$RUN_GROUP" "$DB" || bail "chown $DB"
fi
JB=fedcba9876543210fedcba9876543210
"$CTL" --db "$CHECKPOINT_DB" job add "$JB" --savepoint-dir file:/tmp/sp \
    > /dev/null || bail "checkpointctl job add"
export CHECKPOINT_MAX_QUEUED=3
start_server 2>>"$T/server-stderr.log"

# A value of n bytes of a client's choosing, the i-th.
long() {
	printf '%s-%0*d' "$1" "$2" "$3"
}
# post N KIND: N POSTs of the kind, 8 at once, each distinct.
post() {
	i=0
	pids=
	while [ $i -lt "$1" ]; do
		job=$(printf 'f1%030x' "$i")
		case $2 in
		trigger) path=/jobs/$job/checkpoints body='{}' ;;
		savepoint) path=/jobs/$job/savepoints
			body="{\"target-directory\":\"$(long file:/tmp/sp 1500 $i)\"}" ;;
		stop) path=/jobs/$job/stop
			body="{\"targetDirectory\":\"$(long file:/tmp/st 1500 $i)\"}" ;;
		queued) path=/jobs/$JB/savepoints
			body="{\"triggerId\":\"$(printf '%032x' $((i + 1)))\"}" ;;
		dispose) path=/savepoint-disposal
			body="{\"savepoint-path\":\"$(long file:/nowhere 1500 $i)\"}" ;;
		esac
		curl -s -o /dev/null -X POST -d "$body" "$BASE$path" &
		pids="$pids $!"
		if [ $((i % 8)) -eq 7 ]; then
			wait $pids
			pids=
		fi
		i=$((i + 1))
	done
	# Never a bare wait: it would wait for the web server too.
	[ -z "$pids" ] || wait $pids
}

before=$(used)
for kind in trigger savepoint stop queued dispose; do
	post 160 "$kind"
done
flooded=$(used)
ok "$([ "$flooded" -gt $((before + 100000)) ] && echo 0 || echo 1)" \
    "the flood was stored: $before bytes used, then $flooded"
# On PostgreSQL each process records its batch beside the others', and
# each may add one past the bound (checkpoint-api.fcgi(8)).
n=$(sql "SELECT count(*) FROM savepoints WHERE job_id = '$JB'
    AND status = 'IN_PROGRESS'")
most=3
[ "$STORE" = pg ] && most=$((3 + ${CHECKPOINT_PROCS:-2} - 1))
ok "$([ "$n" -ge 3 ] && [ "$n" -le "$most" ] && echo 0 || echo 1)" \
    "  the registered job: $n savepoints waiting, 3 to $most"

sleep 1.1
stop_server
pass() {
	CHECKPOINT_STORE_DURATION=1 "$RUNNER" --db "$CHECKPOINT_DB" \
	    > "$T/runner.out" 2>&1 ||
	    bail "checkpoint-runner: $(cat "$T/runner.out")"
}
pass
sleep 1.1
pass
after=$(used)
ok "$([ "$after" -le $((before + 65536)) ] && echo 0 || echo 1)" \
    "after the results' expiry: $after bytes used, within 64 KiB of $before"
for t in triggers savepoint_disposals; do
	is "$(sql "SELECT count(*) FROM $t")" 0 "  no row left in $t"
done
is "$(sql "SELECT count(*) FROM savepoints WHERE job_id <> '$JB'")" 0 \
    "  no savepoint of an unknown job left"
done_testing
