/*
 * What every handler does alike: reach the store, answer its failures,
 * and read the ids of the path.  See exchange.h.
 */
#include <config.h>

#include <string.h>

#include "exchange.h"
#include "log.h"
#include "readers.h"

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
	struct store_opts o;
	enum store_rc rc;
	char err[512];

	if (a->readers != NULL && !a->borrowed) {
		a->store = readers_take(a->readers);
		a->borrowed = 1;
	}
	/* Kept open, not reopened: see store_replaced. */
	if (a->store != NULL && store_replaced(a->store, 100)) {
		http_error(x->res, ERR_UNAVAILABLE);
		return NULL;
	}
	if (a->store != NULL)
		return a->store;
	/* Point reads by key: a small cache per thread keeps RSS low. */
	settings_store_opts(a->settings, 256, &o);
	if ((rc = store_open(&o, &a->store, err, sizeof(err))) != STORE_OK) {
		log_error("open store: %s", err);
		a->store = NULL;
		http_error(x->res,
		    rc == STORE_BUSY ? ERR_BUSY : ERR_UNAVAILABLE);
	}
	return a->store;
}

/* The answer to a failed store operation. */
enum api_error
exchange_store_error(enum store_rc rc)
{
	switch (rc) {
	case STORE_BUSY:
		return ERR_BUSY;
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
	struct api *a = x->api;

	if (rc != STORE_BUSY) {
		store_close(a->store);
		a->store = NULL;
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
