/*
 * Group commit by leader and followers.  A thread with a trigger to record
 * queues it; if no transaction is under way it becomes the leader, takes
 * everything queued at that moment, and writes it all in one BEGIN
 * IMMEDIATE ... COMMIT on the committer's own connection; threads that
 * queued meanwhile wait and go in the next transaction.  With a disk that
 * syncs in a millisecond, every request that arrives during one sync
 * shares the next one.  See commit.h.
 */
#include <config.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "commit.h"
#include "log.h"

#define COMMIT_MAX_BATCH 256

/* A queued trigger, on its caller's stack. */
struct waiter {
	const struct trigger_rec *rec;
	int created;
	enum store_rc rc;
	int done;
	struct waiter *next;
};

struct committer {
	const struct settings *settings;
	struct store *store; /* the leader's, opened lazily */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct waiter *head, *tail; /* queued, in arrival order */
	int leading; /* a transaction is under way */
};

struct committer *
commit_new(const struct settings *st)
{
	struct committer *c;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	c->settings = st;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->cond, NULL);
	return c;
}

void
commit_free(struct committer *c)
{
	if (c == NULL)
		return;
	store_close(c->store);
	pthread_mutex_destroy(&c->lock);
	pthread_cond_destroy(&c->cond);
	free(c);
}

/* The leader's work, without the lock: one transaction for the batch. */
static void
commit_batch(struct committer *c, struct waiter **batch, size_t n)
{
	const struct trigger_rec *recs[COMMIT_MAX_BATCH];
	int created[COMMIT_MAX_BATCH];
	struct store_opts o;
	enum store_rc rc;
	char err[512];
	size_t i;

	memset(created, 0, sizeof(created));
	rc = STORE_OK;
	if (c->store == NULL) {
		memset(&o, 0, sizeof(o));
		o.path = c->settings->db_path;
		o.sync_normal = c->settings->sync_normal;
		o.busy_ms = c->settings->busy_ms;
		o.cache_kib = 512;
		if ((rc = store_open(&o, &c->store, err, sizeof(err))) !=
		    STORE_OK) {
			log_error("open store: %s", err);
			c->store = NULL;
		}
	}
	for (i = 0; i < n; i++)
		recs[i] = batch[i]->rec;
	if (rc == STORE_OK)
		rc = store_record_triggers(c->store, recs, n, created);
	if (rc != STORE_OK && rc != STORE_BUSY) {
		/* Reopen next time: the file may be gone or replaced. */
		store_close(c->store);
		c->store = NULL;
	}
	for (i = 0; i < n; i++) {
		batch[i]->rc = rc;
		batch[i]->created = rc == STORE_OK ? created[i] : 0;
	}
}

enum store_rc
commit_record(struct committer *c, const struct trigger_rec *rec, int *created)
{
	struct waiter me, *batch[COMMIT_MAX_BATCH], *w;
	size_t n;

	memset(&me, 0, sizeof(me));
	me.rec = rec;
	pthread_mutex_lock(&c->lock);
	/* me leaves the queue (taken by a leader) before this returns. */
	if (c->tail != NULL)
		c->tail->next = &me;
	else
		c->head = &me; /* cppcheck-suppress autoVariables */
	c->tail = &me; /* cppcheck-suppress autoVariables */
	while (!me.done) {
		if (c->leading) {
			pthread_cond_wait(&c->cond, &c->lock);
			continue;
		}
		/* Lead: take what is queued, up to a batch. */
		c->leading = 1;
		for (n = 0, w = c->head; w != NULL && n < COMMIT_MAX_BATCH;
		     w = w->next)
			batch[n++] = w;
		c->head = w;
		if (c->head == NULL)
			c->tail = NULL;
		pthread_mutex_unlock(&c->lock);

		commit_batch(c, batch, n);

		pthread_mutex_lock(&c->lock);
		while (n > 0)
			batch[--n]->done = 1;
		c->leading = 0;
		pthread_cond_broadcast(&c->cond);
	}
	pthread_mutex_unlock(&c->lock);
	*created = me.created;
	return me.rc;
}
