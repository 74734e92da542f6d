/*
 * The bounds and the scope of what a request names (sppath.h).  A
 * directory is read as Flink reads a savepoint directory, a URI: an
 * optional scheme, an authority after "//", and an absolute path.  A
 * file: directory and one without a scheme are the same place, as
 * Flink's default file system makes them; any other scheme (hdfs:, s3:)
 * is taken only where the job's own directory has it, with the same
 * authority.  Nothing is rewritten: a directory that is not already in
 * its normal form is refused with why, rather than guessed at, so that
 * what the command gets is what the client sent.
 */
#include <config.h>

#include <string.h>
#include <strings.h>

#include "sppath.h"

#define SP_STR(x) SP_STR_(x)
#define SP_STR_(x) #x

/* A directory split as a URI; the path starts at its first '/'. */
struct sp_uri {
	const char *scheme, *host, *path;
	size_t scheme_len, host_len, path_len;
};

/*
 * The punctuation a directory may hold besides letters, digits and
 * non-ASCII bytes: none that a shell splits a word at, expands, quotes or
 * ends a command with, so that $CHECKPOINT_SAVEPOINT_DIR unquoted is
 * still one word naming the directory that was asked for.
 */
static const char sp_punct[] = "-._~/:@%+=,";

static const char *
sp_chars_refused(const char *s)
{
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if (*p < 0x20 || *p == 0x7f)
			return "it holds a control character";
		/* U+FFFE, U+FFFF: the body makes \u0000 the latter (body.c). */
		if (p[0] == 0xef && p[1] == 0xbf && (p[2] & 0xfe) == 0xbe)
			return "it holds a NUL or a noncharacter";
		if (*p >= 0x80 || (*p >= '0' && *p <= '9') ||
		    (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    strchr(sp_punct, *p) != NULL)
			continue;
		return "it holds a character other than letters, digits "
		       "and - . _ ~ / : @ % + = ,";
	}
	return NULL;
}

/* Why a path a request names is refused, or NULL: length and bytes. */
const char *
sppath_path_refused(const char *path)
{
	if (*path == '\0')
		return "it is empty";
	if (strlen(path) > SP_PATH_MAX)
		return "it is longer than " SP_STR(SP_PATH_MAX) " bytes";
	return sp_chars_refused(path);
}

/* Why REMOTE_USER or REMOTE_ADDR is not kept, or NULL. */
const char *
sppath_caller_refused(const char *caller)
{
	if (caller != NULL && strlen(caller) > SP_CALLER_MAX)
		return "it is longer than " SP_STR(SP_CALLER_MAX) " bytes";
	return NULL;
}

/* RFC 3986's scheme: a letter, then letters, digits, '+', '-', '.'. */
static size_t
sp_scheme_len(const char *s)
{
	size_t n;

	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
		return 0;
	n = strspn(s,
	    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-.");
	return s[n] == ':' ? n : 0;
}

static void
sp_split(const char *s, struct sp_uri *u)
{
	const char *rest;

	memset(u, 0, sizeof(*u));
	u->scheme = s;
	u->scheme_len = sp_scheme_len(s);
	rest = s + u->scheme_len + (u->scheme_len > 0);
	if (rest[0] == '/' && rest[1] == '/') {
		u->host = rest + 2;
		u->host_len = strcspn(u->host, "/");
		rest = u->host + u->host_len;
	}
	u->path = rest;
	u->path_len = strlen(rest);
	/* One trailing '/' names the same directory. */
	if (u->path_len > 1 && rest[u->path_len - 1] == '/')
		u->path_len--;
}

static int
sp_is_file(const struct sp_uri *u)
{
	return u->scheme_len == 0 ||
	    (u->scheme_len == 4 && strncasecmp(u->scheme, "file", 4) == 0);
}

/* Why a path is not absolute and normal ('.', '..', "//"), or NULL. */
static const char *
sp_segments_refused(const char *p, size_t len)
{
	size_t i = 0, n;

	if (len == 0 || p[0] != '/')
		return "it is not an absolute path";
	while (i < len) {
		i++; /* the '/' */
		n = strcspn(p + i, "/");
		if (n > len - i)
			n = len - i;
		if (n == 0 && len > 1)
			return "it holds an empty segment (//)";
		if ((n == 1 && p[i] == '.') ||
		    (n == 2 && p[i] == '.' && p[i + 1] == '.'))
			return "it holds a . or .. segment";
		i += n;
	}
	return NULL;
}

/* Whether d's place is root's or under it, both split and normal. */
static int
sp_under(const struct sp_uri *d, const struct sp_uri *root)
{
	size_t rlen = root->path_len == 1 ? 0 : root->path_len;

	if (sp_is_file(d) != sp_is_file(root))
		return 0;
	if (!sp_is_file(d) &&
	    (d->scheme_len != root->scheme_len ||
		strncasecmp(d->scheme, root->scheme, d->scheme_len) != 0 ||
		d->host_len != root->host_len ||
		strncasecmp(d->host, root->host, d->host_len) != 0))
		return 0;
	return d->path_len >= rlen && memcmp(d->path, root->path, rlen) == 0 &&
	    (d->path_len == rlen || d->path[rlen] == '/');
}

/*
 * Why a savepoint's target directory is refused, or NULL: its bounds,
 * its form, and its place, which must be root (the job's savepoint
 * directory; NULL: it has none) or under it.
 */
const char *
sppath_dir_refused(const char *dir, const char *root)
{
	struct sp_uri d, r;
	const char *why;

	if ((why = sppath_path_refused(dir)) != NULL)
		return why;
	sp_split(dir, &d);
	if (sp_is_file(&d) && d.host != NULL && d.host_len > 0)
		return "a file: directory names no host";
	if ((why = sp_segments_refused(d.path, d.path_len)) != NULL)
		return why;
	if (root == NULL)
		return "the job has no savepoint directory for it to lie under, "
		       "nor the service a CHECKPOINT_SAVEPOINT_ROOT";
	sp_split(root, &r);
	if (!sp_under(&d, &r))
		return "it does not lie under its root, the job's savepoint "
		       "directory or else CHECKPOINT_SAVEPOINT_ROOT";
	return NULL;
}
