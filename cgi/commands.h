/*
 * The commands file (CHECKPOINT_COMMANDS): the commands the operator
 * registered, one line per job and kind, in a file only the operator
 * writes.  The database's commands are what the web server's user can
 * write too (on SQLite it writes the same file as the runner), so the
 * runner runs a command only when the file holds the very same text for
 * that job and kind: a database changed by anyone else runs nothing.
 *
 * A line is "JOBID TAB KIND TAB COMMAND", the command with backslash,
 * newline, tab and carriage return escaped as \\ \n \t \r.
 */
#ifndef COMMANDS_H
#define COMMANDS_H

#include <stddef.h>

enum cmd_kind {
	CMD_CHECKPOINT,
	CMD_SAVEPOINT,
	CMD_STOP,
	CMD_DISPOSE,
	/*
	 * Not commands, but what decides where the runner connects and
	 * writes: a job's JobManager (--flink) and savepoint directory.
	 */
	CMD_FLINK,
	CMD_SAVEPOINT_DIR,
	/*
	 * Nor this: "yes" where the job's savepoints and stops are
	 * bookkeeping only, which the runner then completes running nothing.
	 */
	CMD_BOOKKEEPING,
	CMD__MAX
};

#define CMD_BIT(k) (1u << (k))
#define CMD_ALL (CMD_BIT(CMD__MAX) - 1)

/* The cause a refused action fails with; the reason follows it. */
#define CMD_REFUSED "The job's command is not the one the operator registered"

const char *cmd_kind_name(enum cmd_kind);

/*
 * 0 when path is a file the runner may trust: it exists, is a regular
 * file, and neither it nor its directory is writable by group or others.
 * -1 with why in err.
 */
int commands_trusted(const char *path, char *err, size_t errlen);

/*
 * 1 when the file registers exactly command (NULL: none) for job and
 * kind; 0 when not, or when the file is not trusted; why in err.
 */
int commands_allow(const char *path, const char *job, enum cmd_kind,
    const char *command, char *err, size_t errlen);

/*
 * 1 when dir lies under the savepoint directory the file registers for
 * job or, where it registers none, under root (NULL: none), as the app
 * takes a request's directory (sppath.h); 0 when not, or when the file is
 * not trusted; why in err.
 */
int commands_dir_allow(const char *path, const char *job, const char *dir,
    const char *root, char *err, size_t errlen);

/*
 * Registers cmd[k] (NULL: none) for job and each kind k in which, and
 * keeps every other line: rewritten whole, atomically (a temporary file,
 * fsync, rename), so that the runner reads the old file or the new.
 * -1 with why in err.
 */
int commands_register(const char *path, const char *job, unsigned which,
    const char *const cmd[CMD__MAX], char *err, size_t errlen);

#endif /* COMMANDS_H */
