#!/bin/sh
# scripts/bench.d/instructions.sh: the instructions a request and a
# runner's pass cost, counted by valgrind's callgrind.  A count does not
# move with the machine's load, as a rate does, so it weighs two builds on
# a shared machine where the rates' spread hides a few percent.  Run from
# the root of a build after make (it needs tests/fcgi-keep).
#
# On SQLite, for this build ("a") and, with B=DIR (the root of another
# build), for that one ("b"), each on a database its own checkpointctl
# made (a build refuses a newer schema than its own):
#   - get: the app (checkpoint-api.fcgi, one thread, on a Unix socket)
#     under callgrind, tests/fcgi-keep sending it N1 (200), then in a fresh
#     process on a fresh database N2 (2,200), GETs of one stored trigger on
#     one kept connection, as nginx keeps it; the difference over N2 - N1
#     is a GET's, the process's start and the store's open cancelling out;
#   - post: the same with POSTs, a fresh triggerId of a job of its own
#     each (one job's queue would fill).  The WAL copier's thread
#     checkpoints as the commits' timing lets it, so this count moves a
#     little from run to run;
#   - runner: checkpoint-runner's pass over RUNN (1,000) waiting triggers
#     of 10 jobs without commands (completed at once, nothing spawned),
#     and its pass over none; the difference over RUNN is a trigger's.
# Prints "instructions BUILD CASE COUNT-A-UNIT" a line.
set -u
ROOT=$(pwd)
N1=${N1:-200}
N2=${N2:-2200}
RUNN=${RUNN:-1000}
B=${B:-}
JOB=0123456789abcdef0123456789abcdef
command -v valgrind >/dev/null || { echo "instructions: no valgrind" >&2; exit 2; }
[ -x tests/fcgi-keep ] || { echo "instructions: make tests/fcgi-keep first" >&2; exit 2; }
if [ -n "$B" ]; then
	for f in cgi/checkpoint-api.fcgi cgi/checkpoint-runner cgi/checkpointctl; do
		[ -x "$B/$f" ] || { echo "instructions: B=$B has no $f" >&2; exit 2; }
	done
fi
W=$(mktemp -d "${TMPDIR:-/tmp}/checkpoint-instructions.XXXXXX")
APP_PID=
trap '[ -n "$APP_PID" ] && kill "$APP_PID" 2>/dev/null; rm -rf "$W"' EXIT
trap 'exit 1' INT TERM

# total FILE: the instructions a callgrind file counts (its totals line;
# its summary line is the same figure again, not a part of it).
total() {
	awk '/^totals:/ { print $2 }' "$1"
}

# seed BIN DB: a database made by BIN/checkpointctl, with one stored
# trigger of JOB for the GETs.
seed() {
	rm -f "$2" "$2-wal" "$2-shm"
	"$1/checkpointctl" --db "$2" init >/dev/null || exit 1
	sqlite3 "$2" "INSERT INTO triggers (job_id, trigger_id,
	    requested_type, created_ms) VALUES ('$JOB',
	    'fedcba9876543210fedcba9876543210', 'CONFIGURED', 0)" || exit 1
}

# app_count BIN METHOD N: the app's instructions over N requests.
app_count() {
	seed "$1" "$W/app.db"
	rm -f "$W/app.sock" "$W/cg.app"
	CHECKPOINT_DB=$W/app.db valgrind --tool=callgrind \
	    --callgrind-out-file="$W/cg.app" "$1/checkpoint-api.fcgi" \
	    -s "$W/app.sock" -t 1 2>"$W/valgrind.err" &
	APP_PID=$!
	_i=0
	until [ -S "$W/app.sock" ]; do
		_i=$((_i + 1))
		[ $_i -gt 600 ] && { echo "instructions: the app did not start" >&2; exit 1; }
		sleep 0.1
	done
	# The requests as fcgi-keep's arguments, METHOD PATH BODY each.
	awk -v m="$2" -v n="$3" -v j="$JOB" 'BEGIN {
		for (i = 1; i <= n; i++)
			if (m == "get")
				printf "GET\n/jobs/%s/checkpoints/fedcba9876543210fedcba9876543210\n\n", j
			else
				printf "POST\n/jobs/%032x/checkpoints\n{\"triggerId\":\"%032x\"}\n", i, i
	}' > "$W/args"
	# One fcgi-keep for them all (xargs splits at 128 KiB by default).
	_n=$(tr '\n' '\0' < "$W/args" |
	    xargs -0 -x -s 1000000 tests/fcgi-keep "$W/app.sock" |
	    grep -c '^Status: 20[02]')
	kill "$APP_PID"
	wait "$APP_PID"
	APP_PID=
	if [ "$_n" -ne "$3" ]; then
		echo "instructions: $1: $_n of $3 ${2}s answered 200 or 202" >&2
		exit 1
	fi
	total "$W/cg.app"
}

# runner_count BIN N: the runner's instructions over a pass over N
# waiting triggers of 10 jobs without commands.
runner_count() {
	_db=$W/runner.db
	rm -f "$_db" "$_db-wal" "$_db-shm" "$W/cg.runner"
	"$1/checkpointctl" --db "$_db" init >/dev/null || exit 1
	_k=1
	while [ $_k -le 10 ]; do
		"$1/checkpointctl" --db "$_db" job add "$(printf '%032x' $_k)" >/dev/null || exit 1
		_k=$((_k + 1))
	done
	if [ "$2" -gt 0 ]; then
		sqlite3 "$_db" "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL
		    SELECT i + 1 FROM n WHERE i < $2 - 1)
		    INSERT INTO triggers (job_id, trigger_id, requested_type,
		    created_ms) SELECT printf('%032x', i % 10 + 1),
		    printf('%032x', i), 'CONFIGURED', i FROM n" || exit 1
	fi
	# As root, a runner that knows --allow-root refuses to run without it.
	_root=
	[ "$(id -u)" -eq 0 ] && "$1/checkpoint-runner" --help 2>&1 |
	    grep -q -- --allow-root && _root=--allow-root
	valgrind --tool=callgrind --callgrind-out-file="$W/cg.runner" \
	    "$1/checkpoint-runner" --db "$_db" $_root --log-level error \
	    2>"$W/valgrind.err" || { cat "$W/valgrind.err" >&2; exit 1; }
	_left=$(sqlite3 "$_db" "SELECT count(*) FROM triggers WHERE status <> 'COMPLETED'")
	[ "$_left" -eq 0 ] || { echo "instructions: $1: $_left triggers left" >&2; exit 1; }
	total "$W/cg.runner"
}

builds="a $ROOT/cgi"
[ -n "$B" ] && builds="$builds b $B/cgi"
set -- $builds
while [ $# -ge 2 ]; do
	for m in get post; do
		x=$(app_count "$2" $m "$N1") || exit 1
		y=$(app_count "$2" $m "$N2") || exit 1
		echo "instructions $1 $m $(( (y - x) / (N2 - N1) ))"
	done
	x=$(runner_count "$2" 0) || exit 1
	y=$(runner_count "$2" "$RUNN") || exit 1
	echo "instructions $1 runner $(( (y - x) / RUNN ))"
	shift 2
done
