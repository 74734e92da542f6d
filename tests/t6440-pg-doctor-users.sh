#!/bin/sh
# checkpointctl doctor on PostgreSQL connects, for real, as each program's
# system user (--user, the runner's; --web-user, the web server's) with
# that user's own credentials: the pgpass of the documented layout
# (--pgpass-dir, pgpass-<user>) and the programs' roles (checkpoint_runner,
# checkpoint_web, or --runner-role and --web-role), never the operator's
# password or passfile.  Each way to break it (a pgpass shared through a
# group, a wrong password, none at all, a role the file has no line for)
# is a wrong line naming the user and libpq's reason; the fix it prints,
# done, makes it ok again.  Root only: it makes throwaway users.

. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	skip "doctor connects as each program's user" "not root: it makes users"
	done_testing
	exit
fi
WEBU=ckpt6440web
RUNU=ckpt6440run
. "$(dirname "$0")/pg-users.sh"
for r in checkpoint checkpoint_web checkpoint_runner; do
	psql_q "ALTER ROLE $r PASSWORD '$(cat "$T/$r.pw")'" postgres ||
	    bail "ALTER ROLE $r"
done
# The operator's URI, its passfile root's: none of it is the programs'.
pg_owner_init '&connect_timeout=5'
VERSION=$("$PG_BIN/psql" -X -A -t -d "$OWNER" -c "SELECT version FROM schema_version")

# pgpass USER ROLE [PASSWORD]: USER's file of the layout, its own, 0600.
mkdir -p "$T/etc" "$T/run"
pgpass() {
	printf '127.0.0.1:%s:checkpoints:%s:%s\n' "$PG_PORT" "$2" \
	    "${3:-$(cat "$T/$2.pw")}" > "$T/etc/pgpass-$1"
	chown "$1" "$T/etc/pgpass-$1" && chmod 0600 "$T/etc/pgpass-$1"
}
pgpass "$RUNU" checkpoint_runner
pgpass "$WEBU" checkpoint_web

# doctor [OPTION...]: its lines about the connections, in $OUT.
doctor() {
	"$CTL" --db "$OWNER" doctor --user "$RUNU" --web-user "$WEBU" \
	    --run-dir "$T/run" --pgpass-dir "$T/etc" "$@" > "$T/doctor.out" 2>&1
	OUT=$(grep -e ' connects to ' -e ' cannot connect ' "$T/doctor.out")
	sed 's/^/# /' "$T/doctor.out"
}
uri() {
	printf 'postgresql://%s@127.0.0.1:%s/checkpoints?connect_timeout=5' \
	    "$1" "$PG_PORT"
}
OK_RUNNER="ok: runner user $RUNU connects to $(uri checkpoint_runner) with $T/etc/pgpass-$RUNU: schema version $VERSION"
OK_WEB="ok: web server user $WEBU connects to $(uri checkpoint_web) with $T/etc/pgpass-$WEBU: schema version $VERSION"

doctor
is "$OUT" "$(printf '%s\n' "$OK_RUNNER" "$OK_WEB")" \
    "each program's user connects as its role with its own pgpass, the operator's passfile and user left out"

# A pgpass shared through a group (0640): libpq ignores it.
chmod 0640 "$T/etc/pgpass-$WEBU"
doctor
is "$(printf '%s\n' "$OUT" | head -n 1)" "$OK_RUNNER" "a shared pgpass: the runner's line still ok"
like "$(printf '%s\n' "$OUT" | sed -n 2p)" \
    "^wrong: web server user $WEBU cannot connect with $T/etc/pgpass-$WEBU: .*checkpoint_web@127\\.0\\.0\\.1:$PG_PORT/checkpoints.*no password supplied.*: give it a pgpass of its own, mode 0600, with a line HOST:PORT:DATABASE:checkpoint_web:PASSWORD .* in $T/etc/pgpass-$WEBU " \
    "  the web server's: wrong, with the user, libpq's reason and the fix"
chmod 0600 "$T/etc/pgpass-$WEBU"
doctor
is "$OUT" "$(printf '%s\n' "$OK_RUNNER" "$OK_WEB")" "  the fix done (mode 0600): ok"

# A wrong password.
pgpass "$RUNU" checkpoint_runner not-the-password
doctor
like "$(printf '%s\n' "$OUT" | head -n 1)" \
    "^wrong: runner user $RUNU cannot connect with $T/etc/pgpass-$RUNU: .*password authentication failed for user \"checkpoint_runner\"" \
    "a wrong password: wrong, libpq's reason"
pgpass "$RUNU" checkpoint_runner
doctor
is "$(printf '%s\n' "$OUT" | head -n 1)" "$OK_RUNNER" "  the line as the fix says: ok"

# No file of the layout: the user's ~/.pgpass, which it has none of.
mv "$T/etc/pgpass-$RUNU" "$T/runner-pgpass.away"
doctor
like "$(printf '%s\n' "$OUT" | head -n 1)" \
    "^wrong: runner user $RUNU cannot connect with its ~/\\.pgpass: .*no password supplied" \
    "no pgpass-USER: the user's own ~/.pgpass tried, and wrong"
mv "$T/runner-pgpass.away" "$T/etc/pgpass-$RUNU"

# Another role: the file has no line for it.
doctor --runner-role checkpoint
like "$(printf '%s\n' "$OUT" | head -n 1)" \
    "^wrong: runner user $RUNU cannot connect with $T/etc/pgpass-$RUNU: .*checkpoint@127\\.0\\.0\\.1.*no password supplied.*HOST:PORT:DATABASE:checkpoint:PASSWORD" \
    "--runner-role: that role tried"

# Without --web-user, the web server's user is not asked about.
"$CTL" --db "$OWNER" doctor --user "$RUNU" --run-dir "$T/run" \
    --pgpass-dir "$T/etc" > "$T/doctor.out" 2>&1
is "$(grep -c ' connects to ' "$T/doctor.out")" 1 "no --web-user: the runner's line only"

done_testing
