/*
 * Settings (cgi/settings.c): the strict integer, size and duration parsers,
 * and settings_from_env with each variable set, unset, empty and wrong.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "settings.h"
#include "store.h"
#include "tap.h"

/* What a refused parse must leave in the output. */
#define UNTOUCHED (-4242)

static const struct {
	int line;
	const char *in;
	int rc;
	int64_t ms;
} duration_cases[] = {
	{ __LINE__, "300", 0, 300000 },
	{ __LINE__, "90s", 0, 90000 },
	{ __LINE__, "5min", 0, 300000 },
	{ __LINE__, "1h", 0, 3600000 },
	{ __LINE__, "500ms", 0, 500 },
	{ __LINE__, "0", 0, 0 },
	{ __LINE__, "0ms", 0, 0 },
	{ __LINE__, "0s", 0, 0 },
	{ __LINE__, "007s", 0, 7000 },
	/* Ten years (of 366 days) is the most. */
	{ __LINE__, "316224000000ms", 0, 316224000000LL },
	{ __LINE__, "316224000s", 0, 316224000000LL },
	{ __LINE__, "87840h", 0, 316224000000LL },
	{ __LINE__, "316224001s", -1, UNTOUCHED },
	{ __LINE__, "316224000001ms", -1, UNTOUCHED },
	{ __LINE__, "87841h", -1, UNTOUCHED },
	{ __LINE__, "99999999999999999999", -1, UNTOUCHED },
	{ __LINE__, "9223372036854775807ms", -1, UNTOUCHED },
	{ __LINE__, "123456789012345678901234567890123", -1, UNTOUCHED },
	/* Not a duration. */
	{ __LINE__, NULL, -1, UNTOUCHED },
	{ __LINE__, "", -1, UNTOUCHED },
	{ __LINE__, "-1", -1, UNTOUCHED },
	{ __LINE__, "+1", -1, UNTOUCHED },
	{ __LINE__, "5m", -1, UNTOUCHED },
	{ __LINE__, "5M", -1, UNTOUCHED },
	{ __LINE__, "5MIN", -1, UNTOUCHED },
	{ __LINE__, "5mins", -1, UNTOUCHED },
	{ __LINE__, "1d", -1, UNTOUCHED },
	{ __LINE__, "1.5s", -1, UNTOUCHED },
	{ __LINE__, "s", -1, UNTOUCHED },
	{ __LINE__, "ms", -1, UNTOUCHED },
	{ __LINE__, "10 s", -1, UNTOUCHED },
	{ __LINE__, " 10", -1, UNTOUCHED },
	{ __LINE__, "10 ", -1, UNTOUCHED },
	{ __LINE__, "10s10", -1, UNTOUCHED },
	{ __LINE__, "0x10", -1, UNTOUCHED },
	{ __LINE__, "PT5M", -1, UNTOUCHED },
};

static void
test_duration(void)
{
	size_t i;
	int64_t ms;

	for (i = 0; i < sizeof(duration_cases) / sizeof(duration_cases[0]);
	     i++) {
		ms = UNTOUCHED;
		tap_is_int_at(__FILE__, duration_cases[i].line,
		    settings_parse_duration(duration_cases[i].in, &ms),
		    duration_cases[i].rc, "duration %zu (%s): rc", i + 1,
		    duration_cases[i].in ? duration_cases[i].in : "NULL");
		tap_is_int_at(__FILE__, duration_cases[i].line, ms,
		    duration_cases[i].ms, "duration %zu: ms", i + 1);
	}
}

static const struct {
	int line;
	const char *in;
	int64_t min, max;
	int rc;
	int64_t v;
} size_cases[] = {
	{ __LINE__, "65536", 0, INT64_MAX, 0, 65536 },
	{ __LINE__, "64K", 0, INT64_MAX, 0, 65536 },
	{ __LINE__, "64k", 0, INT64_MAX, 0, 65536 },
	{ __LINE__, "1M", 0, INT64_MAX, 0, 1048576 },
	{ __LINE__, "1m", 0, INT64_MAX, 0, 1048576 },
	{ __LINE__, "0", 0, INT64_MAX, 0, 0 },
	{ __LINE__, "0K", 0, INT64_MAX, 0, 0 },
	{ __LINE__, "2", 2, 64, 0, 2 },
	{ __LINE__, "64", 2, 64, 0, 64 },
	{ __LINE__, "1", 2, 64, -1, UNTOUCHED },
	{ __LINE__, "65", 2, 64, -1, UNTOUCHED },
	{ __LINE__, "64M", 2, 64 * 1024 * 1024, 0, 64 * 1024 * 1024 },
	{ __LINE__, "65M", 2, 64 * 1024 * 1024, -1, UNTOUCHED },
	{ __LINE__, "1K", 2, 1023, -1, UNTOUCHED },
	{ __LINE__, "9223372036854775807", 0, INT64_MAX, 0, INT64_MAX },
	{ __LINE__, "9223372036854775808", 0, INT64_MAX, -1, UNTOUCHED },
	{ __LINE__, "9007199254740992K", 0, INT64_MAX, -1, UNTOUCHED },
	{ __LINE__, "8796093022208M", 0, INT64_MAX, -1, UNTOUCHED },
	{ __LINE__, NULL, 0, INT64_MAX, -1, UNTOUCHED },
	{ __LINE__, "", 0, INT64_MAX, -1, UNTOUCHED },
	{ __LINE__, "K", 0, INT64_MAX, -1, UNTOUCHED },
	{ __LINE__, "M", 0, INT64_MAX, -1, UNTOUCHED },
	{ __LINE__, "1G", 0, INT64_MAX, -1, UNTOUCHED },
	{ __LINE__, "1KB", 0, INT64_MAX, -1, UNTOUCHED },
	{ __LINE__, "1KK", 0, INT64_MAX, -1, UNTOUCHED },
	{ __LINE__, "-1", 0, INT64_MAX, -1, UNTOUCHED },
	{ __LINE__, "-1K", 0, INT64_MAX, -1, UNTOUCHED },
	{ __LINE__, "1 K", 0, INT64_MAX, -1, UNTOUCHED },
	{ __LINE__, " 1", 0, INT64_MAX, -1, UNTOUCHED },
	{ __LINE__, "1.5K", 0, INT64_MAX, -1, UNTOUCHED },
	{ __LINE__, "0x10", 0, INT64_MAX, -1, UNTOUCHED },
	{ __LINE__, "123456789012345678901234567890123", 0, INT64_MAX, -1,
	    UNTOUCHED },
};

static void
test_size(void)
{
	size_t i;
	int64_t v;

	for (i = 0; i < sizeof(size_cases) / sizeof(size_cases[0]); i++) {
		v = UNTOUCHED;
		tap_is_int_at(__FILE__, size_cases[i].line,
		    settings_parse_size(size_cases[i].in, size_cases[i].min,
			size_cases[i].max, &v),
		    size_cases[i].rc, "size %zu (%s): rc", i + 1,
		    size_cases[i].in ? size_cases[i].in : "NULL");
		tap_is_int_at(__FILE__, size_cases[i].line, v, size_cases[i].v,
		    "size %zu: value", i + 1);
	}
}

static const struct {
	int line;
	const char *in;
	int64_t min, max;
	int rc;
	int64_t v;
} int_cases[] = {
	{ __LINE__, "0", 0, 10, 0, 0 },
	{ __LINE__, "10", 0, 10, 0, 10 },
	{ __LINE__, "042", 0, 100, 0, 42 },
	{ __LINE__, "11", 0, 10, -1, UNTOUCHED },
	{ __LINE__, "4", 5, 10, -1, UNTOUCHED },
	{ __LINE__, "9223372036854775807", 0, INT64_MAX, 0, INT64_MAX },
	{ __LINE__, "9223372036854775808", 0, INT64_MAX, -1, UNTOUCHED },
	{ __LINE__, "99999999999999999999999", 0, INT64_MAX, -1, UNTOUCHED },
	{ __LINE__, NULL, 0, 10, -1, UNTOUCHED },
	{ __LINE__, "", 0, 10, -1, UNTOUCHED },
	{ __LINE__, "-1", -10, 10, -1, UNTOUCHED },
	{ __LINE__, "+1", 0, 10, -1, UNTOUCHED },
	{ __LINE__, " 1", 0, 10, -1, UNTOUCHED },
	{ __LINE__, "1 ", 0, 10, -1, UNTOUCHED },
	{ __LINE__, "1a", 0, 10, -1, UNTOUCHED },
	{ __LINE__, "0x1", 0, 10, -1, UNTOUCHED },
	{ __LINE__, "1e1", 0, 100, -1, UNTOUCHED },
};

static void
test_int(void)
{
	size_t i;
	int64_t v;

	for (i = 0; i < sizeof(int_cases) / sizeof(int_cases[0]); i++) {
		v = UNTOUCHED;
		tap_is_int_at(__FILE__, int_cases[i].line,
		    settings_parse_int(int_cases[i].in, int_cases[i].min,
			int_cases[i].max, &v),
		    int_cases[i].rc, "int %zu (%s): rc", i + 1,
		    int_cases[i].in ? int_cases[i].in : "NULL");
		tap_is_int_at(__FILE__, int_cases[i].line, v, int_cases[i].v,
		    "int %zu: value", i + 1);
	}
}

/* --- settings_from_env --------------------------------------------------- */

static const char *const env_names[] = {
	"CHECKPOINT_DB",
	"CHECKPOINT_STORE_DURATION",
	"CHECKPOINT_MAX_BODY",
	"CHECKPOINT_CORS_ORIGIN",
	"CHECKPOINT_REJECT_UNKNOWN_JOBS",
	"CHECKPOINT_SYNC",
	"CHECKPOINT_BUSY_TIMEOUT",
	"CHECKPOINT_SCHED_BATCH",
};
#define NENV (sizeof(env_names) / sizeof(env_names[0]))

/* A field expected to keep its default. */
#define DFLT ((const char *)-1)

struct env_case {
	int line;
	const char *env[NENV]; /* NULL: unset */
	const char *db_override;
	int rc;
	const char *err; /* the exact message, on failure */
	/* Expected on success. */
	const char *db_path; /* DFLT: DEFAULT_DB */
	int64_t store_ms;
	size_t max_body;
	const char *cors; /* DFLT: "*" */
	int reject;
	int sync_normal;
	int64_t busy_ms;
	int sched_normal; /* CHECKPOINT_SCHED_BATCH=0 */
};

#define FAILS(msg) -1, msg, NULL, 0, 0, NULL, 0, 0, 0, 0
#define OK_DEFAULTS \
	0, NULL, DFLT, DEFAULT_STORE_MS, DEFAULT_MAX_BODY, DFLT, 0, 0, \
	    DEFAULT_BUSY_MS, 0

/* Rows by hand: the inputs first, then what they must give. */
/* clang-format off */
static const struct env_case env_cases[] = {
	/* Nothing set: every default. */
	{ __LINE__, { NULL }, NULL, OK_DEFAULTS },

	/* CHECKPOINT_DB, and the command line's override. */
	{ __LINE__, { "/tmp/x.db" }, NULL, 0, NULL,
	    "/tmp/x.db", DEFAULT_STORE_MS, DEFAULT_MAX_BODY, DFLT, 0, 0,
	    DEFAULT_BUSY_MS, 0 },
	{ __LINE__, { "" }, NULL, OK_DEFAULTS },
	{ __LINE__, { "/tmp/x.db" }, "/tmp/override.db", 0, NULL,
	    "/tmp/override.db", DEFAULT_STORE_MS, DEFAULT_MAX_BODY, DFLT, 0,
	    0, DEFAULT_BUSY_MS, 0 },
	{ __LINE__, { NULL }, "/tmp/override.db", 0, NULL,
	    "/tmp/override.db", DEFAULT_STORE_MS, DEFAULT_MAX_BODY, DFLT, 0,
	    0, DEFAULT_BUSY_MS, 0 },

	/* CHECKPOINT_STORE_DURATION. */
	{ __LINE__, { NULL, "0" }, NULL, 0, NULL,
	    DFLT, 0, DEFAULT_MAX_BODY, DFLT, 0, 0, DEFAULT_BUSY_MS, 0 },
	{ __LINE__, { NULL, "10min" }, NULL, 0, NULL,
	    DFLT, 600000, DEFAULT_MAX_BODY, DFLT, 0, 0, DEFAULT_BUSY_MS, 0 },
	{ __LINE__, { NULL, "60" }, NULL, 0, NULL,
	    DFLT, 60000, DEFAULT_MAX_BODY, DFLT, 0, 0, DEFAULT_BUSY_MS, 0 },
	{ __LINE__, { NULL, "5m" }, NULL, FAILS(
	    "CHECKPOINT_STORE_DURATION=\"5m\": expected a duration such as "
	    "300, 90s, 5min, 1h, 500ms or 0") },
	{ __LINE__, { NULL, "" }, NULL, FAILS(
	    "CHECKPOINT_STORE_DURATION=\"\": expected a duration such as "
	    "300, 90s, 5min, 1h, 500ms or 0") },
	{ __LINE__, { NULL, "-1" }, NULL, FAILS(
	    "CHECKPOINT_STORE_DURATION=\"-1\": expected a duration such as "
	    "300, 90s, 5min, 1h, 500ms or 0") },

	/* CHECKPOINT_MAX_BODY. */
	{ __LINE__, { NULL, NULL, "1M" }, NULL, 0, NULL,
	    DFLT, DEFAULT_STORE_MS, 1048576, DFLT, 0, 0, DEFAULT_BUSY_MS, 0 },
	{ __LINE__, { NULL, NULL, "2" }, NULL, 0, NULL,
	    DFLT, DEFAULT_STORE_MS, 2, DFLT, 0, 0, DEFAULT_BUSY_MS, 0 },
	{ __LINE__, { NULL, NULL, "64M" }, NULL, 0, NULL,
	    DFLT, DEFAULT_STORE_MS, 67108864, DFLT, 0, 0, DEFAULT_BUSY_MS, 0 },
	{ __LINE__, { NULL, NULL, "1" }, NULL, FAILS(
	    "CHECKPOINT_MAX_BODY=\"1\": expected a size from 2 bytes to 64M, "
	    "e.g. 65536 or 64K") },
	{ __LINE__, { NULL, NULL, "65M" }, NULL, FAILS(
	    "CHECKPOINT_MAX_BODY=\"65M\": expected a size from 2 bytes to 64M, "
	    "e.g. 65536 or 64K") },
	{ __LINE__, { NULL, NULL, "64 K" }, NULL, FAILS(
	    "CHECKPOINT_MAX_BODY=\"64 K\": expected a size from 2 bytes to "
	    "64M, e.g. 65536 or 64K") },

	/* CHECKPOINT_CORS_ORIGIN: set but empty means no header. */
	{ __LINE__, { NULL, NULL, NULL, "" }, NULL, 0, NULL,
	    DFLT, DEFAULT_STORE_MS, DEFAULT_MAX_BODY, NULL, 0, 0,
	    DEFAULT_BUSY_MS, 0 },
	{ __LINE__, { NULL, NULL, NULL, "https://ui.example.com" }, NULL, 0,
	    NULL, DFLT, DEFAULT_STORE_MS, DEFAULT_MAX_BODY,
	    "https://ui.example.com", 0, 0, DEFAULT_BUSY_MS, 0 },
	{ __LINE__, { NULL, NULL, NULL, "*\r\nSet-Cookie: x=1" }, NULL, FAILS(
	    "CHECKPOINT_CORS_ORIGIN=\"*\r\nSet-Cookie: x=1\": expected one "
	    "line") },
	{ __LINE__, { NULL, NULL, NULL, "a\nb" }, NULL, FAILS(
	    "CHECKPOINT_CORS_ORIGIN=\"a\nb\": expected one line") },

	/* CHECKPOINT_REJECT_UNKNOWN_JOBS. */
	{ __LINE__, { NULL, NULL, NULL, NULL, "1" }, NULL, 0, NULL,
	    DFLT, DEFAULT_STORE_MS, DEFAULT_MAX_BODY, DFLT, 1, 0,
	    DEFAULT_BUSY_MS, 0 },
	{ __LINE__, { NULL, NULL, NULL, NULL, "0" }, NULL, OK_DEFAULTS },
	{ __LINE__, { NULL, NULL, NULL, NULL, "" }, NULL, OK_DEFAULTS },
	{ __LINE__, { NULL, NULL, NULL, NULL, "yes" }, NULL, FAILS(
	    "CHECKPOINT_REJECT_UNKNOWN_JOBS=\"yes\": expected 0 or 1") },
	{ __LINE__, { NULL, NULL, NULL, NULL, "01" }, NULL, FAILS(
	    "CHECKPOINT_REJECT_UNKNOWN_JOBS=\"01\": expected 0 or 1") },

	/* CHECKPOINT_SYNC. */
	{ __LINE__, { NULL, NULL, NULL, NULL, NULL, "NORMAL" }, NULL, 0, NULL,
	    DFLT, DEFAULT_STORE_MS, DEFAULT_MAX_BODY, DFLT, 0, 1,
	    DEFAULT_BUSY_MS, 0 },
	{ __LINE__, { NULL, NULL, NULL, NULL, NULL, "FULL" }, NULL,
	    OK_DEFAULTS },
	{ __LINE__, { NULL, NULL, NULL, NULL, NULL, "normal" }, NULL, FAILS(
	    "CHECKPOINT_SYNC=\"normal\": expected FULL or NORMAL") },
	{ __LINE__, { NULL, NULL, NULL, NULL, NULL, "OFF" }, NULL, FAILS(
	    "CHECKPOINT_SYNC=\"OFF\": expected FULL or NORMAL") },

	/* CHECKPOINT_BUSY_TIMEOUT: 1 ms to 60 s. */
	{ __LINE__, { NULL, NULL, NULL, NULL, NULL, NULL, "500ms" }, NULL, 0,
	    NULL, DFLT, DEFAULT_STORE_MS, DEFAULT_MAX_BODY, DFLT, 0, 0, 500, 0 },
	{ __LINE__, { NULL, NULL, NULL, NULL, NULL, NULL, "2" }, NULL, 0,
	    NULL, DFLT, DEFAULT_STORE_MS, DEFAULT_MAX_BODY, DFLT, 0, 0, 2000, 0 },
	{ __LINE__, { NULL, NULL, NULL, NULL, NULL, NULL, "60s" }, NULL, 0,
	    NULL, DFLT, DEFAULT_STORE_MS, DEFAULT_MAX_BODY, DFLT, 0, 0, 60000, 0 },
	{ __LINE__, { NULL, NULL, NULL, NULL, NULL, NULL, "1min" }, NULL, 0,
	    NULL, DFLT, DEFAULT_STORE_MS, DEFAULT_MAX_BODY, DFLT, 0, 0, 60000, 0 },
	{ __LINE__, { NULL, NULL, NULL, NULL, NULL, NULL, "60001ms" }, NULL,
	    FAILS("CHECKPOINT_BUSY_TIMEOUT=\"60001ms\": expected a duration from "
	    "1ms to 60s, e.g. 2000ms") },
	/* 0 would be taken for "unset" (2 s): refused. */
	{ __LINE__, { NULL, NULL, NULL, NULL, NULL, NULL, "0" }, NULL,
	    FAILS("CHECKPOINT_BUSY_TIMEOUT=\"0\": expected a duration from "
	    "1ms to 60s, e.g. 2000ms") },
	{ __LINE__, { NULL, NULL, NULL, NULL, NULL, NULL, "0ms" }, NULL,
	    FAILS("CHECKPOINT_BUSY_TIMEOUT=\"0ms\": expected a duration from "
	    "1ms to 60s, e.g. 2000ms") },
	/* A plain number is seconds: 2000 is over half an hour. */
	{ __LINE__, { NULL, NULL, NULL, NULL, NULL, NULL, "2000" }, NULL,
	    FAILS("CHECKPOINT_BUSY_TIMEOUT=\"2000\": expected a duration from "
	    "1ms to 60s, e.g. 2000ms") },
	{ __LINE__, { NULL, NULL, NULL, NULL, NULL, NULL, "fast" }, NULL,
	    FAILS("CHECKPOINT_BUSY_TIMEOUT=\"fast\": expected a duration from "
	    "1ms to 60s, e.g. 2000ms") },

	/* CHECKPOINT_SCHED_BATCH: 0 keeps the workers' default policy. */
	{ __LINE__, { NULL, NULL, NULL, NULL, NULL, NULL, NULL, "0" }, NULL, 0,
	    NULL, DFLT, DEFAULT_STORE_MS, DEFAULT_MAX_BODY, DFLT, 0, 0,
	    DEFAULT_BUSY_MS, 1 },
	{ __LINE__, { NULL, NULL, NULL, NULL, NULL, NULL, NULL, "1" }, NULL,
	    OK_DEFAULTS },
	{ __LINE__, { NULL, NULL, NULL, NULL, NULL, NULL, NULL, "" }, NULL,
	    OK_DEFAULTS },
	{ __LINE__, { NULL, NULL, NULL, NULL, NULL, NULL, NULL, "no" }, NULL,
	    FAILS("CHECKPOINT_SCHED_BATCH=\"no\": expected 0 or 1") },
	{ __LINE__, { NULL, NULL, NULL, NULL, NULL, NULL, NULL, " 0" }, NULL,
	    FAILS("CHECKPOINT_SCHED_BATCH=\" 0\": expected 0 or 1") },

	/* Everything at once. */
	{ __LINE__, { "/srv/c.db", "1h", "8K", "https://a", "1", "NORMAL",
	    "250ms", "0" }, NULL, 0, NULL, "/srv/c.db", 3600000, 8192,
	    "https://a", 1, 1, 250, 1 },
	/* The message quotes at most 64 bytes of the value. */
	{ __LINE__, { NULL, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	    "xxxxxxxxxxxxxxxxyyyyy" }, NULL, FAILS(
	    "CHECKPOINT_STORE_DURATION=\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	    "xxxxxxxxxxxxxxxxxxxxxxxxxxxx\": expected a duration such as "
	    "300, 90s, 5min, 1h, 500ms or 0") },
};
/* clang-format on */

static void
test_env(void)
{
	const struct env_case *c;
	struct settings st;
	char err[256], name[32];
	size_t i, k;
	int rc;

	for (i = 0; i < sizeof(env_cases) / sizeof(env_cases[0]); i++) {
		c = &env_cases[i];
		for (k = 0; k < NENV; k++) {
			if (c->env[k] == NULL)
				unsetenv(env_names[k]);
			else
				setenv(env_names[k], c->env[k], 1);
		}
		snprintf(name, sizeof(name), "env case %zu", i + 1);
		strcpy(err, "(untouched)");
		rc = settings_from_env(&st, c->db_override, err, sizeof(err));
		tap_is_int_at(__FILE__, c->line, rc, c->rc, "%s: rc", name);
		if (c->rc != 0) {
			tap_is_str_at(__FILE__, c->line, err, c->err,
			    "%s: message", name);
			continue;
		}
		tap_is_str_at(__FILE__, c->line, st.db_path,
		    c->db_path == DFLT ? DEFAULT_DB : c->db_path, "%s: db_path",
		    name);
		tap_is_int_at(__FILE__, c->line, st.store_ms, c->store_ms,
		    "%s: store_ms", name);
		tap_is_int_at(__FILE__, c->line, (long long)st.max_body,
		    (long long)c->max_body, "%s: max_body", name);
		tap_is_str_at(__FILE__, c->line, st.cors_origin,
		    c->cors == DFLT ? "*" : c->cors, "%s: cors_origin", name);
		tap_is_int_at(__FILE__, c->line, st.reject_unknown_jobs,
		    c->reject, "%s: reject_unknown_jobs", name);
		tap_is_int_at(__FILE__, c->line, st.sync_normal, c->sync_normal,
		    "%s: sync_normal", name);
		tap_is_int_at(__FILE__, c->line, st.busy_ms, c->busy_ms,
		    "%s: busy_ms", name);
		tap_is_int_at(__FILE__, c->line, st.sched_normal,
		    c->sched_normal, "%s: sched_normal", name);
	}
	for (k = 0; k < NENV; k++)
		unsetenv(env_names[k]);
}

/*
 * CHECKPOINT_HISTORY: the checkpoints in GET /jobs/:jobid/checkpoints's
 * history, 0 to 1000 (Flink's web.checkpoints.history, default 10).
 */
static const struct {
	int line;
	const char *v; /* NULL: unset */
	int rc;
	int64_t history;
	const char *err;
} history_cases[] = {
	{ __LINE__, NULL, 0, DEFAULT_HISTORY, NULL },
	{ __LINE__, "10", 0, 10, NULL },
	{ __LINE__, "0", 0, 0, NULL },
	{ __LINE__, "1000", 0, 1000, NULL },
	{ __LINE__, "1001", -1, 0,
	    "CHECKPOINT_HISTORY=\"1001\": expected a number of checkpoints "
	    "from 0 to 1000, e.g. 10" },
	{ __LINE__, "-1", -1, 0,
	    "CHECKPOINT_HISTORY=\"-1\": expected a number of checkpoints "
	    "from 0 to 1000, e.g. 10" },
	{ __LINE__, "", -1, 0,
	    "CHECKPOINT_HISTORY=\"\": expected a number of checkpoints "
	    "from 0 to 1000, e.g. 10" },
	{ __LINE__, "10x", -1, 0,
	    "CHECKPOINT_HISTORY=\"10x\": expected a number of checkpoints "
	    "from 0 to 1000, e.g. 10" },
	{ __LINE__, " 10", -1, 0,
	    "CHECKPOINT_HISTORY=\" 10\": expected a number of checkpoints "
	    "from 0 to 1000, e.g. 10" },
};

static void
test_history(void)
{
	struct settings st;
	char err[256];
	size_t i;
	int rc;

	for (i = 0; i < sizeof(history_cases) / sizeof(history_cases[0]); i++) {
		if (history_cases[i].v == NULL)
			unsetenv("CHECKPOINT_HISTORY");
		else
			setenv("CHECKPOINT_HISTORY", history_cases[i].v, 1);
		strcpy(err, "(untouched)");
		rc = settings_from_env(&st, NULL, err, sizeof(err));
		tap_is_int_at(__FILE__, history_cases[i].line, rc,
		    history_cases[i].rc, "history %zu: rc", i + 1);
		if (rc == 0)
			tap_is_int_at(__FILE__, history_cases[i].line,
			    st.history, history_cases[i].history,
			    "history %zu: value", i + 1);
		else
			tap_is_str_at(__FILE__, history_cases[i].line, err,
			    history_cases[i].err, "history %zu: message",
			    i + 1);
	}
	unsetenv("CHECKPOINT_HISTORY");
}

/*
 * CHECKPOINT_SAVEPOINT_ROOT: a directory in its normal form (sppath.h),
 * or unset or empty for none.
 */
#define ROOT_ERR(v) \
	"CHECKPOINT_SAVEPOINT_ROOT=\"" v "\": expected an absolute, normal " \
	"directory such as file:/srv/savepoints or s3://bucket/savepoints"
static const struct {
	int line;
	const char *v; /* NULL: unset */
	const char *want; /* the root, NULL: none */
	const char *err; /* NULL: accepted */
} root_cases[] = {
	{ __LINE__, NULL, NULL, NULL },
	{ __LINE__, "", NULL, NULL },
	{ __LINE__, "file:/srv/sp", "file:/srv/sp", NULL },
	{ __LINE__, "s3://b/sp/", "s3://b/sp/", NULL },
	{ __LINE__, "/srv/sp", "/srv/sp", NULL },
	{ __LINE__, "srv/sp", NULL, ROOT_ERR("srv/sp") },
	{ __LINE__, "file:/srv/../etc", NULL, ROOT_ERR("file:/srv/../etc") },
	{ __LINE__, "file:/srv sp", NULL, ROOT_ERR("file:/srv sp") },
};

static void
test_savepoint_root(void)
{
	struct settings st;
	char err[256];
	size_t i;
	int rc;

	for (i = 0; i < sizeof(root_cases) / sizeof(root_cases[0]); i++) {
		if (root_cases[i].v == NULL)
			unsetenv("CHECKPOINT_SAVEPOINT_ROOT");
		else
			setenv("CHECKPOINT_SAVEPOINT_ROOT", root_cases[i].v, 1);
		strcpy(err, "(untouched)");
		rc = settings_from_env(&st, NULL, err, sizeof(err));
		tap_is_int_at(__FILE__, root_cases[i].line, rc,
		    root_cases[i].err != NULL ? -1 : 0, "root %zu: rc", i + 1);
		if (rc == 0)
			tap_is_str_at(__FILE__, root_cases[i].line,
			    st.savepoint_root != NULL ? st.savepoint_root :
							"(none)",
			    root_cases[i].want != NULL ? root_cases[i].want :
							 "(none)",
			    "root %zu: value", i + 1);
		else
			tap_is_str_at(__FILE__, root_cases[i].line, err,
			    root_cases[i].err, "root %zu: message", i + 1);
	}
	unsetenv("CHECKPOINT_SAVEPOINT_ROOT");
}

/* --- CHECKPOINT_METRICS and CHECKPOINT_METRICS_FILTER ------------------- */

static const struct {
	int line;
	const char *metrics, *filter; /* NULL: unset */
	const char *err; /* NULL: accepted */
	int want_metrics, want_filter;
} metrics_cases[] = {
	/* Both on unless told: Flink's reporter filters label values. */
	{ __LINE__, NULL, NULL, NULL, 1, 1 },
	{ __LINE__, "", "", NULL, 1, 1 },
	{ __LINE__, "0", NULL, NULL, 0, 1 },
	{ __LINE__, "1", "0", NULL, 1, 0 },
	{ __LINE__, "off", NULL, "CHECKPOINT_METRICS=\"off\": expected 0 or 1",
	    0, 0 },
	{ __LINE__, "1 ", NULL, "CHECKPOINT_METRICS=\"1 \": expected 0 or 1", 0,
	    0 },
	{ __LINE__, NULL, "false",
	    "CHECKPOINT_METRICS_FILTER=\"false\": expected 0 or 1", 0, 0 },
};

static void
test_metrics_flags(void)
{
	struct settings st;
	char err[256];
	size_t i;
	int rc;

	for (i = 0; i < sizeof(metrics_cases) / sizeof(metrics_cases[0]); i++) {
		if (metrics_cases[i].metrics != NULL)
			setenv("CHECKPOINT_METRICS", metrics_cases[i].metrics,
			    1);
		else
			unsetenv("CHECKPOINT_METRICS");
		if (metrics_cases[i].filter != NULL)
			setenv("CHECKPOINT_METRICS_FILTER",
			    metrics_cases[i].filter, 1);
		else
			unsetenv("CHECKPOINT_METRICS_FILTER");
		strcpy(err, "(untouched)");
		rc = settings_from_env(&st, NULL, err, sizeof(err));
		if (metrics_cases[i].err != NULL) {
			tap_is_int_at(__FILE__, metrics_cases[i].line, rc, -1,
			    "metrics case %zu: refused", i + 1);
			tap_is_str_at(__FILE__, metrics_cases[i].line, err,
			    metrics_cases[i].err, "metrics case %zu: message",
			    i + 1);
			continue;
		}
		tap_is_int_at(__FILE__, metrics_cases[i].line, rc, 0,
		    "metrics case %zu: accepted", i + 1);
		tap_is_int_at(__FILE__, metrics_cases[i].line, st.metrics,
		    metrics_cases[i].want_metrics, "metrics case %zu: metrics",
		    i + 1);
		tap_is_int_at(__FILE__, metrics_cases[i].line,
		    st.metrics_filter, metrics_cases[i].want_filter,
		    "metrics case %zu: filter", i + 1);
	}
	unsetenv("CHECKPOINT_METRICS");
	unsetenv("CHECKPOINT_METRICS_FILTER");
}

/* CHECKPOINT_ORIGINS: origins only, space-separated; blank is unset. */
static const struct {
	int line;
	const char *v; /* NULL: unset */
	const char *want; /* NULL: unset after; ERR: refused */
} origins_cases[] = {
	{ __LINE__, NULL, NULL },
	{ __LINE__, "", NULL },
	{ __LINE__, "   ", NULL },
	{ __LINE__, "https://flink.example:8443",
	    "https://flink.example:8443" },
	{ __LINE__, " http://a.example  https://[::1]:8443 ",
	    " http://a.example  https://[::1]:8443 " },
	{ __LINE__, "flink.example", "ERR" },
	{ __LINE__, "https://flink.example/", "ERR" },
	{ __LINE__, "https://a.example,https://b.example", "ERR" },
	{ __LINE__, "http://a.example null", "ERR" },
	{ __LINE__, "*", "ERR" },
};

static void
test_origins_setting(void)
{
	struct settings st;
	char err[256];
	size_t i;
	int rc;

	for (i = 0; i < sizeof(origins_cases) / sizeof(origins_cases[0]); i++) {
		if (origins_cases[i].v == NULL)
			unsetenv("CHECKPOINT_ORIGINS");
		else
			setenv("CHECKPOINT_ORIGINS", origins_cases[i].v, 1);
		rc = settings_from_env(&st, NULL, err, sizeof(err));
		if (origins_cases[i].want != NULL &&
		    strcmp(origins_cases[i].want, "ERR") == 0) {
			tap_is_int_at(__FILE__, origins_cases[i].line, rc, -1,
			    "origins case %zu: refused", i + 1);
			tap_ok_at(__FILE__, origins_cases[i].line,
			    strncmp(err, "CHECKPOINT_ORIGINS=", 19) == 0,
			    "origins case %zu: says so (%s)", i + 1, err);
			continue;
		}
		tap_is_int_at(__FILE__, origins_cases[i].line, rc, 0,
		    "origins case %zu: accepted", i + 1);
		tap_is_str_at(__FILE__, origins_cases[i].line,
		    st.origins != NULL ? st.origins : "(unset)",
		    origins_cases[i].want != NULL ? origins_cases[i].want :
						    "(unset)",
		    "origins case %zu: the list", i + 1);
	}
	unsetenv("CHECKPOINT_ORIGINS");
}

/*
 * What logs show of CHECKPOINT_DB, and what ps shows of --db; and whether
 * it is taken at all (a mistake no retry mends stops the program: err).
 */
static const struct {
	int line;
	const char *db, *shown, *hidden, *err;
} db_cases[] = {
	{ __LINE__, "/var/lib/checkpoint-api/checkpoints.db",
	    "/var/lib/checkpoint-api/checkpoints.db",
	    "/var/lib/checkpoint-api/checkpoints.db", NULL },
	{ __LINE__,
	    "postgresql://ckpt@db1,db2/ckpt?target_session_attrs=read-write",
	    "postgresql://ckpt@db1,db2/ckpt?target_session_attrs=read-write",
	    "postgresql://ckpt@db1,db2/ckpt?target_session_attrs=read-write",
	    NULL },
	{ __LINE__,
	    "postgresql://u:secret@h1,h2/db?password=pw2&sslmode=require",
	    "postgresql://u:***@h1,h2/db?password=***&sslmode=require",
	    "postgresql://u:******@h1,h2/db?password=***&sslmode=require",
	    NULL },
	{ __LINE__, "postgres://:p@h", "postgres://:***@h", "postgres://:*@h",
	    NULL },
	{ __LINE__, "postgresql:///db?host=/run/postgresql&password=x",
	    "postgresql:///db?host=/run/postgresql&password=***",
	    "postgresql:///db?host=/run/postgresql&password=*", NULL },
	{ __LINE__, "postgresql://u:p%40x@h/db?a=b&password=",
	    "postgresql://u:***@h/db?a=b&password=***",
	    "postgresql://u:*****@h/db?a=b&password=",
	    "CHECKPOINT_DB=\"postgresql://u:***@h/db?a=b&password=***\": "
	    "not a URI libpq can parse" },
	/* Empty: nothing to hide, each found once (it was found forever). */
	{ __LINE__, "postgresql://u:@h/db?password=&password=y",
	    "postgresql://u:***@h/db?password=***&password=***",
	    "postgresql://u:@h/db?password=&password=*", NULL },
	{ __LINE__, "postgresql://h/db?xpassword=1",
	    "postgresql://h/db?xpassword=1", "postgresql://h/db?xpassword=1",
	    "CHECKPOINT_DB=\"postgresql://h/db?xpassword=1\": not a URI "
	    "libpq can parse" },
	{ __LINE__, "mysql://u:pw@h/db", "mysql://u:***@h/db",
	    "mysql://u:**@h/db",
	    "CHECKPOINT_DB=\"mysql://u:***@h/db\": an unsupported scheme: "
	    "use a file path or postgresql://" },
	{ __LINE__, "sqlite:///", "sqlite:///", "sqlite:///",
	    "CHECKPOINT_DB=\"sqlite:///\": an unsupported scheme: use a "
	    "file path or postgresql://" },
	{ __LINE__, "postgresql://[::1", "postgresql://[::1",
	    "postgresql://[::1",
	    "CHECKPOINT_DB=\"postgresql://[::1\": not a URI libpq can "
	    "parse" },
};

static void
test_db_shown(void)
{
	struct settings st;
	char err[256], hidden[256];
	size_t i;

	for (i = 0; i < sizeof(db_cases) / sizeof(db_cases[0]); i++) {
		const char *want = db_cases[i].err;
#ifndef HAVE_LIBPQ
		char nopg[512];

		/* A build with SQLite's store alone refuses every URI. */
		if (store_is_uri(db_cases[i].db)) {
			snprintf(nopg, sizeof(nopg),
			    "CHECKPOINT_DB=\"%s\": this build has no "
			    "PostgreSQL store (no libpq)",
			    db_cases[i].shown);
			want = nopg;
		}
#endif
		setenv("CHECKPOINT_DB", db_cases[i].db, 1);
		strcpy(err, "(untouched)");
		tap_is_int_at(__FILE__, db_cases[i].line,
		    settings_from_env(&st, NULL, err, sizeof(err)),
		    want != NULL ? -1 : 0, "db case %zu: %s", i + 1,
		    want != NULL ? "refused" : "accepted");
		tap_is_str_at(__FILE__, db_cases[i].line, err,
		    want != NULL ? want : "(untouched)",
		    "db case %zu: the message", i + 1);
		tap_is_str_at(__FILE__, db_cases[i].line, st.db_shown,
		    db_cases[i].shown, "db case %zu: shown without password",
		    i + 1);
		snprintf(hidden, sizeof(hidden), "%s", db_cases[i].db);
		store_hide_password(hidden);
		tap_is_str_at(__FILE__, db_cases[i].line, hidden,
		    db_cases[i].hidden, "db case %zu: hidden in place", i + 1);
		tap_ok_at(__FILE__, db_cases[i].line,
		    store_is_uri(db_cases[i].db) ==
			(strncmp(db_cases[i].db, "postgres", 8) == 0),
		    "db case %zu: a libpq URI or not", i + 1);
	}
	/* Cut short, never past the buffer. */
	store_redact(db_cases[2].db, hidden, 10);
	tap_is_str(hidden, "postgresq", "a short buffer: cut, terminated");
	unsetenv("CHECKPOINT_DB");
}

int
main(void)
{
	test_duration();
	test_size();
	test_int();
	test_env();
	test_history();
	test_savepoint_root();
	test_metrics_flags();
	test_db_shown();
	test_origins_setting();
	return tap_done();
}
