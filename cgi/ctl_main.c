/*
 * checkpointctl: the operator's tool.  It creates or migrates the database,
 * registers and changes jobs, lists recent triggers, purges expired
 * results and copies one database into another (checkpointctl(8)).
 *
 * Every command is checked in full before the database is opened, and then
 * does exactly one store operation, so that a mistake on the command line
 * never leaves anything half-done on disk (nor creates a database).  Every
 * error is one line on stderr: exit 2 for a command line we cannot use,
 * 1 for anything else.
 */
#include <config.h>

#include <errno.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "checkpoint.h"
#include "clock.h"
#include "commands.h"
#include "ctl_setup.h"
#include "ids.h"
#include "log.h"
#include "retention.h"
#include "schedule.h"
#include "settings.h"
#include "sppath.h"
#include "store.h"

#define CTL_PROG "checkpointctl"
#define CTL_EXIT_FAIL 1
#define CTL_EXIT_USAGE 2

#define CTL_TIMEOUT_DEFAULT 600 /* as the jobs table's default */
#define CTL_TIMEOUT_MAX 31536000 /* one year, in seconds */
#define CTL_LIMIT_DEFAULT 20
#define CTL_LIMIT_MAX 1000000

/* Options that take a value; -h and -V are handled apart. */
enum ctl_opt {
	CTL_OPT_DB,
	CTL_OPT_NAME,
	CTL_OPT_STATE,
	CTL_OPT_TYPE,
	CTL_OPT_COMMAND,
	CTL_OPT_TIMEOUT,
	CTL_OPT_JOB,
	CTL_OPT_LIMIT,
	CTL_OPT_FROM,
	CTL_OPT_TO,
	CTL_OPT_USER,
	CTL_OPT_GROUP,
	CTL_OPT_WEB_USER,
	CTL_OPT_RUN_DIR,
	CTL_OPT_FLINK,
	CTL_OPT_SAVEPOINT_DIR,
	CTL_OPT_SAVEPOINT_COMMAND,
	CTL_OPT_STOP_COMMAND,
	CTL_OPT_DISPOSE_COMMAND,
	CTL_OPT_BOOKKEEPING_ONLY,
	CTL_OPT_EVERY,
	CTL_OPT_CRON,
	CTL_OPT_SAVEPOINT_EVERY,
	CTL_OPT_SAVEPOINT_CRON,
	CTL_OPT_KEEP_SAVEPOINTS,
	CTL_OPT_KEEP_SAVEPOINTS_FOR,
	CTL_OPT_KEEP_CHECKPOINTS,
	CTL_OPT_KEEP_CHECKPOINTS_FOR,
	CTL_OPT_RUNNER_ROLE,
	CTL_OPT_WEB_ROLE,
	CTL_OPT_PGPASS_DIR,
	CTL_OPT_DRY_RUN, /* a flag: takes no value */
	CTL_OPT__MAX
};

static const char *const ctl_opt_names[CTL_OPT__MAX] = {
	[CTL_OPT_DB] = "db",
	[CTL_OPT_NAME] = "name",
	[CTL_OPT_STATE] = "state",
	[CTL_OPT_TYPE] = "type",
	[CTL_OPT_COMMAND] = "command",
	[CTL_OPT_TIMEOUT] = "timeout",
	[CTL_OPT_JOB] = "job",
	[CTL_OPT_LIMIT] = "limit",
	[CTL_OPT_FROM] = "from",
	[CTL_OPT_TO] = "to",
	[CTL_OPT_USER] = "user",
	[CTL_OPT_GROUP] = "group",
	[CTL_OPT_WEB_USER] = "web-user",
	[CTL_OPT_RUN_DIR] = "run-dir",
	[CTL_OPT_FLINK] = "flink",
	[CTL_OPT_SAVEPOINT_DIR] = "savepoint-dir",
	[CTL_OPT_SAVEPOINT_COMMAND] = "savepoint-command",
	[CTL_OPT_STOP_COMMAND] = "stop-command",
	[CTL_OPT_DISPOSE_COMMAND] = "dispose-command",
	[CTL_OPT_BOOKKEEPING_ONLY] = "bookkeeping-only",
	[CTL_OPT_EVERY] = "every",
	[CTL_OPT_CRON] = "cron",
	[CTL_OPT_SAVEPOINT_EVERY] = "savepoint-every",
	[CTL_OPT_SAVEPOINT_CRON] = "savepoint-cron",
	[CTL_OPT_KEEP_SAVEPOINTS] = "keep-savepoints",
	[CTL_OPT_KEEP_SAVEPOINTS_FOR] = "keep-savepoints-for",
	[CTL_OPT_KEEP_CHECKPOINTS] = "keep-checkpoints",
	[CTL_OPT_KEEP_CHECKPOINTS_FOR] = "keep-checkpoints-for",
	[CTL_OPT_RUNNER_ROLE] = "runner-role",
	[CTL_OPT_WEB_ROLE] = "web-role",
	[CTL_OPT_PGPASS_DIR] = "pgpass-dir",
	[CTL_OPT_DRY_RUN] = "dry-run",
};

#define CTL_BIT(o) (1u << (o))
#define CTL_JOB_FIELDS \
	(CTL_BIT(CTL_OPT_NAME) | CTL_BIT(CTL_OPT_TYPE) | \
	    CTL_BIT(CTL_OPT_COMMAND) | CTL_BIT(CTL_OPT_TIMEOUT) | \
	    CTL_BIT(CTL_OPT_FLINK) | CTL_BIT(CTL_OPT_SAVEPOINT_DIR) | \
	    CTL_BIT(CTL_OPT_SAVEPOINT_COMMAND) | \
	    CTL_BIT(CTL_OPT_STOP_COMMAND) | CTL_BIT(CTL_OPT_DISPOSE_COMMAND) | \
	    CTL_BIT(CTL_OPT_BOOKKEEPING_ONLY))

/* The most words any command has ("savepoint keep JOBID ID"), and one more. */
#define CTL_MAXWORDS 5

/* The command line, split into words and option values (argv's strings). */
struct ctl_args {
	const char *opt[CTL_OPT__MAX]; /* NULL: not given */
	char *db_arg; /* --db's value where argv holds it, or NULL */
	const char *word[CTL_MAXWORDS];
	int nwords;
	const char *operand; /* the word after the command, or NULL */
	const char *operand2; /* the one after it, for two operands */
	int help;
	int version;
};

struct ctl {
	struct settings st;
	struct store *store; /* opened by ctl_open, once */
};

struct ctl_cmd {
	const char *title; /* the words that name it */
	const char *synopsis; /* what follows the title in usage */
	int operands; /* 0, 1 for JOBID, 2 for JOBID ID */
	unsigned opts; /* CTL_BIT()s it takes besides --db */
	int (*run)(struct ctl *, const struct ctl_args *);
};

/*
 * A table printed with its columns aligned, built from rows that the store
 * hands over one at a time (and whose strings do not outlive the callback).
 */
#define CTL_TABLE_MAXCOLS 12

struct ctl_table {
	size_t ncols;
	size_t width[CTL_TABLE_MAXCOLS];
	char **cell; /* row-major; owned */
	size_t n;
	size_t cap;
	int oom;
};

static void ctl_table_addf(struct ctl_table *, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int ctl_init(struct ctl *, const struct ctl_args *);
static int ctl_job_add(struct ctl *, const struct ctl_args *);
static int ctl_job_set(struct ctl *, const struct ctl_args *);
static int ctl_job_rm(struct ctl *, const struct ctl_args *);
static int ctl_job_list(struct ctl *, const struct ctl_args *);
static int ctl_triggers(struct ctl *, const struct ctl_args *);
static int ctl_savepoints(struct ctl *, const struct ctl_args *);
static int ctl_schedules(struct ctl *, const struct ctl_args *);
static int ctl_savepoint_keep(struct ctl *, const struct ctl_args *);
static int ctl_retention(struct ctl *, const struct ctl_args *);
struct ctl_sched;
static enum store_rc ctl_schedule_write(struct store *, const struct id *,
    const struct ctl_sched *);
static int ctl_purge(struct ctl *, const struct ctl_args *);
static int ctl_migrate(struct ctl *, const struct ctl_args *);
static int ctl_setup_cmd(struct ctl *, const struct ctl_args *);
static int ctl_doctor_cmd(struct ctl *, const struct ctl_args *);

#define CTL_SCHEDULE_OPTS \
	(CTL_BIT(CTL_OPT_EVERY) | CTL_BIT(CTL_OPT_CRON) | \
	    CTL_BIT(CTL_OPT_SAVEPOINT_EVERY) | \
	    CTL_BIT(CTL_OPT_SAVEPOINT_CRON) | \
	    CTL_BIT(CTL_OPT_KEEP_SAVEPOINTS) | \
	    CTL_BIT(CTL_OPT_KEEP_SAVEPOINTS_FOR) | \
	    CTL_BIT(CTL_OPT_KEEP_CHECKPOINTS) | \
	    CTL_BIT(CTL_OPT_KEEP_CHECKPOINTS_FOR))

#define CTL_DEPLOY_OPTS \
	(CTL_BIT(CTL_OPT_USER) | CTL_BIT(CTL_OPT_GROUP) | \
	    CTL_BIT(CTL_OPT_WEB_USER) | CTL_BIT(CTL_OPT_RUN_DIR))

static const struct ctl_cmd ctl_cmds[] = {
	{ "setup",
	    "[--user USER] [--group GROUP] [--web-user USER]\n"
	    "\t    [--run-dir DIR]",
	    0, CTL_DEPLOY_OPTS, ctl_setup_cmd },
	{ "init", "[--group GROUP]", 0, CTL_BIT(CTL_OPT_GROUP), ctl_init },
	{ "doctor",
	    "[--user USER] [--group GROUP] [--web-user USER]\n"
	    "\t    [--run-dir DIR] [--runner-role ROLE] [--web-role ROLE]\n"
	    "\t    [--pgpass-dir DIR]",
	    0,
	    CTL_DEPLOY_OPTS | CTL_BIT(CTL_OPT_RUNNER_ROLE) |
		CTL_BIT(CTL_OPT_WEB_ROLE) | CTL_BIT(CTL_OPT_PGPASS_DIR),
	    ctl_doctor_cmd },
	{ "job add",
	    "JOBID [--name NAME] [--type FULL|INCREMENTAL]\n"
	    "\t    [--command CMD] [--timeout SECONDS] [--flink URL]\n"
	    "\t    [--savepoint-dir DIR] [--savepoint-command CMD]\n"
	    "\t    [--stop-command CMD] [--dispose-command CMD]\n"
	    "\t    [--bookkeeping-only yes|no]\n"
	    "\t    [--every INTERVAL] [--cron 'M H DOM MON DOW']\n"
	    "\t    [--savepoint-every INTERVAL]\n"
	    "\t    [--savepoint-cron 'M H DOM MON DOW']\n"
	    "\t    [--keep-savepoints N] [--keep-savepoints-for AGE]\n"
	    "\t    [--keep-checkpoints N] [--keep-checkpoints-for AGE]",
	    1, CTL_JOB_FIELDS | CTL_SCHEDULE_OPTS, ctl_job_add },
	{ "job set",
	    "JOBID [--state STATE] [--name NAME] [--type TYPE]\n"
	    "\t    [--command CMD] [--timeout SECONDS] [--flink URL|none]\n"
	    "\t    [--savepoint-dir DIR] [--savepoint-command CMD]\n"
	    "\t    [--stop-command CMD] [--dispose-command CMD]\n"
	    "\t    [--bookkeeping-only yes|no]\n"
	    "\t    [--every INTERVAL|none] [--cron 'M H DOM MON DOW'|none]\n"
	    "\t    [--savepoint-every INTERVAL|none]\n"
	    "\t    [--savepoint-cron 'M H DOM MON DOW'|none]\n"
	    "\t    [--keep-savepoints N|none] [--keep-savepoints-for AGE|none]\n"
	    "\t    [--keep-checkpoints N|none] [--keep-checkpoints-for AGE|none]",
	    1, CTL_JOB_FIELDS | CTL_BIT(CTL_OPT_STATE) | CTL_SCHEDULE_OPTS,
	    ctl_job_set },
	{ "job rm", "JOBID", 1, 0, ctl_job_rm },
	{ "job list", "", 0, 0, ctl_job_list },
	{ "triggers", "[--job JOBID] [--limit N]", 0,
	    CTL_BIT(CTL_OPT_JOB) | CTL_BIT(CTL_OPT_LIMIT), ctl_triggers },
	{ "savepoints", "[--job JOBID]", 0, CTL_BIT(CTL_OPT_JOB),
	    ctl_savepoints },
	{ "schedules", "[--job JOBID]", 0, CTL_BIT(CTL_OPT_JOB),
	    ctl_schedules },
	{ "savepoint keep", "JOBID ID", 2, 0, ctl_savepoint_keep },
	{ "savepoint unkeep", "JOBID ID", 2, 0, ctl_savepoint_keep },
	{ "retention", "[--job JOBID] [--dry-run]", 0,
	    CTL_BIT(CTL_OPT_JOB) | CTL_BIT(CTL_OPT_DRY_RUN), ctl_retention },
	{ "purge", "", 0, 0, ctl_purge },
	{ "migrate", "--from SRC --to DST", 0,
	    CTL_BIT(CTL_OPT_FROM) | CTL_BIT(CTL_OPT_TO), ctl_migrate },
};

#define CTL_NCMDS (sizeof(ctl_cmds) / sizeof(ctl_cmds[0]))

/* One line on stderr, the program's name first (ctl_setup.h). */
void
ctl_err(const char *fmt, ...)
{
	va_list ap;

	fputs(CTL_PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void
ctl_usage(FILE *fp)
{
	size_t i;

	fprintf(fp,
	    "usage: %s [--db PATH] command [argument ...]\n"
	    "       %s -h | -V\n"
	    "commands:\n",
	    CTL_PROG, CTL_PROG);
	for (i = 0; i < CTL_NCMDS; i++)
		fprintf(fp, "\t%s%s%s\n", ctl_cmds[i].title,
		    *ctl_cmds[i].synopsis != '\0' ? " " : "",
		    ctl_cmds[i].synopsis);
}

/* --- The command line. --- */

/* The option "--name" or "--name=value" in arg, or -1; *len: up to '='. */
static int
ctl_opt_find(const char *arg, size_t *len)
{
	int o;

	if (strncmp(arg, "--", 2) != 0)
		return -1;
	*len = strcspn(arg, "=");
	for (o = 0; o < CTL_OPT__MAX; o++)
		if (strlen(ctl_opt_names[o]) == *len - 2 &&
		    strncmp(arg + 2, ctl_opt_names[o], *len - 2) == 0)
			return o;
	return -1;
}

/*
 * Options may come anywhere (before the command, as getopt would want, or
 * after it, as operators type them); an option's value is the next word
 * whatever it looks like, and "--" ends the options.
 */
static int
ctl_parse(int argc, char *argv[], struct ctl_args *a)
{
	const char *arg;
	size_t len;
	int i, o, words_only = 0;

	memset(a, 0, sizeof(*a));
	for (i = 1; i < argc; i++) {
		arg = argv[i];
		if (words_only || arg[0] != '-' || arg[1] == '\0') {
			/*
			 * Words past these are never looked at: one too
			 * many already makes the command line wrong.
			 */
			if (a->nwords < CTL_MAXWORDS)
				a->word[a->nwords++] = arg;
		} else if (strcmp(arg, "--") == 0)
			words_only = 1;
		else if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0)
			a->help = 1;
		else if (strcmp(arg, "-V") == 0 ||
		    strcmp(arg, "--version") == 0)
			a->version = 1;
		else if ((o = ctl_opt_find(arg, &len)) == -1) {
			ctl_err("unknown option %.64s; see %s -h", arg,
			    CTL_PROG);
			return -1;
		} else if (o == CTL_OPT_DRY_RUN && arg[len] == '\0')
			a->opt[o] = "";
		else if (arg[len] == '=') {
			a->opt[o] = arg + len + 1;
			if (o == CTL_OPT_DB)
				a->db_arg = argv[i] + len + 1;
		} else if (i + 1 < argc) {
			a->opt[o] = argv[++i];
			if (o == CTL_OPT_DB)
				a->db_arg = argv[i];
		} else {
			ctl_err("option --%s needs a value", ctl_opt_names[o]);
			return -1;
		}
	}
	return 0;
}

/* How many of the words the command's title takes (1 or 2), or 0. */
static int
ctl_cmd_match(const struct ctl_cmd *cmd, const struct ctl_args *a)
{
	size_t len = strlen(a->word[0]);

	/* "job add" is two words, never one quoted. */
	if (strchr(a->word[0], ' ') != NULL ||
	    strncmp(cmd->title, a->word[0], len) != 0)
		return 0;
	if (cmd->title[len] == '\0')
		return 1;
	if (cmd->title[len] == ' ' && a->nwords > 1 &&
	    strcmp(cmd->title + len + 1, a->word[1]) == 0)
		return 2;
	return 0;
}

/*
 * The command the words name, with its operand and options checked against
 * what it takes; NULL (said why) when the command line cannot be used.
 */
static const struct ctl_cmd *
ctl_cmd_find(struct ctl_args *a)
{
	const struct ctl_cmd *cmd = NULL;
	size_t i;
	int used = 0, o;

	for (i = 0; i < CTL_NCMDS && used == 0; i++)
		if ((used = ctl_cmd_match(&ctl_cmds[i], a)) != 0)
			cmd = &ctl_cmds[i];
	if (cmd == NULL) {
		ctl_err("unknown command '%.32s%s%.32s'; see %s -h", a->word[0],
		    a->nwords > 1 ? " " : "", a->nwords > 1 ? a->word[1] : "",
		    CTL_PROG);
		return NULL;
	}
	if (a->nwords - used < cmd->operands) {
		ctl_err("%s: missing %s", cmd->title,
		    a->nwords == used ? "JOBID" : "ID");
		return NULL;
	}
	if (a->nwords - used > cmd->operands) {
		ctl_err("%s: unexpected argument '%.64s'", cmd->title,
		    a->word[used + cmd->operands]);
		return NULL;
	}
	if (cmd->operands > 0)
		a->operand = a->word[used];
	if (cmd->operands > 1)
		a->operand2 = a->word[used + 1];
	for (o = 0; o < CTL_OPT__MAX; o++)
		if (o != CTL_OPT_DB && a->opt[o] != NULL &&
		    (cmd->opts & CTL_BIT(o)) == 0) {
			ctl_err("%s: unknown option --%s", cmd->title,
			    ctl_opt_names[o]);
			return NULL;
		}
	return cmd;
}

/* --- Validators: each says what is wrong in one line. --- */

static int
ctl_parse_id(const char *what, const char *s, struct id *out)
{
	if (id_parse_str(s, out) == -1) {
		ctl_err("bad %s '%.64s': expected 32 hexadecimal characters",
		    what, s);
		return -1;
	}
	return 0;
}

/* A job's own type: CONFIGURED is for requests only (checkpoint.h). */
static int
ctl_parse_type(const char *s, enum ckpt_type *out)
{
	if (ckpt_type_parse(s, out) == -1 || *out == CKPT_CONFIGURED) {
		ctl_err("bad --type '%.64s': expected FULL or INCREMENTAL", s);
		return -1;
	}
	return 0;
}

static int
ctl_parse_state(const char *s, enum job_state *out)
{
	if (job_state_parse(s, out) == -1) {
		ctl_err("bad --state '%.64s': expected RUNNING, FINISHED, "
			"CANCELED, FAILED or SUSPENDED",
		    s);
		return -1;
	}
	return 0;
}

static int
ctl_parse_num(const char *opt, const char *s, int64_t max, int64_t *out)
{
	if (settings_parse_int(s, 1, max, out) == -1) {
		ctl_err("bad --%s '%.64s': expected a whole number from 1 to "
			"%lld",
		    opt, s, (long long)max);
		return -1;
	}
	return 0;
}

/*
 * The job's options whose empty value is none (NULL): its commands and
 * its savepoint directory, each with its kind in the commands file
 * (commands.h).
 */
static const struct {
	int opt, field, kind;
	size_t off;
} ctl_job_strs[] = {
	{ CTL_OPT_COMMAND, JOB_SET_COMMAND, CMD_CHECKPOINT,
	    offsetof(struct job, command) },
	{ CTL_OPT_SAVEPOINT_DIR, JOB_SET_SAVEPOINT_DIR, CMD_SAVEPOINT_DIR,
	    offsetof(struct job, savepoint_dir) },
	{ CTL_OPT_SAVEPOINT_COMMAND, JOB_SET_SAVEPOINT_COMMAND, CMD_SAVEPOINT,
	    offsetof(struct job, savepoint_command) },
	{ CTL_OPT_STOP_COMMAND, JOB_SET_STOP_COMMAND, CMD_STOP,
	    offsetof(struct job, stop_command) },
	{ CTL_OPT_DISPOSE_COMMAND, JOB_SET_DISPOSE_COMMAND, CMD_DISPOSE,
	    offsetof(struct job, dispose_command) },
	/* Not a command, but it decides that none runs: the file says so. */
	{ CTL_OPT_BOOKKEEPING_ONLY, JOB_SET_BOOKKEEPING, CMD_BOOKKEEPING,
	    offsetof(struct job, bookkeeping) },
};
#define CTL_NJOB_STRS (sizeof(ctl_job_strs) / sizeof(ctl_job_strs[0]))

/* The field of j that ctl_job_strs[i] names, to set. */
static const char **
ctl_job_str(struct job *j, size_t i)
{
	return (const char **)(void *)((char *)j + ctl_job_strs[i].off);
}

/* The value of the field of j that ctl_job_strs[i] names. */
static const char *
ctl_job_str_get(const struct job *j, size_t i)
{
	return *(const char *const *)(const void *)((const char *)j +
	    ctl_job_strs[i].off);
}

/*
 * Whether v given for ctl_job_strs[i] means none: empty, or no for
 * --bookkeeping-only (a command may well be "no").
 */
static int
ctl_job_str_none(size_t i, const char *v)
{
	return *v == '\0' ||
	    (ctl_job_strs[i].opt == CTL_OPT_BOOKKEEPING_ONLY &&
		strcmp(v, "no") == 0);
}

/* The options of ctl_job_strs, the savepoint directory checked. */
static int
ctl_job_parse_strs(const struct ctl_args *a, struct job *j, int *fields)
{
	const char *v = a->opt[CTL_OPT_SAVEPOINT_DIR], *why;
	const char *bk = a->opt[CTL_OPT_BOOKKEEPING_ONLY];
	size_t i;

	/* yes, or no: none, as the commands file holds it. */
	if (bk != NULL && strcmp(bk, "yes") != 0 && strcmp(bk, "no") != 0) {
		ctl_err("bad --bookkeeping-only '%.64s': expected yes or no",
		    bk);
		return -1;
	}

	/* The root of the requests' directories: in the form they must be. */
	if (v != NULL && *v != '\0' &&
	    (why = sppath_dir_refused(v, v)) != NULL) {
		ctl_err("bad --savepoint-dir '%.64s': %s", v, why);
		return -1;
	}
	for (i = 0; i < CTL_NJOB_STRS; i++)
		if ((v = a->opt[ctl_job_strs[i].opt]) != NULL) {
			*ctl_job_str(j, i) = ctl_job_str_none(i, v) ? NULL : v;
			*fields |= ctl_job_strs[i].field;
		}
	return 0;
}

/*
 * The job id and whichever job options were given, into j; *fields says
 * which (JOB_SET_*).  An empty --command means none: the schema keeps no
 * empty commands, and a job without one completes at once.
 */
static int
ctl_job_parse(const struct ctl_args *a, struct job *j, int *fields)
{
	const char *v;

	*fields = 0;
	if (ctl_parse_id("job id", a->operand, &j->id) == -1)
		return -1;
	if ((v = a->opt[CTL_OPT_NAME]) != NULL) {
		j->name = v;
		*fields |= JOB_SET_NAME;
	}
	if ((v = a->opt[CTL_OPT_STATE]) != NULL) {
		if (ctl_parse_state(v, &j->state) == -1)
			return -1;
		*fields |= JOB_SET_STATE;
	}
	if ((v = a->opt[CTL_OPT_TYPE]) != NULL) {
		if (ctl_parse_type(v, &j->type) == -1)
			return -1;
		*fields |= JOB_SET_TYPE;
	}
	if ((v = a->opt[CTL_OPT_TIMEOUT]) != NULL) {
		if (ctl_parse_num("timeout", v, CTL_TIMEOUT_MAX,
			&j->timeout_s) == -1)
			return -1;
		*fields |= JOB_SET_TIMEOUT;
	}
	return ctl_job_parse_strs(a, j, fields);
}

/*
 * --flink URL (the JobManager's REST endpoint, http:// or https://) or
 * none, into *url (NULL: none) and *bind (whether it was given).
 */
static int
ctl_flink_parse(const struct ctl_args *a, const char **url, int *bind)
{
	const char *v = a->opt[CTL_OPT_FLINK];

	*url = NULL;
	*bind = v != NULL;
	if (v == NULL || strcmp(v, "none") == 0)
		return 0;
	if ((strncmp(v, "http://", 7) != 0 || v[7] == '\0') &&
	    (strncmp(v, "https://", 8) != 0 || v[8] == '\0')) {
		ctl_err("bad --flink '%.64s': expected the JobManager's REST "
			"endpoint, http://host:port, or none",
		    v);
		return -1;
	}
	*url = v;
	return 0;
}

/* A schedule given on the command line: a rule, or none to clear it. */
struct ctl_sched {
	const char *kind; /* CHECKPOINT, SAVEPOINT */
	int given;
	int64_t every_ms; /* 0: cron or none */
	const char *cron; /* NULL: every_ms or none */
};

/*
 * --every/--cron (checkpoints) and --savepoint-every/--savepoint-cron
 * into sc[0] and sc[1]; at most one rule per kind, "none" clears.
 */
static int
ctl_schedule_parse(const struct ctl_args *a, struct ctl_sched sc[2])
{
	static const int opts[2][2] = { { CTL_OPT_EVERY, CTL_OPT_CRON },
		{ CTL_OPT_SAVEPOINT_EVERY, CTL_OPT_SAVEPOINT_CRON } };
	const char *every, *cron, *why;
	struct cron parsed;
	int k;

	for (k = 0; k < 2; k++) {
		memset(&sc[k], 0, sizeof(sc[k]));
		sc[k].kind = k == 0 ? "CHECKPOINT" : "SAVEPOINT";
		every = a->opt[opts[k][0]];
		cron = a->opt[opts[k][1]];
		if (every != NULL && cron != NULL) {
			ctl_err("give --%s or --%s, not both",
			    ctl_opt_names[opts[k][0]],
			    ctl_opt_names[opts[k][1]]);
			return -1;
		}
		sc[k].given = every != NULL || cron != NULL;
		if (every != NULL && strcmp(every, "none") != 0 &&
		    schedule_parse_every(every, &sc[k].every_ms, &why) == -1) {
			ctl_err("bad --%s '%.64s': %s (e.g. 30s, 10m, 2h, 1d)",
			    ctl_opt_names[opts[k][0]], every, why);
			return -1;
		}
		if (cron != NULL && strcmp(cron, "none") != 0) {
			if (cron_parse(cron, &parsed, &why) == -1) {
				ctl_err("bad --%s '%.64s': %s",
				    ctl_opt_names[opts[k][1]], cron, why);
				return -1;
			}
			sc[k].cron = cron;
		}
	}
	return 0;
}

/* Who sets a schedule: the login name of the user running this. */
static const char *
ctl_caller(void)
{
	struct passwd *pw = getpwuid(getuid());

	return pw != NULL ? pw->pw_name : "unknown";
}

/*
 * A retention policy given on the command line, of a kind: each rule, or
 * none.
 */
struct ctl_retain {
	const char *kind; /* CHECKPOINT, SAVEPOINT */
	int given_last, given_ms;
	int64_t last, ms; /* 0: none */
};

/* --keep-checkpoints[-for] into rt[0], --keep-savepoints[-for] rt[1]. */
static int
ctl_retain_parse(const struct ctl_args *a, struct ctl_retain rt[2])
{
	static const int opts[2][2] = { { CTL_OPT_KEEP_CHECKPOINTS,
					    CTL_OPT_KEEP_CHECKPOINTS_FOR },
		{ CTL_OPT_KEEP_SAVEPOINTS, CTL_OPT_KEEP_SAVEPOINTS_FOR } };
	const char *last, *age, *why;
	int k;

	for (k = 0; k < 2; k++) {
		memset(&rt[k], 0, sizeof(rt[k]));
		rt[k].kind = k == 0 ? "CHECKPOINT" : "SAVEPOINT";
		last = a->opt[opts[k][0]];
		age = a->opt[opts[k][1]];
		rt[k].given_last = last != NULL;
		rt[k].given_ms = age != NULL;
		if (last != NULL && strcmp(last, "none") != 0 &&
		    ctl_parse_num(ctl_opt_names[opts[k][0]], last, 1000000,
			&rt[k].last) == -1)
			return -1;
		if (age != NULL && strcmp(age, "none") != 0 &&
		    schedule_parse_every(age, &rt[k].ms, &why) == -1) {
			ctl_err("bad --%s '%.64s': %s (e.g. 12h, 30d)",
			    ctl_opt_names[opts[k][1]], age, why);
			return -1;
		}
	}
	return 0;
}

/*
 * The rules given, over the job's policy so far; none left clears it.
 * STORE_NOTFOUND: said why.
 */
static enum store_rc
ctl_retain_write(struct store *s, const struct id *job,
    const struct ctl_retain *rt)
{
	int64_t last, ms;
	enum store_rc rc = STORE_OK;
	int k;

	for (k = 0; k < 2 && rc == STORE_OK; k++) {
		if (!rt[k].given_last && !rt[k].given_ms)
			continue;
		last = ms = 0;
		rc = store_retention_get(s, job, rt[k].kind, &last, &ms);
		if (rc != STORE_OK && rc != STORE_NOTFOUND)
			return rc;
		if (rt[k].given_last)
			last = rt[k].last;
		if (rt[k].given_ms)
			ms = rt[k].ms;
		if ((rc = store_retention_set(s, job, rt[k].kind, last, ms,
			 ctl_caller(), clock_ms(CLOCK_REALTIME))) ==
		    STORE_NOTFOUND)
			ctl_err("job %s not found", job->s);
	}
	return rc;
}

/* --- The store. --- */

/*
 * Opens and migrates the database at db, creating it if create says so
 * (init, and migrate's destination); NULL: said why.
 */
static struct store *
ctl_open_db(struct ctl *c, const char *db, int create)
{
	struct store_opts o;
	struct store *s;
	enum store_rc rc;
	char err[512];

	settings_store_opts(&c->st, 0, &o);
	o.path = db;
	o.create = create;
	rc = store_open(&o, &s, err, sizeof(err));
	if (rc == STORE_BUSY)
		ctl_err("database is locked; try again");
	else if (rc != STORE_OK)
		ctl_err("%s", err);
	return s;
}

/* The database of --db or CHECKPOINT_DB, as c->store. */
static struct store *
ctl_open(struct ctl *c)
{
	return c->store = ctl_open_db(c, c->st.db_path, 0);
}

/* The exit status for a store result the command has no word of its own for. */
static int
ctl_store_done(const struct ctl *c, enum store_rc rc, const char *what)
{
	if (rc == STORE_OK)
		return 0;
	if (rc == STORE_BUSY)
		ctl_err("database is locked; try again");
	else if (c->store != NULL && *store_error(c->store) != '\0')
		ctl_err("%s: %s", c->st.db_shown, store_error(c->store));
	else
		ctl_err("%s: %s: %s", c->st.db_shown, what, store_rc_name(rc));
	return CTL_EXIT_FAIL;
}

/* --- Tables. --- */

/* Columns as a terminal shows them: UTF-8 continuation bytes take none. */
static size_t
ctl_width(const char *s)
{
	size_t w = 0;

	for (; *s != '\0'; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

/*
 * Adds the next cell from n bytes of s.  Control characters become '?' so
 * that a name or command with a newline cannot break the table; "-" stands
 * for nothing, so that every row has every column.
 */
static void
ctl_table_addn(struct ctl_table *t, const char *s, size_t n)
{
	char **cell, *p;
	size_t i, col, w;

	if (t->oom)
		return;
	if (s == NULL || n == 0) {
		s = "-";
		n = 1;
	}
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		if ((cell = reallocarray(t->cell, t->cap, sizeof(*cell))) ==
		    NULL) {
			t->oom = 1;
			return;
		}
		t->cell = cell;
	}
	if ((p = malloc(n + 1)) == NULL) {
		t->oom = 1;
		return;
	}
	for (i = 0; i < n; i++)
		p[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
	p[n] = '\0';
	col = t->n % t->ncols;
	if ((w = ctl_width(p)) > t->width[col])
		t->width[col] = w;
	t->cell[t->n++] = p;
}

static void
ctl_table_add(struct ctl_table *t, const char *s)
{
	ctl_table_addn(t, s, s != NULL ? strlen(s) : 0);
}

static void
ctl_table_addf(struct ctl_table *t, const char *fmt, ...)
{
	va_list ap;
	char s[512];
	int n;

	va_start(ap, fmt);
	n = vsnprintf(s, sizeof(s), fmt, ap);
	va_end(ap);
	ctl_table_addn(t, s, n < 0 ? 0 : strnlen(s, sizeof(s)));
}

/* Columns two spaces apart; the last one unpadded. */
static int
ctl_table_print(const struct ctl_table *t)
{
	size_t i, col;

	if (t->oom) {
		ctl_err("out of memory");
		return CTL_EXIT_FAIL;
	}
	for (i = 0; i < t->n; i++) {
		col = i % t->ncols;
		fputs(t->cell[i], stdout);
		if (col + 1 == t->ncols)
			putchar('\n');
		else
			printf("%*s",
			    (int)(t->width[col] - ctl_width(t->cell[i]) + 2),
			    "");
	}
	return 0;
}

static void
ctl_table_free(struct ctl_table *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->cell[i]);
	free(t->cell);
	t->cell = NULL;
	t->n = t->cap = 0;
}

/* Starts a table with its header row; the names' count is its width. */
static void
ctl_table_init(struct ctl_table *t, const char *const *header, size_t ncols)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	/* A table wider than width[] is a bug here, never the user's. */
	if (ncols > CTL_TABLE_MAXCOLS)
		abort();
	t->ncols = ncols;
	for (i = 0; i < ncols; i++)
		ctl_table_add(t, header[i]);
}

/* --- The commands, each: check everything, open, one operation. --- */

static int
ctl_init(struct ctl *c, const struct ctl_args *a)
{
	long gid = -1;

	/* Refused before anything is made: see ctl_share_check. */
	if (store_driver_can(c->st.db_path, STORE_CAN_FILE) &&
	    ctl_share_check(c->st.db_path, a->opt[CTL_OPT_GROUP], &gid) == -1)
		return CTL_EXIT_FAIL;
	if ((c->store = ctl_open_db(c, c->st.db_path, 1)) == NULL ||
	    ctl_share_apply(c->st.db_path, gid) == -1)
		return CTL_EXIT_FAIL;
	printf("%s: schema version %d\n", c->st.db_shown,
	    store_schema_version(c->store));
	return 0;
}

/*
 * Adds job j (fields -1) or sets its fields, and binds it to the
 * JobManager at flink if bind says so, in one transaction.
 */
static enum store_rc
ctl_job_write(struct store *s, const struct job *j, int add, int fields,
    const char *flink, int bind)
{
	int64_t now = clock_ms(CLOCK_REALTIME);
	enum store_rc rc;

	if ((rc = store_begin(s)) != STORE_OK)
		return rc;
	if (add) {
		/* Its savepoint settings are not the add's: set after. */
		rc = store_job_add(s, j, now);
		if (rc == STORE_OK && (fields & JOB_SET_SAVEPOINT) != 0)
			rc = store_job_set(s, j, fields & JOB_SET_SAVEPOINT,
			    now);
	} else if (fields != 0)
		rc = store_job_set(s, j, fields, now);
	if (rc == STORE_OK && bind)
		rc = store_job_flink(s, &j->id, flink, now);
	if (rc == STORE_OK)
		rc = store_commit(s);
	if (rc != STORE_OK)
		store_rollback(s);
	return rc;
}

/* The job fields that are commands, each with its kind. */
#define CTL_COMMAND_FIELDS \
	(JOB_SET_COMMAND | JOB_SET_SAVEPOINT_COMMAND | JOB_SET_STOP_COMMAND | \
	    JOB_SET_DISPOSE_COMMAND | JOB_SET_SAVEPOINT_DIR | \
	    JOB_SET_BOOKKEEPING)

/*
 * With CHECKPOINT_COMMANDS, j's commands and savepoint directory that
 * fields name, and its JobManager flink if bind (NULL: none), into the
 * operator's commands file, after the database: until this succeeds the
 * runner refuses the new ones, and runs nothing else.
 */
static int
ctl_commands_write(const struct ctl *c, const struct job *j, int fields,
    const char *flink, int bind)
{
	const char *cmd[CMD__MAX] = { NULL };
	unsigned which = 0;
	char err[512];
	size_t i;

	for (i = 0; i < CTL_NJOB_STRS; i++)
		if ((fields & ctl_job_strs[i].field) != 0) {
			which |= CMD_BIT(ctl_job_strs[i].kind);
			cmd[ctl_job_strs[i].kind] = ctl_job_str_get(j, i);
		}
	if (bind) {
		which |= CMD_BIT(CMD_FLINK);
		cmd[CMD_FLINK] = flink;
	}
	if (c->st.commands == NULL || which == 0 ||
	    commands_register(c->st.commands, j->id.s, which, cmd, err,
		sizeof(err)) == 0)
		return 0;
	ctl_err("job %s: the database has its commands, the commands file "
		"not (the runner refuses them): %s",
	    j->id.s, err);
	return -1;
}

static int
ctl_job_add(struct ctl *c, const struct ctl_args *a)
{
	struct job j;
	struct ctl_sched sc[2];
	struct ctl_retain rt[2];
	struct store *s;
	enum store_rc rc;
	const char *flink;
	int fields, bind;

	memset(&j, 0, sizeof(j));
	j.state = JOB_RUNNING;
	j.type = CKPT_FULL;
	j.timeout_s = CTL_TIMEOUT_DEFAULT;
	if (ctl_job_parse(a, &j, &fields) == -1 ||
	    ctl_flink_parse(a, &flink, &bind) == -1 ||
	    ctl_schedule_parse(a, sc) == -1 || ctl_retain_parse(a, rt) == -1)
		return CTL_EXIT_USAGE;
	if ((s = ctl_open(c)) == NULL)
		return CTL_EXIT_FAIL;
	/* With its savepoint settings and JobManager, in one transaction. */
	if ((rc = ctl_job_write(s, &j, 1, fields, flink, bind)) ==
	    STORE_EXISTS) {
		ctl_err("job %s already exists", j.id.s);
		return CTL_EXIT_FAIL;
	}
	/* Every kind: one not given is none, as in the database. */
	if (rc == STORE_OK &&
	    ctl_commands_write(c, &j, CTL_COMMAND_FIELDS, flink, 1) == -1)
		return CTL_EXIT_FAIL;
	/* Then its schedules and policy: a refused one leaves the job. */
	if (rc == STORE_OK &&
	    ((rc = ctl_schedule_write(s, &j.id, sc)) == STORE_NOTFOUND ||
		(rc == STORE_OK &&
		    (rc = ctl_retain_write(s, &j.id, rt)) == STORE_NOTFOUND))) {
		ctl_err("job %s added without its schedules or retention",
		    j.id.s);
		return CTL_EXIT_FAIL;
	}
	return ctl_store_done(c, rc, "job add");
}

/*
 * The schedules given, each counted from now.  A savepoint schedule needs
 * the job's savepoint directory: a scheduled savepoint has no request to
 * name one.  STORE_NOTFOUND: said why.
 */
static enum store_rc
ctl_schedule_write(struct store *s, const struct id *job,
    const struct ctl_sched *sc)
{
	struct buf dir = { 0 };
	enum store_rc rc = STORE_OK;
	int64_t now;
	int k;

	if (sc[1].given && (sc[1].every_ms > 0 || sc[1].cron != NULL)) {
		rc = store_job_savepoint_dir(s, job, &dir);
		buf_free(&dir);
		if (rc == STORE_NOTFOUND) {
			ctl_err("job %s has no savepoint directory (or is not "
				"known): give --savepoint-dir DIR",
			    job->s);
			return STORE_NOTFOUND;
		}
	}
	if ((now = schedule_now()) <= 0) {
		ctl_err("CHECKPOINT_TEST_CLOCK: no time in that file");
		return STORE_NOTFOUND;
	}
	for (k = 0; k < 2 && rc == STORE_OK; k++)
		if (sc[k].given &&
		    (rc = store_schedule_set(s, job, sc[k].kind, sc[k].every_ms,
			 sc[k].cron, ctl_caller(), now)) == STORE_NOTFOUND)
			ctl_err("job %s not found", job->s);
	return rc;
}

static int
ctl_job_set(struct ctl *c, const struct ctl_args *a)
{
	struct job j;
	struct ctl_sched sc[2];
	struct ctl_retain rt[2];
	struct store *s;
	enum store_rc rc = STORE_OK;
	const char *flink;
	int fields, bind;

	memset(&j, 0, sizeof(j));
	if (ctl_job_parse(a, &j, &fields) == -1 ||
	    ctl_flink_parse(a, &flink, &bind) == -1 ||
	    ctl_schedule_parse(a, sc) == -1 || ctl_retain_parse(a, rt) == -1)
		return CTL_EXIT_USAGE;
	if (fields == 0 && !bind && !sc[0].given && !sc[1].given &&
	    !rt[0].given_last && !rt[0].given_ms && !rt[1].given_last &&
	    !rt[1].given_ms) {
		ctl_err("job set: nothing to change; give --state, --name, "
			"--type, --command, --timeout, --flink, "
			"--savepoint-dir, a savepoint, stop or dispose "
			"command, a schedule (--every, --cron, "
			"--savepoint-every, --savepoint-cron) or a retention "
			"(--keep-savepoints, --keep-checkpoints and their "
			"-for)");
		return CTL_EXIT_USAGE;
	}
	if ((s = ctl_open(c)) == NULL)
		return CTL_EXIT_FAIL;
	if ((fields != 0 || bind) &&
	    (rc = ctl_job_write(s, &j, 0, fields, flink, bind)) ==
		STORE_NOTFOUND) {
		ctl_err("job %s not found", j.id.s);
		return CTL_EXIT_FAIL;
	}
	if (rc == STORE_OK &&
	    ctl_commands_write(c, &j, fields, flink, bind) == -1)
		return CTL_EXIT_FAIL;
	if (rc == STORE_OK)
		rc = ctl_schedule_write(s, &j.id, sc);
	if (rc == STORE_OK)
		rc = ctl_retain_write(s, &j.id, rt);
	return rc == STORE_NOTFOUND ? CTL_EXIT_FAIL :
				      ctl_store_done(c, rc, "job set");
}

static int
ctl_job_rm(struct ctl *c, const struct ctl_args *a)
{
	struct job j;
	struct store *s;
	enum store_rc rc;

	memset(&j, 0, sizeof(j));
	if (ctl_parse_id("job id", a->operand, &j.id) == -1)
		return CTL_EXIT_USAGE;
	if ((s = ctl_open(c)) == NULL)
		return CTL_EXIT_FAIL;
	if ((rc = store_job_rm(s, &j.id)) == STORE_NOTFOUND) {
		ctl_err("job %s not found", j.id.s);
		return CTL_EXIT_FAIL;
	}
	/* Its lines go: a job added again later gets only its new ones. */
	if (rc == STORE_OK &&
	    ctl_commands_write(c, &j, CTL_COMMAND_FIELDS, NULL, 1) == -1)
		return CTL_EXIT_FAIL;
	return ctl_store_done(c, rc, "job rm");
}

static int
ctl_job_row(const struct job *j, void *arg)
{
	struct ctl_table *t = arg;

	ctl_table_add(t, j->id.s);
	ctl_table_add(t, job_state_name(j->state));
	ctl_table_add(t, ckpt_type_name(j->type));
	ctl_table_addf(t, "%llds", (long long)j->timeout_s);
	if (j->last_checkpoint_id > 0)
		ctl_table_addf(t, "%lld", (long long)j->last_checkpoint_id);
	else
		ctl_table_add(t, NULL);
	ctl_table_addf(t, "%lld", (long long)j->pending);
	/* What its savepoints and stops do: run commands, or nothing. */
	ctl_table_add(t, j->bookkeeping != NULL ? "bookkeeping" : "run");
	ctl_table_add(t, j->name);
	ctl_table_add(t, j->command);
	return t->oom;
}

static int
ctl_job_list(struct ctl *c, const struct ctl_args *a)
{
	static const char *const header[] = { "JOB ID", "STATE", "TYPE",
		"TIMEOUT", "CHECKPOINT", "PENDING", "SAVEPOINTS", "NAME",
		"COMMAND" };
	struct ctl_table t;
	struct store *s;
	enum store_rc rc;
	int ret;

	if ((s = ctl_open(c)) == NULL)
		return CTL_EXIT_FAIL;
	ctl_table_init(&t, header, sizeof(header) / sizeof(header[0]));
	rc = store_job_list(s, ctl_job_row, &t);
	if ((ret = ctl_store_done(c, rc, "job list")) == 0)
		ret = ctl_table_print(&t);
	ctl_table_free(&t);
	return ret;
}

/* A time in ms as a UTC date and time cell. */
static void
ctl_table_add_when(struct ctl_table *t, int64_t ms)
{
	struct tm tm;
	time_t sec = (time_t)(ms / 1000);
	char when[32];

	if (gmtime_r(&sec, &tm) == NULL ||
	    strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm) == 0)
		snprintf(when, sizeof(when), "%lld", (long long)ms);
	ctl_table_add(t, when);
}

/* Who asked: user@address, or whichever of them is known. */
static void
ctl_table_add_client(struct ctl_table *t, const char *user, const char *addr)
{
	if (user != NULL && addr != NULL)
		ctl_table_addf(t, "%s@%s", user, addr);
	else
		ctl_table_add(t, user != NULL ? user : addr);
}

/* A failure in one cell: its cause in one line (ckpt_failure_cause). */
static void
ctl_table_add_failure(struct ctl_table *t, const char *class, const char *trace)
{
	char cause[512];

	ckpt_failure_cause(class, trace, cause, sizeof(cause));
	ctl_table_add(t, cause);
}

/* What became of a trigger, in a few words. */
static void
ctl_trigger_result(struct ctl_table *t, const struct trigger_row *r)
{
	if (r->failure_class != NULL)
		ctl_table_add_failure(t, r->failure_class, r->failure_trace);
	else if (strcmp(r->status, "COMPLETED") == 0)
		ctl_table_add(t, r->location);
	else if (r->claimed_by != NULL)
		ctl_table_addf(t, "claimed by %s", r->claimed_by);
	else
		ctl_table_add(t, NULL);
}

static int
ctl_trigger_row(const struct trigger_row *r, void *arg)
{
	struct ctl_table *t = arg;

	ctl_table_add_when(t, r->created_ms);
	ctl_table_add(t, r->job.s);
	ctl_table_add(t, r->trigger.s);
	/* Flink's COMPLETED with a failure cause is, to a person, FAILED. */
	ctl_table_add(t, r->failure_class != NULL ? "FAILED" : r->status);
	if (r->checkpoint_id > 0)
		ctl_table_addf(t, "%lld", (long long)r->checkpoint_id);
	else
		ctl_table_add(t, NULL);
	ctl_table_add(t, r->type != NULL ? r->type : r->requested_type);
	ctl_table_add_client(t, r->remote_user, r->remote_addr);
	ctl_trigger_result(t, r);
	return t->oom;
}

static int
ctl_triggers(struct ctl *c, const struct ctl_args *a)
{
	static const char *const header[] = { "CREATED (UTC)", "JOB ID",
		"TRIGGER ID", "STATUS", "CHECKPOINT", "TYPE", "CLIENT",
		"RESULT" };
	struct ctl_table t;
	struct store *s;
	struct id job;
	enum store_rc rc;
	int64_t limit = CTL_LIMIT_DEFAULT;
	int ret;

	if (a->opt[CTL_OPT_JOB] != NULL &&
	    ctl_parse_id("--job", a->opt[CTL_OPT_JOB], &job) == -1)
		return CTL_EXIT_USAGE;
	if (a->opt[CTL_OPT_LIMIT] != NULL &&
	    ctl_parse_num("limit", a->opt[CTL_OPT_LIMIT], CTL_LIMIT_MAX,
		&limit) == -1)
		return CTL_EXIT_USAGE;
	if ((s = ctl_open(c)) == NULL)
		return CTL_EXIT_FAIL;
	ctl_table_init(&t, header, sizeof(header) / sizeof(header[0]));
	rc = store_trigger_list(s, a->opt[CTL_OPT_JOB] != NULL ? &job : NULL,
	    limit, ctl_trigger_row, &t);
	if ((ret = ctl_store_done(c, rc, "triggers")) == 0)
		ret = ctl_table_print(&t);
	ctl_table_free(&t);
	return ret;
}

/* One savepoint or stop as a row of checkpointctl savepoints. */
static int
ctl_savepoint_row(const struct savepoint_row *r, void *arg)
{
	struct ctl_table *t = arg;

	ctl_table_add_when(t, r->created_ms);
	ctl_table_add(t, r->job.s);
	ctl_table_add(t, r->trigger.s);
	ctl_table_addf(t, "%s%s%s", r->kind, r->cancel_job ? "+CANCEL" : "",
	    r->drain ? "+DRAIN" : "");
	ctl_table_add(t, r->failure_class != NULL ? "FAILED" : r->status);
	if (r->checkpoint_id > 0)
		ctl_table_addf(t, "%lld", (long long)r->checkpoint_id);
	else
		ctl_table_add(t, NULL);
	ctl_table_add(t, r->format);
	ctl_table_add_client(t, r->remote_user, r->remote_addr);
	if (r->failure_class != NULL)
		ctl_table_add_failure(t, r->failure_class, r->failure_trace);
	else if (r->location != NULL)
		ctl_table_addf(t, "%s%s%s", r->location,
		    r->kept_ms > 0 ? " (kept)" : "",
		    r->disposed_ms > 0 ? " (disposed)" : "");
	else
		ctl_table_add(t, NULL);
	return t->oom;
}

/*
 * A table of one kind of row, of every job or of --job's: list runs the
 * store's listing into the table.
 */
typedef enum store_rc (
    *ctl_lister)(struct store *, const struct id *job, struct ctl_table *);

static int
ctl_job_table(struct ctl *c, const struct ctl_args *a,
    const char *const *header, size_t ncols, ctl_lister list, const char *what)
{
	struct ctl_table t;
	struct store *s;
	struct id job;
	int ret;

	if (a->opt[CTL_OPT_JOB] != NULL &&
	    ctl_parse_id("--job", a->opt[CTL_OPT_JOB], &job) == -1)
		return CTL_EXIT_USAGE;
	if ((s = ctl_open(c)) == NULL)
		return CTL_EXIT_FAIL;
	ctl_table_init(&t, header, ncols);
	if ((ret = ctl_store_done(c,
		 list(s, a->opt[CTL_OPT_JOB] != NULL ? &job : NULL, &t),
		 what)) == 0)
		ret = ctl_table_print(&t);
	ctl_table_free(&t);
	return ret;
}

static enum store_rc
ctl_list_savepoints(struct store *s, const struct id *job, struct ctl_table *t)
{
	return store_savepoint_list(s, job, ctl_savepoint_row, t);
}

/* Every savepoint and stop, newest first: where, who, and if disposed. */
static int
ctl_savepoints(struct ctl *c, const struct ctl_args *a)
{
	static const char *const header[] = { "CREATED (UTC)", "JOB ID",
		"TRIGGER ID", "KIND", "STATUS", "CHECKPOINT", "FORMAT",
		"CLIENT", "RESULT" };

	return ctl_job_table(c, a, header, sizeof(header) / sizeof(header[0]),
	    ctl_list_savepoints, "savepoints");
}

/* What migrate copied, and the first import that failed. */
struct ctl_copy {
	struct store *to;
	enum store_rc rc;
	int64_t n[STORE_ROW__MAX]; /* rows, by table */
};

static int
ctl_copy_row(const struct row_dump *row, void *arg)
{
	struct ctl_copy *cp = arg;

	if ((cp->rc = store_import(cp->to, row)) != STORE_OK)
		return 1;
	cp->n[row->table]++;
	return 0;
}

/* A failure of the store shown as db, in one line; exit status 1. */
static int
ctl_store_fail(struct store *s, const char *db, enum store_rc rc,
    const char *what)
{
	char shown[512];

	store_redact(db, shown, sizeof(shown));
	if (rc == STORE_BUSY)
		ctl_err("%s: database is locked; try again", shown);
	else if (*store_error(s) != '\0')
		ctl_err("%s: %s", shown, store_error(s));
	else
		ctl_err("%s: %s: %s", shown, what, store_rc_name(rc));
	return CTL_EXIT_FAIL;
}

/*
 * Copies everything from --from into --to, which must hold nothing yet,
 * in one transaction of the target: a refusal or failure leaves it as it
 * was.  Expired results are left behind, as a purge would drop them.
 */
static int
ctl_migrate_stores(struct ctl *c, const char *from, const char *to,
    struct store *src, struct store *dst)
{
	struct ctl_copy cp;
	enum store_rc rc;
	int64_t more = 0;
	int k;
	char shown[512], from_shown[512];

	memset(&cp, 0, sizeof(cp));
	cp.to = dst;
	store_redact(to, shown, sizeof(shown));
	store_redact(from, from_shown, sizeof(from_shown));

	if ((rc = store_import_begin(dst)) == STORE_EXISTS) {
		ctl_err("%s: not empty (it holds jobs, triggers or "
			"checkpoint counts); migrate only into a new database",
		    shown);
		return CTL_EXIT_FAIL;
	}
	if (rc != STORE_OK)
		return ctl_store_fail(dst, to, rc, "migrate");
	rc = store_export(src, clock_ms(CLOCK_REALTIME), c->st.store_ms,
	    ctl_copy_row, &cp);
	if (rc != STORE_OK || cp.rc != STORE_OK) {
		store_rollback(dst);
		return rc != STORE_OK ?
		    ctl_store_fail(src, from, rc, "export") :
		    ctl_store_fail(dst, to, cp.rc, "import");
	}
	if ((rc = store_import_commit(dst)) != STORE_OK)
		return ctl_store_fail(dst, to, rc, "commit");
	/* The tables savepoints brought, named when they hold anything. */
	for (k = STORE_ROW_SAVEPOINT; k < STORE_ROW__MAX; k++)
		more += cp.n[k];
	if (more == 0)
		printf("%s: %lld jobs, %lld checkpoint counters, %lld job "
		       "statistics and %lld triggers from %s\n",
		    shown, (long long)cp.n[STORE_ROW_JOB],
		    (long long)cp.n[STORE_ROW_COUNTER],
		    (long long)cp.n[STORE_ROW_STATS],
		    (long long)cp.n[STORE_ROW_TRIGGER], from_shown);
	else
		printf("%s: %lld jobs, %lld checkpoint counters, %lld job "
		       "statistics, %lld triggers, %lld savepoints, %lld "
		       "disposals, %lld schedules (%lld slots) and %lld "
		       "retention policies from %s\n",
		    shown, (long long)cp.n[STORE_ROW_JOB],
		    (long long)cp.n[STORE_ROW_COUNTER],
		    (long long)cp.n[STORE_ROW_STATS],
		    (long long)cp.n[STORE_ROW_TRIGGER],
		    (long long)cp.n[STORE_ROW_SAVEPOINT],
		    (long long)cp.n[STORE_ROW_DISPOSAL],
		    (long long)cp.n[STORE_ROW_SCHEDULE],
		    (long long)cp.n[STORE_ROW_SLOT],
		    (long long)cp.n[STORE_ROW_RETENTION], from_shown);
	return 0;
}

static int
ctl_migrate(struct ctl *c, const struct ctl_args *a)
{
	const char *from = a->opt[CTL_OPT_FROM], *to = a->opt[CTL_OPT_TO];
	struct store *src, *dst;
	char shown[512];
	int ret;

	if (a->opt[CTL_OPT_DB] != NULL) {
		ctl_err("migrate: --db does not apply; give --from and --to");
		return CTL_EXIT_USAGE;
	}
	if (from == NULL || to == NULL) {
		ctl_err("migrate: missing --%s", from == NULL ? "from" : "to");
		return CTL_EXIT_USAGE;
	}
	if (*from == '\0' || *to == '\0') {
		ctl_err("migrate: --%s: empty path",
		    *from == '\0' ? "from" : "to");
		return CTL_EXIT_USAGE;
	}
	if (strcmp(from, to) == 0) {
		ctl_err("migrate: --from and --to name the same database");
		return CTL_EXIT_USAGE;
	}
	/* Opening a file that is not there would create an empty source. */
	if (!store_exists(from)) {
		store_redact(from, shown, sizeof(shown));
		ctl_err("%s: %s", shown, strerror(errno));
		return CTL_EXIT_FAIL;
	}
	if ((src = ctl_open_db(c, from, 0)) == NULL)
		return CTL_EXIT_FAIL;
	if ((dst = ctl_open_db(c, to, 1)) == NULL) {
		store_close(src);
		return CTL_EXIT_FAIL;
	}
	ret = ctl_migrate_stores(c, from, to, src, dst);
	store_close(dst);
	store_close(src);
	return ret;
}

/*
 * A store duration of 0 keeps results forever: the store purges nothing.
 * The checkpoint history's own retention is applied too, as the runner's
 * pass applies it, and said only when it dropped something.
 */
/* One schedule: its rule, the slot it last fired and the next. */
static int
ctl_schedule_row(const struct schedule_row *r, void *arg)
{
	struct ctl_table *t = arg;
	struct schedule_rule rule = { r->every_ms, r->cron, r->since_ms };
	int64_t next = schedule_next(&rule, schedule_now());
	char what[SCHEDULE_CRON_MAX + 16];

	ctl_table_add(t, r->job.s);
	ctl_table_add(t, r->kind);
	schedule_describe(&rule, what, sizeof(what));
	ctl_table_add(t, what);
	if (r->last_slot_ms > r->since_ms)
		ctl_table_add_when(t, r->last_slot_ms);
	else
		ctl_table_add(t, NULL);
	if (next > 0 && r->job_state != NULL &&
	    strcmp(r->job_state, "RUNNING") == 0)
		ctl_table_add_when(t, next);
	else
		ctl_table_add(t, r->job_state != NULL ? r->job_state : NULL);
	ctl_table_addf(t, "%lld", (long long)r->missed);
	ctl_table_add(t, r->set_by);
	return t->oom;
}

static enum store_rc
ctl_list_schedules(struct store *s, const struct id *job, struct ctl_table *t)
{
	return store_schedule_list(s, job, ctl_schedule_row, t);
}

/* Every schedule, by job and kind (checkpoint-runner(8), "Schedules"). */
static int
ctl_schedules(struct ctl *c, const struct ctl_args *a)
{
	static const char *const header[] = { "JOB ID", "KIND", "RULE",
		"LAST SLOT (UTC)", "NEXT SLOT (UTC)", "MISSED", "SET BY" };

	return ctl_job_table(c, a, header, sizeof(header) / sizeof(header[0]),
	    ctl_list_schedules, "schedules");
}

/*
 * savepoint keep JOBID ID, savepoint unkeep JOBID ID: ID is the
 * savepoint's trigger id (32 hexadecimal characters) or its checkpoint id.
 */
static int
ctl_savepoint_keep(struct ctl *c, const struct ctl_args *a)
{
	int keep = strcmp(a->word[1], "keep") == 0;
	struct id job, trigger;
	int64_t checkpoint_id = 0;
	struct store *s;
	enum store_rc rc;
	int by_trigger;

	if (ctl_parse_id("job id", a->operand, &job) == -1)
		return CTL_EXIT_USAGE;
	by_trigger = strlen(a->operand2) == ID_LEN;
	if (by_trigger ?
		ctl_parse_id("savepoint id", a->operand2, &trigger) == -1 :
		settings_parse_int(a->operand2, 1, INT64_MAX, &checkpoint_id) ==
		    -1) {
		if (!by_trigger)
			ctl_err("bad savepoint id '%.64s': expected its "
				"checkpoint id or its trigger id",
			    a->operand2);
		return CTL_EXIT_USAGE;
	}
	if ((s = ctl_open(c)) == NULL)
		return CTL_EXIT_FAIL;
	rc = store_savepoint_keep(s, &job, by_trigger ? &trigger : NULL,
	    checkpoint_id, keep ? clock_ms(CLOCK_REALTIME) : 0);
	if (rc == STORE_NOTFOUND) {
		ctl_err("job %s has no completed savepoint %s", job.s,
		    a->operand2);
		return CTL_EXIT_FAIL;
	}
	return ctl_store_done(c, rc,
	    keep ? "savepoint keep" : "savepoint unkeep");
}

/* What retention says of each savepoint; with act, the disposals asked. */
struct ctl_retain_list {
	struct ctl_table t;
	struct id job;
	char kind[16];
	size_t index;
	int64_t now_ms;
	int act;
	struct store *s;
	size_t asked;
};

static void
ctl_retention_asked(const struct retention_go *g, const struct id *disposal,
    void *arg)
{
	(void)g;
	(void)disposal;
	(*(size_t *)arg)++;
}

static int
ctl_retention_row(const struct retention_row *r, void *arg)
{
	struct ctl_retain_list *l = arg;
	struct retention_decision d;
	char what[160];

	retention_decide(r,
	    retention_index(&l->job, l->kind, sizeof(l->kind), &l->index, r),
	    l->now_ms, &d);
	retention_describe(&d, what, sizeof(what));
	ctl_table_add(&l->t, r->job.s);
	ctl_table_add(&l->t, r->kind);
	ctl_table_add(&l->t, r->trigger.s);
	if (r->checkpoint_id > 0)
		ctl_table_addf(&l->t, "%lld", (long long)r->checkpoint_id);
	else
		ctl_table_add(&l->t, NULL);
	ctl_table_add(&l->t, r->location);
	ctl_table_add(&l->t, what);
	return l->t.oom;
}

/*
 * retention [--job JOBID] [--dry-run]: what each job's policy says of its
 * live savepoints; without --dry-run, the disposals of those it lets go
 * are asked for, which the runner carries out.
 */
static int
ctl_retention(struct ctl *c, const struct ctl_args *a)
{
	static const char *const header[] = { "JOB ID", "KIND", "TRIGGER ID",
		"CHECKPOINT", "LOCATION", "RETENTION" };
	struct ctl_retain_list l;
	struct id job;
	int ret;

	memset(&l, 0, sizeof(l));
	if (a->opt[CTL_OPT_JOB] != NULL &&
	    ctl_parse_id("--job", a->opt[CTL_OPT_JOB], &job) == -1)
		return CTL_EXIT_USAGE;
	if ((l.s = ctl_open(c)) == NULL)
		return CTL_EXIT_FAIL;
	if ((l.now_ms = schedule_now()) <= 0) {
		ctl_err("CHECKPOINT_TEST_CLOCK: no time in that file");
		return CTL_EXIT_FAIL;
	}
	l.act = a->opt[CTL_OPT_DRY_RUN] == NULL;
	ctl_table_init(&l.t, header, sizeof(header) / sizeof(header[0]));
	ret = ctl_store_done(c,
	    store_retention_list(l.s, a->opt[CTL_OPT_JOB] != NULL ? &job : NULL,
		ctl_retention_row, &l),
	    "retention");
	if (ret == 0)
		ret = ctl_table_print(&l.t);
	ctl_table_free(&l.t);
	if (ret == 0 && l.act) {
		ret = ctl_store_done(c,
		    retention_dispose(l.s,
			a->opt[CTL_OPT_JOB] != NULL ? &job : NULL, l.now_ms,
			ctl_retention_asked, &l.asked),
		    "retention");
		printf("%zu disposal%s asked for; the runner carries them "
		       "out\n",
		    l.asked, l.asked == 1 ? "" : "s");
	}
	return ret;
}

static int
ctl_purge(struct ctl *c, const struct ctl_args *a)
{
	struct store *s;
	enum store_rc rc;
	int64_t n, pruned = 0;

	if ((s = ctl_open(c)) == NULL)
		return CTL_EXIT_FAIL;
	rc = store_purge(s, clock_ms(CLOCK_REALTIME), c->st.store_ms, &n);
	if (rc == STORE_OK)
		printf("purged %lld\n", (long long)n);
	if (rc == STORE_OK &&
	    (rc = store_history_prune(s, clock_ms(CLOCK_REALTIME),
		 c->st.history_keep, c->st.history_age_ms, &pruned)) ==
		STORE_OK &&
	    pruned > 0)
		printf("pruned %lld from the checkpoint history\n",
		    (long long)pruned);
	return ctl_store_done(c, rc, "purge");
}

static int
ctl_setup_cmd(struct ctl *c, const struct ctl_args *a)
{
	int rc;

	rc = ctl_setup(c->st.db_path,
	    a->opt[CTL_OPT_USER] != NULL ? a->opt[CTL_OPT_USER] :
					   CTL_SETUP_USER,
	    a->opt[CTL_OPT_GROUP] != NULL ? a->opt[CTL_OPT_GROUP] :
					    CTL_SETUP_GROUP,
	    a->opt[CTL_OPT_WEB_USER],
	    a->opt[CTL_OPT_RUN_DIR] != NULL ? a->opt[CTL_OPT_RUN_DIR] :
					      RUN_DIR);
	if (rc == 0 && c->st.commands == NULL)
		printf("commands: set CHECKPOINT_COMMANDS, for the runner and "
		       "checkpointctl, to a file only you write (e.g. "
		       "/etc/checkpoint-api/commands), or the web server's "
		       "user can change what the runner runs\n");
	return rc;
}

/* An option's value, or def when it was not given. */
static const char *
ctl_opt_or(const struct ctl_args *a, int opt, const char *def)
{
	return a->opt[opt] != NULL ? a->opt[opt] : def;
}

/* Each program's connection as its user, on PostgreSQL. */
static int
ctl_doctor_pg_cmd(const struct ctl *c, const struct ctl_args *a)
{
	const struct ctl_pg_roles r = {
		ctl_opt_or(a, CTL_OPT_RUNNER_ROLE, CTL_RUNNER_ROLE),
		ctl_opt_or(a, CTL_OPT_WEB_ROLE, CTL_WEB_ROLE),
		ctl_opt_or(a, CTL_OPT_PGPASS_DIR, PGPASS_DIR),
	};

	return ctl_doctor_pg(c->st.db_path,
	    ctl_opt_or(a, CTL_OPT_USER, CTL_SETUP_USER),
	    a->opt[CTL_OPT_WEB_USER], &r);
}

/* A database file that is not there is said, never created. */
static int
ctl_doctor_cmd(struct ctl *c, const struct ctl_args *a)
{
	struct store_opts o;
	struct stat sb;
	char err[1100]; /* strerror and the init line with its --db */
	int wrong;

	wrong = ctl_doctor_commands(c->st.commands, a->opt[CTL_OPT_WEB_USER],
	    a->opt[CTL_OPT_WEB_USER] != NULL &&
		store_driver_can(c->st.db_path, STORE_CAN_FILE));
	*err = '\0';
	if (store_driver_can(c->st.db_path, STORE_CAN_FILE) &&
	    stat(c->st.db_path, &sb) == -1)
		snprintf(err, sizeof(err), "%s%s%s%s", strerror(errno),
		    errno == ENOENT ? ": checkpointctl --db " : "",
		    errno == ENOENT ? c->st.db_shown : "",
		    errno == ENOENT ? " init" : "");
	else {
		settings_store_opts(&c->st, 0, &o);
		if (store_open(&o, &c->store, err, sizeof(err)) != STORE_OK)
			c->store = NULL;
	}
	wrong |= ctl_doctor_pg_cmd(c, a);
	return wrong |
	    ctl_doctor(c->st.db_path, c->st.db_shown, c->store, err,
		ctl_opt_or(a, CTL_OPT_USER, CTL_SETUP_USER),
		a->opt[CTL_OPT_GROUP], a->opt[CTL_OPT_WEB_USER],
		ctl_opt_or(a, CTL_OPT_RUN_DIR, RUN_DIR));
}

/*
 * The words before any command: help, --version, and which command.
 * Returns the command, or NULL with *ret the exit status.
 */
static const struct ctl_cmd *
ctl_front(int argc, char *argv[], struct ctl_args *a, int *ret)
{
	const struct ctl_cmd *cmd = NULL;

	*ret = CTL_EXIT_USAGE;
	if (ctl_parse(argc, argv, a) == -1)
		return NULL;
	if (a->help || (a->nwords > 0 && strcmp(a->word[0], "help") == 0)) {
		ctl_usage(stdout);
		*ret = 0;
	} else if (a->version) {
		puts(PACKAGE_STRING);
		*ret = 0;
	} else if (a->nwords == 0)
		ctl_usage(stderr);
	else if ((cmd = ctl_cmd_find(a)) != NULL &&
	    a->opt[CTL_OPT_DB] != NULL && *a->opt[CTL_OPT_DB] == '\0') {
		/* An empty path would make SQLite open a temporary database. */
		ctl_err("--db: empty path");
		cmd = NULL;
	}
	return cmd;
}

int
main(int argc, char *argv[])
{
	const struct ctl_cmd *cmd;
	struct ctl_args a;
	struct ctl c;
	char err[256], *db = NULL;
	int ret;

	/*
	 * Nothing: every error is one line of ours (the store's own text
	 * included, store_error), and the store's lines would be a second.
	 */
	log_init(CTL_PROG, 0, LOG_LVL_NONE);
	if ((cmd = ctl_front(argc, argv, &a, &ret)) == NULL)
		return ret;

	/*
	 * A password in --db's URI: kept in a copy, and overwritten where
	 * ps shows it (in argv, which is ours to change).
	 */
	if (a.db_arg != NULL && store_is_uri(a.db_arg)) {
		if ((db = strdup(a.db_arg)) == NULL) {
			ctl_err("out of memory");
			return CTL_EXIT_FAIL;
		}
		store_hide_password(a.db_arg);
		a.opt[CTL_OPT_DB] = db;
	}

	memset(&c, 0, sizeof(c));
	if (settings_from_env(&c.st, a.opt[CTL_OPT_DB], err, sizeof(err)) ==
	    -1) {
		ctl_err("%s", err);
		free(db);
		return CTL_EXIT_FAIL;
	}
	/* As the service: group (the web server's) may share it, others not. */
	umask(007);
	ret = cmd->run(&c, &a);
	store_close(c.store);
	free(db);
	if (fflush(stdout) == EOF || ferror(stdout)) {
		ctl_err("cannot write the output");
		ret = CTL_EXIT_FAIL;
	}
	return ret;
}
