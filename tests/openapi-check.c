/*
 * openapi-check: checks one live answer against the project's OpenAPI 3.0
 * document (cgi/checkpoint-api.openapi.json), so that the document cannot
 * drift from the code (t3900 asks it about every answer it gets).
 *
 *	openapi-check DOC METHOD PATH STATUS CONTENT-TYPE BODY-FILE
 *
 * finds the operation whose path template matches PATH (as sent: the query
 * is dropped, slashes at both ends too, and the prefix of one of the
 * servers, such as /v1, may come first: the path item's servers, or else
 * the document's), then its response for STATUS, then the response's media
 * type equal to CONTENT-TYPE, and validates the body against its schema
 * when the media type is JSON (for text/plain or text/html the content type
 * is all there is to check).  A known path with a method it does not list
 * answers the path's x-method-not-allowed response; a path no template
 * matches answers the document's x-unknown-path.  On success it prints what
 * was matched, as "METHOD TEMPLATE STATUS" (OTHER for a method the path
 * does not list, ANY and - for an unknown path); on a mismatch it prints a
 * one-line reason to stderr and exits 1.
 *
 *	openapi-check -l DOC
 *
 * resolves every $ref of the document and prints every "METHOD TEMPLATE
 * STATUS" it documents, in the same form: what a live test must exercise.
 *
 *	openapi-check -a DOC PATH
 *
 * prints the template PATH matches and its methods, space-separated (what
 * its 405 must say in Allow).
 *
 * The schema keywords it knows are those the document uses: $ref (a JSON
 * pointer into the document), type (integer apart from number), nullable,
 * enum, properties, required, additionalProperties (false or a schema),
 * items, minItems, maxItems, pattern (as a POSIX extended regex), format
 * int32 (its range), allOf, anyOf and oneOf.  Exit status 2 is a bad
 * document or command line.
 */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json.h>

#include "body.h"

#define MAXSEG 16
#define MAXREFS 64 /* $ref chains deeper than this are a loop */

struct seg {
	const char *p;
	size_t len;
};

static json_object *doc;
static char reason[1024];
static int doc_error; /* the mismatch is the document's fault */

static int fail(const char *, const char *, ...)
    __attribute__((format(printf, 2, 3)));
static int bad_doc(const char *, const char *, ...)
    __attribute__((format(printf, 2, 3)));

/* Records the first reason of a mismatch, at where; returns -1. */
static int
vfail(const char *where, const char *fmt, va_list ap)
{
	int n;

	if (reason[0] != '\0')
		return -1;
	n = snprintf(reason, sizeof(reason), "%s: ", where);
	if (n >= 0 && (size_t)n < sizeof(reason))
		vsnprintf(reason + n, sizeof(reason) - (size_t)n, fmt, ap);
	return -1;
}

static int
fail(const char *where, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(where, fmt, ap);
	va_end(ap);
	return -1;
}

/* The same, for a fault of the document (exit status 2). */
static int
bad_doc(const char *where, const char *fmt, ...)
{
	va_list ap;

	doc_error = 1;
	va_start(ap, fmt);
	vfail(where, fmt, ap);
	va_end(ap);
	return -1;
}

/* The whole of path, NUL-terminated, in *lenp bytes; NULL on error. */
static char *
read_file(const char *path, size_t *lenp)
{
	FILE *f;
	char *buf = NULL, *nbuf;
	size_t len = 0, cap = 0, n;

	if ((f = fopen(path, "rb")) == NULL)
		return NULL;
	do {
		if (cap - len < 4096 + 1) {
			if ((nbuf = realloc(buf, cap + 65536)) == NULL) {
				fclose(f);
				free(buf);
				return NULL;
			}
			buf = nbuf;
			cap += 65536;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
	} while (n > 0);
	if (ferror(f)) {
		errno = EIO;
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	buf[len] = '\0';
	*lenp = len;
	return buf;
}

/*
 * Parses the whole of buf as one JSON text, strictly (RFC 8259: the app's
 * own scanner first, since json-c takes NaN, single quotes and raw control
 * characters), into *op (NULL for the text null).  Returns -1 if it is not
 * one.
 */
static int
parse_json(const char *buf, size_t len, json_object **op)
{
	struct json_tokener *tok;
	int rc = 0;

	*op = NULL;
	if (!body_is_json(buf, len) || len > INT32_MAX ||
	    (tok = json_tokener_new()) == NULL)
		return -1;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	*op = json_tokener_parse_ex(tok, buf, (int)len);
	if (json_tokener_get_error(tok) != json_tokener_success ||
	    json_tokener_get_parse_end(tok) != len) {
		json_object_put(*op);
		*op = NULL;
		rc = -1;
	}
	json_tokener_free(tok);
	return rc;
}

/*
 * The object a local JSON pointer ("#/components/schemas/Error") names in
 * the document, or NULL.
 */
static json_object *
pointer(const char *ref)
{
	json_object *o = doc;
	char key[256];
	const char *p;
	size_t n;

	if (strncmp(ref, "#/", 2) != 0)
		return NULL;
	for (p = ref + 2; o != NULL && *p != '\0';) {
		for (n = 0; *p != '\0' && *p != '/'; p++) {
			if (n + 1 >= sizeof(key))
				return NULL;
			if (p[0] == '~' && p[1] == '0')
				key[n++] = '~', p++;
			else if (p[0] == '~' && p[1] == '1')
				key[n++] = '/', p++;
			else
				key[n++] = *p;
		}
		key[n] = '\0';
		if (*p == '/')
			p++;
		if (!json_object_is_type(o, json_type_object) ||
		    !json_object_object_get_ex(o, key, &o))
			return NULL;
	}
	return o;
}

/* Follows o's $ref chain; NULL (a reason recorded) if it breaks. */
static json_object *
deref(json_object *o, const char *where)
{
	json_object *r;
	int i;

	for (i = 0; i < MAXREFS; i++) {
		if (!json_object_is_type(o, json_type_object) ||
		    !json_object_object_get_ex(o, "$ref", &r))
			return o;
		if ((o = pointer(json_object_get_string(r))) == NULL) {
			bad_doc(where, "$ref %s resolves to nothing",
			    json_object_get_string(r));
			return NULL;
		}
	}
	bad_doc(where, "$ref loop at %s", json_object_get_string(r));
	return NULL;
}

static json_object *
member(json_object *o, const char *key)
{
	json_object *v;

	if (o != NULL && json_object_is_type(o, json_type_object) &&
	    json_object_object_get_ex(o, key, &v))
		return v;
	return NULL;
}

static const char *
type_name(json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_null:
		return "null";
	case json_type_boolean:
		return "boolean";
	case json_type_double:
		return "number";
	case json_type_int:
		return "integer";
	case json_type_object:
		return "object";
	case json_type_array:
		return "array";
	case json_type_string:
		return "string";
	}
	return "?";
}

static int type_is(json_object *, const char *);

static int validate(json_object *, json_object *, const char *);

/* where + ".key" or where + "[i]", into buf. */
static const char *
sub(char *buf, size_t size, const char *where, const char *key, size_t i)
{
	if (key != NULL)
		snprintf(buf, size, "%s.%s", where, key);
	else
		snprintf(buf, size, "%s[%zu]", where, i);
	return buf;
}

static int
type_is(json_object *v, const char *type)
{
	if (strcmp(type, "number") == 0)
		return json_object_is_type(v, json_type_double) ||
		    json_object_is_type(v, json_type_int);
	return strcmp(type_name(v), type) == 0;
}

static int
check_enum(json_object *v, json_object *e, const char *where)
{
	size_t i;

	for (i = 0; i < json_object_array_length(e); i++)
		if (json_object_equal(v, json_object_array_get_idx(e, i)))
			return 0;
	return fail(where, "%s is not one of the enum %s",
	    json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN),
	    json_object_to_json_string_ext(e, JSON_C_TO_STRING_PLAIN));
}

static int
check_pattern(json_object *v, const char *pattern, const char *where)
{
	regex_t re;
	int rc;

	if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB) != 0)
		return bad_doc(where, "pattern %s is not a regex", pattern);
	rc = regexec(&re, json_object_get_string(v), 0, NULL, 0);
	regfree(&re);
	if (rc != 0)
		return fail(where, "\"%s\" does not match %s",
		    json_object_get_string(v), pattern);
	return 0;
}

static int
check_object(json_object *v, json_object *s, const char *where)
{
	json_object *props = member(s, "properties"), *req, *add, *ps;
	char w[512];
	size_t i;

	if ((req = member(s, "required")) != NULL)
		for (i = 0; i < json_object_array_length(req); i++) {
			const char *k = json_object_get_string(
			    json_object_array_get_idx(req, i));
			if (!json_object_object_get_ex(v, k, NULL))
				return fail(where, "required \"%s\" missing",
				    k);
		}
	add = member(s, "additionalProperties");
	json_object_object_foreach(v, key, val)
	{
		sub(w, sizeof(w), where, key, 0);
		if ((ps = member(props, key)) != NULL) {
			if (validate(val, ps, w) == -1)
				return -1;
		} else if (add != NULL &&
		    json_object_is_type(add, json_type_boolean)) {
			if (!json_object_get_boolean(add))
				return fail(where, "\"%s\" is not allowed",
				    key);
		} else if (add != NULL && validate(val, add, w) == -1)
			return -1;
	}
	return 0;
}

static int
check_array(json_object *v, json_object *s, const char *where)
{
	json_object *items = member(s, "items"), *m;
	size_t i, n = json_object_array_length(v);
	char w[512];

	if ((m = member(s, "minItems")) != NULL &&
	    n < (size_t)json_object_get_int64(m))
		return fail(where, "%zu items, fewer than minItems %" PRId64, n,
		    json_object_get_int64(m));
	if ((m = member(s, "maxItems")) != NULL &&
	    n > (size_t)json_object_get_int64(m))
		return fail(where, "%zu items, more than maxItems %" PRId64, n,
		    json_object_get_int64(m));
	for (i = 0; items != NULL && i < n; i++)
		if (validate(json_object_array_get_idx(v, i), items,
			sub(w, sizeof(w), where, NULL, i)) == -1)
			return -1;
	return 0;
}

/*
 * How deep in the value a reason's mismatch is: the length of its where.
 * A value not of the enum is most likely a branch not meant (another
 * className or status): it counts as the shallowest.
 */
static size_t
depth(const char *r)
{
	return strstr(r, " is not one of the enum ") != NULL ? 0 :
							       strcspn(r, " ");
}

/*
 * The number of the schemas of the array list that v is valid against; at
 * most stop (0: all of them).  The reasons of the failing branches are
 * dropped but the one that failed deepest in v, most likely the branch
 * meant (the one whose className or status matched): into best.
 */
static size_t
count_valid(json_object *v, json_object *list, const char *where, size_t stop,
    char *best, size_t bestsize)
{
	size_t i, n = 0;

	best[0] = '\0';
	for (i = 0; i < json_object_array_length(list); i++) {
		reason[0] = '\0';
		if (validate(v, json_object_array_get_idx(list, i), where) ==
		    0) {
			if (++n == stop)
				break;
		} else if (depth(reason) > depth(best))
			snprintf(best, bestsize, "%s", reason);
		if (doc_error)
			return 0;
	}
	reason[0] = '\0';
	return n;
}

static int
check_combinators(json_object *v, json_object *s, const char *where)
{
	json_object *l;
	char best[sizeof(reason)];
	size_t i, n;

	if ((l = member(s, "allOf")) != NULL)
		for (i = 0; i < json_object_array_length(l); i++)
			if (validate(v, json_object_array_get_idx(l, i),
				where) == -1)
				return -1;
	if ((l = member(s, "anyOf")) != NULL) {
		n = count_valid(v, l, where, 1, best, sizeof(best));
		if (doc_error)
			return -1;
		if (n == 0)
			return fail(where, "matches none of anyOf (%s)", best);
	}
	if ((l = member(s, "oneOf")) != NULL) {
		n = count_valid(v, l, where, 0, best, sizeof(best));
		if (doc_error)
			return -1;
		if (n == 0)
			return fail(where, "matches none of oneOf (%s)", best);
		if (n > 1)
			return fail(where, "matches %zu of oneOf, not one", n);
	}
	return 0;
}

/* Validates v, found at where ("$.a.b[0]"), against the schema s. */
static int
validate(json_object *v, json_object *s, const char *where)
{
	json_object *t, *m;
	const char *type = NULL;

	if ((s = deref(s, where)) == NULL)
		return -1;
	if (!json_object_is_type(s, json_type_object))
		return bad_doc(where, "a schema is not an object");
	if ((t = member(s, "type")) != NULL)
		type = json_object_get_string(t);
	if (v == NULL) {
		/* JSON null: only where nullable says so. */
		if ((m = member(s, "nullable")) == NULL ||
		    !json_object_get_boolean(m))
			return fail(where, "null where %s is not nullable",
			    type != NULL ? type : "the schema");
	} else if (type != NULL && !type_is(v, type))
		return fail(where, "%s where %s is expected", type_name(v),
		    type);
	if ((m = member(s, "enum")) != NULL && check_enum(v, m, where) == -1)
		return -1;
	/*
	 * A nullable schema takes null whatever its allOf says: that is how
	 * a nullable $ref is written in OpenAPI 3.0.
	 */
	if (v == NULL)
		return 0;
	if ((m = member(s, "format")) != NULL &&
	    json_object_is_type(v, json_type_int) &&
	    strcmp(json_object_get_string(m), "int32") == 0 &&
	    (json_object_get_int64(v) < INT32_MIN ||
		json_object_get_int64(v) > INT32_MAX))
		return fail(where, "%" PRId64 " is out of int32's range",
		    json_object_get_int64(v));
	if ((m = member(s, "pattern")) != NULL &&
	    json_object_is_type(v, json_type_string) &&
	    check_pattern(v, json_object_get_string(m), where) == -1)
		return -1;
	if (json_object_is_type(v, json_type_object) &&
	    check_object(v, s, where) == -1)
		return -1;
	if (json_object_is_type(v, json_type_array) &&
	    check_array(v, s, where) == -1)
		return -1;
	return check_combinators(v, s, where);
}

/* --- Paths ------------------------------------------------------------- */

/*
 * Splits path (up to its query) into segments, slashes at both ends
 * dropped, as the app's router does.  Returns the count, or -1.
 */
static int
split(const char *path, struct seg *seg, size_t max)
{
	const char *p = path, *end = path + strcspn(path, "?"), *q;
	int n = 0;

	while (p < end && *p == '/')
		p++;
	while (end > p && end[-1] == '/')
		end--;
	while (p < end) {
		if ((q = memchr(p, '/', (size_t)(end - p))) == NULL)
			q = end;
		if ((size_t)n == max)
			return -1;
		seg[n].p = p;
		seg[n].len = (size_t)(q - p);
		n++;
		p = q + 1;
	}
	return n;
}

static int
is_param(const struct seg *s)
{
	return s->len >= 2 && s->p[0] == '{' && s->p[s->len - 1] == '}';
}

/*
 * How well template t matches the segments: -1 if not at all, else its
 * literal segments as bits from the left, so that a literal beats a
 * parameter where they first differ (config before {triggerid}).
 */
static long
score(const char *t, const struct seg *s, int n)
{
	struct seg ts[MAXSEG];
	long sc = 0;
	int tn, i;

	if ((tn = split(t, ts, MAXSEG)) != n)
		return -1;
	for (i = 0; i < n; i++) {
		sc <<= 1;
		if (is_param(&ts[i])) {
			if (s[i].len == 0)
				return -1;
			continue;
		}
		if (ts[i].len != s[i].len || memcmp(ts[i].p, s[i].p, s[i].len))
			return -1;
		sc |= 1;
	}
	return sc;
}

/*
 * Whether the segments s[0..n) begin with the prefix of url; its length in
 * *pn.
 */
static int
has_prefix(const char *url, const struct seg *s, int n, int *pn)
{
	struct seg pre[MAXSEG];
	int k;

	if ((*pn = split(url, pre, MAXSEG)) < 0 || *pn > n)
		return 0;
	for (k = 0; k < *pn; k++)
		if (pre[k].len != s[k].len ||
		    memcmp(pre[k].p, s[k].p, s[k].len) != 0)
			return 0;
	return 1;
}

/*
 * The template of paths that path matches best, under the prefix of one of
 * its servers ("/" or "/v1": the path item's own, or else the document's),
 * or under none if there are none; NULL for none.
 */
static const char *
match_path(const char *path)
{
	json_object *servers, *url;
	struct seg s[MAXSEG];
	const char *best = NULL, *u;
	long sc, bestsc = -1;
	size_t j, nservers;
	int n, pn;

	if ((n = split(path, s, MAXSEG)) < 0)
		return NULL;
	json_object_object_foreach(member(doc, "paths"), t, item)
	{
		if ((servers = member(item, "servers")) == NULL)
			servers = member(doc, "servers");
		nservers = servers != NULL ? json_object_array_length(servers) :
					     0;
		for (j = 0; j < nservers || (j == 0 && nservers == 0); j++) {
			url = member(json_object_array_get_idx(servers, j),
			    "url");
			u = url != NULL ? json_object_get_string(url) : "/";
			if (!has_prefix(u, s, n, &pn))
				continue;
			if ((sc = score(t, s + pn, n - pn)) > bestsc) {
				bestsc = sc;
				best = t;
			}
		}
	}
	return best;
}

static const char *const methods[] = { "get", "put", "post", "delete",
	"options", "head", "patch", "trace" };

/* m in upper case ("GET" for "get"), or lower case, into buf. */
static const char *
setcase(const char *m, int up, char *buf, size_t size)
{
	size_t i;

	for (i = 0; m[i] != '\0' && i + 1 < size; i++)
		if (up && m[i] >= 'a' && m[i] <= 'z')
			buf[i] = (char)(m[i] - 'a' + 'A');
		else if (!up && m[i] >= 'A' && m[i] <= 'Z')
			buf[i] = (char)(m[i] - 'A' + 'a');
		else
			buf[i] = m[i];
	buf[i] = '\0';
	return buf;
}

/* Lowercase, without blanks: "application/json;charset=utf-8". */
static void
media_norm(const char *m, char *buf, size_t size)
{
	size_t i = 0;

	for (; *m != '\0' && i + 1 < size; m++)
		if (*m != ' ' && *m != '\t')
			buf[i++] = (char)(*m >= 'A' && *m <= 'Z' ? *m + 32 :
								   *m);
	buf[i] = '\0';
}

static int
media_is_json(const char *m)
{
	size_t n = strcspn(m, ";");

	return (n == 16 && strncasecmp(m, "application/json", n) == 0) ||
	    (n > 5 && strncasecmp(m + n - 5, "+json", 5) == 0);
}

/* Checks the answer against response (not yet dereferenced). */
static int
check_response(json_object *resp, const char *ctype, const char *bodyfile)
{
	json_object *content, *schema = NULL, *body;
	char want[256], got[256];
	const char *media = NULL;
	size_t len;
	char *buf;
	int rc;

	if ((resp = deref(resp, "response")) == NULL)
		return -1;
	if ((content = member(resp, "content")) == NULL) {
		if (ctype[0] == '\0')
			return 0;
		return fail("content type",
		    "\"%s\" where no body is documented", ctype);
	}
	media_norm(ctype, got, sizeof(got));
	json_object_object_foreach(content, key, mt)
	{
		media_norm(key, want, sizeof(want));
		if (strcmp(want, got) == 0) {
			media = key;
			schema = member(mt, "schema");
		}
	}
	if (media == NULL)
		return fail("content type", "\"%s\" is not documented", ctype);
	if (!media_is_json(media) || schema == NULL)
		return 0;
	if ((buf = read_file(bodyfile, &len)) == NULL)
		return fail(bodyfile, "%s", strerror(errno));
	rc = parse_json(buf, len, &body);
	free(buf);
	if (rc == -1)
		return fail("$", "the body is not one JSON text");
	rc = validate(body, schema, "$");
	json_object_put(body);
	return rc;
}

/* The methods path's item lists, uppercase, space-separated, into buf. */
static void
allow(json_object *item, char *buf, size_t size)
{
	char m[16];
	size_t i;

	buf[0] = '\0';
	for (i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		if (member(item, methods[i]) != NULL)
			snprintf(buf + strlen(buf), size - strlen(buf), "%s%s",
			    buf[0] != '\0' ? " " : "",
			    setcase(methods[i], 1, m, sizeof(m)));
}

static int
check(const char *method, const char *path, const char *status,
    const char *ctype, const char *bodyfile)
{
	json_object *item, *op, *resp;
	const char *t;
	char m[16];

	if ((t = match_path(path)) == NULL) {
		if ((resp = member(doc, "x-unknown-path")) == NULL)
			return fail(path, "matches no documented path");
		if (strcmp(status, "404") != 0)
			return fail(path, "unknown path answered %s, not 404",
			    status);
		if (check_response(resp, ctype, bodyfile) == -1)
			return -1;
		printf("ANY - 404\n");
		return 0;
	}
	item = member(member(doc, "paths"), t);
	if ((op = member(item, setcase(method, 0, m, sizeof(m)))) == NULL) {
		if ((resp = member(item, "x-method-not-allowed")) == NULL)
			return fail(t, "%s is not documented", method);
		if (strcmp(status, "405") != 0)
			return fail(t, "%s answered %s, not 405", method,
			    status);
		if (check_response(resp, ctype, bodyfile) == -1)
			return -1;
		printf("OTHER %s 405\n", t);
		return 0;
	}
	if ((resp = member(member(op, "responses"), status)) == NULL &&
	    (resp = member(member(op, "responses"), "default")) == NULL)
		return fail(t, "%s answered %s, which is not documented",
		    method, status);
	if (check_response(resp, ctype, bodyfile) == -1)
		return -1;
	printf("%s %s %s\n", method, t, status);
	return 0;
}

/* Every $ref under o resolves. */
static int
check_refs(json_object *o)
{
	size_t i;

	if (json_object_is_type(o, json_type_array)) {
		for (i = 0; i < json_object_array_length(o); i++)
			if (check_refs(json_object_array_get_idx(o, i)) == -1)
				return -1;
	} else if (json_object_is_type(o, json_type_object)) {
		json_object_object_foreach(o, key, v)
		{
			if (strcmp(key, "$ref") == 0 &&
			    pointer(json_object_get_string(v)) == NULL)
				return bad_doc("$ref", "%s resolves to nothing",
				    json_object_get_string(v));
			if (check_refs(v) == -1)
				return -1;
		}
	}
	return 0;
}

/* Prints every METHOD TEMPLATE STATUS the document has. */
static int
list(void)
{
	json_object *op, *resps;
	char m[16];
	size_t i;

	if (check_refs(doc) == -1)
		return -1;
	if (member(doc, "x-unknown-path") != NULL)
		printf("ANY - 404\n");
	json_object_object_foreach(member(doc, "paths"), t, item)
	{
		for (i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
			if ((op = member(item, methods[i])) == NULL)
				continue;
			if ((resps = member(op, "responses")) == NULL)
				return bad_doc(t, "%s has no responses",
				    methods[i]);
			json_object_object_foreach(resps, status, r)
			{
				(void)r;
				setcase(methods[i], 1, m, sizeof(m));
				printf("%s %s %s\n", m, t, status);
			}
		}
		if (member(item, "x-method-not-allowed") != NULL)
			printf("OTHER %s 405\n", t);
	}
	return 0;
}

static int
usage(void)
{
	fprintf(stderr,
	    "usage: openapi-check DOC METHOD PATH STATUS CONTENT-TYPE BODY\n"
	    "       openapi-check -l DOC\n"
	    "       openapi-check -a DOC PATH\n");
	return 2;
}

int
main(int argc, char *argv[])
{
	const char *docfile;
	char *buf, methodsbuf[128];
	const char *t;
	size_t len;
	int rc;

	if (argc == 3 && strcmp(argv[1], "-l") == 0)
		docfile = argv[2];
	else if (argc == 4 && strcmp(argv[1], "-a") == 0)
		docfile = argv[2];
	else if (argc == 7)
		docfile = argv[1];
	else
		return usage();
	if ((buf = read_file(docfile, &len)) == NULL) {
		fprintf(stderr, "openapi-check: %s: %s\n", docfile,
		    strerror(errno));
		return 2;
	}
	rc = parse_json(buf, len, &doc);
	free(buf);
	if (rc == -1 || member(doc, "paths") == NULL) {
		fprintf(stderr, "openapi-check: %s: not an OpenAPI document\n",
		    docfile);
		json_object_put(doc);
		return 2;
	}
	if (argc == 3)
		rc = list();
	else if (argc == 4) {
		if ((t = match_path(argv[3])) == NULL)
			rc = fail(argv[3], "matches no documented path");
		else {
			allow(member(member(doc, "paths"), t), methodsbuf,
			    sizeof(methodsbuf));
			printf("%s %s\n", t, methodsbuf);
			rc = 0;
		}
	} else
		rc = check(argv[2], argv[3], argv[4], argv[5], argv[6]);
	json_object_put(doc);
	if (rc == -1) {
		fprintf(stderr, "openapi-check: %s\n", reason);
		return doc_error ? 2 : 1;
	}
	return 0;
}
