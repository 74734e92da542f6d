/*
 * PostgreSQL's round locks.  Runners' rounds run at once on several
 * hosts (SQLite's BEGIN IMMEDIATE serialised them), so a round locks the
 * job rows of the triggers it decides, in job id order, before it
 * decides any: two rounds never decide triggers of one job at once, and
 * ids stay dense and unique per job.  The store's logic asks nothing of
 * this: pg_query calls pg_round_vals before each statement and
 * pg_round_read after it, and the table below says which statements of
 * a round take the locked jobs, as an array ("{a,b}", nothing quoted: a
 * job id is 32 hex digits by the schema's CHECK) in the value the store
 * leaves NULL for them.  The locks, and what is known of them, last
 * until the transaction ends.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "store_pg_impl.h"

/*
 * A round's statement: the one that locks its jobs first, which two of
 * its values that lock takes (STMT_LOCK_JOBS: the round's range (a, b];
 * STMT_LOCK_HEADS: how many heads, and the range's last row), and where
 * the jobs go.  The range's jobs are locked once a transaction, though
 * each of the round's statements asks; a lock of the heads is the
 * statement's own.
 */
static const struct {
	enum stmt id, lock;
	int a, b, jobs;
} pg_rounds[] = {
	{ STMT_COMPLETE_PLAIN, STMT_LOCK_JOBS, 0, 1, 3 },
	{ STMT_PENDING, STMT_LOCK_JOBS, 0, 2, 3 },
	{ STMT_PENDING_HEADS, STMT_LOCK_HEADS, 0, 2, 1 },
};

/* Runs lock with v and keeps the jobs it locked, in s->jobs. */
static enum store_rc
pg_lock(struct pg *s, enum stmt lock, const struct store_val *v, int n)
{
	PGresult *res;
	enum store_rc rc;
	int i, bad;

	s->locked = 0; /* s->jobs is this statement's now */
	buf_reset(&s->jobs);
	if ((rc = pg_exec(s, lock, v, n, "lock the round's jobs", &res)) !=
	    STORE_OK)
		return rc;
	bad = buf_adds(&s->jobs, "{") != 0;
	for (i = 0; i < PQntuples(res) && !bad; i++)
		bad = buf_printf(&s->jobs, "%s%s", i > 0 ? "," : "",
			  PQgetvalue(res, i, 0)) != 0;
	PQclear(res);
	if (bad || buf_adds(&s->jobs, "}") != 0)
		return pg_fail(&s->base, "lock the round's jobs",
		    "out of memory");
	return STORE_OK;
}

/* The jobs of the round's range (after, upto], locked once. */
static enum store_rc
pg_lock_range(struct pg *s, int64_t after, int64_t upto)
{
	struct store_val v[] = { VAL_INT(after), VAL_INT(upto) };
	enum store_rc rc;

	if (s->locked && s->locked_after == after && s->locked_upto == upto)
		return STORE_OK;
	if ((rc = pg_lock(s, STMT_LOCK_JOBS, v, NVAL(v))) != STORE_OK)
		return rc;
	s->locked = 1;
	s->locked_after = after;
	s->locked_upto = upto;
	return STORE_OK;
}

const struct store_val *
pg_round_vals(struct pg *s, enum stmt id, const struct store_val *v, int n,
    struct store_val *own, enum store_rc *rc)
{
	size_t i;

	*rc = STORE_OK;
	if (id == STMT_BEGIN || id == STMT_BEGIN_READ)
		s->locked = 0;
	for (i = 0; i < sizeof(pg_rounds) / sizeof(pg_rounds[0]); i++)
		if (pg_rounds[i].id == id)
			break;
	if (i == sizeof(pg_rounds) / sizeof(pg_rounds[0]) ||
	    pg_rounds[i].jobs >= n || pg_rounds[i].b >= n || n > PG_MAX_PARAMS)
		return v;
	if (pg_rounds[i].lock == STMT_LOCK_JOBS) {
		*rc = pg_lock_range(s, v[pg_rounds[i].a].i,
		    v[pg_rounds[i].b].i);
	} else {
		struct store_val lv[] = { v[pg_rounds[i].a],
			v[pg_rounds[i].b] };

		*rc = pg_lock(s, pg_rounds[i].lock, lv, NVAL(lv));
	}
	memcpy(own, v, (size_t)n * sizeof(*v));
	own[pg_rounds[i].jobs].s = buf_str(&s->jobs);
	return own;
}

/*
 * The range a round has just read (STMT_PENDING_BOUND: the last id and
 * how many, after v[0]): its jobs are locked at once, before the round
 * decides any of their triggers.
 */
enum store_rc
pg_round_read(struct pg *s, enum stmt id, const struct store_val *v,
    const PGresult *res)
{
	if (id != STMT_PENDING_BOUND || PQntuples(res) < 1 ||
	    PQgetisnull(res, 0, 0) || atoll(PQgetvalue(res, 0, 1)) == 0)
		return STORE_OK;
	return pg_lock_range(s, v[0].i, atoll(PQgetvalue(res, 0, 0)));
}

/* A transaction's end lets the round's locks go. */
void
pg_round_end(struct pg *s)
{
	s->locked = 0;
}
