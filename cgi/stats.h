/*
 * The read-only answers Flink's clients poll besides the trigger pair:
 * checkpoint statistics, one checkpoint's details, the checkpoint config,
 * and the job lists (checkpoint-api(7)).  Handlers over the store, like
 * those of api.c, which dispatches to stats_handle.
 */
#ifndef STATS_H
#define STATS_H

#include <stddef.h>
#include <stdint.h>

#include "api.h"
#include "buf.h"
#include "route.h"

#define STATS_TRIGGERS 100 /* GET /jobs/:jobid/triggers: the newest */
#define STATS_WINDOW 10000 /* Flink's quantile window (HISTOGRAM_WINDOW_SIZE) */

void stats_handle(struct api *, const struct route *, struct response *,
    int64_t now_ms);

/* Exposed for tests/unit-stats.c. */
double stats_quantile(const int64_t *sorted, size_t n, double q);
int stats_add_double(struct buf *, double);
int stats_parse_long(const char *, size_t, int64_t *);

#endif /* STATS_H */
