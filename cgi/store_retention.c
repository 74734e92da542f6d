/*
 * What the store lets go: results purged once their store duration is
 * over, the checkpoint history pruned, and retention's policies
 * (retention.h), their candidates and their due times.
 */
#include <config.h>

#include "store_impl.h"

/*
 * A deleting statement run until it deletes less than a batch, where the
 * driver keeps a purge's transactions short; *deleted: how many in all.
 */
static enum store_rc
purge_batches(struct store *s, enum stmt id, const struct store_val *v,
    int nval, const char *what, int64_t *deleted)
{
	enum store_rc rc;
	int64_t n;

	*deleted = 0;
	do {
		n = 0;
		if ((rc = store_q_run(s, id, v, nval, what, &n)) != STORE_OK)
			return rc;
		*deleted += n;
	} while (s->ops->purge_batch > 0 && n >= s->ops->purge_batch);
	return STORE_OK;
}

/* Retention of the results. */
enum store_rc
store_purge(struct store *s, int64_t now_ms, int64_t store_ms, int64_t *purged)
{
	struct store_val v[] = { VAL_INT(now_ms), VAL_INT(store_ms) };
	/* The results of each kind that hold nothing the service keeps. */
	const enum stmt by[] = { STMT_PURGE, STMT_SP_PURGE,
		STMT_DISPOSAL_PURGE };
	enum store_rc rc = STORE_OK;
	int64_t n;
	int i;

	*purged = 0;
	for (i = 0; i < NVAL(by) && rc == STORE_OK; i++) {
		rc = purge_batches(s, by[i], v, NVAL(v), "purge", &n);
		*purged += n;
	}
	return rc;
}

/*
 * The history's retention by count: of the jobs whose counter grew since
 * they were last pruned, and marked so, in one transaction; of every job
 * when keep is not the count they were last pruned by (the first time,
 * or the operator changed it).
 */
static enum store_rc
history_prune_keep(struct store *s, const struct store_val *v, int64_t keep,
    int64_t *n)
{
	enum store_rc rc;
	int64_t was = 0;

	*n = 0;
	if (keep <= 0)
		return STORE_OK;
	rc = store_q_one_row(s, STMT_HISTORY_KEEP_GET, NULL, 0,
	    "prune the history", "i", &was);
	if (rc != STORE_OK && rc != STORE_NOTFOUND)
		return rc;
	if (was != keep) {
		if ((rc = purge_batches(s, STMT_HISTORY_PRUNE_KEEP, v, 3,
			 "prune the history", n)) == STORE_OK &&
		    (rc = store_q_run(s, STMT_HISTORY_PRUNED, v, 3,
			 "prune the history", NULL)) == STORE_OK)
			rc = store_q_run(s, STMT_HISTORY_KEEP_SET, v, 3,
			    "prune the history", NULL);
		return rc;
	}
	if ((rc = store_begin(s)) != STORE_OK)
		return rc;
	rc = store_q_run(s, STMT_HISTORY_PRUNE_GROWN, v, 3, "prune the history",
	    n);
	if (rc == STORE_OK &&
	    store_sql_text(s->ops->sql, STMT_HISTORY_GROWN_MARK) != NULL)
		rc = store_q_run(s, STMT_HISTORY_GROWN_MARK, v, 3,
		    "prune the history", NULL);
	if (rc != STORE_OK) {
		store_rollback(s);
		return rc;
	}
	return store_commit(s);
}

enum store_rc
store_history_prune(struct store *s, int64_t now_ms, int64_t keep,
    int64_t age_ms, int64_t *pruned)
{
	struct store_val v[] = { VAL_INT(now_ms), VAL_INT(keep),
		VAL_INT(age_ms) };
	const enum stmt by[] = { STMT_HISTORY_PRUNE_AGE, STMT_SP_PRUNE };
	enum store_rc rc;
	int64_t n;
	int i;

	rc = history_prune_keep(s, v, keep, pruned);
	for (i = 0; i < NVAL(by) && rc == STORE_OK; i++) {
		rc = purge_batches(s, by[i], v, NVAL(v), "prune the history",
		    &n);
		*pruned += n;
	}
	return rc;
}

/* --- Retention --- */

enum store_rc
store_retention_set(struct store *s, const struct id *job, const char *kind,
    int64_t keep_last, int64_t keep_ms, const char *set_by, int64_t now_ms)
{
	struct store_val v[] = { VAL_TEXT(job->s), VAL_TEXT(kind),
		VAL_INT_OR_NULL(keep_last, keep_last <= 0),
		VAL_INT_OR_NULL(keep_ms, keep_ms <= 0), VAL_TEXT(set_by),
		VAL_INT(now_ms) };
	enum store_rc rc;

	if (keep_last > 0 || keep_ms > 0)
		return store_q_run_one(s, STMT_RETAIN_SET, v, NVAL(v),
		    "set retention");
	if ((rc = store_job_known(s, job)) != STORE_OK)
		return rc;
	return store_q_run(s, STMT_RETAIN_CLEAR, v, 2, "clear retention", NULL);
}

enum store_rc
store_retention_get(struct store *s, const struct id *job, const char *kind,
    int64_t *keep_last, int64_t *keep_ms)
{
	struct store_val v[] = { VAL_TEXT(job->s), VAL_TEXT(kind) };

	*keep_last = *keep_ms = 0;
	return store_q_one_row(s, STMT_RETAIN_GET, v, NVAL(v), "read retention",
	    "ii", keep_last, keep_ms);
}

enum store_rc
store_savepoint_keep(struct store *s, const struct id *job,
    const struct id *trigger, int64_t checkpoint_id, int64_t kept_ms)
{
	struct store_val v[] = { VAL_TEXT(job->s),
		VAL_TEXT(trigger != NULL ? trigger->s : NULL),
		VAL_INT_OR_NULL(checkpoint_id, trigger != NULL),
		VAL_INT_OR_NULL(kept_ms, kept_ms <= 0) };

	return store_q_run_one(s, STMT_SP_KEEP, v, NVAL(v), "keep savepoint");
}

enum store_rc
store_retention_list(struct store *s, const struct id *job,
    store_retention_cb cb, void *arg)
{
	struct store_val v[] = { VAL_TEXT(job != NULL ? job->s : NULL) };
	struct store_rows r;
	struct retention_row e;

	if (store_q_query(s, &r,
		job != NULL ? STMT_RETAIN_CANDIDATES_JOB :
			      STMT_RETAIN_CANDIDATES,
		v, NVAL(v), "list retention") == STORE_OK)
		while (
		    store_q_next_row(&r, &e, sizeof(e), "dtditiiiitnii", &e.job,
			&e.kind, &e.trigger, &e.checkpoint_id, &e.location,
			&e.completed_ms, &e.kept_ms, &e.keep_last, &e.keep_ms,
			&e.disposal_status, &e.disposal_failed,
			&e.disposal_attempts, &e.disposal_completed_ms) &&
		    cb(&e, arg) == 0)
			;
	return store_q_end(&r);
}

enum store_rc
store_retention_due(struct store *s, int64_t now_ms, store_retention_due_cb cb,
    void *arg)
{
	struct store_val v[] = { VAL_INT(now_ms) };
	struct store_rows r;
	struct retention_due e;

	if (store_q_query(s, &r, STMT_RETAIN_DUE, v, NVAL(v),
		"due retention") == STORE_OK)
		while (store_q_next_row(&r, &e, sizeof(e), "dti", &e.job,
			   &e.kind, &e.changes) &&
		    cb(&e, arg) == 0)
			;
	return store_q_end(&r);
}

enum store_rc
store_retention_next(struct store *s, const struct id *job, const char *kind,
    int64_t changes, int64_t due_ms)
{
	struct store_val v[] = { VAL_TEXT(job->s), VAL_TEXT(kind),
		VAL_INT(changes), VAL_INT(due_ms) };

	return store_q_run(s, STMT_RETAIN_NEXT, v, NVAL(v), "retention next",
	    NULL);
}

enum store_rc
store_disposal_counts(struct store *s, int64_t n[3])
{
	enum store_rc rc;

	n[0] = n[1] = n[2] = 0;
	rc = store_q_one_row(s, STMT_DISPOSAL_COUNTS, NULL, 0,
	    "count disposals", "iii", &n[0], &n[1], &n[2]);
	return rc == STORE_NOTFOUND ? STORE_OK : rc;
}
