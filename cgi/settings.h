/*
 * Settings shared by the three programs, read from the environment once at
 * start-up (never per request: libfcgi replaces environ on each accept).
 * Every parser here is strict: the whole string must be understood.
 */
#ifndef SETTINGS_H
#define SETTINGS_H

#include <stddef.h>
#include <stdint.h>

#include "store.h"

#ifndef DEFAULT_DB
#define DEFAULT_DB "/var/lib/checkpoint-api/checkpoints.db"
#endif

#define DEFAULT_STORE_MS (300 * 1000) /* Flink's rest.async.store-duration */
#define DEFAULT_MAX_BODY (64 * 1024)
#define DEFAULT_BUSY_MS 2000 /* lock wait before 503 */
#define DEFAULT_HISTORY 10 /* Flink's web.checkpoints.history */
#define MAX_HISTORY 1000
/* The checkpoint history's own retention, per job: newest ids, and age. */
#define DEFAULT_HISTORY_KEEP 1000
#define MAX_HISTORY_KEEP 100000000
#define DEFAULT_HISTORY_AGE_MS ((int64_t)30 * 24 * 3600 * 1000)
/* Flink's limit of queued checkpoint requests (CheckpointRequestDecider). */
#define DEFAULT_MAX_QUEUED 1000
#define MAX_MAX_QUEUED 1000000

struct settings {
	const char *db_path; /* CHECKPOINT_DB */
	char db_shown[512]; /* the same, as logs show it: no password */
	int64_t store_ms; /* CHECKPOINT_STORE_DURATION; 0: forever */
	size_t max_body; /* CHECKPOINT_MAX_BODY, bytes */
	const char *cors_origin; /* CHECKPOINT_CORS_ORIGIN; NULL: no header */
	const char *origins; /* CHECKPOINT_ORIGINS; NULL: addresses' own */
	int reject_unknown_jobs; /* CHECKPOINT_REJECT_UNKNOWN_JOBS=1 */
	int sync_normal; /* CHECKPOINT_SYNC=NORMAL */
	int64_t busy_ms; /* CHECKPOINT_BUSY_TIMEOUT */
	int sched_normal; /* CHECKPOINT_SCHED_BATCH=0 */
	int64_t history; /* CHECKPOINT_HISTORY: checkpoints in the history */
	int64_t max_queued; /* CHECKPOINT_MAX_QUEUED: waiting triggers a job */
	int metrics; /* CHECKPOINT_METRICS: GET /metrics answers */
	int metrics_filter; /* CHECKPOINT_METRICS_FILTER: as Flink's default */
	int64_t history_keep; /* CHECKPOINT_HISTORY_KEEP; 0: no count bound */
	int64_t history_age_ms; /* CHECKPOINT_HISTORY_AGE; 0: no age bound */
	/* CHECKPOINT_SAVEPOINT_ROOT: of a job with no savepoint directory. */
	const char *savepoint_root; /* NULL: none */
	/* CHECKPOINT_COMMANDS: the operator's commands file (commands.h). */
	const char *commands; /* NULL: the database alone says what runs */
};

int settings_from_env(struct settings *, const char *db_override, char *err,
    size_t errlen);
int settings_parse_duration(const char *s, int64_t *ms);
int settings_parse_size(const char *s, int64_t min, int64_t max, int64_t *out);
int settings_parse_int(const char *s, int64_t min, int64_t max, int64_t *out);

void settings_store_opts(const struct settings *, int64_t cache_kib,
    struct store_opts *);
enum store_rc settings_open_store(const struct settings *, int64_t cache_kib,
    struct store **);

#endif /* SETTINGS_H */
