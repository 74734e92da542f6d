/*
 * libFuzzer harness for schedules' arithmetic (cgi/schedule.c).  The
 * input's first line is a rule, --every's or --cron's; the lines after
 * it, numbers, place when it was set, now, and the last slot fired, in
 * the same few years.  Whatever rule the parsers take, the slot that
 * schedule_next names is due at its time and nothing is due before it,
 * and every slot schedule_due names lies in its window and is the next
 * one after the moment before it.
 */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "schedule.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define MINUTE_MS 60000LL
#define DAY_MS (1440 * MINUTE_MS)
/* 1 December 2025, 00:00 UTC: the times' origin. */
#define BASE_MS 1764547200000LL

/* The next line's number of *s (0 when none), taken modulo mod. */
static int64_t
next_number(const char **s, int64_t mod)
{
	uint64_t n = 0;
	const char *p = *s;

	if (*p == '\n')
		p++;
	while (*p >= '0' && *p <= '9')
		n = n * 10 + (uint64_t)(*p++ - '0');
	while (*p != '\0' && *p != '\n')
		p++;
	*s = p;
	return (int64_t)(n % (uint64_t)mod);
}

static void
check_rule(const struct schedule_rule *r, int64_t after, int64_t now)
{
	int64_t from = now > r->since_ms ? now : r->since_ms;
	int64_t next = schedule_next(r, now), due;
	char text[16];

	/* The next slot, due at its time and not a minute before. */
	if (r->cron == NULL)
		FUZZ_CHECK(
		    next > from && (next - r->since_ms) % r->every_ms == 0);
	else
		FUZZ_CHECK(next == 0 ||
		    (next > from && next % MINUTE_MS == 0 &&
			next <= from + 5 * 366 * DAY_MS));
	if (next != 0) {
		FUZZ_CHECK(schedule_due(r, now, next) == next);
		FUZZ_CHECK(schedule_due(r, now, next - 1) == 0);
	}
	/* A slot due in (after, now], and the next one after just before. */
	due = schedule_due(r, after, now);
	if (due != 0) {
		FUZZ_CHECK(due > after && due > r->since_ms && due <= now);
		FUZZ_CHECK(schedule_next(r, due - 1) == due);
	}
	/* Described in a short buffer: cut, terminated. */
	schedule_describe(r, text, sizeof(text));
	FUZZ_CHECK(strlen(text) < sizeof(text));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct schedule_rule r;
	struct cron c;
	const char *why, *p;
	char *s, *nl;
	int64_t ms, now, after;

	FUZZ_CHECK((s = malloc(size + 1)) != NULL);
	memcpy(s, data, size);
	s[size] = '\0';
	p = "";
	if ((nl = strchr(s, '\n')) != NULL) {
		*nl = '\0';
		p = nl + 1;
	}
	memset(&r, 0, sizeof(r));
	r.since_ms = BASE_MS + next_number(&p, 400 * DAY_MS);
	now = BASE_MS + next_number(&p, 800 * DAY_MS);
	after = now - next_number(&p, 400 * DAY_MS);
	if (schedule_parse_every(s, &ms, &why) == 0) {
		FUZZ_CHECK(ms >= SCHEDULE_MIN_EVERY_MS);
		r.every_ms = ms;
		check_rule(&r, after, now);
	} else if (cron_parse(s, &c, &why) == 0) {
		r.cron = s;
		check_rule(&r, after, now);
	}
	free(s);
	return 0;
}
