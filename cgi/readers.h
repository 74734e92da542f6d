/*
 * A pool of read connections shared by a process's threads: a thread
 * borrows one for the length of a request and gives it back.  On a
 * database server (store_remote), the status reads of threads that wait
 * at the same time go together in one statement (readers_join).
 */
#ifndef READERS_H
#define READERS_H

#include <pthread.h>
#include <stddef.h>

#include "store.h"

/* The most status reads one statement carries. */
#define READERS_BATCH 64

struct readers;

/* A status read waiting in the pool's queue: readers_join's. */
struct readers_req {
	struct status_read read; /* first: readers_answered finds req by it */
	pthread_cond_t answered;
	int taken; /* out of the queue, in a leader's batch */
	int done; /* its leader read it: read.rc is set */
	struct readers_req *next;
};

struct readers *readers_new(size_t, int together);
void readers_free(struct readers *);
int readers_together(const struct readers *);
struct store *readers_take(struct readers *);
void readers_give(struct readers *, struct store *);
size_t readers_join(struct readers *, struct readers_req *, struct store **,
    struct status_read **);
void readers_answered(struct readers *, struct status_read *const *, size_t);

#endif /* READERS_H */
