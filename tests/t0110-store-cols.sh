#!/bin/sh
# The store's files (cgi/store*.c) read a row's columns through
# store_q_cols, store_q_next_row and store_q_one_row, told
# each place's kind by a letter (i int64_t *, b and n int *, t const
# char **, c char **, d struct id *, T enum ckpt_type *, S enum
# job_state *, - a column passed over).  The compiler cannot see a
# letter, so a place of the wrong type would be written through as the
# letter says.  Here every call's places are checked against its letters
# by the compiler: a copy of each store file, each function followed by
# one static assertion a place, is compiled.  The check is first run on a
# copy with one letter changed, so that a checker that checks nothing
# fails here.

. "$(dirname "$0")/lib.sh"

# The files that read rows: every store file but the drivers' own.
SRCS=$(grep -l '^[[:space:]].*store_q_\(cols\|next_row\|one_row\)(' \
    "$top_srcdir"/cgi/store*.c | grep -v '_sqlite\|_pg')
PLANTED=$top_srcdir/cgi/store_runner.c
CC=${CC:-cc}
command -v "$CC" >/dev/null 2>&1 || bail "no C compiler ($CC)"
# The libraries' headers, as the build finds them.
INC=$(pkg-config --cflags sqlite3 json-c 2>/dev/null)

# asserts FILE: FILE with, before each function's closing brace, a
# static assertion for every place of every call of cols, next_row or
# one_row in it.  Prints "calls N places M" on stderr.
asserts() {
	awk '
	function type(k) {
		if (k == "i") return "int64_t *"
		if (k == "b" || k == "n") return "int *"
		if (k == "t") return "const char **"
		if (k == "c") return "char **"
		if (k == "d") return "struct id *"
		if (k == "T") return "enum ckpt_type *"
		if (k == "S") return "enum job_state *"
		return ""
	}
	# Splits the call text c (from its "(" on) into args[1..n].
	function split_args(c,    i, ch, depth, q, cur, n) {
		n = 0; depth = 0; q = 0; cur = ""
		for (i = 1; i <= length(c); i++) {
			ch = substr(c, i, 1)
			if (q) {
				cur = cur ch
				if (ch == "\"" && substr(c, i - 1, 1) != "\\")
					q = 0
				continue
			}
			if (ch == "\"") { q = 1; cur = cur ch; continue }
			if (ch == "(") { depth++; if (depth == 1) continue }
			if (ch == ")") { depth--; if (depth == 0) break }
			if (ch == "," && depth == 1) { args[++n] = cur; cur = ""; continue }
			cur = cur ch
		}
		args[++n] = cur
		return n
	}
	function balanced(c,    i, ch, depth, q, seen) {
		depth = 0; q = 0; seen = 0
		for (i = 1; i <= length(c); i++) {
			ch = substr(c, i, 1)
			if (q) { if (ch == "\"" && substr(c, i - 1, 1) != "\\") q = 0; continue }
			if (ch == "\"") q = 1
			else if (ch == "(") { depth++; seen = 1 }
			else if (ch == ")") { depth--; if (seen && depth == 0) return 1 }
		}
		return 0
	}
	function check(c,    n, i, k, kinds, p, letter, a) {
		n = split_args(c)
		k = 0
		for (i = 1; i <= n; i++)
			if (args[i] ~ /^[ \t]*"/)
				k = i
		if (k == 0)
			return
		kinds = args[k]
		gsub(/^[ \t]*"|"[ \t]*$/, "", kinds)
		p = k
		calls++
		for (i = 1; i <= length(kinds); i++) {
			letter = substr(kinds, i, 1)
			if (letter == "-")
				continue
			if (++p > n || type(letter) == "") {
				printf "#error \"line %d: %s: no place for letter %s\"\n", start, kinds, letter > "/dev/stderr"
				bad = 1
				continue
			}
			a = args[p]
			gsub(/^[ \t]+|[ \t]+$/, "", a)
			pending = pending sprintf("_Static_assert(__builtin_types_compatible_p(__typeof__(%s), %s), \"%s line %d: %s is not %s\");\n", a, type(letter), FILENAME, start, a, type(letter))
			places++
		}
		if (p != n) {
			printf "line %d: %s: %d places for %d letters\n", start, kinds, n - k, p - k > "/dev/stderr"
			bad = 1
		}
	}
	{
		if ($0 == "}" && pending != "") {
			printf "{\n%s}\n", pending
			pending = ""
		}
		if (incall) {
			call = call " " $0
		} else if ($0 ~ /^[ \t]/ && match($0, /(^|[^a-z_])store_q_(cols|next_row|one_row)\(/)) {
			call = substr($0, RSTART)
			start = NR
			incall = 1
		}
		if (incall && balanced(call)) {
			sub(/^[^a-z_]/, "", call)
			check(substr(call, index(call, "(")))
			incall = 0
		}
		print
	}
	END {
		printf "calls %d places %d\n", calls, places > "/dev/stderr"
		exit bad
	}' "$1"
}

compiles() {
	# shellcheck disable=SC2086
	"$CC" -std=c11 -D_GNU_SOURCE -fsyntax-only -I "$top_builddir" \
	    -I "$top_srcdir/cgi" -I "$top_builddir/cgi" $INC "$1"
}

# The checker on a planted mistake: the first 'i' of cols' letters in a
# call that reads an int64_t, made 'b' (an int *).
sed '0,/cols(&r, "iddtiiT"/s//cols(\&r, "bddtiiT"/' "$PLANTED" > "$T/planted.c"
! cmp -s "$PLANTED" "$T/planted.c"
ok $? "a letter planted wrong in a copy of store_runner.c (\"iddtiiT\")"
asserts "$T/planted.c" > "$T/planted-checked.c" 2>"$T/planted.err"
compiles "$T/planted-checked.c" > "$T/planted.out" 2>&1
[ $? -ne 0 ] && grep -q "is not int \*" "$T/planted.out"
ok $? "  is refused by the compiler, naming the place and the type"

# Each store file as it is.
total=0
for src in $SRCS; do
	f=$(basename "$src" .c)
	asserts "$src" > "$T/$f-checked.c" 2>"$T/$f.err"
	ok $? "$f.c: every call's letters have places, one each: $(cat "$T/$f.err")"
	calls=$(sed -n 's/^calls \([0-9]*\) .*/\1/p' "$T/$f.err")
	total=$((total + ${calls:-0}))
	compiles "$T/$f-checked.c" > "$T/$f.out" 2>&1
	ok $? "  every place has the type its letter says"
	[ -s "$T/$f.out" ] && diag "$(head -n 20 "$T/$f.out")"
done
[ "$total" -ge 20 ]
ok $? "the calls were found ($total)"

done_testing
