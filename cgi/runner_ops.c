/*
 * The savepoint family's part of a runner's pass: savepoints, stops and
 * disposals (see runner_impl.h; runner.c takes the checkpoint triggers).
 */
#include <config.h>

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "jobmanager.h"
#include "log.h"
#include "retention.h"
#include "runner_impl.h"
#include "throwable.h"

/*
 * --- Savepoints and disposals ---
 *
 * After the checkpoint triggers, a pass takes the pending savepoints,
 * stops and disposals, each in the way of a checkpoint trigger: a
 * savepoint of a job not RUNNING fails as Flink's FlinkJobNotFoundException
 * and takes no id; otherwise it takes the job's next checkpoint id (one
 * sequence, as Flink's) and a claim with a lease, in one transaction, and
 * its command runs after the commit; its result is recorded on condition
 * that the claim is still ours.  A stop that succeeds leaves its job
 * FINISHED, a savepoint with cancel-job CANCELED, so that no checkpoint
 * or savepoint is taken of it again.  These commands run one after the
 * other, at the end of the pass: savepoints are rare next to checkpoints.
 * A claim whose runner is gone from this host, or whose lease ran out,
 * fails as expired, as a checkpoint's; its command is not run again.
 * A job bound to a JobManager runs no command: its JobManager takes the
 * savepoint, stop or disposal (op_flink), and gives the id.  A savepoint
 * or stop of any other job without the command fails, running nothing,
 * and never gets a location made up.  A job its operator made bookkeeping
 * only runs and asks nothing for them: each completes at once with a
 * failure that says so, as Flink's SavepointInfo has a location or a
 * failure and nothing was taken; a stop still marks the job FINISHED, a
 * cancel-job CANCELED.
 */

#define OP_BATCH 16
/*
 * A savepoint or stop of a job without such a command: nothing is run,
 * and no location is made up for it.  %s: "savepoint" or "stop", twice.
 */
#define FAIL_NO_COMMAND_TRACE \
	"org.apache.flink.runtime.checkpoint.CheckpointException: " \
	"Checkpoint was declined. The job has no %s command, so " \
	"nothing was taken (checkpointctl job set --%s-command, or " \
	"--bookkeeping-only yes)."
/*
 * A savepoint or stop of a job that is bookkeeping only: nothing is run
 * and nothing taken; %s%s: the job's end, if it is given one.
 */
#define FAIL_BOOKKEEPING_TRACE \
	"org.apache.flink.runtime.checkpoint.CheckpointException: " \
	"Bookkeeping only: nothing was taken, as the job's operator said " \
	"(checkpointctl job set --bookkeeping-only yes)%s%s."
/* The cause of a client's disposal that its scope refuses. */
#define FAIL_SCOPE_CAUSE "java.lang.IllegalStateException"

/* Why a disposal is out of its scope, by its task's scope. */
static const char *const disposal_scope_why[] = {
	[DISPOSAL_NO_SAVEPOINT] =
	    "no savepoint is at this path (a checkpoint's "
	    "location is disposed of by retention only)",
	[DISPOSAL_KEPT] = "the savepoint is marked kept (checkpointctl "
			  "savepoint keep)",
	[DISPOSAL_NEWEST] = "the savepoint is its job's newest",
};

static enum store_rc op_start_due(struct pass *, enum kept);
static enum store_rc op_run_disposal(struct pass *,
    const struct disposal_task *, int64_t lease_ms);
static void op_doubt_unseen(struct runner *, enum kept);

/*
 * Fails the claims left by dead runners or past their leases, and this
 * runner's own but those whose results it keeps (pass_unrecorded) and
 * those kept in doubt, which are marked due (op_start_due), as a
 * trigger's are (claim_heard).
 */
struct op_stale {
	struct runner *runner;
	int disposals;
	const char *owner;
	struct op_claim c[OP_BATCH];
	char owners[OP_BATCH][256]; /* c[i]'s, to complete it on */
	size_t n;
};

static int
op_stale_collect(const struct op_claim *c, void *arg)
{
	struct op_stale *st = arg;
	enum kept kind = st->disposals ? KEPT_DISPOSAL : KEPT_SAVEPOINT;
	struct in_doubt *d;

	if (!c->expired && owner_alive(c->owner) != 0 &&
	    strcmp(c->owner, st->owner) != 0)
		return 0;
	if (!c->expired && unrecorded_find(st->runner, c->row, kind) != NULL)
		return 0;
	if (!c->expired && strcmp(c->owner, st->owner) == 0 &&
	    (d = in_doubt_find(st->runner, c->row, kind)) != NULL) {
		d->due = 1;
		return 0;
	}
	st->c[st->n] = *c;
	snprintf(st->owners[st->n], sizeof(st->owners[st->n]), "%s", c->owner);
	st->c[st->n].owner = st->owners[st->n];
	return ++st->n == OP_BATCH;
}

static enum store_rc
op_resolve_stale(struct pass *p, int disposals)
{
	struct op_stale st;
	struct buf trace = { 0 };
	enum store_rc rc;
	int64_t now = clock_ms(CLOCK_REALTIME);
	size_t i;

	memset(&st, 0, sizeof(st));
	st.runner = p->runner;
	st.disposals = disposals;
	st.owner = p->o->owner;
	if ((rc = store_begin(p->store)) != STORE_OK)
		return rc;
	rc = store_op_claims(p->store, disposals, now, op_stale_collect, &st);
	for (i = 0; rc == STORE_OK && i < st.n; i++) {
		buf_reset(&trace);
		buf_printf(&trace,
		    "%s: %s\n\tat %s (its runner ended or its "
		    "lease ran out)\n",
		    FAIL_CKPT_CLASS, FAIL_EXPIRED,
		    disposals ? "dispose action" : "savepoint action");
		if (disposals)
			rc = store_disposal_complete(p->store, st.c[i].row,
			    st.c[i].owner, NULL, FAIL_CKPT_CLASS,
			    buf_str(&trace), now);
		else
			rc = store_savepoint_complete(p->store, st.c[i].row,
			    st.c[i].owner, 0, NULL, FAIL_CKPT_CLASS,
			    buf_str(&trace), now);
		if (rc == STORE_NOTFOUND)
			rc = STORE_OK;
		else if (rc == STORE_OK)
			p->stats->stale++;
	}
	buf_free(&trace);
	if (rc == STORE_OK && (rc = store_commit(p->store)) == STORE_OK)
		return op_start_due(p,
		    disposals ? KEPT_DISPOSAL : KEPT_SAVEPOINT);
	store_rollback(p->store);
	op_doubt_unseen(p->runner, disposals ? KEPT_DISPOSAL : KEPT_SAVEPOINT);
	return rc;
}

/* The claim checks above match on the owner: release it first. */
static enum store_rc
op_unclaim_stale(struct pass *p)
{
	enum store_rc rc;

	if ((rc = op_resolve_stale(p, 0)) != STORE_OK)
		return rc;
	return op_resolve_stale(p, 1);
}

/* Runs one command with its environment; res has its end. */
static void
op_run(const char *command, char *const *env, size_t nenv, int64_t timeout_s,
    struct action_result *res)
{
	struct action_spec spec;
	size_t i;

	memset(&spec, 0, sizeof(spec));
	spec.command = command;
	for (i = 0; i < nenv && i < ACTION_MAX_ENV; i++)
		spec.env[i] = env[i];
	spec.timeout_ms = timeout_s * 1000;
	if (action_run(&spec, res) == -1) {
		memset(res, 0, sizeof(*res));
		res->status = ACTION_ERROR;
	}
}

/*
 * Runs command unless the commands file refuses it for job and kind: res
 * has the refusal, as a command that could not be started.
 */
static void
op_run_checked(const struct pass *p, const struct id *job, enum cmd_kind k,
    const char *command, char *const *env, size_t nenv, int64_t timeout_s,
    struct action_result *res)
{
	memset(res, 0, sizeof(*res));
	if (pass_refused(p, job, k, command, res->err_tail,
		sizeof(res->err_tail)))
		res->status = ACTION_ERROR;
	else
		op_run(command, env, nenv, timeout_s, res);
}

/*
 * The command a savepoint runs: the job's savepoint or stop command.  A
 * job bound to a JobManager runs none: its JobManager takes it
 * (op_flink).
 */
static const char *
op_command(const struct savepoint_task *t)
{
	return t->command;
}

/*
 * With the operator's commands file, a savepoint goes only where it
 * says: to the JobManager it registers for the job, into a directory
 * under the one it registers (or else CHECKPOINT_SAVEPOINT_ROOT).  The
 * web server's user may have written either into the database.  1 when
 * t may not run, its failure's trace in trace.
 */
static int
op_where_refused(const struct pass *p, const struct savepoint_task *t,
    struct buf *trace)
{
	char why[ACTION_TAIL / 2], cause[ACTION_TAIL];
	int refused;

	if (p->o->commands == NULL)
		return 0;
	refused = t->flink_url != NULL &&
	    pass_refused(p, &t->job, CMD_FLINK, t->flink_url, cause,
		sizeof(cause));
	if (!refused &&
	    !commands_dir_allow(p->o->commands, t->job.s, t->target_dir,
		p->o->savepoint_root, why, sizeof(why))) {
		snprintf(cause, sizeof(cause), "%s: %s.", CMD_REFUSED, why);
		log_error("job %s: savepoint not taken: %s", t->job.s, why);
		refused = 1;
	}
	if (refused)
		buf_printf(trace, "%s: %s %s\n\tat checkpoint-runner\n",
		    FAIL_CKPT_CLASS, FAIL_DECLINED, cause);
	return refused;
}

/*
 * Follows a savepoint, stop or disposal on the job's JobManager to its
 * end, as op_run waits for a command, up to the job's timeout; NULL: out
 * of memory.  The caller reads jm_result and frees it.  *expired: the
 * timeout came first.
 */
static struct jm_follow *
op_flink(const char *url, const struct id *job, const struct id *trigger,
    const struct jm_op *op, int64_t timeout_s, int *expired)
{
	int64_t start = action_now_ms(), now = start;
	struct jm_follow *f;

	*expired = 0;
	if ((f = jm_start_op(url, job->s, trigger->s, op, now)) == NULL)
		return NULL;
	while (!jm_step(f, now)) {
		if (now - start >= timeout_s * 1000) {
			*expired = 1;
			break;
		}
		poll(NULL, 0, 20);
		now = action_now_ms();
	}
	return f;
}

/* Records the end of a claimed savepoint, in a transaction of its own. */
static enum store_rc
op_record_savepoint(struct pass *p, const struct savepoint_task *t, int64_t id,
    const char *location, const char *class, const char *trace)
{
	int64_t now = clock_ms(CLOCK_REALTIME);
	enum store_rc rc;

	if ((rc = store_begin(p->store)) != STORE_OK)
		return rc;
	rc = store_savepoint_complete(p->store, t->row, p->o->owner, id,
	    location, trace != NULL ? class : NULL, trace, now);
	if (rc == STORE_OK && trace == NULL && (t->stop || t->cancel_job))
		rc = store_savepoint_end_job(p->store, &t->job,
		    t->stop ? "FINISHED" : "CANCELED", now);
	if (rc != STORE_OK) {
		store_rollback(p->store);
		return rc;
	}
	if ((rc = store_commit(p->store)) == STORE_OK) {
		p->stats->transactions++;
		if (trace == NULL)
			p->stats->completed++;
		else
			p->stats->failed++;
	}
	return rc;
}

/* Records a disposal's end: of path, or its failure's class and trace. */
static enum store_rc
op_record_disposal(struct pass *p, int64_t row, const char *path,
    const char *class, const char *trace)
{
	enum store_rc rc;

	if ((rc = store_begin(p->store)) != STORE_OK)
		return rc;
	rc = store_disposal_complete(p->store, row, p->o->owner, path, class,
	    trace, clock_ms(CLOCK_REALTIME));
	if (rc != STORE_OK) {
		store_rollback(p->store);
		return rc;
	}
	return store_commit(p->store);
}

/* Records a savepoint's or a disposal's result that pass_unrecorded kept. */
enum store_rc
op_record_kept(struct pass *p, const struct unrecorded *u)
{
	struct savepoint_task t;
	enum store_rc rc;
	char name[512];

	if (u->kind == KEPT_DISPOSAL)
		rc = op_record_disposal(p, u->row, u->location,
		    u->trace != NULL ? u->class : NULL, u->trace);
	else {
		memset(&t, 0, sizeof(t));
		t.row = u->row;
		t.job = u->job;
		t.trigger = u->trigger;
		t.stop = u->stop;
		t.cancel_job = u->cancel_job;
		rc = op_record_savepoint(p, &t, u->checkpoint_id, u->location,
		    u->class != NULL ? u->class : FAIL_CKPT_CLASS, u->trace);
	}
	unrecorded_name(u, name, sizeof(name));
	if (rc == STORE_OK)
		log_info("%s: its kept result recorded", name);
	else if (rc == STORE_NOTFOUND)
		log_warn("%s: resolved by another runner meanwhile; its kept "
			 "result dropped",
		    name);
	return rc;
}

/*
 * After the rc of recording a savepoint's (t) or a disposal's (d, its
 * path for location) result, with location, or trace and class: kept
 * where the error may pass (unrecorded_keep); lease_ms is the claim's.
 */
static void
op_keep(struct pass *p, const struct savepoint_task *t,
    const struct disposal_task *d, int64_t id, const char *location,
    const char *class, const char *trace, int64_t lease_ms, enum store_rc rc)
{
	struct unrecorded k;

	memset(&k, 0, sizeof(k));
	k.row = d != NULL ? d->row : t->row;
	k.job = d != NULL ? d->job : t->job;
	k.trigger = d != NULL ? d->trigger : t->trigger;
	k.checkpoint_id = id;
	k.lease_ms = lease_ms;
	k.kind = d != NULL ? KEPT_DISPOSAL : KEPT_SAVEPOINT;
	k.stop = t != NULL && t->stop;
	k.cancel_job = t != NULL && t->cancel_job;
	k.location = d != NULL ? d->path : NULL; /* for the log */
	unrecorded_keep(p->runner, &k, location, trace,
	    trace != NULL ? class : NULL, rc);
}

/*
 * A savepoint op_where_refused refuses, failed without running anything:
 * 1 once recorded (*rc the store's answer); 0 when it may run.
 */
static int
op_refused_where(struct pass *p, const struct savepoint_task *t, int64_t id,
    enum store_rc *rc)
{
	struct buf trace = { 0 };

	if (!op_where_refused(p, t, &trace))
		return 0;
	*rc = op_record_savepoint(p, t, id, NULL, FAIL_CKPT_CLASS,
	    buf_str(&trace));
	buf_free(&trace);
	return 1;
}

/*
 * A claimed savepoint or stop of a job bound to a JobManager: asked of
 * it under the service's trigger id, and Flink's location, id or failure
 * recorded.
 */
static enum store_rc
op_flink_savepoint(struct pass *p, const struct savepoint_task *t,
    int64_t lease_ms)
{
	struct jm_op op = { t->stop ? JM_STOP : JM_SAVEPOINT, t->target_dir,
		t->native, t->cancel_job, t->drain, NULL };
	struct jm_follow *f;
	struct jm_result r;
	struct buf trace = { 0 };
	enum store_rc rc;
	int expired;

	if (op_refused_where(p, t, 0, &rc))
		return rc;
	log_info("%s %s job %s: asked of the JobManager %s",
	    t->stop ? "stop" : "savepoint", t->trigger.s, t->job.s,
	    t->flink_url);
	if ((f = op_flink(t->flink_url, &t->job, &t->trigger, &op, t->timeout_s,
		 &expired)) == NULL)
		return STORE_ERROR;
	p->stats->actions++;
	jm_result(f, &r);
	if (expired)
		buf_printf(&trace,
		    "%s: %s\n\tat checkpoint-runner (the JobManager %s did "
		    "not finish it within the job's timeout of %lld s)\n",
		    FAIL_CKPT_CLASS, FAIL_EXPIRED, t->flink_url,
		    (long long)t->timeout_s);
	rc = op_record_savepoint(p, t, r.checkpoint_id,
	    expired ? NULL : r.location,
	    expired ? FAIL_CKPT_CLASS : r.failure_class,
	    expired ? buf_str(&trace) : r.failure_trace);
	op_keep(p, t, NULL, r.checkpoint_id, expired ? NULL : r.location,
	    expired ? FAIL_CKPT_CLASS : r.failure_class,
	    expired ? buf_str(&trace) : r.failure_trace, lease_ms, rc);
	jm_free(f);
	buf_free(&trace);
	return rc;
}

/*
 * Runs a claimed savepoint's command and records its end; lease_ms is
 * the claim's.
 */
static enum store_rc
op_run_savepoint(struct pass *p, const struct savepoint_task *t, int64_t id,
    int64_t lease_ms)
{
	struct action_result res;
	struct buf env[7], trace = { 0 };
	char *envp[7];
	enum store_rc rc;
	size_t i;

	if (op_refused_where(p, t, id, &rc))
		return rc;
	memset(env, 0, sizeof(env));
	buf_printf(&env[0], "CHECKPOINT_JOB_ID=%s", t->job.s);
	buf_printf(&env[1], "CHECKPOINT_ID=%lld", (long long)id);
	buf_printf(&env[2], "CHECKPOINT_TRIGGER_ID=%s", t->trigger.s);
	buf_printf(&env[3], "CHECKPOINT_TYPE=%s",
	    t->stop ? "SYNC_SAVEPOINT" : "SAVEPOINT");
	buf_printf(&env[4], "CHECKPOINT_SAVEPOINT_DIR=%s", t->target_dir);
	buf_printf(&env[5], "CHECKPOINT_SAVEPOINT_FORMAT=%s",
	    t->native ? "NATIVE" : "CANONICAL");
	if (t->stop)
		buf_printf(&env[6], "CHECKPOINT_DRAIN=%s",
		    t->drain ? "true" : "false");
	else
		buf_printf(&env[6], "CHECKPOINT_CANCEL_JOB=%s",
		    t->cancel_job ? "true" : "false");
	for (i = 0; i < 7; i++)
		envp[i] = (char *)buf_str(&env[i]);
	log_info("%s %s job %s: checkpoint %lld: action started",
	    t->stop ? "stop" : "savepoint", t->trigger.s, t->job.s,
	    (long long)id);
	op_run_checked(p, &t->job, t->stop ? CMD_STOP : CMD_SAVEPOINT,
	    op_command(t), envp, 7, t->timeout_s, &res);
	p->stats->actions++;
	if (res.status == ACTION_OK && res.last_line[0] == '\0') {
		/* Flink's SavepointInfo has a location or a failure. */
		res.status = ACTION_FAILED;
		snprintf(res.err_tail, sizeof(res.err_tail),
		    "The savepoint action printed no location.");
	}
	if (res.status != ACTION_OK)
		action_failure_trace(&trace, &res, t->timeout_s, "savepoint");
	rc = op_record_savepoint(p, t, id,
	    res.status == ACTION_OK ? res.last_line : NULL, FAIL_CKPT_CLASS,
	    res.status == ACTION_OK ? NULL : buf_str(&trace));
	op_keep(p, t, NULL, id, res.status == ACTION_OK ? res.last_line : NULL,
	    FAIL_CKPT_CLASS, res.status == ACTION_OK ? NULL : buf_str(&trace),
	    lease_ms, rc);
	for (i = 0; i < 7; i++)
		buf_free(&env[i]);
	buf_free(&trace);
	return rc;
}

/*
 * Ends a round of savepoints or disposals whose statements gave rc:
 * committed, or rolled back.  *doubtful: the commit itself failed, other
 * than busy, so that its claims may have been made all the same (as a
 * trigger round's: pass_round).
 */
static enum store_rc
op_round_commit(struct pass *p, enum store_rc rc, int *doubtful)
{
	*doubtful = 0;
	if (rc == STORE_OK && (rc = store_commit(p->store)) != STORE_OK &&
	    rc != STORE_BUSY)
		*doubtful = 1;
	if (rc != STORE_OK)
		store_rollback(p->store);
	else
		p->stats->transactions++;
	return rc;
}

/*
 * Keeps a claimed savepoint (sp) or disposal (dp) whose round's commit
 * failed, in doubt, its strings taken over: its action runs once the
 * store shows the claim was made (op_start_due).
 */
static void
op_doubt_keep(struct pass *p, struct savepoint_task *sp,
    struct disposal_task *dp, int64_t id, int64_t lease_ms)
{
	struct running r;
	struct in_doubt *d;

	memset(&r, 0, sizeof(r));
	r.checkpoint_id = id;
	r.lease_ms = lease_ms;
	if (sp != NULL) {
		r.row = sp->row;
		r.job = sp->job;
		r.trigger = sp->trigger;
		r.timeout_s = sp->timeout_s;
		if ((d = in_doubt_new(p->runner, KEPT_SAVEPOINT, &r)) == NULL)
			return;
		d->sp = *sp;
		sp->target_dir = sp->command = sp->flink_url = NULL;
	} else if (dp != NULL) {
		r.row = dp->row;
		r.job = dp->job;
		r.trigger = dp->trigger;
		r.timeout_s = dp->timeout_s;
		if ((d = in_doubt_new(p->runner, KEPT_DISPOSAL, &r)) == NULL)
			return;
		d->dp = *dp;
		dp->path = dp->command = dp->flink_url = NULL;
	}
}

/*
 * Runs a savepoint's (sp) or a disposal's (dp) action, claimed under id
 * with lease_ms, and records its end.  Claimed by a round that committed,
 * any claim of it kept in doubt was never made.
 */
static void
op_start(struct pass *p, struct savepoint_task *sp, struct disposal_task *dp,
    int64_t id, int64_t lease_ms)
{
	struct in_doubt *d;

	if (dp != NULL) {
		if ((d = in_doubt_find(p->runner, dp->row, KEPT_DISPOSAL)) !=
		    NULL)
			in_doubt_drop(p->runner, d);
		(void)op_run_disposal(p, dp, lease_ms);
		return;
	}
	if (sp == NULL)
		return;
	if ((d = in_doubt_find(p->runner, sp->row, KEPT_SAVEPOINT)) != NULL)
		in_doubt_drop(p->runner, d);
	if (sp->flink_url != NULL)
		(void)op_flink_savepoint(p, sp, lease_ms);
	else
		(void)op_run_savepoint(p, sp, id, lease_ms);
}

/*
 * After a round's commit (rc): the commands of the tasks it claimed (of
 * sp or dp, n of them) start; if the commit failed without saying
 * whether it was made (doubtful), their claims are kept in doubt
 * (op_start_due).
 */
static void
op_round_start(struct pass *p, enum store_rc rc, int doubtful,
    struct savepoint_task *sp, struct disposal_task *dp, const int *claimed,
    const int64_t *ids, size_t n, int64_t now)
{
	struct savepoint_task *s;
	struct disposal_task *d;
	int64_t lease;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!claimed[i])
			continue;
		s = sp != NULL ? &sp[i] : NULL;
		d = dp != NULL ? &dp[i] : NULL;
		lease = claim_lease(now,
		    s != NULL ? s->timeout_s : d->timeout_s);
		if (rc == STORE_OK)
			op_start(p, s, d, ids != NULL ? ids[i] : 0, lease);
		else if (doubtful)
			op_doubt_keep(p, s, d, ids != NULL ? ids[i] : 0, lease);
	}
}

/* Fails savepoint task t at once, of class with the trace made. */
static enum store_rc
op_savepoint_fail(struct pass *p, const struct savepoint_task *t,
    const char *class, struct buf *trace, int64_t now)
{
	enum store_rc rc;

	rc = store_savepoint_complete(p->store, t->row, NULL, 0, NULL, class,
	    buf_str(trace), now);
	p->stats->failed += rc == STORE_OK;
	return rc;
}

/*
 * A savepoint or stop of a bookkeeping job: completed at once, nothing
 * run, no id, no location, its failure saying so (see above); a stop
 * ends the job, a cancel-job cancels it.  With the commands file, only
 * if the file says the job is bookkeeping only too: the web server's
 * user may have set it in the database to have nothing run.
 */
static enum store_rc
op_bookkeeping(struct pass *p, const struct savepoint_task *t,
    struct buf *trace, int64_t now)
{
	const char *end = t->stop ? "FINISHED" :
	    t->cancel_job	  ? "CANCELED" :
				    NULL;
	char cause[ACTION_TAIL];
	enum store_rc rc;

	if (pass_refused(p, &t->job, CMD_BOOKKEEPING, "yes", cause,
		sizeof(cause))) {
		buf_printf(trace, "%s: %s %s\n\tat checkpoint-runner\n",
		    FAIL_CKPT_CLASS, FAIL_DECLINED, cause);
		return op_savepoint_fail(p, t, FAIL_CKPT_CLASS, trace, now);
	}
	buf_printf(trace, FAIL_BOOKKEEPING_TRACE "\n",
	    end != NULL ? "; the job is recorded " : "",
	    end != NULL ? end : "");
	rc = op_savepoint_fail(p, t, FAIL_CKPT_CLASS, trace, now);
	if (rc == STORE_OK && end != NULL)
		rc = store_savepoint_end_job(p->store, &t->job, end, now);
	log_info("%s %s job %s: bookkeeping only: nothing run%s%s",
	    t->stop ? "stop" : "savepoint", t->trigger.s, t->job.s,
	    end != NULL ? ", the job recorded " : "", end != NULL ? end : "");
	return rc;
}

/* Whether t runs nothing: its job is bookkeeping only, or has no command. */
static int
op_runs_nothing(const struct savepoint_task *t)
{
	return t->bookkeeping ||
	    (t->flink_url == NULL && op_command(t) == NULL);
}

/*
 * Completes a savepoint or stop that runs nothing (op_runs_nothing) at
 * once: no location, and no id.
 */
static enum store_rc
op_savepoint_unrun(struct pass *p, const struct savepoint_task *t,
    struct buf *trace, int64_t now)
{
	const char *kind = t->stop ? "stop" : "savepoint";

	if (t->bookkeeping)
		return op_bookkeeping(p, t, trace, now);
	buf_printf(trace, FAIL_NO_COMMAND_TRACE "\n", kind, kind);
	return op_savepoint_fail(p, t, FAIL_CKPT_CLASS, trace, now);
}

/*
 * Claims t[i] of the n tasks, under the job's next id in *id (none for a
 * JobManager's, which gives its own at the end); the job's later tasks
 * of the round wait for it.  *claimed: whether it was.
 */
static enum store_rc
op_savepoint_take(struct pass *p, struct savepoint_task *t, size_t n, size_t i,
    int64_t *id, int *claimed, int64_t now)
{
	enum store_rc rc;
	size_t k;

	*id = 0;
	if (t[i].flink_url == NULL &&
	    (rc = store_next_checkpoint_id(p->store, &t[i].job, id)) !=
		STORE_OK)
		return rc;
	rc = store_savepoint_claim(p->store, t[i].row, p->o->owner, *id, now,
	    claim_lease(now, t[i].timeout_s));
	if (rc == STORE_NOTFOUND)
		return STORE_OK;
	if (rc != STORE_OK)
		return rc;
	*claimed = 1;
	for (k = i + 1; k < n; k++)
		if (strcmp(t[k].job.s, t[i].job.s) == 0)
			t[k].job_busy = 1;
	return STORE_OK;
}

/*
 * One round of savepoints: decided and claimed in one transaction, then
 * the claimed ones' commands run.  *more while the round was full.
 */
static enum store_rc
op_savepoint_round(struct pass *p, int *more)
{
	struct savepoint_task t[OP_BATCH];
	int64_t ids[OP_BATCH];
	int claimed[OP_BATCH];
	struct buf trace = { 0 };
	int64_t now = clock_ms(CLOCK_REALTIME);
	enum store_rc rc;
	size_t n = 0, i, decided = 0;
	int doubtful;

	*more = 0;
	memset(claimed, 0, sizeof(claimed));
	if ((rc = store_begin(p->store)) != STORE_OK)
		return rc;
	rc = store_savepoints_pending(p->store, t, OP_BATCH, &n);
	for (i = 0; rc == STORE_OK && i < n; i++) {
		buf_reset(&trace);
		if (!t[i].job_known || !t[i].job_running) {
			buf_printf(&trace, FAIL_JOB_TRACE "\n", t[i].job.s,
			    t[i].job.s);
			rc = op_savepoint_fail(p, &t[i], FAIL_JOB_CLASS, &trace,
			    now);
			decided++;
		} else if (t[i].job_busy)
			/* One command of a job at a time, and this pass's. */
			continue;
		else if (op_runs_nothing(&t[i])) {
			rc = op_savepoint_unrun(p, &t[i], &trace, now);
			decided++;
		} else {
			rc = op_savepoint_take(p, t, n, i, &ids[i], &claimed[i],
			    now);
			decided += claimed[i];
		}
	}
	buf_free(&trace);
	rc = op_round_commit(p, rc, &doubtful);
	/*
	 * Again while a round decides anything: the rows it left wait for
	 * a job's savepoint this round ran.  A round of busy jobs only
	 * waits for the next pass.
	 */
	*more = rc == STORE_OK && decided > 0;
	op_round_start(p, rc, doubtful, t, NULL, claimed, ids, n, now);
	store_savepoint_tasks_free(t, n);
	return rc;
}

/*
 * A disposal of a bound job's savepoint, asked of its JobManager: *class
 * stays NULL on success, else it and trace are Flink's failure.
 */
static void
op_flink_disposal(const struct disposal_task *t, const char **class,
    struct buf *trace)
{
	static char kept[256];
	struct jm_op op = { JM_DISPOSE, NULL, 0, 0, 0, t->path };
	struct jm_follow *f;
	struct jm_result r;
	int expired;

	memset(&r, 0, sizeof(r));
	log_info("disposal %s of %s: asked of the JobManager %s", t->trigger.s,
	    t->path, t->flink_url);
	f = op_flink(t->flink_url, &t->job, &t->trigger, &op, t->timeout_s,
	    &expired);
	if (f != NULL)
		jm_result(f, &r);
	if (f == NULL || expired) {
		*class = THROWABLE_DISPOSE_CLASS;
		buf_printf(trace,
		    THROWABLE_DISPOSE_CLASS ": Could not dispose savepoint "
					    "%s.\n\tat checkpoint-runner (the "
					    "JobManager %s %s)\n",
		    t->path, t->flink_url,
		    f == NULL ? "could not be asked: out of memory" :
				"did not finish it within the job's timeout");
	} else if (r.failure_class != NULL) {
		snprintf(kept, sizeof(kept), "%s", r.failure_class);
		*class = kept;
		buf_adds(trace, r.failure_trace);
	}
	jm_free(f);
}

/*
 * Runs a claimed disposal's command and records its end; lease_ms is the
 * claim's.
 */
static enum store_rc
op_run_disposal(struct pass *p, const struct disposal_task *t, int64_t lease_ms)
{
	struct action_result res;
	struct buf env[3], trace = { 0 };
	const char *class = NULL;
	char *envp[3];
	enum store_rc rc;
	size_t i;

	memset(env, 0, sizeof(env));
	buf_printf(&env[0], "CHECKPOINT_JOB_ID=%s", t->job.s);
	buf_printf(&env[1], "CHECKPOINT_TRIGGER_ID=%s", t->trigger.s);
	buf_printf(&env[2], "CHECKPOINT_SAVEPOINT_PATH=%s", t->path);
	for (i = 0; i < 3; i++)
		envp[i] = (char *)buf_str(&env[i]);
	if (t->flink_url != NULL)
		op_flink_disposal(t, &class, &trace);
	else {
		log_info("disposal %s of %s: action started", t->trigger.s,
		    t->path);
		op_run_checked(p, &t->job, CMD_DISPOSE, t->command, envp, 3,
		    t->timeout_s, &res);
		if (res.status != ACTION_OK) {
			class = THROWABLE_DISPOSE_CLASS;
			throwable_dispose_head(&trace, t->path);
			action_failure_trace(&trace, &res, t->timeout_s,
			    "dispose");
		}
	}
	p->stats->actions++;
	rc = op_record_disposal(p, t->row, t->path, class,
	    class != NULL ? buf_str(&trace) : NULL);
	op_keep(p, NULL, t, 0, t->path, class,
	    class != NULL ? buf_str(&trace) : NULL, lease_ms, rc);
	for (i = 0; i < 3; i++)
		buf_free(&env[i]);
	buf_free(&trace);
	return rc;
}

/*
 * Whether disposal t fails before anything runs (op_disposal_round), the
 * trace of its failure then made in trace.
 */
static int
op_disposal_refused(const struct disposal_task *t, struct buf *trace)
{
	buf_reset(trace);
	if (!t->job_found)
		throwable_dispose_missing(trace, t->path);
	else if (t->command == NULL && t->flink_url == NULL)
		throwable_dispose_trace(trace, t->path,
		    "java.io.FileNotFoundException",
		    "the job has no dispose command");
	else if (t->scope > 0 && t->scope <= DISPOSAL_NEWEST)
		throwable_dispose_trace(trace, t->path, FAIL_SCOPE_CAUSE,
		    disposal_scope_why[t->scope]);
	else
		return 0;
	return 1;
}

/*
 * One round of disposals.  A path that is no savepoint of a job with a
 * dispose command fails at once, as Flink's disposal of a path it cannot
 * read: "Could not dispose savepoint", caused by a FileNotFoundException;
 * so does a client's disposal out of its scope (store_impl.h,
 * DISPOSAL_SCOPE), before anything runs.
 */
static enum store_rc
op_disposal_round(struct pass *p, int *more)
{
	struct disposal_task t[OP_BATCH];
	int claimed[OP_BATCH];
	struct buf trace = { 0 };
	int64_t now = clock_ms(CLOCK_REALTIME);
	enum store_rc rc;
	size_t n = 0, i;
	int doubtful;

	*more = 0;
	memset(claimed, 0, sizeof(claimed));
	if ((rc = store_begin(p->store)) != STORE_OK)
		return rc;
	rc = store_disposals_pending(p->store, t, OP_BATCH, &n);
	for (i = 0; rc == STORE_OK && i < n; i++) {
		if (op_disposal_refused(&t[i], &trace)) {
			rc = store_disposal_complete(p->store, t[i].row, NULL,
			    t[i].path, THROWABLE_DISPOSE_CLASS, buf_str(&trace),
			    now);
			p->stats->failed += rc == STORE_OK;
			continue;
		}
		rc = store_disposal_claim(p->store, t[i].row, p->o->owner, now,
		    claim_lease(now, t[i].timeout_s));
		if (rc == STORE_OK)
			claimed[i] = 1;
		else if (rc == STORE_NOTFOUND)
			rc = STORE_OK;
	}
	buf_free(&trace);
	rc = op_round_commit(p, rc, &doubtful);
	*more = rc == STORE_OK && n == OP_BATCH;
	op_round_start(p, rc, doubtful, NULL, t, claimed, NULL, n, now);
	store_disposal_tasks_free(t, n);
	return rc;
}

/*
 * Forgets what a scan of the claims showed of this runner's claims of
 * kind in doubt: its transaction did not commit, so it proves nothing.
 */
static void
op_doubt_unseen(struct runner *rn, enum kept kind)
{
	size_t i;

	for (i = 0; i < rn->nin_doubt; i++)
		if (rn->in_doubt[i].kind == kind)
			rn->in_doubt[i].due = 0;
}

/*
 * Renews the lease of claim d, found in the store, in a transaction of
 * its own, for the reason claim_renew gives: its action may start only
 * on STORE_OK, which gives it a whole lease.
 */
static enum store_rc
op_renew(struct pass *p, struct in_doubt *d)
{
	int64_t now = clock_ms(CLOCK_REALTIME);
	int64_t lease = claim_lease(now, d->claim.timeout_s);
	enum store_rc rc;

	if ((rc = store_begin(p->store)) != STORE_OK)
		return rc;
	if ((rc = store_op_renew(p->store, d->kind == KEPT_DISPOSAL,
		 d->claim.row, p->o->owner, now, lease)) == STORE_OK &&
	    (rc = store_commit(p->store)) == STORE_OK) {
		p->stats->transactions++;
		d->claim.lease_ms = lease;
		return STORE_OK;
	}
	store_rollback(p->store);
	return rc;
}

/* What d is of, for the log. */
static const char *
op_kind_name(const struct in_doubt *d)
{
	if (d->kind == KEPT_DISPOSAL)
		return "disposal";
	return d->sp.stop ? "stop" : "savepoint";
}

/* Runs the action of d, a claim in doubt seen made and renewed; forgets d. */
static void
op_run_doubt(struct pass *p, struct in_doubt *d)
{
	struct savepoint_task sp = d->sp;
	struct disposal_task dp = d->dp;
	enum kept kind = d->kind;
	int64_t id = d->claim.checkpoint_id, lease = d->claim.lease_ms;

	log_warn("%s %s job %s: its claim was committed though its commit "
		 "failed; its action runs now",
	    op_kind_name(d), d->claim.trigger.s, d->claim.job.s);
	memset(&d->sp, 0, sizeof(d->sp));
	memset(&d->dp, 0, sizeof(d->dp));
	in_doubt_drop(p->runner, d);
	op_start(p, kind == KEPT_SAVEPOINT ? &sp : NULL,
	    kind == KEPT_DISPOSAL ? &dp : NULL, id, lease);
	store_savepoint_tasks_free(&sp, 1);
	store_disposal_tasks_free(&dp, 1);
}

/*
 * This runner's claims of kind (savepoints and stops, or disposals) kept
 * in doubt, after a scan of the claims that committed (op_resolve_stale),
 * settled by the rule a trigger's follow (claim_heard, pass_start_due):
 * one the scan listed (due) was made after all, and its action runs now,
 * once a renewal of its lease has committed, as its round would have run
 * it; one it did not list, past its lease, was never made, and is
 * forgotten.  So its action runs once, or not at all, and is never failed
 * for the runner's own lost answer.
 */
static enum store_rc
op_start_due(struct pass *p, enum kept kind)
{
	struct runner *rn = p->runner;
	struct in_doubt *d;
	int64_t now = clock_ms(CLOCK_REALTIME);
	enum store_rc rc;
	size_t i;

	for (i = 0; i < rn->nin_doubt;) {
		d = &rn->in_doubt[i];
		if (d->kind != kind || (!d->due && d->claim.lease_ms > now)) {
			i++;
			continue;
		}
		if (!d->due)
			log_info("%s %s job %s: its claim was not committed",
			    op_kind_name(d), d->claim.trigger.s,
			    d->claim.job.s);
		else if ((rc = op_renew(p, d)) == STORE_OK) {
			op_run_doubt(p, d);
			continue; /* d forgotten: in_doubt[i] is another */
		} else if (rc != STORE_NOTFOUND) {
			log_warn("%s %s job %s: its claim was found, but not "
				 "renewed (%s): its action waits for the next "
				 "pass",
			    op_kind_name(d), d->claim.trigger.s, d->claim.job.s,
			    store_rc_name(rc));
			d->due = 0;
			i++;
			continue;
		} else
			log_info("%s %s job %s: its claim is no longer this "
				 "runner's; its action is not run",
			    op_kind_name(d), d->claim.trigger.s,
			    d->claim.job.s);
		in_doubt_drop(rn, d);
	}
	return STORE_OK;
}

/* Every pending savepoint, stop and disposal, until none is left. */
enum store_rc
pass_savepoints(struct pass *p, volatile sig_atomic_t *quit)
{
	enum store_rc rc;
	int more;

	if ((rc = op_unclaim_stale(p)) != STORE_OK)
		return rc;
	do {
		if ((rc = op_savepoint_round(p, &more)) != STORE_OK)
			return rc;
	} while (more && !*quit);
	do {
		if ((rc = op_disposal_round(p, &more)) != STORE_OK)
			return rc;
	} while (more && !*quit);
	return STORE_OK;
}
