#!/bin/sh
# PostgreSQL credentials as scripts/README.examples ("PostgreSQL") gives
# them, its lines run as written (only the users, the port and the
# directories changed, each change finding its text): the roles' passwords
# (pg-setup.sql's) set without a terminal, then a pgpass per system user
# with its program's role, the user's own, mode 0600, for the loopback
# URI's host.  The web server's user and the runner's then each connect
# as their role with their own file; one file shared through
# a group (mode 0640), which libpq ignores, is refused with the user tried
# and the likely cause named.  Root only: it makes throwaway users.

. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	skip "a pgpass per user, as the README writes it" "not root: it makes users"
	done_testing
	exit
fi
command -v runuser >/dev/null 2>&1 || bail "runuser is missing"
WEBU=ckpt6266web
RUNU=ckpt6266run
. "$(dirname "$0")/pg-users.sh"

README=$top_srcdir/scripts/README.examples
# block START: the README's indented lines after the line START, up to the
# next unindented one.
block() {
	awk -v start="$1" 'index($0, start) == 1 { on = 1; next }
	    on && /^  / { print substr($0, 3); seen = 1; next }
	    on && seen && /^[^ ]/ { exit }' "$README"
}
# Each role's password, without a terminal.
block "or, without a terminal (a script)" > "$T/password"
change_in "$T/password" "sudo -u postgres psql" \
    "$PG_BIN/psql -X -q -d $(pg_uri postgres)"
change_in "$T/password" "/root/" "$T/"
(. "$T/password") > "$T/password.out" 2>&1
ok $? "the roles' passwords set as the README writes it"
sed 's/^/# /' "$T/password.out"

# The owner's init and grants, with a pgpass of root's.
pg_owner_init

# A pgpass per user, with its program's role.
block "A pgpass for each system user, with its program's role and password" \
    > "$T/pgpass"
change_in "$T/pgpass" "/etc/checkpoint-api" "$T/etc"
change_in "$T/pgpass" "www-data:checkpoint_web" "$WEBU:checkpoint_web"
change_in "$T/pgpass" "checkpoint:checkpoint_runner" "$RUNU:checkpoint_runner"
change_in "$T/pgpass" "127.0.0.1:5432:checkpoints:" "127.0.0.1:$PG_PORT:checkpoints:"
change_in "$T/pgpass" "/root/" "$T/"
(set -e && . "$T/pgpass") > "$T/pgpass.out" 2>&1
ok $? "the pgpass lines run as written"
sed 's/^/# /' "$T/pgpass.out"
for u in "$WEBU" "$RUNU"; do
	is "$(stat -c '%U %a' "$T/etc/pgpass-$u" 2>&1)" "$u 600" \
	    "pgpass-$u: the user's own, mode 0600"
done

# Each program's user with its own file, as its role, over the loopback.
uri() {
	printf 'postgresql://%s@127.0.0.1:%s/checkpoints' "$1" "$PG_PORT"
}
as() {
	_u=$1 _r=$2
	shift 2
	runuser -u "$_u" -- env -i PATH="$PATH" PGPASSFILE="$T/etc/pgpass-$_u" \
	    "$CTL" --db "$(uri "$_r")" "$@"
}
as "$RUNU" checkpoint_runner job list > "$T/out" 2>&1
ok $? "the runner's user connects as its role with its own pgpass"
sed 's/^/# /' "$T/out"
as "$WEBU" checkpoint_web job list > "$T/out" 2>&1
ok $? "the web server's user connects as its role with its own pgpass"
sed 's/^/# /' "$T/out"

# One file for both, shared through a group: libpq ignores it.
cp "$T/etc/pgpass-$WEBU" "$T/etc/pgpass-shared"
chown "$RUNU:$WEBU" "$T/etc/pgpass-shared"
chmod 0640 "$T/etc/pgpass-shared"
runuser -u "$WEBU" -- env -i PATH="$PATH" PGPASSFILE="$T/etc/pgpass-shared" \
    "$CTL" --db "$(uri checkpoint_web)" job list > "$T/out" 2>&1
rc=$?
is "$rc" 1 "a pgpass shared through a group (0640) does not serve"
like "$(grep '^checkpointctl:' "$T/out")" \
    "^checkpointctl: postgresql://checkpoint_web@127.0.0.1:$PG_PORT/checkpoints: .*no password supplied: is there a pgpass for this user " \
    "  and the error names the user and the likely cause"

done_testing
