#!/bin/sh
# PostgreSQL credentials as scripts/README.examples ("PostgreSQL") gives
# them, its lines run as written (only the users, the port and the
# directories changed, each change finding its text): the role's password
# set without a terminal, then a pgpass per system user, the user's own,
# mode 0600, for the loopback URI's host.  The web server's user and the
# runner's then each connect with their own file; one file shared through
# a group (mode 0640), which libpq ignores, is refused with the user tried
# and the likely cause named.  Root only: it makes throwaway users.

. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	skip "a pgpass per user, as the README writes it" "not root: it makes users"
	done_testing
	exit
fi
for c in useradd userdel runuser; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing"
done
. "$(dirname "$0")/pg.sh"

WEBU=ckpt6265web
RUNU=ckpt6265run
remove_users() {
	for u in "$WEBU" "$RUNU"; do
		getent passwd "$u" >/dev/null && userdel "$u" 2>/dev/null
		getent group "$u" >/dev/null && groupdel "$u" 2>/dev/null
	done
	return 0
}
remove_users
at_cleanup remove_users
for u in "$WEBU" "$RUNU"; do
	useradd --system --user-group --no-create-home --shell /usr/sbin/nologin \
	    "$u" || bail "useradd $u"
done
chmod 0755 "$T"

pg_start
psql_q "CREATE ROLE checkpoint LOGIN" postgres || bail "CREATE ROLE"
psql_q "CREATE DATABASE checkpoint_db OWNER checkpoint" postgres ||
    bail "CREATE DATABASE"
od -An -N12 -tx1 /dev/urandom | tr -d ' \n' > "$T/checkpoint.pw"
chmod 0600 "$T/checkpoint.pw"

README=$top_srcdir/scripts/README.examples
# block START: the README's indented lines after the line START, up to the
# next unindented one.
block() {
	awk -v start="$1" 'index($0, start) == 1 { on = 1; next }
	    on && /^  / { print substr($0, 3); seen = 1; next }
	    on && seen && /^[^ ]/ { exit }' "$README"
}
# The role's password, without a terminal.
block "or, without a terminal (a script)" > "$T/password"
change_in "$T/password" "sudo -u postgres psql" \
    "$PG_BIN/psql -X -q -d $(pg_uri postgres)"
change_in "$T/password" "/root/checkpoint.pw" "$T/checkpoint.pw"
(. "$T/password") > "$T/password.out" 2>&1
ok $? "the role's password set as the README writes it"
sed 's/^/# /' "$T/password.out"

# A pgpass per user.
block "checkpoint-pg.env holds CHECKPOINT_DB; PGPASSFILE is each user's own:" \
    > "$T/pgpass"
change_in "$T/pgpass" "/etc/checkpoint-api" "$T/etc"
change_in "$T/pgpass" "for u in www-data checkpoint" "for u in $WEBU $RUNU"
change_in "$T/pgpass" "127.0.0.1:5432:checkpoints:" "127.0.0.1:$PG_PORT:checkpoint_db:"
change_in "$T/pgpass" "/root/checkpoint.pw" "$T/checkpoint.pw"
(set -e && . "$T/pgpass") > "$T/pgpass.out" 2>&1
ok $? "the pgpass lines run as written"
sed 's/^/# /' "$T/pgpass.out"
for u in "$WEBU" "$RUNU"; do
	is "$(stat -c '%U %a' "$T/etc/pgpass-$u" 2>&1)" "$u 600" \
	    "pgpass-$u: the user's own, mode 0600"
done

# Each program's user with its own file, over the loopback URI.
URI=postgresql://checkpoint@127.0.0.1:$PG_PORT/checkpoint_db
as() {
	_u=$1
	shift
	runuser -u "$_u" -- env -i PATH="$PATH" PGPASSFILE="$T/etc/pgpass-$_u" \
	    "$CTL" --db "$URI" "$@"
}
as "$RUNU" init > "$T/out" 2>&1
ok $? "the runner's user connects with its own pgpass (init)"
sed 's/^/# /' "$T/out"
as "$WEBU" job list > "$T/out" 2>&1
ok $? "the web server's user connects with its own pgpass"
sed 's/^/# /' "$T/out"

# One file for both, shared through a group: libpq ignores it.
cp "$T/etc/pgpass-$RUNU" "$T/etc/pgpass-shared"
chown "$RUNU:$WEBU" "$T/etc/pgpass-shared"
chmod 0640 "$T/etc/pgpass-shared"
runuser -u "$WEBU" -- env -i PATH="$PATH" PGPASSFILE="$T/etc/pgpass-shared" \
    "$CTL" --db "$URI" job list > "$T/out" 2>&1
rc=$?
is "$rc" 1 "a pgpass shared through a group (0640) does not serve"
like "$(grep '^checkpointctl:' "$T/out")" \
    "^checkpointctl: postgresql://checkpoint@127.0.0.1:$PG_PORT/checkpoint_db: .*no password supplied: is there a pgpass for this user " \
    "  and the error names the user and the likely cause"

done_testing
