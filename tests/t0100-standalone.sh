#!/bin/sh
# The project stands alone: no file of it points at documents outside it
# (the notes that preceded checkpoint-api(7), a shared folder beside the
# checkout) or at an issue tracker's numbers, which a reader of the
# tarball cannot follow.  Every citation of checkpoint-api(7) that names a
# section in quotes names one the page has.
#
# The files checked are the tracked ones in a git checkout, and every file
# of the source tree otherwise (make distcheck builds from the tarball,
# without .git), less what the build generates.  The scanner is first run
# on planted lines, so that a scanner that finds nothing fails here.

. "$(dirname "$0")/lib.sh"

SRC=$(cd "$top_srcdir" && pwd -P)

# Each pattern is written so that it does not match its own text.
OUTSIDE='[.][.]/shared|/work[/]shared|shared[/]research|(API|DESIGN|STYLE)[.]md|research/[A-Za-z0-9_-]+[.](md|yml)'
ISSUE_WORD='(issue|bug|ticket|pull request)s?[[:space:]]+#?[0-9]+'
# A number after a hash sign where a word starts, as in a reference in
# parentheses.  A CSS colour (in a declaration, before ';') is not one.
ISSUE_HASH='(^|[[:space:](\[])#[0-9]+([^0-9A-Za-z_]|$)'
CSS_COLOUR=':[^;]*#[0-9A-Fa-f]+[[:space:]]*[;!}]'

# list_files DIR: the files to check, one a line, relative to DIR.
list_files() {
	if top=$(git -C "$1" rev-parse --show-toplevel 2>/dev/null) &&
	    [ "$(cd "$top" && pwd -P)" = "$1" ]; then
		git -C "$1" ls-files
	else
		# A build tree inside it (make distcheck's _build/sub) is
		# pruned, and so are the files autoreconf, configure and make
		# write beside the sources.
		(cd "$1" && find . \( -name .git -o -name autom4te.cache \
		    -o -name build-aux -o -name .deps \) -prune -o \
		    -type d ! -path . -exec test -e '{}/config.status' \; \
		    -prune -o -type f ! -name configure ! -name aclocal.m4 \
		    ! -name 'Makefile.in' ! -name Makefile ! -name 'config.h*' \
		    ! -name 'config.log' ! -name 'config.status' \
		    ! -name stamp-h1 ! -name '*.log' ! -name '*.trs' -print |
		    sed 's|^\./||')
	fi
}

# scan DIR: prints "file:line: text" for every offending line.
scan() {
	list_files "$1" | while IFS= read -r f; do
		[ -f "$1/$f" ] || continue
		grep -I -n -i -E "$OUTSIDE|$ISSUE_WORD" "$1/$f" |
		    sed "s|^|$f:|"
		grep -I -n -E "$ISSUE_HASH" "$1/$f" |
		    grep -v -E "$CSS_COLOUR" | sed "s|^|$f:|"
	done
}

# --- the scanner catches what it must, and only that ----------------------
# The planted lines are put together here, so that this file holds none.
P=$T/planted
mkdir -p "$P"
H='#' D=.
{
	echo "see $D$D/shared/notes"
	echo "as API${D}md says"
	echo "in research/flink-rest${D}md, section 3"
	printf '%s %s\n' 'the fix for issue' 6
	printf '%s %s\n' Issue "12's targets"
	echo "fixed in ($H""25)."
	echo "see $H""7"
} > "$P/bad"
{
	echo 'color: #333;'
	echo 'background: #000 !important'
	echo 'input { border: 1px solid #767676; border-radius: 3px; }'
	echo '#include <stdio.h>'
	echo 'checkpoint-api(7), "ERRORS"'
	echo 'x=${#list}'
} > "$P/good"
is "$(scan "$P" | grep -c '^bad:')" 7 "the scanner finds each planted reference"
is "$(scan "$P" | grep -c '^good:')" 0 "and nothing in code, CSS colours or man page citations"

# --- the source tree -----------------------------------------------------
N=$(list_files "$SRC" | wc -l)
[ "$N" -gt 50 ]
ok $? "the source tree's files are listed ($N)"
HITS=$(scan "$SRC")
is "$HITS" "" "no file refers outside the project or to an issue number"

# --- citations of checkpoint-api(7) resolve ---------------------------------
PAGE=$SRC/cgi/checkpoint-api.7
[ -f "$PAGE" ]
ok $? "the contract's man page is in the tree"
SECTIONS=$(sed -n 's/^\.S[hs] //p' "$PAGE" | tr -d '"')
BAD=$(list_files "$SRC" | while IFS= read -r f; do
	[ -f "$SRC/$f" ] || continue
	grep -I -o -E 'checkpoint-api\(7\), "[^"]+"' "$SRC/$f" |
	    sed 's/^[^"]*"//; s/"$//' | while IFS= read -r s; do
		printf '%s\n' "$SECTIONS" | grep -qxF "$s" ||
		    echo "$f: \"$s\""
	done
done)
is "$BAD" "" "every section cited by name is one of checkpoint-api(7)"

done_testing
