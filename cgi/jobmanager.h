/*
 * A checkpoint triggered on a Flink JobManager through its REST API, and
 * followed to its end, for a job bound to one (checkpointctl job add
 * --flink URL), and its savepoints, stops and disposals likewise
 * (jm_start_op): POST /jobs/:jobid/checkpoints with the service's own
 * triggerId (so that Flink starts one checkpoint however often it is
 * sent), then GET /jobs/:jobid/checkpoints/:triggerid until COMPLETED,
 * then the checkpoint's external_path from .../details/:checkpointid.
 * checkpoint-runner(8), "FLINK JOBMANAGERS", says what is recorded when.
 *
 * Never blocking: each request is a libcurl transfer of its own, moved on
 * by jm_step whenever the runner looks (its poll is at most 50 ms), with
 * timeouts, so that a JobManager that is slow or down holds its own
 * job's trigger only.
 */
#ifndef JOBMANAGER_H
#define JOBMANAGER_H

#include <stdint.h>

#include "checkpoint.h"

struct jm_follow;

/* How a followed checkpoint ended (every string owned by the follow). */
struct jm_result {
	int64_t checkpoint_id; /* Flink's; 0: none */
	const char *location; /* external_path; NULL: none */
	const char *failure_class; /* NULL: success */
	const char *failure_trace;
	const char *failure_throwable; /* as Flink sent it; NULL: none */
};

/*
 * Starts following the checkpoint of trigger on job, asked of the
 * JobManager at url (its REST endpoint) as type (CONFIGURED, FULL,
 * INCREMENTAL, as the client asked).  NULL: out of memory.
 */
struct jm_follow *jm_start(const char *url, const char *job,
    const char *trigger, enum ckpt_type type, int64_t now_ms);
/*
 * A savepoint, a stop with a savepoint or a disposal, asked of the
 * JobManager as a client would (POST /jobs/:jobid/savepoints with the
 * service's triggerId, /jobs/:jobid/stop, /savepoint-disposal), followed
 * to its end: a savepoint's location, and its checkpoint id from Flink's
 * statistics when they have it; a disposal's success; or Flink's failure.
 */
enum jm_kind { JM_CHECKPOINT, JM_SAVEPOINT, JM_STOP, JM_DISPOSE };
struct jm_op {
	enum jm_kind kind;
	const char *target_dir; /* savepoint, stop */
	int native; /* formatType NATIVE, else CANONICAL */
	int cancel_job; /* savepoint */
	int drain; /* stop */
	const char *path; /* disposal: the savepoint's */
};
struct jm_follow *jm_start_op(const char *url, const char *job,
    const char *trigger, const struct jm_op *, int64_t now_ms);
/* Moves it on without waiting; 1 once it has ended (jm_result). */
int jm_step(struct jm_follow *, int64_t now_ms);
/* Whether Flink has taken the trigger (answered 202 to its POST). */
int jm_accepted(const struct jm_follow *);
void jm_result(const struct jm_follow *, struct jm_result *);
void jm_free(struct jm_follow *);

#endif /* JOBMANAGER_H */
