# Several "hosts" in front of one PostgreSQL database, for the tests
# t6300-t6350 (sourced after lib.sh and pg.sh): a host is a lighttpd of its
# own with FastCGI processes of its own, and a runner is a
# checkpoint-runner --watch process of its own, all reaching the database
# by CHECKPOINT_DB alone, as machines sharing it would.  Helpers to start,
# kill and restart them, clients that POST through them, and queries of
# what the database holds afterwards.
#
# $PIDS and pgrep's output are lists; per-host and per-runner pids live in
# variables named by eval; client() runs in the background only.
# shellcheck disable=SC2046,SC2086,SC2154

for c in lighttpd curl pgrep od; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing"
done

APP_EXE=$(readlink -f "$API")

# Every host as the defaults make it, with two FastCGI processes each (the
# test sets the store duration it needs).
unset CHECKPOINT_MAX_BODY CHECKPOINT_CORS_ORIGIN \
    CHECKPOINT_REJECT_UNKNOWN_JOBS CHECKPOINT_SYNC CHECKPOINT_BUSY_TIMEOUT \
    CHECKPOINT_STORE_DURATION
CHECKPOINT_PROCS=2
export CHECKPOINT_PROCS

# host_start NAME: a lighttpd of its own (in $T/lighttpdNAME) with
# CHECKPOINT_PROCS FastCGI processes, in front of CHECKPOINT_DB.  Sets
# HOST_NAME (its base URL) and HOST_NAME_PID (lighttpd's pid), and waits
# until its FastCGI processes run.
host_start() {
	INSTANCE=$1
	start_lighttpd 2>>"$T/lighttpd$1-stderr.log"
	INSTANCE=
	eval "HOST_$1=\$BASE HOST_$1_PID=\$LIGHTTPD_PID"
	wait_until 100 "[ \"\$(host_apps $1 | grep -c .)\" -eq $CHECKPOINT_PROCS ]" ||
	    bail "lighttpd $1 does not run $CHECKPOINT_PROCS FastCGI processes"
}

# host_apps NAME: the FastCGI processes the host's lighttpd runs now, one
# pid a line.
host_apps() {
	eval "_l=\$HOST_$1_PID"
	for _p in $(pgrep -P "$_l"); do
		[ "$(readlink -f "/proc/$_p/exe" 2>/dev/null)" = "$APP_EXE" ] &&
		    ! gone "$_p" && echo "$_p"
	done
}

# host_kill_app NAME: SIGKILL to one of the host's FastCGI processes
# (lighttpd starts another); true if there was one.
host_kill_app() {
	set -- $(host_apps "$1")
	[ $# -gt 0 ] || return 1
	shift "$(rand $#)"
	kill -9 "$1"
}

# host_crashes NAME: how lighttpd saw its FastCGI processes end, each
# line but the SIGKILLs of host_kill_app (none: no crash).
host_crashes() {
	grep -E 'child (signalled|exited)' "$T/lighttpd$1/lighttpd-error.log" |
	    grep -v 'child signalled: 9$' | sed 's/^[^(]*//'
}

# runner_start K [OPTION...]: (re)starts watcher K; its pid in RUNNER_K,
# its log in $T/runner-K.log.
runner_start() {
	_k=$1
	shift
	spawn "$RUNNER" --watch --log-level info "$@" 2>>"$T/runner-$_k.log"
	eval "RUNNER_$_k=\$LAST_PID"
}

# runner_stop K: SIGTERM to watcher K, waited for (SIGKILL after 10 s);
# returns its exit status.
runner_stop() {
	eval "term_wait \$RUNNER_$1"
	return $RC
}

# logged_jobs TIMEOUT_S JOB...: the JOBs, registered through CHECKPOINT_DB
# with the timeout and a command that appends its job, checkpoint id and
# trigger ("JOB ID TRIGGER") to $CMDLOG, then sleeps 0.3 s.  The command
# is in single quotes on purpose: its $VARS are for the action's shell.
logged_jobs() {
	_t=$1
	shift
	for _j in "$@"; do
		# shellcheck disable=SC2016
		"$CTL" job add "$_j" --timeout "$_t" --command \
		    'echo "$CHECKPOINT_JOB_ID $CHECKPOINT_ID $CHECKPOINT_TRIGGER_ID" \
		    >> '"'$CMDLOG'"'; sleep 0.3' > /dev/null ||
		    bail "checkpointctl job add $_j failed"
	done
}

# q SQL: SQL on the server that the checks ask, Q_PORT (default: the first
# server, PG_PORT); q_in: the SQL on stdin.
Q_PORT=
q() {
	psql_q "$1" "" "$Q_PORT"
}
q_in() {
	"$PG_BIN/psql" -X -q -A -t -v ON_ERROR_STOP=1 \
	    -d "$(pg_uri "" "$Q_PORT")"
}

pending() {
	q "SELECT count(*) FROM triggers WHERE status = 'IN_PROGRESS'"
}

# ids_not_dense JOB...: for each JOB whose checkpoint ids are not exactly
# 1..n, each once, with checkpoint_counters at n, a line "JOB: count
# distinct min max counter"; nothing when all are.
ids_not_dense() {
	for _j in "$@"; do
		q "SELECT '$_j: ' || count(t.checkpoint_id) || ' ' ||
		    count(DISTINCT checkpoint_id) || ' ' ||
		    coalesce(min(checkpoint_id), 0) || ' ' ||
		    coalesce(max(checkpoint_id), 0) || ' ' || c.last_id
		    FROM (SELECT coalesce((SELECT last_id FROM checkpoint_counters
		    WHERE job_id = '$_j'), 0) AS last_id) c
		    LEFT JOIN triggers t ON t.job_id = '$_j'
		    AND t.checkpoint_id IS NOT NULL
		    GROUP BY c.last_id
		    HAVING count(t.checkpoint_id) <> count(DISTINCT t.checkpoint_id)
		    OR coalesce(max(t.checkpoint_id), 0) <> count(t.checkpoint_id)
		    OR coalesce(min(t.checkpoint_id), 1) <> 1
		    OR c.last_id <> count(t.checkpoint_id)"
	done
}

# --- clients ----------------------------------------------------------------
#
# client C: until $T/stop exists, POSTs fresh triggers (triggerId C and a
# count, "%08x%024x"), to the jobs of CLIENT_JOBS in turn, each to the
# hosts of CLIENT_HOSTS (base URLs) in turn; a POST not answered 202 is
# retried with the same triggerId through the next host, up to POST_TRIES
# times; after a 202, the trigger is read through another host.  Every
# answer is a line of $T/client-C.log:
#   MS METHOD CODE JOB TID BASE SECONDS BODY
# (MS: when it came, epoch ms; CODE 000: none; SECONDS: how long it took;
# BODY on one line).
POST_TRIES=${POST_TRIES:-8}
client() {
	_c=$1 _n=0
	_log=$T/client-$_c.log _out=$T/client-$_c.out
	: > "$_log"
	set -- $CLIENT_HOSTS
	_nh=$#
	while [ ! -e "$T/stop" ]; do
		_n=$((_n + 1))
		_tid=$(printf '%08x%024x' "$_c" "$_n")
		set -- $CLIENT_JOBS
		shift $(((_c + _n) % $#))
		_job=$1
		_h=$(((_c + _n) % _nh))
		_try=0
		while [ "$_try" -lt "$POST_TRIES" ]; do
			[ "$_try" -gt 0 ] && sleep 0.1
			_try=$((_try + 1))
			set -- $CLIENT_HOSTS
			shift "$_h"
			_h=$(((_h + 1) % _nh))
			client_req POST "$1/jobs/$_job/checkpoints" \
			    "{\"triggerId\":\"$_tid\"}"
			[ "$_code" = 202 ] && break
			[ -e "$T/stop" ] && break
		done
		if [ "$_code" = 202 ]; then
			set -- $CLIENT_HOSTS
			shift "$_h"
			client_req GET "$1/jobs/$_job/checkpoints/$_tid"
		fi
	done
}

# client_req METHOD URL [BODY]: one request of client(), logged; sets _code.
client_req() {
	: > "$_out"
	if [ $# -ge 3 ]; then
		_got=$(curl -s -o "$_out" -w '%{http_code} %{time_total}' \
		    --max-time 10 -X "$1" --data-binary "$3" "$2")
	else
		_got=$(curl -s -o "$_out" -w '%{http_code} %{time_total}' \
		    --max-time 10 "$2")
	fi
	_code=${_got%% *}
	printf '%s %s %s %s %s %s %s %s\n' "$(date +%s%3N)" "$1" "$_code" \
	    "$_job" "$_tid" "${2%%/jobs/*}" "${_got#* }" \
	    "$(tr '\n' ' ' < "$_out")" >> "$_log"
}

# clients_start N: N clients in the background (CLIENT_1...).
clients_start() {
	rm -f "$T/stop"
	_i=1
	while [ "$_i" -le "$1" ]; do
		spawn client "$_i"
		eval "CLIENT_$_i=\$LAST_PID"
		_i=$((_i + 1))
	done
	NCLIENTS=$1
}

# clients_stop: asks the clients to stop, waits for them (SIGKILL after
# 15 s), and gathers their answers in $T/answers (sorted by time) and the
# 202s in $T/accepted ("JOB TID" lines).
clients_stop() {
	touch "$T/stop"
	_i=1
	while [ "$_i" -le "$NCLIENTS" ]; do
		eval "reap \$CLIENT_$_i"
		_i=$((_i + 1))
	done
	sort -n "$T"/client-*.log > "$T/answers"
	awk '$2 == "POST" && $3 == 202 { print $4, $5 }' "$T/answers" |
	    sort -u > "$T/accepted"
}

# hold PID: SIGSTOP to one process (a WAL sender, a runner), which
# let_go resumes, and so does the test's end, however it ends: a stopped
# process would hold up its server's shutdown or the test's.  A held
# process that is killed meanwhile is forgotten with HELD= .
HELD=
hold() {
	HELD=$1
	kill -STOP "$1"
}
let_go() {
	[ -n "$HELD" ] && kill -CONT "$HELD" 2>/dev/null
	HELD=
}
at_cleanup let_go

# answered_since CODE MS: how many answers CODE the clients had at or
# after MS (epoch ms), while they run.
answered_since() {
	awk -v c="$1" -v f="$2" '$3 == c && $1 >= f' "$T"/client-*.log |
	    grep -c .
}

# failover_promote: with the primary dead, promotes the standby, lets
# the clients go on until more than 20 answers 202 (a POST's) came after
# it, 10 s at most, and stops them.  Sets PROMOTED (pg_promote's status),
# T_PROMOTED, SAW_202 (0: the 202s came) and T_END.
failover_promote() {
	pg_promote
	PROMOTED=$?
	T_PROMOTED=$(now_ms)
	wait_until 100 '[ "$(answered_since 202 "$T_PROMOTED")" -gt 20 ]'
	SAW_202=$?
	clients_stop
	T_END=$(now_ms)
}

# The app's three 503s (checkpoint-api(7), "ERRORS"): a demoted primary
# is a read-only server until the app's next connection finds the new one.
SVC_LOCKED='{"errors":["Service temporarily unavailable: the checkpoint database is locked. Please retry."]}'
SVC_CANNOT='{"errors":["Service temporarily unavailable: the checkpoint database cannot be opened or read. Please retry."]}'
SVC_READONLY='{"errors":["Service unavailable: the checkpoint database is not writable by this service (file permissions, a read-only file system or a read-only server). Retrying will not help until the operator fixes it."]}'

# odd_answers: each line of $T/answers that is neither a 202 with its
# trigger's id, a 200 of a read with a status, nor one of the app's 503s.
odd_answers() {
	awk -v locked="$SVC_LOCKED" -v cannot="$SVC_CANNOT" \
	    -v readonly="$SVC_READONLY" '{
		b = $0
		for (i = 0; i < 7; i++)
			b = substr(b, index(b, " ") + 1)
		sub(/ $/, "", b)
	}
	$2 == "POST" && $3 == 202 && b == "{\"request-id\":\"" $5 "\"}" { next }
	$2 == "GET" && $3 == 200 && (b == "{\"status\":{\"id\":\"IN_PROGRESS\"},\"operation\":null}" ||
	    index(b, "{\"status\":{\"id\":\"COMPLETED\"},\"operation\":{") == 1) { next }
	$3 == 503 && (b == locked || b == cannot || b == readonly) { next }
	{ print }' "$T/answers"
}

# accepted_sql: SQL that makes a temporary table acc (job_id, trigger_id)
# of the triggers answered 202 ($T/accepted).
accepted_sql() {
	echo "CREATE TEMP TABLE acc (job_id text, trigger_id text);"
	echo "COPY acc FROM STDIN (DELIMITER ' ');"
	cat "$T/accepted"
	printf '\\.\n'
}

# accepted_not_completed: how many triggers answered 202 are not
# COMPLETED, missing ones included; accepted_missing: how many are not
# there at all.
accepted_not_completed() {
	{
		accepted_sql
		echo "SELECT count(*) FROM acc a LEFT JOIN triggers t
		    USING (job_id, trigger_id) WHERE t.status IS DISTINCT FROM
		    'COMPLETED';"
	} | q_in
}
accepted_missing() {
	{
		accepted_sql
		echo "SELECT count(*) FROM acc a LEFT JOIN triggers t
		    USING (job_id, trigger_id) WHERE t.id IS NULL;"
	} | q_in
}

# remote_apply_start: a primary and a synchronous standby whose commits
# wait until the standby has applied them (synchronous_commit =
# remote_apply on the primary), so that pausing the standby's replay
# (replay pause) holds every commit; CHECKPOINT_DB names both
# (target_session_attrs=read-write), with the schema made.
remote_apply_start() {
	pg_start
	pg_standby
	pg_sync_standby
	psql_q "ALTER SYSTEM SET synchronous_commit = remote_apply" postgres &&
	    psql_q "SELECT pg_reload_conf()" postgres > /dev/null ||
	    bail "cannot set synchronous_commit"
	wait_until 50 '[ "$(psql_q "SHOW synchronous_commit")" = remote_apply ]' ||
	    bail "synchronous_commit is not remote_apply"
	CHECKPOINT_DB=$(pg_uri_hosts)
	export CHECKPOINT_DB
	"$CTL" init > /dev/null ||
	    bail "checkpointctl init through $CHECKPOINT_DB failed"
}

# replay pause|resume: the standby's replay paused (and seen paused), or
# resumed.
replay() {
	psql_q "SELECT pg_wal_replay_$1()" "" "$PG_STANDBY_PORT" > /dev/null ||
	    bail "pg_wal_replay_$1 failed"
	[ "$1" = resume ] && return 0
	wait_until 50 '[ "$(psql_q "SELECT pg_get_wal_replay_pause_state()" \
	    "" "$PG_STANDBY_PORT")" = paused ]' || bail "the replay does not pause"
}

# app_async: the app on $SOCK (start_app), committing asynchronously
# (CHECKPOINT_SYNC=NORMAL), so that only the runners' commits wait for a
# synchronous standby; its log appended to $T/app.log.
app_async() {
	CHECKPOINT_SYNC=NORMAL
	export CHECKPOINT_SYNC
	start_app "" 2>> "$T/app.log"
	unset CHECKPOINT_SYNC
}

# runner_quick K: runner_start K with CHECKPOINT_BUSY_TIMEOUT=200ms, so
# that its statement_timeout (5 times that) cancels a commit's wait for
# the standby after 1 s.
runner_quick() {
	CHECKPOINT_BUSY_TIMEOUT=200ms
	export CHECKPOINT_BUSY_TIMEOUT
	runner_start "$1"
	unset CHECKPOINT_BUSY_TIMEOUT
}

# owner PID: the claim tag of the runner PID (runner.c: host:pid:start,
# the start in clock ticks since boot, /proc/PID/stat's 22nd field).
owner() {
	printf '%s:%s:%s' "$(uname -n)" "$1" \
	    "$(sed 's/.*) //' "/proc/$1/stat" | cut -d ' ' -f 20)"
}
