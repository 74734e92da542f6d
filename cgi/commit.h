/*
 * Group commit: concurrent POSTs of one process share one transaction and
 * one fsync.  Each POST gets its answer only after the transaction that
 * holds its trigger has committed, or an error if it did not: never a
 * 202 for a trigger that is not on disk.  The head of commit.c maps the
 * way of a POST through the worker, this committer and its reply.
 */
#ifndef COMMIT_H
#define COMMIT_H

#include <semaphore.h>

#include "buf.h"
#include "settings.h"
#include "store.h"

struct committer;
struct response;

/*
 * A POST in flight, from commit_submit to its reply: the trigger to
 * record, how its transaction ended, the answer to make of that, and the
 * wake-up of the thread that waits for the answer to be sent.  reply runs
 * in the committer thread once that transaction is over, rc STORE_OK only
 * if it committed; it must not block for long (every trigger of the next
 * transaction waits for it), and the committer touches nothing of the
 * post after it returns.
 */
struct post {
	/*
	 * Its strings are the request's.  Of a savepoint or stop, the job
	 * and trigger only, which its answer names.
	 */
	struct trigger_rec rec;
	int is_savepoint; /* sp, not rec, is recorded */
	struct savepoint_rec sp; /* its target_dir is dir's */
	struct buf dir; /* the post's own, reused */
	enum store_rc rc; /* set by the committer before reply */
	int created; /* STORE_OK: recorded now, not already known */
	struct response *answer; /* made and sent by reply */
	void (*reply)(struct post *);
	void *replier; /* reply's own: whom it sends the answer for */
	sem_t replied; /* posted by reply once the answer is sent */
	struct post *next; /* the committer's queue */
};

struct committer *commit_new(const struct settings *);
void commit_submit(struct committer *, struct post *);
void commit_free(struct committer *);

#endif /* COMMIT_H */
