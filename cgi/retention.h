/*
 * Retention: which of a job's savepoints its policy lets go
 * (checkpoint-runner(8), "Retention").  Pure: the runner acts on the
 * verdicts, checkpointctl retention shows them.
 */
#ifndef RETENTION_H
#define RETENTION_H

#include <stddef.h>
#include <stdint.h>

#include "store.h"

enum retention_verdict {
	RETAIN_LATEST, /* the job's newest: never disposed */
	RETAIN_KEPT, /* marked kept */
	RETAIN_NEWEST, /* one of the newest keep_last */
	RETAIN_YOUNG, /* younger than keep_ms */
	RETAIN_IN_FLIGHT, /* its disposal is under way */
	RETAIN_BACKOFF, /* its disposal failed; tried again at retry_ms */
	RETAIN_GO /* to be disposed, for why */
};

struct retention_decision {
	enum retention_verdict verdict;
	int64_t retry_ms; /* RETAIN_BACKOFF */
	char why[96]; /* RETAIN_GO: the rule that lets it go */
};

/* How long after a failed disposal it is tried again: 1 min, doubling. */
#define RETENTION_BACKOFF_MS 60000
#define RETENTION_BACKOFF_MAX_MS 3600000

/*
 * The verdict on row, the index-th (0: newest) of its job's live
 * snapshots of its kind, at now_ms.
 */
void retention_decide(const struct retention_row *, size_t index,
    int64_t now_ms, struct retention_decision *);
/*
 * Row's place among its job's snapshots of its kind, for rows listed by
 * job and kind (store_retention_list): job, kind and next carry what the
 * rows so far were, and start zeroed.
 */
size_t retention_index(struct id *job, char *kind, size_t len, size_t *next,
    const struct retention_row *);
/* The verdict in a few words, as checkpointctl retention shows it. */
int retention_describe(const struct retention_decision *, char *buf,
    size_t len);

/* A savepoint retention lets go. */
struct retention_go {
	struct id job;
	char *location;
	char why[sizeof(((struct retention_decision *)0)->why)];
};
typedef void (*retention_asked_cb)(const struct retention_go *,
    const struct id *disposal, void *);

/*
 * Asks for the disposal of every savepoint (of job, unless NULL) that
 * retention lets go at now_ms, as a client's POST /savepoint-disposal
 * would, with "retention" as the caller and the rule as the reason;
 * asked is told of each disposal started (a new one, or a failed one
 * tried again).
 */
enum store_rc retention_dispose(struct store *, const struct id *job,
    int64_t now_ms, retention_asked_cb asked, void *arg);
/*
 * The same, as a runner's pass does it: of the jobs whose policies are
 * due (schema/0015) alone, so that a pass costs what changed, not the
 * fleet's kept history; each policy is then told when it is next due.
 */
enum store_rc retention_dispose_due(struct store *, int64_t now_ms,
    retention_asked_cb asked, void *arg);

#endif /* RETENTION_H */
