/*
 * Checkpoint actions (cgi/action.c; checkpoint-runner(8)): the command runs
 * under /bin/sh -c in a process group of its own, with a clean environment
 * (PATH and the CHECKPOINT_ variables given), stdin from /dev/null; its exit
 * status, last non-empty stdout line and stderr tail are reported as clean
 * text; past its deadline the whole group is killed, and whatever it left
 * running is killed when it exits.
 *
 * A failure's cause in one line, as the runner's log and checkpointctl
 * say it, from the trace the runner stores (ckpt_failure_cause).
 *
 * Real processes throughout.  The time bounds are generous: they tell a
 * deadline that works from one that does not, they measure nothing.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "action.h"
#include "checkpoint.h"
#include "tap.h"

#define TEST_PATH "/usr/local/bin:/usr/bin:/bin"

static struct action_result res;
static int64_t elapsed; /* ms, of the last run() */

/* Runs command with the given CHECKPOINT_ variables (NULL-ended). */
static int
run_env(const char *command, int64_t timeout_ms, const char *const *env)
{
	struct action_spec spec;
	int64_t t0;
	int i, rc;

	memset(&spec, 0, sizeof(spec));
	spec.command = command;
	spec.timeout_ms = timeout_ms;
	for (i = 0; env != NULL && env[i] != NULL && i < ACTION_MAX_ENV; i++)
		spec.env[i] = env[i];
	memset(&res, 0x55, sizeof(res)); /* no stale result passes */
	t0 = action_now_ms();
	rc = action_run(&spec, &res);
	elapsed = action_now_ms() - t0;
	return rc;
}

static int
run(const char *command, int64_t timeout_ms)
{
	return run_env(command, timeout_ms, NULL);
}

/*
 * Whether a process is gone: no such pid, or dead and waiting to be reaped
 * by whoever inherited it (state Z).  Waits up to wait_ms for it.
 */
static int
pid_gone(pid_t pid, int wait_ms)
{
	char path[64], buf[512], *p;
	FILE *f;
	int waited;

	if (pid <= 1)
		return 0;
	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	for (waited = 0;; waited += 20) {
		if ((f = fopen(path, "r")) == NULL)
			return 1;
		p = NULL;
		if (fgets(buf, sizeof(buf), f) != NULL)
			p = strrchr(buf, ')');
		fclose(f);
		if (p != NULL && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X'))
			return 1;
		if (waited >= wait_ms)
			return 0;
		usleep(20 * 1000);
	}
}

/* Kills a leftover of a failed case by pid, so it cannot linger. */
static void
reap_leftover(pid_t pid)
{
	if (pid > 1 && !pid_gone(pid, 0))
		kill(pid, SIGKILL);
}

static void
test_exit_status(void)
{
	tap_is_int(run("exit 0", 5000), 0, "exit 0: action_run returns 0");
	tap_is_int(res.status, ACTION_OK, "exit 0: ACTION_OK");
	tap_is_int(res.exit_code, 0, "exit 0: exit_code 0");
	tap_is_int(res.signal, 0, "exit 0: no signal");
	tap_is_str(res.last_line, "", "exit 0, no output: last_line empty");
	tap_is_str(res.err_tail, "", "exit 0, no output: err_tail empty");

	run("exit 3", 5000);
	tap_is_int(res.status, ACTION_FAILED, "exit 3: ACTION_FAILED");
	tap_is_int(res.exit_code, 3, "exit 3: exit_code 3");
	tap_is_int(res.signal, 0, "exit 3: no signal");

	run("kill -9 $$", 5000);
	tap_is_int(res.status, ACTION_FAILED, "kill -9 $$: ACTION_FAILED");
	tap_is_int(res.signal, 9, "kill -9 $$: signal 9");
	tap_is_int(res.exit_code, 0, "kill -9 $$: no exit code");

	run("no-such-command-checkpoint-test", 5000);
	tap_is_int(res.status, ACTION_FAILED, "nonexistent command: FAILED");
	tap_is_int(res.exit_code, 127, "nonexistent command: exit 127");
	tap_ok(strstr(res.err_tail, "no-such-command-checkpoint-test") != NULL,
	    "nonexistent command: the shell's complaint is in err_tail");
}

static void
test_last_line(void)
{
	static const struct {
		int line;
		const char *command;
		const char *want;
	} cases[] = {
		{ __LINE__, "echo a; echo; echo b", "b" },
		{ __LINE__, "echo a; echo b; echo", "b" },
		{ __LINE__, "echo first; echo '   '; printf '\\r\\n'",
		    "first" },
		{ __LINE__, "printf 'x\\ny'", "y" },
		{ __LINE__, "echo 's3://bucket/chk-1  '", "s3://bucket/chk-1" },
		{ __LINE__, "printf 'loc\\t \\r\\n'", "loc" },
		{ __LINE__, "printf 'a b  c \\n'", "a b  c" },
		/* A last line without its newline is trimmed the same way. */
		{ __LINE__, "printf 'x\\ny  \\r'", "y" },
		{ __LINE__, "echo kept; printf '  '", "kept" },
		/* Not text: each bad byte becomes '?'. */
		{ __LINE__, "printf 'a\\377b\\001c\\033d\\n'", "a?b?c?d" },
		{ __LINE__, "printf '\\303\\251t\\303\\251\\n'",
		    "\xc3\xa9t\xc3\xa9" },
		{ __LINE__, "printf 'caf\\303\\n'", "caf?" },
		{ __LINE__, "printf 'del\\177\\n'", "del?" },
		/* A lot of output before it does not block the command. */
		{ __LINE__,
		    "head -c 1000000 /dev/zero | tr '\\0' a | "
		    "fold -w 100; echo; echo END",
		    "END" },
		/* Only stdout counts. */
		{ __LINE__, "echo out; echo err >&2", "out" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		run(cases[i].command, 10000);
		tap_ok_at(__FILE__, cases[i].line, res.status == ACTION_OK,
		    "last line: %s: ACTION_OK", cases[i].command);
		tap_is_str_at(__FILE__, cases[i].line, res.last_line,
		    cases[i].want, "last line: %s", cases[i].command);
	}

	run("head -c 10000 /dev/zero | tr '\\0' L; echo", 5000);
	tap_ok(strlen(res.last_line) > 0 && strlen(res.last_line) < ACTION_LINE,
	    "a 10000-byte line is cut to less than ACTION_LINE (%zu)",
	    strlen(res.last_line));
	tap_ok(strspn(res.last_line, "L") == strlen(res.last_line),
	    "a cut line keeps only its own bytes");
}

static void
test_err_tail(void)
{
	char want[ACTION_TAIL + 1], *all;
	size_t len, n, cap = 64 * 1024;
	int i;

	run("echo 'disk full' >&2; exit 3", 5000);
	tap_is_str(res.err_tail, "disk full\n", "short stderr kept whole");

	run("head -c 10240 /dev/zero | tr '\\0' x >&2; echo LAST >&2", 5000);
	len = strlen(res.err_tail);
	tap_is_int(len, ACTION_TAIL, "10 KB of stderr: ACTION_TAIL bytes kept");
	tap_ok(len >= 6 && strcmp(res.err_tail + len - 6, "xLAST\n") == 0,
	    "10 KB of stderr: the end is kept");
	tap_ok(strspn(res.err_tail, "x") == ACTION_TAIL - 5,
	    "10 KB of stderr: exactly the last ACTION_TAIL bytes");

	/* Many small writes: the tail must be exactly the last bytes. */
	run("i=0; while [ $i -lt 400 ]; do echo \"line $i\" >&2; "
	    "i=$((i + 1)); done",
	    10000);
	if ((all = malloc(cap)) == NULL)
		abort();
	for (i = 0, n = 0; i < 400; i++)
		n += (size_t)snprintf(all + n, cap - n, "line %d\n", i);
	memcpy(want, all + n - ACTION_TAIL, ACTION_TAIL);
	want[ACTION_TAIL] = '\0';
	free(all);
	tap_is_str(res.err_tail, want,
	    "stderr in 400 small writes: the last ACTION_TAIL bytes, in order");

	run("printf 'bad \\377\\001 bytes\\n' >&2; exit 1", 5000);
	tap_is_str(res.err_tail, "bad ?? bytes\n",
	    "invalid UTF-8 and control bytes in stderr become '?'");
}

static void
test_environment(void)
{
	static const char *const env[] = {
		"CHECKPOINT_JOB_ID=0123456789abcdef0123456789abcdef",
		"CHECKPOINT_ID=7",
		"CHECKPOINT_TYPE=FULL",
		"CHECKPOINT_TRIGGER_ID=fedcba9876543210fedcba9876543210",
		NULL,
	};
	char want[1024];

	setenv("SECRET", "x", 1);
	setenv("CHECKPOINT_DB", "/should/not/leak.db", 1);
	setenv("PATH", TEST_PATH, 1);
	/* The shell itself may add PWD (dash) or SHLVL and _ (bash). */
	run_env("env | grep -v -e '^PWD=' -e '^SHLVL=' -e '^_=' | sort | "
		"tr '\\n' ' '; echo",
	    5000, env);
	snprintf(want, sizeof(want),
	    "CHECKPOINT_ID=7 "
	    "CHECKPOINT_JOB_ID=0123456789abcdef0123456789abcdef "
	    "CHECKPOINT_TRIGGER_ID=fedcba9876543210fedcba9876543210 "
	    "CHECKPOINT_TYPE=FULL PATH=%s",
	    TEST_PATH);
	tap_is_str(res.last_line, want,
	    "the environment is PATH and the CHECKPOINT_ variables given");

	run_env("echo \"[${SECRET-unset}]\"", 5000, env);
	tap_is_str(res.last_line, "[unset]",
	    "a variable of the calling process is not visible");
	run("echo \"[${CHECKPOINT_DB-unset}]\"", 5000);
	tap_is_str(res.last_line, "[unset]",
	    "the caller's own CHECKPOINT_ variables are not passed on");
	run("env | grep -v -e '^PWD=' -e '^SHLVL=' -e '^_=' | sort | "
	    "tr '\\n' ' '; echo",
	    5000);
	snprintf(want, sizeof(want), "PATH=%s", TEST_PATH);
	tap_is_str(res.last_line, want,
	    "no CHECKPOINT_ variables given: PATH alone");

	unsetenv("PATH");
	run("echo \"$PATH\"", 5000);
	tap_ok(res.status == ACTION_OK && strstr(res.last_line, "/bin") != NULL,
	    "without a PATH of its own the command still gets one (%s)",
	    res.last_line);
	setenv("PATH", TEST_PATH, 1);

	run("echo \"$# $0\"", 5000);
	tap_is_str(res.last_line, "0 sh",
	    "the command gets no positional arguments");

	unsetenv("SECRET");
	unsetenv("CHECKPOINT_DB");
}

static void
test_stdin(void)
{
	run("cat; echo \"cat=$?\"", 5000);
	tap_is_int(res.status, ACTION_OK, "cat with stdin from /dev/null: OK");
	tap_is_str(res.last_line, "cat=0", "cat reads EOF at once");
	tap_ok(elapsed < 4000, "cat returns at once (%lld ms)",
	    (long long)elapsed);
	run("readlink /proc/$$/fd/0", 5000);
	tap_is_str(res.last_line, "/dev/null", "stdin is /dev/null");
}

static void
test_process_group(void)
{
	long pid = -1, pgid = -2;

	run("echo \"$$ $(ps -o pgid= -p $$)\"", 5000);
	tap_is_int(res.status, ACTION_OK, "ps -o pgid=: OK");
	tap_is_int(sscanf(res.last_line, "%ld %ld", &pid, &pgid), 2,
	    "the shell's pid and group read (%s)", res.last_line);
	tap_is_int(pgid, pid, "the shell leads a process group of its own");
	tap_ok(pgid != (long)getpgrp(),
	    "the command's group is not the caller's (%ld vs %ld)", pgid,
	    (long)getpgrp());
}

static void
test_timeout(void)
{
	pid_t child;

	run("sleep 30", 300);
	tap_is_int(res.status, ACTION_TIMEOUT,
	    "sleep 30, 300 ms: ACTION_TIMEOUT");
	tap_ok(elapsed >= 300, "not ended before its deadline (%lld ms)",
	    (long long)elapsed);
	tap_ok(elapsed < 5000, "ended soon after its deadline (%lld ms)",
	    (long long)elapsed);

	run("echo partial; echo oops >&2; sleep 30", 300);
	tap_is_int(res.status, ACTION_TIMEOUT,
	    "timed out with output: TIMEOUT");
	tap_is_str(res.last_line, "partial", "output before the timeout kept");
	tap_is_str(res.err_tail, "oops\n", "stderr before the timeout kept");

	/* The whole group goes, not only the shell. */
	run("sleep 30 & echo $!; wait", 300);
	child = (pid_t)atol(res.last_line);
	tap_is_int(res.status, ACTION_TIMEOUT,
	    "sleep in the background, waited for: TIMEOUT");
	tap_ok(child > 1 && pid_gone(child, 1000),
	    "the background sleep (pid %ld) is killed with its group",
	    (long)child);
	reap_leftover(child);

	/* SIGTERM ignored: SIGKILL follows. */
	run("trap '' TERM; sleep 30", 200);
	tap_is_int(res.status, ACTION_TIMEOUT,
	    "a command ignoring SIGTERM: "
	    "TIMEOUT");
	tap_ok(elapsed < 6000,
	    "a command ignoring SIGTERM is killed anyway "
	    "(%lld ms)",
	    (long long)elapsed);
}

static void
test_leftovers(void)
{
	pid_t child;

	/* The background sleep does not hold the pipes. */
	run("sleep 30 >/dev/null 2>&1 & echo $!", 4000);
	child = (pid_t)atol(res.last_line);
	tap_is_int(res.status, ACTION_OK,
	    "sleep 30 >/dev/null & then exit 0: "
	    "OK");
	tap_ok(elapsed < 3000,
	    "its result does not wait for the background "
	    "sleep (%lld ms)",
	    (long long)elapsed);
	tap_ok(child > 1 && pid_gone(child, 1000),
	    "the background sleep (pid %ld) is killed when the shell exits",
	    (long)child);
	reap_leftover(child);

	/*
	 * It does: the shell's exit alone must end the action, even when its
	 * output came earlier (so that no read is pending when it exits).
	 */
	run("sleep 30 & echo $!; sleep 0.3", 4000);
	child = (pid_t)atol(res.last_line);
	tap_is_int(res.status, ACTION_OK,
	    "sleep 30 & (holding stdout) then "
	    "exit 0: OK");
	tap_ok(elapsed < 3000,
	    "its result does not wait for the background "
	    "sleep holding stdout (%lld ms)",
	    (long long)elapsed);
	tap_ok(child > 1 && pid_gone(child, 1000),
	    "the background sleep (pid %ld) holding stdout is killed when the "
	    "shell exits",
	    (long)child);
	reap_leftover(child);

	run("exec >&- 2>&-; sleep 1", 10000);
	tap_is_int(res.status, ACTION_OK,
	    "closes stdout and stderr, runs on, exits 0: OK");
	tap_ok(elapsed >= 1000 && elapsed < 5000,
	    "its end is seen when it exits (%lld ms)", (long long)elapsed);

	run("exec >&- 2>&-; exit 4", 10000);
	tap_is_int(res.status, ACTION_FAILED,
	    "closes its pipes, exits 4: FAILED");
	tap_is_int(res.exit_code, 4, "closes its pipes, exits 4: exit_code 4");
}

/* The step API a runner drives, and action_kill. */
static void
test_step_api(void)
{
	struct action_spec spec;
	struct action *a = NULL;
	struct pollfd pfd[ACTION_POLLFDS];
	size_t n;
	pid_t pid;
	int steps = 0;

	memset(&spec, 0, sizeof(spec));
	spec.command = "sleep 30";
	spec.timeout_ms = 60000;
	tap_is_int(action_start(&spec, &a), 0, "action_start: 0");
	if (a == NULL) {
		tap_ok(0, "action_start gave an action");
		return;
	}
	pid = action_pid(a);
	tap_ok(pid > 1 && getpgid(pid) == pid,
	    "action_pid is the leader of its group");
	n = action_pollfds(a, pfd, ACTION_POLLFDS);
	tap_is_int(n, 2, "two pipes to poll while it runs");
	tap_ok(action_timeout(a, action_now_ms()) > 0,
	    "action_timeout: a wait before the deadline");
	tap_is_int(action_step(a, action_now_ms()), 0,
	    "action_step: not over yet");
	action_kill(a);
	tap_ok(pid_gone(pid, 0), "action_kill: the command is gone at once");
	tap_is_int(action_step(a, action_now_ms()), 1,
	    "action_step after action_kill: over");
	action_result(a, &res);
	tap_ok(res.status != ACTION_OK, "a killed action is not OK");
	action_free(a);

	/* Driven by hand to its end, as the runner's loop does. */
	spec.command = "echo one; sleep 0.2; echo two";
	spec.timeout_ms = 10000;
	a = NULL;
	if (action_start(&spec, &a) == -1 || a == NULL) {
		tap_ok(0, "action_start (second)");
		return;
	}
	while (!action_step(a, action_now_ms()) && steps++ < 10000) {
		n = action_pollfds(a, pfd, ACTION_POLLFDS);
		poll(pfd, n, action_timeout(a, action_now_ms()));
	}
	action_result(a, &res);
	tap_is_int(res.status, ACTION_OK, "driven by action_step: OK");
	tap_is_str(res.last_line, "two", "driven by action_step: last line");
	tap_is_int(action_pollfds(a, pfd, ACTION_POLLFDS), 0,
	    "no pipes left once over");
	action_free(a);
	action_free(NULL);
	tap_ok(1, "action_free(NULL) is harmless");
}

/* command started with a deadline a minute away, or NULL (said). */
static struct action *
start(const char *command, const char *what)
{
	struct action_spec spec;
	struct action *a = NULL;

	memset(&spec, 0, sizeof(spec));
	spec.command = command;
	spec.timeout_ms = 60000;
	if (action_start(&spec, &a) == -1 || a == NULL) {
		tap_ok(0, "action_start (%s)", what);
		return NULL;
	}
	return a;
}

/* Written after an action started: seen by its watchdog, or not. */
static volatile long shared_mark = 1;

/* The parent of process pid, from /proc/PID/stat; -1 if it is gone. */
static pid_t
parent_of(pid_t pid)
{
	char path[64], buf[512], *p;
	long ppid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	/* "pid (comm) state ppid ...": comm may hold spaces, not ')'s last. */
	if (fgets(buf, sizeof(buf), f) != NULL &&
	    (p = strrchr(buf, ')')) != NULL)
		sscanf(p + 1, " %*c %ld", &ppid);
	fclose(f);
	return (pid_t)ppid;
}

/*
 * The watchdog of the action whose group is group: the process of that
 * group the runner (this process) started beside the shell, or -1.  The
 * shell's own children are in the group too.
 */
static pid_t
group_other(pid_t group)
{
	pid_t pid;
	int i;

	/* The watchdog's pid follows the shell's closely. */
	for (i = 1; i < 4096; i++) {
		pid = group + i;
		if (getpgid(pid) == group && parent_of(pid) == getpid())
			return pid;
	}
	return -1;
}

/*
 * The watchdog shares the runner's memory, not a copy of it: a fork's
 * copy cost an action more the more of the database the runner held in
 * its cache (copying its page tables, then each page the runner wrote
 * while the watchdog lived).  A value written after the start reads the
 * same in the watchdog's memory.
 */
static void
test_watchdog_shares(void)
{
	struct action *a;
	long seen = 0;
	char path[64];
	pid_t wd;
	int fd;

	if (!action_watchdog_shares()) {
		tap_ok(1, "the action's group holds its watchdog # SKIP %s",
		    "a fork under valgrind or a sanitizer");
		tap_ok(1, "the watchdog sees the runner's memory # SKIP %s",
		    "a fork under valgrind or a sanitizer");
		return;
	}
	if ((a = start("sleep 30", "watchdog")) == NULL)
		return;
	shared_mark = 42;
	wd = group_other(action_pid(a));
	tap_ok(wd > 0, "the action's group holds its watchdog");
	snprintf(path, sizeof(path), "/proc/%ld/mem", (long)wd);
	if ((fd = open(path, O_RDONLY)) != -1) {
		if (pread(fd, &seen, sizeof(seen),
			(off_t)(uintptr_t)&shared_mark) !=
		    (ssize_t)sizeof(seen))
			seen = -1;
		close(fd);
	}
	tap_is_int(seen, 42,
	    "the watchdog sees the runner's memory, not a copy");
	action_kill(a);
	action_free(a);
}

/*
 * With action_wake_on_exit, the shell's exit interrupts action_poll: the
 * wait is the deadline's, and a command that closes its pipes and exits
 * is over after a step or two, not after polls every ACTION_REAP_POLL_MS.
 * Last: it changes the process's signal handling.
 */
static void
test_wake_on_exit(void)
{
	struct action *a = NULL;
	struct pollfd pfd[ACTION_POLLFDS];
	sigset_t set;
	int steps = 0;

	action_wake_on_exit();
	sigprocmask(SIG_SETMASK, NULL, &set);
	tap_ok(sigismember(&set, SIGCHLD), "SIGCHLD blocked outside the poll");
	if ((a = start("exec >&- 2>&-; sleep 0.3", "wake on exit")) == NULL)
		return;
	tap_ok(action_timeout(a, action_now_ms()) > 1000,
	    "the wait is the deadline's, no short poll for the exit");
	while (!action_step(a, action_now_ms()) && steps++ < 1000)
		action_poll(pfd, action_pollfds(a, pfd, ACTION_POLLFDS),
		    action_timeout(a, action_now_ms()));
	tap_ok(steps <= 4, "pipes closed, then the exit: woken by it");
	action_result(a, &res);
	tap_is_int(res.status, ACTION_OK, "woken by the exit: OK");
	action_free(a);
}

#define CKPT_EXC "org.apache.flink.runtime.checkpoint.CheckpointException"

/* The stored trace of each way an action fails, and its one line. */
static const struct cause_case {
	int line;
	const char *class, *trace, *want;
} cause_cases[] = {
	{ __LINE__, CKPT_EXC,
	    CKPT_EXC ": Checkpoint was declined. disk full\n"
		     "\tat checkpoint action (it exited with status 3)\n",
	    "disk full (exited with status 3)" },
	/* The last line of stderr is the cause; earlier ones are context. */
	{ __LINE__, CKPT_EXC,
	    CKPT_EXC ": Checkpoint was declined. copying\n"
		     "rsync: write failed: No space left\n"
		     "\tat checkpoint action (it exited with status 23)\n",
	    "rsync: write failed: No space left (exited with status 23)" },
	{ __LINE__, CKPT_EXC,
	    CKPT_EXC ": Checkpoint expired before completing.\n"
		     "\tat checkpoint action (killed after its timeout of 1 "
		     "s)\n",
	    "killed after its timeout of 1 s" },
	{ __LINE__, CKPT_EXC,
	    CKPT_EXC ": Checkpoint was declined. The checkpoint action "
		     "failed.\n\tat checkpoint action (it was killed by "
		     "signal 9)\n",
	    "was killed by signal 9" },
	{ __LINE__, CKPT_EXC,
	    CKPT_EXC ": Checkpoint was declined. no such bucket\n"
		     "\tat savepoint action (it exited with status 1)\n",
	    "no such bucket (exited with status 1)" },
	/* Flink's own: its words are the cause; its frames are not. */
	{ __LINE__, CKPT_EXC,
	    CKPT_EXC ": Checkpoint expired before completing.\n"
		     "\tat org.apache.flink.runtime.checkpoint."
		     "CheckpointCoordinator.lambda$0(Unknown Source)\n",
	    "Checkpoint expired before completing." },
	{ __LINE__, "java.util.concurrent.CompletionException",
	    "java.util.concurrent.CompletionException: "
	    "org.apache.flink.runtime.messages.FlinkJobNotFoundException: "
	    "Could not find Flink job (0123)",
	    "Could not find Flink job (0123)" },
	/* A savepoint's: the same, inside the scheduler's CompletionException. */
	{ __LINE__, "java.util.concurrent.CompletionException",
	    "java.util.concurrent.CompletionException: " CKPT_EXC
	    ": Checkpoint was declined. no such bucket\n"
	    "Caused by: " CKPT_EXC ": Checkpoint was declined. no such bucket\n"
	    "\tat savepoint action (it exited with status 1)\n",
	    "no such bucket (exited with status 1)" },
	{ __LINE__, "java.util.concurrent.CompletionException",
	    "java.util.concurrent.CompletionException: "
	    "org.apache.flink.runtime.messages.FlinkJobNotFoundException: "
	    "Could not find Flink job (0123)\nCaused by: "
	    "org.apache.flink.runtime.messages.FlinkJobNotFoundException: "
	    "Could not find Flink job (0123)\n",
	    "Could not find Flink job (0123)" },
	{ __LINE__, "java.lang.IllegalStateException", NULL,
	    "java.lang.IllegalStateException" },
	{ __LINE__, NULL, NULL, "" },
};

static void
test_failure_cause(void)
{
	char out[512];
	size_t i;

	for (i = 0; i < sizeof(cause_cases) / sizeof(cause_cases[0]); i++) {
		const struct cause_case *c = &cause_cases[i];

		ckpt_failure_cause(c->class, c->trace, out, sizeof(out));
		tap_is_str_at(__FILE__, c->line, out, c->want,
		    "failure cause, line %d", c->line);
	}
}

int
main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* A runner ignores SIGPIPE; so do we, as the command must not care. */
	signal(SIGPIPE, SIG_IGN);
	test_exit_status();
	test_last_line();
	test_err_tail();
	test_environment();
	test_stdin();
	test_process_group();
	test_timeout();
	test_leftovers();
	test_step_api();
	test_watchdog_shares();
	test_wake_on_exit();
	test_failure_cause();
	return tap_done();
}
