# Turns the numbered migrations given on the command line, in order, into a C
# array so that an installed program never hunts for SQL files:
#	const char *const schema_migrations[] = { "<0001>", "<0002>", NULL };
# Usage: awk -f embed.awk schema/0001-*.sql schema/0002-*.sql > schema_sql.c
BEGIN {
	print "/* Generated from the migrations in schema/ by schema/embed.awk: do not edit. */"
	print "#include <stddef.h>"
	print "#include \"schema.h\""
	print ""
	print "const char *const schema_migrations[] = {"
	file = ""
}
FNR == 1 {
	if (file != "")
		print "\t,"
	file = FILENAME
	print "\t/* " FILENAME " */"
}
{
	line = $0
	gsub(/\\/, "\\\\", line)
	gsub(/"/, "\\\"", line)
	gsub(/\t/, "\\t", line)
	print "\t\"" line "\\n\""
}
END {
	if (file != "")
		print "\t,"
	print "\tNULL"
	print "};"
}
