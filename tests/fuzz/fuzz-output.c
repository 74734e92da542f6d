/*
 * libFuzzer harness for the runner's handling of a command's output
 * (action_output_* in cgi/action.c).  The input is a script of chunks, as
 * a command's two pipes may deliver them: each chunk is one control byte
 * (bit 0: stdout or stderr; bits 1-7 times 41: the chunk's length, so
 * that one chunk can pass the 2 KiB tail and the 4 KiB line) and that
 * many bytes.  The result must equal a plain model computed from the two
 * whole streams: the last non-blank stdout line (each line cut at
 * ACTION_LINE - 1 bytes, blanks and CRs trimmed at its end, an unfinished
 * last line counting too) and the last ACTION_TAIL bytes of stderr, both
 * as C strings made UTF-8 text by buf_utf8_clean.
 */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "action.h"
#include "buf.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* The last line of out[0..n) as the model says, cleaned, into want. */
static void
model_last_line(const char *out, size_t n, char *want)
{
	size_t start, end, len;

	want[0] = '\0';
	for (start = 0; start < n || start == 0; start = end + 1) {
		for (end = start; end < n && out[end] != '\n'; end++)
			;
		len = end - start;
		if (len > ACTION_LINE - 1)
			len = ACTION_LINE - 1;
		while (len > 0 &&
		    (out[start + len - 1] == ' ' ||
			out[start + len - 1] == '\t' ||
			out[start + len - 1] == '\r'))
			len--;
		if (len > 0) {
			memcpy(want, out + start, len);
			want[len] = '\0';
		}
		if (end >= n)
			break;
	}
	buf_utf8_clean(want);
}

/* Whether s is UTF-8 text with no control characters but tab and newline. */
static int
is_text(const char *s)
{
	size_t n = strlen(s), i = 0, k;

	while (i < n) {
		if ((unsigned char)s[i] < 0x20 && s[i] != '\t' && s[i] != '\n')
			return 0;
		if ((k = buf_utf8_len((const unsigned char *)s + i, n - i)) ==
		    0)
			return 0;
		i += k;
	}
	return 1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct action_output o;
	static struct action_result r;
	static char want_line[ACTION_LINE], want_tail[ACTION_TAIL + 1];
	struct buf out = { 0 }, err = { 0 };
	size_t i = 0, len, tail;
	int channel;

	memset(&o, 0, sizeof(o));
	while (i < size) {
		channel = data[i] & 1;
		len = (size_t)(data[i] >> 1) * 41;
		i++;
		if (len > size - i)
			len = size - i;
		if (channel == 0) {
			action_output_stdout(&o, (const char *)data + i, len);
			FUZZ_CHECK(buf_add(&out, data + i, len) == 0);
		} else {
			action_output_stderr(&o, (const char *)data + i, len);
			FUZZ_CHECK(buf_add(&err, data + i, len) == 0);
		}
		i += len;
	}
	memset(&r, 0, sizeof(r));
	action_output_result(&o, &r);

	model_last_line(out.p != NULL ? out.p : "", out.len, want_line);
	tail = err.len > ACTION_TAIL ? ACTION_TAIL : err.len;
	if (tail > 0)
		memcpy(want_tail, err.p + err.len - tail, tail);
	want_tail[tail] = '\0';
	buf_utf8_clean(want_tail);

	FUZZ_CHECK(strcmp(r.last_line, want_line) == 0);
	FUZZ_CHECK(strcmp(r.err_tail, want_tail) == 0);
	FUZZ_CHECK(strchr(r.last_line, '\n') == NULL);
	FUZZ_CHECK(is_text(r.last_line) && is_text(r.err_tail));
	buf_free(&out);
	buf_free(&err);
	return 0;
}
