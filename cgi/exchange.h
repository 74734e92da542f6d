/*
 * One request being answered, as its handler sees it (route.h names the
 * handler of each route), and the helpers every handler shares: the
 * store, the answer to its failures, and the ids of the path.
 */
#ifndef EXCHANGE_H
#define EXCHANGE_H

#include <stdint.h>

#include "api.h"
#include "ids.h"
#include "route.h"

struct exchange {
	struct api *api; /* the thread's resources */
	const struct request *req;
	const struct route *route;
	struct response *res; /* the answer, unless deferred */
	int64_t now_ms;
	struct store *loan; /* from api->readers, while on_loan */
	int on_loan; /* borrowed: given back when the request ends */
	int deferred; /* req->post's reply answers (a POST): see trigger.h */
};

struct store *exchange_store(struct exchange *);
enum api_error exchange_store_error(enum store_rc);
void exchange_store_failed(struct exchange *, enum store_rc);
int exchange_path_id(struct exchange *, const struct segment *,
    const char *name, struct id *);
/*
 * The path's job id into job, then the store: NULL when either failed,
 * the answer already given.
 */
struct store *exchange_job(struct exchange *, struct id *job);
void exchange_path_error(struct exchange *, const struct segment *,
    const char *name);
/*
 * On a store that reads together (readers_together): a GET's status
 * read, a savepoint's or a trigger's, with the other threads' waiting at
 * the same time; STORE_OK, STORE_NOTFOUND, or the failure, answered.
 */
enum store_rc exchange_read_together(struct exchange *, const struct id *job,
    const struct id *trigger, int savepoint);

#endif /* EXCHANGE_H */
