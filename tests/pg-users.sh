# Sourced, as root, by the tests that connect to PostgreSQL as separate
# system users (t6266, t6440), with WEBU and RUNU set: makes those two
# throwaway users (removed at the end), starts a server, runs
# scripts/pg-setup.sql as the docs do (it makes the roles and the
# database "checkpoints" itself), and writes each role's random
# password to $T/<role>.pw, mode 0600, for the test to set.

for c in useradd userdel; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing"
done
. "$(dirname "$0")/pg.sh"

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
psql_q "DROP DATABASE checkpoints" postgres || bail "DROP DATABASE"
"$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$(pg_uri postgres)" \
    -f "$top_srcdir/scripts/pg-setup.sql" > "$T/setup.out" 2>&1 ||
    bail "pg-setup.sql: $(cat "$T/setup.out")"
for r in checkpoint checkpoint_web checkpoint_runner; do
	od -An -N12 -tx1 /dev/urandom | tr -d ' \n' > "$T/$r.pw"
	chmod 0600 "$T/$r.pw"
done

# pg_owner_init [&PARAM...]: the owner's pgpass, root's, and its URI in
# OWNER (its passfile, and the PARAMs); then init and pg-grants.sql as
# the owner.  The roles' passwords must be set.
pg_owner_init() {
	printf '127.0.0.1:%s:checkpoints:checkpoint:%s\n' "$PG_PORT" \
	    "$(cat "$T/checkpoint.pw")" > "$T/owner-pgpass"
	chmod 0600 "$T/owner-pgpass"
	OWNER="postgresql://checkpoint@127.0.0.1:$PG_PORT/checkpoints?passfile=$T/owner-pgpass${1:-}"
	"$CTL" --db "$OWNER" init > /dev/null || bail "init as the owner"
	"$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$OWNER" \
	    -f "$top_srcdir/scripts/pg-grants.sql" > "$T/grants.out" 2>&1 ||
	    bail "pg-grants.sql: $(cat "$T/grants.out")"
}
