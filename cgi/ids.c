/*
 * Parsing and generating identifiers.  See ids.h.
 */
#include <config.h>

#include <errno.h>
#include <string.h>
#include <sys/random.h>

#include "ids.h"

/*
 * Parses exactly ID_LEN hex digits of any case into out, in lowercase.
 * Returns 0, or -1 (out untouched) for any other length or character.
 * Flink's parser also takes a 33rd character and signs inside pairs; those
 * are quirks, not contract, and we refuse them.
 */
int
id_parse(const char *s, size_t len, struct id *out)
{
	struct id id;
	size_t i;
	char c;

	if (s == NULL || len != ID_LEN)
		return -1;
	for (i = 0; i < ID_LEN; i++) {
		c = s[i];
		if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))
			id.s[i] = c;
		else if (c >= 'A' && c <= 'F')
			id.s[i] = (char)(c - 'A' + 'a');
		else
			return -1;
	}
	id.s[ID_LEN] = '\0';
	*out = id;
	return 0;
}

int
id_parse_str(const char *s, struct id *out)
{
	return s == NULL ? -1 : id_parse(s, strlen(s), out);
}

/*
 * 128 random bits from the kernel, never a counter or a time, so that no
 * client can guess another's (checkpoint-api(7), "IDENTIFIERS").
 * getrandom(2) blocks only until the pool is first initialised.
 */
int
id_random(struct id *out)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char raw[ID_LEN / 2];
	size_t got = 0, i;
	ssize_t n;

	while (got < sizeof(raw)) {
		n = getrandom(raw + got, sizeof(raw) - got, 0);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		got += (size_t)n;
	}
	for (i = 0; i < sizeof(raw); i++) {
		out->s[2 * i] = hex[raw[i] >> 4];
		out->s[2 * i + 1] = hex[raw[i] & 0x0f];
	}
	out->s[ID_LEN] = '\0';
	return 0;
}
