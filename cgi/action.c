/*
 * Running checkpoint actions.  See action.h.
 *
 * An action is started with action_start and then driven by the caller's
 * poll(2) loop (action_pollfds, action_timeout, action_step), so that the
 * runner can run the actions of several jobs at once; action_run does the
 * whole thing for one action.
 *
 * The command runs as "/bin/sh -c COMMAND" in a new process group, so that
 * a timeout kills everything it started.  When the shell exits, whatever it
 * left running in its group is killed too: an action does not outlive its
 * result.  A watchdog process in the same group outlives a runner that
 * dies (SIGKILL, OOM): it kills the group at once, and in any case at the
 * deadline, so no command of a dead runner runs on unsupervised.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef HAVE_VALGRIND_VALGRIND_H
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif
/*
 * A sanitizer's runtime, as valgrind, takes a clone that shares memory
 * for the thread it came from, on a stack it does not know (see
 * watchdog_start): under either, the watchdog is a fork.
 */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define WATCHDOG_FORKS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define WATCHDOG_FORKS 1
#endif
#endif
#ifndef WATCHDOG_FORKS
#define WATCHDOG_FORKS 0
#endif

#include "action.h"
#include "buf.h"
#include "clock.h"

#define ACTION_KILL_GRACE_MS 2000 /* SIGTERM, then SIGKILL after this */
/*
 * How often to look for the shell's exit when no SIGCHLD announces it
 * (action_wake_on_exit not called): what a cheap action waits for after
 * its pipes close.
 */
#define ACTION_REAP_POLL_MS 20
#define WATCHDOG_STACK (64 * 1024) /* a few frames, signal handlers' too */

struct action {
	pid_t pid; /* the shell, leader of its group */
	pid_t watchdog; /* in the group; -1 if none */
	void *watchdog_stack; /* its stack (watchdog_start), or NULL */
	int fd[2]; /* stdout, stderr; -1 at EOF */
	int64_t deadline_ms;
	int64_t kill_ms; /* SIGKILL due; 0: not signalled */
	int timed_out;
	int exited; /* reaped; wstatus valid */
	int wstatus;
	struct action_output out;
};

static int exits_wake; /* SIGCHLD wakes action_poll */

static void
on_sigchld(int sig)
{
	(void)sig; /* only to interrupt ppoll */
}

/*
 * Has a child's exit wake action_poll at once: SIGCHLD gets a handler
 * (which also undoes an ignored SIGCHLD inherited from whatever started
 * the process: the kernel would reap the shells itself) and is blocked
 * everywhere but in action_poll's ppoll, so that an exit just before the
 * wait is not missed and no other system call is interrupted.  Without
 * it an action's end is seen within ACTION_REAP_POLL_MS; with it, a cheap
 * command costs no sleep.  Once, at the start of a single-threaded
 * process.
 */
void
action_wake_on_exit(void)
{
	struct sigaction sa;
	sigset_t set;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigchld;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	exits_wake = 1;
}

/* poll(2) for actions: a child's exit interrupts it (EINTR). */
int
action_poll(struct pollfd *pfd, size_t n, int timeout_ms)
{
	struct timespec ts;
	sigset_t mask;

	if (!exits_wake)
		return poll(pfd, n, timeout_ms);
	sigprocmask(SIG_SETMASK, NULL, &mask);
	sigdelset(&mask, SIGCHLD);
	ts.tv_sec = timeout_ms / 1000;
	ts.tv_nsec = (long)(timeout_ms % 1000) * 1000000;
	return ppoll(pfd, n, timeout_ms < 0 ? NULL : &ts, &mask);
}

/* The clock of action deadlines. */
int64_t
action_now_ms(void)
{
	return clock_ms(CLOCK_MONOTONIC);
}

/* /dev/null, the pipes, and nothing else the runner holds. */
static int
spawn_files(posix_spawn_file_actions_t *fa, int out, int err)
{
	int rc;

	if ((rc = posix_spawn_file_actions_addopen(fa, STDIN_FILENO,
		 "/dev/null", O_RDONLY, 0)) != 0 ||
	    (rc = posix_spawn_file_actions_adddup2(fa, out, STDOUT_FILENO)) !=
		0 ||
	    (rc = posix_spawn_file_actions_adddup2(fa, err, STDERR_FILENO)) !=
		0)
		return rc;
	return posix_spawn_file_actions_addclosefrom_np(fa, STDERR_FILENO + 1);
}

/*
 * Starts "/bin/sh -c COMMAND" with posix_spawn, which copies nothing of
 * the runner's memory (glibc's vfork-like clone): a fork's cost grows with
 * the runner's page cache, an action's with nothing.  The shell leads a new
 * group, with no signal blocked or ignored that a command expects,
 * /dev/null as stdin, the pipes as stdout and stderr, nothing else the
 * runner inherited (sockets, a cron's pipes), and a clean environment:
 * PATH and the CHECKPOINT_ variables only.  Returns 0 or an errno.
 */
static int
action_spawn(const struct action_spec *spec, int out, int err, pid_t *pid)
{
	const char *envp[ACTION_MAX_ENV + 2];
	char path[1024];
	const char *p;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t set;
	int i, n = 0, rc;

	p = getenv("PATH");
	snprintf(path, sizeof(path), "PATH=%s",
	    p != NULL && *p != '\0' ? p : "/usr/local/bin:/usr/bin:/bin");
	envp[n++] = path;
	for (i = 0; i < ACTION_MAX_ENV && spec->env[i] != NULL; i++)
		envp[n++] = spec->env[i];
	envp[n] = NULL;

	if ((rc = posix_spawn_file_actions_init(&fa)) != 0)
		return rc;
	if ((rc = posix_spawnattr_init(&at)) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		return rc;
	}
	sigemptyset(&set);
	posix_spawnattr_setsigmask(&at, &set);
	sigaddset(&set, SIGPIPE);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	posix_spawnattr_setsigdefault(&at, &set);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setflags(&at,
	    POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
		POSIX_SPAWN_SETSIGDEF);
	if ((rc = spawn_files(&fa, out, err)) == 0)
		rc = posix_spawn(pid, "/bin/sh", &fa, &at,
		    (char *const[]){ "sh", "-c", (char *)spec->command, NULL },
		    (char *const *)envp);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	return rc;
}

/*
 * The watchdog's group is its own once it joined the action's: kill(0)
 * kills them all.  Nothing is kept in memory, which the watchdog shares
 * with the runner (watchdog_start).
 */
static void
watchdog_fire(int sig)
{
	(void)sig;
	kill(0, SIGKILL);
	_exit(0);
}

/*
 * In the watchdog (watchdog_start): once the runner moved it into the
 * action's group, holds no descriptor, and kills the group when the
 * runner dies (PR_SET_PDEATHSIG) or at the deadline plus a grace period.
 * The runner kills it with the group when the action is over.  Never
 * returns.  It shares the runner's errno: none of its calls may fail
 * (the runner's setpgid is the one that can), bar the last, _exit's.
 */
static void
watchdog_run(pid_t group, pid_t runner, int64_t timeout_ms)
{
	struct sigaction sa;
	sigset_t none;

	while (getpgrp() != group) {
		if (getppid() != runner)
			_exit(0);
		sched_yield();
	}
	close_range(0, ~0U, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = watchdog_fire;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	/*
	 * The deadline's SIGTERM goes to the whole group, this process
	 * included: it must outlive it, to kill what ignores it should the
	 * runner die before the grace period is over.
	 */
	signal(SIGTERM, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	prctl(PR_SET_PDEATHSIG, SIGUSR1);
	if (getppid() != runner)
		watchdog_fire(0);
	alarm((unsigned)(timeout_ms / 1000) + 1 + ACTION_KILL_GRACE_MS / 1000 +
	    3);
	for (;;)
		pause();
}

static void action_reap_watchdog(struct action *);

/* What a watchdog is given, at the base of its stack. */
struct watchdog_args {
	pid_t group, runner;
	int64_t timeout_ms;
};

static int
watchdog_main(void *arg)
{
	const struct watchdog_args *w = arg;

	watchdog_run(w->group, w->runner, w->timeout_ms);
	return 0;
}

int
action_watchdog_shares(void)
{
	return !WATCHDOG_FORKS && !RUNNING_ON_VALGRIND;
}

/*
 * Starts a's watchdog, on a stack of its own in the runner's memory,
 * shared (CLONE_VM), not copied: a fork copied the page tables of the
 * runner's page cache at each action, and then each page the runner
 * wrote while the watchdog lived, so an action cost more the more of
 * the database the runner held.  The watchdog touches no memory but its
 * stack, and calls nothing that allocates.
 */
static void
watchdog_start(struct action *a, pid_t runner, int64_t timeout_ms)
{
	struct watchdog_args *w;
	void *stack;

	a->watchdog = -1;
	stack = mmap(NULL, WATCHDOG_STACK, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		return;
	w = stack;
	w->group = a->pid;
	w->runner = runner;
	w->timeout_ms = timeout_ms;
	/*
	 * valgrind follows a clone only as a thread or a fork, and stops
	 * the program at any other; a sanitizer reports the watchdog's
	 * stack as out of its thread's: under either, a fork.
	 */
	if (!action_watchdog_shares()) {
		if ((a->watchdog = fork()) == 0)
			watchdog_run(w->group, w->runner, w->timeout_ms);
	} else
		a->watchdog = clone(watchdog_main,
		    (char *)stack + WATCHDOG_STACK, CLONE_VM | SIGCHLD, w);
	if (a->watchdog == -1) {
		munmap(stack, WATCHDOG_STACK);
		return;
	}
	a->watchdog_stack = stack;
	/* The group gone already (the action over): no watchdog needed. */
	if (setpgid(a->watchdog, a->pid) == -1)
		action_reap_watchdog(a);
}

int
action_start(const struct action_spec *spec, struct action **out)
{
	struct action *a;
	pid_t runner;
	int po[2] = { -1, -1 }, pe[2] = { -1, -1 }, i;

	*out = NULL;
	if ((a = calloc(1, sizeof(*a))) == NULL)
		return -1;
	if (pipe2(po, O_CLOEXEC) == -1 || pipe2(pe, O_CLOEXEC) == -1)
		goto fail;
	/* It returns once the shell leads its group: no kill can miss it. */
	if ((errno = action_spawn(spec, po[1], pe[1], &a->pid)) != 0)
		goto fail;
	close(po[1]);
	close(pe[1]);
	runner = getpid();
	watchdog_start(a, runner, spec->timeout_ms);
	a->fd[0] = po[0];
	a->fd[1] = pe[0];
	for (i = 0; i < 2; i++)
		fcntl(a->fd[i], F_SETFL, fcntl(a->fd[i], F_GETFL) | O_NONBLOCK);
	a->deadline_ms = action_now_ms() + spec->timeout_ms;
	*out = a;
	return 0;
fail:
	for (i = 0; i < 2; i++) {
		if (po[i] != -1)
			close(po[i]);
		if (pe[i] != -1)
			close(pe[i]);
	}
	free(a);
	return -1;
}

pid_t
action_pid(const struct action *a)
{
	return a->pid;
}

size_t
action_pollfds(const struct action *a, struct pollfd *pfd, size_t max)
{
	size_t n = 0;
	int i;

	for (i = 0; i < 2 && n < max; i++)
		if (a->fd[i] != -1) {
			pfd[n].fd = a->fd[i];
			pfd[n].events = POLLIN;
			pfd[n].revents = 0;
			n++;
		}
	return n;
}

/*
 * Milliseconds until action_step should run again without input: the
 * deadline, or, unless SIGCHLD wakes action_poll, a short poll for the
 * shell's exit, which no pipe announces (a command's pipes close just
 * before it exits, or long after when what it started holds them).
 */
int
action_timeout(const struct action *a, int64_t now)
{
	int64_t due;

	if (a->exited)
		return 0;
	due = a->kill_ms != 0 ? a->kill_ms : a->deadline_ms;
	if (!exits_wake && due > now + ACTION_REAP_POLL_MS)
		due = now + ACTION_REAP_POLL_MS;
	if (due <= now)
		return 0;
	return due - now > 60000 ? 60000 : (int)(due - now);
}

/*
 * The length of a stdout line without trailing blanks and carriage
 * returns: a location is compared and stored as the operator sees it.
 */
static size_t
line_trimmed(const char *line, size_t len)
{
	while (len > 0 &&
	    (line[len - 1] == '\r' || line[len - 1] == ' ' ||
		line[len - 1] == '\t'))
		len--;
	return len;
}

void
action_output_stdout(struct action_output *o, const char *p, size_t n)
{
	size_t i, len;

	for (i = 0; i < n; i++) {
		if (p[i] == '\n') {
			if ((len = line_trimmed(o->line, o->linelen)) > 0) {
				memcpy(o->last, o->line, len);
				o->last[len] = '\0';
			}
			o->linelen = 0;
		} else if (o->linelen < sizeof(o->line) - 1)
			o->line[o->linelen++] = p[i];
	}
}

void
action_output_stderr(struct action_output *o, const char *p, size_t n)
{
	if (n >= ACTION_TAIL) {
		memcpy(o->tail, p + n - ACTION_TAIL, ACTION_TAIL);
		o->taillen = ACTION_TAIL;
		return;
	}
	if (o->taillen + n > sizeof(o->tail)) {
		memmove(o->tail, o->tail + o->taillen - (ACTION_TAIL - n),
		    ACTION_TAIL - n);
		o->taillen = ACTION_TAIL - n;
	}
	memcpy(o->tail + o->taillen, p, n);
	o->taillen += n;
}

/*
 * The last line and stderr's tail as the runner stores them: a last line
 * without its newline counts too if it is not blank; both are made UTF-8
 * text, because both end up in JSON and in the database.
 */
void
action_output_result(const struct action_output *o, struct action_result *r)
{
	size_t n;

	if ((n = line_trimmed(o->line, o->linelen)) > 0) {
		memcpy(r->last_line, o->line, n);
		r->last_line[n] = '\0';
	} else
		memcpy(r->last_line, o->last, sizeof(r->last_line));
	n = o->taillen > ACTION_TAIL ? ACTION_TAIL : o->taillen;
	memcpy(r->err_tail, o->tail + o->taillen - n, n);
	r->err_tail[n] = '\0';
	buf_utf8_clean(r->last_line);
	buf_utf8_clean(r->err_tail);
}

/* Reads what is there without blocking; closes a pipe at EOF. */
static void
action_drain(struct action *a)
{
	char b[4096];
	ssize_t r;
	int i;

	for (i = 0; i < 2; i++) {
		while (a->fd[i] != -1) {
			r = read(a->fd[i], b, sizeof(b));
			if (r > 0) {
				if (i == 0)
					action_output_stdout(&a->out, b,
					    (size_t)r);
				else
					action_output_stderr(&a->out, b,
					    (size_t)r);
				continue;
			}
			if (r == -1 && errno == EINTR)
				continue;
			if (r == -1 && errno == EAGAIN)
				break;
			close(a->fd[i]);
			a->fd[i] = -1;
		}
	}
}

/* The group was just killed: collect the watchdog. */
static void
action_reap_watchdog(struct action *a)
{
	if (a->watchdog <= 0)
		return;
	kill(a->watchdog, SIGKILL);
	while (waitpid(a->watchdog, NULL, 0) == -1 && errno == EINTR)
		;
	a->watchdog = -1;
	/* Gone: nothing runs on its stack any more. */
	munmap(a->watchdog_stack, WATCHDOG_STACK);
	a->watchdog_stack = NULL;
}

static void
action_close_fds(struct action *a)
{
	int i;

	for (i = 0; i < 2; i++)
		if (a->fd[i] != -1) {
			close(a->fd[i]);
			a->fd[i] = -1;
		}
}

/*
 * Advances the action: reads output, enforces the deadline, reaps the
 * shell.  Returns 1 once the action is over (action_result is then valid),
 * else 0.
 */
int
action_step(struct action *a, int64_t now)
{
	siginfo_t si;

	if (a->exited)
		return 1;
	action_drain(a);

	if (!a->timed_out && now >= a->deadline_ms) {
		a->timed_out = 1;
		kill(-a->pid, SIGTERM);
		a->kill_ms = now + ACTION_KILL_GRACE_MS;
	} else if (a->kill_ms != 0 && now >= a->kill_ms) {
		kill(-a->pid, SIGKILL);
		a->kill_ms = INT64_MAX;
	}

	/*
	 * Look without reaping: while the shell is a zombie its pid, and so
	 * its group id, cannot be reused, so the group kill below can only
	 * hit what the action left behind.
	 */
	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)a->pid, &si, WEXITED | WNOHANG | WNOWAIT) ==
		-1 ||
	    si.si_pid == 0)
		return 0;
	action_drain(a);
	kill(-a->pid, SIGKILL);
	while (waitpid(a->pid, &a->wstatus, 0) == -1 && errno == EINTR)
		;
	action_reap_watchdog(a);
	a->exited = 1;
	action_close_fds(a);
	return 1;
}

void
action_result(const struct action *a, struct action_result *r)
{
	memset(r, 0, sizeof(*r));
	if (a->timed_out)
		r->status = ACTION_TIMEOUT;
	else if (WIFEXITED(a->wstatus) && WEXITSTATUS(a->wstatus) == 0)
		r->status = ACTION_OK;
	else {
		r->status = ACTION_FAILED;
		if (WIFEXITED(a->wstatus))
			r->exit_code = WEXITSTATUS(a->wstatus);
		else if (WIFSIGNALED(a->wstatus))
			r->signal = WTERMSIG(a->wstatus);
	}
	action_output_result(&a->out, r);
}

/* Ends a running action now (the runner is shutting down hard). */
void
action_kill(struct action *a)
{
	if (a->exited)
		return;
	kill(-a->pid, SIGKILL);
	while (waitpid(a->pid, &a->wstatus, 0) == -1 && errno == EINTR)
		;
	action_reap_watchdog(a);
	a->exited = 1;
	a->timed_out = 1;
	action_close_fds(a);
}

void
action_free(struct action *a)
{
	if (a == NULL)
		return;
	action_kill(a);
	free(a);
}

/* Runs one action to its end.  Returns 0, or -1 if it could not start. */
int
action_run(const struct action_spec *spec, struct action_result *r)
{
	struct action *a;
	struct pollfd pfd[ACTION_POLLFDS];
	size_t n;

	if (action_start(spec, &a) == -1) {
		memset(r, 0, sizeof(*r));
		r->status = ACTION_ERROR;
		return -1;
	}
	while (!action_step(a, action_now_ms())) {
		n = action_pollfds(a, pfd, ACTION_POLLFDS);
		action_poll(pfd, n, action_timeout(a, action_now_ms()));
	}
	action_result(a, r);
	action_free(a);
	return 0;
}
