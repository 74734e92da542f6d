/*
 * The SQLite store (cgi/store_sqlite.c, schema/0001-initial.sql) on temporary
 * databases: opening and migrating, refusing databases that are not ours, the
 * API's two operations with idempotency and retention (checkpoint-api(7),
 * "IDEMPOTENCY" and "RETENTION"), checkpoint ids ("CHECKPOINT IDS"), jobs,
 * listings, purging, the runner's claims, the exact JSON of the
 * trigger_status view, and migration 3 giving the failures already stored
 * their serialized-throwable.  Everything lives in one mkdtemp directory,
 * removed at the end.  The driver tests (test_any_driver), which every
 * store must pass alike, run last on a fresh SQLite file; with
 * UNIT_STORE_DB they run alone on that database instead (t6105 gives
 * them a PostgreSQL one).
 */
#include <config.h>

#include <sys/stat.h>

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "clock.h"
#include "schema.h"
#include "store.h"
#include "nomem.h"
#include "tap.h"

/* The SQLite series' length: the version a file is migrated to. */
static int
sqlite_schema_version(void)
{
	int n = 0;

	while (schema_migrations[n] != NULL)
		n++;
	return n;
}

#define J1 "11111111111111111111111111111111"
#define J2 "22222222222222222222222222222222"
#define J3 "33333333333333333333333333333333"
#define J4 "44444444444444444444444444444444"
#define J5 "55555555555555555555555555555555"
#define TA "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define TB "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define TC "cccccccccccccccccccccccccccccccc"
#define TD "dddddddddddddddddddddddddddddddd"
#define TE "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"

#define STORE_MS 300000 /* the default retention */
#define APP_ID 0x636b7074 /* "ckpt" */

#define IN_PROGRESS "{\"status\":{\"id\":\"IN_PROGRESS\"},\"operation\":null}"
#define COMPLETED(n) \
	"{\"status\":{\"id\":\"COMPLETED\"},\"operation\":{\"checkpointId\":" #n \
	"}}"

static char dir[64];

static const char *
path_in(const char *name)
{
	static char p[4][128];
	static int i;

	i = (i + 1) % 4;
	snprintf(p[i], sizeof(p[i]), "%s/%s", dir, name);
	return p[i];
}

static struct id
mkid(const char *s)
{
	struct id id;

	if (id_parse_str(s, &id) == -1)
		memset(&id, 0, sizeof(id));
	return id;
}

static enum store_rc
open_at(const char *path, struct store **s, char *err, size_t errlen)
{
	struct store_opts o = { .path = path, .busy_ms = 50, .create = 1 };

	err[0] = '\0';
	return store_open(&o, s, err, errlen);
}

/* --- Raw access beside the store, as an operator's sqlite3 shell. --- */

static int
raw_exec(const char *path, const char *sql)
{
	sqlite3 *db;
	int rc;

	if (sqlite3_open(path, &db) != SQLITE_OK) {
		sqlite3_close(db);
		return -1;
	}
	rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
	sqlite3_close(db);
	return rc == SQLITE_OK ? 0 : -1;
}

/* The first column of the first row as text ("" if none), in out. */
static const char *
raw_text(const char *path, const char *sql, char *out, size_t len)
{
	sqlite3 *db;
	sqlite3_stmt *st;

	snprintf(out, len, "(error)");
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) !=
	    SQLITE_OK) {
		sqlite3_close(db);
		return out;
	}
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			snprintf(out, len, "%s",
			    sqlite3_column_text(st, 0) ?
				(const char *)sqlite3_column_text(st, 0) :
				"NULL");
		else
			snprintf(out, len, "%s", "");
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	return out;
}

static long long
raw_int(const char *path, const char *sql)
{
	char b[64];

	return strtoll(raw_text(path, sql, b, sizeof(b)), NULL, 10);
}

/* The whole file, malloc'd; *len its size.  NULL if it cannot be read. */
static char *
slurp(const char *path, size_t *len)
{
	FILE *f;
	char *p;
	long n;

	*len = 0;
	if ((f = fopen(path, "rb")) == NULL)
		return NULL;
	if (fseek(f, 0, SEEK_END) == -1 || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) == -1 ||
	    (p = malloc((size_t)n + 1)) == NULL) {
		fclose(f);
		return NULL;
	}
	*len = fread(p, 1, (size_t)n, f);
	fclose(f);
	return p;
}

static int
same_bytes(const char *a, size_t alen, const char *b, size_t blen)
{
	return a != NULL && b != NULL && alen == blen &&
	    memcmp(a, b, alen) == 0;
}

static int
file_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* --- Runner-side helpers. --- */

/* The queue row of (job, trigger), or 0 if it is not pending unclaimed. */
static int64_t
pending_row(struct store *s, const char *job, const char *trigger)
{
	struct pending p[64];
	size_t n, i;
	int64_t after = 0, row = 0;

	do {
		if (store_pending(s, after, INT64_MAX, 64, p, &n) != STORE_OK)
			return 0;
		for (i = 0; i < n; i++) {
			if (strcmp(p[i].job.s, job) == 0 &&
			    strcmp(p[i].trigger.s, trigger) == 0)
				row = p[i].row;
			after = p[i].row;
		}
		store_pending_free(p, n);
	} while (n == 64 && row == 0);
	return row;
}

/*
 * Completes the pending (job, trigger) as the runner would: in one
 * transaction, with a new checkpoint id unless failure_class is given
 * without take_id.  Returns the store's rc; *ckpt the id consumed (or 0).
 */
static enum store_rc
complete(struct store *s, const char *job, const char *trigger, int take_id,
    const char *failure_class, const char *failure_trace, int64_t now,
    int64_t *ckpt)
{
	struct outcome o;
	struct id jid = mkid(job);
	enum store_rc rc;
	int64_t row;

	*ckpt = 0;
	memset(&o, 0, sizeof(o));
	if ((rc = store_begin(s)) != STORE_OK)
		return rc;
	if ((row = pending_row(s, job, trigger)) == 0) {
		store_rollback(s);
		return STORE_NOTFOUND;
	}
	if (take_id &&
	    (rc = store_next_checkpoint_id(s, &jid, ckpt)) != STORE_OK) {
		store_rollback(s);
		return rc;
	}
	o.checkpoint_id = *ckpt;
	o.type = CKPT_FULL;
	o.location = failure_class == NULL ? "file:///checkpoints/x" : NULL;
	o.failure_class = failure_class;
	o.failure_trace = failure_trace;
	if ((rc = store_complete(s, row, NULL, &o, now)) != STORE_OK) {
		store_rollback(s);
		return rc;
	}
	return store_commit(s);
}

static enum store_rc
record(struct store *s, const char *job, const char *trigger,
    enum ckpt_type type, int64_t now, int64_t store_ms, int *created)
{
	struct trigger_rec t;

	memset(&t, 0, sizeof(t));
	t.job = mkid(job);
	t.trigger = mkid(trigger);
	t.type = type;
	t.remote_user = "alice";
	t.remote_addr = "192.0.2.7";
	t.now_ms = now;
	t.store_ms = store_ms;
	t.max_queued = 1000;
	*created = -1;
	return store_record_trigger(s, &t, created);
}

/* The status answer, or the rc's name in angle brackets. */
static const char *
status(struct store *s, const char *job, const char *trigger, int64_t now,
    int64_t store_ms)
{
	static struct buf b;
	struct id jid = mkid(job), tid = mkid(trigger);
	enum store_rc rc;

	buf_reset(&b);
	if ((rc = store_read_status(s, &jid, &tid, now, store_ms, &b)) !=
	    STORE_OK) {
		buf_reset(&b);
		buf_printf(&b, "<%s>", store_rc_name(rc));
	}
	return buf_str(&b);
}

#define NOTFOUND "<not found>"

/* ------------------------------------------------------------------------ */

static void
test_open(void)
{
	struct store *s;
	char err[512], b[64];
	const char *db = path_in("open.db");
	long long objects;

	tap_is_int(open_at(db, &s, err, sizeof(err)), STORE_OK,
	    "open: creates a new database");
	tap_ok(s != NULL, "open: a store");
	store_close(s);
	tap_ok(file_exists(db), "open: the file exists");
	tap_is_str(raw_text(db, "PRAGMA journal_mode", b, sizeof(b)), "wal",
	    "open: WAL mode");
	tap_ok(sqlite_schema_version() >= 1, "schema version is at least 1");
	tap_is_int(raw_int(db, "PRAGMA user_version"), sqlite_schema_version(),
	    "open: user_version is the schema version");
	tap_is_int(raw_int(db, "PRAGMA application_id"), APP_ID,
	    "open: application_id marks it ours");
	tap_is_int(
	    raw_int(db,
		"SELECT count(*) FROM sqlite_schema WHERE name IN"
		" ('jobs', 'checkpoint_counters', 'triggers', 'trigger_status',"
		" 'job_overview')"),
	    5, "open: tables and views are there");
	objects = raw_int(db, "SELECT count(*) FROM sqlite_schema");

	tap_is_int(open_at(db, &s, err, sizeof(err)), STORE_OK, "reopen: OK");
	store_close(s);
	tap_is_int(open_at(db, &s, err, sizeof(err)), STORE_OK,
	    "reopen again: OK");
	store_close(s);
	tap_is_int(raw_int(db, "PRAGMA user_version"), sqlite_schema_version(),
	    "reopen: same user_version");
	tap_is_int(raw_int(db, "SELECT count(*) FROM sqlite_schema"), objects,
	    "reopen: no schema object added or lost");

	/* An empty file is a new database. */
	{
		const char *empty = path_in("empty.db");
		FILE *f = fopen(empty, "w");

		if (f != NULL)
			fclose(f);
		tap_is_int(open_at(empty, &s, err, sizeof(err)), STORE_OK,
		    "open: an empty file becomes a database");
		store_close(s);
		tap_is_int(raw_int(empty, "PRAGMA user_version"),
		    sqlite_schema_version(), "empty file: migrated");
	}

	/*
	 * The file the open makes has the mode of any new file, 0666 less
	 * the umask (SQLite alone: 0644 less it), whichever program opens;
	 * 007 is the programs' own.
	 */
	{
		static const struct {
			int line;
			mode_t mask, want;
			const char *name;
		} row[] = {
			{ __LINE__, 007, 0660, "umask007.db" },
			{ __LINE__, 022, 0644, "umask022.db" },
			{ __LINE__, 077, 0600, "umask077.db" },
		};
		struct stat sb;
		char got[8], want[8];
		mode_t old;
		size_t i;

		for (i = 0; i < sizeof(row) / sizeof(row[0]); i++) {
			old = umask(row[i].mask);
			tap_is_int_at(__FILE__, row[i].line,
			    open_at(path_in(row[i].name), &s, err, sizeof(err)),
			    STORE_OK, "open under umask %03o: OK",
			    (unsigned)row[i].mask);
			umask(old);
			store_close(s);
			/* In octal, as ls and stat show modes. */
			snprintf(got, sizeof(got), "%04o",
			    stat(path_in(row[i].name), &sb) == 0 ?
				(unsigned)(sb.st_mode & 07777) :
				0);
			snprintf(want, sizeof(want), "%04o",
			    (unsigned)row[i].want);
			tap_is_str_at(__FILE__, row[i].line, got, want,
			    "open under umask %03o: the new file is mode %s",
			    (unsigned)row[i].mask, want);
		}
	}
}

/*
 * A database the store must not touch: refused with want, and its bytes
 * unchanged (no WAL switch, no migration, no application_id).
 */
static void
check_refused(const char *what, const char *db, enum store_rc want,
    const char *err_has)
{
	struct store *s = (struct store *)&s;
	char err[512];
	char *before, *after;
	size_t blen, alen;

	before = slurp(db, &blen);
	tap_is_int(open_at(db, &s, err, sizeof(err)), want, "%s: refused as %s",
	    what, store_rc_name(want));
	tap_ok(s == NULL, "%s: no store", what);
	if (s != NULL)
		store_close(s);
	tap_ok(strstr(err, db) != NULL && strstr(err, err_has) != NULL,
	    "%s: the message names the path and says \"%s\" (%s)", what,
	    err_has, err);
	after = slurp(db, &alen);
	tap_ok(same_bytes(before, blen, after, alen),
	    "%s: the file is left untouched", what);
	free(before);
	free(after);
}

static void
test_refused(void)
{
	char b[64], sql[256];
	const char *db;
	FILE *f;
	int i;

	db = path_in("newer.db");
	snprintf(sql, sizeof(sql),
	    "PRAGMA application_id = %d;"
	    " CREATE TABLE future (x); PRAGMA user_version = 99",
	    APP_ID);
	raw_exec(db, sql);
	check_refused("user_version 99", db, STORE_NEWER, "is newer than");
	tap_is_int(raw_int(db, "PRAGMA user_version"), 99,
	    "user_version 99: still 99");
	tap_is_str(raw_text(db, "PRAGMA journal_mode", b, sizeof(b)), "delete",
	    "user_version 99: journal mode unchanged");

	/* Newer, with nothing but the version in it. */
	db = path_in("newer-empty.db");
	raw_exec(db, "PRAGMA user_version = 99");
	check_refused("bare user_version 99", db, STORE_NEWER, "is newer than");

	db = path_in("foreign.db");
	raw_exec(db,
	    "CREATE TABLE mine (a, b); INSERT INTO mine VALUES (1, 2)");
	check_refused("foreign database", db, STORE_UNAVAILABLE,
	    "not a checkpoint-api database");
	tap_is_int(raw_int(db, "SELECT count(*) FROM sqlite_schema"), 1,
	    "foreign database: only its own table");
	tap_is_int(raw_int(db, "PRAGMA application_id"), 0,
	    "foreign database: application_id still 0");
	tap_is_str(raw_text(db, "PRAGMA journal_mode", b, sizeof(b)), "delete",
	    "foreign database: journal mode unchanged");

	/* Empty, but marked as some other application's. */
	db = path_in("other-app.db");
	raw_exec(db, "PRAGMA application_id = 42");
	check_refused("other application_id", db, STORE_UNAVAILABLE,
	    "not a checkpoint-api database");

	db = path_in("text.db");
	if ((f = fopen(db, "w")) != NULL) {
		for (i = 0; i < 200; i++)
			fputs("this is not a database\n", f);
		fclose(f);
	}
	check_refused("not a database", db, STORE_UNAVAILABLE, db);

	{
		struct store *s;
		char err[512];

		tap_is_int(open_at(path_in("no/such/dir/x.db"), &s, err,
			       sizeof(err)),
		    STORE_UNAVAILABLE, "missing directory: STORE_UNAVAILABLE");
		tap_ok(s == NULL && err[0] != '\0',
		    "missing directory: no store, a message (%s)", err);
	}
}

static void
test_triggers(struct store *s)
{
	struct buf b = { 0 };
	struct id j = mkid(J1), t = mkid(TE);
	int created;
	int64_t t0 = 1700000000000LL, ck;

	tap_is_int(record(s, J1, TA, CKPT_FULL, t0, STORE_MS, &created),
	    STORE_OK, "record: OK");
	tap_is_int(created, 1, "record: created");
	tap_is_int(record(s, J1, TA, CKPT_INCREMENTAL, t0 + 1, STORE_MS,
		       &created),
	    STORE_OK, "record again: OK");
	tap_is_int(created, 0, "record again: not created");
	tap_is_str(status(s, J1, TA, t0 + 2, STORE_MS), IN_PROGRESS,
	    "status: IN_PROGRESS, exact JSON");
	tap_is_str(raw_text(path_in("main.db"),
		       "SELECT requested_type FROM"
		       " triggers WHERE trigger_id = '" TA "'",
		       (char[32]){ 0 }, 32),
	    "FULL", "record again: the first request's type is kept");

	/* The same trigger id on another job is another trigger. */
	tap_is_int(record(s, J2, TA, CKPT_FULL, t0, STORE_MS, &created),
	    STORE_OK, "same trigger, other job: OK");
	tap_is_int(created, 1, "same trigger, other job: created");

	tap_is_str(status(s, J1, TB, t0, STORE_MS), NOTFOUND,
	    "status: unknown trigger");
	tap_is_str(status(s, J3, TA, t0, STORE_MS), NOTFOUND,
	    "status: known trigger, other job");
	/* NOTFOUND leaves the caller's buffer alone. */
	buf_adds(&b, "keep");
	tap_is_int(store_read_status(s, &j, &t, t0, STORE_MS, &b),
	    STORE_NOTFOUND, "status: STORE_NOTFOUND");
	tap_is_str(buf_str(&b), "keep", "status: NOTFOUND appends nothing");
	buf_free(&b);

	/* Retention, counted from completion (checkpoint-api(7), "RETENTION"). */
	tap_is_int(complete(s, J1, TA, 1, NULL, NULL, t0 + 1000, &ck), STORE_OK,
	    "complete: OK");
	tap_is_int(ck, 1, "complete: the job's first checkpoint id");
	tap_is_str(status(s, J1, TA, t0 + 1000, STORE_MS), COMPLETED(1),
	    "status: COMPLETED, exact JSON");
	tap_is_str(status(s, J1, TA, t0 + 1000 + STORE_MS - 1, STORE_MS),
	    COMPLETED(1), "status: still there 1 ms before expiry");
	tap_is_str(status(s, J1, TA, t0 + 1000 + STORE_MS, STORE_MS), NOTFOUND,
	    "status: expired at exactly store_ms");
	tap_is_str(status(s, J1, TA, t0 + 1000 + 100LL * 365 * 86400000, 0),
	    COMPLETED(1), "status: store_ms 0 keeps it forever");
	tap_is_str(status(s, J2, TA, t0 + 100LL * 365 * 86400000, 1),
	    IN_PROGRESS, "status: a running trigger never expires");

	/* Re-POST: live is left alone, expired starts afresh. */
	tap_is_int(record(s, J1, TA, CKPT_FULL, t0 + 1000 + STORE_MS - 1,
		       STORE_MS, &created),
	    STORE_OK, "record on a live result: OK");
	tap_is_int(created, 0, "record on a live result: not created");
	tap_is_str(status(s, J1, TA, t0 + 1000, STORE_MS), COMPLETED(1),
	    "record on a live result: result unchanged");
	tap_is_int(record(s, J1, TA, CKPT_FULL,
		       t0 + 1000 + 100LL * 365 * 86400000, 0, &created),
	    STORE_OK, "record with store_ms 0: OK");
	tap_is_int(created, 0, "record with store_ms 0: never expired");
	tap_is_int(record(s, J1, TA, CKPT_INCREMENTAL, t0 + 1000 + STORE_MS,
		       STORE_MS, &created),
	    STORE_OK, "record on an expired result: OK");
	tap_is_int(created, 1, "record on an expired result: created");
	tap_is_str(status(s, J1, TA, t0 + 1000 + STORE_MS, STORE_MS),
	    IN_PROGRESS, "record on an expired result: IN_PROGRESS again");
	tap_is_str(
	    raw_text(path_in("main.db"),
		"SELECT requested_type ||"
		" coalesce(checkpoint_id, '-') || coalesce(completed_ms, '-')"
		" FROM triggers WHERE job_id = '" J1 "' AND trigger_id = '" TA
		"'",
		(char[64]){ 0 }, 64),
	    "INCREMENTAL--",
	    "record on an expired result: old outcome cleared");
	tap_is_int(complete(s, J1, TA, 1, NULL, NULL, t0 + 2000 + STORE_MS,
		       &ck),
	    STORE_OK, "complete again: OK");
	tap_is_int(ck, 2, "complete again: a new, higher checkpoint id");
	tap_is_str(status(s, J1, TA, t0 + 2000 + STORE_MS, STORE_MS),
	    COMPLETED(2), "complete again: the new id");
}

static void
test_checkpoint_ids(struct store *s)
{
	struct id j3 = mkid(J3), j4 = mkid(J4);
	struct job job;
	int64_t id;
	int i;

	for (i = 1; i <= 3; i++) {
		id = -1;
		tap_is_int(store_next_checkpoint_id(s, &j3, &id), STORE_OK,
		    "next id %d: OK", i);
		tap_is_int(id, i, "next id for J3: %d", i);
	}
	id = -1;
	store_next_checkpoint_id(s, &j4, &id);
	tap_is_int(id, 1, "next id for J4: its own 1");
	store_next_checkpoint_id(s, &j3, &id);
	tap_is_int(id, 4, "next id for J3: 4");

	/* Removing and re-adding the job never reuses an id. */
	memset(&job, 0, sizeof(job));
	job.id = j3;
	job.type = CKPT_FULL;
	job.timeout_s = 60;
	tap_is_int(store_job_add(s, &job, 1), STORE_OK, "ids: add J3");
	tap_is_int(store_job_rm(s, &j3), STORE_OK, "ids: remove J3");
	tap_is_int(store_job_add(s, &job, 2), STORE_OK, "ids: add J3 again");
	store_next_checkpoint_id(s, &j3, &id);
	tap_is_int(id, 5, "next id for J3 after rm and add: 5");
	tap_is_int(store_job_rm(s, &j3), STORE_OK, "ids: remove J3 again");
}

struct job_seen {
	int n;
	char ids[8][33];
	char names[8][32];
	int state[8], type[8];
	char command[8][32];
	int64_t timeout[8], last[8], pending[8];
	int stop_after;
};

static int
job_cb(const struct job *j, void *arg)
{
	struct job_seen *w = arg;

	if (w->n < 8) {
		snprintf(w->ids[w->n], sizeof(w->ids[0]), "%s", j->id.s);
		snprintf(w->names[w->n], sizeof(w->names[0]), "%s", j->name);
		snprintf(w->command[w->n], sizeof(w->command[0]), "%s",
		    j->command ? j->command : "NULL");
		w->state[w->n] = j->state;
		w->type[w->n] = j->type;
		w->timeout[w->n] = j->timeout_s;
		w->last[w->n] = j->last_checkpoint_id;
		w->pending[w->n] = j->pending;
	}
	w->n++;
	return w->stop_after > 0 && w->n >= w->stop_after;
}

static void
test_jobs(struct store *s)
{
	struct job j;
	struct job_seen w;
	struct id j5 = mkid(J5), j4 = mkid(J4), j2 = mkid(J2);
	int created;

	memset(&j, 0, sizeof(j));
	j.id = j5;
	j.name = "orders";
	j.state = JOB_RUNNING;
	j.type = CKPT_INCREMENTAL;
	j.command = "/usr/local/bin/ckpt";
	j.timeout_s = 120;
	tap_is_int(store_job_add(s, &j, 10), STORE_OK, "job add: OK");
	tap_is_int(store_job_add(s, &j, 11), STORE_EXISTS,
	    "job add twice: STORE_EXISTS");
	tap_is_int(store_job_known(s, &j5), STORE_OK, "job known: J5");
	tap_is_int(store_job_known(s, &j4), STORE_NOTFOUND,
	    "job known: J4 is not registered (only has ids)");

	j.id = j4;
	j.name = NULL;
	j.command = NULL;
	j.type = CKPT_FULL;
	j.timeout_s = 600;
	tap_is_int(store_job_add(s, &j, 12), STORE_OK,
	    "job add without name or command: OK");

	/* A value the schema refuses is not "already exists". */
	j.id = j2;
	j.timeout_s = 0;
	tap_is_int(store_job_add(s, &j, 13), STORE_ERROR,
	    "job add with timeout 0: STORE_ERROR, not STORE_EXISTS");
	tap_is_int(store_job_known(s, &j2), STORE_NOTFOUND,
	    "job add with timeout 0: nothing added");

	/* Set changes only the fields named. */
	memset(&j, 0, sizeof(j));
	j.id = j5;
	j.name = "orders-v2";
	j.state = JOB_CANCELED;
	j.type = CKPT_FULL;
	j.command = "/bin/false";
	j.timeout_s = 5;
	tap_is_int(store_job_set(s, &j, JOB_SET_NAME | JOB_SET_STATE, 20),
	    STORE_OK, "job set name and state: OK");
	j.id = mkid(J3);
	tap_is_int(store_job_set(s, &j, JOB_SET_NAME, 21), STORE_NOTFOUND,
	    "job set unknown: STORE_NOTFOUND");
	tap_is_int(store_job_rm(s, &j.id), STORE_NOTFOUND,
	    "job rm unknown: STORE_NOTFOUND");

	/* J4 has the checkpoint id 1 and J5 one pending trigger. */
	record(s, J5, TA, CKPT_CONFIGURED, 30, STORE_MS, &created);
	memset(&w, 0, sizeof(w));
	tap_is_int(store_job_list(s, job_cb, &w), STORE_OK, "job list: OK");
	tap_is_int(w.n, 2, "job list: two jobs");
	tap_is_str(w.ids[0], J4, "job list: J4 first (by id)");
	tap_is_str(w.names[0], "", "job list: J4 has an empty name");
	tap_is_str(w.command[0], "NULL", "job list: J4 has no command");
	tap_is_int(w.type[0], CKPT_FULL, "job list: J4 FULL");
	tap_is_int(w.timeout[0], 600, "job list: J4 timeout");
	tap_is_int(w.last[0], 1, "job list: J4 last checkpoint id");
	tap_is_int(w.pending[0], 0, "job list: J4 nothing pending");
	tap_is_str(w.ids[1], J5, "job list: J5 second");
	tap_is_str(w.names[1], "orders-v2", "job list: J5 name set");
	tap_is_int(w.state[1], JOB_CANCELED, "job list: J5 state set");
	tap_is_int(w.type[1], CKPT_INCREMENTAL, "job list: J5 type kept");
	tap_is_str(w.command[1], "/usr/local/bin/ckpt",
	    "job list: J5 command kept");
	tap_is_int(w.timeout[1], 120, "job list: J5 timeout kept");
	tap_is_int(w.last[1], 0, "job list: J5 no checkpoint yet");
	tap_is_int(w.pending[1], 1, "job list: J5 one pending");

	/* Set each remaining field, including clearing the command. */
	j.id = j5;
	j.command = NULL;
	tap_is_int(store_job_set(s, &j,
		       JOB_SET_TYPE | JOB_SET_COMMAND | JOB_SET_TIMEOUT, 22),
	    STORE_OK, "job set type, command, timeout");
	memset(&w, 0, sizeof(w));
	store_job_list(s, job_cb, &w);
	tap_is_int(w.type[1], CKPT_FULL, "job set: type");
	tap_is_str(w.command[1], "NULL", "job set: command cleared");
	tap_is_int(w.timeout[1], 5, "job set: timeout");
	tap_is_str(w.names[1], "orders-v2", "job set: name untouched");

	memset(&w, 0, sizeof(w));
	w.stop_after = 1;
	tap_is_int(store_job_list(s, job_cb, &w), STORE_OK,
	    "job list stopped by the callback: OK");
	tap_is_int(w.n, 1, "job list stopped by the callback: one row");

	tap_is_int(store_job_rm(s, &j4), STORE_OK, "job rm J4");
	tap_is_int(store_job_known(s, &j4), STORE_NOTFOUND, "job rm J4: gone");
	memset(&w, 0, sizeof(w));
	store_job_list(s, job_cb, &w);
	tap_is_int(w.n, 1, "job list after rm: one job");
}

struct trig_seen {
	int n;
	char trig[8][33];
	char job[8][33];
	char desc[8][200];
};

static int
trig_cb(const struct trigger_row *t, void *arg)
{
	struct trig_seen *w = arg;

	if (w->n < 8) {
		snprintf(w->trig[w->n], sizeof(w->trig[0]), "%s", t->trigger.s);
		snprintf(w->job[w->n], sizeof(w->job[0]), "%s", t->job.s);
		snprintf(w->desc[w->n], sizeof(w->desc[0]),
		    "%s %s %s %lld %s %s %s %s %s %lld %lld", t->status,
		    t->requested_type, t->type ? t->type : "NULL",
		    (long long)t->checkpoint_id,
		    t->location ? t->location : "NULL",
		    t->failure_class ? t->failure_class : "NULL",
		    t->claimed_by ? t->claimed_by : "NULL",
		    t->remote_user ? t->remote_user : "NULL",
		    t->remote_addr ? t->remote_addr : "NULL",
		    (long long)t->created_ms, (long long)t->completed_ms);
	}
	w->n++;
	return 0;
}

static void
test_trigger_list(struct store *s)
{
	struct trig_seen w;
	struct id j = mkid(J3);
	int created;
	int64_t ck;

	record(s, J3, TC, CKPT_FULL, 100, STORE_MS, &created);
	record(s, J3, TA, CKPT_INCREMENTAL, 101, STORE_MS, &created);
	record(s, J3, TB, CKPT_CONFIGURED, 102, STORE_MS, &created);
	complete(s, J3, TA, 1, NULL, NULL, 200, &ck);

	memset(&w, 0, sizeof(w));
	tap_is_int(store_trigger_list(s, &j, 10, trig_cb, &w), STORE_OK,
	    "trigger list J3: OK");
	tap_is_int(w.n, 3, "trigger list J3: three");
	tap_is_str(w.trig[0], TB, "trigger list J3: newest first");
	tap_is_str(w.trig[1], TA, "trigger list J3: then the middle one");
	tap_is_str(w.trig[2], TC, "trigger list J3: oldest last");
	tap_is_str(w.desc[0],
	    "IN_PROGRESS CONFIGURED NULL 0 NULL NULL NULL "
	    "alice 192.0.2.7 102 0",
	    "trigger list: a pending row");
	tap_is_str(w.desc[1],
	    "COMPLETED INCREMENTAL FULL 6 "
	    "file:///checkpoints/x NULL NULL alice 192.0.2.7 101 200",
	    "trigger list: a completed row");

	memset(&w, 0, sizeof(w));
	store_trigger_list(s, &j, 2, trig_cb, &w);
	tap_is_int(w.n, 2, "trigger list J3 limit 2: two");
	tap_is_str(w.trig[1], TA, "trigger list J3 limit 2: the newest two");

	memset(&w, 0, sizeof(w));
	store_trigger_list(s, NULL, 1, trig_cb, &w);
	tap_is_int(w.n, 1, "trigger list all, limit 1: one");
	tap_is_str(w.job[0], J3, "trigger list all, limit 1: the newest job");
	tap_is_str(w.trig[0], TB, "trigger list all, limit 1: newest trigger");

	memset(&w, 0, sizeof(w));
	store_trigger_list(s, NULL, 100, trig_cb, &w);
	/* test_triggers started J1's TA afresh once its result expired:
	 * the checkpoint it had taken is listed from the history. */
	tap_is_int(w.n, 7,
	    "trigger list all: every trigger, and a checkpoint of the history");
}

struct claim_seen {
	int n;
	struct claim c;
};

static int
claimed_cb(const struct claim *c, void *arg)
{
	struct claim_seen *w = arg;

	if (w->n++ == 0)
		w->c = *c;
	return 0;
}

/* The runner's claim: only its owner may complete it. */
static void
test_claims(struct store *s)
{
	struct outcome o;
	struct pending p[16];
	struct id j = mkid(J2);
	struct claim_seen seen;
	size_t n, i;
	int64_t row, ck = 0;
	int created, busy = -1;

	record(s, J2, TC, CKPT_INCREMENTAL, 500, STORE_MS, &created);
	record(s, J2, TD, CKPT_FULL, 501, STORE_MS, &created);
	store_begin(s);
	row = pending_row(s, J2, TC);
	store_next_checkpoint_id(s, &j, &ck);
	tap_is_int(store_claim(s, row, "runner-a:123", ck, CKPT_INCREMENTAL,
		       600, 900),
	    STORE_OK, "claim: OK");
	tap_is_int(store_commit(s), STORE_OK, "claim: committed");
	tap_is_int(store_claim(s, row, "runner-b:456", ck + 1, CKPT_FULL, 601,
		       901),
	    STORE_NOTFOUND, "claim a claimed trigger: STORE_NOTFOUND");

	/* Claimed rows leave the queue; the job's others show it is busy. */
	store_begin(s);
	store_pending(s, 0, INT64_MAX, 16, p, &n);
	store_commit(s);
	for (i = 0; i < n && p[i].row != row; i++)
		;
	tap_ok(i == n, "claim: the claimed trigger is no longer pending");
	for (i = 0; i < n && strcmp(p[i].trigger.s, TD) != 0; i++)
		;
	tap_ok(i < n && p[i].job_busy == 1,
	    "claim: another trigger of the job is marked busy");
	tap_ok(i < n && p[i].requested == CKPT_FULL && p[i].job_known == 0,
	    "pending: requested type and unregistered job");
	store_pending_free(p, n);

	memset(&seen, 0, sizeof(seen));
	tap_is_int(store_claimed(s, claimed_cb, &seen), STORE_OK,
	    "claimed: OK");
	tap_is_int(seen.n, 1, "claimed: one claim");
	tap_is_int(seen.c.row, row, "claimed: its row");
	tap_is_str(seen.c.owner, "runner-a:123", "claimed: its owner");
	tap_is_str(seen.c.job.s, J2, "claimed: its job");
	tap_is_str(seen.c.trigger.s, TC, "claimed: its trigger");
	tap_is_int(seen.c.lease_ms, 900, "claimed: its lease");
	tap_is_int(seen.c.checkpoint_id, ck, "claimed: its checkpoint id");
	tap_is_int(seen.c.type, CKPT_INCREMENTAL, "claimed: its type");
	tap_is_str(status(s, J2, TC, 700, STORE_MS), IN_PROGRESS,
	    "claimed: still IN_PROGRESS to the API");

	/* Renewing a lease: only the claim's owner, while it is pending. */
	tap_is_int(store_claim_renew(s, row, "runner-b:456", 700, 1900),
	    STORE_NOTFOUND, "renew another's claim: STORE_NOTFOUND");
	tap_is_int(store_claim_renew(s, row + 1000, "runner-a:123", 700, 1900),
	    STORE_NOTFOUND, "renew no claim: STORE_NOTFOUND");
	memset(&seen, 0, sizeof(seen));
	store_claimed(s, claimed_cb, &seen);
	tap_is_int(seen.c.lease_ms, 900, "not renewed: the lease unchanged");
	tap_is_int(store_claim_renew(s, row, "runner-a:123", 700, 1900),
	    STORE_OK, "renew its own claim: OK");
	memset(&seen, 0, sizeof(seen));
	store_claimed(s, claimed_cb, &seen);
	tap_is_int(seen.c.lease_ms, 1900, "renewed: the new lease");
	tap_is_int(seen.c.checkpoint_id, ck, "renewed: the same checkpoint id");
	tap_is_str(seen.c.owner, "runner-a:123", "renewed: the same owner");

	memset(&o, 0, sizeof(o));
	o.location = "s3://b/chk-1";
	tap_is_int(store_complete(s, row, "runner-b:456", &o, 800),
	    STORE_NOTFOUND, "complete with the wrong owner: STORE_NOTFOUND");
	tap_is_int(store_complete(s, row, NULL, &o, 800), STORE_NOTFOUND,
	    "complete a claimed trigger as unclaimed: STORE_NOTFOUND");
	tap_is_str(status(s, J2, TC, 800, STORE_MS), IN_PROGRESS,
	    "wrong owner: nothing changed");
	tap_is_int(store_complete(s, row, "runner-a:123", &o, 800), STORE_OK,
	    "complete with the right owner: OK");
	tap_is_str(status(s, J2, TC, 800, STORE_MS),
	    "{\"status\":{\"id\":\"COMPLETED\"},\"operation\":{\"checkpointId\":"
	    "1}}",
	    "right owner: the claimed checkpoint id is kept");
	tap_is_int(store_complete(s, row, "runner-a:123", &o, 801),
	    STORE_NOTFOUND, "complete twice: STORE_NOTFOUND");
	memset(&seen, 0, sizeof(seen));
	store_claimed(s, claimed_cb, &seen);
	tap_is_int(seen.n, 0, "claimed: none left");
	tap_is_int(store_claim_renew(s, row, "runner-a:123", 801, 1901),
	    STORE_NOTFOUND, "renew a completed trigger: STORE_NOTFOUND");

	tap_is_int(store_wal_checkpoint(s, &busy), STORE_OK,
	    "wal checkpoint: OK");
	tap_is_int(busy, 0, "wal checkpoint: not busy");
}

/*
 * How every failure's serialized-throwable begins: the base64 of the first
 * 378 bytes of its stream, SerializedThrowable's class descriptors
 * (tests/unit-throwable.c has them byte for byte).
 */
#define THROWABLE_HEAD \
	"rO0ABXNyAClvcmcuYXBhY2hlLmZsaW5rLnV0aWwuU2VyaWFsaXplZFRocm93YWJs" \
	"ZWUWnfUfpxPzAgADTAAZZnVsbFN0cmluZ2lmaWVkU3RhY2tUcmFjZXQAEkxqYXZh" \
	"L2xhbmcvU3RyaW5nO0wAFm9yaWdpbmFsRXJyb3JDbGFzc05hbWVxAH4AAVsAE3Nl" \
	"cmlhbGl6ZWRFeGNlcHRpb250AAJbQnhyABNqYXZhLmxhbmcuRXhjZXB0aW9u0P0f" \
	"Pho7HMQCAAB4cgATamF2YS5sYW5nLlRocm93YWJsZdXGNSc5d7jLAwAETAAFY2F1" \
	"c2V0ABVMamF2YS9sYW5nL1Rocm93YWJsZTtMAA1kZXRhaWxNZXNzYWdlcQB+AAFb" \
	"AApzdGFja1RyYWNldAAeW0xqYXZhL2xhbmcvU3RhY2tUcmFjZUVsZW1lbnQ7TAAU" \
	"c3VwcHJlc3NlZEV4Y2VwdGlvbnN0ABBMamF2YS91dGlsL0xpc3Q7eHBw"
/*
 * That of class java.util.concurrent.CompletionException, trace "x":
 * detailMessage "java.util.concurrent.CompletionException: x", and as
 * serializedException the CompletionException with the message "x"
 * (throwable.c; Flink 1.20.5's and 2.3.0's classes read these bytes, and
 * a JDK writes the object back as the same).
 */
#define THROWABLE_X \
	THROWABLE_HEAD \
	"dAAramF2YS51dGlsLmNvbmN1cnJlbnQuQ29tcGxldGlvbkV4Y2VwdGlvbjogeHVy" \
	"AB5bTGphdmEubGFuZy5TdGFja1RyYWNlRWxlbWVudDsCRio8PP0iOQIAAHhwAAAA" \
	"AHNyAB9qYXZhLnV0aWwuQ29sbGVjdGlvbnMkRW1wdHlMaXN0ergXtDynnt4CAAB4" \
	"cHh0AAF4dAAoamF2YS51dGlsLmNvbmN1cnJlbnQuQ29tcGxldGlvbkV4Y2VwdGlv" \
	"bnVyAAJbQqzzF/gGCFTgAgAAeHAAAAGwrO0ABXNyAChqYXZhLnV0aWwuY29uY3Vy" \
	"cmVudC5Db21wbGV0aW9uRXhjZXB0aW9ubKqxc7+04GkCAAB4cgAaamF2YS5sYW5n" \
	"LlJ1bnRpbWVFeGNlcHRpb26eXwZHCjSD5QIAAHhyABNqYXZhLmxhbmcuRXhjZXB0" \
	"aW9u0P0fPho7HMQCAAB4cgATamF2YS5sYW5nLlRocm93YWJsZdXGNSc5d7jLAwAE" \
	"TAAFY2F1c2V0ABVMamF2YS9sYW5nL1Rocm93YWJsZTtMAA1kZXRhaWxNZXNzYWdl" \
	"dAASTGphdmEvbGFuZy9TdHJpbmc7WwAKc3RhY2tUcmFjZXQAHltMamF2YS9sYW5n" \
	"L1N0YWNrVHJhY2VFbGVtZW50O0wAFHN1cHByZXNzZWRFeGNlcHRpb25zdAAQTGph" \
	"dmEvdXRpbC9MaXN0O3hwcHQAAXh1cgAeW0xqYXZhLmxhbmcuU3RhY2tUcmFjZUVs" \
	"ZW1lbnQ7AkYqPDz9IjkCAAB4cAAAAABzcgAfamF2YS51dGlsLkNvbGxlY3Rpb25z" \
	"JEVtcHR5TGlzdHq4F7Q8p57eAgAAeHB4"
#define FAILED_X \
	"{\"status\":{\"id\":\"COMPLETED\"},\"operation\":{\"failureCause\":" \
	"{\"class\":\"java.util.concurrent.CompletionException\"," \
	"\"stack-trace\":\"x\",\"serialized-throwable\":\"" THROWABLE_X \
	"\"}}}"

static void
test_failure_json(struct store *s)
{
	int created;
	int64_t ck;

	record(s, J1, TD, CKPT_FULL, 1000, STORE_MS, &created);
	tap_is_int(
	    complete(s, J1, TD, 0,
		"org.apache.flink.runtime.checkpoint.CheckpointException",
		"org.apache.flink.runtime.checkpoint.CheckpointException: "
		"Checkpoint was declined.\n\tat \"stage\" C:\\tmp\x01 \xc3\xa9/",
		2000, &ck),
	    STORE_OK, "complete as failed: OK");
	tap_is_str(status(s, J1, TD, 2000, STORE_MS),
	    "{\"status\":{\"id\":\"COMPLETED\"},\"operation\":{\"failureCause\":"
	    "{\"class\":\"org.apache.flink.runtime.checkpoint."
	    "CheckpointException\",\"stack-trace\":\"org.apache.flink.runtime."
	    "checkpoint.CheckpointException: Checkpoint was declined.\\n\\tat "
	    "\\\"stage\\\" C:\\\\tmp\\u0001 \xc3\xa9/\","
	    "\"serialized-throwable\":\"" THROWABLE_HEAD
	    "dABRb3JnLmFwYWNoZS5mbGluay5ydW50aW1lLmNoZWNrcG9pbnQuQ2hlY2twb2lu"
	    "dEV4Y2VwdGlvbjogQ2hlY2twb2ludCB3YXMgZGVjbGluZWQudXIAHltMamF2YS5s"
	    "YW5nLlN0YWNrVHJhY2VFbGVtZW50OwJGKjw8/SI5AgAAeHAAAAAAc3IAH2phdmEu"
	    "dXRpbC5Db2xsZWN0aW9ucyRFbXB0eUxpc3R6uBe0PKee3gIAAHhweHQAaW9yZy5h"
	    "cGFjaGUuZmxpbmsucnVudGltZS5jaGVja3BvaW50LkNoZWNrcG9pbnRFeGNlcHRp"
	    "b246IENoZWNrcG9pbnQgd2FzIGRlY2xpbmVkLgoJYXQgInN0YWdlIiBDOlx0bXAB"
	    "IMOpL3QAN29yZy5hcGFjaGUuZmxpbmsucnVudGltZS5jaGVja3BvaW50LkNoZWNr"
	    "cG9pbnRFeGNlcHRpb251cgACW0Ks8xf4BghU4AIAAHhwAAAChqztAAVzcgA3b3Jn"
	    "LmFwYWNoZS5mbGluay5ydW50aW1lLmNoZWNrcG9pbnQuQ2hlY2twb2ludEV4Y2Vw"
	    "dGlvbi01Dr8C5GWkAgABTAAXY2hlY2twb2ludEZhaWx1cmVSZWFzb250AD1Mb3Jn"
	    "L2FwYWNoZS9mbGluay9ydW50aW1lL2NoZWNrcG9pbnQvQ2hlY2twb2ludEZhaWx1"
	    "cmVSZWFzb247eHIAE2phdmEubGFuZy5FeGNlcHRpb27Q/R8+GjscxAIAAHhyABNq"
	    "YXZhLmxhbmcuVGhyb3dhYmxl1cY1Jzl3uMsDAARMAAVjYXVzZXQAFUxqYXZhL2xh"
	    "bmcvVGhyb3dhYmxlO0wADWRldGFpbE1lc3NhZ2V0ABJMamF2YS9sYW5nL1N0cmlu"
	    "ZztbAApzdGFja1RyYWNldAAeW0xqYXZhL2xhbmcvU3RhY2tUcmFjZUVsZW1lbnQ7"
	    "TAAUc3VwcHJlc3NlZEV4Y2VwdGlvbnN0ABBMamF2YS91dGlsL0xpc3Q7eHBwdAAY"
	    "Q2hlY2twb2ludCB3YXMgZGVjbGluZWQudXIAHltMamF2YS5sYW5nLlN0YWNrVHJh"
	    "Y2VFbGVtZW50OwJGKjw8/SI5AgAAeHAAAAAAc3IAH2phdmEudXRpbC5Db2xsZWN0"
	    "aW9ucyRFbXB0eUxpc3R6uBe0PKee3gIAAHhweH5yADtvcmcuYXBhY2hlLmZsaW5r"
	    "LnJ1bnRpbWUuY2hlY2twb2ludC5DaGVja3BvaW50RmFpbHVyZVJlYXNvbgAAAAAA"
	    "AAAAEgAAeHIADmphdmEubGFuZy5FbnVtAAAAAAAAAAASAAB4cHQAE0NIRUNLUE9J"
	    "TlRfREVDTElORUQ="
	    "\"}}}",
	    "failure: exact JSON, escaped");

	/* A failed attempt that consumed an id still shows the failure. */
	record(s, J1, TC, CKPT_FULL, 3000, STORE_MS, &created);
	tap_is_int(complete(s, J1, TC, 1,
		       "java.util.concurrent.CompletionException", "x", 4000,
		       &ck),
	    STORE_OK, "complete as failed with an id: OK");
	tap_is_str(status(s, J1, TC, 4000, STORE_MS), FAILED_X,
	    "failure with an id: failureCause");
	tap_is_int(raw_int(path_in("main.db"),
		       "SELECT checkpoint_id FROM"
		       " triggers WHERE job_id = '" J1 "' AND trigger_id = '" TC
		       "'"),
	    ck, "failure with an id: the id is recorded");
	tap_ok(ck > 0, "failure with an id: an id was consumed");

	/* A NULL trace with a class is stored as "". */
	record(s, J1, TB, CKPT_FULL, 5000, STORE_MS, &created);
	complete(s, J1, TB, 0, "java.lang.Exception", NULL, 6000, &ck);
	tap_is_str(status(s, J1, TB, 6000, STORE_MS),
	    "{\"status\":{\"id\":\"COMPLETED\"},\"operation\":{\"failureCause\":"
	    "{\"class\":\"java.lang.Exception\",\"stack-trace\":\"\","
	    "\"serialized-throwable\":\"" THROWABLE_HEAD
	    "dAATamF2YS5sYW5nLkV4Y2VwdGlvbnVyAB5bTGphdmEubGFuZy5TdGFja1RyYWNl"
	    "RWxlbWVudDsCRio8PP0iOQIAAHhwAAAAAHNyAB9qYXZhLnV0aWwuQ29sbGVjdGlv"
	    "bnMkRW1wdHlMaXN0ergXtDynnt4CAAB4cHh0AAB0ABNqYXZhLmxhbmcuRXhjZXB0"
	    "aW9udXIAAltCrPMX+AYIVOACAAB4cAAAAU2s7QAFc3IAE2phdmEubGFuZy5FeGNl"
	    "cHRpb27Q/R8+GjscxAIAAHhyABNqYXZhLmxhbmcuVGhyb3dhYmxl1cY1Jzl3uMsD"
	    "AARMAAVjYXVzZXQAFUxqYXZhL2xhbmcvVGhyb3dhYmxlO0wADWRldGFpbE1lc3Nh"
	    "Z2V0ABJMamF2YS9sYW5nL1N0cmluZztbAApzdGFja1RyYWNldAAeW0xqYXZhL2xh"
	    "bmcvU3RhY2tUcmFjZUVsZW1lbnQ7TAAUc3VwcHJlc3NlZEV4Y2VwdGlvbnN0ABBM"
	    "amF2YS91dGlsL0xpc3Q7eHBwcHVyAB5bTGphdmEubGFuZy5TdGFja1RyYWNlRWxl"
	    "bWVudDsCRio8PP0iOQIAAHhwAAAAAHNyAB9qYXZhLnV0aWwuQ29sbGVjdGlvbnMk"
	    "RW1wdHlMaXN0ergXtDynnt4CAAB4cHg="
	    "\"}}}",
	    "failure with no trace: empty stack-trace");
}

/*
 * Migration 3 on a database of version 2: the failures already there get
 * their serialized-throwable from their class and trace, the same as the
 * runner now stores; other rows none.  Afterwards a failure without one is
 * refused, and the view answers in a connection that lacks the C function
 * (as the sqlite3 shell does).
 */
static void
test_migrate_failures(void)
{
	const char *db = path_in("v2.db");
	struct store *s;
	char sql[16384], got[4096], err[512];

	snprintf(sql, sizeof(sql),
	    "%s%sPRAGMA application_id = %d; PRAGMA user_version = 2;",
	    schema_migrations[0], schema_migrations[1], APP_ID);
	tap_ok(raw_exec(db, sql) == 0 &&
		raw_exec(db,
		    "INSERT INTO triggers (job_id, trigger_id, requested_type,"
		    " status, checkpoint_id, failure_class, failure_trace,"
		    " created_ms, completed_ms) VALUES"
		    " ('" J1 "', '" TA "', 'FULL', 'COMPLETED', NULL,"
		    "  'java.util.concurrent.CompletionException', 'x', 1, 2),"
		    " ('" J1 "', '" TB "', 'FULL', 'COMPLETED', 7, NULL, NULL,"
		    "  3, 4),"
		    " ('" J1 "', '" TC "', 'FULL', 'IN_PROGRESS', NULL, NULL,"
		    "  NULL, 5, NULL)") == 0,
	    "version 2: a failure, a success, a pending trigger");
	tap_is_int(open_at(db, &s, err, sizeof(err)), STORE_OK,
	    "version 2: opened and migrated");
	store_close(s);
	tap_is_int(raw_int(db, "PRAGMA user_version"), sqlite_schema_version(),
	    "version 2: now the schema version");
	tap_is_str(raw_text(db,
		       "SELECT failure_throwable FROM triggers"
		       " WHERE trigger_id = '" TA "'",
		       got, sizeof(got)),
	    THROWABLE_X, "version 2: the failure's serialized-throwable");
	tap_is_str(
	    raw_text(db,
		"SELECT group_concat(coalesce(failure_throwable, 'NULL'))"
		" FROM triggers WHERE trigger_id != '" TA "'",
		got, sizeof(got)),
	    "NULL,NULL", "version 2: none for the others");
	tap_is_str(raw_text(db,
		       "SELECT group_concat(response, ' ') FROM"
		       " (SELECT response FROM trigger_status ORDER BY"
		       " trigger_id)",
		       got, sizeof(got)),
	    FAILED_X " " COMPLETED(7) " " IN_PROGRESS,
	    "version 2: the view answers each, read without the function");
	tap_ok(raw_exec(db,
		   "UPDATE triggers SET status = 'COMPLETED',"
		   " failure_class = 'E', failure_trace = 'E', completed_ms = 6"
		   " WHERE trigger_id = '" TC "'") == -1,
	    "a failure without its serialized-throwable is refused");
	tap_is_str(raw_text(db,
		       "SELECT status FROM triggers WHERE trigger_id = '" TC
		       "'",
		       got, sizeof(got)),
	    "IN_PROGRESS", "refused: the row is unchanged");
}

static void
test_purge(void)
{
	struct store *s;
	char err[512];
	int64_t purged = -1, ck;
	int created;

	if (open_at(path_in("purge.db"), &s, err, sizeof(err)) != STORE_OK) {
		tap_ok(0, "purge: open (%s)", err);
		return;
	}
	record(s, J1, TA, CKPT_FULL, 0, STORE_MS, &created);
	record(s, J1, TB, CKPT_FULL, 0, STORE_MS, &created);
	record(s, J1, TC, CKPT_FULL, 0, STORE_MS, &created);
	complete(s, J1, TA, 1, NULL, NULL, 1000, &ck);
	complete(s, J1, TB, 0, "java.lang.Exception", "boom", 2000, &ck);

	tap_is_int(store_purge(s, 1000 + STORE_MS - 1, STORE_MS, &purged),
	    STORE_OK, "purge before expiry: OK");
	tap_is_int(purged, 0, "purge before expiry: none");
	tap_is_int(store_purge(s, 10LL * STORE_MS, 0, &purged), STORE_OK,
	    "purge with store_ms 0: OK");
	tap_is_int(purged, 0, "purge with store_ms 0: none (kept forever)");
	tap_is_int(store_purge(s, 1000 + STORE_MS, STORE_MS, &purged), STORE_OK,
	    "purge at the first expiry: OK");
	tap_is_int(purged, 1, "purge at the first expiry: one");
	tap_is_int(store_purge(s, 1000 + STORE_MS, STORE_MS, &purged), STORE_OK,
	    "purge again: OK");
	tap_is_int(purged, 0, "purge again: none");
	tap_is_int(store_purge(s, 100LL * STORE_MS, STORE_MS, &purged),
	    STORE_OK, "purge much later: OK");
	tap_is_int(purged, 1,
	    "purge much later: the failed one; never pending");
	tap_is_str(status(s, J1, TA, 1000, 0), NOTFOUND,
	    "purged: gone even with store_ms 0");
	tap_is_str(status(s, J1, TC, 100LL * STORE_MS, STORE_MS), IN_PROGRESS,
	    "purge: the pending trigger stays");
	store_close(s);
}

/* The checkpoints of a store as one line: "id:STATUS:trigger:end:dur". */
static int
ckpt_cb(const struct ckpt *c, void *arg)
{
	static const char *const names[] = { "IN_PROGRESS", "COMPLETED",
		"FAILED" };
	struct buf *b = arg;

	buf_printf(b, "%s%lld:%s:%lld:%lld:%lld:%s:%s", b->len > 0 ? "|" : "",
	    (long long)c->id, names[c->status], (long long)c->trigger_ms,
	    (long long)c->end_ms, (long long)c->duration_ms,
	    c->location != NULL ? c->location : "-",
	    c->failure_class != NULL ? c->failure_class : "-");
	return 0;
}

static const char *
history(struct store *s, const char *job, int64_t limit)
{
	static struct buf b;
	struct id jid = mkid(job);
	enum store_rc rc;

	buf_reset(&b);
	if ((rc = store_ckpt_history(s, &jid, limit, ckpt_cb, &b)) != STORE_OK)
		buf_printf(&b, "<%s>", store_rc_name(rc));
	return buf_str(&b);
}

static const char *
latest(struct store *s, const char *job)
{
	static struct buf b;
	struct id jid = mkid(job);
	enum store_rc rc;

	buf_reset(&b);
	if ((rc = store_ckpt_latest(s, &jid, ckpt_cb, &b)) != STORE_OK)
		buf_printf(&b, "<%s>", store_rc_name(rc));
	return buf_str(&b);
}

static const char *
counts(struct store *s, const char *job)
{
	static char out[128];
	struct ckpt_counts c;
	struct id jid = mkid(job);
	enum store_rc rc;

	if ((rc = store_ckpt_counts(s, &jid, &c)) != STORE_OK)
		snprintf(out, sizeof(out), "<%s>", store_rc_name(rc));
	else
		snprintf(out, sizeof(out),
		    "timeout %lld run %lld ok %lld failed %lld "
		    "min %lld max %lld sum %lld",
		    (long long)c.timeout_s, (long long)c.in_progress,
		    (long long)c.completed, (long long)c.failed,
		    (long long)c.duration_min, (long long)c.duration_max,
		    (long long)c.duration_sum);
	return out;
}

static int
metrics_cb(const struct job_metrics *j, void *arg)
{
	buf_printf(arg,
	    "jobs ok %lld failed %lld run %lld last %lld "
	    "duration %lld;",
	    (long long)j->completed, (long long)j->failed,
	    (long long)j->in_progress, (long long)j->last_id,
	    (long long)j->last_duration_ms);
	return 0;
}

/* What GET /metrics reads: the jobs' rows, then the service's. */
static const char *
metrics_of(struct store *s)
{
	static struct buf b;
	struct service_metrics m;
	enum store_rc rc;

	buf_reset(&b);
	if ((rc = store_metrics(s, &m, metrics_cb, &b)) != STORE_OK)
		buf_printf(&b, "<%s>", store_rc_name(rc));
	else
		buf_printf(&b,
		    "service ok %lld declined %lld expired %lld "
		    "job_not_found %lld",
		    (long long)m.completed, (long long)m.declined,
		    (long long)m.expired, (long long)m.job_not_found);
	return buf_str(&b);
}

static int
overview_cb(const struct job *j, void *arg)
{
	buf_printf(arg, "%s %s %s %lld %lld;", j->id.s, j->name,
	    job_state_name(j->state), (long long)j->created_ms,
	    (long long)j->updated_ms);
	return 0;
}

/*
 * Checkpoint statistics (schema 0004): counters moved by completions
 * that survive the purge, the history newest first, one checkpoint, the
 * durations of the completed ones, the job overview.
 */
static void
test_ckpt_stats(void)
{
	struct store *s;
	struct job j;
	struct id jid = mkid(J1);
	struct buf b = { 0 };
	char err[512];
	int64_t ck, row, d[4], purged;
	size_t n;
	int created;

	if (open_at(path_in("stats.db"), &s, err, sizeof(err)) != STORE_OK) {
		tap_ok(0, "stats: open (%s)", err);
		return;
	}
	tap_is_str(counts(s, J1), "<not found>", "stats: unregistered job");
	memset(&j, 0, sizeof(j));
	j.id = jid;
	j.name = "orders";
	j.type = CKPT_FULL;
	j.timeout_s = 60;
	store_job_add(s, &j, 100);
	tap_is_str(counts(s, J1),
	    "timeout 60 run 0 ok 0 failed 0 min 0 max 0 sum 0",
	    "stats: a job with no checkpoint");
	tap_is_str(history(s, J1, 10), "", "stats: no history");
	tap_is_str(latest(s, J1), "", "stats: no latest");

	record(s, J1, TA, CKPT_FULL, 0, STORE_MS, &created);
	complete(s, J1, TA, 1, NULL, NULL, 1000, &ck);
	record(s, J1, TB, CKPT_FULL, 2000, STORE_MS, &created);
	complete(s, J1, TB, 1, "java.lang.Exception", "boom", 2500, &ck);
	record(s, J1, TC, CKPT_FULL, 3000, STORE_MS, &created);
	complete(s, J1, TC, 0, "java.lang.Exception", "no job", 3001, &ck);
	record(s, J1, TE, CKPT_FULL, 3500, STORE_MS, &created);
	record(s, J1, TD, CKPT_FULL, 4000, STORE_MS, &created);
	store_begin(s);
	row = pending_row(s, J1, TD);
	store_next_checkpoint_id(s, &jid, &ck);
	store_claim(s, row, "runner:1", ck, CKPT_FULL, 4100, 9999);
	store_commit(s);
	tap_is_str(counts(s, J1),
	    "timeout 60 run 1 ok 1 failed 1 min 1000 max 1000 sum 1000",
	    "stats: counts (neither a queued trigger nor a failure "
	    "without an id, job not found, is counted)");
	tap_is_str(history(s, J1, 10),
	    "3:IN_PROGRESS:4100:0:0:-:-|"
	    "2:FAILED:2000:2500:500:-:java.lang.Exception|"
	    "1:COMPLETED:0:1000:1000:file:///checkpoints/x:-",
	    "stats: history, newest first; claimed: triggered when claimed");
	tap_is_str(latest(s, J1),
	    "1:COMPLETED:0:1000:1000:file:///checkpoints/x:-|"
	    "2:FAILED:2000:2500:500:-:java.lang.Exception",
	    "stats: latest completed, then latest failed");
	tap_is_str(history(s, J1, 2),
	    "3:IN_PROGRESS:4100:0:0:-:-|"
	    "2:FAILED:2000:2500:500:-:java.lang.Exception",
	    "stats: history, limited");
	tap_is_int(store_ckpt_get(s, &jid, 1, ckpt_cb, &b), STORE_OK,
	    "stats: get 1");
	tap_is_str(buf_str(&b),
	    "1:COMPLETED:0:1000:1000:file:///checkpoints/x:-",
	    "stats: get 1: the checkpoint");
	tap_is_int(store_ckpt_get(s, &jid, 9, ckpt_cb, &b), STORE_NOTFOUND,
	    "stats: get 9: not found");
	tap_is_int(store_ckpt_durations(s, &jid, 4, d, &n), STORE_OK,
	    "stats: durations");
	tap_is_int((long long)n, 1, "stats: durations: the completed one");
	tap_is_int(d[0], 1000, "stats: durations: its duration");

	store_purge(s, 100LL * STORE_MS, STORE_MS, &purged);
	tap_is_int(purged, 3, "stats: purge: the three completed");
	tap_is_str(counts(s, J1),
	    "timeout 60 run 1 ok 1 failed 1 min 1000 max 1000 sum 1000",
	    "stats: counts survive the purge");
	tap_is_str(history(s, J1, 10),
	    "3:IN_PROGRESS:4100:0:0:-:-|"
	    "2:FAILED:2000:2500:500:-:java.lang.Exception|"
	    "1:COMPLETED:0:1000:1000:file:///checkpoints/x:-",
	    "stats: history after the purge: kept");
	tap_is_str(latest(s, J1),
	    "1:COMPLETED:0:1000:1000:file:///checkpoints/x:-|"
	    "2:FAILED:2000:2500:500:-:java.lang.Exception",
	    "stats: the latest survive the purge");
	tap_is_int(store_ckpt_durations(s, &jid, 4, d, &n), STORE_OK,
	    "stats: durations after the purge");
	tap_is_int((long long)n, 1, "stats: durations after the purge: kept");

	/* The history's own retention: by id, then by age. */
	tap_is_int(store_history_prune(s, 100LL * STORE_MS, 2, 0, &purged),
	    STORE_OK, "history prune: keep 2: OK");
	tap_is_int(purged, 1, "history prune: keep 2: below the newest 2 ids");
	tap_is_str(history(s, J1, 10),
	    "3:IN_PROGRESS:4100:0:0:-:-|"
	    "2:FAILED:2000:2500:500:-:java.lang.Exception",
	    "history prune: keep 2: the running one and id 2 stay");
	tap_is_int(store_history_prune(s, 2500 + 1000, 0, 1001, &purged),
	    STORE_OK, "history prune: by age, not yet: OK");
	tap_is_int(purged, 0,
	    "history prune: by age: 1000 ms old of 1001 stays");
	tap_is_int(store_history_prune(s, 2500 + 1000, 0, 1000, &purged),
	    STORE_OK, "history prune: by age: OK");
	tap_is_int(purged, 1, "history prune: by age: ended 1000 ms ago");
	tap_is_str(history(s, J1, 10), "3:IN_PROGRESS:4100:0:0:-:-",
	    "history prune: the running one stays");
	tap_is_int(store_ckpt_get(s, &jid, 1, ckpt_cb, &b), STORE_NOTFOUND,
	    "history prune: get 1: not found");
	tap_is_str(metrics_of(s),
	    "jobs ok 1 failed 1 run 1 last 1 duration 1000;"
	    "service ok 1 declined 1 expired 0 job_not_found 1",
	    "stats: GET /metrics reads the same counts and latest");

	buf_reset(&b);
	tap_is_int(store_job_overview(s, overview_cb, &b), STORE_OK,
	    "stats: job overview");
	tap_is_str(buf_str(&b), J1 " orders RUNNING 100 100;",
	    "stats: job overview: id, name, state, times");
	buf_free(&b);
	store_close(s);
}

/* Locked past the busy timeout: STORE_BUSY, and nothing changed. */
static void
test_busy(void)
{
	struct store *s;
	sqlite3 *db;
	char err[512];
	const char *path = path_in("busy.db");
	int created;

	if (open_at(path, &s, err, sizeof(err)) != STORE_OK) {
		tap_ok(0, "busy: open (%s)", err);
		return;
	}
	record(s, J1, TA, CKPT_FULL, 0, STORE_MS, &created);
	sqlite3_open(path, &db);
	sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	tap_is_int(record(s, J1, TB, CKPT_FULL, 0, STORE_MS, &created),
	    STORE_BUSY, "record under another writer: STORE_BUSY");
	tap_is_str(status(s, J1, TA, 0, STORE_MS), IN_PROGRESS,
	    "status under another writer: readers are not blocked");
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(db);
	tap_is_int(record(s, J1, TB, CKPT_FULL, 0, STORE_MS, &created),
	    STORE_OK, "record after the lock: OK");
	tap_is_int(created, 1,
	    "record after the lock: created (BUSY wrote "
	    "nothing)");
	store_close(s);
}

/*
 * The committer's hook (struct store_opts' on_commit): told of each
 * commit with the WAL's frames, on its own connection and none other.
 */
static void
commit_seen(void *arg, int frames)
{
	int *seen = arg;

	seen[0]++;
	seen[1] = frames;
}

static void
test_on_commit(void)
{
	struct store_opts o = { .path = path_in("hook.db"),
		.busy_ms = 50,
		.create = 1 };
	struct store *s, *other;
	char err[512];
	int seen[2] = { 0, 0 }, created;

	o.on_commit = commit_seen;
	o.on_commit_arg = seen;
	if (store_open(&o, &s, err, sizeof(err)) != STORE_OK ||
	    open_at(o.path, &other, err, sizeof(err)) != STORE_OK) {
		tap_ok(0, "on_commit: open (%s)", err);
		return;
	}
	seen[0] = 0;
	record(s, J1, TA, CKPT_FULL, 0, STORE_MS, &created);
	tap_ok(seen[0] == 1 && seen[1] > 0,
	    "on_commit: a commit told, with the WAL's frames (%d, %d)", seen[0],
	    seen[1]);
	record(other, J1, TB, CKPT_FULL, 0, STORE_MS, &created);
	tap_is_int(seen[0], 1, "on_commit: another connection's not told");
	store_close(other);
	store_close(s);
}

/* --- What every driver answers alike --------------------------------- */

struct export_seen {
	int n[STORE_ROW__MAX];
};

static int
export_cb(const struct row_dump *row, void *arg)
{
	struct export_seen *w = arg;

	w->n[row->table]++;
	return 0;
}

/* Whether got is want give or take a second: a lease on another clock. */
static int
near(int64_t got, int64_t want)
{
	return got > want - 1000 && got < want + 1000;
}

/*
 * Triggers, failures, listings, claims and the export on a store of any
 * driver, from an empty database: SQLite takes its times from the
 * caller's now, PostgreSQL from the server's clock, so the times here
 * are the real clock's and a lease is compared give or take a second.
 */
static void
test_any_triggers(struct store *s)
{
	struct claim_seen seen;
	struct trig_seen w;
	struct export_seen e;
	struct id j1 = mkid(J1), j2 = mkid(J2);
	struct job job = { .state = JOB_RUNNING,
		.type = CKPT_FULL,
		.timeout_s = 60 };
	int64_t now = clock_ms(CLOCK_REALTIME), ck = 0, row, n, oldest, pass;
	int created = -1;

	/* A round's queue holds registered jobs' triggers on every store. */
	job.id = j1;
	tap_is_int(store_job_add(s, &job, now), STORE_OK, "any: add J1");
	job.id = j2;
	tap_is_int(store_job_add(s, &job, now), STORE_OK, "any: add J2");

	tap_is_int(record(s, J1, TA, CKPT_FULL, now, STORE_MS, &created),
	    STORE_OK, "any: record");
	tap_is_int(created, 1, "any: record: created");
	record(s, J1, TA, CKPT_INCREMENTAL, now, STORE_MS, &created);
	tap_is_int(created, 0, "any: record again: not created");
	tap_is_str(status(s, J1, TA, now, STORE_MS), IN_PROGRESS,
	    "any: status: IN_PROGRESS, exact JSON");
	tap_is_str(status(s, J1, TB, now, STORE_MS), NOTFOUND,
	    "any: status: unknown trigger");
	store_trigger_waiting(s, &j1, &n, &oldest, &pass);
	tap_is_int(n, 1, "any: one trigger waiting");
	tap_is_int(complete(s, J1, TA, 1, NULL, NULL, now, &ck), STORE_OK,
	    "any: complete");
	tap_is_int(ck, 1, "any: complete: the job's first id");
	tap_is_str(status(s, J1, TA, now, STORE_MS), COMPLETED(1),
	    "any: status: COMPLETED, exact JSON");
	tap_is_int(complete(s, J1, TA, 1, NULL, NULL, now, &ck), STORE_NOTFOUND,
	    "any: complete twice: not pending");

	/* The same serialized-throwable, made in SQL or in C. */
	record(s, J1, TB, CKPT_FULL, now, STORE_MS, &created);
	tap_is_int(complete(s, J1, TB, 1,
		       "java.util.concurrent.CompletionException", "x", now,
		       &ck),
	    STORE_OK, "any: complete as failed");
	tap_is_str(status(s, J1, TB, now, STORE_MS), FAILED_X,
	    "any: failure: failureCause, exact JSON");
	store_trigger_waiting(s, &j1, &n, &oldest, &pass);
	tap_is_int(n, 0, "any: none waiting");

	memset(&w, 0, sizeof(w));
	tap_is_int(store_trigger_list(s, &j1, 10, trig_cb, &w), STORE_OK,
	    "any: trigger list");
	tap_is_int(w.n, 2, "any: trigger list: two");
	tap_is_str(w.trig[0], TB, "any: trigger list: newest first");
	memset(&w, 0, sizeof(w));
	store_trigger_list(s, NULL, 1, trig_cb, &w);
	tap_ok(w.n == 1 && strcmp(w.trig[0], TB) == 0,
	    "any: trigger list of all, limit 1: the newest");

	/* A claim, its lease renewed, completed by its owner only. */
	record(s, J2, TC, CKPT_INCREMENTAL, now, STORE_MS, &created);
	store_begin(s);
	row = pending_row(s, J2, TC);
	store_next_checkpoint_id(s, &j2, &ck);
	tap_is_int(store_claim(s, row, "runner-a:1", ck, CKPT_INCREMENTAL, now,
		       now + 60000),
	    STORE_OK, "any: claim");
	tap_is_int(store_commit(s), STORE_OK, "any: claim: committed");
	tap_is_int(store_claim(s, row, "runner-b:2", ck, CKPT_FULL, now,
		       now + 60000),
	    STORE_NOTFOUND, "any: claim a claimed trigger: not found");
	memset(&seen, 0, sizeof(seen));
	tap_is_int(store_claimed(s, claimed_cb, &seen), STORE_OK,
	    "any: claimed");
	tap_ok(seen.n == 1 && seen.c.row == row &&
		strcmp(seen.c.owner, "runner-a:1") == 0 &&
		seen.c.checkpoint_id == ck && seen.c.type == CKPT_INCREMENTAL,
	    "any: claimed: the claim, its owner, id and type");
	tap_ok(near(seen.c.lease_ms, now + 60000),
	    "any: claimed: its lease (%lld ms off)",
	    (long long)(seen.c.lease_ms - now - 60000));
	tap_is_int(store_claim_renew(s, row, "runner-b:2", now, now + 120000),
	    STORE_NOTFOUND, "any: renew another's claim: not found");
	tap_is_int(store_claim_renew(s, row, "runner-a:1", now, now + 120000),
	    STORE_OK, "any: renew its own claim");
	memset(&seen, 0, sizeof(seen));
	store_claimed(s, claimed_cb, &seen);
	tap_ok(near(seen.c.lease_ms, now + 120000),
	    "any: renewed: the new lease");
	tap_is_int(store_complete(s, row, "runner-b:2",
		       &(struct outcome){ .location = "s3://b/1" }, now),
	    STORE_NOTFOUND, "any: complete with the wrong owner: not found");
	tap_is_int(store_complete(s, row, "runner-a:1",
		       &(struct outcome){ .location = "s3://b/1" }, now),
	    STORE_OK, "any: complete with the right owner");
	tap_is_str(status(s, J2, TC, now, STORE_MS), COMPLETED(1),
	    "any: the claimed id is kept");
	memset(&seen, 0, sizeof(seen));
	store_claimed(s, claimed_cb, &seen);
	tap_is_int(seen.n, 0, "any: claimed: none left");

	/* test_jobs left J5 and its pending trigger. */
	memset(&e, 0, sizeof(e));
	tap_is_int(store_export(s, now, STORE_MS, export_cb, &e), STORE_OK,
	    "any: export");
	tap_is_int(e.n[STORE_ROW_JOB], 3, "any: export: J1, J2 and J5");
	tap_is_int(e.n[STORE_ROW_COUNTER], 4,
	    "any: export: the counters of J1 to J4");
	tap_is_int(e.n[STORE_ROW_SERVICE], 1, "any: export: the service row");
	tap_is_int(e.n[STORE_ROW_TRIGGER], 4, "any: export: four triggers");
}

/*
 * What one driver has and the other has not: a file's WAL and the file
 * itself, a server's batches in flight and reads together.  Without a WAL its operations
 * have nothing to do.
 */
static void
test_any_capabilities(struct store *s)
{
	int file = strcmp(store_kind(s), "sqlite") == 0;
	int busy = -1, frames = -1, copied = -1;

	tap_is_int(store_can(s, STORE_CAN_WAL), file, "any: %s: a WAL: %d",
	    store_kind(s), file);
	tap_is_int(store_can(s, STORE_CAN_PIPELINE), !file,
	    "any: %s: batches in flight: %d", store_kind(s), !file);
	tap_is_int(store_can(s, STORE_CAN_READ_TOGETHER), !file,
	    "any: %s: reads together: %d", store_kind(s), !file);
	tap_is_int(store_can(s, STORE_CAN_FILE), file,
	    "any: %s: a file of this host: %d", store_kind(s), file);
	tap_is_int(store_wal_checkpoint(s, &busy), STORE_OK,
	    "any: wal checkpoint: OK");
	tap_is_int(busy, 0, "any: wal checkpoint: not busy");
	tap_is_int(store_wal_checkpoint_passive(s, &frames, &copied), STORE_OK,
	    "any: passive wal checkpoint: OK");
	tap_ok(frames == copied && (file || frames == 0),
	    "any: passive wal checkpoint: every frame copied (%d of %d)",
	    copied, frames);
	tap_is_int(store_replaced(s, 0), 0, "any: the database is its own");
	tap_is_int(store_moved(s), 0, "any: the database has not moved");
}

/* What the listing shows of a savepoint, for the checks below. */
static int
sp_row_cb(const struct savepoint_row *r, void *arg)
{
	struct buf *b = arg;

	buf_printf(b, "%s%s:%s:%s:%lld:%s:%s:%s", b->len > 0 ? "|" : "",
	    r->trigger.s + 28, r->kind, r->status, (long long)r->checkpoint_id,
	    r->location != NULL ? r->location : "-", r->format,
	    r->disposed_ms > 0 ? "disposed" : "-");
	return 0;
}

static int
sp_claim_cb(const struct op_claim *c, void *arg)
{
	struct buf *b = arg;

	buf_printf(b, "%s%s:%s:%d", b->len > 0 ? "|" : "", c->trigger.s + 28,
	    c->owner, c->expired);
	return 0;
}

/* Savepoints, stops and disposals, as the API and the runner use them. */
/*
 * The history's retention (store_history_prune) takes the records of
 * savepoints gone (failed, or disposed of) by its rule, never the job's
 * latest nor one that exists.  sp: the job's, whose a1 is disposed of
 * and latest, and whose stop a2 failed.
 */
static void
test_savepoint_retention(struct store *s, struct savepoint_rec *sp)
{
	struct savepoint_task t[4];
	struct buf b = { 0 };
	size_t n = 0;
	int64_t id = 0, pruned;
	int created;

	tap_is_int(store_history_prune(s, 100LL * STORE_MS, 1, 1, &pruned),
	    STORE_OK, "retention: pruned");
	store_savepoint_list(s, &sp->job, sp_row_cb, &b);
	tap_is_str(buf_str(&b),
	    "00a1:SAVEPOINT:COMPLETED:1:file:/dir/sp-1:NATIVE:disposed",
	    "retention: the failed stop's record gone, the latest kept");
	buf_reset(&b);
	tap_is_int(store_read_savepoint_status(s, &sp->job, &sp->trigger, &b),
	    STORE_NOTFOUND, "retention: the failed stop's result with it");
	sp->stop = 0;
	sp->trigger = mkid("5a5e00000000000000000000000000a3");
	store_record_savepoint(s, sp, &created);
	if (store_savepoints_pending(s, t, 4, &n) == STORE_OK && n == 1) {
		store_next_checkpoint_id(s, &sp->job, &id);
		tap_is_int(store_savepoint_complete(s, t[0].row, NULL, id,
			       "file:/dir/sp-3", NULL, NULL, 8000),
		    STORE_OK, "retention: a newer savepoint completes");
		store_savepoint_tasks_free(t, n);
	} else
		tap_ok(0, "retention: the newer savepoint pending (%zu)", n);
	store_history_prune(s, 100LL * STORE_MS, 1, 1, &pruned);
	buf_reset(&b);
	store_savepoint_list(s, &sp->job, sp_row_cb, &b);
	tap_is_str(buf_str(&b),
	    "00a3:SAVEPOINT:COMPLETED:2:file:/dir/sp-3:NATIVE:-",
	    "retention: the disposed one's record gone once not the latest; "
	    "the one that exists kept, past both bounds");
	buf_free(&b);
}

static void
test_any_savepoints(struct store *s)
{
	const char *j = "5a5e0000000000000000000000000001";
	struct savepoint_task t[4];
	struct disposal_task d[4];
	struct savepoint_rec sp;
	struct job job;
	struct id jid = mkid(j), tid, fresh, got;
	struct buf b = { 0 };
	size_t n = 0;
	int64_t id = 0, purged;
	int created = -1;

	tap_is_int(store_job_savepoint_dir(s, &jid, &b), STORE_NOTFOUND,
	    "savepoints: an unknown job has no directory");
	memset(&job, 0, sizeof(job));
	job.id = jid;
	job.state = JOB_RUNNING;
	job.type = CKPT_FULL;
	job.timeout_s = 60;
	job.savepoint_dir = "file:/dir";
	job.savepoint_command = "echo sp";
	job.dispose_command = "true";
	tap_is_int(store_job_add(s, &job, 1), STORE_OK,
	    "savepoints: job added");
	tap_is_int(store_job_set(s, &job,
		       JOB_SET_SAVEPOINT_DIR | JOB_SET_SAVEPOINT_COMMAND |
			   JOB_SET_DISPOSE_COMMAND,
		       1),
	    STORE_OK, "savepoints: its directory and commands set");
	buf_reset(&b);
	tap_is_int(store_job_savepoint_dir(s, &jid, &b), STORE_OK,
	    "savepoints: the job's directory found");
	tap_is_str(buf_str(&b), "file:/dir", "savepoints: the job's directory");

	memset(&sp, 0, sizeof(sp));
	sp.job = jid;
	sp.trigger = tid = mkid("5a5e00000000000000000000000000a1");
	sp.target_dir = "file:/dir";
	sp.native = 1;
	sp.now_ms = 1000;
	tap_is_int(store_record_savepoint(s, &sp, &created), STORE_OK,
	    "savepoint recorded");
	tap_is_int(created, 1, "savepoint: new");
	sp.stop = 1;
	sp.target_dir = "file:/other";
	tap_is_int(store_record_savepoint(s, &sp, &created), STORE_OK,
	    "stop with the same triggerId");
	tap_is_int(created, 0, "stop with the same triggerId: nothing new");
	buf_reset(&b);
	tap_is_int(store_read_savepoint_status(s, &jid, &tid, &b), STORE_OK,
	    "savepoint status read");
	tap_is_str(buf_str(&b),
	    "{\"status\":{\"id\":\"IN_PROGRESS\"},"
	    "\"operation\":null}",
	    "savepoint status: IN_PROGRESS");

	tap_is_int(store_savepoints_pending(s, t, 4, &n), STORE_OK,
	    "pending savepoints read");
	tap_is_int((long long)n, 1, "one pending savepoint");
	if (n == 1) {
		tap_ok(!t[0].stop && t[0].native && t[0].job_known &&
			t[0].job_running && !t[0].job_busy &&
			strcmp(t[0].target_dir, "file:/dir") == 0 &&
			t[0].command != NULL &&
			strcmp(t[0].command, "echo sp") == 0,
		    "the pending savepoint: as recorded, with its job's command");
		tap_is_int(store_next_checkpoint_id(s, &jid, &id), STORE_OK,
		    "the savepoint's id from the job's sequence");
		tap_is_int(store_savepoint_claim(s, t[0].row, "me:1:1", id,
			       1000, 61000),
		    STORE_OK, "savepoint claimed");
		buf_reset(&b);
		tap_is_int(store_op_claims(s, 0, 1000, sp_claim_cb, &b),
		    STORE_OK, "savepoint claims read");
		tap_is_str(buf_str(&b), "00a1:me:1:1:0",
		    "the claim, its lease not over");
		tap_is_int(store_savepoint_complete(s, t[0].row, "other:1:1", 0,
			       "file:/dir/sp-1", NULL, NULL, 2000),
		    STORE_NOTFOUND, "another runner cannot complete it");
		tap_is_int(store_savepoint_complete(s, t[0].row, "me:1:1", 0,
			       "file:/dir/sp-1", NULL, NULL, 2000),
		    STORE_OK, "its runner completes it");
		store_savepoint_tasks_free(t, n);
	}
	buf_reset(&b);
	store_read_savepoint_status(s, &jid, &tid, &b);
	tap_is_str(buf_str(&b),
	    "{\"status\":{\"id\":\"COMPLETED\"},"
	    "\"operation\":{\"location\":\"file:/dir/sp-1\"}}",
	    "savepoint status: its location");
	buf_reset(&b);
	tap_is_int(store_savepoint_latest(s, &jid, ckpt_cb, &b), STORE_OK,
	    "latest savepoint read");
	tap_ok(strncmp(buf_str(&b), "1:COMPLETED:", 12) == 0,
	    "latest savepoint: id 1, completed (%s)", buf_str(&b));

	/*
	 * The statistics read savepoints beside the checkpoint history;
	 * neither the results' expiry nor the history's retention, which
	 * keep checkpoints apart, takes them away.
	 */
	store_purge(s, 100LL * STORE_MS, STORE_MS, &purged);
	store_history_prune(s, 100LL * STORE_MS, 1, 1, &purged);
	tap_ok(strncmp(history(s, j, 10), "1:COMPLETED:", 12) == 0,
	    "savepoint in the statistics' history after the purge and the "
	    "history's retention (%s)",
	    history(s, j, 10));
	tap_is_int(store_ckpt_get(s, &jid, 1, ckpt_cb, &b), STORE_OK,
	    "savepoint: its details by id, after both");

	/* A stop that fails keeps its id; the listing shows both. */
	sp.trigger = mkid("5a5e00000000000000000000000000a2");
	tap_is_int(store_record_savepoint(s, &sp, &created), STORE_OK,
	    "stop recorded");
	n = 0;
	if (store_savepoints_pending(s, t, 4, &n) == STORE_OK && n == 1) {
		tap_ok(t[0].stop && t[0].command == NULL,
		    "the stop: no stop command");
		tap_is_int(store_savepoint_complete(s, t[0].row, NULL, 0, NULL,
			       "java.lang.Exception", "java.lang.Exception: x",
			       3000),
		    STORE_OK, "an unclaimed stop fails");
		store_savepoint_tasks_free(t, n);
	} else
		tap_ok(0, "the stop pending (%zu)", n);
	tap_is_int(store_savepoint_end_job(s, &jid, "FINISHED", 3000), STORE_OK,
	    "the job ends");
	buf_reset(&b);
	store_savepoint_latest(s, &jid, ckpt_cb, &b);
	tap_ok(strncmp(buf_str(&b), "1:COMPLETED:", 12) == 0,
	    "latest savepoint: still id 1 after the failed stop "
	    "(%s)",
	    buf_str(&b));

	/* Disposal: one per path, a failed one retried under its id. */
	fresh = mkid("d15b0000000000000000000000000001");
	tap_is_int(store_record_disposal(s, &fresh, "file:/dir/sp-1", NULL,
		       NULL, NULL, 4000, &got, &created),
	    STORE_OK, "disposal recorded");
	tap_ok(created == 1 && strcmp(got.s, fresh.s) == 0,
	    "disposal: new, under the id given");
	fresh = mkid("d15b0000000000000000000000000002");
	store_record_disposal(s, &fresh, "file:/dir/sp-1", NULL, NULL, NULL,
	    4000, &got, &created);
	tap_ok(created == 0 && strcmp(got.s + 28, "0001") == 0,
	    "disposal of the same path: the first id, nothing new");
	n = 0;
	if (store_disposals_pending(s, d, 4, &n) == STORE_OK && n == 1) {
		tap_ok(d[0].job_found && strcmp(d[0].job.s, j) == 0 &&
			d[0].command != NULL &&
			strcmp(d[0].command, "true") == 0,
		    "the pending disposal: the savepoint's job and command");
		tap_is_int(store_disposal_claim(s, d[0].row, "me:1:1", 4000,
			       64000),
		    STORE_OK, "disposal claimed");
		tap_is_int(store_disposal_complete(s, d[0].row, "me:1:1",
			       d[0].path, "java.io.IOException",
			       "java.io.IOException: busy", 5000),
		    STORE_OK, "disposal fails");
		store_disposal_tasks_free(d, n);
	} else
		tap_ok(0, "the disposal pending (%zu)", n);
	buf_reset(&b);
	store_read_disposal_status(s, &got, &b);
	tap_ok(strncmp(buf_str(&b),
		   "{\"status\":{\"id\":\"COMPLETED\"},\"operation\":"
		   "{\"failure-cause\":{\"class\":\"java.io.IOException\"",
		   79) == 0,
	    "failed disposal: its cause (%s)", buf_str(&b));
	store_record_disposal(s, &fresh, "file:/dir/sp-1", NULL, NULL, NULL,
	    6000, &got, &created);
	tap_ok(created == 1 && strcmp(got.s + 28, "0001") == 0,
	    "failed disposal again: retried under its id");
	n = 0;
	if (store_disposals_pending(s, d, 4, &n) == STORE_OK && n == 1) {
		tap_is_int(store_disposal_complete(s, d[0].row, NULL, d[0].path,
			       NULL, NULL, 7000),
		    STORE_OK, "disposal succeeds");
		store_disposal_tasks_free(d, n);
	} else
		tap_ok(0, "the retried disposal pending (%zu)", n);
	buf_reset(&b);
	store_read_disposal_status(s, &got, &b);
	tap_is_str(buf_str(&b),
	    "{\"status\":{\"id\":\"COMPLETED\"},\"operation\":{}}",
	    "disposed: {}");
	buf_reset(&b);
	tap_is_int(store_savepoint_list(s, &jid, sp_row_cb, &b), STORE_OK,
	    "savepoints listed");
	tap_is_str(buf_str(&b),
	    "00a2:STOP:COMPLETED:0:-:NATIVE:-|"
	    "00a1:SAVEPOINT:COMPLETED:1:file:/dir/sp-1:NATIVE:disposed",
	    "listing: newest first, the disposed one marked");
	test_savepoint_retention(s, &sp);
	buf_reset(&b);
	store_read_disposal_status(s, &tid, &b);
	tap_is_int(store_read_disposal_status(s, &tid, &b), STORE_NOTFOUND,
	    "an unknown disposal id");
	buf_free(&b);
}

/*
 * Savepoints alone in one batch: known is recorded already.  Each says
 * whether it was new; a batch with one that the schema refuses records
 * none.
 */
static void
test_any_savepoint_batch(struct store *s, const struct savepoint_rec *known)
{
	struct savepoint_rec fresh = *known, bad = *known;
	const struct trigger_rec *t[2] = { NULL, NULL };
	const struct savepoint_rec *p[2] = { known, &fresh };
	struct id other = mkid("b0570000000000000000000000000005");
	struct buf b = { 0 };
	int created[2] = { -1, -1 };

	fresh.trigger = mkid("b0570000000000000000000000000004");
	tap_is_int(store_record_posts(s, t, p, 2, created), STORE_OK,
	    "any: posts: two savepoints in one batch");
	tap_ok(created[0] == 0 && created[1] == 1,
	    "any: posts: the known one not new, the other new (%d %d)",
	    created[0], created[1]);
	bad.trigger = other;
	bad.target_dir = NULL; /* NOT NULL */
	fresh.trigger = mkid("b0570000000000000000000000000006");
	p[0] = &fresh;
	p[1] = &bad;
	tap_is_int(store_record_posts(s, t, p, 2, created), STORE_ERROR,
	    "any: posts: a batch with a savepoint the schema refuses fails");
	tap_ok(created[0] == 0 && created[1] == 0,
	    "any: posts: neither new (%d %d)", created[0], created[1]);
	tap_is_int(store_read_savepoint_status(s, &fresh.job, &fresh.trigger,
		       &b),
	    STORE_NOTFOUND, "any: posts: nothing of it recorded");
	tap_is_int(store_record_posts(s, t, p, 1, created), STORE_OK,
	    "any: posts: the store records again after the failed batch");
	tap_ok(created[0] == 1, "any: posts: and that one is new");
	fresh.trigger = mkid("b0570000000000000000000000000007");
	p[0] = p[1] = &fresh;
	tap_is_int(store_record_posts(s, t, p, 2, created), STORE_OK,
	    "any: posts: one savepoint twice in a batch");
	tap_ok(created[0] == 1 && created[1] == 0,
	    "any: posts: the first new, not the second (%d %d)", created[0],
	    created[1]);
	buf_free(&b);
}

/*
 * Status reads of both kinds in one call (store_read_statuses, as the
 * GETs read together): t and sp are recorded; each id read as the other
 * kind is not found.
 */
static void
test_any_statuses(struct store *s, const struct trigger_rec *t,
    const struct savepoint_rec *sp)
{
	struct id unknown = mkid("b0570000000000000000000000000009");
	struct buf b[5] = { { 0 } };
	struct status_read r[5] = {
		{ &t->job, &t->trigger, &b[0], 0, STORE_ERROR },
		{ &sp->job, &sp->trigger, &b[1], 1, STORE_ERROR },
		{ &t->job, &unknown, &b[2], 0, STORE_ERROR },
		{ &sp->job, &sp->trigger, &b[3], 0, STORE_ERROR },
		{ &t->job, &t->trigger, &b[4], 1, STORE_ERROR },
	};
	struct status_read *rp[5] = { &r[0], &r[1], &r[2], &r[3], &r[4] };
	int i;

	tap_is_int(store_read_statuses(s, rp, 5, 1000, 300000), STORE_OK,
	    "any: statuses: a trigger's and a savepoint's in one call");
	tap_ok(r[0].rc == STORE_OK && r[1].rc == STORE_OK &&
		r[2].rc == STORE_NOTFOUND && r[3].rc == STORE_NOTFOUND &&
		r[4].rc == STORE_NOTFOUND,
	    "any: statuses: found, found, and not found thrice (%d %d %d %d %d)",
	    r[0].rc, r[1].rc, r[2].rc, r[3].rc, r[4].rc);
	tap_ok(b[0].len > 0 && strstr(buf_str(&b[0]), "IN_PROGRESS") != NULL,
	    "any: statuses: the trigger's answer");
	tap_ok(b[1].len > 0 && strstr(buf_str(&b[1]), "IN_PROGRESS") != NULL,
	    "any: statuses: the savepoint's answer");
	for (i = 0; i < 5; i++)
		buf_free(&b[i]);
}

/*
 * On a database server, a committer's batches in flight
 * (store_record_send): a fresh connection (db) sends a batch of a
 * trigger, then, while it is out, one of a trigger and a savepoint, whose
 * statement the connection has not prepared yet (which pipeline mode
 * cannot do); then a batch of a known trigger and a known savepoint
 * beside a third batch, and receives them in order.
 */
static void
test_any_in_flight(const char *db, const struct trigger_rec *tr,
    const struct savepoint_rec *sp)
{
	struct trigger_rec t2 = *tr, t3 = *tr;
	struct savepoint_rec s2 = *sp;
	const struct trigger_rec *t[2] = { &t2, NULL };
	const struct savepoint_rec *p[2] = { NULL, &s2 };
	const struct trigger_rec *known_t[2] = { tr, NULL };
	const struct savepoint_rec *known_p[2] = { NULL, sp };
	struct store *s;
	struct buf b = { 0 };
	char err[512];
	int c1[1] = { -1 }, c2[2] = { -1, -1 };

	if (open_at(db, &s, err, sizeof(err)) != STORE_OK) {
		tap_ok(0, "any: in flight: open: %s", err);
		return;
	}
	t2.trigger = mkid("b0570000000000000000000000000011");
	t3.trigger = mkid("b0570000000000000000000000000012");
	s2.trigger = mkid("b0570000000000000000000000000013");
	tap_is_int(store_record_send(s, (const struct trigger_rec *[]){ &t3 },
		       (const struct savepoint_rec *[]){ NULL }, 1),
	    STORE_OK, "any: in flight: a trigger sent");
	tap_is_int(store_record_send(s, t, p, 2), STORE_OK,
	    "any: in flight: a trigger and a savepoint sent beside it");
	tap_is_int(store_record_recv(s, c1), STORE_OK,
	    "any: in flight: the first batch's outcome");
	tap_ok(c1[0] == 1, "any: in flight: its trigger new");
	tap_is_int(store_record_recv(s, c2), STORE_OK,
	    "any: in flight: the second batch's outcome");
	tap_ok(c2[0] == 1 && c2[1] == 1, "any: in flight: both new (%d %d)",
	    c2[0], c2[1]);
	tap_is_int(store_record_send(s, known_t, known_p, 2), STORE_OK,
	    "any: in flight: a known trigger and savepoint sent");
	tap_is_int(store_record_send(s, t, p, 2), STORE_OK,
	    "any: in flight: and the batch just recorded, beside it");
	tap_is_int(store_record_recv(s, c2), STORE_OK,
	    "any: in flight: the known ones' outcome");
	tap_ok(c2[0] == 0 && c2[1] == 0, "any: in flight: neither new (%d %d)",
	    c2[0], c2[1]);
	c2[0] = c2[1] = -1;
	tap_is_int(store_record_recv(s, c2), STORE_OK,
	    "any: in flight: the other's outcome");
	tap_ok(c2[0] == 0 && c2[1] == 0, "any: in flight: neither new (%d %d)",
	    c2[0], c2[1]);
	tap_is_int(store_read_savepoint_status(s, &s2.job, &s2.trigger, &b),
	    STORE_OK, "any: in flight: the savepoint's status read after");
	buf_free(&b);
	store_close(s);
}

/*
 * On a database server, a batch refused by a deadlock while a later
 * batch's send read it ahead of its turn is sent again at its turn, as
 * one read at its turn is.  Triggers x and y of two jobs are pending; a
 * runner's transaction on another connection (o) claims y and holds its
 * row; a fresh connection (a) sends a batch of x and y, which locks x and
 * waits for y; o then claims x and waits for the batch: a deadlock, and
 * the batch, which has waited longer, is the one the server refuses (o's
 * claim of x goes through, which it could not otherwise).  A savepoint's
 * batch, whose statement a has not prepared, reads the refusal ahead;
 * at its turn the first batch is sent again and recorded.
 */
static void
test_any_deadlock(const char *db, const struct trigger_rec *tr,
    const struct savepoint_rec *sp)
{
	struct trigger_rec x = *tr, y = *tr;
	struct savepoint_rec s2 = *sp;
	/* Lock waits past the server's deadlock_timeout (1 s). */
	struct store_opts opts = { .path = db, .busy_ms = 5000 };
	struct store *a = NULL, *o = NULL;
	struct job job;
	char err[512];
	int c[2] = { -1, -1 }, made = -1;
	int64_t xrow, yrow;

	x.trigger = mkid("b0570000000000000000000000000021");
	y.trigger = mkid("b0570000000000000000000000000022");
	s2.trigger = mkid("b0570000000000000000000000000023");
	if (store_open(&opts, &a, err, sizeof(err)) != STORE_OK ||
	    store_open(&opts, &o, err, sizeof(err)) != STORE_OK) {
		tap_ok(0, "any: deadlock: open: %s", err);
		goto out;
	}
	/* Two jobs: a runner claims one trigger of a job at a time. */
	memset(&job, 0, sizeof(job));
	job.type = CKPT_FULL;
	job.timeout_s = 60;
	job.id = x.job = mkid("b05700000000000000000000000000dd");
	made = store_job_add(o, &job, 1000) == STORE_OK;
	job.id = y.job = mkid("b05700000000000000000000000000de");
	made = made && store_job_add(o, &job, 1000) == STORE_OK;
	tap_ok(made && store_record_trigger(o, &x, &made) == STORE_OK &&
		made == 1 && store_record_trigger(o, &y, &made) == STORE_OK &&
		made == 1,
	    "any: deadlock: two jobs' triggers pending");
	xrow = pending_row(o, x.job.s, x.trigger.s);
	yrow = pending_row(o, y.job.s, y.trigger.s);
	tap_ok(store_begin(o) == STORE_OK &&
		store_claim(o, yrow, "o", 0, CKPT_FULL, 1000, 61000) ==
		    STORE_OK,
	    "any: deadlock: another connection claims y, uncommitted");
	tap_is_int(store_record_send(a,
		       (const struct trigger_rec *[]){ &x, &y },
		       (const struct savepoint_rec *[]){ NULL, NULL }, 2),
	    STORE_OK, "any: deadlock: a batch of x and y sent");
	/* The batch waits for y before the claim of x waits for it. */
	usleep(300 * 1000);
	tap_is_int(store_claim(o, xrow, "o", 0, CKPT_FULL, 1000, 61000),
	    STORE_OK, "any: deadlock: the claim of x goes through");
	store_rollback(o);
	tap_is_int(store_record_send(a, (const struct trigger_rec *[]){ NULL },
		       (const struct savepoint_rec *[]){ &s2 }, 1),
	    STORE_OK, "any: deadlock: a savepoint's batch sent after it");
	tap_is_int(store_record_recv(a, c), STORE_OK,
	    "any: deadlock: the refused batch, read ahead, sent again");
	tap_ok(c[0] == 0 && c[1] == 0,
	    "any: deadlock: x and y recorded before, not new (%d %d)", c[0],
	    c[1]);
	c[0] = -1;
	tap_is_int(store_record_recv(a, c), STORE_OK,
	    "any: deadlock: the savepoint's batch");
	tap_ok(c[0] == 1, "any: deadlock: the savepoint new (%d)", c[0]);
out:
	if (a != NULL)
		store_close(a);
	if (o != NULL)
		store_close(o);
}

/*
 * On a file, a batch sent is recorded at once and its outcome kept for
 * the receive: one batch at a time (the batch here recorded already).
 */
static void
test_any_file_batch(struct store *s, const struct trigger_rec *const *t,
    const struct savepoint_rec *const *p)
{
	int created[3] = { -1, -1, -1 };

	tap_is_int(store_record_recv(s, created), STORE_ERROR,
	    "any: file: nothing to receive before a send");
	tap_is_int(store_record_send(s, t, p, 3), STORE_OK,
	    "any: file: a batch sent");
	tap_is_int(store_record_send(s, t, p, 3), STORE_ERROR,
	    "any: file: a second before the first is received is refused");
	tap_is_int(store_record_recv(s, created), STORE_OK,
	    "any: file: its outcome received");
	tap_ok(created[0] == 0 && created[1] == 0 && created[2] == 0,
	    "any: file: nothing new, as posts would say (%d %d %d)", created[0],
	    created[1], created[2]);
	tap_is_int(store_record_recv(s, created), STORE_ERROR,
	    "any: file: received once");
}

/*
 * A committer's batch of triggers and savepoints in one transaction
 * (store_record_posts): all recorded; the same batch again creates
 * nothing.  On a database server, batches in flight too.
 */
static void
test_any_posts(struct store *s, const char *db)
{
	struct trigger_rec tr[2];
	struct savepoint_rec sp;
	const struct trigger_rec *t[3];
	const struct savepoint_rec *p[3];
	struct id tid = mkid("b0570000000000000000000000000003");
	struct buf b = { 0 };
	int created[3] = { -1, -1, -1 }, i;

	memset(tr, 0, sizeof(tr));
	for (i = 0; i < 2; i++) {
		tr[i].job = mkid("b0570000000000000000000000000001");
		tr[i].trigger = mkid(i == 0 ?
			"b0570000000000000000000000000001" :
			"b0570000000000000000000000000002");
		tr[i].type = CKPT_CONFIGURED;
		tr[i].now_ms = 1000;
		tr[i].store_ms = 300000;
		tr[i].max_queued = 1000;
	}
	memset(&sp, 0, sizeof(sp));
	sp.job = tr[0].job;
	sp.trigger = tid;
	sp.target_dir = "file:/posts";
	sp.now_ms = 1000;
	t[0] = &tr[0], p[0] = NULL;
	t[1] = NULL, p[1] = &sp;
	t[2] = &tr[1], p[2] = NULL;
	tap_is_int(store_record_posts(s, t, p, 3, created), STORE_OK,
	    "any: posts: two triggers and a savepoint, one transaction");
	tap_ok(created[0] == 1 && created[1] == 1 && created[2] == 1,
	    "any: posts: each new (%d %d %d)", created[0], created[1],
	    created[2]);
	tap_is_int(store_read_savepoint_status(s, &tr[0].job, &tid, &b),
	    STORE_OK, "any: posts: the savepoint's status read");
	buf_reset(&b);
	tap_is_int(store_read_status(s, &tr[1].job, &tr[1].trigger, 1000,
		       300000, &b),
	    STORE_OK, "any: posts: the second trigger's status read");
	tap_is_int(store_record_posts(s, t, p, 3, created), STORE_OK,
	    "any: posts: the same batch again");
	tap_ok(created[0] == 0 && created[1] == 0 && created[2] == 0,
	    "any: posts: nothing new (%d %d %d)", created[0], created[1],
	    created[2]);
	test_any_savepoint_batch(s, &sp);
	test_any_statuses(s, &tr[0], &sp);
	if (store_can(s, STORE_CAN_PIPELINE)) {
		test_any_in_flight(db, &tr[0], &sp);
		test_any_deadlock(db, &tr[0], &sp);
	} else
		test_any_file_batch(s, t, p);
	buf_free(&b);
}

/*
 * The files of a store of STORE_CAN_FILE, each there once the store is
 * open; none for a server.
 */
static void
test_any_files(struct store *s, const char *db)
{
	const char *const *f = store_files(db);
	char got[64] = "", path[PATH_MAX];
	int there = 1;

	for (; f != NULL && *f != NULL; f++) {
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "[%s]",
		    *f);
		snprintf(path, sizeof(path), "%s%s", db, *f);
		there = there && access(path, F_OK) == 0;
	}
	tap_is_str(got, store_can(s, STORE_CAN_FILE) ? "[][-wal][-shm]" : "",
	    "any: %s: its files: %s", store_kind(s),
	    *got != '\0' ? got : "none");
	tap_ok(there, "any: %s: each of them is there", store_kind(s));
}

struct nomem_seen {
	int after; /* allocations left once the first job is read */
	int lost; /* a counter's row came without its value */
};

static int
nomem_cb(const struct row_dump *row, void *arg)
{
	struct nomem_seen *w = arg;

	if (row->table == STORE_ROW_JOB)
		nomem_after = w->after;
	if (row->table == STORE_ROW_COUNTER &&
	    (row->v[0] == NULL || row->v[1] == NULL))
		w->lost = 1;
	return 0;
}

/*
 * An export that SQLite could not complete for want of memory fails,
 * whichever allocation after the job's row is the one refused: none
 * succeeds with a row short of a value.  The sweep reaches the counter's
 * checkpoint id as text, which takes memory (the row comes with a NULL
 * for it); SQLite reports that at the next step, so the export fails,
 * and migrate, which copies in one transaction, keeps nothing of it.
 */
static void
test_col_nomem(void)
{
	struct nomem_seen w;
	struct store *s;
	struct job job;
	char err[512];
	enum store_rc rc;
	int64_t id;
	int after, failed = 0, short_row = 0, lost = 0;

	if (open_at(path_in("nomem.db"), &s, err, sizeof(err)) != STORE_OK) {
		tap_ok(0, "nomem: open: %s", err);
		return;
	}
	memset(&job, 0, sizeof(job));
	job.type = CKPT_FULL;
	job.timeout_s = 60;
	job.id = mkid(J1);
	tap_ok(store_job_add(s, &job, 1000) == STORE_OK &&
		store_next_checkpoint_id(s, &job.id, &id) == STORE_OK,
	    "nomem: a job with a checkpoint counter");
	store_close(s);
	/* A store that met a failure is closed, as the programs do. */
	for (after = 0; after < 100; after++) {
		if (open_at(path_in("nomem.db"), &s, err, sizeof(err)) !=
		    STORE_OK)
			break;
		memset(&w, 0, sizeof(w));
		w.after = after;
		rc = store_export(s, 1000, 0, nomem_cb, &w);
		nomem_after = -1;
		failed += rc != STORE_OK;
		short_row += w.lost;
		lost += rc == STORE_OK && w.lost;
		store_close(s);
	}
	tap_is_int(after, 100,
	    "nomem: 100 exports, one allocation refused each");
	tap_ok(failed > 0 && short_row > 0,
	    "nomem: %d failed, %d after a row short of a value", failed,
	    short_row);
	tap_is_int(lost, 0,
	    "nomem: none succeeded with a row short of a value");
}

/*
 * A store for the sweeps below, which open and close thousands: its
 * commits not synced to disk (synchronous=NORMAL), which they do not
 * test.  Each sweep keeps one more open throughout, so that no close is
 * the last (which copies the WAL back and removes it).
 */
static enum store_rc
nomem_open(const char *name, struct store **s)
{
	struct store_opts o = { .path = path_in(name),
		.sync_normal = 1,
		.busy_ms = 50,
		.create = 1 };
	char err[512];

	return store_open(&o, s, err, sizeof(err));
}

/* A trigger of J5 for the sweeps' batches: triggerId prefix, n, i. */
static void
nomem_trigger(struct trigger_rec *t, const char *prefix, int n, int i)
{
	char hex[33];

	snprintf(hex, sizeof(hex), "%s%020d%08x", prefix, n, i);
	memset(t, 0, sizeof(*t));
	t->job = mkid(J5);
	t->trigger = mkid(hex);
	t->type = CKPT_CONFIGURED;
	t->now_ms = 1000;
	t->max_queued = 100000;
}

/* Whether (job, trigger) has a status, as a trigger or a savepoint. */
static int
nomem_found(struct store *s, const struct id *job, const struct id *trigger,
    int savepoint)
{
	struct buf b = { 0 };
	enum store_rc rc;

	rc = savepoint ? store_read_savepoint_status(s, job, trigger, &b) :
			 store_read_status(s, job, trigger, 1000, 0, &b);
	buf_free(&b);
	return rc == STORE_OK;
}

/*
 * A committer's batch (two triggers and a savepoint, one transaction)
 * with one of SQLite's allocations refused, each in turn until a batch
 * goes through without reaching the refusal: each batch is recorded
 * whole or not at all, whole when it says so, as the store, closed and
 * opened again, reads it.
 */
static void
test_posts_nomem(void)
{
	struct trigger_rec tr[2];
	struct savepoint_rec sp;
	const struct trigger_rec *t[3];
	const struct savepoint_rec *p[3];
	struct store *s, *keep;
	char hex[33];
	enum store_rc rc;
	int after, found, created[3], failed = 0, torn = 0, untold = 0;
	int reached = 1;

	memset(&sp, 0, sizeof(sp));
	if (nomem_open("posts-nomem.db", &keep) != STORE_OK) {
		tap_ok(0, "nomem: posts: open");
		return;
	}
	for (after = 0; after < 5000 && reached; after++) {
		nomem_trigger(&tr[0], "c0de", after, 0);
		nomem_trigger(&tr[1], "c0de", after, 1);
		snprintf(hex, sizeof(hex), "c0de%020d%08x", after, 2);
		sp.trigger = mkid(hex);
		sp.job = mkid(J5);
		sp.target_dir = "file:/nomem";
		sp.now_ms = 1000;
		t[0] = &tr[0], p[0] = NULL;
		t[1] = NULL, p[1] = &sp;
		t[2] = &tr[1], p[2] = NULL;
		if (nomem_open("posts-nomem.db", &s) != STORE_OK)
			break;
		nomem_after = after;
		rc = store_record_posts(s, t, p, 3, created);
		reached = nomem_after < 0;
		nomem_after = -1;
		store_close(s);
		if (nomem_open("posts-nomem.db", &s) != STORE_OK)
			break;
		found = nomem_found(s, &tr[0].job, &tr[0].trigger, 0) +
		    nomem_found(s, &sp.job, &sp.trigger, 1) +
		    nomem_found(s, &tr[1].job, &tr[1].trigger, 0);
		store_close(s);
		failed += rc != STORE_OK;
		torn += found != 0 && found != 3;
		untold += rc == STORE_OK && found != 3;
	}
	store_close(keep);
	tap_ok(!reached, "nomem: batches until one needs no more (%d)", after);
	tap_ok(failed > 0, "nomem: %d batches failed for want of memory",
	    failed);
	tap_is_int(torn, 0, "nomem: none recorded in part");
	tap_is_int(untold, 0, "nomem: none said recorded and missing");
}

/*
 * The runner's completion of a trigger (its claim of an id and its
 * result, one transaction) with one of SQLite's allocations refused,
 * each in turn until one goes through without reaching the refusal:
 * a trigger is completed with the job's next id, or left pending with
 * no id taken (it takes the next id when completed after), so that the
 * ids stay dense.
 */
static void
test_complete_nomem(void)
{
	struct store *s, *keep;
	struct job job;
	char hex[33], want[128];
	const char *got;
	enum store_rc rc;
	int64_t ck, ids = 0;
	int after, created, failed = 0, wrong = 0, reached = 1;

	memset(&job, 0, sizeof(job));
	job.id = mkid(J4);
	job.type = CKPT_FULL;
	job.timeout_s = 60;
	if (nomem_open("complete-nomem.db", &keep) != STORE_OK ||
	    store_job_add(keep, &job, 1000) != STORE_OK) {
		tap_ok(0, "nomem: complete: a job");
		return;
	}
	for (after = 0; after < 5000 && reached; after++) {
		snprintf(hex, sizeof(hex), "c0de%028d", after);
		if (nomem_open("complete-nomem.db", &s) != STORE_OK ||
		    record(s, J4, hex, CKPT_FULL, 1000, 0, &created) !=
			STORE_OK)
			break;
		nomem_after = after;
		rc = complete(s, J4, hex, 1, NULL, NULL, 2000, &ck);
		reached = nomem_after < 0;
		nomem_after = -1;
		store_close(s);
		if (nomem_open("complete-nomem.db", &s) != STORE_OK)
			break;
		/* Completed now, or pending: then completed unhindered. */
		got = status(s, J4, hex, 2000, 0);
		failed += rc != STORE_OK;
		if (strcmp(got, IN_PROGRESS) == 0 && rc != STORE_OK) {
			wrong += complete(s, J4, hex, 1, NULL, NULL, 2000,
				     &ck) != STORE_OK;
			got = status(s, J4, hex, 2000, 0);
		}
		snprintf(want, sizeof(want),
		    "{\"status\":{\"id\":\"COMPLETED\"},"
		    "\"operation\":{\"checkpointId\":%lld}}",
		    (long long)++ids);
		wrong += strcmp(got, want) != 0;
		store_close(s);
	}
	store_close(keep);
	tap_ok(!reached, "nomem: completions until one needs no more (%d)",
	    after);
	tap_ok(failed > 0, "nomem: %d completions failed for want of memory",
	    failed);
	tap_is_int(wrong, 0,
	    "nomem: each completed with the next id, or left pending and "
	    "given the next id after");
}

/*
 * A transaction that fails because memory has run out for good (every
 * allocation from one on refused, each in turn) still ends: the store
 * that met it holds no transaction after, neither its lock against
 * other writers nor one its own next write would find open.
 */
static void
test_rollback_nomem(void)
{
	struct trigger_rec tr[2];
	const struct trigger_rec *t[2] = { &tr[0], &tr[1] };
	const struct savepoint_rec *p[2] = { NULL, NULL };
	struct store *s, *keep;
	char hex[33];
	enum store_rc rc;
	long refused = 1;
	int after, i, created[2], failed = 0, held = 0, open_after = 0;

	if (nomem_open("rollback-nomem.db", &keep) != STORE_OK) {
		tap_ok(0, "nomem: rollback: open");
		return;
	}
	for (after = 0; after < 5000 && refused > 0; after++) {
		if (nomem_open("rollback-nomem.db", &s) != STORE_OK)
			break;
		for (i = 0; i < 2; i++)
			nomem_trigger(&tr[i], "a11e", after, i);
		nomem_refused = 0;
		nomem_all = 1;
		nomem_after = after;
		rc = store_record_posts(s, t, p, 2, created);
		nomem_after = -1;
		nomem_all = 0;
		refused = nomem_refused;
		failed += rc != STORE_OK;
		/* Another writer is not kept out, nor is the store's own. */
		snprintf(hex, sizeof(hex), "b11e%028d", after);
		held += record(keep, J5, hex, CKPT_FULL, 1000, 0,
			    &created[0]) != STORE_OK;
		snprintf(hex, sizeof(hex), "c11e%028d", after);
		tr[0].trigger = mkid(hex);
		open_after += store_record_posts(s, t, p, 2, created) !=
		    STORE_OK;
		store_close(s);
	}
	store_close(keep);
	tap_ok(refused == 0,
	    "nomem: rollback: batches until one needs no more (%d)", after);
	tap_ok(failed > 0,
	    "nomem: rollback: %d batches failed for want of memory", failed);
	tap_is_int(held, 0, "nomem: rollback: no lock held after a failure");
	tap_is_int(open_after, 0,
	    "nomem: rollback: no transaction left open after a failure");
}

struct sched_seen {
	int64_t since_ms;
	int64_t last_slot_ms;
	char state[16];
};

static int
sched_cb(const struct schedule_row *r, void *arg)
{
	struct sched_seen *w = arg;

	w->since_ms = r->since_ms;
	w->last_slot_ms = r->last_slot_ms;
	snprintf(w->state, sizeof(w->state), "%s",
	    r->job_state != NULL ? r->job_state : "");
	return 0;
}

/*
 * A schedule's slot fired (the schedule moved up to it, the slot and its
 * trigger recorded, one transaction) with one of SQLite's allocations
 * refused, each in turn until one goes through without reaching the
 * refusal: the schedule has moved up to the slot exactly when the slot's
 * trigger is there, and has whenever the fire said it fired.  Each
 * trigger is then completed, so that the next slot finds the job idle.
 */
static void
test_fire_nomem(void)
{
	struct store *s, *keep;
	struct job job;
	struct schedule_row row;
	const struct schedule_row *rows[] = { &row };
	struct schedule_fire f;
	struct sched_seen w;
	enum store_rc rc;
	char hex[33];
	int64_t ck;
	int after, fired, moved, there, failed = 0, torn = 0, reached = 1;

	memset(&job, 0, sizeof(job));
	job.id = mkid(J3);
	job.type = CKPT_FULL;
	job.timeout_s = 60;
	if (nomem_open("fire-nomem.db", &keep) != STORE_OK ||
	    store_job_add(keep, &job, 1000) != STORE_OK ||
	    store_schedule_set(keep, &job.id, "CHECKPOINT", 60000, NULL, "unit",
		1000) != STORE_OK) {
		tap_ok(0, "nomem: fire: a job with a schedule");
		return;
	}
	for (after = 0; after < 5000 && reached; after++) {
		memset(&w, 0, sizeof(w));
		if (nomem_open("fire-nomem.db", &s) != STORE_OK ||
		    store_schedule_list(s, &job.id, sched_cb, &w) != STORE_OK)
			break;
		memset(&row, 0, sizeof(row));
		row.job = job.id;
		row.kind = "CHECKPOINT";
		row.every_ms = 60000;
		row.since_ms = w.since_ms;
		row.last_slot_ms = w.last_slot_ms;
		row.job_state = w.state;
		memset(&f, 0, sizeof(f));
		f.slot_ms = (after + 1) * (int64_t)60000;
		f.now_ms = f.slot_ms;
		f.max_queued = 1000;
		snprintf(hex, sizeof(hex), "f17e%028d", after);
		f.trigger = mkid(hex);
		nomem_after = after;
		rc = store_schedule_fire(s, rows, &f, 1);
		fired = f.fired;
		reached = nomem_after < 0;
		nomem_after = -1;
		store_close(s);
		memset(&w, 0, sizeof(w));
		if (nomem_open("fire-nomem.db", &s) != STORE_OK ||
		    store_schedule_list(s, &job.id, sched_cb, &w) != STORE_OK)
			break;
		moved = w.last_slot_ms == f.slot_ms;
		there = nomem_found(s, &job.id, &f.trigger, 0);
		failed += rc != STORE_OK;
		torn += moved != there ||
		    (rc == STORE_OK && fired == 1 && !moved);
		if (there)
			complete(s, J3, hex, 1, NULL, NULL, f.now_ms, &ck);
		store_close(s);
	}
	store_close(keep);
	tap_ok(!reached, "nomem: fires until one needs no more (%d)", after);
	tap_ok(failed > 0, "nomem: %d fires failed for want of memory", failed);
	tap_is_int(torn, 0,
	    "nomem: the schedule moved exactly when its trigger is there");
}

/*
 * --- The queue bound's counts (queue_waiting): after every step of a
 * random mix of what moves a row in or out of a queue, the kept counts
 * are the real ones (store_queue_drift).  The seed is fixed, so a
 * failure repeats. ---
 */
struct drift_run {
	struct store *s;
	uint32_t seed;
	int64_t now;
	int steps, drifted; /* the first step that drifted, or 0 */
};

static uint32_t
drift_rand(struct drift_run *d, uint32_t n)
{
	d->seed ^= d->seed << 13;
	d->seed ^= d->seed >> 17;
	d->seed ^= d->seed << 5;
	return d->seed % n;
}

/* The i-th job: three registered (0 to 2) and one that is not. */
static struct id
drift_job(unsigned i)
{
	char b[33];

	snprintf(b, sizeof(b), "d71f70000000000000000000000000%02x", i);
	return mkid(b);
}

/* A job of the four, or a trigger id of a small pool (so ids recur). */
static struct id
drift_id(struct drift_run *d, int job)
{
	char b[33];

	if (job)
		return drift_job(drift_rand(d, 4));
	snprintf(b, sizeof(b), "d71f7000000000000000000000000%03x",
	    (unsigned)drift_rand(d, 12));
	return mkid(b);
}

static void
drift_record(struct drift_run *d, int n_t, int n_sp)
{
	struct trigger_rec tr[2];
	struct savepoint_rec sp;
	const struct trigger_rec *t[3] = { NULL, NULL, NULL };
	const struct savepoint_rec *p[3] = { NULL, NULL, NULL };
	int created[3], i;

	memset(tr, 0, sizeof(tr));
	memset(&sp, 0, sizeof(sp));
	for (i = 0; i < n_t; i++) {
		tr[i].job = drift_id(d, 1);
		tr[i].trigger = drift_id(d, 0);
		tr[i].type = CKPT_FULL;
		tr[i].now_ms = d->now;
		tr[i].store_ms = 50;
		tr[i].max_queued = 3;
		t[i] = &tr[i];
	}
	sp.job = drift_id(d, 1);
	sp.trigger = drift_id(d, 0);
	sp.target_dir = "file:/drift";
	sp.now_ms = d->now;
	sp.max_queued = 2;
	p[n_t] = n_sp ? &sp : NULL;
	if (n_t + n_sp == 1 && n_t == 1)
		store_record_trigger(d->s, &tr[0], created);
	else if (n_t + n_sp == 1)
		store_record_savepoint(d->s, &sp, created);
	else
		store_record_posts(d->s, t, p, (size_t)(n_t + n_sp), created);
}

/* Claims a waiting trigger, committed or rolled back (an in-doubt end). */
static void
drift_claim(struct drift_run *d)
{
	struct pending p[8];
	size_t n = 0;

	if (store_begin(d->s) != STORE_OK)
		return;
	if (store_pending(d->s, 0, INT64_MAX, 8, p, &n) == STORE_OK && n > 0)
		store_claim(d->s, p[drift_rand(d, (uint32_t)n)].row, "drift", 0,
		    CKPT_FULL, d->now, d->now + 60000);
	store_pending_free(p, n);
	if (drift_rand(d, 3) == 0)
		store_rollback(d->s);
	else
		store_commit(d->s);
}

/* A claim completed, failed or given back (a runner gone, its lease over). */
static void
drift_settle(struct drift_run *d)
{
	struct claim_seen w;
	struct outcome o;

	memset(&w, 0, sizeof(w));
	memset(&o, 0, sizeof(o));
	if (store_claimed(d->s, claimed_cb, &w) != STORE_OK || w.n == 0)
		return;
	if (drift_rand(d, 3) == 0) {
		store_claim_release(d->s, w.c.row, w.c.owner);
		return;
	}
	o.location = "file:///drift/x";
	if (drift_rand(d, 2) == 0) {
		o.location = NULL;
		o.failure_class = "java.lang.Exception";
		o.failure_trace = "java.lang.Exception: drift";
	}
	if (store_begin(d->s) == STORE_OK &&
	    store_complete(d->s, w.c.row, w.c.owner, &o, d->now) == STORE_OK)
		store_commit(d->s);
	else
		store_rollback(d->s);
}

/* A savepoint claimed, or completed claimed or not. */
static void
drift_savepoint(struct drift_run *d)
{
	struct savepoint_task t[8];
	size_t n = 0;
	int64_t row;

	if (store_savepoints_pending(d->s, t, 8, &n) != STORE_OK || n == 0)
		return;
	row = t[drift_rand(d, (uint32_t)n)].row;
	store_savepoint_tasks_free(t, n);
	if (drift_rand(d, 2) == 0)
		store_savepoint_claim(d->s, row, "drift", 0, d->now,
		    d->now + 60000);
	else
		store_savepoint_complete(d->s, row, NULL, 0, NULL,
		    "java.lang.Exception", "java.lang.Exception: drift",
		    d->now);
}

/* Time passes: results expire and are purged, unknown jobs failed. */
static void
drift_purge(struct drift_run *d)
{
	int64_t n;

	d->now += 100;
	store_purge(d->s, d->now, 50, &n);
	if (store_begin(d->s) == STORE_OK &&
	    store_fail_unknown_jobs(d->s, 0, INT64_MAX, "java.lang.Exception",
		"java.lang.Exception: no job %s", d->now, &n) == STORE_OK)
		store_commit(d->s);
	else
		store_rollback(d->s);
}

static void
drift_step(struct drift_run *d)
{
	switch (drift_rand(d, 8)) {
	case 0:
	case 1:
		drift_record(d, 1, 0);
		break;
	case 2:
		drift_record(d, 0, 1);
		break;
	case 3:
		drift_record(d, 2, 1);
		break;
	case 4:
		drift_claim(d);
		break;
	case 5:
		drift_settle(d);
		break;
	case 6:
		drift_savepoint(d);
		break;
	default:
		drift_purge(d);
		break;
	}
}

static void
test_any_queue_counts(struct store *s)
{
	struct drift_run d = { s, 0x9e3779b9u, 0, 0, 0 };
	struct job job = { .state = JOB_RUNNING,
		.type = CKPT_FULL,
		.timeout_s = 60 };
	int64_t drift = -1;
	enum store_rc rc = STORE_OK;
	int i, known = 1;

	d.now = clock_ms(CLOCK_REALTIME);
	for (i = 0; i < 3; i++) {
		job.id = drift_job(i);
		known = known && store_job_add(s, &job, d.now) == STORE_OK;
	}
	tap_ok(known, "any: queue counts: three jobs registered");
	for (d.steps = 1; d.steps <= 600 && d.drifted == 0; d.steps++) {
		drift_step(&d);
		if ((rc = store_queue_drift(s, &drift)) != STORE_OK ||
		    drift != 0)
			d.drifted = d.steps;
	}
	tap_is_int(d.drifted, 0,
	    "any: queue counts: the kept counts are the real ones after "
	    "every step of 600 (drift %lld, rc %d)",
	    (long long)drift, (int)rc);
	job.id = drift_job(0);
	tap_is_int(store_job_rm(s, &job.id), STORE_OK,
	    "any: queue counts: a job with a queue removed");
	tap_ok(store_queue_drift(s, &drift) == STORE_OK && drift == 0,
	    "any: queue counts: no drift after (%lld)", (long long)drift);
}

/* The tests every driver must pass, on an empty database at db. */
/*
 * A round's jobs are its own until its transaction ends: another round
 * on the same range waits, then gives up busy (SQLite: its BEGIN
 * IMMEDIATE; PostgreSQL: the job rows a round locks), and reads the
 * range once the first has ended.
 */
static void
test_any_round_locks(const char *db)
{
	int64_t now = clock_ms(CLOCK_REALTIME), upto;
	struct store *a = NULL, *b = NULL;
	struct trigger_rec t;
	struct job j;
	enum store_rc rc;
	size_t count = 0;
	char err[512];
	int created;

	if (open_at(db, &a, err, sizeof(err)) != STORE_OK ||
	    open_at(db, &b, err, sizeof(err)) != STORE_OK) {
		tap_ok(0, "any: round locks: open: %s", err);
		store_close(a);
		return;
	}
	memset(&j, 0, sizeof(j));
	j.id = mkid("b0570000000000000000000000000021");
	j.state = JOB_RUNNING;
	j.type = CKPT_FULL;
	j.timeout_s = 60;
	memset(&t, 0, sizeof(t));
	t.job = j.id;
	t.trigger = mkid("b0570000000000000000000000000022");
	t.now_ms = now;
	t.store_ms = 300000;
	t.max_queued = 1000;
	rc = store_job_add(a, &j, now);
	if (rc == STORE_OK)
		rc = store_record_trigger(a, &t, &created);
	if (rc == STORE_OK && (rc = store_begin(a)) == STORE_OK)
		rc = store_pending_bound(a, 0, 1000, &upto, &count);
	tap_ok(rc == STORE_OK && count > 0,
	    "any: round locks: a round reads its range (%s, %zu)",
	    store_rc_name(rc), count);
	if ((rc = store_begin(b)) == STORE_OK) {
		rc = store_pending_bound(b, 0, 1000, &upto, &count);
		store_rollback(b);
	}
	tap_is_int(rc, STORE_BUSY,
	    "any: round locks: another round on its range gives up busy");
	store_rollback(a);
	rc = store_begin(b);
	if (rc == STORE_OK)
		rc = store_pending_bound(b, 0, 1000, &upto, &count);
	store_rollback(b);
	tap_is_int(rc, STORE_OK,
	    "any: round locks: and reads it once the first has ended");
	store_close(a);
	store_close(b);
}

static void
test_any_driver(const char *db)
{
	struct store *s;
	char err[512];

	if (open_at(db, &s, err, sizeof(err)) != STORE_OK) {
		tap_ok(0, "any: open: %s", err);
		return;
	}
	test_checkpoint_ids(s);
	test_jobs(s);
	test_any_triggers(s);
	test_any_capabilities(s);
	test_any_files(s, db);
	test_any_savepoints(s);
	test_any_posts(s, db);
	test_any_round_locks(db);
	test_any_queue_counts(s);
	store_close(s);
}

static void
cleanup(void)
{
	char p[512];
	DIR *d;
	struct dirent *e;

	if ((d = opendir(dir)) == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		unlink(p);
	}
	closedir(d);
	rmdir(dir);
}

/*
 * Which store a value names: a libpq URI is PostgreSQL's, refused by a
 * build without it; another scheme is a mistake, not a file name.
 */
static void
test_which_store(void)
{
	struct store *s = NULL;
	char err[512];
	enum store_rc rc;

	rc = open_at("mysql://u:pw@localhost/db", &s, err, sizeof(err));
	tap_is_int(rc, STORE_UNAVAILABLE, "another scheme: refused");
	tap_is_str(err,
	    "unsupported database URI scheme: use a file path or "
	    "postgresql://",
	    "another scheme: says so");
	tap_ok(s == NULL && !file_exists("mysql:"),
	    "another scheme: no store, no file");
#ifndef HAVE_LIBPQ
	rc = open_at("postgresql://u:pw@localhost/db", &s, err, sizeof(err));
	tap_is_int(rc, STORE_UNAVAILABLE, "no libpq: a URI is refused");
	tap_is_str(err,
	    "this build has no PostgreSQL store (configure found no libpq)",
	    "no libpq: says why");
#endif
}

int
main(void)
{
	struct store *s;
	char err[512];
	const char *db;

	/*
	 * UNIT_STORE_DB: the driver tests alone, on that (empty) database:
	 * tests/t6105-pg-unit.sh runs them on PostgreSQL.
	 */
	if ((db = getenv("UNIT_STORE_DB")) != NULL && *db != '\0') {
		test_any_driver(db);
		return tap_done();
	}
	nomem_install();
	snprintf(dir, sizeof(dir), "/tmp/unit-store.XXXXXX");
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 99;
	}
	test_open();
	test_refused();
	test_which_store();
	if (open_at(path_in("main.db"), &s, err, sizeof(err)) == STORE_OK) {
		test_triggers(s);
		test_checkpoint_ids(s);
		test_jobs(s);
		test_trigger_list(s);
		test_claims(s);
		test_failure_json(s);
		store_close(s);
	} else
		tap_ok(0, "open main.db: %s", err);
	test_migrate_failures();
	test_purge();
	test_ckpt_stats();
	test_busy();
	test_on_commit();
	test_col_nomem();
	test_posts_nomem();
	test_rollback_nomem();
	test_complete_nomem();
	test_fire_nomem();
	test_any_driver(path_in("any.db"));
	cleanup();
	tap_ok(!file_exists(dir), "the temporary directory is removed");
	return tap_done();
}
