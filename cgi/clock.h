/*
 * The one millisecond clock: CLOCK_REALTIME for the times recorded in the
 * store, CLOCK_MONOTONIC for intervals and deadlines.  Inline, since the
 * request path reads it on every request.
 */
#ifndef CLOCK_H
#define CLOCK_H

#include <stdint.h>
#include <time.h>

static inline int64_t
clock_ms(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

#endif /* CLOCK_H */
