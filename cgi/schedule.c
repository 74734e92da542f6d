/*
 * Schedules' arithmetic: see schedule.h.  Cron reads as Vixie cron's
 * crontab(5) does, without names or @-words: "*", "a", "a-b", each with
 * an optional "/step", joined by commas; when both day fields are
 * restricted a day matching either is due, otherwise both must match.
 * Time is UTC, so a day is always 86,400 s and a slot never repeats.
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "schedule.h"

#define MINUTE_MS 60000LL
#define HOUR_MS (60 * MINUTE_MS)
#define DAY_MS (24 * HOUR_MS)
/* How far schedule_next looks: past any leap day. */
#define HORIZON_MS (5 * 366 * DAY_MS)

int
schedule_parse_every(const char *s, int64_t *ms, const char **why)
{
	char *end;
	long long n;
	int64_t unit = 1000;

	errno = 0;
	n = strtoll(s, &end, 10);
	/* Digits first: strtoll would pass over a sign and any space. */
	if (*s < '0' || *s > '9' || errno != 0) {
		*why = "not a number of seconds, or of s, m, h or d";
		return -1;
	}
	if (*end != '\0') {
		switch (*end) {
		case 's':
			break;
		case 'm':
			unit = MINUTE_MS;
			break;
		case 'h':
			unit = HOUR_MS;
			break;
		case 'd':
			unit = DAY_MS;
			break;
		default:
			*why = "the unit is not s, m, h or d";
			return -1;
		}
		if (end[1] != '\0') {
			*why = "something follows the unit";
			return -1;
		}
	}
	if (n > INT64_MAX / unit / 2) {
		*why = "too long";
		return -1;
	}
	if ((*ms = n * unit) < SCHEDULE_MIN_EVERY_MS) {
		*why = "shorter than a second";
		return -1;
	}
	return 0;
}

/* A number of the field, lo..hi; -1 if not. */
static int
cron_number(const char **p, int lo, int hi)
{
	long n = 0;
	const char *s = *p;

	if (*s < '0' || *s > '9')
		return -1;
	while (*s >= '0' && *s <= '9' && n <= hi)
		n = n * 10 + (*s++ - '0');
	if (n < lo || n > hi)
		return -1;
	*p = s;
	return (int)n;
}

/* One field, up to its end (a space or NUL), into bits lo..hi. */
static int
cron_field(const char **p, int lo, int hi, uint64_t *bits, int *star)
{
	const char *s = *p;
	int a, b, step, v, single;

	*bits = 0;
	*star = *s == '*';
	for (;;) {
		single = *s != '*';
		if (*s == '*') {
			a = lo;
			b = hi;
			s++;
		} else {
			if ((a = b = cron_number(&s, lo, hi)) == -1)
				return -1;
			if (*s == '-') {
				single = 0;
				s++;
				if ((b = cron_number(&s, lo, hi)) == -1 ||
				    b < a)
					return -1;
			}
		}
		step = 1;
		if (*s == '/') {
			s++;
			if ((step = cron_number(&s, 1, hi)) == -1)
				return -1;
			if (single)
				b = hi; /* "5/15": from 5 on */
		}
		for (v = a; v <= b; v += step)
			*bits |= 1ULL << v;
		if (*s != ',')
			break;
		s++;
	}
	if (*s != ' ' && *s != '\0')
		return -1;
	*p = s;
	return 0;
}

int
cron_parse(const char *s, struct cron *c, const char **why)
{
	static const struct {
		const char *name;
		int lo, hi;
	} fields[] = { { "minute", 0, 59 }, { "hour", 0, 23 },
		{ "day of month", 1, 31 }, { "month", 1, 12 },
		{ "day of week", 0, 7 } };
	static char msg[64];
	uint64_t bits[5];
	int star[5];
	size_t i;

	memset(c, 0, sizeof(*c));
	if (strlen(s) >= SCHEDULE_CRON_MAX) {
		*why = "longer than a cron expression can be";
		return -1;
	}
	for (i = 0; i < 5; i++) {
		while (*s == ' ')
			s++;
		if (*s == '\0') {
			*why = "not five fields (minute hour day-of-month "
			       "month day-of-week)";
			return -1;
		}
		if (cron_field(&s, fields[i].lo, fields[i].hi, &bits[i],
			&star[i]) == -1) {
			snprintf(msg, sizeof(msg), "the %s field is not valid",
			    fields[i].name);
			*why = msg;
			return -1;
		}
	}
	while (*s == ' ')
		s++;
	if (*s != '\0') {
		*why = "more than five fields";
		return -1;
	}
	if (bits[4] & (1ULL << 7))
		bits[4] = (bits[4] | 1) & ~(1ULL << 7);
	c->minute = bits[0];
	c->hour = (uint32_t)bits[1];
	c->dom = (uint32_t)(bits[2] >> 1);
	c->month = (uint16_t)(bits[3] >> 1);
	c->dow = (uint8_t)bits[4];
	c->dom_star = star[2];
	c->dow_star = star[4];
	return 0;
}

/* Whether the day of t (its tm) is one of the expression's. */
static int
cron_day(const struct cron *c, const struct tm *tm)
{
	int dom = (c->dom >> (tm->tm_mday - 1)) & 1;
	int dow = (c->dow >> tm->tm_wday) & 1;

	if (!((c->month >> tm->tm_mon) & 1))
		return 0;
	if (c->dom_star || c->dow_star)
		return dom && dow;
	return dom || dow;
}

static void
utc(int64_t ms, struct tm *tm)
{
	time_t t = (time_t)(ms / 1000);

	gmtime_r(&t, tm);
}

static int64_t
floor_to(int64_t ms, int64_t unit)
{
	return ms - ms % unit;
}

/* The latest matching minute in (after, now]; 0 if none. */
static int64_t
cron_due(const struct cron *c, int64_t after, int64_t now)
{
	struct tm tm;
	int64_t t = floor_to(now, MINUTE_MS);

	while (t > after && t > 0) {
		utc(t, &tm);
		if (!cron_day(c, &tm))
			t = floor_to(t, DAY_MS) - MINUTE_MS;
		else if (!((c->hour >> tm.tm_hour) & 1))
			t = floor_to(t, HOUR_MS) - MINUTE_MS;
		else if (!((c->minute >> tm.tm_min) & 1))
			t -= MINUTE_MS;
		else
			return t;
	}
	return 0;
}

/* The first matching minute after now, within the horizon; 0 if none. */
static int64_t
cron_next(const struct cron *c, int64_t now)
{
	struct tm tm;
	int64_t t = floor_to(now, MINUTE_MS) + MINUTE_MS;

	while (t <= now + HORIZON_MS) {
		utc(t, &tm);
		if (!cron_day(c, &tm))
			t = floor_to(t, DAY_MS) + DAY_MS;
		else if (!((c->hour >> tm.tm_hour) & 1))
			t = floor_to(t, HOUR_MS) + HOUR_MS;
		else if (!((c->minute >> tm.tm_min) & 1))
			t += MINUTE_MS;
		else
			return t;
	}
	return 0;
}

int64_t
schedule_due(const struct schedule_rule *r, int64_t after_ms, int64_t now_ms)
{
	struct cron c;
	const char *why;
	int64_t k, slot;

	if (r->cron != NULL) {
		if (cron_parse(r->cron, &c, &why) == -1)
			return 0;
		/* Never before the rule was set. */
		return cron_due(&c,
		    after_ms > r->since_ms ? after_ms : r->since_ms, now_ms);
	}
	if (r->every_ms < SCHEDULE_MIN_EVERY_MS || now_ms <= r->since_ms)
		return 0;
	k = (now_ms - r->since_ms) / r->every_ms;
	slot = r->since_ms + k * r->every_ms;
	return k >= 1 && slot > after_ms ? slot : 0;
}

int64_t
schedule_next(const struct schedule_rule *r, int64_t now_ms)
{
	struct cron c;
	const char *why;
	int64_t from = now_ms > r->since_ms ? now_ms : r->since_ms;

	if (r->cron != NULL) {
		if (cron_parse(r->cron, &c, &why) == -1)
			return 0;
		return cron_next(&c, from);
	}
	if (r->every_ms < SCHEDULE_MIN_EVERY_MS)
		return 0;
	return r->since_ms +
	    ((from - r->since_ms) / r->every_ms + 1) * r->every_ms;
}

int64_t
schedule_missed(const struct schedule_rule *r, int64_t after_ms,
    int64_t slot_ms)
{
	int64_t n = 0, t;

	if (after_ms < r->since_ms)
		after_ms = r->since_ms;
	if (slot_ms <= after_ms)
		return 0;
	if (r->cron == NULL) {
		if (r->every_ms < SCHEDULE_MIN_EVERY_MS)
			return 0;
		n = (slot_ms - r->since_ms) / r->every_ms -
		    (after_ms - r->since_ms) / r->every_ms - 1;
		return n > 0 ? n : 0;
	}
	for (t = schedule_next(r, after_ms);
	     t > 0 && t < slot_ms && n < SCHEDULE_MISSED_MAX;
	     t = schedule_next(r, t))
		n++;
	return n;
}

int
schedule_duration(int64_t ms, char *buf, size_t len)
{
	static const struct {
		int64_t ms;
		char unit;
	} units[] = { { DAY_MS, 'd' }, { HOUR_MS, 'h' }, { MINUTE_MS, 'm' },
		{ 1000, 's' } };
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (ms > 0 && ms % units[i].ms == 0)
			return snprintf(buf, len, "%lld%c",
			    (long long)(ms / units[i].ms), units[i].unit);
	return snprintf(buf, len, "%lldms", (long long)ms);
}

int
schedule_describe(const struct schedule_rule *r, char *buf, size_t len)
{
	char d[32];

	if (r->cron != NULL)
		return snprintf(buf, len, "cron %s", r->cron);
	schedule_duration(r->every_ms, d, sizeof(d));
	return snprintf(buf, len, "every %s", d);
}

int64_t
schedule_now(void)
{
	const char *path = getenv("CHECKPOINT_TEST_CLOCK");
	char line[32];
	FILE *f;
	long long ms = 0;

	if (path == NULL || *path == '\0')
		return clock_ms(CLOCK_REALTIME);
	if ((f = fopen(path, "r")) != NULL) {
		if (fgets(line, sizeof(line), f) != NULL)
			ms = strtoll(line, NULL, 10);
		fclose(f);
	}
	return ms > 0 ? ms : 0;
}
