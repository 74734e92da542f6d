/*
 * The commands file (commands.h): read by the runner before each action,
 * rewritten by checkpointctl when the operator adds, sets or removes a
 * job.  The file is small (a line per job and kind) and an action forks a
 * process, so it is read again each time rather than cached: an operator's
 * change counts from the next action, with no signal to send.
 */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "commands.h"
#include "db_access.h"
#include "sppath.h"

/* More than any operator registers; a larger file is not one of ours. */
#define COMMANDS_MAX_SIZE (16 * 1024 * 1024)

static const char *const cmd_kind_names[CMD__MAX] = {
	[CMD_CHECKPOINT] = "checkpoint",
	[CMD_SAVEPOINT] = "savepoint",
	[CMD_STOP] = "stop",
	[CMD_DISPOSE] = "dispose",
	[CMD_FLINK] = "flink",
	[CMD_SAVEPOINT_DIR] = "savepoint-dir",
	[CMD_BOOKKEEPING] = "bookkeeping-only",
};

const char *
cmd_kind_name(enum cmd_kind k)
{
	return k < CMD__MAX ? cmd_kind_names[k] : "?";
}

/* The command as a line holds it: no byte that ends a line or a field. */
static int
cmd_escape(struct buf *b, const char *s)
{
	static const char from[] = "\\\n\t\r", to[] = "\\ntr";
	const char *q;

	for (; *s != '\0'; s++) {
		if ((q = strchr(from, *s)) != NULL) {
			if (buf_add(b, "\\", 1) == -1 ||
			    buf_add(b, to + (q - from), 1) == -1)
				return -1;
		} else if (buf_add(b, s, 1) == -1)
			return -1;
	}
	return 0;
}

/*
 * Whether a directory lets no one but root and owner replace what it
 * holds: owned by one of them, and writable by no one else (a sticky
 * directory, as /tmp, lets no one rename another's entries).
 */
static int
cmd_dir_safe(const char *dir, uid_t owner, char *err, size_t errlen)
{
	struct stat st;

	if (stat(dir, &st) == -1) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	if (st.st_uid != 0 && st.st_uid != owner) {
		snprintf(err, errlen,
		    "directory %s is owned by another user than root or the "
		    "commands file's owner",
		    dir);
		return -1;
	}
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 &&
	    (st.st_mode & S_ISVTX) == 0) {
		snprintf(err, errlen,
		    "directory %s is writable by group or others (chmod go-w)",
		    dir);
		return -1;
	}
	return 0;
}

/*
 * Whoever can write the file, or any directory on its way (and so
 * replace the file), decides what runs: only root and the file's owner
 * may, as OpenSSH asks of authorized_keys.  A symbolic link is refused
 * rather than followed, so that the mode checked is the file's own.
 */
int
commands_trusted(const char *path, char *err, size_t errlen)
{
	char dir[4096], real[PATH_MAX];
	struct stat st;

	if (lstat(path, &st) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		return -1;
	}
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
		snprintf(err, errlen,
		    "%s: writable by group or others (chmod go-w)", path);
		return -1;
	}
	db_access_dir(path, dir, sizeof(dir));
	if (realpath(dir, real) == NULL) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	for (;;) {
		if (cmd_dir_safe(real, st.st_uid, err, errlen) == -1)
			return -1;
		if (strcmp(real, "/") == 0)
			return 0;
		db_access_dir(real, dir, sizeof(dir));
		snprintf(real, sizeof(real), "%s", dir);
	}
}

/* The whole file, trusted, into b. */
static int
cmd_read(const char *path, struct buf *b, char *err, size_t errlen)
{
	char chunk[8192];
	ssize_t n;
	int fd;

	if (commands_trusted(path, err, errlen) == -1)
		return -1;
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		if (b->len + (size_t)n > COMMANDS_MAX_SIZE ||
		    buf_add(b, chunk, (size_t)n) == -1) {
			n = -1;
			errno = EFBIG;
			break;
		}
	if (n == -1)
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
	close(fd);
	return n == -1 ? -1 : 0;
}

/* "JOBID TAB KIND TAB", the start of job's line of kind k. */
static int
cmd_key(struct buf *b, const char *job, enum cmd_kind k)
{
	return buf_printf(b, "%s\t%s\t", job, cmd_kind_name(k));
}

/* The line of text starting with key, NULL: none. */
static const char *
cmd_find(const char *text, const char *key, size_t keylen)
{
	const char *line = text;

	while (line != NULL && *line != '\0') {
		if (strncmp(line, key, keylen) == 0)
			return line;
		if ((line = strchr(line, '\n')) != NULL)
			line++;
	}
	return NULL;
}

int
commands_allow(const char *path, const char *job, enum cmd_kind k,
    const char *command, char *err, size_t errlen)
{
	struct buf text = { 0 }, key = { 0 }, want = { 0 };
	const char *line, *end;
	int ok = 0;

	if (cmd_read(path, &text, err, errlen) == -1)
		goto out;
	if (cmd_key(&key, job, k) == -1 ||
	    (command != NULL && cmd_escape(&want, command) == -1)) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	line = text.p != NULL ? cmd_find(text.p, key.p, key.len) : NULL;
	if (line == NULL) {
		ok = command == NULL;
		snprintf(err, errlen, "%s registers no %s command for job %s",
		    path, cmd_kind_name(k), job);
		goto out;
	}
	line += key.len;
	end = line + strcspn(line, "\n");
	ok = command != NULL && (size_t)(end - line) == want.len &&
	    memcmp(line, want.p != NULL ? want.p : "", want.len) == 0;
	if (!ok)
		snprintf(err, errlen,
		    "%s registers another %s command for job %s", path,
		    cmd_kind_name(k), job);
out:
	buf_free(&text);
	buf_free(&key);
	buf_free(&want);
	return ok;
}

/* The escaped text from s to end, as cmd_escape wrote it, into b. */
static int
cmd_unescape(struct buf *b, const char *s, const char *end)
{
	static const char from[] = "\\ntr", to[] = "\\\n\t\r";
	const char *q;

	for (; s < end; s++) {
		if (*s == '\\' && s + 1 < end &&
		    (q = strchr(from, s[1])) != NULL) {
			if (buf_add(b, to + (q - from), 1) == -1)
				return -1;
			s++;
		} else if (buf_add(b, s, 1) == -1)
			return -1;
	}
	return buf_add(b, "", 0);
}

/* The value the file registers for job and kind k into v: 1, 0 if none. */
static int
cmd_value(const char *path, const char *job, enum cmd_kind k, struct buf *v,
    char *err, size_t errlen)
{
	struct buf text = { 0 }, key = { 0 };
	const char *line;
	int rc = -1;

	if (cmd_read(path, &text, err, errlen) == -1)
		goto out;
	if (cmd_key(&key, job, k) == -1) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	line = text.p != NULL ? cmd_find(text.p, key.p, key.len) : NULL;
	rc = line != NULL;
	if (line != NULL) {
		line += key.len;
		if (cmd_unescape(v, line, line + strcspn(line, "\n")) == -1) {
			snprintf(err, errlen, "out of memory");
			rc = -1;
		}
	}
out:
	buf_free(&text);
	buf_free(&key);
	return rc;
}

int
commands_dir_allow(const char *path, const char *job, const char *dir,
    const char *root, char *err, size_t errlen)
{
	struct buf reg = { 0 };
	const char *why;
	int has;

	if ((has = cmd_value(path, job, CMD_SAVEPOINT_DIR, &reg, err,
		 errlen)) == -1)
		return 0;
	why = sppath_dir_refused(dir, has ? buf_str(&reg) : root);
	if (why != NULL)
		snprintf(err, errlen,
		    "%s registers %s savepoint directory for job %s, and "
		    "%.256s is refused: %s",
		    path, has ? "this" : "no", job, dir, why);
	buf_free(&reg);
	return why == NULL;
}

/* The file's lines but job's of the kinds in which, then its new ones. */
static int
cmd_rewrite(const char *old, const char *job, unsigned which,
    const char *const cmd[CMD__MAX], struct buf *out)
{
	struct buf key = { 0 };
	const char *line = old, *end;
	int k, rc = 0;

	while (rc == 0 && line != NULL && *line != '\0') {
		end = line + strcspn(line, "\n");
		for (k = 0; k < CMD__MAX; k++) {
			buf_reset(&key);
			if ((which & CMD_BIT(k)) != 0 &&
			    cmd_key(&key, job, (enum cmd_kind)k) == 0 &&
			    strncmp(line, key.p, key.len) == 0)
				break;
		}
		if (k == CMD__MAX && end > line)
			rc = buf_add(out, line, (size_t)(end - line)) == -1 ||
				buf_add(out, "\n", 1) == -1 ?
			    -1 :
			    0;
		line = *end != '\0' ? end + 1 : NULL;
	}
	for (k = 0; rc == 0 && k < CMD__MAX; k++)
		if ((which & CMD_BIT(k)) != 0 && cmd[k] != NULL &&
		    (cmd_key(out, job, (enum cmd_kind)k) == -1 ||
			cmd_escape(out, cmd[k]) == -1 ||
			buf_add(out, "\n", 1) == -1))
			rc = -1;
	buf_free(&key);
	return rc;
}

/* data into a new file beside path, synced, then renamed over path. */
static int
cmd_replace(const char *path, const char *dir, const struct buf *data,
    char *err, size_t errlen)
{
	char tmp[4096];
	size_t off = 0;
	ssize_t n = 0;
	int fd, dfd;

	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	if ((fd = mkstemp(tmp)) == -1) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		return -1;
	}
	/* Readable by the runner's user; written by its owner alone. */
	if (fchmod(fd, 0644) == -1)
		n = -1;
	while (n != -1 && off < data->len)
		if ((n = write(fd, data->p + off, data->len - off)) > 0)
			off += (size_t)n;
	if (n == -1 || fsync(fd) == -1 || close(fd) == -1 ||
	    rename(tmp, path) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		(void)unlink(tmp);
		return -1;
	}
	/* The rename itself, durable. */
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) != -1) {
		(void)fsync(dfd);
		close(dfd);
	}
	return 0;
}

int
commands_register(const char *path, const char *job, unsigned which,
    const char *const cmd[CMD__MAX], char *err, size_t errlen)
{
	struct buf old = { 0 }, out = { 0 };
	char dir[4096];
	int lock, rc = -1;

	/* One writer at a time: two operators' changes both stay. */
	db_access_dir(path, dir, sizeof(dir));
	if ((lock = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1 ||
	    flock(lock, LOCK_EX) == -1) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		goto out;
	}
	/* A first registration makes the file; a file not trusted stays. */
	if (access(path, F_OK) == 0 || errno != ENOENT) {
		if (cmd_read(path, &old, err, errlen) == -1)
			goto out;
	}
	if (cmd_rewrite(old.p, job, which, cmd, &out) == -1) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	rc = cmd_replace(path, dir, &out, err, errlen);
out:
	if (lock != -1)
		close(lock);
	buf_free(&old);
	buf_free(&out);
	return rc;
}
