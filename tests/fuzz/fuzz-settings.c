/*
 * libFuzzer harness for the settings parsers (cgi/settings.c): integers,
 * durations and sizes, on the input NUL-terminated.  Whatever they accept
 * must be in the documented range and must be what the digits say: a
 * duration rendered back as "<ms>ms" parses to the same value, and a size
 * is its digits times its suffix.  And CHECKPOINT_DB as shown and as
 * hidden (cgi/store.c): each ends, and they agree.
 */
#include <config.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "settings.h"
#include "store.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* About ten years, the longest duration settings.c takes. */
#define DURATION_MAX_MS (10LL * 366 * 24 * 3600 * 1000)

static const struct {
	int64_t min, max;
} ranges[] = {
	{ 0, INT64_MAX },
	{ 2, 64 * 1024 * 1024 }, /* CHECKPOINT_MAX_BODY */
	{ 0, 60 * 1000 },
	{ 7, 7 },
};

/* The decimal value of the leading digits of s, and how many there are. */
static size_t
leading_digits(const char *s, int64_t *v, int *overflow)
{
	size_t n;

	*v = 0;
	*overflow = 0;
	for (n = 0; s[n] >= '0' && s[n] <= '9'; n++)
		if (__builtin_mul_overflow(*v, 10, v) ||
		    __builtin_add_overflow(*v, s[n] - '0', v))
			*overflow = 1;
	return n;
}

static void
check_int(const char *s)
{
	int64_t v, want;
	size_t i, n;
	int over, rc;

	n = leading_digits(s, &want, &over);
	for (i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++) {
		rc = settings_parse_int(s, ranges[i].min, ranges[i].max, &v);
		/* Digits only, in range, not too big: nothing else. */
		FUZZ_CHECK((rc == 0) ==
		    (n > 0 && s[n] == '\0' && !over && want >= ranges[i].min &&
			want <= ranges[i].max));
		if (rc == 0)
			FUZZ_CHECK(v == want);
	}
}

static void
check_duration(const char *s)
{
	char again[64];
	int64_t ms, ms2;

	if (settings_parse_duration(s, &ms) == -1)
		return;
	FUZZ_CHECK(ms >= 0 && ms <= DURATION_MAX_MS);
	snprintf(again, sizeof(again), "%" PRId64 "ms", ms);
	FUZZ_CHECK(settings_parse_duration(again, &ms2) == 0 && ms2 == ms);
	/* A plain number is seconds. */
	if (ms % 1000 == 0) {
		snprintf(again, sizeof(again), "%" PRId64, ms / 1000);
		FUZZ_CHECK(
		    settings_parse_duration(again, &ms2) == 0 && ms2 == ms);
	}
}

static void
check_size(const char *s)
{
	int64_t v, digits, mult = 1;
	size_t i, n;
	int over;

	n = leading_digits(s, &digits, &over);
	if (n > 0 && (s[n] == 'K' || s[n] == 'k') && s[n + 1] == '\0')
		mult = 1024;
	else if (n > 0 && (s[n] == 'M' || s[n] == 'm') && s[n + 1] == '\0')
		mult = 1024 * 1024;
	for (i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++) {
		if (settings_parse_size(s, ranges[i].min, ranges[i].max, &v) ==
		    -1)
			continue;
		FUZZ_CHECK(v >= ranges[i].min && v <= ranges[i].max);
		FUZZ_CHECK(n > 0 && !over && (s[n] == '\0' || mult != 1));
		FUZZ_CHECK(digits <= INT64_MAX / mult && v == digits * mult);
	}
}

/*
 * A URI's passwords hidden in place: the same length, only '*' where it
 * differs, and shown as the URI itself is (store_redact finds the same
 * passwords in both).  A short buffer gets a cut, terminated copy.
 */
static void
check_db(const char *s)
{
	char shown[8192], again[8192], cut[16], *hidden;
	size_t i, n = strlen(s);

	FUZZ_CHECK((hidden = strdup(s)) != NULL);
	store_hide_password(hidden);
	for (i = 0; i < n; i++)
		FUZZ_CHECK(hidden[i] == s[i] || hidden[i] == '*');
	FUZZ_CHECK(hidden[n] == '\0');
	store_redact(s, shown, sizeof(shown));
	store_redact(hidden, again, sizeof(again));
	FUZZ_CHECK(strcmp(shown, again) == 0);
	store_redact(s, cut, n % sizeof(cut) + 1);
	FUZZ_CHECK(strlen(cut) <= n % sizeof(cut) &&
	    strncmp(cut, shown, strlen(cut)) == 0);
	free(hidden);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;

	/* An exact-size copy, so that ASan sees any read past the NUL. */
	FUZZ_CHECK((s = malloc(size + 1)) != NULL);
	memcpy(s, data, size);
	s[size] = '\0';
	check_int(s);
	check_duration(s);
	check_size(s);
	check_db(s);
	free(s);
	return 0;
}
