/*
 * The fleet's reads: the job lists a page at a time and each job's
 * health in one statement (store.h, "The fleet"), over the row helpers
 * every store file uses (store_q_*).
 */
#include <config.h>

#include <string.h>

#include "store_impl.h"

/* A column's job id; all zeros for one that is not (never stored). */
static void
fleet_id(const struct store_rows *r, int i, struct id *id)
{
	const char *v = store_q_text(r, i);

	if (v == NULL || id_parse_str(v, id) == -1)
		memset(id, 0, sizeof(*id));
}

enum store_rc
store_job_page(struct store *s, const char *after, const char *like,
    int64_t limit, store_job_cb cb, void *arg)
{
	struct store_val v[] = { VAL_TEXT(after), VAL_TEXT(like),
		VAL_INT(limit) };
	struct store_rows r;
	struct job j;

	if (store_q_query(s, &r, STMT_JOB_PAGE, v, 3, "list jobs") != STORE_OK)
		return store_q_end(&r);
	while (store_q_next(&r)) {
		memset(&j, 0, sizeof(j));
		fleet_id(&r, 0, &j.id);
		j.name = store_q_text(&r, 1);
		job_state_parse(store_q_text(&r, 2), &j.state);
		j.created_ms = store_q_int(&r, 3);
		j.updated_ms = store_q_int(&r, 4);
		if (cb(&j, arg) != 0)
			break;
	}
	return store_q_end(&r);
}

/* One row of STMT_FLEET_JOBS, in its columns' order. */
static void
fleet_row(const struct store_rows *r, struct fleet_job *j)
{
	memset(j, 0, sizeof(*j));
	fleet_id(r, 0, &j->id);
	j->name = store_q_text(r, 1);
	job_state_parse(store_q_text(r, 2), &j->state);
	j->last_completed = store_q_int(r, 3);
	j->completed_ms = store_q_int(r, 4);
	j->last_failed = store_q_int(r, 5);
	j->failed_ms = store_q_int(r, 6);
	j->queued = store_q_int(r, 7);
	j->claimed = store_q_int(r, 8);
	j->every_ms = store_q_int(r, 9);
	j->cron = store_q_text(r, 10);
	j->since_ms = store_q_int(r, 11);
	j->last_slot_ms = store_q_int(r, 12);
	j->missed = store_q_int(r, 13);
}

static enum store_rc
fleet_service(struct store *s, int64_t *pass_ms, int64_t *missed)
{
	struct store_rows r;

	*pass_ms = *missed = 0;
	if (store_q_query(s, &r, STMT_FLEET_SERVICE, NULL, 0,
		"read the runner's pass") == STORE_OK &&
	    store_q_next(&r)) {
		*pass_ms = store_q_int(&r, 0);
		*missed = store_q_int(&r, 1);
	}
	return store_q_end(&r);
}

enum store_rc
store_fleet(struct store *s, int64_t *pass_ms, int64_t *missed,
    store_fleet_cb cb, void *arg)
{
	struct store_rows r;
	struct fleet_job j;
	enum store_rc rc;

	if ((rc = store_read_begin(s)) != STORE_OK)
		return rc;
	if ((rc = fleet_service(s, pass_ms, missed)) == STORE_OK) {
		if (store_q_query(s, &r, STMT_FLEET_JOBS, NULL, 0,
			"read the fleet's health") == STORE_OK)
			while (store_q_next(&r)) {
				fleet_row(&r, &j);
				if (cb(&j, arg) != 0)
					break;
			}
		rc = store_q_end(&r);
	}
	store_rollback(s);
	return rc;
}
