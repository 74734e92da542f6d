/*
 * The checks behind the "why" of a database that cannot be opened or
 * written.  See db_access.h.
 */
#include <config.h>

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "db_access.h"

/* "name" of uid, or its number: for a message, so never fails. */
static void
user_name(uid_t uid, char *out, size_t len)
{
	struct passwd pw, *res = NULL;
	char scratch[1024];

	if (getpwuid_r(uid, &pw, scratch, sizeof(scratch), &res) == 0 &&
	    res != NULL)
		snprintf(out, len, "%s", pw.pw_name);
	else
		snprintf(out, len, "%lu", (unsigned long)uid);
}

static void
group_name(gid_t gid, char *out, size_t len)
{
	struct group gr, *res = NULL;
	char scratch[1024];

	if (getgrgid_r(gid, &gr, scratch, sizeof(scratch), &res) == 0 &&
	    res != NULL)
		snprintf(out, len, "%s", gr.gr_name);
	else
		snprintf(out, len, "%lu", (unsigned long)gid);
}

/* "path (owner u:g, mode 0640)" */
static void
owner_mode(const char *path, const struct stat *sb, char *out, size_t len)
{
	char u[64], g[64];

	user_name(sb->st_uid, u, sizeof(u));
	group_name(sb->st_gid, g, sizeof(g));
	snprintf(out, len, "%s (owner %s:%s, mode %04o)", path, u, g,
	    (unsigned)(sb->st_mode & 07777));
}

/*
 * Words a refused access(2) of path: a read-only file system, or the
 * effective user's missing right ("may not " + doing).
 */
static void
refusal(const char *path, const struct stat *sb, int err, const char *doing,
    char *why, size_t len)
{
	char me[64], obj[PATH_MAX + 160];

	if (err == EROFS) {
		snprintf(why, len, "%s is on a read-only file system", path);
		return;
	}
	user_name(geteuid(), me, sizeof(me));
	owner_mode(path, sb, obj, sizeof(obj));
	snprintf(why, len, "permission denied: user %s may not %s %s", me,
	    doing, obj);
}

/* Names the first directory on the way to dir that this user may not enter. */
static void
closed_ancestor(const char *dir, char *why, size_t len)
{
	char prefix[PATH_MAX];
	struct stat sb;
	size_t i;

	for (i = 1; dir[i - 1] != '\0' && i < sizeof(prefix); i++) {
		if (dir[i] != '/' && dir[i] != '\0')
			continue;
		snprintf(prefix, sizeof(prefix), "%.*s", (int)i, dir);
		if (stat(prefix, &sb) == 0 &&
		    faccessat(AT_FDCWD, prefix, X_OK, AT_EACCESS) == -1) {
			refusal(prefix, &sb, errno, "enter directory", why,
			    len);
			return;
		}
	}
	snprintf(why, len, "permission denied on the way to %s", dir);
}

void
db_access_dir(const char *path, char *out, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL)
		snprintf(out, len, ".");
	else if (slash == path)
		snprintf(out, len, "/");
	else
		snprintf(out, len, "%.*s", (int)(slash - path), path);
}

/* The directory must exist and be entered. */
static enum db_access
dir_check(const char *dir, struct stat *dsb, char *why, size_t len)
{
	if (stat(dir, dsb) == -1) {
		if (errno == ENOENT)
			snprintf(why, len, "directory %s does not exist", dir);
		else if (errno == EACCES)
			closed_ancestor(dir, why, len);
		else
			snprintf(why, len, "directory %s: %s", dir,
			    strerror(errno));
		return DB_ACCESS_UNREADABLE;
	}
	if (!S_ISDIR(dsb->st_mode)) {
		snprintf(why, len, "%s is not a directory", dir);
		return DB_ACCESS_UNREADABLE;
	}
	if (faccessat(AT_FDCWD, dir, X_OK, AT_EACCESS) == -1) {
		refusal(dir, dsb, errno, "enter directory", why, len);
		return DB_ACCESS_UNREADABLE;
	}
	return DB_ACCESS_OK;
}

/*
 * SQLite makes -wal and -shm with the database's mode: a process that
 * opened it read-only leaves them read-only after the database itself
 * is made writable.  And it creates and removes them beside the file.
 */
static enum db_access
sides_check(const char *path, const char *dir, const struct stat *dsb,
    char *why, size_t len)
{
	static const char *const suffix[] = { "-wal", "-shm" };
	char side[PATH_MAX];
	struct stat ssb;
	size_t i;

	for (i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++) {
		snprintf(side, sizeof(side), "%s%s", path, suffix[i]);
		if (stat(side, &ssb) == 0 &&
		    faccessat(AT_FDCWD, side, W_OK, AT_EACCESS) == -1) {
			refusal(side, &ssb, errno, "write", why, len);
			return DB_ACCESS_UNWRITABLE;
		}
	}
	if (faccessat(AT_FDCWD, dir, W_OK, AT_EACCESS) == -1) {
		refusal(dir, dsb, errno,
		    "create the -wal and -shm files in directory", why, len);
		return DB_ACCESS_UNWRITABLE;
	}
	return DB_ACCESS_OK;
}

enum db_access
db_access_check(const char *path, char *why, size_t len)
{
	char dir[PATH_MAX];
	struct stat sb, dsb;
	enum db_access rc;

	*why = '\0';
	db_access_dir(path, dir, sizeof(dir));
	if ((rc = dir_check(dir, &dsb, why, len)) != DB_ACCESS_OK)
		return rc;
	if (stat(path, &sb) == -1) {
		if (errno != ENOENT) {
			snprintf(why, len, "%s: %s", path, strerror(errno));
			return DB_ACCESS_UNREADABLE;
		}
		if (faccessat(AT_FDCWD, dir, W_OK, AT_EACCESS) == -1) {
			refusal(dir, &dsb, errno, "create files in directory",
			    why, len);
			return DB_ACCESS_UNWRITABLE;
		}
		return DB_ACCESS_OK;
	}
	if (faccessat(AT_FDCWD, path, R_OK, AT_EACCESS) == -1) {
		refusal(path, &sb, errno, "read", why, len);
		return DB_ACCESS_UNREADABLE;
	}
	if (faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) == -1) {
		refusal(path, &sb, errno, "write", why, len);
		return DB_ACCESS_UNWRITABLE;
	}
	return sides_check(path, dir, &dsb, why, len);
}
