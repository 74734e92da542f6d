# Shared by the tests of checkpointctl migrate (t2100, SQLite to SQLite;
# t6400, SQLite to PostgreSQL), sourced after lib.sh: a source database
# with every kind of row a store holds, and what the operator and the API
# see of a database, to compare a copy with its source.
# shellcheck disable=SC2016

for c in sqlite3 cgi-fcgi md5sum; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing"
done
unset CHECKPOINT_MAX_BODY CHECKPOINT_CORS_ORIGIN CHECKPOINT_REJECT_UNKNOWN_JOBS \
    CHECKPOINT_BUSY_TIMEOUT CHECKPOINT_SYNC CHECKPOINT_HISTORY \
    CHECKPOINT_METRICS CHECKPOINT_METRICS_FILTER
# Results stay readable 5 minutes: fill_source ages one past that.
export CHECKPOINT_STORE_DURATION=300

J1=a1b2c3d4e5f60718293a4b5c6d7e8f90 # an action: completes, fails, is claimed
J2=0123456789abcdef0123456789abcdef # no action: completes at once
J3=33333333333333333333333333333333 # SUSPENDED: its triggers fail
J4=44444444444444444444444444444444 # removed: its counter and counts stay
NOJOB=99999999999999999999999999999999
JOBS="$J1 $J2 $J3 $J4 $NOJOB"
RLOG=$T/runner.log

tid() {
	printf '%032x' "$1"
}

# at DB CMD...: CMD with CHECKPOINT_DB=DB.
at() {
	_db=$1
	shift
	CHECKPOINT_DB=$_db "$@"
}


# dump DB [WHERE]: every table of a SQLite database, every column, NULLs
# and types as SQL literals; the triggers WHERE holds, in row order.
dump() {
	sqlite3 -batch -cmd '.mode quote' "$1" "
	SELECT * FROM jobs ORDER BY job_id;
	SELECT * FROM checkpoint_counters ORDER BY job_id;
	SELECT * FROM checkpoint_stats ORDER BY job_id;
	SELECT * FROM service_metrics;
	SELECT * FROM triggers WHERE ${2:-1} ORDER BY id"
}

# app_on DB: the app on $SOCK, serving DB; stop it with stop_pid "$APP".
app_on() {
	CHECKPOINT_DB=$1
	start_app "" 2>>"$T/app.log"
	CHECKPOINT_DB=$DB
}

# post_to TID JOB [BODY-EXTRA]: a trigger recorded through the app on $SOCK.
post_to() {
	_a=$(fcgi_raw POST "/jobs/$2/checkpoints" \
	    "{\"triggerId\":\"$(tid "$1")\"${3:-}}" | status_body)
	[ "$_a" = "202 {\"request-id\":\"$(tid "$1")\"}" ] ||
	    diag "POST $2 $1: $_a"
}

# claim DB N LEASE: trigger N claimed by a runner on another host, with the
# job's next id, its lease ending LEASE ms from now.
claim() {
	_now=$(now_ms)
	sqlite3 "$1" "UPDATE checkpoint_counters SET last_id = last_id + 1
	    WHERE job_id = (SELECT job_id FROM triggers
	    WHERE trigger_id = '$(tid "$2")');
	UPDATE triggers SET claimed_by = 'elsewhere:4242:1', claimed_ms = $_now,
	    lease_ms = $((_now + $3)), checkpoint_type = 'INCREMENTAL',
	    checkpoint_id = (SELECT last_id FROM checkpoint_counters
	    WHERE job_id = triggers.job_id) WHERE trigger_id = '$(tid "$2")'" ||
	    bail "sqlite3 on $1"
}

# fill_source DB: jobs of every kind (one bound to a JobManager, not
# RUNNING: no runner asks it; one bookkeeping only), triggers completed, failed (declined,
# expired and job not found), pending, claimed by a runner elsewhere and expired,
# a runner's pass recorded, a removed job's counter and counts.  Sets
# EXPIRED, the trigger id whose result has expired.
fill_source() {
	init_db "$1"
	at "$1" "$CTL" job add "$J1" --name 'orders é "q"' --type INCREMENTAL \
	    --timeout 30 --command 'if [ "$CHECKPOINT_ID" = 2 ]; then
	    echo no space >&2; exit 3; fi; echo "/snap/$CHECKPOINT_ID"' &&
	    at "$1" "$CTL" job add "$J2" --name plain --bookkeeping-only yes &&
	    at "$1" "$CTL" job add "$J3" --name held &&
	    at "$1" "$CTL" job set "$J3" --state SUSPENDED \
	    --flink http://jobmanager.example:8081 &&
	    at "$1" "$CTL" job add "$J4" --name gone ||
	    bail "checkpointctl job add on $1"
	app_on "$1"
	post_to 1 "$J1"
	post_to 2 "$J1" ',"checkpointType":"FULL"'
	post_to 3 "$J1"
	post_to 4 "$J2"
	post_to 5 "$J2" ',"checkpointType":"INCREMENTAL"'
	post_to 6 "$J3"
	post_to 7 "$NOJOB"
	post_to 8 "$J4"
	for _i in 1 2 3 4 5; do
		at "$1" "$RUNNER" 2>>"$RLOG"
	done
	at "$1" "$CTL" job rm "$J4" || bail "job rm"
	# Trigger 11 claimed by a runner on another host whose lease ran
	# out: the next pass fails it as expired.
	post_to 11 "$J1"
	claim "$1" 11 -1000
	at "$1" "$RUNNER" 2>>"$RLOG"
	post_to 9 "$J2"
	post_to 10 "$J1"
	stop_pid "$APP"
	# Trigger 10 claimed likewise, its lease running.
	claim "$1" 10 600000
	sqlite3 "$1" "UPDATE triggers SET completed_ms = completed_ms - 3600000
	    WHERE trigger_id = '$(tid 4)'" || bail "sqlite3 on $1"
	EXPIRED=$(tid 4)
}

# snapshot DB: what checkpointctl and every GET of the app show of DB,
# one answer after another.  The two figures that are the clock's, not
# the database's, are masked: a running job's duration and the age of the
# oldest queued trigger; and so are the lengths of the answers, which
# their digits change.
snapshot() {
	snapshot_raw "$1" | sed -e 's/"duration":[0-9]*/"duration":D/g' \
	    -e 's/^\(checkpoint_api_triggers_queued_oldest_seconds\) .*/\1 S/' \
	    -e 's/^Content-Length: [0-9]*/Content-Length: N/'
}

snapshot_raw() {
	at "$1" "$CTL" job list
	at "$1" "$CTL" triggers --limit 1000
	for _j in $JOBS; do
		at "$1" "$CTL" triggers --job "$_j"
	done
	app_on "$1"
	for _p in /jobs /jobs/overview /metrics; do
		echo "GET $_p"
		fcgi_raw GET "$_p"
		echo
	done
	for _j in $JOBS; do
		for _p in checkpoints checkpoints/config triggers; do
			echo "GET $_j/$_p"
			fcgi_raw GET "/jobs/$_j/$_p"
			echo
		done
		for _c in 1 2 3 4 5; do
			echo "GET $_j/details/$_c"
			fcgi_raw GET "/jobs/$_j/checkpoints/details/$_c"
			echo
		done
		for _i in 1 2 3 4 5 6 7 8 9 10 11; do
			echo "GET $_j/$_i"
			fcgi_raw GET "/jobs/$_j/checkpoints/$(tid "$_i")"
			echo
		done
	done
	stop_pid "$APP"
}
