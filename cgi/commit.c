/*
 * Group commit by one committer thread.  A worker with a trigger to record
 * queues it and sleeps; the committer takes everything queued at that
 * moment and writes it all in one BEGIN IMMEDIATE ... COMMIT on its own
 * connection, then wakes exactly the workers it answered.  Workers that
 * queued during that commit go in the next one, which starts at once: the
 * committer never waits to be scheduled between two commits while there
 * is work.  With a disk that syncs in half a millisecond, every request
 * that arrives during one sync shares the next one.  See commit.h.
 *
 * Each worker sleeps on its own semaphore, so a commit wakes only the
 * threads it answered (a shared condition variable woke them all: 4.9
 * futex calls per POST, see the note on issue 6).  The lock guards only
 * the queue; wake-ups happen outside it.
 */
#include <config.h>

#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>

#include "commit.h"
#include "log.h"

#define COMMIT_MAX_BATCH 256

/* A queued trigger, on its worker's stack. */
struct waiter {
	const struct trigger_rec *rec;
	int created;
	enum store_rc rc;
	sem_t done; /* posted once its transaction is over */
	struct waiter *next;
};

struct committer {
	const struct settings *settings;
	struct store *store; /* the committer's own, opened lazily */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t work; /* the committer sleeps here when idle */
	struct waiter *head, *tail; /* queued, in arrival order */
	int idle; /* the committer waits on work */
	int stop;
};

static void *commit_main(void *);

/*
 * Starts the committer thread.  The caller has blocked the signals it
 * handles, so that the thread inherits the mask.
 */
struct committer *
commit_new(const struct settings *st)
{
	struct committer *c;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	c->settings = st;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->work, NULL);
	if (pthread_create(&c->thread, NULL, commit_main, c) != 0) {
		pthread_cond_destroy(&c->work);
		pthread_mutex_destroy(&c->lock);
		free(c);
		return NULL;
	}
	return c;
}

/*
 * Stops the committer once the queue is empty.  The caller guarantees that
 * no worker is in commit_record any more.
 */
void
commit_free(struct committer *c)
{
	if (c == NULL)
		return;
	pthread_mutex_lock(&c->lock);
	c->stop = 1;
	pthread_cond_signal(&c->work);
	pthread_mutex_unlock(&c->lock);
	pthread_join(c->thread, NULL);
	store_close(c->store);
	pthread_cond_destroy(&c->work);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

/* One transaction for the batch, without the lock. */
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

static void *
commit_main(void *arg)
{
	struct committer *c = arg;
	struct waiter *batch[COMMIT_MAX_BATCH], *w;
	size_t i, n;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		while (c->head == NULL && !c->stop) {
			c->idle = 1;
			pthread_cond_wait(&c->work, &c->lock);
		}
		c->idle = 0;
		if (c->head == NULL)
			break;
		for (n = 0, w = c->head; w != NULL && n < COMMIT_MAX_BATCH;
		     w = w->next)
			batch[n++] = w;
		c->head = w;
		if (c->head == NULL)
			c->tail = NULL;
		pthread_mutex_unlock(&c->lock);

		commit_batch(c, batch, n);
		/*
		 * After its post a worker may return and its waiter go out
		 * of scope: nothing of it is touched after the post (glibc's
		 * sem_post allows the semaphore to be destroyed as soon as
		 * sem_wait returns).
		 */
		for (i = 0; i < n; i++)
			sem_post(&batch[i]->done);

		pthread_mutex_lock(&c->lock);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

enum store_rc
commit_record(struct committer *c, const struct trigger_rec *rec, int *created)
{
	struct waiter me;

	memset(&me, 0, sizeof(me));
	me.rec = rec;
	sem_init(&me.done, 0, 0);
	pthread_mutex_lock(&c->lock);
	/* me leaves the queue (taken by the committer) before it is posted. */
	if (c->tail != NULL)
		c->tail->next = &me;
	else
		c->head = &me; /* cppcheck-suppress autoVariables */
	c->tail = &me; /* cppcheck-suppress autoVariables */
	if (c->idle) {
		c->idle = 0; /* one wake-up is enough */
		pthread_cond_signal(&c->work);
	}
	pthread_mutex_unlock(&c->lock);
	while (sem_wait(&me.done) == -1)
		; /* EINTR: workers block signals, but be safe */
	sem_destroy(&me.done);
	*created = me.created;
	return me.rc;
}
