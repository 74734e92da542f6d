/*
 * Retention's verdicts (cgi/retention.c): the newest and the kept never
 * go; the newest N and the young stay; with both rules a savepoint goes
 * once past the count and past the age; a disposal under way is left
 * alone, and a failed one waits out its backoff (a minute, doubling, at
 * most an hour).  Each row: the savepoint's place among its job's live
 * ones (0: newest), its policy and disposal so far, and the verdict.
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "retention.h"
#include "tap.h"

#define NOW 100000000LL
#define MIN 60000LL
#define HOUR (60 * MIN)

static const struct retain_case {
	int line;
	size_t index;
	int64_t age_ms; /* NOW - completed_ms */
	int64_t kept_ms;
	int64_t keep_last, keep_ms;
	const char *disposal; /* NULL, IN_PROGRESS, COMPLETED */
	int failed;
	int64_t attempts, failed_ago_ms;
	enum retention_verdict want;
	const char *why; /* RETAIN_GO */
} cases[] = {
	{ __LINE__, 0, 10 * HOUR, 0, 1, 0, NULL, 0, 0, 0, RETAIN_LATEST, "" },
	{ __LINE__, 0, 10 * HOUR, 1, 1, 0, NULL, 0, 0, 0, RETAIN_LATEST, "" },
	{ __LINE__, 5, 10 * HOUR, 1, 1, 0, NULL, 0, 0, 0, RETAIN_KEPT, "" },
	{ __LINE__, 2, 10 * HOUR, 0, 3, 0, NULL, 0, 0, 0, RETAIN_NEWEST, "" },
	{ __LINE__, 3, 10 * HOUR, 0, 3, 0, NULL, 0, 0, 0, RETAIN_GO,
	    "past the newest 3" },
	{ __LINE__, 3, 30 * MIN, 0, 0, HOUR, NULL, 0, 0, 0, RETAIN_YOUNG, "" },
	{ __LINE__, 3, 2 * HOUR, 0, 0, HOUR, NULL, 0, 0, 0, RETAIN_GO,
	    "older than 1h" },
	/* Both rules: kept by either. */
	{ __LINE__, 1, 2 * HOUR, 0, 2, HOUR, NULL, 0, 0, 0, RETAIN_NEWEST, "" },
	{ __LINE__, 4, 30 * MIN, 0, 2, HOUR, NULL, 0, 0, 0, RETAIN_YOUNG, "" },
	{ __LINE__, 4, 2 * HOUR, 0, 2, HOUR, NULL, 0, 0, 0, RETAIN_GO,
	    "past the newest 2 and older than 1h" },
	/* A disposal so far. */
	{ __LINE__, 4, 2 * HOUR, 0, 2, 0, "IN_PROGRESS", 0, 1, 0,
	    RETAIN_IN_FLIGHT, "" },
	{ __LINE__, 4, 2 * HOUR, 0, 2, 0, "COMPLETED", 1, 1, 30000,
	    RETAIN_BACKOFF, "" },
	{ __LINE__, 4, 2 * HOUR, 0, 2, 0, "COMPLETED", 1, 1, MIN, RETAIN_GO,
	    "past the newest 2" },
	{ __LINE__, 4, 2 * HOUR, 0, 2, 0, "COMPLETED", 1, 3, 3 * MIN,
	    RETAIN_BACKOFF, "" },
	{ __LINE__, 4, 2 * HOUR, 0, 2, 0, "COMPLETED", 1, 3, 4 * MIN, RETAIN_GO,
	    "past the newest 2" },
	{ __LINE__, 4, 2 * HOUR, 0, 2, 0, "COMPLETED", 1, 30, 59 * MIN,
	    RETAIN_BACKOFF, "" },
	{ __LINE__, 4, 2 * HOUR, 0, 2, 0, "COMPLETED", 1, 30, HOUR, RETAIN_GO,
	    "past the newest 2" },
};

int
main(void)
{
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct retain_case *c = &cases[i];
		struct retention_row r;
		struct retention_decision d;
		char what[160];

		memset(&r, 0, sizeof(r));
		r.completed_ms = NOW - c->age_ms;
		r.kept_ms = c->kept_ms;
		r.keep_last = c->keep_last;
		r.keep_ms = c->keep_ms;
		r.disposal_status = c->disposal;
		r.disposal_failed = c->failed;
		r.disposal_attempts = c->attempts;
		r.disposal_completed_ms = NOW - c->failed_ago_ms;
		retention_decide(&r, c->index, NOW, &d);
		retention_describe(&d, what, sizeof(what));
		if (!tap_ok_at(__FILE__, c->line,
			d.verdict == c->want &&
			    (c->want != RETAIN_GO ||
				strcmp(d.why, c->why) == 0),
			"verdict %d%s%s", (int)c->want, *c->why ? ": " : "",
			c->why))
			printf("#   got %d: %s\n", (int)d.verdict, what);
	}
	return tap_done();
}
