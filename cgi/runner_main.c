/*
 * checkpoint-runner: advances triggers from IN_PROGRESS to COMPLETED.
 * By default one pass over everything pending, then exit (for cron and
 * systemd timers); with --watch it keeps running and wakes up when the
 * database changes.  Any number may run at once.  See checkpoint-runner(8).
 */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "action.h"
#include "commands.h"
#include "log.h"
#include "runner.h"
#include "schedule.h"
#include "settings.h"

/* Exit statuses, as checkpoint-runner(8) lists them. */
#define EXIT_OK 0 /* work done, or nothing to do */
#define EXIT_PASS 1 /* a pass could not finish (database busy or failing) */
#define EXIT_USAGE 2 /* bad options or settings */
#define EXIT_DB 3 /* the database cannot be opened or is too new */

#define WATCH_IDLE_PASS_MS 5000 /* a pass even without news: leases */
#define WATCH_HOT_STEP_MS 2 /* after a wake-up, look again this often */
#define WATCH_HOT_STEPS 50 /* for this many steps */

static volatile sig_atomic_t quit;
/* The signal that stopped the watch, and who sent it: said in the log. */
static volatile sig_atomic_t quit_sig, quit_from;
static struct runner *runner; /* what the passes owe the store */

static void
on_signal(int sig, siginfo_t *si, void *ctx)
{
	(void)ctx;
	if (!quit) {
		quit_sig = sig;
		quit_from = si != NULL ? (sig_atomic_t)si->si_pid : 0;
	}
	quit = 1;
}

/*
 * "stopped by SIGTERM from pid 42 (sh)": a stop nobody asked for at the
 * terminal names its sender, which ps then finds.
 */
static void
log_stopped(void)
{
	char path[64], comm[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/comm", (long)quit_from);
	if (quit_from > 0 && (f = fopen(path, "r")) != NULL) {
		if (fgets(comm, sizeof(comm), f) != NULL)
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}
	if (quit_sig == 0)
		log_info("stopped");
	else if (quit_from > 0)
		log_info("stopped by %s from pid %ld%s%s%s",
		    quit_sig == SIGINT ? "SIGINT" : "SIGTERM", (long)quit_from,
		    *comm ? " (" : "", comm, *comm ? ")" : "");
	else
		log_info("stopped by %s",
		    quit_sig == SIGINT ? "SIGINT" : "SIGTERM");
}

static void
usage(void)
{
	fprintf(stderr,
	    "usage: checkpoint-runner [--watch] [--stats] "
	    "[--syslog] [--db path]\n"
	    "                         [--parallel n] [--batch n] "
	    "[--log-level level]\n"
	    "                         [--allow-root]\n");
	exit(EXIT_USAGE);
}

static void
print_stats(const struct runner_stats *st)
{
	printf("{\"completed\":%lld,\"failed\":%lld,\"stale\":%lld,"
	       "\"purged\":%lld,\"actions\":%lld,\"transactions\":%lld,"
	       "\"duration_ms\":%lld,\"scheduled\":%lld,"
	       "\"schedule_transactions\":%lld}\n",
	    (long long)st->completed, (long long)st->failed,
	    (long long)st->stale, (long long)st->purged, (long long)st->actions,
	    (long long)st->transactions, (long long)st->duration_ms,
	    (long long)st->scheduled, (long long)st->schedule_transactions);
	fflush(stdout);
}

/*
 * Sleeps until the store's descriptor is readable (it reads it itself,
 * in store_data_version), a signal, or timeout_ms.  Returns 1 if it
 * was.  Without one it polls.
 */
static int
watch_wait(int fd, int timeout_ms)
{
	struct pollfd pfd;

	if (fd == -1) {
		poll(NULL, 0, timeout_ms < 20 ? timeout_ms : 20);
		return 1;
	}
	pfd.fd = fd;
	pfd.events = POLLIN;
	return poll(&pfd, 1, timeout_ms) > 0;
}

/* Sleeps ms, or until a signal. */
static void
pause_ms(int ms)
{
	poll(NULL, 0, ms);
}

/* Opens the store; a failure is logged unless quiet names its kind. */
static enum store_rc
open_store_quiet(const struct settings *st, struct store **s, int64_t cache_kib,
    enum store_rc quiet)
{
	struct store_opts so;
	enum store_rc rc;
	char err[512];

	settings_store_opts(st, cache_kib, &so);
	if ((rc = store_open(&so, s, err, sizeof(err))) != STORE_OK &&
	    rc != quiet)
		log_error("%s", err);
	return rc;
}

static enum store_rc
open_store(const struct settings *st, struct store **s, int64_t cache_kib)
{
	return open_store_quiet(st, s, cache_kib, STORE_OK);
}

/*
 * A watcher's open, the first as any later one: tried again each second,
 * for a server still starting, or a database a deployment has not made
 * yet (checkpointctl init; said once, never made here), until it opens
 * or a signal stops the runner (*s NULL).  A database made by a newer
 * version does not come right by waiting: -1.
 */
static int
open_waiting(const struct settings *st, struct store **s)
{
	enum store_rc rc, quiet = STORE_OK;

	while ((rc = open_store_quiet(st, s, 64 * 1024, quiet)) != STORE_OK) {
		if (rc == STORE_NEWER)
			return -1;
		if (rc == STORE_MISSING)
			quiet = rc;
		if (quit)
			return 0;
		pause_ms(1000);
	}
	return 0;
}

/* What the command line asks for besides the runner's options. */
struct cmdline {
	char *db; /* --db, a copy; NULL: CHECKPOINT_DB */
	enum log_level lvl;
	int watch, want_stats, use_syslog, allow_root;
};

/* optarg as a number of lo to hi, or the usage after saying why. */
static int64_t
opt_number(const char *name, int64_t lo, int64_t hi)
{
	int64_t n;

	if (settings_parse_int(optarg, lo, hi, &n) == -1) {
		fprintf(stderr,
		    "checkpoint-runner: %s %s: expected %lld to %lld\n", name,
		    optarg, (long long)lo, (long long)hi);
		usage();
	}
	return n;
}

/* Takes option ch (of getopt_long) and its optarg. */
static void
take_option(int ch, struct runner_opts *ro, struct cmdline *cl)
{
	switch (ch) {
	case 'b':
		ro->batch = (size_t)opt_number("--batch", 1, 100000);
		break;
	case 'D':
		/* Kept, and hidden from ps: a URI's password. */
		free(cl->db); /* the last --db counts */
		if ((cl->db = strdup(optarg)) == NULL) {
			log_error("out of memory");
			exit(EXIT_USAGE);
		}
		store_hide_password(optarg);
		break;
	case 'l':
		if (log_level_parse(optarg, &cl->lvl) == -1) {
			fprintf(stderr,
			    "checkpoint-runner: --log-level %s: expected "
			    "error, warn, info or debug\n",
			    optarg);
			usage();
		}
		break;
	case 'p':
		ro->parallel = (size_t)opt_number("--parallel", 1, 63);
		break;
	case 'R':
		cl->allow_root = 1;
		break;
	case 'S':
		cl->want_stats = 1;
		break;
	case 'L':
		cl->use_syslog = 1;
		break;
	case 'V':
		puts(PACKAGE_STRING);
		exit(EXIT_OK);
	case 'w':
		cl->watch = 1;
		break;
	default:
		usage();
	}
}

/* Reads argv into ro and cl; exits on --version and on a bad option. */
static void
parse_options(int argc, char *argv[], struct runner_opts *ro,
    struct cmdline *cl)
{
	static const struct option longopts[] = {
		{ "allow-root", no_argument, NULL, 'R' },
		{ "batch", required_argument, NULL, 'b' },
		{ "db", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ "log-level", required_argument, NULL, 'l' },
		{ "parallel", required_argument, NULL, 'p' },
		{ "stats", no_argument, NULL, 'S' },
		{ "syslog", no_argument, NULL, 'L' },
		{ "version", no_argument, NULL, 'V' },
		{ "watch", no_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 },
	};
	long ncpu;
	int ch;

	memset(ro, 0, sizeof(*ro));
	memset(cl, 0, sizeof(*cl));
	cl->lvl = LOG_LVL_INFO;
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	ro->parallel = ncpu > 0 ? (size_t)ncpu : 1;
	ro->batch = 5000;
	while ((ch = getopt_long(argc, argv, "hV", longopts, NULL)) != -1)
		take_option(ch, ro, cl);
	if (optind != argc)
		usage();
	if (ro->parallel > 63)
		ro->parallel = 63;
}

/*
 * -1, said in one line, for root unless --allow-root: every job's command
 * would run as root, and any writer of the database (on SQLite the web
 * server's user) could then own the host.
 */
static int
refuse_root(const struct cmdline *cl)
{
	if (geteuid() != 0 || cl->allow_root)
		return 0;
	log_error("refusing to run as root, which would run every job's "
		  "command as root: run as the service's user (checkpointctl "
		  "setup), or pass --allow-root");
	return -1;
}

/*
 * -1, said in one line, for a commands file the runner cannot trust or
 * find; without one, a watcher warns at its start that the database alone
 * decides what runs (a pass from cron would say it every minute: doctor
 * says it there).
 */
static int
check_commands(const struct settings *st, int watch)
{
	char err[512];

	if (st->commands == NULL) {
		if (!watch)
			return 0;
		log_warn("CHECKPOINT_COMMANDS is not set: the database alone "
			 "decides what runs, and whoever can write it (on "
			 "SQLite the web server's user) can change a job's "
			 "command");
		return 0;
	}
	if (commands_trusted(st->commands, err, sizeof(err)) == -1) {
		log_error("CHECKPOINT_COMMANDS: %s", err);
		return -1;
	}
	return 0;
}

/*
 * One pass over everything pending; closes s.  Results that could not be
 * recorded (the database went away while their actions ran), and claims
 * whose commit failed but may have been made, are tried again on a store
 * opened again, once a second, while their leases last: a claim found
 * made has its command run then, rather than left to expire.  Returns
 * the exit status.
 */
static int
run_once(struct store *s, const struct settings *st,
    const struct runner_opts *ro, int want_stats)
{
	struct runner_stats stats;
	int rc = EXIT_OK;

	memset(&stats, 0, sizeof(stats));
	if (runner_pass(runner, s, ro, &stats, &quit) == -1)
		rc = EXIT_PASS;
	while (runner_unsettled(runner) > 0 && !quit) {
		log_warn("%zu results not recorded or claims in doubt yet; "
			 "trying again",
		    runner_unsettled(runner));
		pause_ms(1000);
		store_close(s);
		if (open_store(st, &s, 64 * 1024) != STORE_OK)
			continue;
		if (runner_pass(runner, s, ro, &stats, &quit) == -1)
			rc = EXIT_PASS;
		else if (runner_unsettled(runner) == 0)
			rc = EXIT_OK;
	}
	if (s != NULL)
		store_housekeeping(s);
	if (want_stats)
		print_stats(&stats);
	store_close(s);
	return rc;
}

/*
 * Sleeps until another process commits, or a while passes.  The watch
 * may wake us before the commit is visible (a writer's sync may follow
 * the write the watch saw), so after a wake-up the data version
 * is looked at again every few milliseconds for a short while before
 * sleeping long.  It wakes for the next slot of a schedule too.
 */
static void
watch_sleep(struct store *s, int wfd, int64_t seen, int64_t slot_ms)
{
	int64_t version, last_pass;
	int hot = 0;

	/*
	 * News that came during the pass may already be read off the
	 * descriptor (PostgreSQL's notifications, taken in by the pass's
	 * own store_data_version): no wait for it to be readable again.
	 */
	if (store_data_version(s, &version) != STORE_OK || version != seen)
		return;
	for (last_pass = 0; !quit && last_pass < WATCH_IDLE_PASS_MS;) {
		if (watch_wait(wfd, hot > 0 ? WATCH_HOT_STEP_MS : 1000))
			hot = WATCH_HOT_STEPS;
		else if (hot > 0)
			hot--;
		last_pass += hot > 0 ? WATCH_HOT_STEP_MS : 1000;
		if (store_data_version(s, &version) != STORE_OK ||
		    version != seen || store_moved(s))
			break;
		/* A schedule's next slot: on the second, not a minute on. */
		if (slot_ms > 0 && schedule_now() >= slot_ms)
			break;
	}
}

/* A pass each time the database changes, until a signal. */
static int
watch(const struct settings *st, const struct runner_opts *ro, int want_stats)
{
	struct runner_stats stats;
	struct store *s = NULL;
	int64_t seen;
	int wfd;

	if (open_waiting(st, &s) == -1)
		return EXIT_DB;
	if (s == NULL)
		return EXIT_OK;
	log_info("watching %s", st->db_shown);
	wfd = store_watch_fd(s);
	seen = 0;
	while (!quit) {
		/*
		 * A database that fails, or a file replaced under the same
		 * name (restored from a backup, say), is opened again.
		 */
		if (store_moved(s) ||
		    store_data_version(s, &seen) != STORE_OK) {
			log_warn("%s: changed or failing; opening it again",
			    st->db_shown);
			store_close(s);
			s = NULL;
			if (open_waiting(st, &s) == -1)
				return EXIT_DB;
			if (s == NULL)
				break;
			wfd = store_watch_fd(s);
			continue;
		}
		memset(&stats, 0, sizeof(stats));
		if (runner_pass(runner, s, ro, &stats, &quit) == -1)
			log_warn("pass did not finish; trying again");
		store_housekeeping(s);
		if (want_stats &&
		    (stats.completed || stats.failed || stats.stale ||
			stats.purged))
			print_stats(&stats);
		/*
		 * Results to record, claims in doubt: look again soon, not
		 * on news.
		 */
		if (runner_unsettled(runner) > 0)
			pause_ms(1000);
		else
			watch_sleep(s, wfd, seen, stats.next_slot_ms);
	}
	store_close(s);
	log_stopped();
	return EXIT_OK;
}

/* SIGTERM and SIGINT stop the runner (quit); SIGPIPE is ignored. */
static void
catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* An action's end wakes the pass (and an ignored SIGCHLD is undone). */
	action_wake_on_exit();
}

int
main(int argc, char *argv[])
{
	struct settings st;
	struct runner_opts ro;
	struct cmdline cl;
	struct store *s;
	char owner[300], err[256];
	int ret = EXIT_USAGE;

	parse_options(argc, argv, &ro, &cl);
	/* Without --syslog, syslog still where stderr is lost (log.h). */
	(void)log_init_dest("checkpoint-runner",
	    cl.use_syslog ? "syslog" : NULL, cl.lvl, err, sizeof(err));
	store_init();
	if (refuse_root(&cl) == -1)
		goto out;
	if (settings_from_env(&st, cl.db, err, sizeof(err)) == -1) {
		log_error("%s", err);
		goto out;
	}
	ro.store_ms = st.store_ms;
	ro.history_keep = st.history_keep;
	ro.history_age_ms = st.history_age_ms;
	ro.max_queued = st.max_queued;
	if (check_commands(&st, cl.watch) == -1)
		goto out;
	ro.commands = st.commands;
	ro.savepoint_root = st.savepoint_root;
	ro.watching = cl.watch;
	if (runner_owner(owner, sizeof(owner)) == -1) {
		log_error("cannot name this runner");
		goto out;
	}
	ro.owner = owner;
	if ((runner = runner_new()) == NULL) {
		log_error("out of memory");
		goto out;
	}

	umask(007);
	catch_signals();
	/* A large page cache: batches over large queues stay in memory. */
	if (cl.watch)
		ret = watch(&st, &ro, cl.want_stats);
	else if (open_store(&st, &s, 64 * 1024) != STORE_OK)
		ret = EXIT_DB;
	else
		ret = run_once(s, &st, &ro, cl.want_stats);
out:
	runner_free(runner);
	free(cl.db);
	return ret;
}
