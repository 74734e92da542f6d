/*
 * The POST body (cgi/body.c; checkpoint-api(7),
 * "POST /jobs/:jobid/checkpoints"): CONTENT_LENGTH as a strict byte count,
 * and the JSON of a CheckpointTriggerRequestBody with its exact outcome
 * (rc, type and triggerId) per case.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "body.h"
#include "tap.h"

#define MAX 65536

static const struct length_case {
	int line;
	const char *in;
	size_t max;
	enum body_rc rc;
	size_t len;
} length_cases[] = {
	{ __LINE__, NULL, MAX, BODY_OK, 0 },
	{ __LINE__, "", MAX, BODY_OK, 0 },
	{ __LINE__, "0", MAX, BODY_OK, 0 },
	{ __LINE__, "12", MAX, BODY_OK, 12 },
	{ __LINE__, "0012", MAX, BODY_OK, 12 },
	{ __LINE__, "65536", MAX, BODY_OK, 65536 },
	{ __LINE__, "-1", MAX, BODY_BAD_LENGTH, 0 },
	{ __LINE__, "+1", MAX, BODY_BAD_LENGTH, 0 },
	{ __LINE__, " 12", MAX, BODY_BAD_LENGTH, 0 },
	{ __LINE__, "12 ", MAX, BODY_BAD_LENGTH, 0 },
	{ __LINE__, "1e3", MAX, BODY_BAD_LENGTH, 0 },
	{ __LINE__, "abc", MAX, BODY_BAD_LENGTH, 0 },
	{ __LINE__, "0x10", MAX, BODY_BAD_LENGTH, 0 },
	{ __LINE__, "1.0", MAX, BODY_BAD_LENGTH, 0 },
	{ __LINE__, "65537", MAX, BODY_TOO_LARGE, 0 },
	{ __LINE__, "13", 12, BODY_TOO_LARGE, 0 },
	{ __LINE__, "18446744073709551615", MAX, BODY_TOO_LARGE, 0 },
	{ __LINE__, "18446744073709551616", MAX, BODY_TOO_LARGE, 0 },
	{ __LINE__, "99999999999999999999999", MAX, BODY_TOO_LARGE, 0 },
};

static void
test_length(void)
{
	const struct length_case *c;
	size_t i, len;

	for (i = 0; i < sizeof(length_cases) / sizeof(length_cases[0]); i++) {
		c = &length_cases[i];
		len = 4242;
		tap_is_int_at(__FILE__, c->line,
		    body_length(c->in, c->max, &len), c->rc,
		    "body_length case %zu (%s): rc", i + 1,
		    c->in ? c->in : "NULL");
		tap_is_int_at(__FILE__, c->line, (long long)len,
		    (long long)c->len, "body_length case %zu: length", i + 1);
	}
}

/* A body of unknown length: no CONTENT_LENGTH, and a Transfer-Encoding. */
static const struct unannounced_case {
	int line;
	const char *cl, *te;
	int want;
} unannounced_cases[] = {
	{ __LINE__, NULL, "chunked", 1 },
	{ __LINE__, "", "chunked", 1 },
	{ __LINE__, NULL, "gzip, chunked", 1 },
	{ __LINE__, "12", "chunked", 0 }, /* the length announced wins */
	{ __LINE__, "0", "chunked", 0 },
	{ __LINE__, "x", "chunked", 0 }, /* a bad length stays a 400 */
	{ __LINE__, NULL, NULL, 0 },
	{ __LINE__, NULL, "", 0 },
	{ __LINE__, "12", NULL, 0 },
};

static void
test_unannounced(void)
{
	const struct unannounced_case *c;
	size_t i;

	for (i = 0;
	     i < sizeof(unannounced_cases) / sizeof(unannounced_cases[0]);
	     i++) {
		c = &unannounced_cases[i];
		tap_is_int_at(__FILE__, c->line, body_unannounced(c->cl, c->te),
		    c->want, "body_unannounced case %zu", i + 1);
	}
}

#define TID "0123456789abcdef0123456789abcdef"

static const struct parse_case {
	int line;
	const char *in;
	size_t len; /* 0: strlen(in) */
	enum body_rc rc;
	enum ckpt_type type; /* expected on BODY_OK */
	const char *trigger; /* expected on BODY_OK; NULL: none */
} parse_cases[] = {
	/* Valid bodies. */
	{ __LINE__, "", 0, BODY_OK, CKPT_CONFIGURED, NULL },
	{ __LINE__, "{}", 0, BODY_OK, CKPT_CONFIGURED, NULL },
	{ __LINE__, " { } \n", 0, BODY_OK, CKPT_CONFIGURED, NULL },
	/* What Flink's own client sends. */
	{ __LINE__, "{\"checkpointType\":\"FULL\",\"triggerId\":null}", 0,
	    BODY_OK, CKPT_FULL, NULL },
	{ __LINE__, "{\"checkpointType\":\"INCREMENTAL\"}", 0, BODY_OK,
	    CKPT_INCREMENTAL, NULL },
	{ __LINE__, "{\"checkpointType\":\"CONFIGURED\"}", 0, BODY_OK,
	    CKPT_CONFIGURED, NULL },
	{ __LINE__, "{\"checkpointType\":null}", 0, BODY_OK, CKPT_CONFIGURED,
	    NULL },
	{ __LINE__, "{\"triggerId\":\"" TID "\"}", 0, BODY_OK, CKPT_CONFIGURED,
	    TID },
	{ __LINE__,
	    "{\"triggerId\":\"0123456789ABCDEF0123456789AbCdEf\","
	    "\"checkpointType\":\"FULL\"}",
	    0, BODY_OK, CKPT_FULL, TID },
	{ __LINE__,
	    "{\"unknown\":1,\"x\":{\"y\":[1,2,{}]},"
	    "\"checkpointType\":\"INCREMENTAL\",\"z\":null}",
	    0, BODY_OK, CKPT_INCREMENTAL, NULL },
	/* Field names are case-sensitive: a misspelt one is unknown. */
	{ __LINE__, "{\"checkpointtype\":\"bogus\",\"TriggerId\":1}", 0,
	    BODY_OK, CKPT_CONFIGURED, NULL },
	/* Non-ASCII in an unknown field is fine when it is UTF-8. */
	{ __LINE__, "{\"name\":\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"}",
	    0, BODY_OK, CKPT_CONFIGURED, NULL },
	/* Duplicate keys: json-c keeps the last one. */
	{ __LINE__,
	    "{\"checkpointType\":\"FULL\","
	    "\"checkpointType\":\"INCREMENTAL\"}",
	    0, BODY_OK, CKPT_INCREMENTAL, NULL },
	{ __LINE__,
	    "{\"checkpointType\":\"bogus\","
	    "\"checkpointType\":\"FULL\"}",
	    0, BODY_OK, CKPT_FULL, NULL },
	{ __LINE__,
	    "{\"checkpointType\":\"FULL\","
	    "\"checkpointType\":\"bogus\"}",
	    0, BODY_BAD, 0, NULL },
	/*
	 * A key with an escaped NUL is a name of its own (as in Jackson),
	 * not the known field it starts with, and not cut short to it.
	 */
	{ __LINE__, "{\"triggerId\\u0000x\":\"nothex\"}", 0, BODY_OK,
	    CKPT_CONFIGURED, NULL },
	{ __LINE__,
	    "{\"triggerId\\u0000x\":\"" TID "\","
	    "\"checkpointType\\u0000zzz\":\"INCREMENTAL\"}",
	    0, BODY_OK, CKPT_CONFIGURED, NULL },
	{ __LINE__, "{\"triggerId\":\"" TID "\",\"triggerId\\u0000\":\"zz\"}",
	    0, BODY_OK, CKPT_CONFIGURED, TID },
	{ __LINE__, "{\"\\u0000\":1,\"checkpointType\":\"FULL\"}", 0, BODY_OK,
	    CKPT_FULL, NULL },
	/* An escaped backslash before u0000 is no NUL. */
	{ __LINE__, "{\"a\":\"\\\\u0000\",\"checkpointType\":\"FULL\"}", 0,
	    BODY_OK, CKPT_FULL, NULL },
	{ __LINE__, "{\"checkpointType\":\"\\\\u0000\"}", 0, BODY_BAD, 0,
	    NULL },
	/* The body is len bytes: what follows them is not read. */
	{ __LINE__, "{}x", 2, BODY_OK, CKPT_CONFIGURED, NULL },
	{ __LINE__, "{\"checkpointType\":\"FULL\"}}", 25, BODY_OK, CKPT_FULL,
	    NULL },

	/* Bad enum values and types. */
	{ __LINE__, "{\"checkpointType\":\"full\"}", 0, BODY_BAD, 0, NULL },
	{ __LINE__, "{\"checkpointType\":\"Full\"}", 0, BODY_BAD, 0, NULL },
	{ __LINE__, "{\"checkpointType\":\"FULL \"}", 0, BODY_BAD, 0, NULL },
	{ __LINE__, "{\"checkpointType\":\"\"}", 0, BODY_BAD, 0, NULL },
	{ __LINE__, "{\"checkpointType\":\"SAVEPOINT\"}", 0, BODY_BAD, 0,
	    NULL },
	{ __LINE__, "{\"checkpointType\":1}", 0, BODY_BAD, 0, NULL },
	{ __LINE__, "{\"checkpointType\":true}", 0, BODY_BAD, 0, NULL },
	{ __LINE__, "{\"checkpointType\":[\"FULL\"]}", 0, BODY_BAD, 0, NULL },
	{ __LINE__, "{\"checkpointType\":{}}", 0, BODY_BAD, 0, NULL },
	{ __LINE__, "{\"checkpointType\":\"FULL\\u0000x\"}", 0, BODY_BAD, 0,
	    NULL },
	{ __LINE__, "{\"checkpointType\":\"FULL\\u0000\"}", 0, BODY_BAD, 0,
	    NULL },

	/* Bad trigger ids. */
	{ __LINE__, "{\"triggerId\":\"0123456789abcdef0123456789abcde\"}", 0,
	    BODY_BAD, 0, NULL },
	{ __LINE__, "{\"triggerId\":\"0123456789abcdef0123456789abcdef0\"}", 0,
	    BODY_BAD, 0, NULL },
	{ __LINE__, "{\"triggerId\":\"0123456789abcdef0123456789abcdeg\"}", 0,
	    BODY_BAD, 0, NULL },
	{ __LINE__, "{\"triggerId\":\"\"}", 0, BODY_BAD, 0, NULL },
	{ __LINE__, "{\"triggerId\":12345678901234567890}", 0, BODY_BAD, 0,
	    NULL },
	{ __LINE__, "{\"triggerId\":{}}", 0, BODY_BAD, 0, NULL },
	{ __LINE__, "{\"triggerId\":[\"" TID "\"]}", 0, BODY_BAD, 0, NULL },
	{ __LINE__,
	    "{\"triggerId\":\"0123456789abcdef\\u00000123456789abcde\"}", 0,
	    BODY_BAD, 0, NULL },
	/* A good type does not rescue a bad id. */
	{ __LINE__, "{\"checkpointType\":\"FULL\",\"triggerId\":\"x\"}", 0,
	    BODY_BAD, 0, NULL },

	/* Not an object. */
	{ __LINE__, "1", 0, BODY_BAD, 0, NULL },
	{ __LINE__, "[]", 0, BODY_BAD, 0, NULL },
	{ __LINE__, "\"x\"", 0, BODY_BAD, 0, NULL },
	{ __LINE__, "null", 0, BODY_BAD, 0, NULL },
	{ __LINE__, "true", 0, BODY_BAD, 0, NULL },

	/* Not JSON, or not only JSON. */
	{ __LINE__, " ", 0, BODY_BAD, 0, NULL },
	{ __LINE__, " \t\r\n", 0, BODY_BAD, 0, NULL },
	{ __LINE__, "{", 0, BODY_BAD, 0, NULL },
	{ __LINE__, "}", 0, BODY_BAD, 0, NULL },
	{ __LINE__, "{} x", 0, BODY_BAD, 0, NULL },
	{ __LINE__, "{}{}", 0, BODY_BAD, 0, NULL },
	{ __LINE__, "{\"a\":1,}", 0, BODY_BAD, 0, NULL },
	{ __LINE__, "{'a':1}", 0, BODY_BAD, 0, NULL },
	{ __LINE__, "{a:1}", 0, BODY_BAD, 0, NULL },
	{ __LINE__, "{\"a\":01}", 0, BODY_BAD, 0, NULL },
	{ __LINE__, "{\"checkpointType\":'FULL'}", 0, BODY_BAD, 0, NULL },
	{ __LINE__, "{\"a\":NaN}", 0, BODY_BAD, 0, NULL },
	{ __LINE__, "{\"a\":-Infinity}", 0, BODY_BAD, 0, NULL },
	{ __LINE__, "{/* c */}", 0, BODY_BAD, 0, NULL },
	{ __LINE__, "{\"a\":\"tab\there\"}", 0, BODY_BAD, 0, NULL },
	{ __LINE__, "checkpointType=FULL", 0, BODY_BAD, 0, NULL },
	/*
	 * Invalid UTF-8 inside a string: a lone byte, an overlong, a
	 * truncated sequence, a surrogate, a code point above U+10FFFF.
	 */
	{ __LINE__, "{\"a\":\"\xff\"}", 0, BODY_BAD, 0, NULL },
	{ __LINE__, "{\"a\":\"\xc0\xaf\"}", 0, BODY_BAD, 0, NULL },
	{ __LINE__, "{\"a\":\"\xc3\"}", 0, BODY_BAD, 0, NULL },
	{ __LINE__, "{\"a\":\"\xed\xa0\x80\"}", 0, BODY_BAD, 0, NULL },
	{ __LINE__, "{\"a\":\"\xf4\x90\x80\x80\"}", 0, BODY_BAD, 0, NULL },
	{ __LINE__, "{\"checkpointType\":\"FULL\xff\"}", 0, BODY_BAD, 0, NULL },
	/* An embedded NUL byte, inside a string and after the object. */
	{ __LINE__, "{\"a\":\"x\0y\"}", 11, BODY_BAD, 0, NULL },
	{ __LINE__, "{}\0", 3, BODY_BAD, 0, NULL },
	{ __LINE__, "\0{}", 3, BODY_BAD, 0, NULL },
};

/*
 * One parser for every case, as a worker keeps one for all its requests:
 * what a case leaves in it must not change the next case's outcome.
 */
static struct json_tokener *kept;

static void
check_parse_with(int line, const char *name, struct json_tokener **parser,
    const char *in, size_t len, enum body_rc want_rc, enum ckpt_type want_type,
    const char *want_trigger)
{
	struct trigger_body b;
	enum body_rc rc;

	memset(&b, 0x5a, sizeof(b));
	rc = body_parse_trigger(parser, in, len, &b);
	tap_is_int_at(__FILE__, line, rc, want_rc, "%s: rc", name);
	if (want_rc != BODY_OK)
		return;
	tap_is_int_at(__FILE__, line, b.type, want_type, "%s: type", name);
	tap_is_int_at(__FILE__, line, b.has_trigger_id, want_trigger != NULL,
	    "%s: has_trigger_id", name);
	if (want_trigger != NULL)
		tap_is_str_at(__FILE__, line, b.trigger_id.s, want_trigger,
		    "%s: triggerId", name);
}

/* Each case with the kept parser, and with a new one. */
static void
check_parse(int line, const char *name, const char *in, size_t len,
    enum body_rc want_rc, enum ckpt_type want_type, const char *want_trigger)
{
	struct json_tokener *fresh = NULL;
	char fname[96];

	check_parse_with(line, name, &kept, in, len, want_rc, want_type,
	    want_trigger);
	snprintf(fname, sizeof(fname), "%s, new parser", name);
	check_parse_with(line, fname, &fresh, in, len, want_rc, want_type,
	    want_trigger);
	body_parser_free(fresh);
}

static void
test_parse_table(void)
{
	const struct parse_case *c;
	char name[64];
	size_t i;

	for (i = 0; i < sizeof(parse_cases) / sizeof(parse_cases[0]); i++) {
		c = &parse_cases[i];
		snprintf(name, sizeof(name), "body case %zu", i + 1);
		check_parse(c->line, name, c->in,
		    c->len ? c->len : strlen(c->in), c->rc, c->type,
		    c->trigger);
	}
}

/* Appends n copies of s to p; returns the new end. */
static char *
repeat(char *p, const char *s, int n)
{
	size_t len = strlen(s);

	while (n-- > 0) {
		memcpy(p, s, len);
		p += len;
	}
	*p = '\0';
	return p;
}

static void
test_parse_generated(void)
{
	char *b, *p;
	int i;

	if ((b = malloc(1024 * 1024)) == NULL) {
		tap_ok(0, "malloc");
		return;
	}

	/* Nesting far deeper than any valid body needs. */
	p = repeat(b, "[", 100);
	repeat(p, "]", 100);
	check_parse(__LINE__, "100 nested arrays", b, strlen(b), BODY_BAD, 0,
	    NULL);

	p = repeat(b, "{\"a\":", 100);
	p = repeat(p, "1", 1);
	repeat(p, "}", 100);
	check_parse(__LINE__, "100 nested objects", b, strlen(b), BODY_BAD, 0,
	    NULL);

	/* A little nesting inside an unknown field is still fine. */
	p = repeat(b, "{\"checkpointType\":\"FULL\",\"a\":", 1);
	p = repeat(p, "[", 8);
	p = repeat(p, "]", 8);
	repeat(p, "}", 1);
	check_parse(__LINE__, "8 nested arrays in an unknown field", b,
	    strlen(b), BODY_OK, CKPT_FULL, NULL);

	/* Many unknown fields, then the ones we read. */
	p = repeat(b, "{", 1);
	for (i = 0; i < 10000; i++)
		p += sprintf(p, "\"field%d\":%d,", i, i);
	repeat(p,
	    "\"triggerId\":\"" TID "\",\"checkpointType\":"
	    "\"INCREMENTAL\"}",
	    1);
	check_parse(__LINE__, "10000 unknown fields", b, strlen(b), BODY_OK,
	    CKPT_INCREMENTAL, TID);

	/* A long string value in an unknown field. */
	p = repeat(b, "{\"a\":\"", 1);
	p = repeat(p, "x", 60000);
	repeat(p, "\"}", 1);
	check_parse(__LINE__, "a 60000-byte string", b, strlen(b), BODY_OK,
	    CKPT_CONFIGURED, NULL);

	free(b);
}

int
main(void)
{
	test_length();
	test_unannounced();
	test_parse_table();
	test_parse_generated();
	body_parser_free(kept);
	return tap_done();
}
