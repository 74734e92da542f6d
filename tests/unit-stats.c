/*
 * The pieces of cgi/stats.c that must match Java byte for byte: doubles
 * as Double.toString writes them, Commons-Math's LEGACY percentiles as
 * Flink's checkpoint summary computes them, and Long.parseLong for a
 * checkpoint id.  Expected values were printed by a JDK running the same
 * formula (checkpoint-api(7), "Checkpoint statistics").
 */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "tap.h"

static const struct {
	int line;
	double v;
	const char *want;
} doubles[] = {
	{ __LINE__, 0.0, "0.0" },
	{ __LINE__, 1.0, "1.0" },
	{ __LINE__, 57.5, "57.5" },
	{ __LINE__, 2048.0, "2048.0" },
	{ __LINE__, 1.0e7, "1.0E7" },
	{ __LINE__, 12345678.0, "1.2345678E7" },
	{ __LINE__, 9999999.0, "9999999.0" },
	{ __LINE__, 0.001, "0.001" },
	{ __LINE__, 0.0001, "1.0E-4" },
	{ __LINE__, 1.5e-5, "1.5E-5" },
	{ __LINE__, 100.25, "100.25" },
	{ __LINE__, 123456.789, "123456.789" },
	{ __LINE__, 0.1 + 0.2, "0.30000000000000004" },
	{ __LINE__, 1e21, "1.0E21" },
	{ __LINE__, 1.2345e-3, "0.0012345" },
	{ __LINE__, 9.9, "9.9" },
	{ __LINE__, 1234567.125, "1234567.125" },
	{ __LINE__, 0.5, "0.5" },
	{ __LINE__, -2.5, "-2.5" },
	/* Jackson writes NaN as a string (WRITE_NAN_AS_STRINGS). */
	{ __LINE__, NAN, "\"NaN\"" },
};

static void
test_doubles(void)
{
	struct buf b = { 0 };
	size_t i;

	for (i = 0; i < sizeof(doubles) / sizeof(doubles[0]); i++) {
		buf_reset(&b);
		tap_is_int_at(__FILE__, doubles[i].line,
		    stats_add_double(&b, doubles[i].v), 0, "double %zu: rc",
		    i + 1);
		tap_is_str_at(__FILE__, doubles[i].line, buf_str(&b),
		    doubles[i].want, "double %zu: %s", i + 1, doubles[i].want);
	}
	buf_free(&b);
}

/* p50 p90 p95 p99 p999 of sorted x, as Java printed them. */
static void
quantiles_are(int line, const int64_t *x, size_t n, const char *want)
{
	static const double q[] = { 0.5, 0.9, 0.95, 0.99, 0.999 };
	struct buf b = { 0 };
	size_t i;

	for (i = 0; i < 5; i++)
		if ((i > 0 && buf_add(&b, " ", 1) == -1) ||
		    stats_add_double(&b, stats_quantile(x, n, q[i])) == -1)
			break;
	tap_is_str_at(__FILE__, line, buf_str(&b), want, "quantiles of %zu", n);
	buf_free(&b);
}

static void
test_quantiles(void)
{
	static const int64_t a[] = { 2, 3, 3 }, b[] = { 35, 80 }, c[] = { 7 },
			     d[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	int64_t e[100], f[1000], t;
	size_t i, j;

	quantiles_are(__LINE__, a, 0,
	    "\"NaN\" \"NaN\" \"NaN\" \"NaN\" \"NaN\"");
	quantiles_are(__LINE__, a, 3, "3.0 3.0 3.0 3.0 3.0");
	quantiles_are(__LINE__, b, 2, "57.5 80.0 80.0 80.0 80.0");
	quantiles_are(__LINE__, c, 1, "7.0 7.0 7.0 7.0 7.0");
	quantiles_are(__LINE__, d, 10, "5.5 9.9 10.0 10.0 10.0");
	for (i = 0; i < 100; i++)
		e[i] = (int64_t)i + 1;
	quantiles_are(__LINE__, e, 100,
	    "50.5 90.9 95.94999999999999 99.99 100.0");
	for (i = 0; i < 1000; i++)
		f[i] = (int64_t)(i * i % 997);
	for (i = 1; i < 1000; i++)
		for (j = i; j > 0 && f[j - 1] > f[j]; j--) {
			t = f[j];
			f[j] = f[j - 1];
			f[j - 1] = t;
		}
	quantiles_are(__LINE__, f, 1000,
	    "495.5 906.8 944.9499999999999 986.98 996.0");
}

static const struct {
	int line;
	const char *s;
	int rc;
	int64_t v;
} longs[] = {
	{ __LINE__, "42", 0, 42 },
	{ __LINE__, "0", 0, 0 },
	{ __LINE__, "007", 0, 7 },
	{ __LINE__, "+5", 0, 5 },
	{ __LINE__, "-1", 0, -1 },
	{ __LINE__, "9223372036854775807", 0, INT64_MAX },
	{ __LINE__, "-9223372036854775808", 0, INT64_MIN },
	{ __LINE__, "9223372036854775808", -1, 0 },
	{ __LINE__, "", -1, 0 },
	{ __LINE__, "-", -1, 0 },
	{ __LINE__, "+", -1, 0 },
	{ __LINE__, "1.0", -1, 0 },
	{ __LINE__, "0x10", -1, 0 },
	{ __LINE__, " 1", -1, 0 },
	{ __LINE__, "1 ", -1, 0 },
	{ __LINE__, "--1", -1, 0 },
	{ __LINE__, "abc", -1, 0 },
	{ __LINE__, "000000000000000000000001", -1, 0 },
};

static void
test_longs(void)
{
	int64_t v;
	size_t i;

	for (i = 0; i < sizeof(longs) / sizeof(longs[0]); i++) {
		v = 0;
		tap_is_int_at(__FILE__, longs[i].line,
		    stats_parse_long(longs[i].s, strlen(longs[i].s), &v),
		    longs[i].rc, "long %zu: \"%s\"", i + 1, longs[i].s);
		if (longs[i].rc == 0)
			tap_is_int_at(__FILE__, longs[i].line, v, longs[i].v,
			    "long %zu: value", i + 1);
	}
}

int
main(void)
{
	test_doubles();
	test_quantiles();
	test_longs();
	return tap_done();
}
