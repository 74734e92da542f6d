#!/bin/sh
# Files and privileges (README.md, "Security" and "Jobs and checkpoint
# actions"; checkpoint-runner(8)):
# - the database, which only checkpointctl init makes, and the -wal and
#   -shm each of the three programs makes under a umask of 022, give no
#   access to others; init in a setgid directory gives the database to
#   its group, mode 0660;
# - the FastCGI process, traced with strace behind a real lighttpd while it
#   answers POSTs and GETs (and a runner runs a job's command), executes
#   nothing (no execve beyond its own start, no fork: every clone is a
#   thread) and opens nothing for writing but its database, -wal, -shm
#   and -journal;
# - a job's command runs with a clean environment (PATH and the four
#   CHECKPOINT_ variables, whatever the runner's own environment holds),
#   in a process group of its own, with standard input from /dev/null and
#   no descriptor of the database.
#
# The command is written in single quotes on purpose: its $VARS are for the
# action's shell.  $PIDS is a list; gone is called through eval.
# shellcheck disable=SC2016,SC2086,SC2317

. "$(dirname "$0")/lib.sh"

for c in lighttpd sqlite3 curl strace stat pgrep ps; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing"
done
STRACE=$(command -v strace)
strace -f -qq -o /dev/null true 2>/dev/null || bail "strace cannot trace here"

unset CHECKPOINT_STORE_DURATION CHECKPOINT_MAX_BODY CHECKPOINT_CORS_ORIGIN \
    CHECKPOINT_REJECT_UNKNOWN_JOBS CHECKPOINT_BUSY_TIMEOUT CHECKPOINT_SYNC
CHECKPOINT_PROCS=1
export CHECKPOINT_PROCS

J=0123456789abcdef0123456789abcdef
TID=abcdef0123456789abcdef0123456789

# others DB: "name:o=N" for the database, -wal and -shm, N the 'other'
# digit of the mode (0: no access), or name:missing.
others() {
	for _f in "$1" "$1-wal" "$1-shm"; do
		if [ -e "$_f" ]; then
			printf '%s:o=%s ' "${_f##*/}" "$(stat -c %a "$_f" | cut -c3)"
		else
			printf '%s:missing ' "${_f##*/}"
		fi
	done
}

# modes_while DIR INPUT COMMAND...: runs COMMAND under umask 022, standard
# input from INPUT, on a new database DIR/c.db, with its unlink calls
# delayed by a second each so that -wal and -shm outlive its closing long
# enough to be seen.  Echoes their modes as `others` shows them and the
# exit status.
modes_while() {
	_d=$1 _in=$2
	shift 2
	mkdir -p "$_d"
	(
		umask 022
		exec "$STRACE" -f -qq -o /dev/null -e trace=unlink,unlinkat \
		    -e inject=unlink,unlinkat:delay_enter=1000000 "$@"
	) < "$_in" > "$_d.out" 2>&1 &
	_p=$!
	wait_until 100 '[ -e "$_d/c.db-wal" ] && [ -e "$_d/c.db-shm" ]'
	_m=$(others "$_d/c.db")
	# shellcheck disable=SC2012
	ls -l "$_d" | sed 1d | sed 's/^/  /' > "$_d.ls"
	wait "$_p"
	printf '%sexit=%s' "$_m" "$?"
}

WANT='c.db:o=0 c.db-wal:o=0 c.db-shm:o=0 exit=0'

# --- files: no access for others ----------------------------------------------

is "$(modes_while "$T/m-ctl" /dev/null "$CTL" --db "$T/m-ctl/c.db" init)" \
    "$WANT" "checkpointctl init: database, -wal and -shm without access for others"
diag "checkpointctl init made:" "$(cat "$T/m-ctl.ls")"

# In a directory shared with a group (setgid, as checkpointctl setup leaves
# it), the group writes the database whatever the umask, others still not.
if [ "$(id -u)" -eq 0 ]; then SHARED=nogroup; else SHARED=$(id -gn); fi
mkdir "$T/m-group"
chgrp "$SHARED" "$T/m-group" && chmod 2770 "$T/m-group" || bail "chmod 2770"
is "$(modes_while "$T/m-group" /dev/null "$CTL" --db "$T/m-group/c.db" init)" \
    "$WANT" "checkpointctl init in a setgid directory: no access for others"
is "$(stat -c '%a %G' "$T/m-group/c.db")" "660 $SHARED" \
    "  the database is the directory's group's, mode 0660, under umask 022"

mkdir -p "$T/m-runner" "$T/m-api"
init_db "$T/m-runner/c.db"
init_db "$T/m-api/c.db"
is "$(modes_while "$T/m-runner" /dev/null "$RUNNER" --db "$T/m-runner/c.db")" \
    "$WANT" "checkpoint-runner: -wal and -shm it makes without access for others"
diag "checkpoint-runner made:" "$(cat "$T/m-runner.ls")"

printf '{"triggerId":"%s"}' "$TID" > "$T/body"
is "$(modes_while "$T/m-api" "$T/body" env -i REQUEST_METHOD=POST \
    PATH_INFO=/jobs/$J/checkpoints CONTENT_LENGTH=48 \
    CHECKPOINT_DB="$T/m-api/c.db" "$API")" \
    "$WANT" "checkpoint-api.fcgi (plain CGI): -wal and -shm it makes without access for others"
diag "checkpoint-api.fcgi made:" "$(cat "$T/m-api.ls")"
is "$(grep -c '^Status: 202 Accepted' "$T/m-api.out")" 1 \
    "checkpoint-api.fcgi (plain CGI) answered 202 meanwhile"

# Every file any of them left behind, too.
is "$(find "$T/m-ctl" "$T/m-runner" "$T/m-api" -type f -perm /o=rwx)" "" \
    "no file they left behind gives access to others"

# --- the FastCGI process behind lighttpd, under strace ---------------------------

DB=$T/srv/checkpoints.db
export CHECKPOINT_DB=$DB
mkdir -p "$T/srv"
init_db
# One trace per process lighttpd starts.
cat > "$T/api-traced" <<EOF
#!/bin/sh
exec "$STRACE" -f -qq -s 4096 -o "$T/trace.\$\$" \\
    -e trace=execve,execveat,fork,vfork,clone,clone3,open,openat,openat2,creat \\
    "$API" "\$@"
EOF
chmod +x "$T/api-traced"
REAL_API=$API
API=$T/api-traced
start_lighttpd 2>>"$T/lighttpd-stderr.log"
API=$REAL_API
STRACE_PID=$(pgrep -P "$LIGHTTPD_PID")
TRACE=$T/trace.$STRACE_PID
wait_until 50 '[ -n "$(pgrep -P "$STRACE_PID")" ]'
TRACED_PID=$(pgrep -P "$STRACE_PID")
like "$STRACE_PID $TRACED_PID" '^[0-9]+ [0-9]+$' \
    "lighttpd runs checkpoint-api.fcgi under strace"
# Not our children, but ours: ended by pid on exit, the app first (strace
# would only detach from it).
PIDS="$TRACED_PID $STRACE_PID $PIDS"

# The job's command records what it sees.
"$CTL" job add "$J" --command 'env > '"'$T/cmd-env'"';
    echo "$$ $(ps -o pgid= -p $$) $PPID $(ps -o pgid= -p $PPID) $(readlink /proc/$$/fd/0)" > '"'$T/cmd-ids'"';
    ls -l /proc/$$/fd > '"'$T/cmd-fds'"'; exit 0' >/dev/null
ok $? "a job with a command that records its environment"

http POST "/jobs/$J/checkpoints" "{\"triggerId\":\"$TID\"}"
is "$STATUS $BODY" "202 {\"request-id\":\"$TID\"}" "traced app: POST answers 202"
is "$(others "$DB")" "checkpoints.db:o=0 checkpoints.db-wal:o=0 checkpoints.db-shm:o=0 " \
    "the database the FastCGI process made, and its -wal and -shm, give no access to others"
# More requests, for a job that is not registered (its trigger fails
# without running anything, so the command above runs once).
JB=fedcba9876543210fedcba9876543210
http POST "/jobs/$JB/checkpoints"
like "$STATUS $BODY" '^202 \{"request-id":"[0-9a-f]{32}"\}$' "traced app: POST with a random id"
http POST "/jobs/$JB/checkpoints" '{"checkpointType":"bogus"}'
is "$STATUS" 400 "traced app: bad body 400"
http GET "/jobs/$JB/checkpoints/ffffffffffffffffffffffffffffffff"
is "$STATUS" 404 "traced app: unknown trigger 404"
http DELETE "/jobs/$JB/checkpoints"
is "$STATUS" 405 "traced app: wrong method 405"

# A runner with a polluted environment runs the job's command.
spawn env FOO=leak SECRET_TOKEN=hunter2 HOME=/nonexistent LANG=C.UTF-8 \
    LD_LIBRARY_PATH=/nonexistent CHECKPOINT_EXTRA=leak "$RUNNER" \
    2>>"$T/runner.log"
RUNNER_PID=$LAST_PID
# Without job control the runner shares this shell's process group.
RUNNER_PGID=$(ps -o pgid= -p $$ | tr -d ' ')
wait "$RUNNER_PID"
is "$?" 0 "the runner's pass exits 0"
PIDS=$(printf '%s\n' $PIDS | grep -vx "$RUNNER_PID" | tr '\n' ' ')

http GET "/jobs/$J/checkpoints/$TID"
is "$STATUS $BODY" '200 {"status":{"id":"COMPLETED"},"operation":{"checkpointId":1}}' \
    "traced app: the trigger is COMPLETED"

# Stop lighttpd first (so that it respawns nothing), then the traced
# process, which lighttpd leaves to strace; strace ends with it.
stop_lighttpd
kill -TERM "$TRACED_PID" 2>/dev/null
wait_until 100 "gone $STRACE_PID && gone $TRACED_PID"
ok $? "the traced FastCGI process and its strace end on SIGTERM"
PIDS=$(printf '%s\n' $PIDS | grep -vx -e "$TRACED_PID" -e "$STRACE_PID" | tr '\n' ' ')

# --- the trace: nothing executed, nothing written outside the database ------------

calls() {
	grep -E "^[0-9]+ +($1)\(" "$TRACE"
}
is "$(calls 'execve|execveat' | sed 's/^[0-9]* *//; s/(\("[^"]*"\).* = \(-\{0,1\}[0-9]*\).*/ \1 \2/')" \
    "execve \"$REAL_API\" 0" \
    "the FastCGI process executes nothing beyond its own start"
is "$(calls 'fork|vfork' | wc -l | tr -d ' ')" 0 "the FastCGI process never forks"
nthreads=$(calls 'clone|clone3' | grep -c CLONE_THREAD)
ok "$([ "$nthreads" -gt 0 ] && echo 0 || echo 1)" \
    "the trace saw the FastCGI process start its threads ($nthreads)"
is "$(calls 'clone|clone3' | grep -v CLONE_THREAD)" "" \
    "every clone of the FastCGI process is a thread, never a process"

opened=$(calls 'open|openat|openat2|creat' |
    grep -E 'O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND|^[0-9]+ +creat\(' |
    sed 's/^[^"]*"\([^"]*\)".*/\1/' | sort -u)
diag "opened for writing:" "$opened"
like "$opened" "^$DB\$" "the trace saw the FastCGI process open its database for writing"
is "$(printf '%s\n' "$opened" | grep -vxF -e "$DB" -e "$DB-wal" -e "$DB-shm" \
    -e "$DB-journal")" "" \
    "the FastCGI process opens nothing for writing but its database, -wal, -shm and -journal"

# --- the job's command: environment, process group, descriptors -------------------

is "$(sed 's/=.*//' "$T/cmd-env" | grep -Ev '^(PWD|OLDPWD|SHLVL|_)$' | sort |
    tr '\n' ' ')" \
    "CHECKPOINT_ID CHECKPOINT_JOB_ID CHECKPOINT_TRIGGER_ID CHECKPOINT_TYPE PATH " \
    "the command's environment: PATH and the four CHECKPOINT_ variables only"
is "$(grep -E '^(CHECKPOINT_[A-Z_]*|PATH)=' "$T/cmd-env" | sort | tr '\n' ' ')" \
    "CHECKPOINT_ID=1 CHECKPOINT_JOB_ID=$J CHECKPOINT_TRIGGER_ID=$TID CHECKPOINT_TYPE=FULL PATH=$PATH " \
    "the command's variables have the trigger's values and the runner's PATH"
diag "the command's environment:" "$(cat "$T/cmd-env")"

read -r c_pid c_pgid c_ppid c_ppgid c_stdin < "$T/cmd-ids"
is "$c_pgid" "$c_pid" "the command leads a process group of its own"
is "$c_ppid" "$RUNNER_PID" "the command is the runner's child"
is "$c_ppgid" "$RUNNER_PGID" "the runner was in the test's process group"
ok "$([ "$c_pgid" != "$RUNNER_PGID" ] && echo 0 || echo 1)" \
    "the command's process group differs from the runner's ($c_pgid, $RUNNER_PGID)"
is "$c_stdin" /dev/null "the command's standard input is /dev/null"
is "$(grep -cF "$DB" "$T/cmd-fds")" 0 \
    "the command holds no descriptor of the database"
diag "the command's descriptors:" "$(cat "$T/cmd-fds")"

done_testing
