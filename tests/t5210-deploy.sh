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
#   and doctor finds nothing wrong.
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

# change FROM TO: every FROM in the steps becomes TO; the FROM must be
# there, so that a step the README lost fails here.
change() {
	grep -qF -- "$1" "$T/steps" || {
		ok 1 "the steps have '$1'"
		return 1
	}
	_from=$(printf '%s' "$1" | sed 's/[|.[\*^$]/\\&/g')
	sed -i "s|$_from|$2|g" "$T/steps"
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
CRON_USER=$(awk '/^\*/ { print $6; exit }' "$CRON")
CRON_CMD=$(awk '/^\*/ { $1 = $2 = $3 = $4 = $5 = $6 = ""; print; exit }' "$CRON")
is "$CRON_USER" checkpoint "the cron line runs the runner as checkpoint (setup's default)"
# shellcheck disable=SC2086
runuser -u "$RUNU" -- env CHECKPOINT_DB="$DEST$CRON_DB" \
    $(printf '%s' "$CRON_CMD" | sed "s|$BINDIR/|$DEST$BINDIR/|") \
    > "$T/runner.out" 2>&1
ok $? "the runner's pass, as its user, from the cron line"
# The whole answer: a failed checkpoint's status is COMPLETED too, with a
# failureCause in place of the checkpoint's id (checkpoint-api(7),
# "GET /jobs/:jobid/checkpoints/:triggerid").
is "$(curl -s "http://127.0.0.1:$PORT/jobs/$J/checkpoints/$TID")" \
    '{"status":{"id":"COMPLETED"},"operation":{"checkpointId":1}}' \
    "the trigger is COMPLETED as checkpoint 1, through nginx"

checkpointctl --db "$DEST$STATEDIR/checkpoints.db" doctor --user "$RUNU" \
    --web-user "$WEBU" --run-dir "$DEST$RUNDIR" > "$T/doctor.out" 2>&1
ok $? "doctor finds nothing wrong"
sed 's/^/# /' "$T/doctor.out"

# What doctor says of a database its users may not write.
chmod 0640 "$DEST$STATEDIR/checkpoints.db"
checkpointctl --db "$DEST$STATEDIR/checkpoints.db" doctor --user "$RUNU" \
    --web-user "$WEBU" --run-dir "$DEST$RUNDIR" > "$T/doctor.out" 2>&1
rc=$?
[ "$rc" -eq 1 ] && grep -qx "wrong: runner user $RUNU may not write $DEST$STATEDIR/checkpoints.db: chgrp $GRP $DEST$STATEDIR/checkpoints.db && chmod 0660 $DEST$STATEDIR/checkpoints.db" "$T/doctor.out"
ok $? "doctor: a database mode 0640 is wrong, with the fix (exit $rc)"
chmod 0660 "$DEST$STATEDIR/checkpoints.db"

done_testing
