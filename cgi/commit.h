/*
 * Group commit: concurrent POSTs of one process share one transaction and
 * one fsync.  Each caller gets its answer only after the transaction that
 * holds its trigger has committed, or an error if it did not: never a
 * 202 for a trigger that is not on disk.
 */
#ifndef COMMIT_H
#define COMMIT_H

#include "settings.h"
#include "store.h"

struct committer;

struct committer *commit_new(const struct settings *);
enum store_rc commit_record(struct committer *, const struct trigger_rec *,
    int *created);
void commit_free(struct committer *);

#endif /* COMMIT_H */
