/*
 * A pool of read connections shared by a process's threads.  A connection
 * costs its schema, statements and page cache, so one per thread made
 * the many threads of the nginx keepalive deployment heavy; reads are
 * short, so a few connections serve many threads.  Slots hold an open
 * store or NULL (opened by the borrower, or closed after a fault).
 *
 * Reads together.  On a database server every statement costs a round
 * trip and the server's work of starting one, whatever it reads.  There
 * a GET's status read waits in the pool's queue (readers_join) for a free
 * connection or for another thread to read it: the thread that gets a
 * connection leads, takes every read queued, READERS_BATCH at most, reads
 * them in one statement (store_read_statuses) and wakes their threads
 * (readers_answered).  That cut the server's CPU a GET and raised the
 * app's GETs against the ceiling (scripts/bench.d/results.md).  SQLite
 * reads in the process: there each thread reads alone.
 */
#include <config.h>

#include <pthread.h>
#include <stdlib.h>
#include <stddef.h>

#include "readers.h"

struct readers {
	pthread_mutex_t lock;
	pthread_cond_t given;
	int together; /* status reads go together (STORE_CAN_READ_TOGETHER) */
	struct grouped_read *head, *tail; /* status reads waiting */
	size_t nfree;
	struct store *free[]; /* nfree slots at the front */
};

struct readers *
readers_new(size_t n, int together)
{
	struct readers *rd;

	if (n == 0 ||
	    (rd = calloc(1, sizeof(*rd) + n * sizeof(struct store *))) == NULL)
		return NULL;
	pthread_mutex_init(&rd->lock, NULL);
	pthread_cond_init(&rd->given, NULL);
	rd->nfree = n;
	rd->together = together;
	return rd;
}

int
readers_together(const struct readers *rd)
{
	return rd->together;
}

/* The caller guarantees that every borrowed connection was given back. */
void
readers_free(struct readers *rd)
{
	size_t i;

	if (rd == NULL)
		return;
	for (i = 0; i < rd->nfree; i++)
		store_close(rd->free[i]);
	pthread_cond_destroy(&rd->given);
	pthread_mutex_destroy(&rd->lock);
	free(rd);
}

/* Waits for a free slot: an open store, or NULL for the caller to open. */
struct store *
readers_take(struct readers *rd)
{
	struct store *s;

	pthread_mutex_lock(&rd->lock);
	while (rd->nfree == 0)
		pthread_cond_wait(&rd->given, &rd->lock);
	s = rd->free[--rd->nfree];
	pthread_mutex_unlock(&rd->lock);
	return s;
}

/* A slot back: for a thread waiting to lead status reads, or to borrow. */
void
readers_give(struct readers *rd, struct store *s)
{
	pthread_mutex_lock(&rd->lock);
	rd->free[rd->nfree++] = s;
	if (rd->head != NULL)
		pthread_cond_signal(&rd->head->answered);
	pthread_cond_signal(&rd->given);
	pthread_mutex_unlock(&rd->lock);
}

/*
 * Queues req (its read filled in) and waits until another thread has
 * read it (0), or until a connection is free: then the caller leads,
 * *s is the slot to read on (NULL: open one), and the reads to make are
 * in b, req's first; their number is returned.  A leader reads them
 * with store_read_statuses, sets each rc, then calls readers_answered
 * and gives the slot back.
 */
size_t
readers_join(struct readers *rd, struct grouped_read *req, struct store **s,
    struct read_batch *b)
{
	struct grouped_read *q, **at;
	size_t n = 0;

	req->done = req->taken = 0;
	req->next = NULL;
	pthread_cond_init(&req->answered, NULL);
	pthread_mutex_lock(&rd->lock);
	if (rd->tail != NULL)
		rd->tail->next = req;
	else
		rd->head = req;
	rd->tail = req;
	/* Taken by a leader, it waits for that leader's answer. */
	while (!req->done && (req->taken || rd->nfree == 0))
		pthread_cond_wait(&req->answered, &rd->lock);
	if (!req->done) {
		*s = rd->free[--rd->nfree];
		/* req first, then the others from the head of the queue. */
		b->group[n] = req;
		b->read[n++] = &req->read;
		for (at = &rd->head; (q = *at) != NULL;) {
			if (q != req && n == READERS_BATCH) {
				at = &q->next;
				continue;
			}
			*at = q->next;
			q->taken = 1;
			if (q != req) {
				b->group[n] = q;
				b->read[n++] = &q->read;
			}
		}
		rd->tail = NULL;
		for (q = rd->head; q != NULL; q = q->next)
			rd->tail = q;
	}
	pthread_mutex_unlock(&rd->lock);
	/* Nothing signals it now: a follower's leader did, under the lock. */
	pthread_cond_destroy(&req->answered);
	b->n = n;
	return n;
}

/*
 * The reads of the leader's batch are answered (their rc set): the
 * threads of all but the leader's own, the first, go on.
 */
void
readers_answered(struct readers *rd, const struct read_batch *b)
{
	struct grouped_read *q;
	size_t i;

	pthread_mutex_lock(&rd->lock);
	for (i = 1; i < b->n; i++) {
		q = b->group[i];
		q->done = 1;
		pthread_cond_signal(&q->answered);
	}
	pthread_mutex_unlock(&rd->lock);
}
