/*
 * CONTENT_LENGTH and the trigger request body.  See body.h.
 */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "body.h"
#include "buf.h"

/* Deeper than any valid body needs; deeper input is refused early. */
#define BODY_MAX_DEPTH 16

/*
 * The announced body length.  Absent or empty means no body (nginx sends an
 * empty CONTENT_LENGTH on GET).  Only digits are a length: strtoull would
 * also take blanks and a '-' that wraps around.  Over max is BODY_TOO_LARGE
 * before a single byte is read.
 */
enum body_rc
body_length(const char *cl, size_t max, size_t *len)
{
	unsigned long long v;
	const char *p;
	char *end;

	*len = 0;
	if (cl == NULL || *cl == '\0')
		return BODY_OK;
	for (p = cl; *p != '\0'; p++)
		if (*p < '0' || *p > '9')
			return BODY_BAD_LENGTH;
	errno = 0;
	v = strtoull(cl, &end, 10);
	if (errno == ERANGE || v > max)
		return BODY_TOO_LARGE;
	*len = (size_t)v;
	return BODY_OK;
}

/*
 * Whether a body of unknown length follows: no CONTENT_LENGTH, but a
 * Transfer-Encoding (chunked).  Apache's mod_cgi passes a chunked body on
 * so, to be read to the end of the input, although RFC 3875 section 4.1.2
 * asks for a CONTENT_LENGTH wherever there is a body; lighttpd, nginx and
 * mod_fcgid announce its length.
 */
int
body_unannounced(const char *cl, const char *te)
{
	return (cl == NULL || *cl == '\0') && te != NULL && *te != '\0';
}

/*
 * A strict RFC 8259 scanner: what Jackson (Flink's parser) takes and nothing
 * more.  json-c, even with JSON_TOKENER_STRICT, still takes single-quoted
 * keys, NaN and Infinity, raw control characters in strings and some
 * invalid UTF-8 (overlongs, surrogates); those must be a 400.
 */
struct scan {
	const unsigned char *p;
	const unsigned char *end;
	int depth;
};

static int scan_value(struct scan *);

static void
scan_ws(struct scan *s)
{
	while (s->p < s->end &&
	    (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
		s->p++;
}

static int
scan_char(struct scan *s, char c)
{
	if (s->p >= s->end || *s->p != (unsigned char)c)
		return -1;
	s->p++;
	return 0;
}

static int
scan_hex(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	    (c >= 'A' && c <= 'F');
}

static int
scan_string(struct scan *s)
{
	size_t n, i;

	if (scan_char(s, '"') == -1)
		return -1;
	while (s->p < s->end) {
		if (*s->p == '"') {
			s->p++;
			return 0;
		}
		if (*s->p < 0x20)
			return -1;
		if (*s->p == '\\') {
			if (++s->p >= s->end)
				return -1;
			if (*s->p == 'u') {
				if (s->end - s->p < 5)
					return -1;
				for (i = 1; i <= 4; i++)
					if (!scan_hex(s->p[i]))
						return -1;
				s->p += 5;
			} else if (strchr("\"\\/bfnrt", *s->p) != NULL &&
			    *s->p != '\0')
				s->p++;
			else
				return -1;
			continue;
		}
		if ((n = buf_utf8_len(s->p, (size_t)(s->end - s->p))) == 0)
			return -1;
		s->p += n;
	}
	return -1;
}

static int
scan_digits(struct scan *s)
{
	const unsigned char *start = s->p;

	while (s->p < s->end && *s->p >= '0' && *s->p <= '9')
		s->p++;
	return s->p > start ? 0 : -1;
}

static int
scan_number(struct scan *s)
{
	if (s->p < s->end && *s->p == '-')
		s->p++;
	if (s->p < s->end && *s->p == '0')
		s->p++;
	else if (scan_digits(s) == -1)
		return -1;
	if (s->p < s->end && *s->p == '.') {
		s->p++;
		if (scan_digits(s) == -1)
			return -1;
	}
	if (s->p < s->end && (*s->p == 'e' || *s->p == 'E')) {
		s->p++;
		if (s->p < s->end && (*s->p == '+' || *s->p == '-'))
			s->p++;
		if (scan_digits(s) == -1)
			return -1;
	}
	return 0;
}

static int
scan_literal(struct scan *s, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(s->end - s->p) < n || memcmp(s->p, lit, n) != 0)
		return -1;
	s->p += n;
	return 0;
}

/* An object or array body: members separated by commas, no trailing one. */
static int
scan_container(struct scan *s, char close, int object)
{
	if (++s->depth > BODY_MAX_DEPTH)
		return -1;
	s->p++;
	scan_ws(s);
	if (scan_char(s, close) == 0) {
		s->depth--;
		return 0;
	}
	for (;;) {
		if (object) {
			if (scan_string(s) == -1)
				return -1;
			scan_ws(s);
			if (scan_char(s, ':') == -1)
				return -1;
		}
		if (scan_value(s) == -1)
			return -1;
		scan_ws(s);
		if (scan_char(s, close) == 0)
			break;
		if (scan_char(s, ',') == -1)
			return -1;
		scan_ws(s);
	}
	s->depth--;
	return 0;
}

static int
scan_value(struct scan *s)
{
	scan_ws(s);
	if (s->p >= s->end)
		return -1;
	switch (*s->p) {
	case '{':
		return scan_container(s, '}', 1);
	case '[':
		return scan_container(s, ']', 0);
	case '"':
		return scan_string(s);
	case 't':
		return scan_literal(s, "true");
	case 'f':
		return scan_literal(s, "false");
	case 'n':
		return scan_literal(s, "null");
	default:
		return scan_number(s);
	}
}

/*
 * Whether buf[0..len) is exactly one JSON value, blanks around it allowed.
 * Also the test suite's check of the app's own answers (openapi-check).
 */
int
body_is_json(const char *buf, size_t len)
{
	struct scan s;

	s.p = (const unsigned char *)buf;
	s.end = s.p + len;
	s.depth = 0;
	if (scan_value(&s) == -1)
		return 0;
	scan_ws(&s);
	return s.p == s.end;
}

/*
 * json-c keeps an object's keys as C strings, so a key with an escaped NUL
 * ("triggerId\u0000x") would be cut short there and read as a field we
 * know, where Jackson sees a name of its own and ignores it.  Returns a
 * copy of buf[0..len) with each such escape made \uffff, a noncharacter:
 * no name we read holds one, and no value we accept could hold either
 * (neither could it hold a NUL).  NULL if buf has none, or on allocation
 * failure (*failed set).
 */
static char *
body_no_nul_escapes(const char *buf, size_t len, int *failed)
{
	char *copy, *p;

	*failed = 0;
	if (memmem(buf, len, "\\u0000", 6) == NULL)
		return NULL;
	if ((copy = malloc(len)) == NULL) {
		*failed = 1;
		return NULL;
	}
	memcpy(copy, buf, len);
	for (p = copy;
	     (p = memmem(p, len - (size_t)(p - copy), "\\u0000", 6)) != NULL;
	     p += 6)
		p[2] = p[3] = p[4] = p[5] = 'f';
	return copy;
}

/* Whether the JSON value in buf[0..len) is an object. */
static int
body_is_object(const char *buf, size_t len)
{
	size_t i = 0;

	while (i < len &&
	    (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' ||
		buf[i] == '\n'))
		i++;
	return i < len && buf[i] == '{';
}

/*
 * Opens a request body as a JSON object in *root (NULL for an empty
 * body, which is {}), in *tokp, the caller's parser: made on the first
 * call (NULL) and kept for the next, which saves two allocations a parse
 * (a tokener and its stack).  Free it with body_parser_free; *root with
 * json_object_put.  Malformed JSON, trailing
 * bytes, a non-object or invalid UTF-8 is BODY_BAD; BODY_NOMEM, memory
 * ran out.  buf need not be NUL-terminated.
 */
static enum body_rc
body_open(struct json_tokener **tokp, const char *buf, size_t len,
    json_object **root)
{
	struct json_tokener *tok;
	enum body_rc rc = BODY_BAD;
	char *copy;
	int failed;

	*root = NULL;
	if (len == 0)
		return BODY_OK;
	if (len > INT32_MAX || memchr(buf, '\0', len) != NULL ||
	    !body_is_json(buf, len))
		return BODY_BAD;
	if ((copy = body_no_nul_escapes(buf, len, &failed)) != NULL)
		buf = copy;
	else if (failed)
		return BODY_NOMEM;
	rc = BODY_NOMEM;
	if (*tokp == NULL &&
	    (*tokp = json_tokener_new_ex(BODY_MAX_DEPTH + 1)) == NULL)
		goto out;
	tok = *tokp;
	json_tokener_reset(tok);
	/*
	 * Valid JSON by now, no deeper than the parser's bound; an object is
	 * complete at its closing brace.  An object without a value from
	 * json-c: it ran out of memory (its version here cannot say so).
	 */
	*root = json_tokener_parse_ex(tok, buf, (int)len);
	if (*root != NULL && json_object_is_type(*root, json_type_object))
		rc = BODY_OK;
	else {
		if (*root != NULL || !body_is_object(buf, len))
			rc = BODY_BAD;
		json_object_put(*root);
		*root = NULL;
	}
out:
	free(copy);
	return rc;
}

/* A member that is present and not null, in *v. */
static int
body_member(json_object *root, const char *key, json_object **v)
{
	return root != NULL && json_object_object_get_ex(root, key, v) &&
	    *v != NULL;
}

/* triggerId, 32 hex, if given: -1 for anything else. */
static int
body_trigger_id(json_object *root, int *has, struct id *out)
{
	json_object *v;

	*has = 0;
	if (!body_member(root, "triggerId", &v))
		return 0;
	if (!json_object_is_type(v, json_type_string) ||
	    id_parse(json_object_get_string(v),
		(size_t)json_object_get_string_len(v), out) == -1)
		return -1;
	*has = 1;
	return 0;
}

/* A boolean, 0 when absent or null: -1 for another type. */
static int
body_bool(json_object *root, const char *key, int *out)
{
	json_object *v;

	*out = 0;
	if (!body_member(root, key, &v))
		return 0;
	if (!json_object_is_type(v, json_type_boolean))
		return -1;
	*out = json_object_get_boolean(v);
	return 0;
}

/* A string, copied to *out (NULL when absent or null). */
static enum body_rc
body_string(json_object *root, const char *key, char **out)
{
	json_object *v;

	*out = NULL;
	if (!body_member(root, key, &v))
		return BODY_OK;
	if (!json_object_is_type(v, json_type_string))
		return BODY_BAD;
	if ((*out = strdup(json_object_get_string(v))) == NULL)
		return BODY_NOMEM;
	return BODY_OK;
}

/*
 * Parses the body into out.  Unknown fields are ignored; null means the
 * default; enum values are exact; a triggerId is 32 hex.  Anything else
 * (a wrong type included) is BODY_BAD.
 */
enum body_rc
body_parse_trigger(struct json_tokener **tokp, const char *buf, size_t len,
    struct trigger_body *out)
{
	json_object *root, *v;
	enum body_rc rc;

	memset(out, 0, sizeof(*out));
	out->type = CKPT_CONFIGURED;
	if ((rc = body_open(tokp, buf, len, &root)) != BODY_OK)
		return rc;
	rc = BODY_BAD;
	if (body_member(root, "checkpointType", &v) &&
	    (!json_object_is_type(v, json_type_string) ||
		ckpt_type_parse(json_object_get_string(v), &out->type) == -1))
		goto out;
	if (body_trigger_id(root, &out->has_trigger_id, &out->trigger_id) == -1)
		goto out;
	rc = BODY_OK;
out:
	json_object_put(root);
	return rc;
}

/*
 * A SavepointTriggerRequestBody, or with stop a
 * StopWithSavepointRequestBody: the same rules as body_parse_trigger.
 * Free out with body_savepoint_free, whatever the result.
 */
enum body_rc
body_parse_savepoint(struct json_tokener **tokp, const char *buf, size_t len,
    int stop, struct savepoint_body *out)
{
	json_object *root, *v;
	enum body_rc rc;
	const char *format;

	memset(out, 0, sizeof(*out));
	if ((rc = body_open(tokp, buf, len, &root)) != BODY_OK)
		return rc;
	if ((rc = body_string(root,
		 stop ? "targetDirectory" : "target-directory",
		 &out->target_dir)) != BODY_OK)
		goto out;
	rc = BODY_BAD;
	if (body_bool(root, stop ? "drain" : "cancel-job",
		stop ? &out->drain : &out->cancel_job) == -1 ||
	    body_trigger_id(root, &out->has_trigger_id, &out->trigger_id) == -1)
		goto out;
	if (body_member(root, "formatType", &v)) {
		if (!json_object_is_type(v, json_type_string))
			goto out;
		format = json_object_get_string(v);
		if (strcmp(format, "NATIVE") == 0)
			out->native = 1;
		else if (strcmp(format, "CANONICAL") != 0)
			goto out;
	}
	rc = BODY_OK;
out:
	json_object_put(root);
	return rc;
}

void
body_savepoint_free(struct savepoint_body *b)
{
	free(b->target_dir);
	b->target_dir = NULL;
}

/*
 * A SavepointDisposalRequest: *path is savepoint-path, a copy the caller
 * frees, NULL when absent or null.
 */
enum body_rc
body_parse_disposal(struct json_tokener **tokp, const char *buf, size_t len,
    char **path)
{
	json_object *root;
	enum body_rc rc;

	*path = NULL;
	if ((rc = body_open(tokp, buf, len, &root)) != BODY_OK)
		return rc;
	rc = body_string(root, "savepoint-path", path);
	json_object_put(root);
	return rc;
}

void
body_parser_free(struct json_tokener *tok)
{
	if (tok != NULL)
		json_tokener_free(tok);
}
