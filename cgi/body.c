/*
 * CONTENT_LENGTH and the trigger request body.  See body.h.
 */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "body.h"

/* Deeper than any valid body needs; deeper input is refused early. */
#define BODY_MAX_DEPTH	16

/*
 * The announced body length.  Absent or empty means no body (nginx sends an
 * empty CONTENT_LENGTH on GET).  Only digits are a length: strtoull would
 * also take blanks and a '-' that wraps around.  Over max is BODY_TOO_LARGE
 * before a single byte is read.
 */
enum body_rc
body_length(const char *cl, size_t max, size_t *len)
{
	unsigned long long	 v;
	const char		*p;
	char			*end;

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
 * Parses the body into out.  An empty body is {}.  Unknown fields are
 * ignored; null means the default; enum values are exact; a triggerId is
 * 32 hex.  Anything else (malformed JSON, trailing bytes, a non-object,
 * invalid UTF-8, a wrong type) is BODY_BAD.
 */
enum body_rc
body_parse_trigger(const char *buf, size_t len, struct trigger_body *out)
{
	struct json_tokener	*tok;
	json_object		*root, *v;
	enum body_rc		 rc = BODY_BAD;

	memset(out, 0, sizeof(*out));
	out->type = CKPT_CONFIGURED;
	if (len == 0)
		return BODY_OK;
	if (len > INT32_MAX - 1 || memchr(buf, '\0', len) != NULL)
		return BODY_BAD;
	if ((tok = json_tokener_new_ex(BODY_MAX_DEPTH)) == NULL)
		return BODY_BAD;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT |
	    JSON_TOKENER_VALIDATE_UTF8);
	/* json-c wants the terminating NUL counted when input is complete. */
	root = json_tokener_parse_ex(tok, buf, (int)len + 1);
	if (root == NULL || json_tokener_get_error(tok) != json_tokener_success ||
	    json_tokener_get_parse_end(tok) < len ||
	    !json_object_is_type(root, json_type_object))
		goto out;

	if (json_object_object_get_ex(root, "checkpointType", &v) && v != NULL) {
		if (!json_object_is_type(v, json_type_string) ||
		    strlen(json_object_get_string(v)) !=
		    (size_t)json_object_get_string_len(v) ||
		    ckpt_type_parse(json_object_get_string(v), &out->type) == -1)
			goto out;
	}
	if (json_object_object_get_ex(root, "triggerId", &v) && v != NULL) {
		if (!json_object_is_type(v, json_type_string) ||
		    id_parse(json_object_get_string(v),
		    (size_t)json_object_get_string_len(v),
		    &out->trigger_id) == -1)
			goto out;
		out->has_trigger_id = 1;
	}
	rc = BODY_OK;
out:
	json_object_put(root);
	json_tokener_free(tok);
	return rc;
}
