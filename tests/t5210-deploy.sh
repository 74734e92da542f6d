#!/bin/sh
# The documented deployment (scripts/README.examples, "Deploying, step by
# step"; checkpointctl(8), "DEPLOYMENT"), run as written, from a fresh
# make install DESTDIR=$T/dest:
# - install makes the state and run directories (mode 2770) and writes
#   this build's paths into the examples and man pages, the tmpfiles file
#   that makes the run directory again after a reboot included;
# - the README's lines, taken from the installed README so that the doc
#   and this test cannot drift, run as root with throwaway users in place
#   of checkpoint and www-data (only the names, the port and the
#   install's DESTDIR are changed, and each change must find its text):
#   setup makes the runner's user and the shared group, init the
#   database the group's, spawn-fcgi starts the app as the web server's
#   user, nginx of its own runs as that user, the cron line's runner as
#   its user; systemd-tmpfiles, from the file the steps put in place,
#   makes the run directory as setup made it (in a scratch root);
# - a POST through that nginx is 202, the runner's pass from the
#   installed cron line completes it as checkpoint 1 (not a failure),
#   the job's command registered in the operator's commands file (in
#   the trash directory, for /etc/checkpoint-api), and doctor finds
#   nothing wrong.
# Not root, only the install's checks run: the rest needs users made.

. "$(dirname "$0")/lib.sh"

for c in nginx spawn-fcgi curl runuser; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing"
done
unset CHECKPOINT_STORE_DURATION CHECKPOINT_MAX_BODY CHECKPOINT_CORS_ORIGIN \
    CHECKPOINT_REJECT_UNKNOWN_JOBS CHECKPOINT_BUSY_TIMEOUT CHECKPOINT_SYNC
J=0123456789abcdef0123456789abcdef

# makevar NAME: this build's value of an installation directory, expanded
# (the last line: make may first say that it brings the Makefile up to date).
makevar() {
	printf 'print-var:\n\t@echo $(%s)\n' "$1" |
	    env -u MAKEFLAGS -u MFLAGS make -s -C "$top_builddir" -f Makefile -f - print-var |
	    tail -n 1
}
BINDIR=$(makevar bindir)
STATEDIR=$(makevar localstatedir)/lib/checkpoint-api
RUNDIR=$(makevar runstatedir)/checkpoint-api
EXAMPLES=$(makevar docdir)/examples
MAN8=$(makevar mandir)/man8
ETCDIR=$(makevar sysconfdir)/checkpoint-api
[ -n "$BINDIR" ] && [ -n "$EXAMPLES" ] || bail "cannot read the build's directories"

DEST=$T/dest
chmod 0755 "$T"
env -u MAKEFLAGS -u MFLAGS make -C "$top_builddir" install DESTDIR="$DEST" \
    > "$T/install.log" 2>&1 || bail "make install DESTDIR=$DEST failed"

# --- what install made -------------------------------------------------------
is "$(stat -c %a "$DEST$STATEDIR")" 2770 "install: the state directory, mode 2770 (setgid)"
is "$(stat -c %a "$DEST$RUNDIR")" 2770 "install: the run directory, mode 2770 (setgid)"
grep -q "^\* \* \* \* \* checkpoint $BINDIR/checkpoint-runner " \
    "$DEST$EXAMPLES/checkpoint-runner.cron"
ok $? "install: the cron line runs this build's $BINDIR/checkpoint-runner"
grep -q "^CHECKPOINT_DB=$STATEDIR/checkpoints.db\$" "$DEST$EXAMPLES/checkpoint-runner.cron"
ok $? "install: the cron file's database is under this build's localstatedir"
grep -q "^ExecStart=$BINDIR/checkpoint-runner" "$DEST$EXAMPLES/checkpoint-runner.service"
ok $? "install: the systemd unit runs this build's runner"
grep -q "Pa $STATEDIR/checkpoints.db" "$DEST$MAN8/checkpointctl.8"
ok $? "install: checkpointctl(8) names this build's database"
if [ "$BINDIR" != /usr/bin ]; then
	is "$(cat "$DEST$EXAMPLES"/* "$DEST$MAN8"/* |
	    sed -e "s|$STATEDIR||g" -e "s|$BINDIR/||g" |
	    grep '/usr/bin/checkpoint\|/var/lib/checkpoint-api')" "" \
	    "install: no example or man page keeps /usr/bin or /var/lib"
else
	skip "install: no example or man page keeps /usr/bin or /var/lib" \
	    "this build's prefix is /usr"
fi
is "$(grep -v '^#' "$DEST$EXAMPLES/checkpoint-api.tmpfiles")" \
    "d $RUNDIR 2770 checkpoint checkpoint -" \
    "install: the tmpfiles file makes this build's run directory, as setup does"
test -f "$DEST$EXAMPLES/nginx-instance.conf" && test -f "$DEST$EXAMPLES/README"
ok $? "install: the README and nginx-instance.conf are in the examples"

# The README's step-by-step lines: the indented block after its title.
awk '/^Deploying, step by step$/ { on = 1; next }
    on && /^  [^ ]/ { print substr($0, 3); seen = 1; next }
    on && seen && /^[^ ]/ { exit }' "$DEST$EXAMPLES/README" > "$T/steps"
[ "$(wc -l < "$T/steps")" -ge 8 ]
ok $? "the README has its step-by-step block ($(wc -l < "$T/steps") lines)"

if [ "$(id -u)" -ne 0 ]; then
	skip "the documented steps, run as root" "not root: they make users and groups"
	done_testing
	exit
fi
for c in useradd userdel groupadd groupdel; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing"
done

# --- the documented steps, as root, with throwaway users ---------------------
RUNU=ckpt5210run
WEBU=ckpt5210web
GRP=ckpt5210grp
remove_users() {
	[ -n "${NGINX_PREFIX:-}" ] && [ -f "$NGINX_PREFIX/nginx.pid" ] &&
	    kill -QUIT "$(cat "$NGINX_PREFIX/nginx.pid")" 2>/dev/null
	[ -f "$DEST$RUNDIR/api.pid" ] &&
	    kill "$(cat "$DEST$RUNDIR/api.pid")" 2>/dev/null
	sleep 0.2
	for u in "$RUNU" "$WEBU"; do
		getent passwd "$u" >/dev/null && userdel "$u" 2>/dev/null
	done
	for g in "$GRP" "$WEBU"; do
		getent group "$g" >/dev/null && groupdel "$g" 2>/dev/null
	done
	return 0
}
remove_users
at_cleanup remove_users
# The web server's user exists before the deployment, as www-data does.
useradd --system --user-group --no-create-home --shell /usr/sbin/nologin \
    "$WEBU" || bail "useradd $WEBU"
PORT=$(free_port)
NGINX_PREFIX=$DEST$STATEDIR/nginx

# change FROM TO: every FROM in the steps becomes TO (change_in).
change() {
	change_in "$T/steps" "$1" "$2"
}
change "--user checkpoint" "--user $RUNU"
change "--group checkpoint" "--group $GRP"
change "-g checkpoint" "-g $GRP"
change "www-data" "$WEBU"
change "127.0.0.1:8080" "127.0.0.1:$PORT"
change "$BINDIR/" "$DEST$BINDIR/"
change "$STATEDIR" "$DEST$STATEDIR"
change "$RUNDIR" "$DEST$RUNDIR"
change "$EXAMPLES" "$DEST$EXAMPLES"
change "/etc/cron.d/" "$T/cron.d-"
change "/etc/tmpfiles.d/" "$T/tmpfiles.d-"
change "$ETCDIR" "$T/etc/checkpoint-api"
# The programs by name, as the operator's PATH finds them.
PATH=$DEST$BINDIR:$PATH
export PATH

# A root shell of its own: no CHECKPOINT_DB but what the steps export.
(unset CHECKPOINT_DB && cd "$T" && set -e && . "$T/steps") > "$T/steps.out" 2>&1
ok $? "the documented steps run, as written, without an error"
cat "$T/steps.out" | sed 's/^/# /'

is "$(stat -c '%U:%G %a' "$DEST$STATEDIR")" "$RUNU:$GRP 2770" \
    "setup: the state directory is the runner's and the group's"
is "$(stat -c '%G %a' "$DEST$STATEDIR/checkpoints.db")" "$GRP 660" \
    "init: the database is the group's, mode 0660"
id -nG "$WEBU" | tr ' ' '\n' | grep -qx "$GRP"
ok $? "setup: the web server's user is in the shared group"

# After a reboot, systemd-tmpfiles makes the run directory from the file
# the steps put in place, as setup made it: in a scratch root whose
# checkpoint user and group are the ids setup gave it.
TMPFILES=$T/tmpfiles.d-checkpoint-api.conf
test -f "$TMPFILES"
ok $? "the tmpfiles file is where the steps put it"
if command -v systemd-tmpfiles >/dev/null 2>&1; then
	mkdir -p "$T/root/etc"
	echo "checkpoint:x:$(id -u "$RUNU"):$(id -g "$RUNU")::/:/usr/sbin/nologin" \
	    > "$T/root/etc/passwd"
	echo "checkpoint:x:$(getent group "$GRP" | cut -d: -f3):" \
	    > "$T/root/etc/group"
	systemd-tmpfiles --create --root="$T/root" "$TMPFILES" \
	    > "$T/tmpfiles.out" 2>&1
	ok $? "systemd-tmpfiles --create with it, in a scratch root"
	sed 's/^/# /' "$T/tmpfiles.out"
	is "$(stat -c '%a %u %g' "$T/root$RUNDIR" 2>&1)" \
	    "$(stat -c '%a %u %g' "$DEST$RUNDIR")" \
	    "systemd-tmpfiles: the run directory, with setup's mode, owner and group"
else
	skip "systemd-tmpfiles --create with it, in a scratch root" \
	    "systemd-tmpfiles is missing"
fi

# A POST through nginx, answered by the app that spawn-fcgi started.
wait_port "$PORT" || bail "nginx did not listen on $PORT"
TID=$(curl -s -X POST -H 'Content-Type: application/json' -d '{}' \
    "http://127.0.0.1:$PORT/jobs/$J/checkpoints" |
    sed -n 's/^{"request-id":"\([0-9a-f]\{32\}\)"}$/\1/p')
[ -n "$TID" ]
ok $? "POST through nginx and spawn-fcgi: 202 with a request-id"
is "$(ps -o user= -p "$(cat "$DEST$RUNDIR/api.pid")" | tr -d ' ')" "$WEBU" \
    "the app runs as the web server's user"

# The runner as cron would run it: the installed cron file's variables
# and its line's command, as the line's user.
CRON=$T/cron.d-checkpoint-runner
test -f "$CRON"
ok $? "the cron file is where the steps put it"
CRON_DB=$(sed -n 's/^CHECKPOINT_DB=//p' "$CRON")
CRON_COMMANDS=$(sed -n 's/^CHECKPOINT_COMMANDS=//p' "$CRON")
is "$CRON_COMMANDS" "$ETCDIR/commands" \
    "the cron file's runner runs only the commands of the operator's file"
CRON_USER=$(awk '/^\*/ { print $6; exit }' "$CRON")
CRON_CMD=$(awk '/^\*/ { $1 = $2 = $3 = $4 = $5 = $6 = ""; print; exit }' "$CRON")
is "$CRON_USER" checkpoint "the cron line runs the runner as checkpoint (setup's default)"
# shellcheck disable=SC2086
runuser -u "$RUNU" -- env CHECKPOINT_DB="$DEST$CRON_DB" \
    CHECKPOINT_COMMANDS="$T/etc/checkpoint-api/commands" \
    $(printf '%s' "$CRON_CMD" | sed "s|$BINDIR/|$DEST$BINDIR/|") \
    > "$T/runner.out" 2>&1
ok $? "the runner's pass, as its user, from the cron line"
# The whole answer: a failed checkpoint's status is COMPLETED too, with a
# failureCause in place of the checkpoint's id (checkpoint-api(7),
# "GET /jobs/:jobid/checkpoints/:triggerid").
is "$(curl -s "http://127.0.0.1:$PORT/jobs/$J/checkpoints/$TID")" \
    '{"status":{"id":"COMPLETED"},"operation":{"checkpointId":1}}' \
    "the trigger is COMPLETED as checkpoint 1, through nginx"

CHECKPOINT_COMMANDS=$T/etc/checkpoint-api/commands \
    checkpointctl --db "$DEST$STATEDIR/checkpoints.db" doctor --user "$RUNU" \
    --web-user "$WEBU" --run-dir "$DEST$RUNDIR" > "$T/doctor.out" 2>&1
ok $? "doctor finds nothing wrong"
grep -qx "ok: commands file $T/etc/checkpoint-api/commands: only its owner writes it" "$T/doctor.out"
ok $? "doctor: the commands file the steps made is trusted"
sed 's/^/# /' "$T/doctor.out"

# Every way doctor knows the deployment broken: broken, doctor says so
# with a fix, the fix runs as printed (in a root shell, as the operator
# would), and doctor then finds nothing wrong.  No fix ever widens a
# group of the system: the directory made root's keeps root out of it.
doctor() {
	checkpointctl --db "$DEST$STATEDIR/checkpoints.db" doctor --user "$RUNU" \
	    --web-user "$WEBU" --run-dir "$DEST$RUNDIR" > "$T/doctor.out" 2>&1
}
DB=$DEST$STATEDIR/checkpoints.db
SETUP="checkpointctl --db $DB setup --user $RUNU --group $GRP --web-user $WEBU --run-dir $DEST$RUNDIR"
# break_fix WHAT BREAK WRONG: BREAK (a command), then doctor's line WRONG
# (a regular expression) and its fix, which is run.
break_fix() {
	sh -c "$2" || bail "break: $1"
	doctor
	rc=$?
	line=$(grep -E "^wrong: $3" "$T/doctor.out")
	[ "$rc" -eq 1 ] && [ -n "$line" ]
	wrong=$?
	[ "$wrong" -eq 0 ] || sed 's/^/# /' "$T/doctor.out"
	ok "$wrong" "doctor: $1 is wrong (exit $rc): $line"
	grep -n -e '--group root' -e 'chgrp root' "$T/doctor.out"
	ok $((!$?)) "  and no fix gives anything to group root"
	fixes=$(sed -n 's/^wrong: .*: \(checkpointctl --db .*\|chgrp .*\)$/\1/p' "$T/doctor.out")
	[ -n "$fixes" ] && (cd "$T" && sh -ec "$fixes") > "$T/fix.out" 2>&1
	ok $? "  its fix runs as printed: $fixes"
	sed 's/^/# /' "$T/fix.out"
	doctor
	ok $? "  and doctor then finds nothing wrong"
	grep '^wrong' "$T/doctor.out" | sed 's/^/# /'
}
break_fix "a database mode 0640" "chmod 0640 $DB" \
    "runner user $RUNU may not write $DB: chgrp $GRP $DB && chmod 0660 $DB\$"
break_fix "a directory made root's" "chown root:root $DEST$STATEDIR && chmod 2775 $DEST$STATEDIR" \
    "directory $DEST$STATEDIR belongs to group root, a group of the system, which the services must not share: $SETUP\$"
break_fix "a directory not setgid" "chmod g-s $DEST$STATEDIR" \
    "directory $DEST$STATEDIR is shared with no group \\(not setgid\\): $SETUP\$"
break_fix "the web server's user out of the group" "gpasswd -d $WEBU $GRP" \
    "web server user $WEBU may not write directory $DEST$STATEDIR: $SETUP\$"
break_fix "a run directory the web server may not enter" "chmod 2700 $DEST$RUNDIR" \
    "web server user $WEBU may not reach the app's socket in $DEST$RUNDIR: $SETUP\$"
# The app's pid file is kept for the cleanup, which stops the app by it.
cp "$DEST$RUNDIR/api.pid" "$T/api.pid"
break_fix "the run directory gone" "rm -rf $DEST$RUNDIR" \
    "run directory $DEST$RUNDIR: No such file or directory: $SETUP\$"
cp "$T/api.pid" "$DEST$RUNDIR/api.pid"
# Asked for a group of the system, doctor names the runner's own, and
# setup refuses it; neither gives a system directory to the services.
checkpointctl --db "$DB" doctor --user "$RUNU" --group root --web-user "$WEBU" \
    --run-dir "$DEST$RUNDIR" > "$T/doctor.out" 2>&1
is "$?|$(grep '^wrong: --group' "$T/doctor.out")" \
    "1|wrong: --group root is a group of the system: the services must have their own; $SETUP" \
    "doctor --group root: wrong, and the fix names the runner's group"
checkpointctl --db "$DB" setup --user "$RUNU" --group root > "$T/setup.out" 2>&1
is "$?|$(cat "$T/setup.out")" \
    "1|checkpointctl: --group root is a group of the system: the services would share its files; name a group of their own (setup makes it)" \
    "setup --group root is refused"
checkpointctl --db /var/lib/checkpoints.db setup --user "$RUNU" --group "$GRP" \
    --run-dir "$DEST$RUNDIR" > "$T/setup.out" 2>&1
is "$?|$(stat -c %U:%G /var/lib)|$(cat "$T/setup.out")" \
    "1|root:root|checkpointctl: /var/lib is a directory of the system: give the database and the run directory their own (checkpointctl(8), DEPLOYMENT)" \
    "setup refuses to take over /var/lib"
checkpointctl --db /var/lib/checkpoints.db doctor --user "$RUNU" \
    --run-dir "$DEST$RUNDIR" > "$T/doctor.out" 2>&1
is "$(grep '^wrong: the database' "$T/doctor.out")" \
    "wrong: the database is in /var/lib, a directory of the system: move it into a directory of its own (checkpointctl(8), DEPLOYMENT)" \
    "doctor: a database directly in /var/lib is to be moved, not shared"

# A database gone: init's fix makes an empty one, which doctor then opens
# (its jobs and the runner's passes were in the one gone).
mv "$DB" "$DB.kept"
doctor
is "$(grep '^wrong: database' "$T/doctor.out")" \
    "wrong: database $DB cannot be opened: No such file or directory: checkpointctl --db $DB init" \
    "doctor: the database gone is wrong, with the fix"
(cd "$T" && sh -ec "$(sed -n 's/^wrong: database .*: \(checkpointctl --db .*\)$/\1/p' "$T/doctor.out")") > "$T/fix.out" 2>&1
ok $? "  its fix runs as printed"
doctor
grep -q "^ok: database $DB (sqlite): schema version" "$T/doctor.out" &&
    grep -qx "ok: runner user $RUNU may write $DB and its directory" "$T/doctor.out" &&
    grep -qx "ok: web server user $WEBU may write $DB and its directory" "$T/doctor.out"
ok $? "  and doctor then opens it, and both users may write it"
mv "$DB.kept" "$DB"

# setup again, without CHECKPOINT_COMMANDS: it says to set it.
(unset CHECKPOINT_COMMANDS CHECKPOINT_DB && checkpointctl \
    --db "$DEST$STATEDIR/checkpoints.db" setup --user "$RUNU" --group "$GRP" \
    --web-user "$WEBU" --run-dir "$DEST$RUNDIR") > "$T/setup2.out" 2>&1
rc=$?
[ "$rc" -eq 0 ] && grep -q "^commands: set CHECKPOINT_COMMANDS, for the runner and checkpointctl" "$T/setup2.out"
ok $? "setup without CHECKPOINT_COMMANDS says to set it (exit $rc)"

done_testing
