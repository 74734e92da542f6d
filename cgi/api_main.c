/*
 * checkpoint-api.fcgi: the FastCGI responder.  It keeps nothing between
 * requests but database connections, their prepared statements and small
 * buffers (BUF_KEEP).  Under
 * a process manager (lighttpd bin-path, mod_fcgid, spawn-fcgi) it accepts
 * on the listening socket it was given as fd 0; with -s it opens its own;
 * run as plain CGI (no listening socket, REQUEST_METHOD set) it serves the
 * one request in its environment and exits.
 *
 * Several threads accept on the socket and borrow a read connection from a
 * small pool for each request that reads; POSTs of all threads go through
 * one group committer (commit.c), so that requests arriving together share
 * one transaction and one fsync.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <fcgiapp.h>

#include "api.h"
#include "body.h"
#include "clock.h"
#include "commit.h"
#include "log.h"
#include "readers.h"
#include "settings.h"
#include "trigger.h"

#define DEFAULT_THREADS 16 /* as many POSTs as may share one commit */
#define MAX_THREADS 256
#define DRAIN_MS 30000 /* how long SIGTERM waits for requests in flight */
#define UNREAD_MAX (64 * 1024) /* of a body, read to keep the connection */
#define JOIN_MS 2000 /* a stop gives up after this long with no progress */
#define WAKE_SIGNAL SIGUSR2 /* takes a worker out of a blocking call */

/*
 * Where a worker is, for the log line of a stop that leaves workers
 * behind (serve_fcgi).
 */
enum worker_at {
	AT_ACCEPT, /* in FCGX_Accept_r, for a new connection */
	AT_NEXT, /* in FCGX_Accept_r, for a request on a kept connection */
	AT_ANSWER, /* answering, or reading the rest of the body */
	AT_WAIT, /* in poll, for the next request on a kept connection */
	AT_REPLY, /* waiting for the committer's answer to be sent */
	AT_CLOSE, /* closing a connection (libfcgi waits for its end) */
	AT_GONE
};
static const char *const worker_at_names[] = { "accept", "next", "answer",
	"wait", "reply", "close", "gone" };

/* One accepting thread, with its api (the pool and committer are shared). */
struct worker {
	pthread_t thread;
	struct api api;
	int sock;
	FCGX_Request fr; /* the request being answered */
	struct buf head; /* its answer's headers: the worker's or reply's */
	struct post post; /* its POST in flight, replied to by worker_reply */
	atomic_int at; /* enum worker_at */
	int joined; /* by workers_join, at the end */
};

static struct worker *workers; /* reachable until every one is joined */
static pthread_mutex_t inflight_lock = PTHREAD_MUTEX_INITIALIZER;
static int inflight; /* requests being answered */
static long served; /* requests answered, for -n */
static long max_requests; /* -n; 0: no limit */
static locale_t c_locale; /* every worker's own (worker_main) */

/*
 * Shutdown (serve_fcgi): stopping is set and stop_pipe made readable for
 * good, so that workers waiting between two requests on a kept connection
 * wake up and close it; and the listening descriptor is made /dev/null's
 * (stop_accepting), so that no worker accepts again.
 */
static atomic_int stopping;
static int stop_pipe[2] = { -1, -1 };

static void
usage(void)
{
	fprintf(stderr,
	    "usage: checkpoint-api.fcgi [-dV] [-l stderr | syslog | file] "
	    "[-n requests]\n"
	    "       [-t threads] [-s path | -s 127.0.0.1:port]\n");
	exit(2);
}

static size_t
fcgi_read(void *ctx, char *p, size_t n)
{
	size_t got = 0;
	int r;

	while (got < n) {
		r = FCGX_GetStr(p + got, (int)(n - got), ctx);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	return got;
}

static size_t stdin_consumed; /* CGI: body bytes read so far */

static size_t
stdin_read(void *ctx, char *p, size_t n)
{
	size_t got = 0;
	ssize_t r;

	while (got < n) {
		r = read(STDIN_FILENO, p + got, n - got);
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	stdin_consumed += got;
	return got;
}

/* Points *slot past name in var, if var is name=... and *slot is unset. */
static void
env_take(const char *var, const char *name, size_t len, const char **slot)
{
	if (*slot == NULL && strncmp(var, name, len) == 0)
		*slot = var + len;
}

#define TAKE(var, name, slot) env_take(var, name "=", sizeof(name), slot)

/*
 * Fills req from a CGI environment (RFC 3875 section 4.1): the process's
 * own under CGI, the request's under FastCGI.  One pass over it, each
 * variable told apart by its first letters (a search of every name for
 * every variable cost several times as much: scripts/bench.d/results.md,
 * "Figures from the code's comments"), and the first of a repeated name
 * wins, as with getenv.  The path is PATH_INFO, or SCRIPT_NAME where a
 * root mount leaves PATH_INFO empty.
 */
static void
request_from_env(char **envp, struct request *req)
{
	const char *script_name = NULL, *v;

	for (; envp != NULL && (v = *envp) != NULL; envp++)
		switch (v[0]) {
		case 'C':
			TAKE(v, "CONTENT_LENGTH", &req->content_length);
			break;
		case 'H':
			TAKE(v, "HTTP_TRANSFER_ENCODING",
			    &req->transfer_encoding);
			TAKE(v, "HTTP_ORIGIN", &req->origin);
			TAKE(v, "HTTP_HOST", &req->host);
			TAKE(v, "HTTP_IF_NONE_MATCH", &req->if_none_match);
			break;
		case 'P':
			TAKE(v, "PATH_INFO", &req->path);
			break;
		case 'Q':
			TAKE(v, "QUERY_STRING", &req->query);
			break;
		case 'R':
			/* REQUEST_METHOD, REQUEST_URI, REMOTE_USER, REMOTE_ADDR */
			if (v[1] != 'E' || v[2] == '\0')
				break;
			if (v[2] == 'Q') {
				TAKE(v, "REQUEST_METHOD", &req->method);
				TAKE(v, "REQUEST_URI", &req->uri);
			} else if (v[2] == 'M') {
				TAKE(v, "REMOTE_USER", &req->remote_user);
				TAKE(v, "REMOTE_ADDR", &req->remote_addr);
			}
			break;
		case 'S':
			TAKE(v, "SCRIPT_NAME", &script_name);
			TAKE(v, "SERVER_PORT", &req->server_port);
			break;
		}
	if (req->path == NULL || *req->path == '\0')
		req->path = script_name;
}

#undef TAKE

/* Serves the single request of a plain CGI invocation (RFC 3875). */
static int
serve_cgi(struct api *a)
{
	struct request req;
	struct response r = { 0 };
	struct buf head = { 0 };
	char drain[4096];
	const char *body;
	size_t announced, len;
	int rc = 0;

	memset(&req, 0, sizeof(req));
	request_from_env(environ, &req);
	req.read_body = stdin_read;
	api_handle(a, &req, &r, clock_ms(CLOCK_REALTIME));
	body = response_body(&r, &len);
	if (http_headers(&r, a->settings->cors_origin, &head) == -1 ||
	    fwrite(head.p, 1, head.len, stdout) != head.len ||
	    fwrite(body, 1, len, stdout) != len || fflush(stdout) == EOF)
		rc = 1;
	/*
	 * Read what is left of the body (a 413 reads none of it, or no more
	 * than the limit): a CGI that exits with unread input can make the
	 * server (mod_cgid) drop the answer.
	 */
	if (body_unannounced(req.content_length, req.transfer_encoding))
		announced = SIZE_MAX; /* to the end of the input */
	else if (body_length(req.content_length, SIZE_MAX, &announced) !=
	    BODY_OK)
		announced = 0;
	while (stdin_consumed < announced &&
	    stdin_read(NULL, drain,
		announced - stdin_consumed < sizeof(drain) ?
		    announced - stdin_consumed :
		    sizeof(drain)) > 0)
		;
	buf_free(&head);
	response_free(&r);
	return rc;
}

/*
 * WAKE_SIGNAL's handler: nothing.  With SA_RESTART, the signal only makes
 * a worker's blocking call start again: an accept then looks up its
 * descriptor again (stop_accepting); a read or a write carries on.
 */
static void
wake_handler(int sig)
{
	(void)sig;
}

/* how: SIG_BLOCK or SIG_UNBLOCK, for the calling thread. */
static void
wake_mask(int how)
{
	sigset_t wake;

	sigemptyset(&wake);
	sigaddset(&wake, WAKE_SIGNAL);
	pthread_sigmask(how, &wake, NULL);
}

/*
 * Stops this process accepting on sock without stopping the socket: one
 * handed over by spawn-fcgi -F is shared with other processes, and
 * shutdown(2) acts on the socket, for all of them.  The descriptor is
 * made /dev/null's instead, which drops only this process's hold on the
 * socket (and closes it if that was the last); the workers are then
 * signalled, and an accept blocked in one starts again and fails with
 * ENOTSOCK, as does any accept begun after.  No race: the descriptor is
 * replaced before the first signal.
 */
static void
stop_accepting(int sock, int started)
{
	int i, null;

	if ((null = open("/dev/null", O_RDONLY | O_CLOEXEC)) == -1 ||
	    dup2(null, sock) == -1) {
		log_warn("cannot close the listening socket: %s; shutting it",
		    strerror(errno));
		shutdown(sock, SHUT_RDWR);
	}
	if (null != -1)
		close(null);
	for (i = 0; i < started; i++)
		pthread_kill(workers[i].thread, WAKE_SIGNAL);
}

/* A request is answered: the drain in serve_fcgi and -n count it. */
static void
request_done(void)
{
	int last;

	pthread_mutex_lock(&inflight_lock);
	inflight--;
	last = max_requests > 0 && ++served == max_requests;
	pthread_mutex_unlock(&inflight_lock);
	if (last)
		kill(getpid(), SIGTERM);
}

/* Writes r as the answer to fr; 0, or -1 if the web server went away. */
static int
send_answer(FCGX_Request *fr, const struct response *r,
    const struct settings *st, struct buf *head)
{
	size_t len;
	const char *body = response_body(r, &len);

	buf_reset(head);
	if (http_headers(r, st->cors_origin, head) == -1 ||
	    FCGX_PutStr(head->p, (int)head->len, fr->out) < 0 ||
	    FCGX_PutStr(body, (int)len, fr->out) < 0)
		return -1;
	return 0;
}

/*
 * In the committer thread, once a POST's trigger is committed or not:
 * sends its answer, and ends the FastCGI request (FCGI_END_REQUEST), so
 * that the web server passes it on at once.  The worker meanwhile waits
 * in worker_main for the web server's next move.
 */
static void
worker_reply(struct post *p)
{
	struct worker *w = p->replier;

	trigger_answer(p);
	if (send_answer(&w->fr, p->answer, w->api.settings, &w->head) == -1)
		log_warn("POST: the client went away before the answer");
	FCGX_FClose(w->fr.err);
	FCGX_FClose(w->fr.out);
	/*
	 * Without a kept connection, nginx waits for the connection's end
	 * rather than FCGI_END_REQUEST; the worker closes it (FCGX_Finish_r)
	 * once the server has seen this.
	 */
	if (!w->fr.keepConnection)
		shutdown(w->fr.ipcFd, SHUT_WR);
	request_done();
	sem_post(&p->replied);
}

/*
 * Waits on a connection between two requests: until the web server sends
 * the next request or closes it (1), or until shutdown while it has sent
 * nothing (0).
 */
static int
conn_wait(int fd)
{
	struct pollfd pfd[2] = {
		{ .fd = fd, .events = POLLIN },
		{ .fd = stop_pipe[0], .events = POLLIN },
	};

	while (poll(pfd, 2, -1) == -1)
		if (errno != EINTR)
			return 1; /* let libfcgi's read find out */
	return pfd[0].revents != 0;
}

/*
 * Reads the rest of the request's stdin, UNREAD_MAX bytes at most; if
 * that is not all of it, the connection is not kept.  Not inlined: its
 * buffer would make worker_main's frame, and so every worker's stack, a
 * page deeper, which behind nginx's many threads shows in the RSS.
 */
static __attribute__((noinline)) void
worker_drain(struct worker *w)
{
	char b[4096];
	size_t left = UNREAD_MAX, n;

	while (left > 0 && (n = fcgi_read(w->fr.in, b, sizeof(b))) > 0)
		left -= n < left ? n : left;
	if (FCGX_HasSeenEOF(w->fr.in) != EOF)
		w->fr.keepConnection = 0;
}

/*
 * Reads what the handler left of a request's body (a 413, a 404 or 405
 * with one): on a kept connection it would still be in front of the next
 * request, and once it is more than libfcgi has buffered, libfcgi loses
 * that request and the connection.  A request without a body costs
 * nothing here.
 */
static void
worker_read_rest(struct worker *w, const struct request *req)
{
	size_t announced;

	if (!w->fr.keepConnection ||
	    (!body_unannounced(req->content_length, req->transfer_encoding) &&
		body_length(req->content_length, SIZE_MAX, &announced) ==
		    BODY_OK &&
		announced == 0))
		return;
	worker_drain(w);
}

/*
 * Ends a request.  Once the process is stopping, the connection is closed
 * rather than kept for the web server's next request, unless that request
 * is already waiting on it (ready).
 */
/*
 * Ends the request.  What the worker keeps for the next (its answer, the
 * headers, the request body's scratch) holds on to BUF_KEEP at most: a
 * thread that once answered the fleet's lists would otherwise keep their
 * size for good, and each thread of each process its largest.  The
 * allocator is then asked to give what was freed back to the system
 * (glibc keeps freed memory in its arenas).
 */
static void
worker_finish(struct worker *w, struct response *r, int ready)
{
	int big = response_shrink(r) | buf_shrink(&w->head, BUF_KEEP) |
	    buf_shrink(&w->api.body, BUF_KEEP);

	if (!ready && atomic_load_explicit(&stopping, memory_order_relaxed))
		w->fr.keepConnection = 0;
	FCGX_Finish_r(&w->fr);
#ifdef __GLIBC__
	if (big)
		malloc_trim(0);
#else
	(void)big;
#endif
}

/*
 * Puts the calling worker thread in SCHED_BATCH (CHECKPOINT_SCHED_BATCH,
 * on by default): woken by the web server's request, it then waits for
 * the CPU rather than preempting the web server, which goes on with its
 * event loop (handing more requests over, reading more answers) until it
 * blocks.  Every waking worker preempting it cost both of them context
 * switches (scripts/bench.d/results.md).  The committer and WAL copier
 * keep the default policy, so that a commit's wake-up still preempts.
 */
static void
worker_sched(const struct settings *st)
{
#ifdef SCHED_BATCH
	struct sched_param sp = { .sched_priority = 0 };
	int e;

	if (st->sched_normal)
		return;
	if ((e = pthread_setschedparam(pthread_self(), SCHED_BATCH, &sp)) != 0)
		log_debug("SCHED_BATCH: %s", strerror(e));
#else
	(void)st;
#endif
}

static void
worker_at(struct worker *w, enum worker_at at)
{
	atomic_store_explicit(&w->at, (int)at, memory_order_relaxed);
}

/*
 * A worker's loop: accept, answer, finish.  Signals are blocked here; the
 * main thread takes them (serve_fcgi).
 *
 * A POST is answered by the committer thread (worker_reply); the head of
 * commit.c maps its way and says why the worker does not sleep on it.
 *
 * Between two requests on a kept connection (nginx fastcgi_keep_conn),
 * the worker waits in poll rather than in libfcgi's read, so that
 * shutdown can wake it: it then closes the connection, which the web
 * server sees at once and stops using, and leaves.
 */
/*
 * Answers the request w accepted, with r, a POST through the committer;
 * whether the next request already waits on the kept connection.
 */
static int
worker_answer(struct worker *w, struct response *r)
{
	struct request req;
	int ready;

	worker_at(w, AT_ANSWER);
	pthread_mutex_lock(&inflight_lock);
	inflight++;
	pthread_mutex_unlock(&inflight_lock);

	memset(&req, 0, sizeof(req));
	request_from_env(w->fr.envp, &req);
	req.read_body = fcgi_read;
	req.ctx = w->fr.in;
	req.post = &w->post;
	if (api_handle(&w->api, &req, r, clock_ms(CLOCK_REALTIME))) {
		worker_at(w, AT_WAIT);
		ready = conn_wait(w->fr.ipcFd);
		worker_at(w, AT_REPLY);
		while (sem_wait(&w->post.replied) == -1)
			; /* EINTR: WAKE_SIGNAL */
		worker_at(w, AT_CLOSE);
		worker_finish(w, r, ready);
		return ready;
	}
	if (send_answer(&w->fr, r, w->api.settings, &w->head) == -1)
		log_warn("%s %s: the client went away before the answer",
		    req.method ? req.method : "-", req.path ? req.path : "-");
	worker_read_rest(w, &req);
	worker_at(w, AT_CLOSE);
	worker_finish(w, r, 0);
	request_done();
	return 0;
}

static void *
worker_main(void *arg)
{
	struct worker *w = arg;
	struct response r = { 0 };
	int ready = 0; /* the next request is waiting on the kept connection */

	/*
	 * json-c duplicates the thread's locale and makes a C one around
	 * each parse; glibc does both for free when the thread's locale is
	 * its C object already, and otherwise allocates and takes a
	 * process-wide lock on every POST.
	 */
	if (c_locale != (locale_t)0)
		uselocale(c_locale);
	worker_sched(w->api.settings);
	wake_mask(SIG_UNBLOCK);
	FCGX_InitRequest(&w->fr, w->sock, 0);
	for (;;) {
		/* Stopping: closed, the accept on /dev/null fails. */
		if (w->fr.ipcFd >= 0 && !ready) {
			worker_at(w, AT_WAIT);
			if (!conn_wait(w->fr.ipcFd)) {
				worker_at(w, AT_CLOSE);
				FCGX_Free(&w->fr, 1);
			}
		}
		worker_at(w, w->fr.ipcFd >= 0 ? AT_NEXT : AT_ACCEPT);
		if (FCGX_Accept_r(&w->fr) < 0)
			break;
		ready = worker_answer(w, &r);
	}
	worker_at(w, AT_GONE);
	response_free(&r);
	return NULL;
}

/*
 * Once stopping: joins the workers as they leave.  It waits while any
 * request is being answered, DRAIN_MS at most from the start (a request
 * read on a kept connection after the count first fell to zero too), and
 * once JOIN_MS have passed with none being answered and no worker
 * leaving, it gives up on those left: they are reading a request the web
 * server does not finish, or waiting for a connection's end (libfcgi).
 * Natively they all leave within milliseconds; under valgrind, dozens of
 * threads take seconds, one by one.  Returns how many were left, and
 * logs where they were.
 */
static int
workers_join(int n)
{
	struct buf where = { 0 };
	struct timespec pause = { 0, 5 * 1000000L };
	int64_t start = clock_ms(CLOCK_MONOTONIC), idle = -1, now;
	int i, left, busy, before = n + 1;

	for (;;) {
		for (i = 0, left = 0; i < n; i++) {
			struct worker *w = &workers[i];

			if (w->joined)
				continue;
			if (pthread_tryjoin_np(w->thread, NULL) == 0) {
				w->joined = 1;
				api_free(&w->api);
				buf_free(&w->head);
				buf_free(&w->post.dir);
				sem_destroy(&w->post.replied);
			} else
				left++;
		}
		if (left == 0) {
			log_debug("every worker left, in %lld ms",
			    (long long)(clock_ms(CLOCK_MONOTONIC) - start));
			return 0;
		}
		pthread_mutex_lock(&inflight_lock);
		busy = inflight > 0;
		pthread_mutex_unlock(&inflight_lock);
		now = clock_ms(CLOCK_MONOTONIC);
		if (busy)
			idle = -1;
		else if (idle < 0 || left < before)
			idle = now;
		before = left;
		if (now - start >= DRAIN_MS ||
		    (idle >= 0 && now - idle >= JOIN_MS))
			break;
		nanosleep(&pause, NULL);
	}
	for (i = 0; i < n; i++)
		if (!workers[i].joined && where.len < 64)
			buf_printf(&where, "%s%s", where.len > 0 ? ", " : "",
			    worker_at_names[atomic_load_explicit(&workers[i].at,
				memory_order_relaxed)]);
	log_warn("%d workers did not leave (%s); exiting under them", left,
	    buf_str(&where));
	buf_free(&where);
	return left;
}

/* Frees what serve_fcgi made: its caller guarantees that no worker runs. */
static void
serve_free(struct committer *c, struct readers *rd)
{
	commit_free(c);
	readers_free(rd);
	free(workers);
	workers = NULL;
	close(stop_pipe[0]);
	close(stop_pipe[1]);
}

/* Starts nthreads workers on sock, sharing rd and c: how many started. */
static int
workers_start(const struct settings *st, int sock, int nthreads,
    struct readers *rd, struct committer *c)
{
	int i;

	for (i = 0; i < nthreads; i++) {
		api_init(&workers[i].api, st);
		workers[i].api.readers = rd;
		workers[i].api.committer = c;
		workers[i].sock = sock;
		workers[i].post.reply = worker_reply;
		workers[i].post.replier = &workers[i];
		sem_init(&workers[i].post.replied, 0, 0);
		if (pthread_create(&workers[i].thread, NULL, worker_main,
			&workers[i]) != 0) {
			log_error("cannot start thread %d", i);
			sem_destroy(&workers[i].post.replied);
			break;
		}
	}
	return i;
}

/*
 * Serves FastCGI with nthreads workers accepting on sock, all sharing one
 * group committer.  Returns on SIGTERM, SIGINT or SIGUSR1 (what process
 * managers send) once the requests in flight are answered: the process
 * stops accepting so that no new one starts (stop_accepting), and kept
 * connections are closed as their requests end (worker_main).  A worker
 * still in the middle of reading a request after that is not waited for
 * (workers_join): the process exits under it.
 */
/*
 * Allocations past MMAP_FROM mapped on their own, so that freeing one
 * gives it back to the system.  glibc would otherwise raise that bound to
 * the largest freed and keep blocks that large in each thread's arena,
 * where no trim reaches (malloc_trim leaves a thread arena's top), so a
 * process that served the fleet's lists held them for good.  Not as low
 * as BUF_KEEP: SQLite's page cache takes its first pages in one block
 * somewhat over it, for every statement that builds a temporary table (a
 * POST's INSERT ... SELECT does), and a block mapped and unmapped at each
 * POST cost more than the POST's own work.
 */
#define MMAP_FROM (256 * 1024)

static void
memory_bounded(void)
{
#ifdef __GLIBC__
	mallopt(M_MMAP_THRESHOLD, MMAP_FROM);
#endif
}

static int
serve_fcgi(const struct settings *st, int sock, int nthreads,
    const sigset_t *set)
{
	struct committer *c = NULL;
	struct readers *rd = NULL;
	struct sigaction sa;
	long cpus, nreaders;
	int sig, started = 0, rc = 1;

	/*
	 * Reads are short: one connection per CPU serves any number of
	 * threads (the rest of a thread's time is spent in the network).
	 * Two per CPU read no faster and cost more caches and heap behind
	 * nginx (scripts/bench.d/results.md).
	 */
	memory_bounded();
	if ((cpus = sysconf(_SC_NPROCESSORS_ONLN)) < 1)
		cpus = 1;
	nreaders = nthreads < cpus ? nthreads : cpus;
	/* Taken by the workers only (worker_main), for stop_accepting. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = wake_handler;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(WAKE_SIGNAL, &sa, NULL);
	wake_mask(SIG_BLOCK);
	if (pipe2(stop_pipe, O_CLOEXEC) == -1) {
		log_error("pipe: %s", strerror(errno));
		return 1;
	}
	if ((workers = calloc((size_t)nthreads, sizeof(*workers))) == NULL ||
	    (rd = readers_new((size_t)nreaders,
		 store_driver_can(st->db_path, STORE_CAN_READ_TOGETHER))) ==
		NULL ||
	    (c = commit_new(st)) == NULL) {
		log_error("out of memory");
		goto done;
	}
	if ((started = workers_start(st, sock, nthreads, rd, c)) == 0)
		goto done;

	while (sigwait(set, &sig) != 0)
		;
	log_debug("signal %d: finishing the requests in flight", sig);
	atomic_store(&stopping, 1);
	if (write(stop_pipe[1], "", 1) != 1)
		log_warn("cannot wake the workers: %s", strerror(errno));
	stop_accepting(sock, started);
	rc = 0;
	/* A worker left running may still use all of it: free nothing. */
	if (workers_join(started) != 0)
		return rc;
done:
	serve_free(c, rd);
	return rc;
}

/* The socket of -s path or -s address:port; -1: said why. */
static int
listen_on(const char *sockpath)
{
	int sock;

	/* libfcgi exits on a failed bind; say what we tried first. */
	if (strchr(sockpath, '/') == NULL && sockpath[0] == ':') {
		log_error("-s %s: give an address, such as 127.0.0.1%s",
		    sockpath, sockpath);
		return -1;
	}
	log_info("listening on %s", sockpath);
	if ((sock = FCGX_OpenSocket(sockpath, 128)) < 0) {
		log_error("-s %s: cannot listen", sockpath);
		return -1;
	}
	return sock;
}

/* The command line's options; usage() on a bad one. */
struct options {
	enum log_level lvl;
	const char *sockpath, *logdest;
	int nthreads;
};

static void
parse_options(int argc, char *argv[], struct options *o)
{
	int64_t n;
	int ch;

	o->lvl = LOG_LVL_INFO;
	o->sockpath = o->logdest = NULL;
	o->nthreads = DEFAULT_THREADS;
	/*
	 * Run as CGI, a query without '=' arrives as arguments too (RFC
	 * 3875 section 4.4: /jobs?x runs "checkpoint-api.fcgi x").  They
	 * are the query, which is ignored, not options.
	 */
	if (getenv("GATEWAY_INTERFACE") != NULL)
		argc = 1;
	while ((ch = getopt(argc, argv, "dl:n:s:t:V")) != -1) {
		switch (ch) {
		case 'd':
			o->lvl = LOG_LVL_DEBUG;
			break;
		case 'l':
			o->logdest = optarg;
			break;
		case 'n':
			if (settings_parse_int(optarg, 1, 1000000000, &n) == -1)
				usage();
			max_requests = (long)n;
			break;
		case 's':
			o->sockpath = optarg;
			break;
		case 't':
			if (settings_parse_int(optarg, 1, MAX_THREADS, &n) ==
			    -1)
				usage();
			o->nthreads = (int)n;
			break;
		case 'V':
			puts(PACKAGE_STRING);
			exit(0);
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
}

int
main(int argc, char *argv[])
{
	struct settings st;
	struct options o;
	struct api a;
	sigset_t set, oldset;
	char err[256];
	int ch, sock = 0;

	parse_options(argc, argv, &o);
	if (log_init_dest("checkpoint-api.fcgi", o.logdest, o.lvl, err,
		sizeof(err)) == -1) {
		fprintf(stderr, "checkpoint-api.fcgi: %s\n", err);
		usage();
	}
	store_init();
	c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);

	/*
	 * SIGTERM and friends are taken by the main thread with sigwait
	 * (serve_fcgi); blocked from the start so that one arriving while
	 * the process starts is not lost.
	 */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, &oldset);

	/* Settings come from the process environment, before any accept. */
	if (settings_from_env(&st, NULL, err, sizeof(err)) == -1) {
		log_error("%s", err);
		return 1;
	}
	umask(007);
	signal(SIGPIPE, SIG_IGN);
	if (FCGX_Init() != 0) {
		log_error("FCGX_Init failed");
		return 1;
	}

	if (o.sockpath != NULL) {
		if ((sock = listen_on(o.sockpath)) < 0)
			return 1;
	} else if (FCGX_IsCGI()) {
		if (getenv("REQUEST_METHOD") == NULL) {
			fprintf(stderr,
			    "checkpoint-api.fcgi: not started by a "
			    "web server; use -s to listen on a socket\n");
			usage();
		}
		sigprocmask(SIG_SETMASK, &oldset, NULL);
		api_init(&a, &st);
		ch = serve_cgi(&a);
		api_free(&a);
		return ch;
	}
	return serve_fcgi(&st, sock, o.nthreads, &set);
}
