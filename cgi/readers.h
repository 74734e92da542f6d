/*
 * A pool of read connections shared by a process's threads: a thread
 * borrows one for the length of a request and gives it back.
 */
#ifndef READERS_H
#define READERS_H

#include <stddef.h>

#include "store.h"

struct readers;

struct readers *readers_new(size_t);
void readers_free(struct readers *);
struct store *readers_take(struct readers *);
void readers_give(struct readers *, struct store *);

#endif /* READERS_H */
