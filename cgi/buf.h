/*
 * A growable byte buffer, always NUL-terminated, used to build response
 * bodies and to collect request bodies and command output.  Every function
 * returns 0 or -1 on allocation failure (the buffer is then unchanged).
 */
#ifndef BUF_H
#define BUF_H

#include <stddef.h>
#include <stdint.h>

struct buf {
	char *p; /* NUL-terminated contents, NULL when empty */
	size_t len; /* bytes used, without the NUL */
	size_t cap; /* bytes allocated */
};

int buf_reserve(struct buf *, size_t extra);
int buf_add(struct buf *, const void *, size_t);
int buf_adds(struct buf *, const char *);
int buf_add_size(struct buf *, size_t);
int buf_printf(struct buf *, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int buf_add_json_string(struct buf *, const char *, size_t);
int buf_utf8_clean(char *);
size_t buf_utf8_next(const unsigned char *, size_t, uint32_t *);
size_t buf_utf8_len(const unsigned char *, size_t);
void buf_reset(struct buf *);
void buf_free(struct buf *);
/*
 * What a buffer kept from one request to the next may hold on to: one
 * that an answer (the fleet's list) grew past it lets its memory go.
 */
#define BUF_KEEP (64 * 1024)
/* Empties b, and frees it if it holds more than keep: 1 if it did. */
int buf_shrink(struct buf *, size_t keep);
const char *buf_str(const struct buf *);

#endif /* BUF_H */
