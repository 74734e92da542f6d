/*
 * Why a database file cannot be opened or written, in words an operator
 * can act on: which directory is missing, which user may not enter,
 * create in or write what (with its owner and mode), or that the file
 * system is mounted read-only.  SQLite says only "unable to open database
 * file" or "attempt to write a readonly database"; the three programs add
 * this to every such message (store_sqlite.c), and checkpointctl doctor
 * prints it.
 */
#ifndef DB_ACCESS_H
#define DB_ACCESS_H

#include <stddef.h>

enum db_access {
	DB_ACCESS_OK, /* nothing found that this user cannot do */
	DB_ACCESS_UNREADABLE, /* missing, or this user may not read it */
	DB_ACCESS_UNWRITABLE /* readable, but this user may not write it */
};

/*
 * Checks, with the effective user's rights, what SQLite in WAL mode needs
 * of path: its directory searchable and writable (for -wal and -shm, and
 * to create the file), the file readable and writable, and its -wal and
 * -shm writable where they are.  The first thing
 * missing is worded in why (path, user, owner, mode); "" when none is.
 */
/* The directory of path, in out ("." for a bare name). */
void db_access_dir(const char *path, char *out, size_t len);
enum db_access db_access_check(const char *path, char *why, size_t len);

#endif /* DB_ACCESS_H */
