/*
 * A pool of read connections shared by a process's threads.  A connection
 * costs about 350 KiB (schema, statements, page cache), so one per thread
 * made 64 threads (the nginx keepalive deployment) weigh 26 MiB; reads are
 * short, so a few connections serve many threads.  Slots hold an open
 * store or NULL (opened by the borrower, or closed after a fault).
 */
#include <config.h>

#include <pthread.h>
#include <stdlib.h>

#include "readers.h"

struct readers {
	pthread_mutex_t lock;
	pthread_cond_t given;
	size_t nfree;
	struct store *free[]; /* nfree slots at the front */
};

struct readers *
readers_new(size_t n)
{
	struct readers *rd;

	if (n == 0 ||
	    (rd = calloc(1, sizeof(*rd) + n * sizeof(struct store *))) == NULL)
		return NULL;
	pthread_mutex_init(&rd->lock, NULL);
	pthread_cond_init(&rd->given, NULL);
	rd->nfree = n;
	return rd;
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

void
readers_give(struct readers *rd, struct store *s)
{
	pthread_mutex_lock(&rd->lock);
	rd->free[rd->nfree++] = s;
	pthread_cond_signal(&rd->given);
	pthread_mutex_unlock(&rd->lock);
}
