/*
 * libFuzzer harness for JSON string quoting and UTF-8 cleaning
 * (cgi/buf.c).  Whatever bytes a client or a command sends, the quoted
 * form must be a valid JSON string that decodes back to those bytes when
 * they were UTF-8 (else the bad bytes become U+FFFD), and a cleaned string
 * must be UTF-8 text with no control characters but tab and newline.
 */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* Whether the quoted string q holds a \ufffd escape (not an escaped '\'). */
static int
has_replacement(const char *q)
{
	for (; *q != '\0'; q++) {
		if (*q != '\\')
			continue;
		if (strncmp(q + 1, "ufffd", 5) == 0)
			return 1;
		q++; /* the escaped character, maybe a '\\' */
	}
	return 0;
}

/*
 * Quotes s[0..n) inside a JSON array, checks it strictly and returns the
 * decoded string's bytes in *out (the caller frees it).  *replaced tells
 * whether any byte became U+FFFD.
 */
static size_t
quote_and_decode(const char *s, size_t n, char **out, int *replaced)
{
	struct buf b = { 0 };
	json_object *root, *str;
	size_t len;

	FUZZ_CHECK(buf_add(&b, "[", 1) == 0);
	FUZZ_CHECK(buf_add_json_string(&b, s, n) == 0);
	*replaced = has_replacement(buf_str(&b));
	FUZZ_CHECK(buf_add(&b, "]", 1) == 0);
	root = fuzz_json_parse(b.p, b.len);
	FUZZ_CHECK(json_object_is_type(root, json_type_array) &&
	    json_object_array_length(root) == 1);
	str = json_object_array_get_idx(root, 0);
	FUZZ_CHECK(json_object_is_type(str, json_type_string));
	len = (size_t)json_object_get_string_len(str);
	FUZZ_CHECK((*out = malloc(len + 1)) != NULL);
	memcpy(*out, json_object_get_string(str), len + 1);
	json_object_put(root);
	buf_free(&b);
	return len;
}

static void
check_quote(const uint8_t *data, size_t size)
{
	char *dec;
	size_t len;
	int replaced;

	len = quote_and_decode((const char *)data, size, &dec, &replaced);
	if (!replaced)
		FUZZ_CHECK(len == size && memcmp(dec, data, size) == 0);
	free(dec);
}

static void
check_clean(const uint8_t *data, size_t size)
{
	char *s, *dec;
	size_t i, len, before;
	int fixed, replaced;

	/* An exact-size copy, so that ASan sees any read past the NUL. */
	FUZZ_CHECK((s = malloc(size + 1)) != NULL);
	memcpy(s, data, size);
	s[size] = '\0';
	before = strlen(s);
	fixed = buf_utf8_clean(s);
	FUZZ_CHECK(fixed >= 0 && (size_t)fixed <= before);
	FUZZ_CHECK(strlen(s) == before);
	for (i = 0; i < before; i++) {
		unsigned char c = (unsigned char)s[i];
		FUZZ_CHECK(c >= 0x20 || c == '\t' || c == '\n');
		FUZZ_CHECK(c != 0x7f);
	}
	/* Clean text needs no U+FFFD and survives quoting unchanged. */
	len = quote_and_decode(s, before, &dec, &replaced);
	FUZZ_CHECK(!replaced && len == before && memcmp(dec, s, len) == 0);
	free(dec);
	FUZZ_CHECK(buf_utf8_clean(s) == 0);
	free(s);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_quote(data, size);
	check_clean(data, size);
	return 0;
}
