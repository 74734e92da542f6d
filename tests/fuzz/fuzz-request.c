/*
 * libFuzzer harness for whole requests through api_handle (cgi/api.c)
 * over a real store, one SQLite file in a temporary directory made once.
 * The input is REQUEST_METHOD, PATH_INFO and CONTENT_LENGTH, each ended by
 * a newline (a missing one is unset), then the body bytes.  Every answer
 * must be one of checkpoint-api(7)'s statuses with a JSON body; a 202 is
 * exactly {"request-id":"<32 lowercase hex>"} and a status GET right after
 * it (of the checkpoint, or of the savepoint for a savepoint or a stop)
 * answers 200 (checkpoint-api(7): a status request right after a trigger
 * never answers 404).  The page's files (/ui/) and /metrics are the
 * answers that are not JSON.
 */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "api.h"
#include "route.h"

int LLVMFuzzerInitialize(int *, char ***);
int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* Fixed, so that a crash replays the same retention decisions. */
#define FUZZ_NOW_MS INT64_C(1700000000000)

static char fuzz_dir[4096];
static char fuzz_db[4096 + 32];
static struct settings fuzz_settings;
static struct api fuzz_api;

static void
fuzz_cleanup(void)
{
	static const char *const suffixes[] = { "", "-wal", "-shm",
		"-journal" };
	char path[sizeof(fuzz_db) + 16];
	size_t i;

	api_free(&fuzz_api);
	for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", fuzz_db, suffixes[i]);
		unlink(path);
	}
	rmdir(fuzz_dir);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");

	(void)argc;
	(void)argv;
	snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/fuzz-request.XXXXXX",
	    tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
	if (mkdtemp(fuzz_dir) == NULL) {
		perror(fuzz_dir);
		exit(1);
	}
	snprintf(fuzz_db, sizeof(fuzz_db), "%s/checkpoints.db", fuzz_dir);
	fuzz_settings.db_path = fuzz_db;
	fuzz_settings.store_ms = DEFAULT_STORE_MS;
	fuzz_settings.max_body = DEFAULT_MAX_BODY;
	fuzz_settings.cors_origin = "*";
	/* WAL without an fsync per commit: same answers, far more runs. */
	fuzz_settings.sync_normal = 1;
	fuzz_settings.busy_ms = DEFAULT_BUSY_MS;
	fuzz_settings.history = DEFAULT_HISTORY;
	fuzz_settings.max_queued = DEFAULT_MAX_QUEUED;
	fuzz_settings.history_keep = DEFAULT_HISTORY_KEEP;
	fuzz_settings.history_age_ms = DEFAULT_HISTORY_AGE_MS;
	api_init(&fuzz_api, &fuzz_settings);
	atexit(fuzz_cleanup);
	return 0;
}

struct body_src {
	const char *p;
	size_t len, off;
};

static size_t
read_body(void *ctx, char *p, size_t n)
{
	struct body_src *src = ctx;

	if (n > src->len - src->off)
		n = src->len - src->off;
	memcpy(p, src->p + src->off, n);
	src->off += n;
	return n;
}

/* Checks the invariants every answer keeps (checkpoint-api(7), "ERRORS"). */
static void
check_response(const struct response *r)
{
	json_object *root, *errs;

	/* The page (/ui/): one of its files, or a redirect to it. */
	if (r->content_type != NULL) {
		FUZZ_CHECK(r->allow == NULL);
		if (r->status == HTTP_302)
			FUZZ_CHECK(r->location != NULL && r->body.len == 0);
		else
			FUZZ_CHECK(r->status == HTTP_200 && r->body.len > 0 &&
			    r->etag != NULL);
		return;
	}
	/* No Origin here: never refused as cross-site (403). */
	FUZZ_CHECK(r->status == HTTP_200 || r->status == HTTP_202 ||
	    r->status == HTTP_400 || r->status == HTTP_404 ||
	    r->status == HTTP_405 || r->status == HTTP_413 ||
	    r->status == HTTP_503);
	FUZZ_CHECK((r->allow != NULL) == (r->status == HTTP_405));
	root = fuzz_json_parse(buf_str(&r->body), r->body.len);
	FUZZ_CHECK(json_object_is_type(root, json_type_object));
	if (r->status != HTTP_200 && r->status != HTTP_202) {
		FUZZ_CHECK(json_object_object_length(root) == 1 &&
		    json_object_object_get_ex(root, "errors", &errs) &&
		    json_object_is_type(errs, json_type_array) &&
		    json_object_array_length(errs) == 1 &&
		    json_object_is_type(json_object_array_get_idx(errs, 0),
			json_type_string));
	}
	json_object_put(root);
}

/*
 * After a 202: the trigger is committed, so its status is 200 at once.
 * Nothing runs the triggers here, so each is still running, unless the
 * job's queue was full (CHECKPOINT_MAX_QUEUED): then it failed at once.
 */
static void
check_status_after(const char *path, const char *rid)
{
	static const char in_progress[] =
	    "{\"status\":{\"id\":\"IN_PROGRESS\"},\"operation\":null}";
	/* A checkpoint trigger's failure (camelCase, as Flink's): only
	 * checkpoint triggers have a queue bound. */
	static const char failed[] = "{\"status\":{\"id\":\"COMPLETED\"},"
				     "\"operation\":{\"failureCause\":";
	struct request req;
	struct response resp = { 0 };
	struct route rt;
	const char *body;
	char get[512];

	route_match("POST", path, &rt);
	FUZZ_CHECK(rt.jobid.len == 32);
	FUZZ_CHECK(rt.id == ROUTE_TRIGGER || rt.id == ROUTE_SAVEPOINT ||
	    rt.id == ROUTE_STOP);
	snprintf(get, sizeof(get), "/jobs/%.*s/%s/%s", (int)rt.jobid.len,
	    rt.jobid.p, rt.id == ROUTE_TRIGGER ? "checkpoints" : "savepoints",
	    rid);
	memset(&req, 0, sizeof(req));
	req.method = "GET";
	req.path = get;
	req.uri = get;
	api_handle(&fuzz_api, &req, &resp, FUZZ_NOW_MS);
	check_response(&resp);
	FUZZ_CHECK(resp.status == HTTP_200);
	body = buf_str(&resp.body);
	FUZZ_CHECK(strcmp(body, in_progress) == 0 ||
	    (strncmp(body, failed, sizeof(failed) - 1) == 0 &&
		strstr(body, "maximum number of queued") != NULL));
	response_free(&resp);
}

/* Splits off the text up to the next '\n' as a string; NULL if none. */
static const char *
next_field(char **p, char *end)
{
	char *s = *p, *nl;

	if (s >= end || (nl = memchr(s, '\n', (size_t)(end - s))) == NULL)
		return NULL;
	*nl = '\0';
	*p = nl + 1;
	return s;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char prefix[] = "{\"request-id\":\"";
	struct request req;
	struct response resp = { 0 };
	struct body_src src;
	char *copy, *p, *end, rid[33];
	const char *body;

	FUZZ_CHECK((copy = malloc(size + 1)) != NULL);
	memcpy(copy, data, size);
	copy[size] = '\0';
	p = copy;
	end = copy + size;
	memset(&req, 0, sizeof(req));
	req.method = next_field(&p, end);
	req.path = next_field(&p, end);
	req.content_length = next_field(&p, end);
	req.uri = req.path;
	req.remote_user = "fuzz";
	req.remote_addr = "127.0.0.1";
	src.p = p;
	src.len = (size_t)(end - p);
	src.off = 0;
	req.read_body = read_body;
	req.ctx = &src;

	api_handle(&fuzz_api, &req, &resp, FUZZ_NOW_MS);
	check_response(&resp);
	if (resp.status == HTTP_202) {
		body = buf_str(&resp.body);
		FUZZ_CHECK(resp.body.len == sizeof(prefix) - 1 + 32 + 2 &&
		    strncmp(body, prefix, sizeof(prefix) - 1) == 0 &&
		    fuzz_is_lower_hex(body + sizeof(prefix) - 1, 32, 32) &&
		    strcmp(body + sizeof(prefix) - 1 + 32, "\"}") == 0);
		memcpy(rid, body + sizeof(prefix) - 1, 32);
		rid[32] = '\0';
		check_status_after(req.path, rid);
	}
	response_free(&resp);
	free(copy);
	return 0;
}
