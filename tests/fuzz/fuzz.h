/*
 * What the libFuzzer harnesses share: an invariant check that names the
 * broken invariant before abort() (libFuzzer then saves the input as a
 * crash), and a strict JSON validator for the bytes we send to clients.
 * Harnesses abort on purpose; the service never does: it logs and answers
 * the client with its JSON error.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#define FUZZ_CHECK(cond) \
	do { \
		if (!(cond)) { \
			fprintf(stderr, "%s:%d: invariant violated: %s\n", \
			    __FILE__, __LINE__, #cond); \
			abort(); \
		} \
	} while (0)

/*
 * Parses s[0..len) as one complete JSON text, as a strict client would
 * (RFC 8259, UTF-8 only, nothing after it).  s[len] must be NUL, as in a
 * struct buf.  Returns the value, which the caller puts, or aborts.
 */
static inline json_object *
fuzz_json_parse(const char *s, size_t len)
{
	struct json_tokener *tok;
	json_object *v;

	FUZZ_CHECK(s != NULL && s[len] == '\0' && strlen(s) == len);
	FUZZ_CHECK((tok = json_tokener_new()) != NULL);
	json_tokener_set_flags(tok,
	    JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	v = json_tokener_parse_ex(tok, s, (int)len + 1);
	if (json_tokener_get_error(tok) != json_tokener_success ||
	    json_tokener_get_parse_end(tok) < len) {
		fprintf(stderr, "not JSON (%s): %.*s\n",
		    json_tokener_error_desc(json_tokener_get_error(tok)),
		    (int)(len < 512 ? len : 512), s);
		abort();
	}
	json_tokener_free(tok);
	return v;
}

/* Whether s[0..len) is exactly want lowercase hex digits. */
static inline int
fuzz_is_lower_hex(const char *s, size_t len, size_t want)
{
	size_t i;

	if (len != want)
		return 0;
	for (i = 0; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
			(s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

#endif /* FUZZ_H */
