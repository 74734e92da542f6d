#!/bin/sh
# The driver tests of tests/unit-store (those every store must pass
# alike: triggers, failures, listings, claims, jobs, ids, the export) on
# PostgreSQL, in C, on an empty database of a server of its own
# (tests/pg.sh).  Each of the program's checks is one check here.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg.sh"

UNIT=$top_builddir/tests/unit-store
[ -x "$UNIT" ] || bail "$UNIT is not built (make check builds it)"

pg_start
pg_app_db unit
UNIT_STORE_DB=$CHECKPOINT_DB "$UNIT" > "$T/unit.out" 2> "$T/unit.err"
rc=$?

# The program's checks, renumbered as this test's.
n=0
while IFS= read -r line; do
	case $line in
	"ok "*)
		n=$((n + 1))
		ok 0 "${line#ok * - }"
		;;
	"not ok "*)
		n=$((n + 1))
		ok 1 "${line#not ok * - }"
		;;
	"#"*) printf '%s\n' "$line" ;;
	esac
done < "$T/unit.out"
ok "$([ "$n" -gt 50 ] && echo 0 || echo 1)" \
    "the driver tests ran ($n checks)"
is "$rc" 0 "unit-store exits 0"
[ "$rc" -eq 0 ] || diag "$(tail -n 20 "$T/unit.err")"
done_testing
