/*
 * The bounds and scope of what a request names (cgi/sppath.c;
 * checkpoint-api(7), "SAVEPOINTS"): a target directory is taken only
 * absolute, in its normal form, of safe characters, within its length,
 * and at or under the job's savepoint directory with the same scheme
 * (file: and none being one); a disposal's path and a caller only
 * within their bounds.  Each refusal says why.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "sppath.h"
#include "tap.h"

#define OK "(taken)"
#define NOT_UNDER \
	"it does not lie under its root, the job's savepoint directory or " \
	"else CHECKPOINT_SAVEPOINT_ROOT"
#define CHARS \
	"it holds a character other than letters, digits and " \
	"- . _ ~ / : @ % + = ,"

static const struct dir_case {
	int line;
	const char *dir, *root;
	const char *want; /* OK, or the reason */
} dir_cases[] = {
	/* Taken: the root itself, under it, either spelling of file:. */
	{ __LINE__, "file:/sp", "file:/sp", OK },
	{ __LINE__, "file:/sp/a/b-1_2.x", "file:/sp", OK },
	{ __LINE__, "file:///sp/a", "file:/sp", OK },
	{ __LINE__, "/sp/a", "file:/sp", OK },
	{ __LINE__, "file:/sp/a", "/sp/", OK },
	{ __LINE__, "FILE:/sp/a/", "file:///sp", OK },
	{ __LINE__, "file:/any/where", "file:/", OK },
	{ __LINE__, "s3://bucket/sp/job-1", "s3://bucket/sp", OK },
	{ __LINE__, "hdfs://nn:8020/sp/x", "HDFS://NN:8020/sp", OK },
	{ __LINE__, "file:/sp/caf\xc3\xa9", "file:/sp", OK },
	/* Outside the root. */
	{ __LINE__, "file:/spx", "file:/sp", NOT_UNDER },
	{ __LINE__, "file:/etc", "file:/sp", NOT_UNDER },
	{ __LINE__, "file:/", "file:/sp", NOT_UNDER },
	{ __LINE__, "s3://bucket/sp/a", "file:/sp", NOT_UNDER },
	{ __LINE__, "file:/sp/a", "s3://bucket/sp", NOT_UNDER },
	{ __LINE__, "s3://other/sp/a", "s3://bucket/sp", NOT_UNDER },
	{ __LINE__, "hdfs://bucket/sp/a", "s3://bucket/sp", NOT_UNDER },
	{ __LINE__, "file:/sp/a", NULL,
	    "the job has no savepoint directory for it to lie under, nor the "
	    "service a CHECKPOINT_SAVEPOINT_ROOT" },
	/* Not absolute, not normal. */
	{ __LINE__, "file:sp/a", "file:/", "it is not an absolute path" },
	{ __LINE__, "sp/a", "file:/", "it is not an absolute path" },
	{ __LINE__, "file:", "file:/", "it is not an absolute path" },
	{ __LINE__, "s3://bucket", "s3://bucket/",
	    "it is not an absolute path" },
	{ __LINE__, "", "file:/", "it is empty" },
	{ __LINE__, "file:/sp/../etc", "file:/sp",
	    "it holds a . or .. segment" },
	{ __LINE__, "file:/sp/..", "file:/sp", "it holds a . or .. segment" },
	{ __LINE__, "file:/sp/./a", "file:/sp", "it holds a . or .. segment" },
	{ __LINE__, "file:/sp//a", "file:/sp",
	    "it holds an empty segment (//)" },
	{ __LINE__, "file:/sp/a//", "file:/sp",
	    "it holds an empty segment (//)" },
	{ __LINE__, "file://host/sp/a", "file:/sp",
	    "a file: directory names no host" },
	/* Characters a shell would read as its own, and control ones. */
	{ __LINE__, "file:/sp/x --checkpoint-action=exec=touch /tmp/x",
	    "file:/sp", CHARS },
	{ __LINE__, "file:/sp/a\tb", "file:/sp",
	    "it holds a control character" },
	{ __LINE__, "file:/sp/a\nb", "file:/sp",
	    "it holds a control character" },
	{ __LINE__, "file:/sp/$(id)", "file:/sp", CHARS },
	{ __LINE__, "file:/sp/*", "file:/sp", CHARS },
	{ __LINE__, "file:/sp/a;b", "file:/sp", CHARS },
	{ __LINE__, "file:/sp/'a'", "file:/sp", CHARS },
	{ __LINE__, "file:/sp/a\x7f", "file:/sp",
	    "it holds a control character" },
	{ __LINE__,
	    "file:/sp/a\xef\xbf\xbf"
	    "b",
	    "file:/sp", "it holds a NUL or a noncharacter" },
	{ __LINE__, "file:/sp/a\xef\xbf\xbe", "file:/sp",
	    "it holds a NUL or a noncharacter" },
	{ __LINE__, "file:/sp/a\xef\xbf\xbd", "file:/sp", OK },
};

static void
test_dirs(void)
{
	const struct dir_case *c;
	const char *why;
	size_t i;

	for (i = 0; i < sizeof(dir_cases) / sizeof(dir_cases[0]); i++) {
		c = &dir_cases[i];
		why = sppath_dir_refused(c->dir, c->root);
		tap_is_str_at(__FILE__, c->line, why != NULL ? why : OK,
		    c->want, "directory case %zu", i + 1);
	}
}

/* A string of n bytes under a prefix, the caller frees it. */
static char *
long_string(const char *prefix, size_t n)
{
	size_t p = strlen(prefix);
	char *s = malloc(n + 1);

	if (s == NULL)
		abort();
	memcpy(s, prefix, p);
	memset(s + p, 'a', n - p);
	s[n] = '\0';
	return s;
}

static void
test_lengths(void)
{
	char *s;

	s = long_string("file:/sp/", SP_PATH_MAX);
	tap_ok(sppath_dir_refused(s, "file:/sp") == NULL,
	    "a directory of SP_PATH_MAX bytes is taken");
	tap_ok(sppath_path_refused(s) == NULL,
	    "a path of SP_PATH_MAX bytes is taken");
	free(s);
	s = long_string("file:/sp/", SP_PATH_MAX + 1);
	tap_is_str(sppath_dir_refused(s, "file:/sp"),
	    "it is longer than 4096 bytes", "a directory one byte over");
	tap_is_str(sppath_path_refused(s), "it is longer than 4096 bytes",
	    "a path one byte over");
	free(s);
	s = long_string("u", SP_CALLER_MAX);
	tap_ok(sppath_caller_refused(s) == NULL,
	    "a caller of SP_CALLER_MAX bytes is taken");
	free(s);
	s = long_string("u", SP_CALLER_MAX + 1);
	tap_is_str(sppath_caller_refused(s), "it is longer than 256 bytes",
	    "a caller one byte over");
	free(s);
	tap_ok(sppath_caller_refused(NULL) == NULL, "no caller is taken");
	tap_is_str(sppath_path_refused("file:/a b"), CHARS,
	    "a disposal's path: a space refused");
	tap_ok(sppath_path_refused("file:/sp/savepoint-1") == NULL,
	    "a disposal's path: a location taken");
}

int
main(void)
{
	test_dirs();
	test_lengths();
	return tap_done();
}
