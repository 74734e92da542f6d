/*
 * The WAL copier beside the group committer: see walcopy.h.
 *
 * It copies the WAL into the database (PASSIVE waits for no one) once the
 * WAL has grown enough since its last copy, so that the committer's next
 * transaction starts the WAL over and overwrites it; overwriting a file
 * is a cheaper sync than growing it.  Where readers kept it from copying
 * everything, it tries again WALCOPY_FRAMES frames later rather than at
 * once.  Once it copied every frame it saw, the committer copies the few
 * committed since before its next batch (walcopy_catch_up), so that the
 * batch after that finds the WAL wholly in the database: SQLite restarts
 * the WAL only then.
 */
#include <config.h>

#include <pthread.h>
#include <stdlib.h>

#include "log.h"
#include "walcopy.h"

#define WALCOPY_FRAMES 1000 /* SQLite's own automatic checkpoint's */
#define WALCOPY_PASSES 4 /* passes of one background checkpoint */
#define WALCOPY_LEFT 64 /* new frames small enough to catch up on */
#define WALCOPY_CATCH_UPS 8 /* tries to start the WAL over, in a row */

struct walcopy {
	const struct settings *settings;
	pthread_mutex_t *lock; /* the committer's: guards what follows */
	pthread_t thread;
	pthread_cond_t work; /* the copier sleeps here when idle */
	struct store *store; /* the copier's own, opened on first use */
	int stop;
	int ready; /* its connection is open */
	int wanted; /* the WAL has grown enough since the last copy */
	int next; /* frames before the next; 0: WALCOPY_FRAMES */
	int caught_up; /* it copied all it saw: the committer finishes */
	/* The committer thread's own: did its catch-up restart the WAL? */
	int restart_check;
	int catch_ups; /* in a row that did not */
};

static void *
walcopy_main(void *arg)
{
	struct walcopy *w = arg;
	enum store_rc rc;
	int frames, copied, seen, pass;

	pthread_mutex_lock(w->lock);
	for (;;) {
		while (!w->wanted && !w->stop)
			pthread_cond_wait(&w->work, w->lock);
		if (w->stop)
			break;
		pthread_mutex_unlock(w->lock);

		rc = STORE_OK;
		if (w->store == NULL)
			rc = settings_open_store(w->settings, 64, &w->store);
		/*
		 * Again while the last pass found many new frames (committed
		 * during the one before), so that what is left for the
		 * committer to catch up is small.
		 */
		frames = copied = 0;
		for (pass = 0; rc == STORE_OK && pass < WALCOPY_PASSES;
		     pass++) {
			seen = frames;
			rc = store_wal_checkpoint_passive(w->store, &frames,
			    &copied);
			log_debug("WAL checkpoint: %d of %d WAL frames copied",
			    copied, frames);
			if (copied < frames || frames - seen <= WALCOPY_LEFT)
				break;
		}
		if (rc != STORE_OK && rc != STORE_BUSY) {
			store_close(w->store);
			w->store = NULL;
		}

		pthread_mutex_lock(w->lock);
		w->ready = w->store != NULL;
		w->wanted = 0;
		w->next = copied < frames ? frames + WALCOPY_FRAMES : 0;
		w->caught_up = frames > 0 && copied == frames;
	}
	pthread_mutex_unlock(w->lock);
	return NULL;
}

/*
 * Starts the copier's thread.  The caller has blocked the signals it
 * handles, so that the thread inherits the mask.
 */
struct walcopy *
walcopy_new(const struct settings *st, pthread_mutex_t *lock)
{
	struct walcopy *w;

	if ((w = calloc(1, sizeof(*w))) == NULL)
		return NULL;
	w->settings = st;
	w->lock = lock;
	pthread_cond_init(&w->work, NULL);
	if (pthread_create(&w->thread, NULL, walcopy_main, w) != 0) {
		pthread_cond_destroy(&w->work);
		free(w);
		return NULL;
	}
	return w;
}

/* Stops the copier; the committer no longer calls into it. */
void
walcopy_free(struct walcopy *w)
{
	if (w == NULL)
		return;
	pthread_mutex_lock(w->lock);
	w->stop = 1;
	pthread_cond_signal(&w->work);
	pthread_mutex_unlock(w->lock);
	pthread_join(w->thread, NULL);
	store_close(w->store);
	pthread_cond_destroy(&w->work);
	free(w);
}

/*
 * After each commit, in the committer thread (struct store_opts' on_commit): wakes the
 * copier once the WAL holds WALCOPY_FRAMES more frames than it could copy
 * last time.  SQLite would otherwise checkpoint right there, and every
 * POST waiting for the committer would wait for that too (a checkpoint
 * syncs the WAL and the database: milliseconds).
 */
void
walcopy_grew(void *arg, int frames)
{
	struct walcopy *w = arg;
	int again = 0;

	/*
	 * The commit after a catch-up starts the WAL over, unless a reader
	 * still held a snapshot in it: then catch up again before the next
	 * batch, a few times at most.
	 */
	if (w->restart_check) {
		w->restart_check = 0;
		again = frames > WALCOPY_LEFT &&
		    ++w->catch_ups <= WALCOPY_CATCH_UPS;
		if (!again)
			w->catch_ups = 0;
	}
	pthread_mutex_lock(w->lock);
	if (again)
		w->caught_up = 1;
	/* The first commit too: the copier opens its connection then. */
	else if (!w->wanted &&
	    (!w->ready || frames >= (w->next > 0 ? w->next : WALCOPY_FRAMES))) {
		w->wanted = 1;
		pthread_cond_signal(&w->work);
	}
	pthread_mutex_unlock(w->lock);
}

/* With the lock held: whether the copier copied all it saw; forgets it. */
int
walcopy_caught_up(struct walcopy *w)
{
	int caught_up = w->caught_up;

	w->caught_up = 0;
	return caught_up;
}

/*
 * In the committer thread, after the copier copied every frame it saw:
 * copies the few frames committed since on the committer's own store s,
 * so that the next transaction finds the WAL wholly in the database and
 * starts it over.  A short pause (the frames of a few transactions, and a
 * sync) instead of the whole checkpoint.
 */
void
walcopy_catch_up(struct walcopy *w, struct store *s)
{
	int frames, copied;

	if (s != NULL &&
	    store_wal_checkpoint_passive(s, &frames, &copied) == STORE_OK) {
		log_debug("WAL checkpoint caught up: %d of %d WAL frames",
		    copied, frames);
		w->restart_check = copied == frames;
	}
}
