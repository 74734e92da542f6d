/*
 * Group commit by one committer thread: the POSTs of one process share one
 * transaction and one fsync, and none is answered 202 before the
 * transaction that holds its trigger has committed.  See commit.h.
 *
 * The way of a POST.  It is the one request that crosses threads (a GET is
 * answered by its worker, straight through its handler), and it crosses
 * them as one named hand-off, a struct post (commit.h), which the worker
 * owns:
 *
 * In the worker (api_main.c, worker_main):
 *  1. api_handle calls trigger_post (trigger.c), which reads and checks
 *     the body and the ids, fills the request's post with the trigger,
 *     and calls commit_submit (here): the post is queued, and the
 *     committer woken if it idles.  api_handle returns 1 at once, with
 *     no answer written.
 *  2. The worker waits in poll (conn_wait) for the web server's next move
 *     on the connection, then for the post's semaphore (replied), and
 *     finishes the request.
 * In the committer (commit_main):
 *  3. It takes everything queued, COMMIT_MAX_BATCH at most, and records
 *     it all in one BEGIN IMMEDIATE ... COMMIT (commit_batch,
 *     store_record_posts) on its own connection.
 *  4. For each post it sets how the transaction ended and calls its
 *     reply, worker_reply (api_main.c): that has trigger_answer make the
 *     202, or the error, writes it to the web server, ends the FastCGI
 *     request and posts the semaphore.
 * Plain CGI has no committer: trigger_post records the trigger itself.
 * The benchmark's durable floor links tests/floor-commit.c in place of
 * this file, behind the same commit.h.
 *
 * So the worker does not sleep on the commit.  It waits for what the web
 * server does once it has the answer (close the connection, or send the
 * next request on a kept one), which it would wait for anyway, and then
 * finds the answer sent.  Sleeping until the commit and being woken from
 * the other CPU cost two futex calls and two context switches a POST, a
 * large share of its CPU (scripts/bench.d/results.md).
 *
 * Requests queued during one commit go in the next, which starts at once
 * (with synchronous=NORMAL, after one sched_yield: see commit_main): the
 * committer never sleeps between two commits while there is work.  With
 * a disk that syncs in half a millisecond, every request that arrives
 * during one sync shares the next one.  The lock guards only the queue
 * and the WAL copier's flags; replies happen outside it.
 *
 * On a database server (STORE_CAN_PIPELINE) a commit costs a round trip and
 * the server's flush whatever it holds, and while one batch commits its
 * clients wait: one commit at a time left the server idle while the
 * answers travelled and the next POSTs came.  There the committer keeps
 * two batches in flight on its one connection (commit_main_remote,
 * store_record_send): each is sent once about half the POSTs in flight
 * are queued, and commits while the other's clients have their answers
 * and send their next POSTs, which measured faster than one commit of
 * twice the size (scripts/bench.d/results.md, "Two batches in flight on
 * one connection").
 *
 * A third thread, the WAL copier (walcopy.c), copies SQLite's WAL into
 * the database when it has grown, so that the committer (and every POST
 * waiting for it) never does that work itself.
 */
#include <config.h>

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commit.h"
#include "log.h"
#include "walcopy.h"

#define COMMIT_MAX_BATCH 256
#define COMMIT_GATHER_MAX_US 2000 /* the longest commit_wait_queued waits */

struct committer {
	const struct settings *settings;
	struct store *store; /* the committer's own, opened lazily */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t work; /* the committer sleeps here when idle */
	struct post *head, *tail; /* queued, in arrival order */
	int idle; /* the committer waits on work */
	int stop;
	int remote; /* STORE_CAN_PIPELINE: commit_main_remote */
	size_t queued; /* requests in the queue */
	size_t awaited; /* the committer waits for this many; 0: it does not */
	struct walcopy *wal; /* the WAL copier, under the same lock */
};

static void *commit_main(void *);

/*
 * Starts the WAL copier and committer threads.  The caller has blocked
 * the signals it handles, so that the threads inherit the mask.
 */
struct committer *
commit_new(const struct settings *st)
{
	struct committer *c;
	pthread_condattr_t ca;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	c->settings = st;
	c->remote = store_driver_can(st->db_path, STORE_CAN_PIPELINE);
	pthread_mutex_init(&c->lock, NULL);
	/* commit_wait_queued's deadline is on the monotonic clock. */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&c->work, &ca);
	pthread_condattr_destroy(&ca);
	/* Before the committer's first commit, which wakes it. */
	if ((c->wal = walcopy_new(st, &c->lock)) == NULL)
		goto fail;
	if (pthread_create(&c->thread, NULL, commit_main, c) != 0) {
		walcopy_free(c->wal);
		goto fail;
	}
	return c;
fail:
	pthread_cond_destroy(&c->work);
	pthread_mutex_destroy(&c->lock);
	free(c);
	return NULL;
}

/*
 * Stops the committer once the queue is empty, then the WAL copier.  The
 * caller guarantees that no worker is in commit_submit any more.
 */
void
commit_free(struct committer *c)
{
	if (c == NULL)
		return;
	pthread_mutex_lock(&c->lock);
	c->stop = 1;
	pthread_cond_signal(&c->work);
	pthread_mutex_unlock(&c->lock);
	pthread_join(c->thread, NULL);
	walcopy_free(c->wal);
	store_close(c->store);
	pthread_cond_destroy(&c->work);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

/* What the n posts of a batch record: a trigger, or a savepoint or stop. */
struct records {
	const struct trigger_rec *t[COMMIT_MAX_BATCH];
	const struct savepoint_rec *sp[COMMIT_MAX_BATCH];
};

static void
commit_records(struct post *const *batch, size_t n, struct records *r)
{
	size_t i;

	for (i = 0; i < n; i++) {
		r->t[i] = batch[i]->is_savepoint ? NULL : &batch[i]->rec;
		r->sp[i] = batch[i]->is_savepoint ? &batch[i]->sp : NULL;
	}
}

/*
 * The committer's connection, which tells the WAL copier of each commit
 * (walcopy_grew); on failure c->store is NULL and the log says why.
 */
static enum store_rc
commit_open(struct committer *c)
{
	struct store_opts o;
	enum store_rc rc;
	char err[512];

	settings_store_opts(c->settings, 512, &o);
	o.on_commit = walcopy_grew;
	o.on_commit_arg = c->wal;
	if ((rc = store_open(&o, &c->store, err, sizeof(err))) != STORE_OK) {
		log_error("open store: %s", err);
		c->store = NULL;
	}
	return rc;
}

/* One transaction for the batch, without the lock. */
static enum store_rc
commit_batch(struct committer *c, struct post **batch, size_t n, int *created)
{
	struct records r;
	enum store_rc rc = STORE_OK;

	memset(created, 0, n * sizeof(*created));
	if (c->store == NULL)
		rc = commit_open(c);
	commit_records(batch, n, &r);
	/* Kept open: see store_replaced. */
	if (rc == STORE_OK && store_replaced(c->store, 0))
		return STORE_UNAVAILABLE;
	if (rc == STORE_OK)
		rc = store_record_posts(c->store, r.t, r.sp, n, created);
	if (rc != STORE_OK && rc != STORE_BUSY) {
		/* Reopen next time: the file may be gone or replaced. */
		store_close(c->store);
		c->store = NULL;
	}
	return rc;
}

static int64_t
commit_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Replies to the n posts of a batch with its outcome. */
static void
commit_reply(struct post **post, size_t n, enum store_rc rc, const int *created)
{
	size_t i;

	/* Nothing of a post is touched after its reply. */
	for (i = 0; i < n; i++) {
		post[i]->rc = rc;
		post[i]->created = rc == STORE_OK ? created[i] : 0;
		post[i]->reply(post[i]);
	}
}

/*
 * With the lock held: sleeps until something is queued; 0 once it is told
 * to stop with nothing queued.
 */
static int
commit_idle(struct committer *c)
{
	while (c->head == NULL && !c->stop) {
		c->idle = 1;
		pthread_cond_wait(&c->work, &c->lock);
	}
	c->idle = 0;
	return c->head != NULL;
}

/*
 * With the lock held: takes the oldest max requests queued (COMMIT_MAX_BATCH
 * at most) into batch[]; how many.
 */
static size_t
commit_take(struct committer *c, struct post **batch, size_t max)
{
	struct post *w;
	size_t n;

	for (n = 0, w = c->head; w != NULL && n < max && n < COMMIT_MAX_BATCH;
	     w = w->next)
		batch[n++] = w;
	c->head = w;
	if (c->head == NULL)
		c->tail = NULL;
	c->queued -= n;
	return n;
}

/*
 * With the lock held: waits until target POSTs are queued, or until the
 * monotonic time until (us).
 */
static void
commit_wait_queued(struct committer *c, size_t target, int64_t until)
{
	struct timespec ts;

	if (c->queued >= target || until <= commit_us())
		return;
	ts.tv_sec = until / 1000000;
	ts.tv_nsec = (until % 1000000) * 1000;
	c->awaited = target;
	while (c->queued < c->awaited && !c->stop &&
	    pthread_cond_timedwait(&c->work, &c->lock, &ts) == 0)
		;
	c->awaited = 0;
}

/* A batch sent to a database server, not yet answered. */
struct sent {
	struct post *post[COMMIT_MAX_BATCH];
	size_t n;
	int64_t at; /* when it was sent (us) */
};

/*
 * The committer on a database server (STORE_CAN_PIPELINE): two batches in
 * flight on its one connection (store_record_send), so that one commits
 * while the clients of the other have their answers and send their next
 * POSTs.  One batch at a time made the POSTs of sixteen clients one
 * commit of 16 and then nothing for the server to do while the sixteen
 * came back; two of 8 in flight did more (scripts/bench.d/results.md,
 * "Two batches in flight on one connection").
 *
 * So a batch is sent once half the clients' POSTs are queued: clients is
 * how many POSTs were in flight when the last answer went (those of the
 * batch answered, of the one still out, and those queued).  The wait for
 * that half is bounded: with nothing out, by how long a batch takes
 * (lat, a moving average, COMMIT_GATHER_MAX_US at most); with one out,
 * by when that one should be answered, since its answer comes first.
 * One client alone, or two, have each POST sent at once.
 */
/*
 * Sends batch b of up to target queued POSTs, outside the lock; out is
 * how many batches are out before it.  1: sent, its answer to come.
 */
static int
remote_send(struct committer *c, struct sent *b, size_t target, int out)
{
	int created[COMMIT_MAX_BATCH];
	struct records r;
	enum store_rc rc = STORE_OK;

	b->n = commit_take(c, b->post, target);
	pthread_mutex_unlock(&c->lock);
	if (c->store == NULL)
		rc = settings_open_store(c->settings, 512, &c->store);
	commit_records(b->post, b->n, &r);
	if (rc == STORE_OK)
		rc = store_record_send(c->store, r.t, r.sp, b->n);
	b->at = commit_us();
	if (rc != STORE_OK) {
		commit_reply(b->post, b->n, rc, created);
		/* Reopen next time, once nothing is out. */
		if (out == 0 && rc != STORE_BUSY) {
			store_close(c->store);
			c->store = NULL;
		}
	}
	pthread_mutex_lock(&c->lock);
	return rc == STORE_OK;
}

/*
 * Answers the first batch out, b, outside the lock, once its outcome
 * comes; out is how many are out, b among them.  *lat follows how long a
 * batch takes.
 */
static void
remote_recv(struct committer *c, struct sent *b, int out, int64_t *lat)
{
	int created[COMMIT_MAX_BATCH];
	enum store_rc rc;
	int64_t now;

	pthread_mutex_unlock(&c->lock);
	rc = store_record_recv(c->store, created);
	now = commit_us();
	commit_reply(b->post, b->n, rc, created);
	if (rc != STORE_OK && rc != STORE_BUSY && out == 1) {
		store_close(c->store);
		c->store = NULL;
	}
	pthread_mutex_lock(&c->lock);
	if (rc == STORE_OK) {
		*lat = (3 * *lat + (now - b->at)) / 4;
		if (*lat > COMMIT_GATHER_MAX_US)
			*lat = COMMIT_GATHER_MAX_US;
	}
}

static void *
commit_main_remote(struct committer *c)
{
	struct sent q[STORE_IN_FLIGHT];
	size_t target, clients = 1, answered;
	int head = 0, out = 0;
	int64_t lat = COMMIT_GATHER_MAX_US / 4;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		target = (clients + 1) / 2;
		if (out == 0) {
			if (!commit_idle(c))
				break;
			commit_wait_queued(c, target, commit_us() + lat);
		} else if (out < STORE_IN_FLIGHT)
			commit_wait_queued(c, target, q[head].at + lat);
		if (out < STORE_IN_FLIGHT && c->head != NULL &&
		    (out == 0 || c->queued >= target)) {
			/*
			 * Half, not all that is queued: a batch that took
			 * some of the other half's POSTs would leave the
			 * halves uneven, and the smaller one's commit too
			 * short to hide the larger one's travel.
			 */
			out += remote_send(c,
			    &q[(head + out) % STORE_IN_FLIGHT], target, out);
			continue;
		}
		if (out == 0)
			continue;
		remote_recv(c, &q[head], out, &lat);
		answered = q[head].n;
		head = (head + 1) % STORE_IN_FLIGHT;
		out--;
		clients = answered + c->queued + (out > 0 ? q[head].n : 0);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

static void *
commit_main(void *arg)
{
	struct committer *c = arg;
	struct post *batch[COMMIT_MAX_BATCH];
	int created[COMMIT_MAX_BATCH];
	enum store_rc rc;
	size_t n;
	int catch_up;

	if (c->remote)
		return commit_main_remote(c);
	pthread_mutex_lock(&c->lock);
	for (;;) {
		if (!commit_idle(c))
			break;
		/*
		 * With synchronous=NORMAL a commit waits for no disk, so the
		 * queue holds only what arrived since the last one: two or
		 * three triggers, and a commit's fixed cost (WAL locks,
		 * frames, the wal-index) for each few.  Giving the CPU once
		 * to the workers that are ready lets them queue theirs
		 * first.  With FULL the sync gathers the batch; a yield
		 * there made larger batches but no more POSTs.
		 */
		if (c->settings->sync_normal) {
			pthread_mutex_unlock(&c->lock);
			sched_yield();
			pthread_mutex_lock(&c->lock);
		}
		n = commit_take(c, batch, COMMIT_MAX_BATCH);
		catch_up = walcopy_caught_up(c->wal);
		pthread_mutex_unlock(&c->lock);

		if (catch_up)
			walcopy_catch_up(c->wal, c->store);
		rc = commit_batch(c, batch, n, created);
		commit_reply(batch, n, rc, created);

		pthread_mutex_lock(&c->lock);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

/* Queues p for the next transaction; the committer calls its reply. */
void
commit_submit(struct committer *c, struct post *p)
{
	p->next = NULL;
	pthread_mutex_lock(&c->lock);
	/* p leaves the queue (taken by the committer) before its reply. */
	if (c->tail != NULL)
		c->tail->next = p;
	else
		c->head = p;
	c->tail = p;
	c->queued++;
	if (c->idle || (c->awaited > 0 && c->queued == c->awaited)) {
		c->idle = 0; /* one wake-up is enough */
		pthread_cond_signal(&c->work);
	}
	pthread_mutex_unlock(&c->lock);
}
