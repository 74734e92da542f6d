/*
 * checkpointctl setup, init --group and doctor.  See ctl_setup.h.
 *
 * The model (checkpointctl(8), "DEPLOYMENT"): the runner runs as its own
 * user, the app as the web server's user, and both write one SQLite
 * database through a group they share.  The database's directory is that
 * group's, writable by it and setgid, so that the database, its -wal and
 * -shm and the app's socket in the run directory all get the group
 * whoever creates them; the programs' umask of 007 gives the group write.
 */
#include <config.h>

#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "commands.h"
#include "ctl_setup.h"
#include "db_access.h"

#include "runner_late.h" /* RUNNER_LATE_MS: the page's, made from app.js */

#define SHARED_DIR_MODE 02770
#define SHARED_FILE_MODE 0660
/* A group below this is a system one, unless it is the runner's own. */
#define FIRST_USER_GID 1000

/*
 * Directories of the system: their groups are never the services' group
 * (bin, adm, www-data...), and setup never takes one of them over.
 */
static const char *const system_dirs[] = { "/", "/bin", "/boot", "/dev", "/etc",
	"/home", "/lib", "/opt", "/proc", "/root", "/run", "/sbin", "/srv",
	"/sys", "/tmp", "/usr", "/usr/bin", "/usr/lib", "/usr/local",
	"/usr/sbin", "/usr/share", "/var", "/var/cache", "/var/lib", "/var/log",
	"/var/run", "/var/spool", "/var/tmp", "/var/www", NULL };

extern char **environ;

/* Runs argv (a system tool: useradd, groupadd, usermod) and waits. */
static int
run_tool(char *const argv[])
{
	pid_t pid;
	int status, err;

	if ((err = posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ)) !=
	    0) {
		ctl_err("cannot run %s: %s", argv[0], strerror(err));
		return -1;
	}
	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR) {
			ctl_err("%s: %s", argv[0], strerror(errno));
			return -1;
		}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		ctl_err("%s %s failed", argv[0], argv[1]);
		return -1;
	}
	return 0;
}

/* Whether the user pw has gid, as primary or supplementary group. */
static int
user_in_group(const struct passwd *pw, gid_t gid)
{
	gid_t groups[256];
	int n = (int)(sizeof(groups) / sizeof(groups[0])), i;

	if (pw->pw_gid == gid)
		return 1;
	if (getgrouplist(pw->pw_name, pw->pw_gid, groups, &n) == -1)
		return 0;
	for (i = 0; i < n; i++)
		if (groups[i] == gid)
			return 1;
	return 0;
}

/* Whether dir is one of system_dirs (trailing slashes aside). */
static int
is_system_dir(const char *dir)
{
	size_t i, n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	for (i = 0; system_dirs[i] != NULL; i++)
		if (strlen(system_dirs[i]) == n &&
		    strncmp(system_dirs[i], dir, n) == 0)
			return 1;
	return 0;
}

/*
 * Whether widening gid to the services would hand them the system's
 * files or the system's users theirs: root, a system directory's group,
 * or any group below FIRST_USER_GID that is not the runner user's own
 * (setup makes that one with groupadd --system).
 */
int
ctl_group_is_system(long gid, const char *runner_user)
{
	struct passwd *pw;
	struct stat sb;
	size_t i;

	if (gid <= 0)
		return 1;
	for (i = 0; system_dirs[i] != NULL; i++)
		if (stat(system_dirs[i], &sb) == 0 && sb.st_gid == (gid_t)gid)
			return 1;
	if (gid >= FIRST_USER_GID)
		return 0;
	pw = runner_user != NULL ? getpwnam(runner_user) : NULL;
	return pw == NULL || pw->pw_gid != (gid_t)gid;
}

/* mkdir -p, parents 0755: what install -d does. */
static int
make_dirs(const char *dir)
{
	char p[PATH_MAX];
	size_t i;

	if (snprintf(p, sizeof(p), "%s", dir) >= (int)sizeof(p))
		return -1;
	for (i = 1; p[i - 1] != '\0'; i++) {
		if (p[i] != '/' && p[i] != '\0')
			continue;
		p[i] = '\0';
		if (mkdir(p, 0755) == -1 && errno != EEXIST) {
			ctl_err("mkdir %s: %s", p, strerror(errno));
			return -1;
		}
		p[i] = dir[i];
	}
	return 0;
}

/* dir made, owned by uid:gid, mode 2770; says what changed. */
static int
share_dir(const char *dir, uid_t uid, gid_t gid, const char *owner)
{
	struct stat sb;

	if (is_system_dir(dir)) {
		ctl_err("%s is a directory of the system: give the database "
			"and the run directory their own (checkpointctl(8), "
			"DEPLOYMENT)",
		    dir);
		return -1;
	}
	if (make_dirs(dir) == -1 || stat(dir, &sb) == -1) {
		ctl_err("%s: %s", dir, strerror(errno));
		return -1;
	}
	if (sb.st_uid == uid && sb.st_gid == gid &&
	    (sb.st_mode & 07777) == SHARED_DIR_MODE)
		return 0;
	if (chown(dir, uid, gid) == -1 || chmod(dir, SHARED_DIR_MODE) == -1) {
		ctl_err("%s: %s", dir, strerror(errno));
		return -1;
	}
	printf("%s: owner %s, mode %04o\n", dir, owner, SHARED_DIR_MODE);
	return 0;
}

/* The database's files, those there, given to gid with mode 0660. */
int
ctl_share_apply(const char *db, long gid)
{
	const char *const *suffix = store_files(db);
	char path[PATH_MAX];
	struct stat sb;

	if (gid < 0 || suffix == NULL)
		return 0;
	for (; *suffix != NULL; suffix++) {
		snprintf(path, sizeof(path), "%s%s", db, *suffix);
		if (stat(path, &sb) == -1)
			continue;
		if ((sb.st_gid != (gid_t)gid &&
			chown(path, (uid_t)-1, (gid_t)gid) == -1) ||
		    chmod(path, (sb.st_mode & 0600) | SHARED_FILE_MODE) == -1) {
			ctl_err("%s: cannot give it to group %ld: %s (run "
				"as root, or as a member of the group)",
			    path, gid, strerror(errno));
			return -1;
		}
	}
	return 0;
}

int
ctl_share_check(const char *db, const char *group, long *gid)
{
	char dir[PATH_MAX];
	struct group *gr;
	struct stat sb;

	*gid = -1;
	db_access_dir(db, dir, sizeof(dir));
	/* Not there: the store's open says so, with the why (db_access.h). */
	if (stat(dir, &sb) == -1)
		return 0;
	if (group != NULL) {
		if ((gr = getgrnam(group)) == NULL) {
			ctl_err("--group %s: no such group (checkpointctl "
				"setup --group %s makes it)",
			    group, group);
			return -1;
		}
		*gid = (long)gr->gr_gid;
	} else if (sb.st_mode & S_ISGID)
		*gid = (long)sb.st_gid;
	else
		return 0;
	if (*gid == 0) {
		ctl_err("%s: group root would share the database with no "
			"service; run checkpointctl setup first, or init "
			"--group with the group the runner and the web "
			"server share",
		    db);
		return -1;
	}
	if (sb.st_gid != (gid_t)*gid || (sb.st_mode & 030) != 030) {
		gr = getgrgid((gid_t)*gid);
		ctl_err("%s: directory %s is not writable by group %s "
			"(SQLite makes -wal and -shm there): chgrp %s %s "
			"&& chmod %04o %s, or run checkpointctl setup",
		    db, dir, gr != NULL ? gr->gr_name : "?",
		    gr != NULL ? gr->gr_name : "?", dir, SHARED_DIR_MODE, dir);
		return -1;
	}
	return 0;
}

/*
 * The shared group, made if missing; an existing group of the system is
 * refused: the services would share its files.
 */
static int
setup_group(const char *group, const char *user, gid_t *gid)
{
	struct group *gr;

	if ((gr = getgrnam(group)) == NULL) {
		char *argv[] = { "groupadd", "--system", (char *)group, NULL };

		if (run_tool(argv) == -1 || (gr = getgrnam(group)) == NULL)
			return -1;
		printf("group %s: created\n", group);
	} else if (ctl_group_is_system((long)gr->gr_gid, user)) {
		ctl_err("--group %s is a group of the system: the services "
			"would share its files; name a group of their own "
			"(setup makes it)",
		    group);
		return -1;
	}
	*gid = gr->gr_gid;
	return 0;
}

int
ctl_setup(const char *db, const char *user, const char *group,
    const char *web_user, const char *run_dir)
{
	char dir[PATH_MAX], owner[256];
	struct passwd *pw, *web;
	gid_t gid;
	uid_t uid;

	if (geteuid() != 0) {
		ctl_err("setup must run as root: it makes a user and a "
			"group and gives them directories");
		return 1;
	}
	if (web_user != NULL && getpwnam(web_user) == NULL) {
		ctl_err("--web-user %s: no such user (the user the web "
			"server and its FastCGI processes run as)",
		    web_user);
		return 1;
	}
	if (setup_group(group, user, &gid) == -1)
		return 1;
	db_access_dir(db, dir, sizeof(dir));
	if ((pw = getpwnam(user)) == NULL) {
		char *argv[] = { "useradd", "--system", "--gid", (char *)group,
			"--home-dir", dir, "--no-create-home", "--shell",
			"/usr/sbin/nologin", (char *)user, NULL };

		if (run_tool(argv) == -1 || (pw = getpwnam(user)) == NULL)
			return 1;
		printf("user %s: created, group %s\n", user, group);
	} else if (!user_in_group(pw, gid)) {
		char *argv[] = { "usermod", "--append", "--groups",
			(char *)group, (char *)user, NULL };

		if (run_tool(argv) == -1)
			return 1;
		printf("user %s: added to group %s\n", user, group);
	}
	uid = pw->pw_uid;
	if (web_user != NULL && (web = getpwnam(web_user)) != NULL &&
	    !user_in_group(web, gid)) {
		char *argv[] = { "usermod", "--append", "--groups",
			(char *)group, (char *)web_user, NULL };

		if (run_tool(argv) == -1)
			return 1;
		printf("user %s: added to group %s (restart the web server "
		       "and the app so that they have it)\n",
		    web_user, group);
	}
	snprintf(owner, sizeof(owner), "%s:%s", user, group);
	if (store_driver_can(db, STORE_CAN_FILE) &&
	    (share_dir(dir, uid, gid, owner) == -1 ||
		ctl_share_apply(db, (long)gid) == -1))
		return 1;
	if (share_dir(run_dir, uid, gid, owner) == -1)
		return 1;
	return 0;
}

/* --- doctor --- */

/*
 * What doctor was asked about: every fix it prints is a whole command
 * with these, run as it stands (root for setup), never one that widens
 * a group of the system.
 */
struct doctor {
	const char *db, *db_shown, *user, *group, *web_user, *run_dir;
	char fix[PATH_MAX * 2 + 512]; /* the last setup_fix */
	char safe[256]; /* the last safe_group */
};

static int doctor_wrong;

static void finding(int good, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void say(int good, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

static void
say(int good, const char *fmt, va_list ap)
{
	fputs(good ? "ok: " : "wrong: ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
}

static void
finding(int good, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(good, fmt, ap);
	va_end(ap);
	if (!good)
		doctor_wrong = 1;
}

/* Whether the group asked for (--group) is one of the system's. */
static int
asked_system_group(const struct doctor *d)
{
	struct group *gr;

	return d->group != NULL && (gr = getgrnam(d->group)) != NULL &&
	    ctl_group_is_system((long)gr->gr_gid, d->user);
}

/*
 * The group a fix may name, copied into d->safe: the one asked for, or
 * else the directory's (dir_group, may be NULL), when it is not a
 * system's; else the runner user's own when that is not; else setup's
 * default, which setup makes.
 */
static const char *
safe_group(struct doctor *d, const char *dir_group)
{
	const char *name = CTL_SETUP_GROUP;
	struct passwd *pw;
	struct group *gr;

	if (d->group != NULL && !asked_system_group(d))
		name = d->group;
	else if (d->group == NULL && dir_group != NULL &&
	    (gr = getgrnam(dir_group)) != NULL &&
	    !ctl_group_is_system((long)gr->gr_gid, d->user))
		name = dir_group;
	else if ((pw = getpwnam(d->user)) != NULL &&
	    (gr = getgrgid(pw->pw_gid)) != NULL &&
	    !ctl_group_is_system((long)gr->gr_gid, d->user))
		name = gr->gr_name;
	snprintf(d->safe, sizeof(d->safe), "%s", name);
	return d->safe;
}

/* The setup command that makes the deployment doctor was asked about. */
static const char *
setup_fix(struct doctor *d, const char *group)
{
	snprintf(d->fix, sizeof(d->fix),
	    "checkpointctl --db %s setup --user %s --group %s%s%s "
	    "--run-dir %s",
	    d->db_shown, d->user, group, d->web_user ? " --web-user " : "",
	    d->web_user ? d->web_user : "", d->run_dir);
	return d->fix;
}

/*
 * Whether user pw may do want (the r, w, x bits as in 07) on sb, by its
 * owner, group and other bits; root may do anything but execute a file
 * no one may.
 */
static int
user_may(const struct passwd *pw, const struct stat *sb, unsigned want)
{
	unsigned bits;

	if (pw->pw_uid == 0)
		return 1;
	if (sb->st_uid == pw->pw_uid)
		bits = (sb->st_mode >> 6) & 07;
	else if (user_in_group(pw, sb->st_gid))
		bits = (sb->st_mode >> 3) & 07;
	else
		bits = sb->st_mode & 07;
	return (bits & want) == want;
}

void
ctl_doctor_line(int good, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(good, fmt, ap);
	va_end(ap);
}

/* One line: whether user may write the database and make -wal there. */
static void
doctor_user(struct doctor *d, const char *role, const char *name,
    const char *dir, const char *group)
{
	const char *const *suffix = store_files(d->db);
	char path[PATH_MAX];
	struct passwd *pw;
	struct stat fsb, dsb;

	if ((pw = getpwnam(name)) == NULL) {
		if (*role == 'w')
			finding(0,
			    "web server user %s does not exist: name the "
			    "web server's with --web-user",
			    name);
		else
			finding(0, "runner user %s does not exist: %s", name,
			    setup_fix(d, group));
		return;
	}
	if (stat(dir, &dsb) == -1)
		return; /* said already */
	if (!user_may(pw, &dsb, 03)) {
		finding(0, "%s user %s may not write directory %s: %s", role,
		    name, dir, setup_fix(d, group));
		return;
	}
	/* Each of its files: SQLite gives -wal and -shm the database's. */
	for (; suffix != NULL && *suffix != NULL; suffix++) {
		snprintf(path, sizeof(path), "%s%s", d->db, *suffix);
		if (stat(path, &fsb) == 0 && !user_may(pw, &fsb, 06)) {
			finding(0,
			    "%s user %s may not write %s: chgrp %s %s && "
			    "chmod %04o %s",
			    role, name, path, group, path, SHARED_FILE_MODE,
			    path);
			return;
		}
	}
	finding(1, "%s user %s may write %s and its directory", role, name,
	    d->db);
}

/*
 * The database's directory and its group: the users' lines when both
 * are right.  A group of the system is never the fix: the directory is
 * given the deployment's own, or, a system directory itself, left alone.
 */
static void
doctor_dir(struct doctor *d, const char *dir)
{
	const char *group;
	char own[256] = "?"; /* the directory's group: getgr* reuse theirs */
	struct group *gr;
	struct stat sb;

	if (stat(dir, &sb) == -1) {
		finding(0, "directory %s: %s: %s", dir, strerror(errno),
		    setup_fix(d, safe_group(d, NULL)));
		return;
	}
	if ((gr = getgrgid(sb.st_gid)) != NULL)
		snprintf(own, sizeof(own), "%s", gr->gr_name);
	if (is_system_dir(dir)) {
		finding(0,
		    "the database is in %s, a directory of the system: "
		    "move it into a directory of its own "
		    "(checkpointctl(8), DEPLOYMENT)",
		    dir);
		return;
	}
	group = safe_group(d, gr != NULL ? own : NULL);
	if (asked_system_group(d)) {
		finding(0,
		    "--group %s is a group of the system: the services "
		    "must have their own; %s",
		    d->group, setup_fix(d, group));
		return;
	}
	if (d->group != NULL && getgrnam(d->group) == NULL)
		finding(0, "group %s does not exist: %s", d->group,
		    setup_fix(d, group));
	else if (d->group == NULL && !(sb.st_mode & S_ISGID))
		finding(0,
		    "directory %s is shared with no group (not setgid): %s",
		    dir, setup_fix(d, group));
	else if (d->group == NULL && strcmp(group, own) != 0)
		finding(0,
		    "directory %s belongs to group %s, a group of the "
		    "system, which the services must not share: %s",
		    dir, own, setup_fix(d, group));
	else {
		doctor_user(d, "runner", d->user, dir, group);
		if (d->web_user != NULL)
			doctor_user(d, "web server", d->web_user, dir, group);
	}
}

/* The app's socket directory: the web server's user must reach it. */
static void
doctor_run_dir(struct doctor *d)
{
	struct passwd *pw;
	struct stat sb;
	const char *group = safe_group(d, NULL);

	if (stat(d->run_dir, &sb) == -1) {
		finding(0, "run directory %s: %s: %s", d->run_dir,
		    strerror(errno), setup_fix(d, group));
		return;
	}
	if (d->web_user != NULL && (pw = getpwnam(d->web_user)) != NULL &&
	    !user_may(pw, &sb, 01)) {
		finding(0,
		    "web server user %s may not reach the app's socket "
		    "in %s: %s",
		    d->web_user, d->run_dir, setup_fix(d, group));
		return;
	}
	finding(1, "run directory %s", d->run_dir);
}

static int
doctor_count_job(const struct job_metrics *j, void *arg)
{
	(void)j;
	(*(int64_t *)arg)++;
	return 0;
}

/*
 * The runner's last pass and the oldest waiting trigger, late past the
 * one threshold the page uses too (RUNNER_LATE_MS).
 */
static void
doctor_runner(const struct service_metrics *m, int64_t now)
{
	int64_t age = now - m->pass_ms;

	if (m->pass_ms == 0)
		finding(0,
		    "no runner pass was ever recorded: start the "
		    "runner (checkpoint-runner(8): cron, a systemd "
		    "timer or --watch)");
	else if (age > RUNNER_LATE_MS)
		finding(0,
		    "the runner's last pass was %lld s ago (late past "
		    "%d s): is cron or its timer running? "
		    "(checkpoint-runner(8))",
		    (long long)(age / 1000), RUNNER_LATE_MS / 1000);
	else
		finding(1, "the runner's last pass was %lld s ago",
		    (long long)(age / 1000));
	if (m->queued > 0 && m->oldest_queued_ms > 0 &&
	    now - m->oldest_queued_ms > RUNNER_LATE_MS)
		finding(0,
		    "%lld triggers wait, the oldest for %lld s: the "
		    "runner is not keeping up or not running",
		    (long long)m->queued,
		    (long long)((now - m->oldest_queued_ms) / 1000));
}

int
ctl_doctor(const char *db, const char *db_shown, struct store *s,
    const char *open_err, const char *user, const char *group,
    const char *web_user, const char *run_dir)
{
	struct doctor d = { db, db_shown, user, group, web_user, run_dir, "",
		"" };
	struct service_metrics m;
	char dir[PATH_MAX], why[PATH_MAX + 256];
	int64_t njobs = 0;

	doctor_wrong = 0;
	if (store_driver_can(db, STORE_CAN_FILE)) {
		db_access_dir(db, dir, sizeof(dir));
		doctor_dir(&d, dir);
		if (db_access_check(db, why, sizeof(why)) != DB_ACCESS_OK)
			finding(0, "as this user: %s", why);
	}
	doctor_run_dir(&d);
	if (s == NULL) {
		finding(0, "database %s cannot be opened: %s", db_shown,
		    open_err);
		return 1;
	}
	finding(1, "database %s (%s): schema version %d", db_shown,
	    store_kind(s), store_schema_version(s));
	memset(&m, 0, sizeof(m));
	if (store_metrics(s, &m, doctor_count_job, &njobs) != STORE_OK) {
		finding(0,
		    "database %s: cannot read the runner's last pass: "
		    "%s",
		    db_shown, store_error(s));
		return 1;
	}
	finding(njobs > 0,
	    njobs > 0 ? "%lld jobs registered" :
			"%lld jobs registered: checkpointctl job add JOBID "
			"--command CMD (or every trigger fails as its job "
			"not found)",
	    (long long)njobs);
	doctor_runner(&m, clock_ms(CLOCK_REALTIME));
	return doctor_wrong;
}

int
ctl_doctor_commands(const char *commands, const char *web_user, int shared)
{
	struct passwd *pw;
	struct stat sb;
	char why[600];

	doctor_wrong = 0;
	if (commands == NULL) {
		/* Said, not wrong: the operator may trust the web server. */
		if (shared)
			printf(
			    "note: CHECKPOINT_COMMANDS is not set: whoever writes "
			    "the database decides what the runner runs "
			    "(checkpoint-runner(8))\n");
		return 0;
	}
	if (commands_trusted(commands, why, sizeof(why)) == -1)
		finding(0, "commands file: %s", why);
	else if (web_user != NULL && (pw = getpwnam(web_user)) != NULL &&
	    stat(commands, &sb) == 0 && sb.st_uid == pw->pw_uid)
		finding(0,
		    "commands file %s is owned by the web server's user %s: "
		    "chown root %s",
		    commands, web_user, commands);
	else
		finding(1, "commands file %s: only its owner writes it",
		    commands);
	return doctor_wrong;
}
