/*
 * Schedules' arithmetic (cgi/schedule.c): intervals and their units, cron
 * expressions as crontab(5) reads them (in UTC), the latest slot due after
 * a runner was away (one, never a burst), the next slot, and the rule in
 * words.  Times are seconds since the epoch, written beside their date.
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "schedule.h"
#include "tap.h"

#define S(x) ((int64_t)(x)*1000)
#define JAN01 1767225600 /* 2026-01-01 00:00 UTC, a Thursday */
#define JAN01_0259 1767236340
#define JAN01_0330 1767238200
#define JAN01_0400 1767240000
#define JAN02 1767312000 /* a Friday */
#define JAN03_0300 1767409200
#define JAN03_0500 1767416400
#define JAN04_0300 1767495600
#define JAN09 1767916800 /* a Friday */
#define JAN13 1768262400 /* a Tuesday */
#define FEB29_2028 1835395200

static const struct every_case {
	int line;
	const char *in;
	int64_t ms; /* -1: refused */
} everies[] = {
	{ __LINE__, "90", 90000 },
	{ __LINE__, "1s", 1000 },
	{ __LINE__, "10m", 600000 },
	{ __LINE__, "2h", 7200000 },
	{ __LINE__, "1d", 86400000 },
	{ __LINE__, "0", -1 },
	{ __LINE__, "0s", -1 },
	{ __LINE__, "-5", -1 },
	{ __LINE__, "+5", -1 },
	{ __LINE__, " 5", -1 },
	{ __LINE__, "\t5", -1 },
	{ __LINE__, "\n5m", -1 },
	{ __LINE__, "500ms", -1 },
	{ __LINE__, "5x", -1 },
	{ __LINE__, "", -1 },
	{ __LINE__, "m", -1 },
	{ __LINE__, "99999999999999999999", -1 },
	{ __LINE__, "9999999999999d", -1 },
};

static const struct cron_case {
	int line;
	const char *in;
	int ok;
} crons[] = {
	{ __LINE__, "* * * * *", 1 },
	{ __LINE__, "0 3 * * *", 1 },
	{ __LINE__, "*/15 * * * 1-5", 1 },
	{ __LINE__, "0,30 8-18/2 1,15 1-12 0,7", 1 },
	{ __LINE__, "  0   3 * *   *  ", 1 },
	{ __LINE__, "5/20 * * * *", 1 },
	{ __LINE__, "60 * * * *", 0 },
	{ __LINE__, "* 24 * * *", 0 },
	{ __LINE__, "* * 0 * *", 0 },
	{ __LINE__, "* * 32 * *", 0 },
	{ __LINE__, "* * * 13 *", 0 },
	{ __LINE__, "* * * * 8", 0 },
	{ __LINE__, "* * * *", 0 },
	{ __LINE__, "* * * * * *", 0 },
	{ __LINE__, "", 0 },
	{ __LINE__, "a * * * *", 0 },
	{ __LINE__, "5-1 * * * *", 0 },
	{ __LINE__, "*/0 * * * *", 0 },
	{ __LINE__, "1,,2 * * * *", 0 },
	{ __LINE__, "1- * * * *", 0 },
	{ __LINE__, "* * * * MON", 0 },
	{ __LINE__, "@daily", 0 },
};

static const struct due_case {
	int line;
	int64_t every_ms;
	const char *cron;
	int64_t since, after, now; /* seconds */
	int64_t due, next; /* seconds; 0: none */
} dues[] = {
	/* Every 10 s from JAN01: slots at +10, +20, ... */
	{ __LINE__, 10000, NULL, JAN01, JAN01, JAN01 + 9, 0, JAN01 + 10 },
	{ __LINE__, 10000, NULL, JAN01, JAN01, JAN01 + 10, JAN01 + 10,
	    JAN01 + 20 },
	/* Away over three slots: the latest, once. */
	{ __LINE__, 10000, NULL, JAN01, JAN01 + 10, JAN01 + 35, JAN01 + 30,
	    JAN01 + 40 },
	{ __LINE__, 10000, NULL, JAN01, JAN01 + 30, JAN01 + 39, 0, JAN01 + 40 },
	/* The clock behind the rule: nothing due, the first slot next. */
	{ __LINE__, 10000, NULL, JAN01, JAN01, JAN01 - 5, 0, JAN01 + 10 },
	/* 03:00 daily. */
	{ __LINE__, 0, "0 3 * * *", JAN01, JAN01, JAN01_0259, 0,
	    JAN01_0259 + 60 },
	{ __LINE__, 0, "0 3 * * *", JAN01, JAN01, JAN03_0500, JAN03_0300,
	    JAN03_0500 + 22 * 3600 },
	{ __LINE__, 0, "0 3 * * *", JAN01, JAN03_0300, JAN03_0300, 0,
	    JAN04_0300 },
	/* Set after that day's 03:00: not due until the next. */
	{ __LINE__, 0, "0 3 * * *", JAN01_0330, 0, JAN01_0400, 0,
	    JAN02 + 3 * 3600 },
	/* Both day fields restricted: the 13th or a Friday. */
	{ __LINE__, 0, "0 0 13 * 5", JAN01, JAN01, JAN01, 0, JAN02 },
	{ __LINE__, 0, "0 0 13 * 5", JAN01, JAN01, JAN09, JAN09, JAN13 },
	/* One restricted: the 13th only. */
	{ __LINE__, 0, "0 0 13 * *", JAN01, JAN01, JAN09, 0, JAN13 },
	/* A leap day, two years on; 7 is Sunday too. */
	{ __LINE__, 0, "0 0 29 2 *", JAN01, JAN01, JAN09, 0, FEB29_2028 },
	{ __LINE__, 0, "0 0 * * 7", JAN01, JAN01, JAN09, JAN01 + 3 * 86400,
	    JAN01 + 10 * 86400 },
	/* Never: February 31st. */
	{ __LINE__, 0, "0 0 31 2 *", JAN01, JAN01, JAN13, 0, 0 },
	/* A rule that does not parse is never due. */
	{ __LINE__, 0, "61 * * * *", JAN01, JAN01, JAN13, 0, 0 },
};

/* Slots missed: those between the last fired and the one firing. */
static const struct missed_case {
	int line;
	int64_t every_ms;
	const char *cron;
	int64_t since, after, slot; /* seconds */
	int64_t missed;
} misseds[] = {
	{ __LINE__, 10000, NULL, JAN01, JAN01, JAN01 + 10, 0 },
	{ __LINE__, 10000, NULL, JAN01, JAN01 + 10, JAN01 + 20, 0 },
	/* Away over three slots: 20 and 30 missed, 40 fires. */
	{ __LINE__, 10000, NULL, JAN01, JAN01 + 10, JAN01 + 40, 2 },
	/* A new rule's slots before the first it fires: missed too. */
	{ __LINE__, 10000, NULL, JAN01, JAN01, JAN01 + 30, 2 },
	{ __LINE__, 10000, NULL, JAN01, JAN01 + 30, JAN01 + 30, 0 },
	/* 03:00 daily, two days away. */
	{ __LINE__, 0, "0 3 * * *", JAN01, JAN01_0330, JAN03_0300, 1 },
	{ __LINE__, 0, "0 3 * * *", JAN01, JAN01, JAN03_0300, 2 },
	/* Every minute, an hour away. */
	{ __LINE__, 0, "* * * * *", JAN01, JAN01, JAN01 + 3600, 59 },
	{ __LINE__, 0, "61 * * * *", JAN01, JAN01, JAN13, 0 },
};

static const struct describe_case {
	int line;
	int64_t every_ms;
	const char *cron;
	const char *want;
} describes[] = {
	{ __LINE__, 1000, NULL, "every 1s" },
	{ __LINE__, 90000, NULL, "every 90s" },
	{ __LINE__, 600000, NULL, "every 10m" },
	{ __LINE__, 7200000, NULL, "every 2h" },
	{ __LINE__, 86400000, NULL, "every 1d" },
	{ __LINE__, 1500, NULL, "every 1500ms" },
	{ __LINE__, 0, "0 3 * * *", "cron 0 3 * * *" },
};

int
main(void)
{
	size_t i;

	for (i = 0; i < sizeof(everies) / sizeof(everies[0]); i++) {
		const struct every_case *c = &everies[i];
		const char *why = NULL;
		int64_t ms = -1;
		int rc = schedule_parse_every(c->in, &ms, &why);

		tap_ok_at(__FILE__, c->line,
		    c->ms == -1 ? rc == -1 && why != NULL :
				  rc == 0 && ms == c->ms,
		    "every \"%s\": %lld", c->in, (long long)c->ms);
	}
	for (i = 0; i < sizeof(crons) / sizeof(crons[0]); i++) {
		const struct cron_case *c = &crons[i];
		struct cron cr;
		const char *why = NULL;
		int rc = cron_parse(c->in, &cr, &why);

		tap_ok_at(__FILE__, c->line,
		    c->ok ? rc == 0 : rc == -1 && why != NULL, "cron \"%s\" %s",
		    c->in, c->ok ? "read" : "refused");
	}
	for (i = 0; i < sizeof(dues) / sizeof(dues[0]); i++) {
		const struct due_case *c = &dues[i];
		struct schedule_rule r = { c->every_ms, c->cron, S(c->since) };
		int64_t due = schedule_due(&r, S(c->after), S(c->now));
		int64_t next = schedule_next(&r, S(c->now));

		if (!tap_ok_at(__FILE__, c->line,
			due == S(c->due) && next == S(c->next),
			"%s: due %lld, next %lld",
			c->cron != NULL ? c->cron : "interval",
			(long long)c->due, (long long)c->next))
			printf("#   got due %lld, next %lld\n",
			    (long long)(due / 1000), (long long)(next / 1000));
	}
	for (i = 0; i < sizeof(misseds) / sizeof(misseds[0]); i++) {
		const struct missed_case *c = &misseds[i];
		struct schedule_rule r = { c->every_ms, c->cron, S(c->since) };
		int64_t n = schedule_missed(&r, S(c->after), S(c->slot));

		if (!tap_ok_at(__FILE__, c->line, n == c->missed,
			"%s: %lld missed",
			c->cron != NULL ? c->cron : "interval",
			(long long)c->missed))
			printf("#   got %lld\n", (long long)n);
	}
	for (i = 0; i < sizeof(describes) / sizeof(describes[0]); i++) {
		const struct describe_case *c = &describes[i];
		struct schedule_rule r = { c->every_ms, c->cron, 0 };
		char buf[160];

		schedule_describe(&r, buf, sizeof(buf));
		tap_ok_at(__FILE__, c->line, strcmp(buf, c->want) == 0,
		    "described: %s", c->want);
	}
	return tap_done();
}
