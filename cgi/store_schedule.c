/*
 * Schedules (schedule.h): a job's schedule set and listed, and due slots
 * fired in batches, a transaction each: every schedule advanced, its slot
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

#define BUSY_CHECKPOINT "a checkpoint of the job is still in progress"
#define BUSY_SAVEPOINT "a savepoint of the job is still in progress"

/* Why a slot of a RUNNING job is skipped all the same; NULL: it is not. */
static enum store_rc
schedule_busy(struct store *s, const struct schedule_row *row,
    const char **skip)
{
	struct store_val key[] = { VAL_TEXT(row->job.s), VAL_TEXT(row->kind) };
	struct store_rows r;

	/* One at a time, as Flink's max_concurrent of 1: not queued up. */
	if (store_q_query(s, &r, STMT_SCHED_BUSY, key, NVAL(key), "schedule") !=
	    STORE_OK)
		return store_q_end(&r);
	if (store_q_next(&r) && store_q_int(&r, 0) != 0)
		*skip = strcmp(row->kind, "SAVEPOINT") == 0 ? BUSY_SAVEPOINT :
							      BUSY_CHECKPOINT;
	return store_q_end(&r);
}

/*
 * schedule_fire_one's checkpoint slot of a RUNNING job, where the driver
 * has it in one statement: a server's, one round trip rather than five,
 * which on a large fleet's minute were the most of the firing's cost.
 */
static enum store_rc
schedule_fire_checkpoint(struct store *s, const struct schedule_row *row,
    struct schedule_fire *f, int64_t *missed)
{
	struct store_val v[] = { VAL_TEXT(row->job.s), VAL_TEXT(row->kind),
		VAL_INT(f->slot_ms), VAL_INT(row->since_ms), VAL_INT(f->missed),
		VAL_INT(f->now_ms), VAL_TEXT(f->trigger.s),
		VAL_TEXT(ckpt_type_name(CKPT_CONFIGURED)),
		VAL_TEXT(BUSY_CHECKPOINT), VAL_TEXT(SCHEDULE_CALLER) };
	int64_t moved = 0, busy = 0;
	enum store_rc rc;

	rc = store_q_one_row(s, STMT_SCHED_FIRE_CHECKPOINT, v, NVAL(v),
	    "fire schedule", "ii", &moved, &busy);
	if (rc != STORE_OK || moved == 0)
		return rc;
	*missed += f->missed;
	f->fired = busy != 0 ? 2 : 1;
	f->skipped = busy != 0 ? BUSY_CHECKPOINT : NULL;
	return STORE_OK;
}

/*
 * One slot of a batch, in the caller's transaction: the schedule moved
 * up to it only if it still stands where it was read (else another runner
 * fired it, or the rule changed: f->fired stays 0), the slot recorded,
 * and its trigger unless skipped.  Its missed slots are added to *missed,
 * for the batch to count once.
 */
static enum store_rc
schedule_fire_one(struct store *s, const struct schedule_row *row,
    struct schedule_fire *f, int64_t *missed)
{
	const char *skip = schedule_skip(row);
	struct store_val key[] = { VAL_TEXT(row->job.s), VAL_TEXT(row->kind) };
	struct store_val adv[] = { VAL_TEXT(row->job.s), VAL_TEXT(row->kind),
		VAL_INT(f->slot_ms), VAL_INT(row->since_ms),
		VAL_INT(f->missed) };
	enum store_rc rc;
	int64_t changed = 0;

	f->fired = 0;
	f->skipped = NULL;
	if (skip == NULL && strcmp(row->kind, "SAVEPOINT") != 0 &&
	    store_sql_text(s->ops->sql, STMT_SCHED_FIRE_CHECKPOINT) != NULL)
		return schedule_fire_checkpoint(s, row, f, missed);
	rc = store_q_run(s, STMT_SCHED_ADVANCE, adv, NVAL(adv), "fire schedule",
	    &changed);
	if (rc != STORE_OK || changed == 0)
		return rc;
	if (skip == NULL && (rc = schedule_busy(s, row, &skip)) != STORE_OK)
		return rc;
	{
		struct store_val slot[] = { VAL_TEXT(row->job.s),
			VAL_TEXT(row->kind), VAL_INT(f->slot_ms),
			VAL_INT(f->now_ms),
			VAL_TEXT(skip == NULL ? f->trigger.s : NULL),
			VAL_TEXT(skip) };

		if ((rc = store_q_run(s, STMT_SCHED_SLOT, slot, NVAL(slot),
			 "record slot", NULL)) != STORE_OK ||
		    (skip == NULL &&
			(rc = schedule_record(s, row, f)) != STORE_OK) ||
		    (rc = store_q_run(s, STMT_SCHED_SLOTS_PRUNE, key, NVAL(key),
			 "prune slots", NULL)) != STORE_OK)
			return rc;
	}
	*missed += f->missed;
	f->fired = skip == NULL ? 1 : 2;
	f->skipped = skip;
	return STORE_OK;
}

/* The batch's slots as not fired: its transaction did not commit. */
static void
schedule_unfire(struct schedule_fire *f, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		f[i].fired = 0;
		f[i].skipped = NULL;
	}
}

enum store_rc
store_schedule_fire(struct store *s, const struct schedule_row *const *rows,
    struct schedule_fire *f, size_t n)
{
	enum store_rc rc;
	int64_t missed = 0;
	size_t i, fired = 0;

	schedule_unfire(f, n);
	if ((rc = store_begin(s)) != STORE_OK)
		return rc;
	for (i = 0; i < n && rc == STORE_OK; i++)
		if ((rc = schedule_fire_one(s, rows[i], &f[i], &missed)) ==
			STORE_OK &&
		    f[i].fired != 0)
			fired++;
	/*
	 * The service's one row of metrics last, after every schedule's
	 * row: runners that fire the same slots lock the schedules in the
	 * one order they are listed in, then this, and never wait on each
	 * other in a cycle.
	 */
	if (rc == STORE_OK && missed > 0) {
		struct store_val v[] = { VAL_INT(missed) };

		rc = store_q_run(s, STMT_SCHED_MISSED_ADD, v, NVAL(v),
		    "count missed slots", NULL);
	}
	if (rc != STORE_OK || fired == 0) {
		store_rollback(s);
		schedule_unfire(f, n);
		return rc;
	}
	if ((rc = store_commit(s)) != STORE_OK)
		schedule_unfire(f, n);
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
