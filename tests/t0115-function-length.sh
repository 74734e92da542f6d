#!/bin/sh
# No function in cgi/ is over 60 lines, counted from the line that names
# it (name( at the start of a line, as the house style writes every
# definition) to its closing brace at the start of a line.  The counter
# is first run on planted functions of 60 and 61 lines, so that a counter
# that finds nothing fails here.

. "$(dirname "$0")/lib.sh"

MAX=60

# lengths FILE...: "file function lines" for each function over MAX.
lengths() {
	awk -v max="$MAX" '
	FNR == 1 { name = "" }
	/^[A-Za-z_][A-Za-z0-9_]*\(/ && !/\);[ \t]*$/ {
		name = $0
		sub(/\(.*/, "", name)
		start = FNR
		next
	}
	/^}/ && name != "" {
		n = FNR - start + 1
		if (n > max) {
			f = FILENAME
			sub(/.*\//, "", f)
			print f, name, n
		}
		name = ""
	}' "$@"
}

# planted N: a function whose name( line and closing brace are N lines
# apart, both counted.
planted() {
	printf 'static int\nplanted_%d(void)\n{\n' "$1"
	i=3
	while [ "$i" -lt "$1" ]; do
		echo "	(void)0;"
		i=$((i + 1))
	done
	echo "}"
}
planted 60 > "$T/p60.c"
planted 61 > "$T/p61.c"
is "$(lengths "$T/p60.c" "$T/p61.c")" "p61.c planted_61 61" \
    "the counter finds a function of 61 lines, not one of 60"

# The source files, less the ones the build generates.
files=$(ls "$top_srcdir"/cgi/*.c | grep -v '/schema_.*sql\.c$\|/ui_assets\.c$')
lengths $files > "$T/over"
checked=$(echo "$files" | wc -l)
[ "$checked" -ge 30 ]
ok $? "the files of cgi/ were read ($checked)"

while read -r f name n; do
	diag "$f: $name is $n lines, over $MAX"
done < "$T/over"
[ ! -s "$T/over" ]
ok $? "no function over $MAX lines"

done_testing
