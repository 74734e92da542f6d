/*
 * libFuzzer harness for the POST body (cgi/body.c; checkpoint-api(7),
 * "POST /jobs/:jobid/checkpoints").  The input is the body, handed over the way
 * api_handle does (its exact length, a NUL after it as in a struct buf),
 * and also, NUL-terminated, a CONTENT_LENGTH checked against a few limits
 * and against a digit-by-digit reading of our own.
 */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "body.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* Kept from one input to the next, as a worker keeps its own. */
static struct json_tokener *parser;

static void
check_trigger(const uint8_t *data, size_t size)
{
	struct trigger_body tb;
	json_object *root, *v;
	enum body_rc rc;
	char *copy;

	FUZZ_CHECK((copy = malloc(size + 1)) != NULL);
	memcpy(copy, data, size);
	copy[size] = '\0';
	rc = body_parse_trigger(&parser, copy, size, &tb);
	FUZZ_CHECK(rc == BODY_OK || rc == BODY_BAD);
	if (rc == BODY_OK) {
		FUZZ_CHECK(tb.type < CKPT__MAX);
		if (tb.has_trigger_id)
			FUZZ_CHECK(fuzz_is_lower_hex(tb.trigger_id.s,
			    strlen(tb.trigger_id.s), 32));
		/* Accepted means a JSON object a strict client would send. */
		if (size > 0) {
			root = fuzz_json_parse(copy, size);
			FUZZ_CHECK(json_object_is_type(root, json_type_object));
			if (tb.has_trigger_id)
				FUZZ_CHECK(json_object_object_get_ex(root,
					       "triggerId", &v) &&
				    strcasecmp(json_object_get_string(v),
					tb.trigger_id.s) == 0);
			json_object_put(root);
		} else
			FUZZ_CHECK(
			    !tb.has_trigger_id && tb.type == CKPT_CONFIGURED);
	}
	free(copy);
}

/*
 * The expected answer of body_length for cl, from the definition: empty
 * is 0, anything but digits is BAD_LENGTH, over max is TOO_LARGE.
 */
static enum body_rc
expected_length(const char *cl, size_t max, size_t *len)
{
	size_t v = 0;
	int over = 0;

	*len = 0;
	for (; *cl != '\0'; cl++) {
		if (*cl < '0' || *cl > '9')
			return BODY_BAD_LENGTH;
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, (size_t)(*cl - '0'), &v))
			over = 1;
	}
	if (over || v > max)
		return BODY_TOO_LARGE;
	*len = v;
	return BODY_OK;
}

static void
check_length(const uint8_t *data, size_t size)
{
	static const size_t maxes[] = { 0, 1, 2, 65536, 64 << 20, SIZE_MAX - 1,
		SIZE_MAX };
	enum body_rc rc, want;
	size_t i, len, wantlen;
	char *cl;

	/* An exact-size copy, so that ASan sees any read past the NUL. */
	FUZZ_CHECK((cl = malloc(size + 1)) != NULL);
	memcpy(cl, data, size);
	cl[size] = '\0';
	for (i = 0; i < sizeof(maxes) / sizeof(maxes[0]); i++) {
		len = 12345;
		rc = body_length(cl, maxes[i], &len);
		if (rc == BODY_OK)
			FUZZ_CHECK(len <= maxes[i]);
		else
			FUZZ_CHECK(len == 0);
		want = expected_length(cl, maxes[i], &wantlen);
		FUZZ_CHECK(rc == want && len == wantlen);
	}
	len = 12345;
	FUZZ_CHECK(body_length(NULL, 0, &len) == BODY_OK && len == 0);
	free(cl);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_trigger(data, size);
	check_length(data, size);
	return 0;
}
