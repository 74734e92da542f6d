/*
 * One pass of the checkpoint runner.  See runner.h and checkpoint-runner(8);
 * its savepoints, stops and disposals are runner_ops.c's.
 *
 * A pass works in rounds.  Each round is one short BEGIN IMMEDIATE
 * transaction over up to `batch` pending triggers in arrival order: a
 * trigger of an unknown or not-RUNNING job is completed as Flink's
 * FlinkJobNotFoundException; one of a RUNNING job without a command gets
 * the job's next checkpoint id and completes at once; one of a job with a
 * command gets its id and a claim, and its command runs after the commit,
 * outside any transaction, at most `parallel` at once and never two of one
 * job.  The result is recorded in a transaction of its own, on condition
 * that the claim is still ours.
 *
 * Claims name their runner (host:pid:start-time) and carry a lease of the
 * job's timeout plus a grace period.  A claim whose runner is gone from
 * this host, or whose lease has run out, is stale: the next pass of any
 * runner fails it with "Checkpoint expired before completing." (its id
 * stays consumed; the command is not run again, since it may have had
 * effects).  A claim of this very runner that it does not know of (its
 * round's commit failed, yet was made) is settled at the start of its next
 * pass, not left to its lease: see pass_resolve_stale; its command runs
 * only once a renewal of its lease has committed (claim_renew).
 */
#include <config.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "action.h"
#include "clock.h"
#include "commands.h"
#include "jobmanager.h"
#include "log.h"
#include "retention.h"
#include "runner_impl.h"
#include "schedule.h"
#include "throwable.h"

/* This process's start time in clock ticks since boot, from /proc. */
static unsigned long long
proc_start_time(long pid)
{
	char path[64], buf[1024], *p;
	unsigned long long start = 0;
	FILE *f;
	int field;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if ((f = fopen(path, "r")) == NULL)
		return 0;
	if (fgets(buf, sizeof(buf), f) == NULL ||
	    (p = strrchr(buf, ')')) == NULL) {
		fclose(f);
		return 0;
	}
	fclose(f);
	/* Field 22 is starttime; fields 3.. follow the ") ". */
	for (field = 3, p += 2; field < 22 && p != NULL; field++)
		if ((p = strchr(p, ' ')) != NULL)
			p++;
	if (p != NULL)
		start = strtoull(p, NULL, 10);
	return start;
}

/* host:pid:start, unique over time on one host (pids are reused). */
int
runner_owner(char *buf, size_t len)
{
	char host[256];

	if (gethostname(host, sizeof(host)) == -1)
		snprintf(host, sizeof(host), "localhost");
	host[sizeof(host) - 1] = '\0';
	return snprintf(buf, len, "%s:%ld:%llu", host, (long)getpid(),
		   proc_start_time((long)getpid())) < (int)len ?
	    0 :
	    -1;
}

/*
 * Whether the runner named by owner still runs: 1 yes, 0 no, -1 cannot
 * tell (another host: only its lease can say).
 */
int
owner_alive(const char *owner)
{
	char host[256], mine[256];
	long pid;
	unsigned long long start;

	if (sscanf(owner, "%255[^:]:%ld:%llu", host, &pid, &start) != 3)
		return -1;
	if (gethostname(mine, sizeof(mine)) == -1 || strcmp(host, mine) != 0)
		return -1;
	return proc_start_time(pid) == start ? 1 : 0;
}

struct runner *
runner_new(void)
{
	return calloc(1, sizeof(struct runner));
}

/* Forgets u, its result unrecorded; the last one takes its place. */
static void
unrecorded_drop(struct runner *rn, struct unrecorded *u)
{
	free(u->location);
	free(u->trace);
	free(u->class);
	*u = rn->unrecorded[--rn->nunrecorded];
}

/* Forgets d, its command not run; the last one takes its place. */
void
in_doubt_drop(struct runner *rn, struct in_doubt *d)
{
	free(d->command);
	store_savepoint_tasks_free(&d->sp, 1);
	store_disposal_tasks_free(&d->dp, 1);
	*d = rn->in_doubt[--rn->nin_doubt];
}

/* Forgets everything the runner owes the store, and the runner. */
void
runner_free(struct runner *rn)
{
	if (rn == NULL)
		return;
	while (rn->nunrecorded > 0)
		unrecorded_drop(rn, &rn->unrecorded[rn->nunrecorded - 1]);
	while (rn->nin_doubt > 0)
		in_doubt_drop(rn, &rn->in_doubt[rn->nin_doubt - 1]);
	free(rn);
}

/*
 * What this runner still owes the store: results to record, and claims
 * in doubt to settle.  Either has the next pass come soon.
 */
size_t
runner_unsettled(const struct runner *rn)
{
	return rn->nunrecorded + rn->nin_doubt;
}

/* The result of row's action (of kind) kept, to be recorded, or NULL. */
struct unrecorded *
unrecorded_find(struct runner *rn, int64_t row, enum kept kind)
{
	size_t i;

	for (i = 0; i < rn->nunrecorded; i++)
		if (rn->unrecorded[i].row == row &&
		    rn->unrecorded[i].kind == kind)
			return &rn->unrecorded[i];
	return NULL;
}

/* Row's claim (of kind) kept in doubt, or NULL. */
struct in_doubt *
in_doubt_find(struct runner *rn, int64_t row, enum kept kind)
{
	size_t i;

	for (i = 0; i < rn->nin_doubt; i++)
		if (rn->in_doubt[i].claim.row == row &&
		    rn->in_doubt[i].kind == kind)
			return &rn->in_doubt[i];
	return NULL;
}

/*
 * A new claim in doubt, r of kind, for the caller to fill in; NULL if
 * there is no room left (said in the log: if the claim was made, it will
 * be resolved as expired).
 */
struct in_doubt *
in_doubt_new(struct runner *rn, enum kept kind, const struct running *r)
{
	static const char *const names[] = { "trigger", "savepoint",
		"disposal" };
	struct in_doubt *d;

	if (rn->nin_doubt == RUNNER_MAX_ACTIVE) {
		log_error("%s %s job %s: checkpoint %lld: its claim may "
			  "have been committed, and there is no room to keep "
			  "it: if it was, it will be resolved as expired",
		    names[kind], r->trigger.s, r->job.s,
		    (long long)r->checkpoint_id);
		return NULL;
	}
	d = &rn->in_doubt[rn->nin_doubt++];
	memset(d, 0, sizeof(*d));
	d->kind = kind;
	d->claim = *r;
	return d;
}

/*
 * Keeps claim r, whose commit failed, with its command (taken over);
 * 0 if there is no room left: its command is the caller's to free.
 */
static int
in_doubt_keep(struct runner *rn, const struct running *r, char *command)
{
	struct in_doubt *d = in_doubt_new(rn, KEPT_TRIGGER, r);

	if (d == NULL)
		return 0;
	d->command = command;
	return 1;
}

/* The lease of a claim taken, or renewed, at now: on this runner's clock. */
int64_t
claim_lease(int64_t now, int64_t timeout_s)
{
	return now + timeout_s * 1000 + RUNNER_LEASE_GRACE_MS;
}

/*
 * Completes claim c as expired, the trace's second line saying why, if
 * the claim is still c's.
 */
static enum store_rc
claim_expire(struct pass *p, const struct claim *c, const char *why,
    int64_t now)
{
	struct outcome o;
	struct buf trace = { 0 };
	enum store_rc rc;

	memset(&o, 0, sizeof(o));
	buf_printf(&trace, "%s: %s\n\tat checkpoint-runner (%s)\n",
	    FAIL_CKPT_CLASS, FAIL_EXPIRED, why);
	o.failure_class = FAIL_CKPT_CLASS;
	o.failure_trace = buf_str(&trace);
	if ((rc = store_complete(p->store, c->row, c->owner, &o, now)) ==
	    STORE_OK)
		p->stats->failed++;
	buf_free(&trace);
	return rc;
}

/*
 * Gives back claim c of a trigger followed on a Flink JobManager (a claim
 * without an id), whose runner is gone or lost track of it: the trigger
 * waits again, and the next round asks Flink again under the same
 * triggerId, which starts no second checkpoint.  Expiring it instead
 * would record a failure for a checkpoint Flink may well complete.
 */
static void
claim_release_flink(struct pass *p, const struct claim *c, const char *why)
{
	if (store_claim_release(p->store, c->row, c->owner) == STORE_OK)
		log_warn("trigger %s job %s: claim of %s given back, to be "
			 "asked of Flink again: %s",
		    c->trigger.s, c->job.s, c->owner, why);
}

/*
 * What the store says of a claim this runner made, and what the runner
 * does about it.  The store lists the claim under this runner's name
 * (listed, found at the start of a pass, when none of its actions runs),
 * or a scan that committed did not list row's claim (listed NULL).
 *
 * Listed, a claim whose result is kept unrecorded is left to
 * pass_unrecorded, which records it.  A claim whose round's commit failed
 * (kept in doubt) was made after all: its action is run now
 * (pass_start_due), with the checkpoint id the claim took.  Waiting out
 * its lease would hold the job for the job's timeout and 30 s, and then
 * fail it as if this runner had died; releasing the claim instead would
 * leave that id used by nobody (the job's counter went up with the claim,
 * and ids are never handed out twice) and the next one given to the same
 * trigger: ids would no longer be dense.  Run now, the command runs once,
 * under the id the trigger keeps, as if the commit had been answered;
 * only if too little of the lease is left for the action to end and be
 * recorded in it (its timeout, the watchdog's kill, the recording) is the
 * claim failed, at once.  That lease is the one the claim was taken with,
 * or what is left of it in the store if less: renewals that failed
 * (claim_renew) may have lengthened it in the store, and must not keep a
 * claim that cannot be made durable waiting for ever.  Any other claim
 * listed as ours is one this runner lost track of (its action ended and
 * its result could not be kept, or a claim in doubt found no room):
 * failed at once as well, its id used, its command not run (again).
 *
 * Not listed, a claim kept in doubt past its lease was never made (or was
 * resolved by another runner): forgotten.
 *
 * Returns 1 when the runner forgot what it kept of row's claim.
 */
static int
claim_heard(struct pass *p, int64_t row, const struct claim *listed,
    int64_t now)
{
	struct runner *rn = p->runner;
	struct in_doubt *d = in_doubt_find(rn, row, KEPT_TRIGGER);
	char why[256];
	int64_t lease;

	if (unrecorded_find(rn, row, KEPT_TRIGGER) != NULL)
		return 0;
	if (listed == NULL) {
		if (d == NULL || d->due || d->claim.lease_ms > now)
			return 0;
		log_info("trigger %s job %s: checkpoint %lld: its claim was "
			 "not committed",
		    d->claim.trigger.s, d->claim.job.s,
		    (long long)d->claim.checkpoint_id);
		in_doubt_drop(rn, d);
		return 1;
	}
	if (d != NULL && d->claim.checkpoint_id == listed->checkpoint_id) {
		lease = listed->lease_ms < d->claim.lease_ms ?
		    listed->lease_ms :
		    d->claim.lease_ms;
		if (lease - now >=
		    d->claim.timeout_s * 1000 + RUNNER_DOUBT_MARGIN_MS) {
			d->due = 1;
			return 0;
		}
		snprintf(why, sizeof(why),
		    "the runner %s that claimed it learned of the claim too "
		    "late to run its action",
		    listed->owner);
	} else {
		d = NULL;
		snprintf(why, sizeof(why),
		    "the runner %s that claimed it lost track of its action",
		    listed->owner);
	}
	/* A follow on a JobManager (no id): asked of Flink again. */
	if (listed->checkpoint_id == 0)
		claim_release_flink(p, listed, why);
	else if (claim_expire(p, listed, why, now) != STORE_OK)
		return 0;
	else
		log_warn(
		    "trigger %s job %s: checkpoint %lld: resolved as expired: %s",
		    listed->trigger.s, listed->job.s,
		    (long long)listed->checkpoint_id, why);
	if (d == NULL)
		return 0;
	in_doubt_drop(rn, d);
	return 1;
}

static int
stale_collect(const struct claim *c, void *arg)
{
	struct pass *p = arg;
	char why[256];
	int64_t now = clock_ms(CLOCK_REALTIME);

	/*
	 * Owners are compared whole: host names are at most 64 bytes, so
	 * an owner fits in c->owner.
	 */
	if (strcmp(c->owner, p->o->owner) == 0) {
		claim_heard(p, c->row, c, now);
		return 0;
	}
	/* Gone from this host, or past its lease wherever it runs. */
	if (owner_alive(c->owner) != 0 && c->lease_ms > now)
		return 0;
	snprintf(why, sizeof(why), "the runner %s that claimed it is gone",
	    c->owner);
	if (c->checkpoint_id == 0) {
		claim_release_flink(p, c, why);
		return 0;
	}
	if (claim_expire(p, c, why, now) == STORE_OK) {
		log_warn("trigger %s job %s: stale claim of %s resolved as "
			 "expired (checkpoint %lld)",
		    c->trigger.s, c->job.s, c->owner,
		    (long long)c->checkpoint_id);
		p->stats->stale++;
	}
	return 0;
}

/*
 * After the scan of every claim (stale_collect): the claims kept in doubt
 * that it did not list (claim_heard).  Those it listed (due) start only
 * if its transaction committed.
 */
static void
pass_unlisted(struct pass *p, int scanned)
{
	struct runner *rn = p->runner;
	size_t i;
	int64_t now = clock_ms(CLOCK_REALTIME);

	for (i = 0; i < rn->nin_doubt;) {
		/* A savepoint's or a disposal's: op_resolve_stale. */
		if (rn->in_doubt[i].kind == KEPT_TRIGGER && !scanned)
			rn->in_doubt[i].due = 0;
		else if (rn->in_doubt[i].kind == KEPT_TRIGGER &&
		    claim_heard(p, rn->in_doubt[i].claim.row, NULL, now))
			continue; /* forgotten: in_doubt[i] is another now */
		i++;
	}
}

/*
 * Resolves the claims of runners that died or overran their lease, and
 * this runner's own that it does not know of (claim_heard).
 */
static enum store_rc
pass_resolve_stale(struct pass *p)
{
	enum store_rc rc;

	if ((rc = store_begin(p->store)) != STORE_OK)
		return rc;
	if ((rc = store_claimed(p->store, stale_collect, p)) != STORE_OK) {
		store_rollback(p->store);
		pass_unlisted(p, 0);
		return rc;
	}
	if ((rc = store_commit(p->store)) == STORE_OK)
		p->stats->transactions++;
	pass_unlisted(p, rc == STORE_OK);
	return rc;
}

static int
pass_job_running(const struct pass *p, const struct id *job)
{
	size_t i;

	for (i = 0; i < p->nrun; i++)
		if (strcmp(p->run[i].job.s, job->s) == 0)
			return 1;
	return 0;
}

/* The actions (processes) running: follows on a JobManager are none. */
static size_t
pass_actions(const struct pass *p)
{
	size_t i, n = 0;

	for (i = 0; i < p->nrun; i++)
		n += !p->run[i].is_flink;
	return n;
}

/* Starts following claim r on the JobManager at url. */
static void
pass_start_flink(struct pass *p, struct running *r, const char *url)
{
	int64_t now = clock_ms(CLOCK_REALTIME);

	r->action = NULL;
	r->renew_ms = now + RUNNER_RENEW_MS;
	if ((r->flink = jm_start(url, r->job.s, r->trigger.s, r->requested,
		 now)) == NULL)
		log_error("trigger %s job %s: cannot follow it on %s: out of "
			  "memory",
		    r->trigger.s, r->job.s, url);
	else
		log_info("trigger %s job %s: checkpoint asked of the "
			 "JobManager %s",
		    r->trigger.s, r->job.s, url);
}

/*
 * Moves follow r on; 1 once it ended.  While it lasts its claim's lease
 * is renewed, however long the JobManager takes or stays down.
 */
static int
pass_step_flink(struct pass *p, struct running *r)
{
	int64_t now = clock_ms(CLOCK_REALTIME), lease;

	if (r->flink == NULL)
		return 1;
	if (jm_step(r->flink, now))
		return 1;
	if (now >= r->renew_ms) {
		lease = claim_lease(now, r->timeout_s);
		if (store_begin(p->store) == STORE_OK) {
			if (store_claim_renew(p->store, r->row, p->o->owner,
				now, lease) == STORE_OK &&
			    store_commit(p->store) == STORE_OK) {
				p->stats->transactions++;
				r->lease_ms = lease;
			} else
				store_rollback(p->store);
		}
		r->renew_ms = now + RUNNER_RENEW_MS;
	}
	return 0;
}

/*
 * Records how follow r ended: Flink's id (the job's counter follows it),
 * path or failure, as Flink gave them.  A result that cannot be recorded
 * is not kept: the claim, left to its lease, is given back and asked of
 * Flink again (claim_release_flink), which answers the same.
 */
static void
pass_finish_flink(struct pass *p, struct running *r)
{
	struct jm_result res;
	struct outcome o;
	enum store_rc rc;
	char cause[512];

	memset(&o, 0, sizeof(o));
	if (r->flink == NULL) {
		o.failure_class = FAIL_CKPT_CLASS;
		o.failure_trace = FAIL_CKPT_CLASS ": " FAIL_DECLINED
						  " Out of memory.\n";
		memset(&res, 0, sizeof(res));
	} else {
		jm_result(r->flink, &res);
		o.checkpoint_id = res.checkpoint_id;
		o.type = r->type;
		o.location = res.location;
		o.failure_class = res.failure_class;
		o.failure_trace = res.failure_trace;
	}
	if ((rc = store_begin(p->store)) == STORE_OK) {
		if ((rc = store_complete_flink(p->store, r->row, p->o->owner,
			 &o, res.failure_throwable,
			 clock_ms(CLOCK_REALTIME))) == STORE_OK)
			rc = store_commit(p->store);
		if (rc != STORE_OK)
			store_rollback(p->store);
	}
	if (rc == STORE_OK) {
		p->stats->transactions++;
		if (o.failure_class == NULL)
			p->stats->completed++;
		else
			p->stats->failed++;
		ckpt_failure_cause(o.failure_class, o.failure_trace, cause,
		    sizeof(cause));
		log_info("trigger %s job %s: Flink's checkpoint %lld %s%s",
		    r->trigger.s, r->job.s, (long long)o.checkpoint_id,
		    o.failure_class == NULL ? "completed" : "FAILED: ",
		    o.failure_class == NULL ? "" : cause);
	} else
		log_error("trigger %s job %s: cannot record Flink's result "
			  "(%s): the trigger will be asked of Flink again",
		    r->trigger.s, r->job.s, store_rc_name(rc));
	jm_free(r->flink);
	r->flink = NULL;
}

/*
 * On quit: the follows are given back rather than waited for (a
 * JobManager may be down for long); the next runner asks Flink again.
 */
static void
pass_release_flink(struct pass *p)
{
	size_t i;

	for (i = 0; i < p->nrun;) {
		if (!p->run[i].is_flink) {
			i++;
			continue;
		}
		if (store_begin(p->store) == STORE_OK) {
			if (store_claim_release(p->store, p->run[i].row,
				p->o->owner) == STORE_OK &&
			    store_commit(p->store) == STORE_OK)
				p->stats->transactions++;
			else
				store_rollback(p->store);
		}
		log_info("trigger %s job %s: given back on quit, to be asked "
			 "of Flink again",
		    p->run[i].trigger.s, p->run[i].job.s);
		jm_free(p->run[i].flink);
		p->run[i] = p->run[--p->nrun];
	}
}

/*
 * 1 when e fails before anything is asked, its failure in o (made in
 * trace): its job is not known or not running, or it is bound to a
 * JobManager the operator's commands file does not register, which the
 * web server's user may have written into the database.
 */
static int
pass_fails_early(const struct pass *p, const struct pending *e,
    struct buf *trace, struct outcome *o)
{
	char cause[ACTION_TAIL];

	buf_reset(trace);
	if (!e->job_known || e->job_state != JOB_RUNNING) {
		buf_printf(trace, FAIL_JOB_TRACE "\n", e->job.s, e->job.s);
		o->failure_class = FAIL_JOB_CLASS;
	} else if (e->flink_url != NULL &&
	    pass_refused(p, &e->job, CMD_FLINK, e->flink_url, cause,
		sizeof(cause))) {
		buf_printf(trace, "%s: %s %s\n\tat checkpoint-runner\n",
		    FAIL_CKPT_CLASS, FAIL_DECLINED, cause);
		o->failure_class = FAIL_CKPT_CLASS;
	} else
		return 0;
	o->failure_trace = buf_str(trace);
	return 1;
}

/* The claim of pending trigger e, just made, as the round runs it. */
static void
pass_claimed(struct running *claim, const struct pending *e, int64_t id,
    enum ckpt_type type, int64_t lease)
{
	memset(claim, 0, sizeof(*claim));
	claim->row = e->row;
	claim->job = e->job;
	claim->trigger = e->trigger;
	claim->checkpoint_id = id;
	claim->type = type;
	claim->timeout_s = e->timeout_s;
	claim->lease_ms = lease;
	claim->is_flink = e->flink_url != NULL;
	claim->requested = e->requested;
}

/*
 * Decides one pending trigger inside the round's transaction.  Returns
 * STORE_OK (decided or skipped) or the store's failure.
 */
static enum store_rc
pass_decide(struct pass *p, struct pending *e, struct running *claim,
    int *claimed, struct buf *trace, int64_t now)
{
	struct outcome o;
	enum store_rc rc;
	enum ckpt_type type;
	int64_t id, lease;

	*claimed = 0;
	memset(&o, 0, sizeof(o));
	if (pass_fails_early(p, e, trace, &o)) {
		if ((rc = store_complete(p->store, e->row, NULL, &o, now)) ==
		    STORE_OK)
			p->stats->failed++;
		return rc == STORE_NOTFOUND ? STORE_OK : rc;
	}
	if (e->command != NULL || e->flink_url != NULL) {
		/*
		 * Our own action of this job, or our parallel limit: look
		 * again when one ends.  Another runner's: that runner takes
		 * the job's next trigger when it is done.  A follow on a
		 * JobManager costs no process: only the table's size
		 * limits them.
		 */
		if (pass_job_running(p, &e->job) ||
		    (e->flink_url == NULL ?
			    pass_actions(p) + 1 > p->o->parallel :
			    p->nrun + 1 > RUNNER_MAX_ACTIVE)) {
			p->skipped = 1;
			return STORE_OK;
		}
		if (e->job_busy)
			return STORE_OK;
	}
	type = e->requested == CKPT_CONFIGURED ? e->job_type : e->requested;
	/* Flink gives the id of a bound job's checkpoint, when it ends. */
	id = 0;
	if (e->flink_url == NULL &&
	    (rc = store_next_checkpoint_id(p->store, &e->job, &id)) != STORE_OK)
		return rc;
	if (e->command == NULL && e->flink_url == NULL) {
		o.checkpoint_id = id;
		o.type = type;
		if ((rc = store_complete(p->store, e->row, NULL, &o, now)) ==
		    STORE_OK)
			p->stats->completed++;
		return rc == STORE_NOTFOUND ? STORE_OK : rc;
	}
	lease = claim_lease(now, e->timeout_s);
	rc = store_claim(p->store, e->row, p->o->owner, id, type, now, lease);
	if (rc == STORE_NOTFOUND)
		return STORE_OK;
	if (rc != STORE_OK)
		return rc;
	pass_claimed(claim, e, id, type, lease);
	*claimed = 1;
	return STORE_OK;
}

/*
 * 1 when the operator's commands file (commands.h) does not register
 * command for job and kind: nothing may run, and cause (len bytes) says
 * why, for the failure's trace.
 */
int
pass_refused(const struct pass *p, const struct id *job, enum cmd_kind k,
    const char *command, char *cause, size_t len)
{
	char why[ACTION_TAIL / 2];

	if (p->o->commands == NULL ||
	    commands_allow(p->o->commands, job->s, k, command, why,
		sizeof(why)))
		return 0;
	snprintf(cause, len, "%s: %s.", CMD_REFUSED, why);
	log_error("job %s: %s command not run: %s", job->s, cmd_kind_name(k),
	    why);
	return 1;
}

/* Starts the command of a claim just committed. */
static void
pass_start(struct pass *p, struct running *r, const char *command)
{
	struct action_spec spec;
	struct id job = r->job, trigger = r->trigger;

	if (r->is_flink) {
		pass_start_flink(p, r, command);
		return;
	}
	r->action = NULL;
	if (pass_refused(p, &job, CMD_CHECKPOINT, command, r->refused,
		sizeof(r->refused)))
		return;
	memset(&spec, 0, sizeof(spec));
	snprintf(r->env[0], sizeof(r->env[0]), "CHECKPOINT_JOB_ID=%s", job.s);
	snprintf(r->env[1], sizeof(r->env[1]), "CHECKPOINT_ID=%lld",
	    (long long)r->checkpoint_id);
	snprintf(r->env[2], sizeof(r->env[2]), "CHECKPOINT_TYPE=%s",
	    ckpt_type_name(r->type));
	snprintf(r->env[3], sizeof(r->env[3]), "CHECKPOINT_TRIGGER_ID=%s",
	    trigger.s);
	spec.command = command;
	spec.env[0] = r->env[0];
	spec.env[1] = r->env[1];
	spec.env[2] = r->env[2];
	spec.env[3] = r->env[3];
	spec.timeout_ms = r->timeout_s * 1000;
	if (action_start(&spec, &r->action) == -1)
		log_error("trigger %s job %s: cannot start the checkpoint "
			  "action: %s",
		    r->trigger.s, r->job.s, strerror(errno));
	else
		log_info("trigger %s job %s: checkpoint %lld: action started "
			 "(pid %ld)",
		    r->trigger.s, r->job.s, (long long)r->checkpoint_id,
		    (long)action_pid(r->action));
	p->stats->actions++;
}

/* One round's work, read and decided in its transaction. */
struct round {
	struct running claims[RUNNER_MAX_ACTIVE];
	char *commands[RUNNER_MAX_ACTIVE]; /* each claim's, or JobManager */
	size_t nclaims;
	size_t n; /* heads read into p->pend */
	size_t inrange; /* rows of the range */
	int64_t upto, failed, completed;
};

/*
 * The round's range, and what can be decided set-based over it; what is
 * left there waits on its job's command.  Then the first waiting trigger
 * of each job whose command is free, read from the head of the queue up
 * to the range's end: as many as may start, and one more to tell that
 * the parallel limit left work for later.
 */
static enum store_rc
round_read(struct pass *p, int64_t cursor, int64_t now, struct round *r)
{
	size_t heads = p->o->parallel - p->nrun + 1;
	enum store_rc rc;

	if (heads > p->o->batch)
		heads = p->o->batch;
	if ((rc = store_pending_bound(p->store, cursor, p->o->batch, &r->upto,
		 &r->inrange)) != STORE_OK)
		return rc;
	if (r->inrange > 0 &&
	    ((rc = store_fail_unknown_jobs(p->store, cursor, r->upto,
		  FAIL_JOB_CLASS, FAIL_JOB_TRACE "\n", now, &r->failed)) !=
		    STORE_OK ||
		(rc = store_complete_plain(p->store, cursor, r->upto, now,
		     &r->completed)) != STORE_OK))
		return rc;
	return store_pending_heads(p->store, heads, r->upto, p->pend, &r->n);
}

/*
 * Decides the heads read, claiming what may start: each claim counts
 * against parallel and the per-job exclusion at once.
 */
static enum store_rc
round_decide(struct pass *p, struct round *r, int64_t now)
{
	struct buf trace = { 0 };
	struct pending *e;
	enum store_rc rc = STORE_OK;
	size_t i;
	int claimed;

	for (i = 0; i < r->n && rc == STORE_OK; i++) {
		e = &p->pend[i];
		rc = pass_decide(p, e, &r->claims[r->nclaims], &claimed, &trace,
		    now);
		if (rc != STORE_OK || !claimed)
			continue;
		/* A bound job's "command" is its JobManager: its own
		 * command, if any, is not run. */
		if (r->claims[r->nclaims].is_flink) {
			r->commands[r->nclaims] = e->flink_url;
			e->flink_url = NULL;
		} else {
			r->commands[r->nclaims] = e->command;
			e->command = NULL;
		}
		p->run[p->nrun++] = r->claims[r->nclaims++];
	}
	store_pending_free(p->pend, r->n);
	buf_free(&trace);
	return rc;
}

/*
 * A round that did not commit claimed nothing, unless its commit failed
 * otherwise (doubtful): then the claims may have been made all the same,
 * and are kept in doubt until a pass asks the store (claim_heard).
 */
static void
round_undo(struct pass *p, struct round *r, int doubtful)
{
	size_t i;

	store_rollback(p->store);
	p->nrun -= r->nclaims;
	for (i = 0; i < r->nclaims; i++)
		if (!doubtful ||
		    !in_doubt_keep(p->runner, &r->claims[i], r->commands[i]))
			free(r->commands[i]);
}

/*
 * One round, in one transaction: decide set-based up to `batch` pending
 * triggers after *cursor (those no command is involved in), and claim the
 * next trigger of each job whose command is free; then start the commands
 * it claimed.  *more is set while the queue may hold more rows past the
 * cursor.  The cost of a claim grows with neither the queue nor the
 * fleet: a round reads the queue's heads from its start, past only the
 * triggers waiting behind the commands running.
 */
static enum store_rc
pass_round(struct pass *p, int64_t *cursor, int *more)
{
	struct round r;
	struct in_doubt *d;
	enum store_rc rc;
	size_t i;
	int64_t now = clock_ms(CLOCK_REALTIME);

	*more = 0;
	memset(&r, 0, sizeof(r));
	if ((rc = store_begin(p->store)) != STORE_OK)
		return rc;
	if ((rc = round_read(p, *cursor, now, &r)) != STORE_OK) {
		store_rollback(p->store);
		return rc;
	}
	rc = round_decide(p, &r, now);
	/* A commit that was busy changed nothing (store.h). */
	if (rc == STORE_OK && (rc = store_commit(p->store)) != STORE_OK) {
		round_undo(p, &r, rc != STORE_BUSY);
		return rc;
	}
	if (rc != STORE_OK) {
		round_undo(p, &r, 0);
		return rc;
	}
	p->stats->transactions++;
	p->stats->failed += r.failed;
	p->stats->completed += r.completed;
	*cursor = r.upto;
	*more = r.inrange == p->o->batch;
	for (i = 0; i < r.nclaims; i++) {
		/* Claimed again: an earlier claim in doubt was never made. */
		if ((d = in_doubt_find(p->runner, r.claims[i].row,
			 KEPT_TRIGGER)) != NULL)
			in_doubt_drop(p->runner, d);
		pass_start(p, &p->run[p->nrun - r.nclaims + i], r.commands[i]);
		free(r.commands[i]);
	}
	return STORE_OK;
}

/*
 * Renews the lease of claim d, found in the store, in a transaction of its
 * own.  Seeing the claim proves only that the server that answered has it:
 * on PostgreSQL, a claim whose wait for the synchronous standby was
 * cancelled is on the primary alone, and were the primary lost, the
 * promoted standby would give the trigger the same id again, and its
 * command would run twice.  The renewal is a write, whose commit is
 * confirmed only once the standby has it and all before it, the claim
 * included.  So the claim's command may start only on STORE_OK, which
 * also gives it a whole lease (d->claim.lease_ms).  STORE_NOTFOUND: the
 * claim is no longer this runner's, and d is forgotten; anything else:
 * d stays in doubt, for the next pass.
 */
static enum store_rc
claim_renew(struct pass *p, struct in_doubt *d)
{
	int64_t now = clock_ms(CLOCK_REALTIME);
	int64_t lease = claim_lease(now, d->claim.timeout_s);
	enum store_rc rc;

	if ((rc = store_begin(p->store)) == STORE_OK) {
		if ((rc = store_claim_renew(p->store, d->claim.row, p->o->owner,
			 now, lease)) == STORE_OK &&
		    (rc = store_commit(p->store)) == STORE_OK) {
			p->stats->transactions++;
			d->claim.lease_ms = lease;
			return STORE_OK;
		}
		store_rollback(p->store);
	}
	if (rc == STORE_NOTFOUND) {
		log_info("trigger %s job %s: checkpoint %lld: its claim is no "
			 "longer this runner's; its action is not run",
		    d->claim.trigger.s, d->claim.job.s,
		    (long long)d->claim.checkpoint_id);
		in_doubt_drop(p->runner, d);
	} else
		log_warn("trigger %s job %s: checkpoint %lld: its claim was "
			 "found, but not renewed (%s): its action waits for "
			 "the next pass",
		    d->claim.trigger.s, d->claim.job.s,
		    (long long)d->claim.checkpoint_id, store_rc_name(rc));
	return rc;
}

/*
 * Runs the actions of this runner's claims in doubt that the store showed
 * were made (claim_heard), under the checkpoint ids they took, as their
 * rounds would have had their commits been answered, each once its
 * renewal committed (claim_renew).  Those over the parallel limit wait
 * for the next pass; on *quit none starts, and they are left to their
 * leases.
 */
static void
pass_start_due(struct pass *p, volatile sig_atomic_t *quit)
{
	struct runner *rn = p->runner;
	struct in_doubt *d;
	size_t i;
	enum store_rc rc;

	for (i = 0; i < rn->nin_doubt;) {
		d = &rn->in_doubt[i];
		if (d->kind != KEPT_TRIGGER || !d->due || *quit ||
		    p->nrun + 1 > p->o->parallel ||
		    pass_job_running(p, &d->claim.job)) {
			d->due = 0;
			i++;
			continue;
		}
		if ((rc = claim_renew(p, d)) != STORE_OK) {
			/* Dropped: in_doubt[i] is another one now. */
			if (rc != STORE_NOTFOUND) {
				d->due = 0;
				i++;
			}
			continue;
		}
		log_warn("trigger %s job %s: checkpoint %lld: its claim was "
			 "committed though its commit failed; its action runs "
			 "now",
		    d->claim.trigger.s, d->claim.job.s,
		    (long long)d->claim.checkpoint_id);
		p->run[p->nrun] = d->claim;
		pass_start(p, &p->run[p->nrun++], d->command);
		in_doubt_drop(rn, d);
	}
}

/* What result_stored found of one checkpoint. */
struct stored_result {
	const struct outcome *o;
	int same;
};

static int
same_text(const char *a, const char *b)
{
	return a == NULL ? b == NULL : b != NULL && strcmp(a, b) == 0;
}

static int
stored_result_cb(const struct ckpt *c, void *arg)
{
	struct stored_result *r = arg;
	const struct outcome *o = r->o;

	if (o->failure_class == NULL)
		r->same = c->status == CKPT_COMPLETED &&
		    same_text(c->location, o->location);
	else
		r->same = c->status == CKPT_FAILED &&
		    same_text(c->failure_class, o->failure_class) &&
		    same_text(c->failure_trace, o->failure_trace);
	return 0;
}

/*
 * Whether the job's checkpoint o->checkpoint_id already holds o: a result
 * recorded again after a commit that failed without saying whether it was
 * made (the connection lost in COMMIT, or a wait for a synchronous
 * standby cancelled, when the server commits on the primary alone) finds
 * its claim gone because that commit was made.  The store is asked of
 * the checkpoint here, not of the claim as in claim_heard: once a result
 * is recorded the claim is gone, and only the checkpoint tells whose
 * result settled it.
 */
static int
result_stored(struct pass *p, const struct id *job, const struct outcome *o)
{
	struct stored_result r = { o, 0 };

	if (o->checkpoint_id <= 0 ||
	    store_ckpt_get(p->store, job, o->checkpoint_id, stored_result_cb,
		&r) != STORE_OK)
		return 0;
	return r.same;
}

/*
 * The checkpoint history's own retention, after the results' purge: a
 * failure is logged and left for the next pass, never the pass's.
 */
static void
runner_prune_history(struct store *s, const struct runner_opts *o)
{
	enum store_rc rc;
	int64_t pruned;

	if (o->history_keep <= 0 && o->history_age_ms <= 0)
		return;
	if ((rc = store_history_prune(s, clock_ms(CLOCK_REALTIME),
		 o->history_keep, o->history_age_ms, &pruned)) != STORE_OK)
		log_warn("pruning the checkpoint history: %s",
		    store_rc_name(rc));
	else if (pruned > 0)
		log_info("pruned %lld checkpoints from the history",
		    (long long)pruned);
}

/*
 * Records how a claimed trigger ended, if the claim is still ours, and
 * counts and logs it.
 */
static enum store_rc
pass_record(struct pass *p, int64_t row, const struct id *job,
    const struct id *trigger, const struct outcome *o)
{
	enum store_rc rc;
	char cause[512];

	rc = store_complete(p->store, row, p->o->owner, o,
	    clock_ms(CLOCK_REALTIME));
	if (rc == STORE_NOTFOUND && result_stored(p, job, o)) {
		log_info("trigger %s job %s: checkpoint %lld: its result was "
			 "recorded by the commit that had not been confirmed",
		    trigger->s, job->s, (long long)o->checkpoint_id);
		rc = STORE_OK;
	}
	if (rc == STORE_OK && o->failure_class == NULL) {
		p->stats->completed++;
		log_info("trigger %s job %s: checkpoint %lld completed",
		    trigger->s, job->s, (long long)o->checkpoint_id);
	} else if (rc == STORE_OK) {
		p->stats->failed++;
		ckpt_failure_cause(o->failure_class, o->failure_trace, cause,
		    sizeof(cause));
		log_info("trigger %s job %s: checkpoint %lld FAILED: %s",
		    trigger->s, job->s, (long long)o->checkpoint_id, cause);
	} else if (rc == STORE_NOTFOUND)
		log_warn("trigger %s job %s: resolved by another runner while "
			 "its action ran; result dropped",
		    trigger->s, job->s);
	else
		log_error("trigger %s job %s: cannot record the result: %s",
		    trigger->s, job->s, store_rc_name(rc));
	return rc;
}

/* Whether a result that met rc, after errors database errors, is kept. */
static int
unrecorded_kept(enum store_rc rc, int errors)
{
	return rc == STORE_UNAVAILABLE || rc == STORE_READONLY ||
	    rc == STORE_BUSY ||
	    (rc == STORE_ERROR && errors < RUNNER_RECORD_ERRORS);
}

/* What u's action was, for the log: its trigger and checkpoint, or path. */
void
unrecorded_name(const struct unrecorded *u, char *buf, size_t len)
{
	const char *what = u->stop ? "stop" : "savepoint";

	if (u->kind == KEPT_DISPOSAL) {
		snprintf(buf, len, "disposal %s of %s", u->trigger.s,
		    u->location != NULL ? u->location : "");
		return;
	}
	if (u->kind == KEPT_TRIGGER)
		what = "trigger";
	snprintf(buf, len, "%s %s job %s: checkpoint %lld", what, u->trigger.s,
	    u->job.s, (long long)u->checkpoint_id);
}

/*
 * After the error rc recording the result that k describes (its row,
 * ids, kind), with location, or a failure's trace and class (NULL:
 * FAIL_CKPT_CLASS): kept, the strings copied, where the error may pass;
 * else, or for want of room or of memory, its claim is left to expire
 * with its lease.  Either is logged.
 */
void
unrecorded_keep(struct runner *rn, const struct unrecorded *k,
    const char *location, const char *trace, const char *class,
    enum store_rc rc)
{
	struct unrecorded *u = NULL;
	char name[512];

	if (rc == STORE_OK || rc == STORE_NOTFOUND)
		return;
	if (unrecorded_kept(rc, 0) && rn->nunrecorded < RUNNER_MAX_ACTIVE) {
		u = &rn->unrecorded[rn->nunrecorded++];
		*u = *k;
		u->location = u->trace = u->class = NULL;
		u->errors = rc == STORE_ERROR;
		if ((location != NULL &&
			(u->location = strdup(location)) == NULL) ||
		    (trace != NULL && (u->trace = strdup(trace)) == NULL) ||
		    (class != NULL && (u->class = strdup(class)) == NULL)) {
			unrecorded_drop(rn, u);
			u = NULL;
		}
	}
	if (u != NULL) {
		unrecorded_name(u, name, sizeof(name));
		log_warn("%s: its result is kept, to be recorded again", name);
	} else {
		unrecorded_name(k, name, sizeof(name));
		log_error("%s: its result could not be recorded (%s) nor "
			  "kept; its claim expires with its lease",
		    name, store_rc_name(rc));
	}
}

/* Records the end of an action, if the claim is still ours. */
/*
 * The stack trace of a failed action, Flink's CheckpointException: its
 * timeout (expired) or its end (declined, with the end of its stderr).
 * kind names the action ("checkpoint", "savepoint").
 */
void
action_failure_trace(struct buf *trace, struct action_result *res,
    int64_t timeout_s, const char *kind)
{
	char what[64];
	size_t tl;

	if (res->status == ACTION_TIMEOUT) {
		buf_printf(trace,
		    "%s: %s\n\tat %s action "
		    "(killed after its timeout of %lld s)\n",
		    FAIL_CKPT_CLASS, FAIL_EXPIRED, kind, (long long)timeout_s);
		return;
	}
	if (res->status == ACTION_ERROR)
		snprintf(what, sizeof(what), "could not be started");
	else if (res->signal != 0)
		snprintf(what, sizeof(what), "was killed by signal %d",
		    res->signal);
	else
		snprintf(what, sizeof(what), "exited with status %d",
		    res->exit_code);
	tl = strlen(res->err_tail);
	while (tl > 0 &&
	    (res->err_tail[tl - 1] == '\n' || res->err_tail[tl - 1] == ' '))
		res->err_tail[--tl] = '\0';
	if (tl > 0)
		buf_printf(trace, "%s: %s %s\n", FAIL_CKPT_CLASS, FAIL_DECLINED,
		    res->err_tail);
	else
		buf_printf(trace, "%s: %s The %s action failed.\n",
		    FAIL_CKPT_CLASS, FAIL_DECLINED, kind);
	buf_printf(trace, "\tat %s action (it %s)\n", kind, what);
}

static void
pass_finish(struct pass *p, struct running *r)
{
	struct action_result res;
	struct outcome o;
	struct unrecorded k;
	struct buf trace = { 0 };
	enum store_rc rc;

	if (r->is_flink) {
		pass_finish_flink(p, r);
		return;
	}
	memset(&o, 0, sizeof(o));
	o.checkpoint_id = r->checkpoint_id;
	o.type = r->type;
	if (r->action == NULL) {
		memset(&res, 0, sizeof(res));
		res.status = ACTION_ERROR;
		snprintf(res.err_tail, sizeof(res.err_tail), "%s", r->refused);
	} else
		action_result(r->action, &res);
	if (res.status == ACTION_OK)
		o.location = res.last_line[0] != '\0' ? res.last_line : NULL;
	else
		action_failure_trace(&trace, &res, r->timeout_s, "checkpoint");
	if (res.status != ACTION_OK) {
		o.failure_class = FAIL_CKPT_CLASS;
		o.failure_trace = buf_str(&trace);
	}
	rc = pass_record(p, r->row, &r->job, &r->trigger, &o);
	memset(&k, 0, sizeof(k));
	k.row = r->row;
	k.job = r->job;
	k.trigger = r->trigger;
	k.checkpoint_id = r->checkpoint_id;
	k.type = r->type;
	k.lease_ms = r->lease_ms;
	k.kind = KEPT_TRIGGER;
	unrecorded_keep(p->runner, &k, o.location, o.failure_trace, NULL, rc);
	buf_free(&trace);
	action_free(r->action);
	r->action = NULL;
}

/*
 * Records the results kept while the database could not be reached, at
 * the start of a pass; those whose lease ran out are left to be resolved
 * as expired.
 */
static void
pass_unrecorded(struct pass *p)
{
	struct runner *rn = p->runner;
	struct unrecorded *u;
	struct outcome o;
	enum store_rc rc;
	char name[512];
	size_t i;

	for (i = 0; i < rn->nunrecorded;) {
		u = &rn->unrecorded[i];
		memset(&o, 0, sizeof(o));
		o.checkpoint_id = u->checkpoint_id;
		o.type = u->type;
		o.location = u->location;
		if (u->trace != NULL) {
			o.failure_class = FAIL_CKPT_CLASS;
			o.failure_trace = u->trace;
		}
		unrecorded_name(u, name, sizeof(name));
		if (u->lease_ms <= clock_ms(CLOCK_REALTIME)) {
			log_warn("%s: its result was never recorded before "
				 "its lease ended",
			    name);
			rc = STORE_NOTFOUND;
		} else if (u->kind != KEPT_TRIGGER)
			rc = op_record_kept(p, u);
		else
			rc = pass_record(p, u->row, &u->job, &u->trigger, &o);
		if (rc == STORE_ERROR && ++u->errors == RUNNER_RECORD_ERRORS)
			log_error(
			    "%s: its result met %d database errors, and "
			    "is dropped; its claim expires with its lease",
			    name, u->errors);
		if (unrecorded_kept(rc, u->errors))
			i++;
		else
			unrecorded_drop(rn, u);
	}
}

/*
 * Waits up to RUNNER_POLL_MS for the running actions, or a watching
 * runner for news too (the store's descriptor): a trigger posted while
 * actions run starts as it comes, not at the next end of one of them.
 * Finishes the done.
 */
static int
pass_wait(struct pass *p)
{
	struct pollfd pfd[ACTION_POLLFDS * RUNNER_MAX_ACTIVE + 1];
	size_t i, n = 0;
	int timeout = RUNNER_POLL_MS, t, finished = 0;
	int64_t now = action_now_ms();

	if (p->o->watching && (pfd[0].fd = store_watch_fd(p->store)) != -1) {
		pfd[0].events = POLLIN;
		n = 1;
	}
	for (i = 0; i < p->nrun; i++) {
		if (p->run[i].is_flink)
			continue; /* stepped below, each time */
		if (p->run[i].action == NULL) {
			timeout = 0;
			continue;
		}
		n += action_pollfds(p->run[i].action, pfd + n, ACTION_POLLFDS);
		if ((t = action_timeout(p->run[i].action, now)) < timeout)
			timeout = t;
	}
	if (action_poll(pfd, n, timeout) == -1 && errno != EINTR)
		log_warn("poll: %s", strerror(errno));
	now = action_now_ms();
	for (i = 0; i < p->nrun;) {
		if (p->run[i].is_flink ?
			pass_step_flink(p, &p->run[i]) :
			(p->run[i].action == NULL ||
			    action_step(p->run[i].action, now))) {
			pass_finish(p, &p->run[i]);
			p->run[i] = p->run[--p->nrun];
			finished = 1;
		} else
			i++;
	}
	return finished;
}

/*
 * One pass: resolve stale claims (and run the actions of this runner's
 * own claims that it took for not made), then advance everything pending
 * that this runner may take, until nothing is left to do.  On *quit no
 * new work is taken; the actions running are waited for.  Returns 0, or
 * -1 if the store failed (logged; the pass stopped where it was).
 */

/*
 * --- Retention ---
 *
 * Before the savepoints and disposals of a pass, the jobs' policies ask
 * for the disposal of the savepoints they let go (retention.h): the pass
 * then runs them as any.
 */
static void
retention_asked(const struct retention_go *g, const struct id *disposal,
    void *arg)
{
	(void)arg;
	log_info("job %s: retention disposes %s (%s), disposal %s", g->job.s,
	    g->location, g->why, disposal->s);
}

static enum store_rc
pass_retention(struct pass *p)
{
	int64_t now = schedule_now();

	if (now <= 0)
		return STORE_OK;
	return retention_dispose_due(p->store, now, retention_asked, NULL);
}

/*
 * --- Schedules ---
 *
 * Each pass first fires what is due: per schedule, the latest slot since
 * the one it last fired (one, however many were missed while no runner
 * ran), RUNNER_SCHED_BATCH slots a transaction in which only one runner
 * can win each (store_schedule_fire).  The triggers it records are this
 * pass's to run, as if a client had posted them.  The pass also learns
 * when the next slot of any schedule comes, so that a watching runner
 * wakes for it, and a pass still running its actions then fires it.
 */
struct sched_due {
	struct schedule_row row;
	int64_t slot_ms;
	char *strings; /* the row's strings, copied */
};

struct sched_scan {
	int64_t now_ms;
	int64_t next_ms;
	struct sched_due *due;
	size_t n, cap;
	int oom;
};

static char *
sched_copy(const char *v, char **at)
{
	char *p;

	if (v == NULL)
		return NULL;
	p = *at;
	*at = stpcpy(p, v) + 1;
	return p;
}

static int
sched_collect(const struct schedule_row *row, void *arg)
{
	struct sched_scan *sc = arg;
	struct schedule_rule rule = { row->every_ms, row->cron, row->since_ms };
	int64_t slot = schedule_due(&rule, row->last_slot_ms, sc->now_ms);
	int64_t next = schedule_next(&rule, sc->now_ms);
	const char *const text[] = { row->kind, row->cron, row->set_by,
		row->job_state, row->savepoint_dir };
	struct sched_due *d;
	size_t i, len = 0;
	char *at;

	if (next > 0 && (sc->next_ms == 0 || next < sc->next_ms))
		sc->next_ms = next;
	if (slot == 0)
		return 0;
	if (sc->n == sc->cap) {
		size_t cap = sc->cap > 0 ? sc->cap * 2 : 16;
		void *p = realloc(sc->due, cap * sizeof(*sc->due));

		if (p == NULL)
			return sc->oom = 1;
		sc->due = p;
		sc->cap = cap;
	}
	for (i = 0; i < sizeof(text) / sizeof(text[0]); i++)
		len += text[i] != NULL ? strlen(text[i]) + 1 : 0;
	d = &sc->due[sc->n];
	d->row = *row;
	d->slot_ms = slot;
	if ((d->strings = at = malloc(len + 1)) == NULL)
		return sc->oom = 1;
	d->row.kind = sched_copy(row->kind, &at);
	d->row.cron = sched_copy(row->cron, &at);
	d->row.set_by = sched_copy(row->set_by, &at);
	d->row.job_state = sched_copy(row->job_state, &at);
	d->row.savepoint_dir = sched_copy(row->savepoint_dir, &at);
	sc->n++;
	return 0;
}

/*
 * The slots of row passed over to slot_ms, counted with the schedule and
 * logged: a slot not fired before the next was due is missed.
 */
static int64_t
sched_missed(const struct schedule_row *row, int64_t slot_ms)
{
	struct schedule_rule rule = { row->every_ms, row->cron, row->since_ms };
	int64_t n = schedule_missed(&rule, row->last_slot_ms, slot_ms);

	if (n > 0)
		log_warn("job %s: %lld %s slot%s of its schedule missed, "
			 "before slot %lld",
		    row->job.s, (long long)n,
		    strcmp(row->kind, "SAVEPOINT") == 0 ? "savepoint" :
							  "checkpoint",
		    n == 1 ? "" : "s", (long long)slot_ms);
	return n;
}

/* f for the due slot d, with a fresh trigger id; -1 if none was made. */
static int
sched_fire_init(struct pass *p, const struct sched_due *d,
    struct schedule_fire *f)
{
	memset(f, 0, sizeof(*f));
	f->slot_ms = d->slot_ms;
	f->missed = sched_missed(&d->row, f->slot_ms);
	f->now_ms = clock_ms(CLOCK_REALTIME);
	f->store_ms = p->o->store_ms;
	f->max_queued = p->o->max_queued;
	return id_random(&f->trigger);
}

/* What a committed batch's slots became, logged and counted. */
static void
sched_fired(struct pass *p, const struct schedule_row *const *rows,
    const struct schedule_fire *f, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (f[i].fired == 1) {
			p->stats->scheduled++;
			log_info("job %s: scheduled %s %s (slot %lld)",
			    rows[i]->job.s,
			    strcmp(rows[i]->kind, "SAVEPOINT") == 0 ?
				"savepoint" :
				"checkpoint",
			    f[i].trigger.s, (long long)f[i].slot_ms);
		} else if (f[i].fired == 2)
			log_info("job %s: scheduled %s skipped (slot %lld): %s",
			    rows[i]->job.s, rows[i]->kind,
			    (long long)f[i].slot_ms, f[i].skipped);
	for (i = 0; i < n && f[i].fired == 0; i++)
		;
	if (i < n) {
		p->stats->transactions++;
		p->stats->schedule_transactions++;
	}
}

/* The batch of sc's due slots from at, fired. */
static enum store_rc
sched_fire_batch(struct pass *p, const struct sched_scan *sc, size_t at,
    size_t n)
{
	const struct schedule_row *rows[RUNNER_SCHED_BATCH];
	struct schedule_fire f[RUNNER_SCHED_BATCH];
	enum store_rc rc;
	size_t i;

	for (i = 0; i < n; i++) {
		rows[i] = &sc->due[at + i].row;
		if (sched_fire_init(p, &sc->due[at + i], &f[i]) == -1)
			return STORE_ERROR;
	}
	if ((rc = store_schedule_fire(p->store, rows, f, n)) == STORE_OK)
		sched_fired(p, rows, f, n);
	return rc;
}

/*
 * Fires sc's due slots, batch by batch; a batch the database was busy
 * for is tried again, as a round is.
 */
static enum store_rc
sched_fire_all(struct pass *p, const struct sched_scan *sc)
{
	enum store_rc rc = STORE_OK;
	size_t at = 0, n;
	int busy = 0;

	while (at < sc->n) {
		n = sc->n - at < RUNNER_SCHED_BATCH ? sc->n - at :
						      RUNNER_SCHED_BATCH;
		rc = sched_fire_batch(p, sc, at, n);
		if (rc == STORE_BUSY && ++busy <= RUNNER_BUSY_TRIES) {
			log_warn("database busy; the schedules' slots will "
				 "be fired again");
			poll(NULL, 0, RUNNER_POLL_MS);
			continue;
		}
		if (rc != STORE_OK)
			break;
		busy = 0;
		at += n;
	}
	return rc;
}

static enum store_rc
pass_schedules(struct pass *p)
{
	struct sched_scan sc;
	enum store_rc rc;
	size_t i;

	memset(&sc, 0, sizeof(sc));
	if ((sc.now_ms = schedule_now()) <= 0)
		return STORE_OK;
	rc = store_schedule_list(p->store, NULL, sched_collect, &sc);
	if (sc.oom && rc == STORE_OK)
		rc = STORE_ERROR;
	p->stats->next_slot_ms = sc.next_ms;
	if (rc == STORE_OK)
		rc = sched_fire_all(p, &sc);
	for (i = 0; i < sc.n; i++)
		free(sc.due[i].strings);
	free(sc.due);
	return rc;
}

/*
 * Whether a slot of a schedule came during the pass, and was fired then
 * rather than after the pass's last action: a pass of a large fleet's
 * actions may outlast a schedule's period.
 */
static int
pass_slot_came(struct pass *p, volatile sig_atomic_t *quit)
{
	enum store_rc rc;
	int64_t next = p->stats->next_slot_ms;

	if (*quit || next <= 0 || schedule_now() < next)
		return 0;
	if ((rc = pass_schedules(p)) != STORE_OK)
		log_error("schedules: %s", store_rc_name(rc));
	return 1;
}

/*
 * A pass's opening: the results kept from the last, the stale claims
 * (and this runner's own in doubt), then the schedules' due slots and the
 * claims in doubt seen made.
 */
static enum store_rc
pass_open(struct pass *p, volatile sig_atomic_t *quit)
{
	enum store_rc rc, src;

	pass_unrecorded(p);
	if ((rc = pass_resolve_stale(p)) != STORE_OK) {
		log_error("resolving stale claims: %s", store_rc_name(rc));
		return rc;
	}
	/*
	 * After the dead runners' claims are resolved, which would
	 * otherwise hold a slot back; a failing schedule is logged, and
	 * the triggers still run.
	 */
	if ((src = pass_schedules(p)) != STORE_OK)
		log_error("schedules: %s", store_rc_name(src));
	pass_start_due(p, quit);
	return STORE_OK;
}

/*
 * The pass's rounds of checkpoint triggers, until nothing runs and
 * nothing waits, or *quit; its actions all ended.
 */
static enum store_rc
pass_triggers(struct pass *p, enum store_rc rc, volatile sig_atomic_t *quit)
{
	int64_t cursor = 0, version = 0, seen = 0;
	int more = 1, next_round, restart, busy = 0;

	store_data_version(p->store, &seen);
	while (rc == STORE_OK || rc == STORE_BUSY) {
		if (*quit)
			pass_release_flink(p);
		if (!*quit && more) {
			rc = pass_round(p, &cursor, &more);
			busy = rc == STORE_BUSY ? busy + 1 : 0;
			if (rc == STORE_BUSY && busy <= RUNNER_BUSY_TRIES)
				log_warn("database busy; the round will be "
					 "tried again");
			if (more)
				continue;
		}
		/*
		 * Done when nothing runs and nothing waits: not after a busy
		 * round, which is tried again (a lock held a moment longer
		 * than the busy timeout), unless the database stayed locked
		 * RUNNER_BUSY_TRIES rounds in a row.
		 */
		if (p->nrun == 0 &&
		    ((!p->skipped &&
			 (rc != STORE_BUSY || busy > RUNNER_BUSY_TRIES)) ||
			*quit))
			break;
		/*
		 * An action that ended frees its job (and a parallel slot):
		 * a round takes the job's next trigger, from where the
		 * cursor is.  Another process's commit may have queued
		 * triggers behind the cursor (ids are handed out before
		 * commit), or changed a job: look again from the start.
		 */
		next_round = pass_wait(p);
		restart = pass_slot_came(p, quit);
		if (store_data_version(p->store, &version) == STORE_OK &&
		    version != seen) {
			seen = version;
			restart = 1;
		}
		if (next_round || restart || rc == STORE_BUSY) {
			p->skipped = 0;
			more = 1;
		}
		if (restart)
			cursor = 0;
	}
	pass_release_flink(p);
	while (p->nrun > 0)
		pass_wait(p);
	return rc;
}

/*
 * The pass's close, after its triggers: retention (whose disposals run
 * just below), the savepoint family, the purge and the history's
 * pruning, and the pass recorded for GET /metrics.
 */
static enum store_rc
pass_close(struct pass *p, enum store_rc rc, int64_t before, int64_t start,
    volatile sig_atomic_t *quit)
{
	const struct runner_opts *o = p->o;
	enum store_rc rrc;
	int64_t purged;

	if (rc == STORE_OK && !*quit && (rrc = pass_retention(p)) != STORE_OK)
		log_error("retention: %s", store_rc_name(rrc));
	if (rc == STORE_OK && !*quit &&
	    (rc = pass_savepoints(p, quit)) != STORE_OK)
		log_error("savepoints: %s", store_rc_name(rc));
	if (rc == STORE_OK && o->store_ms > 0 &&
	    store_purge(p->store, clock_ms(CLOCK_REALTIME), o->store_ms,
		&purged) == STORE_OK)
		p->stats->purged += purged;
	if (rc == STORE_OK)
		runner_prune_history(p->store, o);
	/* For GET /metrics; a failure here is not the pass's. */
	if (rc == STORE_OK &&
	    (rc = store_record_pass(p->store, clock_ms(CLOCK_REALTIME),
		 p->stats->completed + p->stats->failed - before,
		 action_now_ms() - start, RUNNER_RECORD_IDLE_MS)) != STORE_OK) {
		log_warn("recording the pass: %s", store_rc_name(rc));
		rc = STORE_OK;
	}
	return rc;
}

int
runner_pass(struct runner *rn, struct store *s, const struct runner_opts *o,
    struct runner_stats *stats, volatile sig_atomic_t *quit)
{
	struct pass p;
	enum store_rc rc;
	int64_t start = action_now_ms();
	int64_t before = stats->completed + stats->failed;

	memset(&p, 0, sizeof(p));
	p.runner = rn;
	p.store = s;
	p.o = o;
	p.stats = stats;
	if ((p.pend = calloc(o->batch, sizeof(*p.pend))) == NULL)
		return -1;
	rc = pass_open(&p, quit);
	rc = pass_triggers(&p, rc, quit);
	free(p.pend);
	p.pend = NULL;
	rc = pass_close(&p, rc, before, start, quit);
	stats->duration_ms += action_now_ms() - start;
	return rc == STORE_OK ? 0 : -1;
}
