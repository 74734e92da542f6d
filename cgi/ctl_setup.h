/*
 * checkpointctl's deployment commands (checkpointctl(8), "DEPLOYMENT"):
 * setup makes the runner's user, the group it shares with the web server,
 * and the state and run directories; init's --group gives the database
 * to that group; doctor checks what a deployment needs and says the fix
 * of each thing wrong.  Kept apart from ctl_main.c, which only calls them.
 */
#ifndef CTL_SETUP_H
#define CTL_SETUP_H

#include "store.h"

/* Where the app's socket goes: $(runstatedir)/checkpoint-api (Makefile.am). */
#ifndef RUN_DIR
#define RUN_DIR "/run/checkpoint-api"
#endif

/* The user and group setup makes when none is named. */
#define CTL_SETUP_USER "checkpoint"
#define CTL_SETUP_GROUP "checkpoint"

/* One line on stderr, "checkpointctl: " first: every error says one. */
void ctl_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Exit status: 0 done, 1 refused or failed (said on stderr). */
int ctl_setup(const char *db, const char *user, const char *group,
    const char *web_user, const char *run_dir);

/*
 * Before init creates db: the group that must share it (group, or else
 * the directory's own when the directory is setgid, as setup leaves it;
 * none otherwise: *gid is then -1), refused (said why and the fix, -1)
 * when that group could not write the database's directory.
 */
int ctl_share_check(const char *db, const char *group, long *gid);
/* After init: db (and its -wal and -shm) given to gid, mode 0660. */
int ctl_share_apply(const char *db, long gid);
/*
 * Whether gid is a group of the system, which no fix widens: root, a
 * system directory's, or one below 1000 but the runner user's own.
 */
int ctl_group_is_system(long gid, const char *runner_user);

/*
 * One line a finding, on stdout; the exit status is 1 when anything is
 * wrong.  s is the opened store, or NULL when it could not be opened
 * (open_err says why).
 */
int ctl_doctor(const char *db, const char *db_shown, struct store *s,
    const char *open_err, const char *user, const char *group,
    const char *web_user, const char *run_dir);

/* One doctor line, "ok: " or "wrong: " first, for a check of its own. */
void ctl_doctor_line(int good, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * doctor on PostgreSQL (ctl_doctor_pg.c): the roles of the runner's and
 * the web server's programs, and the directory of their pgpass files
 * (pgpass-<user> each).
 */
struct ctl_pg_roles {
	const char *runner, *web, *pgpass_dir;
};
#define CTL_RUNNER_ROLE "checkpoint_runner"
#define CTL_WEB_ROLE "checkpoint_web"
#ifndef PGPASS_DIR
#define PGPASS_DIR "/etc/checkpoint-api"
#endif

/*
 * When uri is PostgreSQL's: whether user (the runner's) and web_user
 * (NULL: not asked) each connect as their role with their own
 * credentials, a line each.  1 when something is wrong.
 */
int ctl_doctor_pg(const char *uri, const char *user, const char *web_user,
    const struct ctl_pg_roles *);

/*
 * doctor's lines on the commands file (CHECKPOINT_COMMANDS, commands.h;
 * NULL: unset, said when shared: web_user writes the database file too):
 * whether the runner trusts it and web_user cannot write it.  1 when
 * something is wrong.
 */
int ctl_doctor_commands(const char *commands, const char *web_user, int shared);

#endif /* CTL_SETUP_H */
