#!/bin/sh
# The commands file (CHECKPOINT_COMMANDS; checkpoint-runner(8), "The
# commands file"; checkpoint-api(7), "SECURITY"): on SQLite the web
# server's user writes the database the runner reads, so the runner runs a
# job's command only when a file that only the operator writes registers
# the same text.
# - the runner refuses to start on a relative path, a missing file, or a
#   file or directory on its way that others could write; unset, a
#   --watch runner warns and a single pass says nothing;
# - checkpointctl job add, set and rm keep the file, a line per job and
#   kind, each command escaped to one line;
# - as the web server's user (RUN_USER), an UPDATE of every kind of command
#   and an INSERT of a job succeed in the database, but nothing they name
#   runs: the checkpoint, savepoint, stop and disposal each fail with the
#   cause "The job's command is not the one the operator registered";
#   that user cannot write the file;
# - nor can that user move where the runner connects or writes: a job's
#   JobManager (--flink) and savepoint directory are registered in the
#   file too, and a savepoint into a directory that does not lie under
#   the registered one, or a trigger of a job bound to a JobManager the
#   file does not name, fails with that cause, nothing run or asked;
# - changes made at once all land, and leave other jobs' lines alone;
# - checkpointctl job set restores commands that run; doctor says whether
#   the file is trusted.
# Commands are written in single quotes on purpose: their $VARS are for
# the action's shell.
# shellcheck disable=SC2016,SC2086

. "$(dirname "$0")/runner-lib.sh"
command -v setpriv >/dev/null 2>&1 || bail "setpriv (util-linux) is missing"

# The database in a directory of the web server's user; $T itself, and
# the commands file's directory, root's (or this user's) and not writable
# by others.
chmod 0755 "$T"
share_dir "$T/db"
DB=$T/db/checkpoints.db
CHECKPOINT_DB=$DB
export CHECKPOINT_DB
init_db
mkdir -m 0755 "$T/etc"
CMDS=$T/etc/commands

# as_web CMD...: CMD as the web server's user (as RUN_USER when root).
as_web() {
	(as_run_user "$@")
}
REFUSED="Checkpoint was declined. The job's command is not the one the operator registered"
# sp_row TID: a savepoint's status, location and trace's start, on a line.
sp_row() {
	dbq "SELECT status || ' ' || coalesce(location, '-') || ' ' ||
	    substr(failure_trace, 1, 800) FROM savepoints
	    WHERE trigger_id = '$1'" | head -n 1
}

# --- the runner's start ----------------------------------------------------
runner_start() {
	env CHECKPOINT_COMMANDS="$1" "$RUNNER" > /dev/null 2> "$T/start.err"
	printf '%s %s' "$?" "$(sed 's/^[^]]*\] //; s/^checkpoint-runner: //' "$T/start.err")"
}
like "$(runner_start etc/commands)" '^2 .*CHECKPOINT_COMMANDS.*absolute path' \
    "runner: a relative CHECKPOINT_COMMANDS is refused"
like "$(runner_start "$CMDS")" "^2 .*CHECKPOINT_COMMANDS: $CMDS: No such file" \
    "runner: a missing commands file is refused, named"
"$RUNNER" 2> "$T/start.err"
is "$?|$(cat "$T/start.err")" "0|" "runner: unset, a pass (as from cron) says nothing of it"
spawn "$RUNNER" --watch 2> "$T/watch.err"
wait_until 100 'grep -q CHECKPOINT_COMMANDS "$T/watch.err"'
stop_pid "$LAST_PID"
like "$(cat "$T/watch.err")" 'warn: CHECKPOINT_COMMANDS is not set: the database alone decides what runs' \
    "runner --watch: unset, it warns at its start that the database alone decides what runs"

export CHECKPOINT_COMMANDS="$CMDS"
J=$(jid 1)
# A checkpoint command of several lines, with a tab and a backslash.
CKPT=$(printf 'echo "a\tb\\c" > /dev/null\necho "file:/chk/$CHECKPOINT_ID"')
"$CTL" job add "$J" --command "$CKPT" --savepoint-dir file:/sp \
    --savepoint-command 'echo "$CHECKPOINT_SAVEPOINT_DIR/sp-$CHECKPOINT_ID"' \
    --stop-command 'echo "$CHECKPOINT_SAVEPOINT_DIR/stop-$CHECKPOINT_ID"' \
    --dispose-command 'echo "$CHECKPOINT_SAVEPOINT_PATH" >> '"$T"'/disposed' \
    2> "$T/ctl.err"
is "$? $(cat "$T/ctl.err")" "0 " "job add: with the commands file set"
is "$(cut -f1,2 "$CMDS" | tr '\t' ' ' | tr '\n' ,)" \
    "$J checkpoint,$J savepoint,$J stop,$J dispose,$J savepoint-dir," \
    "job add: a line per kind, the savepoint directory too, in the file"
is "$(grep -c . "$CMDS")" 5 "job add: each command on one line"
is "$(grep "	checkpoint	" "$CMDS" | cut -f3)" \
    'echo "a\tb\\c" > /dev/null\necho "file:/chk/$CHECKPOINT_ID"' \
    "job add: newline, tab and backslash escaped"
is "$(stat -c %a "$CMDS")" 644 "job add: the file is readable, written by its owner alone"

chmod 0664 "$CMDS"
like "$(runner_start "$CMDS")" "^2 .*$CMDS: writable by group or others" \
    "runner: a commands file the group may write is refused"
chmod 0644 "$CMDS"
chmod 0775 "$T/etc"
like "$(runner_start "$CMDS")" "^2 .*directory $T/etc is writable by group or others" \
    "runner: a commands file in a directory the group may write is refused"
chmod 0755 "$T/etc"
if [ "$(id -u)" -eq 0 ]; then
	chown "$RUN_USER" "$T"
	like "$(runner_start "$CMDS")" "^2 .*directory $T is owned by another user" \
	    "runner: a directory on the way owned by someone else is refused"
	chown root "$T"
else
	skip "runner: a directory on the way owned by someone else" "not root"
fi

start_lighttpd
post "$J" "$(tid 1)" && pass
is "$(status "$J" "$(tid 1)")" "$(completed 1)" "a registered command runs"
sp_post() {
	http POST "/jobs/$J/$1" "{\"triggerId\":\"$2\"${3:-}}"
	[ "$STATUS" = 202 ] || diag "POST /jobs/$J/$1: $STATUS $BODY"
}
sp_post savepoints "$(tid 2)" && sp_post savepoints "$(tid 3)" && pass
is "$(dbq "SELECT group_concat(location, ' ') FROM (SELECT location
    FROM savepoints WHERE job_id = '$J' ORDER BY id)")" "file:/sp/sp-2 file:/sp/sp-3" \
    "registered savepoint commands run"

# --- the web server's user changes every command ----------------------------
for col in command savepoint_command stop_command dispose_command; do
	as_web sqlite3 -cmd '.timeout 5000' "$DB" \
	    "UPDATE jobs SET $col = 'touch $T/pwned-$col' WHERE job_id = '$J'" \
	    2> "$T/update.err"
	is "$? $(cat "$T/update.err")" "0 " "as the web server's user: UPDATE jobs SET $col succeeds"
done
if [ "$(id -u)" -eq 0 ]; then
	as_web sh -c "echo '$J	checkpoint	touch $T/pwned' >> '$CMDS'" 2>/dev/null
	ok "$([ $? -ne 0 ] && echo 0 || echo 1)" \
	    "as the web server's user: the commands file cannot be written"
else
	skip "as the web server's user: the commands file cannot be written" "not root"
fi

post "$J" "$(tid 4)"
sp_post savepoints "$(tid 5)"
http POST /savepoint-disposal '{"savepoint-path":"file:/sp/sp-2"}'
D1=$(printf '%s' "$BODY" | cut -d'"' -f4)
pass
sp_post stop "$(tid 6)" ',"drain":false'
pass
is "$(ls "$T" | grep -c pwned)" 0 "nothing the web server's user wrote ran"
begins "$(status "$J" "$(tid 4)")" "$(failed_body "$CKPT_CLASS" "$CKPT_CLASS: $REFUSED: $CMDS registers another checkpoint command for job $J.")" \
    "checkpoint: fails with the cause"
for t in 5:savepoint 6:stop; do
	is "$(dbq "SELECT status || ' ' || substr(failure_trace, 1, 400) FROM savepoints
	    WHERE trigger_id = '$(tid ${t%%:*})'" | head -n 1)" \
	    "COMPLETED java.util.concurrent.CompletionException: $CKPT_CLASS: $REFUSED: $CMDS registers another ${t#*:} command for job $J." \
	    "${t#*:}: fails with the cause"
done
like "$(dbq "SELECT failure_trace FROM savepoint_disposals WHERE trigger_id = '$D1'")" \
    "$REFUSED: $CMDS registers another dispose command for job $J\\." \
    "disposal: fails with the cause"
is "$(dbq "SELECT state FROM jobs WHERE job_id = '$J'")" RUNNING \
    "the refused stop leaves the job running"
is "$(grep -c "job $J: [a-z]* command not run: $CMDS registers another" "$RLOG")" 4 \
    "the runner logs each refusal"

# A job the web server's user adds, with a command: nothing runs either.
J2=$(jid 2)
as_web sqlite3 -cmd '.timeout 5000' "$DB" "INSERT INTO jobs (job_id, command,
    checkpoint_type, state, timeout_s, created_ms, updated_ms) VALUES
    ('$J2', 'touch $T/pwned-new', 'FULL', 'RUNNING', 60, 0, 0)"
post "$J2" "$(tid 7)" && pass
begins "$(status "$J2" "$(tid 7)")" "$(failed_body "$CKPT_CLASS" "$CKPT_CLASS: $REFUSED: $CMDS registers no checkpoint command for job $J2.")" \
    "a job only the database has: its checkpoint fails with the cause"
ok "$([ ! -e "$T/pwned-new" ] && echo 0 || echo 1)" "  and its command did not run"

# --- the operator restores them ---------------------------------------------
"$CTL" job set "$J" --command 'echo "file:/chk/$CHECKPOINT_ID"' \
    --savepoint-command 'echo "$CHECKPOINT_SAVEPOINT_DIR/sp-$CHECKPOINT_ID"' \
    --stop-command 'echo "$CHECKPOINT_SAVEPOINT_DIR/stop-$CHECKPOINT_ID"' \
    --dispose-command 'echo "$CHECKPOINT_SAVEPOINT_PATH" >> '"$T"'/disposed' \
    2> "$T/ctl.err"
is "$? $(cat "$T/ctl.err")" "0 " "job set: the operator's commands again"
post "$J" "$(tid 8)"
http POST /savepoint-disposal '{"savepoint-path":"file:/sp/sp-2"}'
D2=$(printf '%s' "$BODY" | cut -d'"' -f4)
pass
like "$(status "$J" "$(tid 8)")" '^\{"status":\{"id":"COMPLETED"\},"operation":\{"checkpointId":[0-9]+\}\}$' \
    "checkpoint: runs again"
is "$(cat "$T/disposed") $(dbq "SELECT coalesce(failure_class, '-') FROM savepoint_disposals
    WHERE trigger_id = '$D2'")" "file:/sp/sp-2 -" "disposal: runs again"
sp_post savepoints "$(tid 9)" && pass
like "$(dbq "SELECT location FROM savepoints WHERE trigger_id = '$(tid 9)'")" \
    '^file:/sp/sp-[0-9]+$' "savepoint: runs again"
# --- where the runner connects and writes ------------------------------------
# The web server's user points the job's savepoint directory, a waiting
# savepoint's directory and the job's JobManager elsewhere: the runner
# takes them from the commands file, and runs nothing.
sp_post savepoints "$(tid 12)" ',"target-directory":"file:/sp/ok"' &&
    as_web sqlite3 -cmd '.timeout 5000' "$DB" "UPDATE savepoints SET
    target_directory = 'file:/tmp/elsewhere' WHERE trigger_id = '$(tid 12)';
    UPDATE jobs SET savepoint_dir = 'file:/etc' WHERE job_id = '$J'" &&
    sp_post savepoints "$(tid 11)" && pass
for t in 11:file:/etc 12:file:/tmp/elsewhere; do
	is "$(sp_row "$(tid ${t%%:*})")" \
	    "COMPLETED - java.util.concurrent.CompletionException: $CKPT_CLASS: $REFUSED: $CMDS registers this savepoint directory for job $J, and ${t#*:} is refused: it does not lie under its root, the job's savepoint directory or else CHECKPOINT_SAVEPOINT_ROOT." \
	    "a savepoint into ${t#*:}, written by the web server's user: fails with the cause"
done
as_web sqlite3 -cmd '.timeout 5000' "$DB" \
    "UPDATE jobs SET flink_url = 'http://127.0.0.1:9' WHERE job_id = '$J'" &&
    post "$J" "$(tid 13)" && pass
begins "$(status "$J" "$(tid 13)")" "$(failed_body "$CKPT_CLASS" "$CKPT_CLASS: $REFUSED: $CMDS registers no flink command for job $J.")" \
    "a JobManager written by the web server's user: the checkpoint fails with the cause"
is "$(grep -c "job $J: flink command not run: $CMDS registers no flink" "$RLOG")" 1 \
    "  nothing asked of it, the refusal logged"
"$CTL" job set "$J" --flink http://127.0.0.1:9 2> "$T/ctl.err"
is "$? $(grep -c "^$J	flink	http://127.0.0.1:9\$" "$CMDS")" "0 1" \
    "job set --flink: the JobManager registered in the file"
"$CTL" job set "$J" --flink none --savepoint-dir file:/sp 2> "$T/ctl.err"
is "$? $(grep -c "	flink	" "$CMDS") $(grep "^$J	savepoint-dir	" "$CMDS" | cut -f3)" \
    "0 0 file:/sp" "job set --flink none --savepoint-dir: the file follows"

sp_post stop "$(tid 10)" ',"drain":false' && pass
like "$(dbq "SELECT location FROM savepoints WHERE trigger_id = '$(tid 10)'") $(dbq "SELECT state FROM jobs WHERE job_id = '$J'")" \
    '^file:/sp/stop-[0-9]+ FINISHED$' "stop: runs again, the job finished"

# --- bookkeeping only: the file must say so too --------------------------------
# The web server's user makes a job bookkeeping only, to have its
# savepoints and stops recorded with nothing run: refused, the job runs on.
J3=$(jid 3)
"$CTL" job add "$J3" --savepoint-dir file:/b \
    --savepoint-command 'echo "$CHECKPOINT_SAVEPOINT_DIR/sp-$CHECKPOINT_ID"' \
    --stop-command 'echo "$CHECKPOINT_SAVEPOINT_DIR/stop-$CHECKPOINT_ID"' 2> "$T/ctl.err"
is "$? $(grep -c "^$J3	bookkeeping-only	" "$CMDS")" "0 0" \
    "job add without --bookkeeping-only: no line for it in the file"
as_web sqlite3 -cmd '.timeout 5000' "$DB" \
    "UPDATE jobs SET bookkeeping_only = 1 WHERE job_id = '$J3'"
J=$J3
sp_post savepoints "$(tid 30)" && sp_post stop "$(tid 31)" && pass
for t in 30:savepoint 31:stop; do
	is "$(sp_row "$(tid ${t%%:*})")" \
	    "COMPLETED - java.util.concurrent.CompletionException: $CKPT_CLASS: $REFUSED: $CMDS registers no bookkeeping-only command for job $J3." \
	    "bookkeeping only set by the web server's user: the ${t#*:} fails with the cause"
done
is "$(dbq "SELECT state FROM jobs WHERE job_id = '$J3'")" RUNNING \
    "bookkeeping only set by the web server's user: the stop leaves the job running"
# The operator says so: the file holds it, and it counts.
"$CTL" job set "$J3" --bookkeeping-only yes 2> "$T/ctl.err"
is "$? $(grep -c "^$J3	bookkeeping-only	yes\$" "$CMDS")" "0 1" \
    "job set --bookkeeping-only yes: registered in the file"
sp_post savepoints "$(tid 32)" && pass
like "$(dbq "SELECT coalesce(location, '-') || ' ' || failure_trace FROM savepoints
    WHERE trigger_id = '$(tid 32)'")" \
    "^- java.util.concurrent.CompletionException: $CKPT_CLASS: Bookkeeping only: nothing was taken" \
    "bookkeeping only, as the file says: recorded, nothing taken, no location"
sp_post stop "$(tid 33)" && pass
is "$(dbq "SELECT state FROM jobs WHERE job_id = '$J3'")" FINISHED \
    "bookkeeping only, as the file says: the stop marks the job FINISHED"
"$CTL" job set "$J3" --bookkeeping-only no 2> "$T/ctl.err"
is "$? $(grep -c "^$J3	bookkeeping-only	" "$CMDS") $(dbq "SELECT bookkeeping_only FROM jobs WHERE job_id = '$J3'")" \
    "0 0 0" "job set --bookkeeping-only no: gone from the file and the database"
J=$(jid 1)

# --- doctor, job rm ------------------------------------------------------------
"$CTL" doctor > "$T/doctor.out" 2>&1
like "$(grep commands "$T/doctor.out")" "^ok: commands file $CMDS" \
    "doctor: the commands file is trusted"
chmod 0666 "$CMDS"
"$CTL" doctor > "$T/doctor.out" 2>&1
like "$(grep commands "$T/doctor.out")" "^wrong: commands file: $CMDS: writable by group or others" \
    "doctor: a commands file others may write is wrong"
"$CTL" job set "$J" --command true 2> "$T/ctl.err"
like "$? $(cat "$T/ctl.err")" "^1 checkpointctl: job $J: .*writable by group or others" \
    "job set: refuses to rewrite a file others may write, and says so"
chmod 0644 "$CMDS"
if [ "$(id -u)" -eq 0 ]; then
	chown "$RUN_USER" "$CMDS"
	"$CTL" doctor --web-user "$RUN_USER" > "$T/doctor.out" 2>&1
	like "$(grep commands "$T/doctor.out")" "^wrong: commands file $CMDS is owned by the web server's user $RUN_USER" \
	    "doctor: a commands file of the web server's user is wrong"
	chown root "$CMDS"
else
	skip "doctor: a commands file of the web server's user is wrong" "not root"
fi
CHECKPOINT_COMMANDS= "$CTL" doctor --web-user "$(id -un)" > "$T/doctor.out" 2>&1
like "$(grep CHECKPOINT_COMMANDS "$T/doctor.out")" "^note: CHECKPOINT_COMMANDS is not set" \
    "doctor: unset, with the web server's user sharing the file, a note that the database decides what runs"
# Other jobs' lines stay through every change, and changes made at once
# all land (one writer at a time).
N=0 ADDS=
while [ "$N" -lt 8 ]; do
	N=$((N + 1))
	"$CTL" job add "$(jid $((100 + N)))" --command "echo file:/chk/$N" \
	    2>> "$T/ctl-many.err" &
	ADDS="$ADDS $!"
done
for p in $ADDS; do
	wait "$p"
done
is "$(cat "$T/ctl-many.err")|$(grep -c "	checkpoint	echo file:/chk/[1-8]$" "$CMDS")|$(grep -c "	checkpoint	" "$CMDS")" "|8|9" \
    "8 job adds at once: every one's line is in the file, the others' kept"
"$CTL" job set "$(jid 101)" --command 'echo file:/other' 2> "$T/ctl.err"
is "$? $(grep -c "	checkpoint	" "$CMDS") $(grep "^$(jid 101)	" "$CMDS" | cut -f3)" \
    "0 9 echo file:/other" "job set of one job: its line changes, the others stay"
"$CTL" job rm "$J" 2> "$T/ctl.err"
is "$? $(cat "$T/ctl.err") $(grep -c "^$J	" "$CMDS") $(grep -c "	checkpoint	" "$CMDS")" "0  0 8" \
    "job rm: its lines go, the others' stay"

done_testing
