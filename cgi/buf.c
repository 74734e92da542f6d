/*
 * Growable buffers and JSON string quoting.  See buf.h.
 */
#include <config.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

int
buf_reserve(struct buf *b, size_t extra)
{
	size_t need, cap;
	char *p;

	if (extra > SIZE_MAX - b->len - 1)
		return -1;
	need = b->len + extra + 1;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 256;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	if ((p = realloc(b->p, cap)) == NULL)
		return -1;
	b->p = p;
	b->cap = cap;
	return 0;
}

int
buf_add(struct buf *b, const void *data, size_t len)
{
	if (buf_reserve(b, len) == -1)
		return -1;
	if (len > 0)
		memcpy(b->p + b->len, data, len);
	b->len += len;
	b->p[b->len] = '\0';
	return 0;
}

int
buf_adds(struct buf *b, const char *s)
{
	return buf_add(b, s, strlen(s));
}

/* Appends n in decimal: on every response, where printf costs a lot. */
int
buf_add_size(struct buf *b, size_t n)
{
	char d[24], *q = d + sizeof(d);

	do
		*--q = (char)('0' + n % 10);
	while ((n /= 10) > 0);
	return buf_add(b, q, (size_t)(d + sizeof(d) - q));
}

int
buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || buf_reserve(b, (size_t)n) == -1)
		return -1;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

/*
 * Length of the well-formed UTF-8 sequence at s (at most n bytes), or 0 if
 * the bytes there are not one (RFC 3629: no overlongs, no surrogates, nothing
 * above U+10FFFF); *cp is its code point.
 */
size_t
buf_utf8_next(const unsigned char *s, size_t n, uint32_t *cp)
{
	size_t len, i;
	uint32_t c;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	} else if ((s[0] & 0xe0) == 0xc0)
		len = 2, c = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		len = 3, c = s[0] & 0x0f;
	else if ((s[0] & 0xf8) == 0xf0)
		len = 4, c = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if ((len == 2 && c < 0x80) || (len == 3 && c < 0x800) ||
	    (len == 4 && c < 0x10000) || c > 0x10ffff ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

/* buf_utf8_next without the code point. */
size_t
buf_utf8_len(const unsigned char *s, size_t n)
{
	uint32_t cp;

	return buf_utf8_next(s, n, &cp);
}

/*
 * Appends s as a quoted JSON string (RFC 8259 section 7), escaping as
 * Jackson does: '"', '\\' and control characters only, short forms where
 * they exist, else \u00XX in upper case.  Bytes that are not UTF-8
 * become U+FFFD, so the output is always valid JSON whatever a client or
 * a command sent.
 */
/* JSON's short escape of c, as Jackson writes it, or NULL. */
static const char *
json_short_escape(unsigned char c)
{
	static const char *const esc[] = { ['"'] = "\\\"",
		['\\'] = "\\\\",
		['\b'] = "\\b",
		['\f'] = "\\f",
		['\n'] = "\\n",
		['\r'] = "\\r",
		['\t'] = "\\t" };

	return c < sizeof(esc) / sizeof(esc[0]) ? esc[c] : NULL;
}

/*
 * Appends the character that starts s (n bytes left) as JSON has it:
 * escaped, or a UTF-8 sequence whole; how many bytes it took, 0 if out
 * of memory.
 */
static size_t
json_add_char(struct buf *b, const unsigned char *s, size_t n)
{
	const char *short_esc = json_short_escape(s[0]);
	char esc[8];
	size_t len;

	if (short_esc != NULL)
		return buf_adds(b, short_esc) == -1 ? 0 : 1;
	if (s[0] < 0x20) {
		snprintf(esc, sizeof(esc), "\\u%04X", s[0]);
		return buf_adds(b, esc) == -1 ? 0 : 1;
	}
	if ((len = buf_utf8_len(s, n)) == 0)
		return buf_adds(b, "\\ufffd") == -1 ? 0 : 1;
	return buf_add(b, s, len) == -1 ? 0 : len;
}

int
buf_add_json_string(struct buf *b, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i, run, len;

	if (buf_reserve(b, n + 2) == -1 || buf_add(b, "\"", 1) == -1)
		return -1;
	for (i = 0; i < n; i += len) {
		/* Copy the longest run that needs no escaping at once. */
		for (run = i; run < n && s[run] >= 0x20 && s[run] < 0x80 &&
		     s[run] != '"' && s[run] != '\\';
		     run++)
			;
		if (run > i) {
			if (buf_add(b, s + i, run - i) == -1)
				return -1;
			len = run - i;
		} else if ((len = json_add_char(b, s + i, n - i)) == 0)
			return -1;
	}
	return buf_add(b, "\"", 1);
}

/*
 * Makes a NUL-terminated string valid UTF-8 text in place: bytes that are
 * not UTF-8, and control characters other than tab and newline, become '?'.
 * Returns how many bytes were replaced.
 */
int
buf_utf8_clean(char *str)
{
	unsigned char *s = (unsigned char *)str;
	size_t n = strlen(str), i, len;
	int fixed = 0;

	for (i = 0; i < n; i += len) {
		if ((len = buf_utf8_len(s + i, n - i)) == 0 ||
		    (s[i] < 0x20 && s[i] != '\n' && s[i] != '\t') ||
		    s[i] == 0x7f) {
			s[i] = '?';
			len = 1;
			fixed++;
		}
	}
	return fixed;
}

void
buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->p != NULL)
		b->p[0] = '\0';
}

void
buf_free(struct buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

int
buf_shrink(struct buf *b, size_t keep)
{
	if (b->cap <= keep) {
		buf_reset(b);
		return 0;
	}
	buf_free(b);
	return 1;
}

const char *
buf_str(const struct buf *b)
{
	return b->p != NULL ? b->p : "";
}
