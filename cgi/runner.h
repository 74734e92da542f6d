/*
 * The checkpoint runner's pass: advance every pending trigger it can, in
 * short BEGIN IMMEDIATE transactions, running checkpoint actions outside
 * any transaction, so that no lock is held while a command runs.
 */
#ifndef RUNNER_H
#define RUNNER_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "failure.h"
#include "store.h"

struct runner_opts {
	const char *owner; /* this runner's claim tag: host:pid:start */
	size_t parallel; /* actions at once, one per job */
	size_t batch; /* triggers per transaction */
	int64_t store_ms; /* retention, for purging */
	int64_t history_keep; /* the history's retention: ids per job */
	int64_t history_age_ms; /* and age; 0: no bound */
	int64_t max_queued; /* a scheduled trigger's queue bound */
	const char *commands; /* the commands file; NULL: none (commands.h) */
	/* CHECKPOINT_SAVEPOINT_ROOT, for a job the file gives no directory */
	const char *savepoint_root;
	int watching; /* --watch: news wakes a pass's waits too */
};

struct runner_stats {
	int64_t completed; /* successful checkpoints */
	int64_t failed; /* completed with a failure */
	int64_t stale; /* dead runners' claims resolved */
	int64_t purged; /* expired results dropped */
	int64_t actions; /* commands run */
	int64_t transactions; /* write transactions committed */
	int64_t scheduled; /* slots fired (schedules) */
	int64_t schedule_transactions; /* of those, transactions committed */
	int64_t next_slot_ms; /* the next slot of any schedule; 0: none */
	int64_t duration_ms;
};

/*
 * A runner, across its passes: what it owes the store.  Results of
 * actions that ended while the database could not be reached, and claims
 * whose commit failed, are kept to be settled: each pass records the
 * results first, while their leases last, then asks the store of those
 * claims.  The program holds one for its life; runner_free forgets
 * whatever is still owed.
 */
struct runner;

int runner_owner(char *buf, size_t len);
struct runner *runner_new(void);
void runner_free(struct runner *);
int runner_pass(struct runner *, struct store *, const struct runner_opts *,
    struct runner_stats *, volatile sig_atomic_t *quit);
size_t runner_unsettled(const struct runner *);

#endif /* RUNNER_H */
