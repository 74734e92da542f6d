/*
 * What the runner's two halves share: runner.c's pass over checkpoint
 * triggers and what every kind owes the store (claims in doubt, results
 * kept unrecorded), runner_ops.c's savepoints, stops and disposals.  Not
 * for any other file: runner.h is the runner's interface.
 */
#ifndef RUNNER_IMPL_H
#define RUNNER_IMPL_H

#include <signal.h>

#include "action.h"
#include "commands.h"
#include "runner.h"

#define RUNNER_LEASE_GRACE_MS 30000 /* beyond the job's timeout */
#define RUNNER_POLL_MS 50 /* how often a pass looks for news */
#define RUNNER_MAX_ACTIVE 64
#define RUNNER_RECORD_IDLE_MS 10000 /* a pass that advanced nothing */
/* Busy rounds in a row a pass tries again, each after RUNNER_POLL_MS. */
#define RUNNER_BUSY_TRIES 10
/*
 * Due slots fired a transaction: a minute's slots of a large fleet fall
 * due at once, and one commit (one sync) each would make the last wait
 * for all the others; a few hundred keep SQLite's lock of the database
 * short for the API's writes meanwhile.
 */
#define RUNNER_SCHED_BATCH 256
/* Database errors a kept result is recorded through (struct unrecorded). */
#define RUNNER_RECORD_ERRORS 3
/* Past an action's timeout: the watchdog's 2 s, then recording its end. */
#define RUNNER_DOUBT_MARGIN_MS 5000
/* A claim followed on a Flink JobManager: its lease renewed this often. */
#define RUNNER_RENEW_MS 10000

/* An action in flight and what its result completes. */
struct running {
	struct action *action;
	int64_t row;
	struct id job;
	struct id trigger;
	int64_t checkpoint_id;
	enum ckpt_type type;
	int64_t timeout_s;
	int64_t lease_ms; /* the claim's, on this runner's clock */
	char env[4][96];
	/* A job bound to a Flink JobManager: no action, a follow. */
	int is_flink;
	enum ckpt_type requested; /* as the client asked: sent to Flink */
	struct jm_follow *flink;
	int64_t renew_ms; /* when its lease is renewed next */
	char refused[512]; /* why its command may not run (pass_refused) */
};

/* What a kept result (struct unrecorded) is of: which table its row is. */
enum kept {
	KEPT_TRIGGER,
	KEPT_SAVEPOINT, /* or a stop */
	KEPT_DISPOSAL
};

/*
 * The result of an action (a trigger's checkpoint, a savepoint's or a
 * stop's, a disposal's) that could not be recorded because the database
 * could not be reached, stayed locked, or failed (memory that ran out,
 * an I/O error): kept, and recorded by the next pass, on a store opened
 * again, while the claim's lease lasts; a database error is tried
 * RUNNER_RECORD_ERRORS times, since one that stays is a fault that trying
 * again will not mend.  The claim is still this runner's, so no other
 * runner takes it meanwhile; once dropped it is resolved as expired, as
 * if this runner had died.
 */
struct unrecorded {
	int64_t row;
	struct id job;
	struct id trigger;
	int64_t checkpoint_id;
	enum ckpt_type type;
	char *location; /* NULL: none; a disposal's path */
	char *trace; /* NULL: the action succeeded */
	char *class; /* the failure's; NULL: FAIL_CKPT_CLASS */
	int64_t lease_ms;
	int errors; /* database errors met recording it */
	enum kept kind;
	int stop, cancel_job; /* a savepoint's */
};

/*
 * A claim of a round whose commit failed: the commit may have been made
 * all the same (the connection was lost, or the server failed over, after
 * COMMIT was sent; PostgreSQL cancelled the wait for a synchronous standby
 * after committing on the primary).  Kept, with its command, until the
 * store says: the claim is there, this runner's (claim_heard, then
 * pass_start_due renews it and runs its command), or the trigger was
 * claimed again (pass_round), or the claim's lease ran out with no such
 * claim seen.
 */
struct in_doubt {
	enum kept kind; /* of which table its row is */
	/* No action yet; its lease as first taken.  Of a savepoint, a stop
	 * or a disposal: its row, job, trigger, id, timeout and lease. */
	struct running claim;
	char *command; /* a trigger's */
	struct savepoint_task sp; /* a savepoint's or a stop's: owned */
	struct disposal_task dp; /* a disposal's: owned */
	int due; /* seen made, by this pass: to be run */
};

/*
 * What a runner owes the store from one pass to the next: the claims it
 * made that the store has not settled as far as it knows.  runner_free
 * is the one place they are forgotten wholesale.
 */
struct runner {
	struct unrecorded unrecorded[RUNNER_MAX_ACTIVE];
	size_t nunrecorded;
	struct in_doubt in_doubt[RUNNER_MAX_ACTIVE];
	size_t nin_doubt;
};

struct pass {
	struct runner *runner;
	struct store *store;
	const struct runner_opts *o;
	struct runner_stats *stats;
	struct running run[RUNNER_MAX_ACTIVE];
	size_t nrun;
	int skipped; /* left work for a later round */
	struct pending *pend;
};

/* runner.c: what a pass of either half uses. */
int owner_alive(const char *owner);
void in_doubt_drop(struct runner *rn, struct in_doubt *d);
struct unrecorded *unrecorded_find(struct runner *rn, int64_t row,
    enum kept kind);
struct in_doubt *in_doubt_find(struct runner *rn, int64_t row, enum kept kind);
struct in_doubt *in_doubt_new(struct runner *rn, enum kept kind,
    const struct running *r);
int64_t claim_lease(int64_t now, int64_t timeout_s);
void unrecorded_name(const struct unrecorded *u, char *buf, size_t len);
void unrecorded_keep(struct runner *rn, const struct unrecorded *k,
    const char *location, const char *trace, const char *class,
    enum store_rc rc);
void action_failure_trace(struct buf *trace, struct action_result *res,
    int64_t timeout_s, const char *kind);
int pass_refused(const struct pass *p, const struct id *job, enum cmd_kind k,
    const char *command, char *cause, size_t len);

/* runner_ops.c: the savepoint family's part of a pass. */
enum store_rc op_record_kept(struct pass *, const struct unrecorded *);
enum store_rc pass_savepoints(struct pass *, volatile sig_atomic_t *);

#endif /* RUNNER_IMPL_H */
