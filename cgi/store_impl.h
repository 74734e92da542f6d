/*
 * Behind the seam: what a store (store_sqlite.c, store_pg.c) gives
 * store.c, which picks one by the value of CHECKPOINT_DB and hands its
 * callers a struct store whose first member is the table below.  Each
 * operation means what store.h says of the function of the same name.
 * Nothing but store.c and the stores includes this file.
 */
#ifndef STORE_IMPL_H
#define STORE_IMPL_H

#include "store.h"

struct store_ops {
	const char *name; /* "sqlite", "postgresql" */
	int (*schema_version)(void);
	void (*close)(struct store *);
	const char *(*error)(const struct store *);
	enum store_rc (
	    *record_trigger)(struct store *, const struct trigger_rec *, int *);
	enum store_rc (*record_triggers)(struct store *,
	    const struct trigger_rec *const *, size_t, int *);
	/* NULL: the store has no pipeline (store_record_send). */
	enum store_rc (*record_send)(struct store *,
	    const struct trigger_rec *const *, size_t);
	enum store_rc (*record_recv)(struct store *, int *);
	enum store_rc (*read_status)(struct store *, const struct id *,
	    const struct id *, int64_t, int64_t, struct buf *);
	/* NULL: store.c reads them one by one with read_status. */
	enum store_rc (*read_statuses)(struct store *,
	    struct status_read *const *, size_t, int64_t, int64_t);
	enum store_rc (*job_known)(struct store *, const struct id *);
	enum store_rc (*job_add)(struct store *, const struct job *, int64_t);
	enum store_rc (
	    *job_set)(struct store *, const struct job *, int, int64_t);
	enum store_rc (*job_rm)(struct store *, const struct id *);
	enum store_rc (*job_list)(struct store *, store_job_cb, void *);
	enum store_rc (*job_overview)(struct store *, store_job_cb, void *);
	enum store_rc (*ckpt_counts)(struct store *, const struct id *,
	    struct ckpt_counts *);
	enum store_rc (*ckpt_latest)(struct store *, const struct id *,
	    store_ckpt_cb, void *);
	enum store_rc (*ckpt_history)(struct store *, const struct id *,
	    int64_t, store_ckpt_cb, void *);
	enum store_rc (*ckpt_get)(struct store *, const struct id *, int64_t,
	    store_ckpt_cb, void *);
	enum store_rc (*ckpt_durations)(struct store *, const struct id *,
	    size_t, int64_t *, size_t *);
	enum store_rc (*trigger_list)(struct store *, const struct id *,
	    int64_t, store_trigger_cb, void *);
	enum store_rc (*trigger_recent)(struct store *, const struct id *,
	    int64_t, store_trigger_cb, void *);
	enum store_rc (*trigger_waiting)(struct store *, const struct id *,
	    int64_t *, int64_t *, int64_t *);
	enum store_rc (*purge)(struct store *, int64_t, int64_t, int64_t *);
	enum store_rc (*begin)(struct store *);
	enum store_rc (*read_begin)(struct store *);
	enum store_rc (*commit)(struct store *);
	void (*rollback)(struct store *);
	enum store_rc (*pending_bound)(struct store *, int64_t, size_t,
	    int64_t *, size_t *);
	enum store_rc (*fail_unknown_jobs)(struct store *, int64_t, int64_t,
	    const char *, const char *, int64_t, int64_t *);
	enum store_rc (*complete_plain)(struct store *, int64_t, int64_t,
	    int64_t, int64_t *);
	enum store_rc (*pending)(struct store *, int64_t, int64_t, size_t,
	    struct pending *, size_t *);
	enum store_rc (
	    *next_checkpoint_id)(struct store *, const struct id *, int64_t *);
	enum store_rc (*complete)(struct store *, int64_t, const char *,
	    const struct outcome *, int64_t);
	enum store_rc (*claim)(struct store *, int64_t, const char *, int64_t,
	    enum ckpt_type, int64_t, int64_t);
	enum store_rc (*claim_renew)(struct store *, int64_t, const char *,
	    int64_t, int64_t);
	enum store_rc (*claimed)(struct store *, store_stale_cb, void *);
	enum store_rc (*wal_checkpoint)(struct store *, int *);
	enum store_rc (*data_version)(struct store *, int64_t *);
	int (*replaced)(struct store *, int64_t);
	enum store_rc (*wal_checkpoint_passive)(struct store *, int *, int *);
	void (*on_commit)(struct store *, void (*)(void *, int), void *);
	int (*watch_fd)(struct store *);
	enum store_rc (
	    *runner_pass)(struct store *, int64_t, int64_t, int64_t, int64_t);
	enum store_rc (*metrics)(struct store *, struct service_metrics *,
	    store_metrics_cb, void *);
	enum store_rc (
	    *export)(struct store *, int64_t, int64_t, store_item_cb, void *);
	enum store_rc (*import_begin)(struct store *);
	enum store_rc (*import)(struct store *, const struct store_item *);
	enum store_rc (*import_commit)(struct store *);
};

struct store {
	const struct store_ops *ops;
};

/* The length of a NULL-terminated list: a series of migrations. */
int store_count(const char *const *);

void store_sqlite_init(void);
enum store_rc store_sqlite_open(const struct store_opts *, struct store **,
    char *err, size_t errlen);
#ifdef HAVE_LIBPQ
void store_pg_init(void);
enum store_rc store_pg_open(const struct store_opts *, struct store **,
    char *err, size_t errlen);
#endif

#endif /* STORE_IMPL_H */
