/*
 * The WAL copier: a thread with a connection of its own that copies
 * SQLite's WAL into the database beside the group committer's commits
 * (commit.c), so that the committer, and every POST waiting for it, never
 * does that work itself.  "Checkpoint" here means SQLite's WAL
 * checkpoint, not a job's.
 *
 * Its state is guarded by the committer's lock, given to walcopy_new,
 * which the committer takes between two batches anyway.
 */
#ifndef WALCOPY_H
#define WALCOPY_H

#include <pthread.h>

#include "settings.h"
#include "store.h"

struct walcopy;

struct walcopy *walcopy_new(const struct settings *, pthread_mutex_t *lock);
void walcopy_free(struct walcopy *);
/* In the committer thread, after each commit: struct store_opts' on_commit. */
void walcopy_grew(void *walcopy, int frames);
/* In the committer thread, lock held: whether to walcopy_catch_up. */
int walcopy_caught_up(struct walcopy *);
/* In the committer thread, without the lock, on the committer's store. */
void walcopy_catch_up(struct walcopy *, struct store *);

#endif /* WALCOPY_H */
