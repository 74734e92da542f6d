/*
 * What every handler does alike: reach the store, answer its failures,
 * and read the ids of the path.  See exchange.h.
 */
#include <config.h>

#include <string.h>

#include "exchange.h"
#include "readers.h"

/*
 * The connection the request reads on, open or not: the one borrowed
 * from the pool, or the api's own without one.
 */
static struct store **
exchange_connection(struct exchange *x)
{
	return x->api->readers != NULL ? &x->loan : &x->api->store;
}

/*
 * The store, opened on first use and again after a fault, so that a
 * database that was missing or unreadable is picked up without a restart
 * (one replaced while open is refused instead: store_replaced).  NULL:
 * the response holds the 503 naming the cause; the log has the path and
 * the error.
 */
struct store *
exchange_store(struct exchange *x)
{
	struct api *a = x->api;
	struct store **s;
	enum store_rc rc;

	if (a->readers != NULL && !x->on_loan) {
		x->loan = readers_take(a->readers);
		x->on_loan = 1;
	}
	s = exchange_connection(x);
	/* Kept open, not reopened: see store_replaced. */
	if (*s != NULL && store_replaced(*s, 100)) {
		http_error(x->res, ERR_UNAVAILABLE);
		return NULL;
	}
	if (*s != NULL)
		return *s;
	/* Point reads by key: a small cache per thread keeps RSS low. */
	if ((rc = settings_open_store(a->settings, 256, s)) != STORE_OK)
		http_error(x->res,
		    exchange_store_error(
			rc == STORE_ERROR ? STORE_UNAVAILABLE : rc));
	return *s;
}

/* The answer to a failed store operation. */
enum api_error
exchange_store_error(enum store_rc rc)
{
	switch (rc) {
	case STORE_BUSY:
		return ERR_BUSY;
	case STORE_READONLY:
		return ERR_READONLY;
	case STORE_MISSING:
		return ERR_NO_DATABASE;
	case STORE_ERROR:
		return ERR_INTERNAL;
	default:
		return ERR_UNAVAILABLE;
	}
}

/*
 * Answers a failed store operation; a store that is unavailable or failed
 * is closed so the next request reopens it.  A locked one is kept.
 */
void
exchange_store_failed(struct exchange *x, enum store_rc rc)
{
	struct store **s = exchange_connection(x);

	if (rc != STORE_BUSY) {
		store_close(*s);
		*s = NULL;
	}
	http_error(x->res, exchange_store_error(rc));
}

/* Answers Flink's 400 for the path parameter name of value seg. */
void
exchange_path_error(struct exchange *x, const struct segment *seg,
    const char *name)
{
	struct buf raw = { 0 };

	/*
	 * The value is echoed whole, as Flink does (the web server bounds a
	 * path's length); JSON-escaped later.
	 */
	if (buf_add(&raw, seg->p, seg->len) == -1)
		http_error(x->res, ERR_INTERNAL);
	else
		http_error(x->res, ERR_PATH_PARAM, name, buf_str(&raw));
	buf_free(&raw);
}

struct store *
exchange_job(struct exchange *x, struct id *job)
{
	if (exchange_path_id(x, &x->route->jobid, "jobid", job) == -1)
		return NULL;
	return exchange_store(x);
}

/* Validates a path id; on failure answers Flink's 400. */
int
exchange_path_id(struct exchange *x, const struct segment *seg,
    const char *name, struct id *out)
{
	if (id_parse(seg->p, seg->len, out) == 0)
		return 0;
	exchange_path_error(x, seg, name);
	return -1;
}

/*
 * A status read together with the other threads' waiting at the same time
 * (readers.h): read by this thread, the leader, on a connection of the
 * pool, or by another.  A follower's failure is answered here; the
 * leader's store is then closed as exchange_store_failed closes it.
 */
enum store_rc
exchange_read_together(struct exchange *x, const struct id *job,
    const struct id *trigger, int savepoint)
{
	struct api *a = x->api;
	struct grouped_read mine;
	struct read_batch batch;
	struct store *s;
	enum store_rc rc;
	size_t n, i;

	mine.read.job = job;
	mine.read.trigger = trigger;
	mine.read.json = &x->res->body;
	mine.read.savepoint = savepoint;
	if ((n = readers_join(a->readers, &mine, &x->loan, &batch)) == 0)
		rc = mine.read.rc;
	else {
		x->on_loan = 1;
		rc = (s = exchange_store(x)) == NULL ?
		    STORE_UNAVAILABLE :
		    store_read_statuses(s, batch.read, n, x->now_ms,
			a->settings->store_ms);
		if (rc != STORE_OK) {
			for (i = 0; i < n; i++)
				batch.read[i]->rc = rc;
			if (s != NULL && rc != STORE_BUSY) {
				store_close(x->loan);
				x->loan = NULL;
			}
		}
		readers_answered(a->readers, &batch);
		rc = mine.read.rc;
	}
	return rc;
}
