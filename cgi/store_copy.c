/*
 * A store copied whole (checkpointctl migrate): every table's rows
 * exported from one snapshot, and imported into an empty store in one
 * transaction.
 */
#include <config.h>

#include <string.h>

#include "store_impl.h"

/* --- A store copied whole --- */

/*
 * Each table's statements, its width, and how many of the export's
 * values (now_ms, store_ms) its export takes.
 */
static const struct {
	enum stmt export, import;
	int n, nv;
} row_tables[STORE_ROW__MAX] = {
	[STORE_ROW_JOB] = { STMT_EXPORT_JOBS, STMT_IMPORT_JOB, 14, 0 },
	[STORE_ROW_COUNTER] = { STMT_EXPORT_COUNTERS, STMT_IMPORT_COUNTER, 2,
	    0 },
	[STORE_ROW_STATS] = { STMT_EXPORT_STATS, STMT_IMPORT_STATS, 16, 0 },
	[STORE_ROW_SERVICE] = { STMT_EXPORT_SERVICE, STMT_IMPORT_SERVICE, 6,
	    2 },
	[STORE_ROW_TRIGGER] = { STMT_EXPORT_TRIGGERS, STMT_IMPORT_TRIGGER, 18,
	    2 },
	[STORE_ROW_HISTORY] = { STMT_EXPORT_HISTORY, STMT_IMPORT_HISTORY, 19,
	    0 },
	[STORE_ROW_SAVEPOINT] = { STMT_EXPORT_SAVEPOINTS,
	    STMT_IMPORT_SAVEPOINTS, 23, 0 },
	[STORE_ROW_DISPOSAL] = { STMT_EXPORT_DISPOSALS, STMT_IMPORT_DISPOSALS,
	    16, 0 },
	[STORE_ROW_SCHEDULE] = { STMT_EXPORT_SCHEDULES, STMT_IMPORT_SCHEDULES,
	    8, 0 },
	[STORE_ROW_SLOT] = { STMT_EXPORT_SLOTS, STMT_IMPORT_SLOTS, 6, 0 },
	[STORE_ROW_RETENTION] = { STMT_EXPORT_RETENTION, STMT_IMPORT_RETENTION,
	    6, 0 },
};

/* Every table's rows from one snapshot, until cb says stop. */
enum store_rc
store_export(struct store *s, int64_t now_ms, int64_t store_ms, store_row_cb cb,
    void *arg)
{
	struct store_val v[] = { VAL_INT(now_ms), VAL_INT(store_ms) };
	struct store_rows r;
	struct row_dump row;
	enum store_rc rc;
	int k, i, stop = 0;

	if ((rc = store_read_begin(s)) != STORE_OK)
		return rc;
	for (k = 0; k < STORE_ROW__MAX && !stop && rc == STORE_OK; k++) {
		if (store_q_query(s, &r, row_tables[k].export, v,
			row_tables[k].nv, "export") == STORE_OK)
			while (!stop && store_q_next(&r)) {
				memset(&row, 0, sizeof(row));
				row.table = (enum store_row_table)k;
				row.n = row_tables[k].n;
				for (i = 0; i < row.n; i++)
					row.v[i] = store_q_text(&r, i);
				stop = cb(&row, arg) != 0;
			}
		rc = store_q_end(&r);
	}
	/* Nothing was written: the read ends either way. */
	store_rollback(s);
	return rc;
}

/*
 * The import's one transaction, the tables locked against other writers
 * first where the dialect needs it; STORE_EXISTS: the database holds
 * something already.
 */
enum store_rc
store_import_begin(struct store *s)
{
	enum store_rc rc;
	int used = 0;

	if ((rc = store_begin(s)) != STORE_OK)
		return rc;
	if (store_sql_text(s->ops->sql, STMT_IMPORT_LOCK) != NULL)
		rc = store_q_run(s, STMT_IMPORT_LOCK, NULL, 0,
		    "lock for import", NULL);
	if (rc == STORE_OK)
		rc = store_q_one_row(s, STMT_IMPORT_EMPTY, NULL, 0, "import",
		    "b", &used);
	if (rc == STORE_NOTFOUND)
		rc = STORE_OK;
	else if (rc == STORE_OK && used)
		rc = STORE_EXISTS;
	if (rc != STORE_OK)
		store_rollback(s);
	return rc;
}

/* A row as exported, each column bound as the text it was. */
enum store_rc
store_import(struct store *s, const struct row_dump *row)
{
	struct store_val v[STORE_ROW_COLS];
	int i;

	if (row->table < 0 || row->table >= STORE_ROW__MAX ||
	    row->n != row_tables[row->table].n)
		return s->ops->fail(s, "import", "a row of another shape");
	for (i = 0; i < row->n; i++) {
		v[i].is_int = 0;
		v[i].i = 0;
		v[i].s = row->v[i];
	}
	return store_q_run(s, row_tables[row->table].import, v, row->n,
	    "import", NULL);
}

/*
 * The commit, after moving the ids' sequence past the ids copied where
 * the dialect keeps one (SQLite's next rowid follows the largest).
 */
enum store_rc
store_import_commit(struct store *s)
{
	enum store_rc rc = STORE_OK;

	if (store_sql_text(s->ops->sql, STMT_IMPORT_SEQUENCE) != NULL)
		rc = store_q_run(s, STMT_IMPORT_SEQUENCE, NULL, 0, "import",
		    NULL);
	return store_q_settle(s, rc);
}
