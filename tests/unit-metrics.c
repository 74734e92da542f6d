/*
 * GET /metrics's label values (cgi/metrics.c): Flink's reporter's default
 * filter, one '_' per UTF-16 unit of a character outside [a-zA-Z0-9:_],
 * and the text format's escapes when the filter is off.
 */
#include <config.h>

#include "buf.h"
#include "metrics.h"
#include "tap.h"

static const struct {
	int line;
	const char *in;
	const char *filtered; /* CHECKPOINT_METRICS_FILTER=1 */
	const char *escaped; /* CHECKPOINT_METRICS_FILTER=0 */
} label_cases[] = {
	{ __LINE__, "", "\"\"", "\"\"" },
	{ __LINE__, "Orders_v2:eu", "\"Orders_v2:eu\"", "\"Orders_v2:eu\"" },
	{ __LINE__, "orders v2", "\"orders_v2\"", "\"orders v2\"" },
	{ __LINE__, "a-b.c/d", "\"a_b_c_d\"", "\"a-b.c/d\"" },
	/* The three the format escapes, and nothing else. */
	{ __LINE__, "q\"b\\n\nt\tr\r", "\"q_b_n_t_r_\"",
	    "\"q\\\"b\\\\n\\nt\tr\r\"" },
	/* Two, three and four bytes of UTF-8: one, one and two UTF-16 units. */
	{ __LINE__, "\xc3\xbc", "\"_\"", "\"\xc3\xbc\"" },
	{ __LINE__, "\xe2\x82\xac", "\"_\"", "\"\xe2\x82\xac\"" },
	{ __LINE__, "\xf0\x9f\x99\x82", "\"__\"", "\"\xf0\x9f\x99\x82\"" },
	{ __LINE__, "x\xf0\x9f\x99\x82y\xc3\xbcz", "\"x__y_z\"",
	    "\"x\xf0\x9f\x99\x82y\xc3\xbcz\"" },
	/* Not UTF-8 (the store holds what it was given): a byte each. */
	{ __LINE__, "\xff\xc3", "\"__\"", "\"??\"" },
	{ __LINE__, "\xf0\x9f", "\"__\"", "\"??\"" },
	{ __LINE__, "a\xc3\xbc\xc3", "\"a__\"", "\"a\xc3\xbc?\"" },
};

int
main(void)
{
	struct buf b = { 0 };
	const char *want;
	size_t i;
	int filter;

	for (i = 0; i < sizeof(label_cases) / sizeof(label_cases[0]); i++)
		for (filter = 1; filter >= 0; filter--) {
			want = filter ? label_cases[i].filtered :
					label_cases[i].escaped;
			buf_reset(&b);
			tap_is_int_at(__FILE__, label_cases[i].line,
			    metrics_label_value(&b, label_cases[i].in, filter),
			    0, "label %zu, filter %d: rc", i + 1, filter);
			tap_is_str_at(__FILE__, label_cases[i].line,
			    buf_str(&b), want, "label %zu, filter %d", i + 1,
			    filter);
		}
	buf_free(&b);
	return tap_done();
}
