/*
 * The benchmark's durable floor: the committer of commit.h with SQLite
 * taken out.  Linked with cgi/api_main.c instead of cgi/commit.c, it makes
 * tests/fcgi-floor, the app itself down to its POST's one duty beyond the
 * ceiling: the trigger is on disk before the 202.  Each batch of queued
 * triggers is one pwrite(2) of a line per trigger and one fdatasync(2),
 * each replied to as the app replies; the file (the database's
 * path with "-floor" added) is overwritten in a circle of FLOOR_SIZE
 * bytes, as SQLite overwrites its WAL, so that a sync never grows it.
 * scripts/bench loads it beside the app: what the app loses against it is
 * SQLite's, and what it loses against the ceiling is the disk's.
 * Nothing reads the file back; it is not a store.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commit.h"
#include "log.h"

#define FLOOR_SIZE (1 << 20)
#define FLOOR_LINE 128 /* job, trigger, type and time: under 100 bytes */

struct committer {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t work;
	struct post *head; /* queued, newest first */
	int stop;
	int fd;
	off_t off;
	char buf[FLOOR_SIZE];
};

/* Writes the batch's lines and syncs them: STORE_OK once they are on disk. */
static enum store_rc
floor_write(struct committer *c, struct post *batch)
{
	struct post *w;
	size_t len = 0;
	int n;

	for (w = batch; w != NULL; w = w->next) {
		n = snprintf(c->buf + len, FLOOR_LINE, "%s %s %d %lld\n",
		    w->rec.job.s, w->rec.trigger.s, (int)w->rec.type,
		    (long long)w->rec.now_ms);
		if (n < 0 || n >= FLOOR_LINE)
			return STORE_ERROR;
		len += (size_t)n;
		if (len + FLOOR_LINE > sizeof(c->buf))
			return STORE_ERROR; /* the web server has no such queue */
	}
	if (c->off + (off_t)len > FLOOR_SIZE)
		c->off = 0;
	if (pwrite(c->fd, c->buf, len, c->off) != (ssize_t)len ||
	    fdatasync(c->fd) == -1) {
		log_error("floor: %s", strerror(errno));
		return STORE_ERROR;
	}
	c->off += (off_t)len;
	return STORE_OK;
}

static void *
floor_main(void *arg)
{
	struct committer *c = arg;
	struct post *batch, *next;
	enum store_rc rc;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		while (c->head == NULL && !c->stop)
			pthread_cond_wait(&c->work, &c->lock);
		if ((batch = c->head) == NULL)
			break;
		c->head = NULL;
		pthread_mutex_unlock(&c->lock);

		rc = floor_write(c, batch);
		for (; batch != NULL; batch = next) {
			next = batch->next;
			batch->rc = rc;
			batch->created = rc == STORE_OK;
			batch->reply(batch);
		}
		pthread_mutex_lock(&c->lock);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

struct committer *
commit_new(const struct settings *st)
{
	struct committer *c;
	char path[4096];
	int n;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	n = snprintf(path, sizeof(path), "%s-floor", st->db_path);
	if (n < 0 || (size_t)n >= sizeof(path) ||
	    (c->fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600)) == -1) {
		log_error("floor: cannot open %s-floor", st->db_path);
		free(c);
		return NULL;
	}
	/* Written once in full, so that later syncs never grow the file. */
	if (pwrite(c->fd, c->buf, sizeof(c->buf), 0) !=
		(ssize_t)sizeof(c->buf) ||
	    fsync(c->fd) == -1) {
		log_error("floor: cannot fill %s-floor", st->db_path);
		close(c->fd);
		free(c);
		return NULL;
	}
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->work, NULL);
	if (pthread_create(&c->thread, NULL, floor_main, c) != 0) {
		pthread_cond_destroy(&c->work);
		pthread_mutex_destroy(&c->lock);
		close(c->fd);
		free(c);
		return NULL;
	}
	return c;
}

/* Queues p; unlike the app's committer, a batch goes newest first. */
void
commit_submit(struct committer *c, struct post *p)
{
	pthread_mutex_lock(&c->lock);
	if ((p->next = c->head) == NULL)
		pthread_cond_signal(&c->work);
	c->head = p;
	pthread_mutex_unlock(&c->lock);
}

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
	pthread_cond_destroy(&c->work);
	pthread_mutex_destroy(&c->lock);
	close(c->fd);
	free(c);
}
