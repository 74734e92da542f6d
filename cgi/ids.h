/*
 * Job and trigger identifiers: 32 hexadecimal characters (Flink's AbstractID),
 * accepted in any case and always rendered in lowercase (checkpoint-api(7),
 * "IDENTIFIERS").
 */
#ifndef IDS_H
#define IDS_H

#include <stddef.h>

#define ID_LEN 32 /* hex characters in an id */

/* An id in canonical form: 32 lowercase hex digits and a NUL. */
struct id {
	char s[ID_LEN + 1];
};

int id_parse(const char *s, size_t len, struct id *out);
int id_parse_str(const char *s, struct id *out);
int id_random(struct id *out);

#endif /* IDS_H */
