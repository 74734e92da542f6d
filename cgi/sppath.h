/*
 * The directories and paths a request may name (checkpoint-api(7),
 * "SAVEPOINTS"): a savepoint's or a stop's target directory, a disposal's
 * savepoint path, and the caller a request carries.  Each is bounded, so
 * that no request makes the service store more than a real deployment
 * ever sends, and a directory must lie under the root its job's operator
 * chose, written so that a command that forgets to quote it still reads
 * it as one word.  Pure functions: no store, no I/O.
 */
#ifndef SPPATH_H
#define SPPATH_H

/* Bytes of a directory or path a request names: Linux's PATH_MAX. */
#define SP_PATH_MAX 4096
/* Bytes of REMOTE_USER or REMOTE_ADDR kept with what a request asked. */
#define SP_CALLER_MAX 256

const char *sppath_dir_refused(const char *dir, const char *root);
const char *sppath_path_refused(const char *path);
const char *sppath_caller_refused(const char *caller);

#endif /* SPPATH_H */
