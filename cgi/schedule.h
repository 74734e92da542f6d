/*
 * Schedules: when a job's checkpoints or savepoints are due (checkpointctl
 * job set --every, --cron; checkpoint-runner(8), "SCHEDULES").  A rule is
 * an interval of at least a second, its slots at since + k * every for
 * k >= 1, or a cron expression of five fields read in UTC, its slots the
 * starts of the minutes it matches.  Pure functions of their arguments,
 * so that the runner, checkpointctl and the unit test agree.
 */
#ifndef SCHEDULE_H
#define SCHEDULE_H

#include <stddef.h>
#include <stdint.h>

#define SCHEDULE_MIN_EVERY_MS 1000
#define SCHEDULE_CRON_MAX 128 /* bytes of an expression, NUL included */

/* A parsed cron expression: one bit per allowed value of each field. */
struct cron {
	uint64_t minute; /* 0-59 */
	uint32_t hour; /* 0-23 */
	uint32_t dom; /* 1-31 */
	uint16_t month; /* 1-12 */
	uint8_t dow; /* 0-6, Sunday 0 (7 is read as 0) */
	int dom_star, dow_star; /* the field began with '*' */
};

/* The rule of one schedule, as the store keeps it. */
struct schedule_rule {
	int64_t every_ms; /* 0: a cron rule */
	const char *cron; /* NULL: an interval */
	int64_t since_ms; /* when it was set: intervals count from here */
};

/*
 * "90", "90s", "10m", "2h", "1d" into ms, at least a second.  Returns -1
 * with *why set for anything else.
 */
int schedule_parse_every(const char *s, int64_t *ms, const char **why);
/* Five fields (minute hour day-of-month month day-of-week). */
int cron_parse(const char *s, struct cron *c, const char **why);
/*
 * The latest slot in (after_ms, now_ms], or 0 when there is none.  A rule
 * that does not parse has none.
 */
int64_t schedule_due(const struct schedule_rule *, int64_t after_ms,
    int64_t now_ms);
/* The first slot after now_ms; 0 when none comes within five years. */
int64_t schedule_next(const struct schedule_rule *, int64_t now_ms);
/*
 * The slots missed when slot_ms fires after after_ms (the slot last
 * fired or skipped): those strictly between, each of which was not fired
 * before the next was due.  A cron rule's are counted one by one, up to
 * SCHEDULE_MISSED_MAX.
 */
#define SCHEDULE_MISSED_MAX 100000
int64_t schedule_missed(const struct schedule_rule *, int64_t after_ms,
    int64_t slot_ms);
/* A duration as --every takes it: "10m", "90s" (or "1500ms"). */
int schedule_duration(int64_t ms, char *buf, size_t len);
/* The rule in a few words: "every 10m", "cron 0 3 * * *". */
int schedule_describe(const struct schedule_rule *, char *buf, size_t len);
/*
 * Now, in ms since the epoch: the real clock, or, for the tests only, the
 * number in the file CHECKPOINT_TEST_CLOCK names, so that a test moves the
 * schedules' time by hand (checkpoint-runner(8)); 0 when that file
 * cannot be read, and then no schedule is looked at.
 */
int64_t schedule_now(void);

#endif /* SCHEDULE_H */
