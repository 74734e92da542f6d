#!/bin/sh
# The C unit programs that take a store, on PostgreSQL, each on an empty
# database of a server of its own (tests/pg.sh): unit-store's driver tests
# (those every store must pass alike: triggers, failures, listings,
# claims, jobs, ids, the export), unit-nomem's answers of the API when
# memory runs out, and unit-perjob's statements about one job, which
# visit no more rows on a fleet ten times as large.  Each of the
# programs' checks is one check here.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg.sh"

pg_start

# Runs the unit program $1 on a new database $2; at least $3 checks.
unit_on_pg() {
	unit=$top_builddir/tests/$1
	[ -x "$unit" ] || bail "$unit is not built (make check builds it)"
	pg_app_db "$2"
	UNIT_STORE_DB=$CHECKPOINT_DB "$unit" > "$T/$1.out" 2> "$T/$1.err"
	rc=$?
	# The program's checks, renumbered as this test's.
	n=0
	while IFS= read -r line; do
		case $line in
		"ok "*)
			n=$((n + 1))
			ok 0 "$1: ${line#ok * - }"
			;;
		"not ok "*)
			n=$((n + 1))
			ok 1 "$1: ${line#not ok * - }"
			;;
		"#"*) printf '%s\n' "$line" ;;
		esac
	done < "$T/$1.out"
	ok "$([ "$n" -ge "$3" ] && echo 0 || echo 1)" \
	    "$1: its checks ran ($n)"
	is "$rc" 0 "$1 exits 0"
	[ "$rc" -eq 0 ] || diag "$(tail -n 20 "$T/$1.err")"
}

unit_on_pg unit-store unit 50
unit_on_pg unit-nomem nomem 20
unit_on_pg unit-perjob perjob 25
done_testing
