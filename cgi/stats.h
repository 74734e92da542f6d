/*
 * The checkpoint statistics Flink's clients poll beside the trigger pair:
 * GET /jobs/:jobid/checkpoints and one checkpoint's details
 * (checkpoint-api(7)).
 */
#ifndef STATS_H
#define STATS_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

#define STATS_WINDOW 10000 /* Flink's quantile window (HISTOGRAM_WINDOW_SIZE) */

struct exchange;

void stats_get(struct exchange *);

/* Exposed for tests/unit-stats.c. */
double stats_quantile(const int64_t *sorted, size_t n, double q);
int stats_add_double(struct buf *, double);
int stats_parse_long(const char *, size_t, int64_t *);

#endif /* STATS_H */
