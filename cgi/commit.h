/*
 * Group commit: concurrent POSTs of one process share one transaction and
 * one fsync.  Each caller gets its answer only after the transaction that
 * holds its trigger has committed, or an error if it did not: never a
 * 202 for a trigger that is not on disk.  The head of commit.c maps the
 * way of a POST through the worker, this committer and their callbacks.
 */
#ifndef COMMIT_H
#define COMMIT_H

#include "settings.h"
#include "store.h"

struct committer;

/*
 * A trigger queued for the next transaction, and who hears how it ended.
 * answer runs in the committer thread once that transaction is over, rc
 * STORE_OK only if it committed; it must not block for long (every
 * trigger of the next transaction waits for it), and the committer
 * touches nothing of the commit_req after it returns.
 */
struct commit_req {
	const struct trigger_rec *rec;
	void (*answer)(struct commit_req *, enum store_rc rc, int created);
	struct commit_req *next; /* the committer's */
};

struct committer *commit_new(const struct settings *);
void commit_submit(struct committer *, struct commit_req *);
void commit_free(struct committer *);

#endif /* COMMIT_H */
