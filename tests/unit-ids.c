/*
 * Identifiers (cgi/ids.c; checkpoint-api(7), "IDENTIFIERS"): exactly 32
 * hex digits of any case, rendered in lowercase; anything else is refused
 * and leaves the output untouched.  Random ids are 32 lowercase hex digits.
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "ids.h"
#include "tap.h"

/* What a refused parse must leave in the output. */
#define UNTOUCHED "untouched-sentinel"

static const struct parse_case {
	int line;
	const char *in;
	size_t len; /* (size_t)-1: strlen(in) */
	const char *want; /* NULL: refused */
} cases[] = {
	/* 1-4: accepted, always lowercase. */
	{ __LINE__, "0123456789abcdef0123456789abcdef", (size_t)-1,
	    "0123456789abcdef0123456789abcdef" },
	{ __LINE__, "0123456789ABCDEF0123456789ABCDEF", (size_t)-1,
	    "0123456789abcdef0123456789abcdef" },
	{ __LINE__, "aBcDeF0123456789AbCdEf0123456789", (size_t)-1,
	    "abcdef0123456789abcdef0123456789" },
	{ __LINE__, "00000000000000000000000000000000", (size_t)-1,
	    "00000000000000000000000000000000" },
	/* 5-8: wrong lengths. */
	{ __LINE__, "0123456789abcdef0123456789abcde", (size_t)-1, NULL },
	{ __LINE__, "0123456789abcdef0123456789abcdef0", (size_t)-1, NULL },
	{ __LINE__, "", (size_t)-1, NULL },
	{ __LINE__, NULL, 32, NULL },
	/* 9-16: characters that are not hex digits. */
	{ __LINE__, "0123456789abcdef0123456789abcdeg", (size_t)-1, NULL },
	{ __LINE__, "g123456789abcdef0123456789abcdef", (size_t)-1, NULL },
	{ __LINE__, "+123456789abcdef0123456789abcdef", (size_t)-1, NULL },
	{ __LINE__, "-123456789abcdef0123456789abcdef", (size_t)-1, NULL },
	{ __LINE__, "0123456789abcdef+123456789abcdef", (size_t)-1, NULL },
	{ __LINE__, " 123456789abcdef0123456789abcdef", (size_t)-1, NULL },
	{ __LINE__, "0123456789abcdef0123456789abcde ", (size_t)-1, NULL },
	{ __LINE__, "0x23456789abcdef0123456789abcdef", (size_t)-1, NULL },
	/* 17: an embedded NUL within the 32 bytes. */
	{ __LINE__,
	    "0123456789abcdef\0"
	    "123456789abcdef",
	    32, NULL },
	/* 18: a valid id followed by more bytes, given its length: accepted. */
	{ __LINE__, "0123456789ABCDEF0123456789abcdef/checkpoints", 32,
	    "0123456789abcdef0123456789abcdef" },
	/* 19: the same bytes with one too many. */
	{ __LINE__, "0123456789ABCDEF0123456789abcdef/checkpoints", 33, NULL },
	/* 20: non-ASCII bytes. */
	{ __LINE__, "0123456789abcdef0123456789abcd\xc3\xa9", (size_t)-1,
	    NULL },
};

static void
test_parse(void)
{
	const struct parse_case *c;
	struct id id;
	size_t i, len;
	int rc;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		c = &cases[i];
		len = c->len == (size_t)-1 ? strlen(c->in) : c->len;
		strcpy(id.s, UNTOUCHED);
		rc = id_parse(c->in, len, &id);
		tap_is_int_at(__FILE__, c->line, rc, c->want ? 0 : -1,
		    "id_parse case %zu: rc", i + 1);
		tap_is_str_at(__FILE__, c->line, id.s,
		    c->want ? c->want : UNTOUCHED, "id_parse case %zu: output",
		    i + 1);

		/* id_parse_str agrees whenever the string is the whole id. */
		if (c->in != NULL && c->len != (size_t)-1)
			continue;
		strcpy(id.s, UNTOUCHED);
		rc = id_parse_str(c->in, &id);
		tap_is_int_at(__FILE__, c->line, rc, c->want ? 0 : -1,
		    "id_parse_str case %zu: rc", i + 1);
		tap_is_str_at(__FILE__, c->line, id.s,
		    c->want ? c->want : UNTOUCHED,
		    "id_parse_str case %zu: output", i + 1);
	}
}

/* id_parse_str stops at a NUL, so an embedded one makes the id short. */
static void
test_parse_str_nul(void)
{
	struct id id;

	strcpy(id.s, UNTOUCHED);
	tap_is_int(id_parse_str("0123456789abcdef\0"
				"0123456789abcdef",
		       &id),
	    -1, "id_parse_str: embedded NUL is a short id");
	tap_is_str(id.s, UNTOUCHED, "id_parse_str: embedded NUL: untouched");
}

static int
all_lower_hex(const char *s)
{
	for (; *s != '\0'; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return 0;
	return 1;
}

static void
test_random(void)
{
	struct id a, b, back;

	memset(&a, 'x', sizeof(a));
	memset(&b, 'x', sizeof(b));
	tap_is_int(id_random(&a), 0, "id_random: first call succeeds");
	tap_is_int(id_random(&b), 0, "id_random: second call succeeds");
	tap_is_int((long long)strnlen(a.s, sizeof(a.s)), ID_LEN,
	    "id_random: 32 characters and a NUL");
	tap_ok(all_lower_hex(a.s), "id_random: lowercase hex (%s)", a.s);
	tap_ok(all_lower_hex(b.s), "id_random: lowercase hex (%s)", b.s);
	tap_ok(strcmp(a.s, b.s) != 0, "id_random: two calls differ");
	tap_is_int(id_parse_str(a.s, &back), 0, "id_random: parses back");
	tap_is_str(back.s, a.s, "id_random: parses back unchanged");
}

int
main(void)
{
	test_parse();
	test_parse_str_nul();
	test_random();
	return tap_done();
}
