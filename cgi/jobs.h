/*
 * The read-only answers about jobs Flink's clients poll beside the
 * checkpoint statistics: the job lists, a job's checkpoint config, and,
 * beyond Flink, the list of its triggers (checkpoint-api(7)).
 */
#ifndef JOBS_H
#define JOBS_H

#include <stdint.h>

#define JOBS_TRIGGERS 100 /* GET /jobs/:jobid/triggers: the newest */
/*
 * Its ?limit= at most: CHECKPOINT_HISTORY_KEEP's default and
 * CHECKPOINT_HISTORY's bound, so that the answer stays the size the
 * statistics may already have.
 */
#define JOBS_TRIGGERS_MAX 1000

/* GET /jobs and /jobs/overview, paged: rows by default, at most. */
#define JOBS_PAGE 100
#define JOBS_PAGE_MAX 1000

struct buf;
struct exchange;

/* Listings' fields: a string or null, a time in ms or null for 0. */
int jobs_opt_string(struct buf *, const char *);
int jobs_opt_ms(struct buf *, int64_t);

void jobs_get(struct exchange *);
void jobs_get_config(struct exchange *);
void jobs_get_status(struct exchange *);
void jobs_get_triggers(struct exchange *);

#endif /* JOBS_H */
