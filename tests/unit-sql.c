/*
 * The store's statement table (cgi/store_sql.c, and the part of it a
 * file of one concern keeps, as store_jobs.c): a statement both
 * dialects write alike is written once, in one shared table, never in
 * both drivers' own (a twin: the same text but for ?N against $N); a
 * shared one is not also a driver's own, which would hide it; its
 * placeholders are all ?N, which the PostgreSQL driver makes $N; and
 * they fit the room that driver keeps for its copy.
 */
#include <config.h>

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "store_impl.h"
#include "tap.h"

/* Whether a (SQLite's) and b (PostgreSQL's) are the same but for ?N/$N. */
static int
twins(const char *a, const char *b)
{
	for (; *a != '\0' && *b != '\0'; a++, b++)
		if (*a != *b && !(*a == '?' && *b == '$'))
			return 0;
	return *a == *b;
}

/* Whether every ? of s is a placeholder ?N, and s has no $. */
static int
placeholders_ok(const char *s)
{
	const char *q;

	if (strchr(s, '$') != NULL)
		return 0;
	for (q = s; (q = strchr(q, '?')) != NULL; q++)
		if (!isdigit((unsigned char)q[1]))
			return 0;
	return 1;
}

int
main(void)
{
	int id, twice = 0, hidden = 0, bad = 0, shared = 0, first = -1;
	int k, in, twice_shared = 0;
	size_t bytes = 0;

	for (id = 0; id < STMT__MAX; id++) {
		const char *a = store_sqlite_sql[id],
			   *s = store_sql_shared_text(id);
#ifdef HAVE_LIBPQ
		const char *b = store_pg_sql[id];
#else
		const char *b = NULL; /* a build with SQLite's alone */
#endif

		if (a != NULL && b != NULL && twins(a, b)) {
			twice++;
			if (first == -1)
				first = id;
		}
		if (s == NULL)
			continue;
		for (k = 0, in = 0; store_sql_tables[k] != NULL; k++)
			in += store_sql_tables[k][id] != NULL;
		twice_shared += in > 1;
		shared++;
		bytes += strlen(s) + 1;
		hidden += a != NULL || b != NULL;
		bad += !placeholders_ok(s);
	}
	tap_ok(twice == 0,
	    "no statement written alike in both drivers' tables (%d; the "
	    "first: statement %d)",
	    twice, first);
	tap_ok(hidden == 0, "no shared statement hidden by a driver's own (%d)",
	    hidden);
	tap_ok(twice_shared == 0,
	    "no statement in two tables of shared statements (%d)",
	    twice_shared);
	tap_ok(store_jobs_sql[STMT_JOB_LIST] != NULL &&
		store_sql_text(store_sqlite_sql, STMT_JOB_LIST) ==
		    store_jobs_sql[STMT_JOB_LIST],
	    "a concern's own table of shared statements is read (jobs')");
	tap_ok(bad == 0,
	    "every shared statement's placeholders are ?N (%d not)", bad);
	tap_ok(shared > 0, "the shared table holds statements (%d)", shared);
	tap_ok(bytes <= STORE_SQL_SHARED_MAX,
	    "they fit the room the PostgreSQL driver has for them (%zu bytes)",
	    bytes);
	tap_ok(twins("a = ?1 AND b = ?2", "a = $1 AND b = $2") &&
		!twins("a = ?1", "a = $1::bigint"),
	    "a twin is the same text but for ?N against $N");
	return tap_done();
}
