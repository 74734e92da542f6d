/*
 * Reading settings from the environment.  See settings.h and the ENVIRONMENT
 * sections of the man pages, which list the same variables.
 */
#include <config.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "settings.h"
#include "sppath.h"
#include "origin.h"

/*
 * strtonum(3) in spirit: a decimal integer in [min, max] and nothing else.
 * No sign, no blanks, no empty string (strtoll would take all three).
 */
int
settings_parse_int(const char *s, int64_t min, int64_t max, int64_t *out)
{
	long long v;
	char *end;

	if (s == NULL || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/*
 * A duration as Flink's rest.async.store-duration takes it: a plain number
 * is seconds; the suffixes ms, s, min and h are accepted.  Result in
 * milliseconds, at most about ten years.
 */
int
settings_parse_duration(const char *s, int64_t *ms)
{
	static const struct {
		const char *suffix;
		int64_t ms;
	} units[] = {
		{ "ms", 1 },
		{ "s", 1000 },
		{ "min", 60 * 1000 },
		{ "h", 3600 * 1000 },
		{ "", 1000 },
	};
	const int64_t limit = 10LL * 366 * 24 * 3600 * 1000;
	char num[32];
	size_t i, digits, slen;
	int64_t v;

	if (s == NULL)
		return -1;
	for (digits = 0; s[digits] >= '0' && s[digits] <= '9'; digits++)
		;
	if (digits == 0 || digits >= sizeof(num))
		return -1;
	memcpy(num, s, digits);
	num[digits] = '\0';
	slen = strlen(s + digits);
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strlen(units[i].suffix) != slen ||
		    strcmp(s + digits, units[i].suffix) != 0)
			continue;
		if (settings_parse_int(num, 0, limit / units[i].ms, &v) == -1)
			return -1;
		*ms = v * units[i].ms;
		return 0;
	}
	return -1;
}

/* A byte count with an optional K or M suffix (binary multiples). */
int
settings_parse_size(const char *s, int64_t min, int64_t max, int64_t *out)
{
	char num[32];
	size_t len;
	int64_t mult = 1, v;

	if (s == NULL || (len = strlen(s)) == 0 || len >= sizeof(num))
		return -1;
	memcpy(num, s, len + 1);
	if (num[len - 1] == 'K' || num[len - 1] == 'k')
		mult = 1024;
	else if (num[len - 1] == 'M' || num[len - 1] == 'm')
		mult = 1024 * 1024;
	if (mult != 1)
		num[len - 1] = '\0';
	if (settings_parse_int(num, 0, INT64_MAX / mult, &v) == -1)
		return -1;
	v *= mult;
	if (v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* The store's options from the settings; cache_kib 0: SQLite's default. */
void
settings_store_opts(const struct settings *st, int64_t cache_kib,
    struct store_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->path = st->db_path;
	o->sync_normal = st->sync_normal;
	o->busy_ms = st->busy_ms;
	o->cache_kib = cache_kib;
}

/*
 * Opens a connection with the settings' options; on failure *s is NULL
 * and the log says why (the path and the error).
 */
enum store_rc
settings_open_store(const struct settings *st, int64_t cache_kib,
    struct store **s)
{
	struct store_opts o;
	enum store_rc rc;
	char err[512];

	settings_store_opts(st, cache_kib, &o);
	if ((rc = store_open(&o, s, err, sizeof(err))) != STORE_OK) {
		log_error("open store: %s", err);
		*s = NULL;
	}
	return rc;
}

static int
settings_fail(char *err, size_t errlen, const char *name, const char *v,
    const char *want)
{
	snprintf(err, errlen, "%s=\"%.64s\": expected %s", name, v, want);
	return -1;
}

/* A setting of 0 or 1: sets *on if name is either; unset or empty, not. */
static int
settings_flag(const char *name, int *on, char *err, size_t errlen)
{
	const char *v;

	if ((v = getenv(name)) == NULL || *v == '\0')
		return 0;
	if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0)
		return settings_fail(err, errlen, name, v, "0 or 1");
	*on = v[0] == '1';
	return 0;
}

/*
 * The database: --db's, else CHECKPOINT_DB, else the default.  One that
 * can name none stops the program: a retryable 503 would never come
 * right.
 */
static int
settings_db(struct settings *st, const char *db_override, char *err,
    size_t errlen)
{
	const char *v;
	char why[128];

	if (db_override != NULL)
		st->db_path = db_override;
	else if ((v = getenv("CHECKPOINT_DB")) != NULL && *v != '\0')
		st->db_path = v;
	store_redact(st->db_path, st->db_shown, sizeof(st->db_shown));
	if (store_check_db(st->db_path, why, sizeof(why)) == -1) {
		snprintf(err, errlen, "%s=\"%.256s\": %s",
		    db_override != NULL ? "--db" : "CHECKPOINT_DB",
		    st->db_shown, why);
		return -1;
	}
	return 0;
}

/*
 * CHECKPOINT_ORIGINS: the service's own origins, space-separated, each
 * scheme://host[:port]; unset or blank, NULL (ui.h says what then).
 */
static int
settings_origins(struct settings *st, char *err, size_t errlen)
{
	const char *v, *p;
	size_t n;

	if ((v = getenv("CHECKPOINT_ORIGINS")) == NULL ||
	    v[strspn(v, " ")] == '\0')
		return 0;
	for (p = v; *(p += strspn(p, " ")) != '\0'; p += n)
		if (!origin_valid(p, n = strcspn(p, " ")))
			return settings_fail(err, errlen, "CHECKPOINT_ORIGINS",
			    v,
			    "origins such as https://flink.example:8443, "
			    "space-separated");
	st->origins = v;
	return 0;
}

/* How long the checkpoint history is kept, apart from the results. */
static int
settings_history_retention(struct settings *st, char *err, size_t errlen)
{
	const char *v;

	if ((v = getenv("CHECKPOINT_HISTORY_KEEP")) != NULL &&
	    settings_parse_int(v, 0, MAX_HISTORY_KEEP, &st->history_keep) == -1)
		return settings_fail(err, errlen, "CHECKPOINT_HISTORY_KEEP", v,
		    "a number of checkpoints per job, e.g. 1000, or 0");
	if ((v = getenv("CHECKPOINT_HISTORY_AGE")) != NULL &&
	    settings_parse_duration(v, &st->history_age_ms) == -1)
		return settings_fail(err, errlen, "CHECKPOINT_HISTORY_AGE", v,
		    "a duration such as 720h, 90min, 3600 or 0");
	return 0;
}

/*
 * Where a request may put the savepoints of a job that has no directory
 * of its own (sppath.h): a directory in its normal form, or unset.
 */
static int
settings_savepoint_root(struct settings *st, char *err, size_t errlen)
{
	const char *v = getenv("CHECKPOINT_SAVEPOINT_ROOT");

	if (v == NULL || *v == '\0')
		return 0;
	if (sppath_dir_refused(v, v) != NULL)
		return settings_fail(err, errlen, "CHECKPOINT_SAVEPOINT_ROOT",
		    v,
		    "an absolute, normal directory such as file:/srv/savepoints "
		    "or s3://bucket/savepoints");
	st->savepoint_root = v;
	return 0;
}

/* The commands file: an absolute path, checked when it is read. */
static int
settings_commands(struct settings *st, char *err, size_t errlen)
{
	const char *v = getenv("CHECKPOINT_COMMANDS");

	if (v == NULL || *v == '\0')
		return 0;
	if (*v != '/')
		return settings_fail(err, errlen, "CHECKPOINT_COMMANDS", v,
		    "an absolute path, e.g. /etc/checkpoint-api/commands");
	st->commands = v;
	return 0;
}

/* What every setting is when the environment leaves it unset. */
static void
settings_defaults(struct settings *st)
{
	memset(st, 0, sizeof(*st));
	st->db_path = DEFAULT_DB;
	st->store_ms = DEFAULT_STORE_MS;
	st->max_body = DEFAULT_MAX_BODY;
	st->cors_origin = "*";
	st->busy_ms = DEFAULT_BUSY_MS;
	st->history = DEFAULT_HISTORY;
	st->max_queued = DEFAULT_MAX_QUEUED;
	st->metrics = 1;
	st->metrics_filter = 1;
	st->history_keep = DEFAULT_HISTORY_KEEP;
	st->history_age_ms = DEFAULT_HISTORY_AGE_MS;
}

/* The settings of the HTTP answers: the body, CORS, origins, switches. */
static int
settings_http(struct settings *st, char *err, size_t errlen)
{
	const char *v;
	int64_t n;
	int batch = 1; /* CHECKPOINT_SCHED_BATCH */

	if ((v = getenv("CHECKPOINT_MAX_BODY")) != NULL) {
		if (settings_parse_size(v, 2, 64 * 1024 * 1024, &n) == -1)
			return settings_fail(err, errlen, "CHECKPOINT_MAX_BODY",
			    v, "a size from 2 bytes to 64M, e.g. 65536 or 64K");
		st->max_body = (size_t)n;
	}

	/* Set but empty disables the header (checkpoint-api(7), "CORS"). */
	if ((v = getenv("CHECKPOINT_CORS_ORIGIN")) != NULL)
		st->cors_origin = *v == '\0' ? NULL : v;
	if (st->cors_origin != NULL && strpbrk(st->cors_origin, "\r\n") != NULL)
		return settings_fail(err, errlen, "CHECKPOINT_CORS_ORIGIN",
		    st->cors_origin, "one line");

	if (settings_origins(st, err, errlen) == -1)
		return -1;

	if (settings_flag("CHECKPOINT_REJECT_UNKNOWN_JOBS",
		&st->reject_unknown_jobs, err, errlen) == -1 ||
	    settings_flag("CHECKPOINT_SCHED_BATCH", &batch, err, errlen) ==
		-1 ||
	    settings_flag("CHECKPOINT_METRICS", &st->metrics, err, errlen) ==
		-1 ||
	    settings_flag("CHECKPOINT_METRICS_FILTER", &st->metrics_filter, err,
		errlen) == -1)
		return -1;
	st->sched_normal = !batch;
	return 0;
}

/* The settings of the store: durability, waiting, history, the queue. */
static int
settings_store(struct settings *st, char *err, size_t errlen)
{
	const char *v;

	if ((v = getenv("CHECKPOINT_SYNC")) != NULL) {
		if (strcmp(v, "NORMAL") == 0)
			st->sync_normal = 1;
		else if (strcmp(v, "FULL") != 0)
			return settings_fail(err, errlen, "CHECKPOINT_SYNC", v,
			    "FULL or NORMAL");
	}

	/* Not 0: the store takes that for "unset", and waits 2 s. */
	if ((v = getenv("CHECKPOINT_BUSY_TIMEOUT")) != NULL &&
	    (settings_parse_duration(v, &st->busy_ms) == -1 ||
		st->busy_ms < 1 || st->busy_ms > 60 * 1000))
		return settings_fail(err, errlen, "CHECKPOINT_BUSY_TIMEOUT", v,
		    "a duration from 1ms to 60s, e.g. 2000ms");

	if ((v = getenv("CHECKPOINT_HISTORY")) != NULL &&
	    settings_parse_int(v, 0, MAX_HISTORY, &st->history) == -1)
		return settings_fail(err, errlen, "CHECKPOINT_HISTORY", v,
		    "a number of checkpoints from 0 to 1000, e.g. 10");
	/* No 0 for "unbounded": no client may grow a queue for ever. */
	if ((v = getenv("CHECKPOINT_MAX_QUEUED")) != NULL &&
	    settings_parse_int(v, 1, MAX_MAX_QUEUED, &st->max_queued) == -1)
		return settings_fail(err, errlen, "CHECKPOINT_MAX_QUEUED", v,
		    "a number of triggers from 1 to 1000000, e.g. 1000");
	return settings_history_retention(st, err, errlen);
}

int
settings_from_env(struct settings *st, const char *db_override, char *err,
    size_t errlen)
{
	const char *v;

	settings_defaults(st);
	if (settings_db(st, db_override, err, errlen) == -1)
		return -1;

	if ((v = getenv("CHECKPOINT_STORE_DURATION")) != NULL &&
	    settings_parse_duration(v, &st->store_ms) == -1)
		return settings_fail(err, errlen, "CHECKPOINT_STORE_DURATION",
		    v, "a duration such as 300, 90s, 5min, 1h, 500ms or 0");

	if (settings_http(st, err, errlen) == -1 ||
	    settings_store(st, err, errlen) == -1 ||
	    settings_commands(st, err, errlen) == -1)
		return -1;
	return settings_savepoint_root(st, err, errlen);
}
