/*
 * A pool of read connections shared by a process's threads: a thread
 * borrows one for the length of a request and gives it back.  On a
 * database server (STORE_CAN_READ_TOGETHER), the status reads of threads
 * that wait at the same time go together in one statement (readers_join).
 */
#ifndef READERS_H
#define READERS_H

#include <pthread.h>
#include <stddef.h>

#include "store.h"

/* The most status reads one statement carries. */
#define READERS_BATCH 64

struct readers;

/* A status read waiting in the pool's queue to be read with others. */
struct grouped_read {
	struct status_read read;
	pthread_cond_t answered;
	int taken; /* out of the queue, in a leader's batch */
	int done; /* its leader read it: read.rc is set */
	struct grouped_read *next;
};

/*
 * The reads a leader makes in one statement: the leader's own first.
 * read[i] is group[i]'s read, as store_read_statuses takes them.
 */
struct read_batch {
	size_t n;
	struct grouped_read *group[READERS_BATCH];
	struct status_read *read[READERS_BATCH];
};

struct readers *readers_new(size_t, int together);
void readers_free(struct readers *);
int readers_together(const struct readers *);
struct store *readers_take(struct readers *);
void readers_give(struct readers *, struct store *);
size_t readers_join(struct readers *, struct grouped_read *, struct store **,
    struct read_batch *);
void readers_answered(struct readers *, const struct read_batch *);

#endif /* READERS_H */
