/*
 * Schedules (schedule.h): a job's schedule set and listed, and a due
 * slot fired in one transaction: the schedule advanced, the slot
 * recorded, and its trigger or savepoint recorded unless it is skipped.
 */
#include <config.h>

#include <string.h>

#include "store_impl.h"

/* --- Schedules --- */

enum store_rc
store_schedule_set(struct store *s, const struct id *job, const char *kind,
    int64_t every_ms, const char *cron, const char *set_by, int64_t now_ms)
{
	struct store_val v[] = { VAL_TEXT(job->s), VAL_TEXT(kind),
		VAL_INT_OR_NULL(every_ms, every_ms <= 0), VAL_TEXT(cron),
		VAL_INT(now_ms), VAL_TEXT(set_by) };
	enum store_rc rc;

	if (every_ms > 0 || cron != NULL)
		return store_q_run_one(s, STMT_SCHED_SET, v, NVAL(v),
		    "set schedule");
	if ((rc = store_job_known(s, job)) != STORE_OK)
		return rc;
	return store_q_run(s, STMT_SCHED_CLEAR, v, 2, "clear schedule", NULL);
}

enum store_rc
store_schedule_list(struct store *s, const struct id *job, store_schedule_cb cb,
    void *arg)
{
	struct store_val v[] = { VAL_TEXT(job != NULL ? job->s : NULL) };
	struct store_rows r;
	struct schedule_row e;

	if (store_q_query(s, &r, STMT_SCHED_LIST, v, NVAL(v),
		"list schedules") == STORE_OK)
		while (store_q_next_row(&r, &e, sizeof(e), "dtitiittti", &e.job,
			   &e.kind, &e.every_ms, &e.cron, &e.since_ms,
			   &e.last_slot_ms, &e.set_by, &e.job_state,
			   &e.savepoint_dir, &e.missed) &&
		    cb(&e, arg) == 0)
			;
	return store_q_end(&r);
}

/* Why a due slot records no trigger, as the row says; NULL: it records. */
static const char *
schedule_skip(const struct schedule_row *row)
{
	if (row->job_state == NULL || strcmp(row->job_state, "RUNNING") != 0)
		return "the job is not RUNNING";
	if (strcmp(row->kind, "SAVEPOINT") == 0 && row->savepoint_dir == NULL)
		return "the job has no savepoint directory";
	return NULL;
}

/*
 * The slot's trigger: a savepoint as the API records one, a checkpoint
 * trigger plainly (no queue bound to apply: a slot finds the job's queue
 * empty, or is skipped).
 */
static enum store_rc
schedule_record(struct store *s, const struct schedule_row *row,
    const struct schedule_fire *f)
{
	struct savepoint_rec sp;
	int created;

	if (strcmp(row->kind, "SAVEPOINT") != 0) {
		struct store_val v[] = { VAL_TEXT(row->job.s),
			VAL_TEXT(f->trigger.s),
			VAL_TEXT(ckpt_type_name(CKPT_CONFIGURED)),
			VAL_INT(f->now_ms), VAL_TEXT(SCHEDULE_CALLER) };

		return store_q_run_one(s, STMT_SCHED_RECORD, v, NVAL(v),
		    "record scheduled trigger");
	}
	memset(&sp, 0, sizeof(sp));
	sp.job = row->job;
	sp.trigger = f->trigger;
	sp.target_dir = row->savepoint_dir;
	sp.remote_user = SCHEDULE_CALLER;
	sp.now_ms = f->now_ms;
	return store_record_savepoint(s, &sp, &created);
}

enum store_rc
store_schedule_fire(struct store *s, const struct schedule_row *row,
    struct schedule_fire *f, int *fired)
{
	const char *skip = schedule_skip(row);
	struct store_val key[] = { VAL_TEXT(row->job.s), VAL_TEXT(row->kind) };
	struct store_val adv[] = { VAL_TEXT(row->job.s), VAL_TEXT(row->kind),
		VAL_INT(f->slot_ms), VAL_INT(row->since_ms),
		VAL_INT(f->missed) };
	struct store_rows r;
	enum store_rc rc;
	int64_t changed = 0;

	*fired = 0;
	if ((rc = store_begin(s)) != STORE_OK)
		return rc;
	rc = store_q_run(s, STMT_SCHED_ADVANCE, adv, NVAL(adv), "fire schedule",
	    &changed);
	/* One at a time, as Flink's max_concurrent of 1: not queued up. */
	if (rc == STORE_OK && changed > 0 && skip == NULL &&
	    store_q_query(s, &r, STMT_SCHED_BUSY, key, NVAL(key), "schedule") ==
		STORE_OK) {
		if (store_q_next(&r) && store_q_int(&r, 0) != 0)
			skip = strcmp(row->kind, "SAVEPOINT") == 0 ?
			    "a savepoint of the job is still in progress" :
			    "a checkpoint of the job is still in progress";
		rc = store_q_end(&r);
	}
	if (rc == STORE_OK && changed > 0) {
		struct store_val slot[] = { VAL_TEXT(row->job.s),
			VAL_TEXT(row->kind), VAL_INT(f->slot_ms),
			VAL_INT(f->now_ms),
			VAL_TEXT(skip == NULL ? f->trigger.s : NULL),
			VAL_TEXT(skip) };
		struct store_val missed[] = { VAL_INT(f->missed) };

		if (f->missed > 0)
			rc = store_q_run(s, STMT_SCHED_MISSED_ADD, missed,
			    NVAL(missed), "count missed slots", NULL);
		if (rc == STORE_OK &&
		    (rc = store_q_run(s, STMT_SCHED_SLOT, slot, NVAL(slot),
			 "record slot", NULL)) == STORE_OK &&
		    (skip != NULL ||
			(rc = schedule_record(s, row, f)) == STORE_OK))
			rc = store_q_run(s, STMT_SCHED_SLOTS_PRUNE, key,
			    NVAL(key), "prune slots", NULL);
	}
	if (rc != STORE_OK || changed == 0) {
		store_rollback(s);
		return rc;
	}
	if ((rc = store_commit(s)) == STORE_OK) {
		*fired = skip == NULL ? 1 : 2;
		f->skipped = skip;
	}
	return rc;
}

enum store_rc
store_schedule_missed(struct store *s, int64_t *n)
{
	enum store_rc rc;

	*n = 0;
	rc = store_q_one_row(s, STMT_SCHED_MISSED_TOTAL, NULL, 0,
	    "count missed slots", "i", n);
	return rc == STORE_NOTFOUND ? STORE_OK : rc;
}
