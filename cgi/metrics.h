/*
 * GET /metrics: the Prometheus text exposition format, version 0.0.4.
 * The checkpoint statistics of each registered job under the names and
 * labels Flink's PrometheusReporter gives them, so that a dashboard or an
 * alert made for Flink reads them unchanged; then the service's own
 * figures (checkpoint-api.fcgi(8), "METRICS").  Everything comes from the
 * store, so every process behind every server answers the same.
 */
#ifndef METRICS_H
#define METRICS_H

#include <stdint.h>

#include "buf.h"
#include "store.h"

#define METRICS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

struct exchange;

void metrics_get(struct exchange *);
int metrics_label_value(struct buf *, const char *, int filter);
/* per_job: each job's series too (?per-job=1), else the fleet's alone. */
enum store_rc metrics_write(struct store *, int filter, int per_job,
    int64_t now_ms, struct buf *out);

#endif /* METRICS_H */
