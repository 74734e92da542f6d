/*
 * Following a checkpoint on a Flink JobManager.  See jobmanager.h.
 *
 * One request at a time per follow, each a libcurl easy handle on a multi
 * handle of the follow's own, performed without waiting whenever the
 * runner steps it.  What Flink answers decides the next request:
 *
 *   POST .../checkpoints      202: taken; poll its status
 *   GET .../checkpoints/:tid  IN_PROGRESS: poll again, less often each
 *                             time up to a second; COMPLETED with an id:
 *                             ask its details; with failureCause: ended
 *                             404: Flink no longer knows the trigger:
 *                             look for it in the statistics
 *   GET .../details/:id       external_path: ended (404: without a path)
 *   GET .../checkpoints       the one checkpoint triggered since the POST,
 *                             if there is exactly one: its outcome
 *
 * A savepoint or stop (POST .../savepoints or .../stop, 202) is polled at
 * .../savepoints/:tid until COMPLETED with a location, then its id is
 * looked for in the statistics (JM_SP_ID: the history's savepoint at that
 * path, asked again while the statistics' cache may hide it); a disposal
 * (POST /savepoint-disposal, 200 with Flink's own request id) at
 * /savepoint-disposal/:rid until COMPLETED.  Their failures are Flink's
 * "failure-cause".
 *
 * No answer (refused, timed out) or a 503 is tried again after a wait that
 * doubles up to 10 s, however long it takes: nothing is lost while a
 * JobManager is down.  Any other answer ends the follow with Flink's own
 * error text as the failure.
 */
#include <config.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#ifdef HAVE_LIBCURL
#include <curl/curl.h>
#endif

#include "buf.h"
#include "jobmanager.h"
#include "log.h"

#define JM_CONNECT_MS 3000 /* a connection not made by then: down */
#define JM_REQUEST_MS 10000 /* a request not answered by then: down */
#define JM_POLL_FIRST_MS 50
#define JM_POLL_MAX_MS 1000
#define JM_RETRY_FIRST_MS 500
#define JM_RETRY_MAX_MS 10000
#define JM_ERROR_MAX 8192 /* bytes of Flink's error text kept */
/*
 * Flink's statistics are cached (rest.cache.checkpoint-statistics.timeout,
 * 3 s by default): a checkpoint just completed may not be in its details
 * yet.  They are asked again this long before its path is given up.
 */
#define JM_DETAILS_MS 30000

#define JM_REST_CLASS "org.apache.flink.runtime.rest.util.RestClientException"
#define JM_CKPT_CLASS "org.apache.flink.runtime.checkpoint.CheckpointException"

enum jm_state { JM_POST, JM_STATUS, JM_DETAILS, JM_HISTORY, JM_SP_ID, JM_DONE };

struct jm_follow {
	char *url; /* the JobManager's REST endpoint, no trailing slash */
	char job[33], trigger[33];
	enum ckpt_type type;
	enum jm_kind kind;
	char *target_dir, *dispose_path; /* JM_SAVEPOINT, JM_STOP; JM_DISPOSE */
	int native, cancel_job, drain;
	char rid[33]; /* a disposal: Flink's own request id */
	enum jm_state state;
	int accepted;
	int down; /* the last attempt did not reach the JobManager */
	int64_t sent_ms; /* just before the POST that Flink took */
	int64_t attempt_ms; /* just before the request in flight */
	int64_t next_ms; /* when the next request may go */
	int64_t wait_ms; /* the wait before it */
	int64_t completed_ms; /* when Flink said COMPLETED */
	struct buf body; /* the answer being read */
	struct buf path; /* the request's path, for the messages */
	int64_t id;
	char *location, *class, *trace, *throwable;
#ifdef HAVE_LIBCURL
	CURLM *multi;
	CURL *easy; /* NULL: no request in flight */
	struct curl_slist *headers;
	char error[CURL_ERROR_SIZE];
#endif
};

/* Ends f with a failure: class, and a trace made of fmt. */
static void jm_fail(struct jm_follow *, const char *class, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
jm_fail(struct jm_follow *f, const char *class, const char *fmt, ...)
{
	char text[JM_ERROR_MAX + 512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	free(f->class);
	free(f->trace);
	f->class = strdup(class);
	f->trace = strdup(text);
	f->state = JM_DONE;
}

struct jm_follow *
jm_start(const char *url, const char *job, const char *trigger,
    enum ckpt_type type, int64_t now_ms)
{
	struct jm_op op = { JM_CHECKPOINT, NULL, 0, 0, 0, NULL };
	struct jm_follow *f = jm_start_op(url, job, trigger, &op, now_ms);

	if (f != NULL)
		f->type = type;
	return f;
}

struct jm_follow *
jm_start_op(const char *url, const char *job, const char *trigger,
    const struct jm_op *op, int64_t now_ms)
{
	struct jm_follow *f;
	size_t len;

	if ((f = calloc(1, sizeof(*f))) == NULL)
		return NULL;
	if ((f->url = strdup(url)) == NULL) {
		free(f);
		return NULL;
	}
	len = strlen(f->url);
	while (len > 0 && f->url[len - 1] == '/')
		f->url[--len] = '\0';
	snprintf(f->job, sizeof(f->job), "%s", job);
	snprintf(f->trigger, sizeof(f->trigger), "%s", trigger);
	f->kind = op->kind;
	f->native = op->native;
	f->cancel_job = op->cancel_job;
	f->drain = op->drain;
	if ((op->target_dir != NULL &&
		(f->target_dir = strdup(op->target_dir)) == NULL) ||
	    (op->path != NULL &&
		(f->dispose_path = strdup(op->path)) == NULL)) {
		jm_free(f);
		return NULL;
	}
	f->state = JM_POST;
	f->next_ms = now_ms;
#ifdef HAVE_LIBCURL
	{
		static int curl_ready;

		if (!curl_ready && curl_global_init(CURL_GLOBAL_DEFAULT) == 0)
			curl_ready = 1;
		if (!curl_ready || (f->multi = curl_multi_init()) == NULL ||
		    (f->headers = curl_slist_append(NULL,
			 "Content-Type: application/json")) == NULL)
			jm_fail(f, JM_REST_CLASS,
			    "%s: libcurl could not be set up\n"
			    "\tat checkpoint-runner (%s)\n",
			    JM_REST_CLASS, f->url);
	}
#else
	jm_fail(f, JM_REST_CLASS,
	    "%s: this checkpoint-runner was built without libcurl: it "
	    "cannot trigger checkpoints on the JobManager %s\n"
	    "\tat checkpoint-runner (./configure --with-curl)\n",
	    JM_REST_CLASS, f->url);
#endif
	return f;
}

int
jm_accepted(const struct jm_follow *f)
{
	return f->accepted;
}

void
jm_result(const struct jm_follow *f, struct jm_result *r)
{
	memset(r, 0, sizeof(*r));
	r->checkpoint_id = f->id;
	r->location = f->class == NULL ? f->location : NULL;
	r->failure_class = f->class;
	r->failure_trace = f->class != NULL ? f->trace : NULL;
	r->failure_throwable = f->class != NULL ? f->throwable : NULL;
}

#ifdef HAVE_LIBCURL
static size_t
jm_write(char *p, size_t size, size_t n, void *arg)
{
	struct jm_follow *f = arg;

	return buf_add(&f->body, p, size * n) == 0 ? size * n : 0;
}

/* Lets the request in flight go. */
static void
jm_end_request(struct jm_follow *f)
{
	if (f->easy == NULL)
		return;
	curl_multi_remove_handle(f->multi, f->easy);
	curl_easy_cleanup(f->easy);
	f->easy = NULL;
}

/* The POST's path, by what is asked. */
static void
jm_post_path(struct jm_follow *f)
{
	switch (f->kind) {
	case JM_CHECKPOINT:
		buf_printf(&f->path, "/jobs/%s/checkpoints", f->job);
		break;
	case JM_SAVEPOINT:
		buf_printf(&f->path, "/jobs/%s/savepoints", f->job);
		break;
	case JM_STOP:
		buf_printf(&f->path, "/jobs/%s/stop", f->job);
		break;
	case JM_DISPOSE:
		buf_printf(&f->path, "/savepoint-disposal");
		break;
	}
}

/* The POST's body, in Flink's names (a stop's directory is camelCase). */
static int
jm_post_body(const struct jm_follow *f, struct buf *b)
{
	struct json_object *o = json_object_new_object();
	const char *format = f->native ? "NATIVE" : "CANONICAL";
	int rc = -1;

	if (o == NULL)
		return -1;
	switch (f->kind) {
	case JM_CHECKPOINT:
		json_object_object_add(o, "checkpointType",
		    json_object_new_string(ckpt_type_name(f->type)));
		break;
	case JM_SAVEPOINT:
	case JM_STOP: {
		int stop = f->kind == JM_STOP;

		json_object_object_add(o,
		    stop ? "targetDirectory" : "target-directory",
		    json_object_new_string(f->target_dir));
		json_object_object_add(o, stop ? "drain" : "cancel-job",
		    json_object_new_boolean(stop ? f->drain : f->cancel_job));
		json_object_object_add(o, "formatType",
		    json_object_new_string(format));
		break;
	}
	case JM_DISPOSE:
		json_object_object_add(o, "savepoint-path",
		    json_object_new_string(f->dispose_path));
		break;
	}
	if (f->kind != JM_DISPOSE)
		json_object_object_add(o, "triggerId",
		    json_object_new_string(f->trigger));
	rc = buf_adds(b,
		 json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN)) ==
		0 ?
	    0 :
	    -1;
	json_object_put(o);
	return rc;
}

/* The path of the request of f's state, in f->path; -1: none is due. */
static int
jm_request_path(struct jm_follow *f)
{
	switch (f->state) {
	case JM_POST:
		jm_post_path(f);
		break;
	case JM_HISTORY:
	case JM_SP_ID:
		buf_printf(&f->path, "/jobs/%s/checkpoints", f->job);
		break;
	case JM_STATUS:
		if (f->kind == JM_DISPOSE)
			buf_printf(&f->path, "/savepoint-disposal/%s", f->rid);
		else
			buf_printf(&f->path, "/jobs/%s/%s/%s", f->job,
			    f->kind == JM_CHECKPOINT ? "checkpoints" :
						       "savepoints",
			    f->trigger);
		break;
	case JM_DETAILS:
		buf_printf(&f->path, "/jobs/%s/checkpoints/details/%lld",
		    f->job, (long long)f->id);
		break;
	case JM_DONE:
		return -1;
	}
	return 0;
}

/* A handle for url, its answer into f; NULL: out of memory. */
static CURL *
jm_easy(struct jm_follow *f, const char *url)
{
	CURL *e;

	if ((e = curl_easy_init()) == NULL)
		return NULL;
	f->error[0] = '\0';
	curl_easy_setopt(e, CURLOPT_URL, url);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, (long)JM_CONNECT_MS);
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)JM_REQUEST_MS);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, jm_write);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, f);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, f->error);
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, f->headers);
	return e;
}

/* Sends the request of f's state; -1: it could not be made. */
static int
jm_request(struct jm_follow *f, int64_t now_ms)
{
	struct buf url = { 0 }, body = { 0 };
	int rc = -1;

	buf_reset(&f->path);
	buf_reset(&f->body);
	if (jm_request_path(f) == -1 ||
	    buf_printf(&url, "%s%s", f->url, buf_str(&f->path)) != 0 ||
	    (f->easy = jm_easy(f, buf_str(&url))) == NULL)
		goto out;
	/* The service's triggerId: Flink starts one checkpoint (or
	 * savepoint) for it, however often it is sent. */
	if (f->state == JM_POST && jm_post_body(f, &body) == 0)
		curl_easy_setopt(f->easy, CURLOPT_COPYPOSTFIELDS,
		    buf_str(&body));
	if ((f->state == JM_POST && body.len == 0) ||
	    curl_multi_add_handle(f->multi, f->easy) != CURLM_OK) {
		curl_easy_cleanup(f->easy);
		f->easy = NULL;
		goto out;
	}
	f->attempt_ms = now_ms;
	rc = 0;
out:
	buf_free(&url);
	buf_free(&body);
	return rc;
}

/*
 * Ends f with the error Flink answered.  One errors[] text that is
 * Flink's exception and trace: that trace, and its class.  Anything else
 * (an unhandled exception's two texts, a router's plain one, a body that
 * is not Flink's): all of it, as Flink's client reports it, a
 * RestClientException of the texts in brackets.
 */
static void
jm_fail_answer(struct jm_follow *f, long http)
{
	const char *method = f->state == JM_POST ? "POST" : "GET";
	char text[JM_ERROR_MAX + 1], class[256];
	struct json_object *root, *errors;
	struct buf all = { 0 };
	const char *e = NULL;
	size_t n, i;

	root = json_tokener_parse(
	    buf_str(&f->body) != NULL ? buf_str(&f->body) : "");
	if (root != NULL &&
	    json_object_object_get_ex(root, "errors", &errors) &&
	    json_object_is_type(errors, json_type_array) &&
	    json_object_array_length(errors) > 0) {
		e = json_object_get_string(
		    json_object_array_get_idx(errors, 0));
		for (i = 0; i < json_object_array_length(errors); i++)
			buf_printf(&all, "%s%s", i > 0 ? ", " : "",
			    json_object_get_string(
				json_object_array_get_idx(errors, i)));
		if (json_object_array_length(errors) > 1)
			e = NULL;
	}
	if (e == NULL)
		e = all.len > 0		      ? buf_str(&all) :
		    buf_str(&f->body) != NULL ? buf_str(&f->body) :
						"";
	snprintf(text, sizeof(text), "%s", e);
	buf_free(&all);
	json_object_put(root);
	/* Flink's text starts with its exception's class when it is one. */
	n = strspn(text,
	    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	    "._$");
	if (n > 0 && n < sizeof(class) && memchr(text, '.', n) != NULL &&
	    (text[n] == ':' || text[n] == '\n' || text[n] == '\0')) {
		memcpy(class, text, n);
		class[n] = '\0';
		jm_fail(f, class,
		    "%s%s\tat checkpoint-runner (%s %s%s "
		    "answered HTTP %ld)\n",
		    text, text[strlen(text) - 1] == '\n' ? "" : "\n", method,
		    f->url, buf_str(&f->path), http);
	} else
		jm_fail(f, JM_REST_CLASS,
		    "%s: [%s]\n\tat checkpoint-runner "
		    "(%s %s%s answered HTTP %ld)\n",
		    JM_REST_CLASS, text, method, f->url, buf_str(&f->path),
		    http);
}

/* A string member of o, or NULL. */
static const char *
jm_string(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (o == NULL || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static char *
jm_strdup(const char *s)
{
	return s != NULL ? strdup(s) : NULL;
}

/* Waits before asking again: longer each time, up to max. */
static void
jm_later(struct jm_follow *f, int64_t now_ms, int64_t first, int64_t max)
{
	f->wait_ms = f->wait_ms < first ? first :
	    f->wait_ms * 2 > max	? max :
					  f->wait_ms * 2;
	f->next_ms = now_ms + f->wait_ms;
}

/* Waits a moment, then asks the next request of state. */
static void
jm_next(struct jm_follow *f, enum jm_state state, int64_t now_ms)
{
	f->state = state;
	f->wait_ms = 0;
	f->next_ms = now_ms;
	f->completed_ms = now_ms;
}

/*
 * A status answer (200): IN_PROGRESS, or COMPLETED with Flink's failure
 * ("failureCause" for a checkpoint, "failure-cause" for the rest), or
 * else a checkpoint's id, a savepoint's location, a disposal's nothing.
 * A checkpoint's id is a positive integer: a completed checkpoint
 * without one could never be recorded (the store keeps ids above 0), so
 * it fails the trigger with the answer, as any answer that is not
 * Flink's, rather than being asked of Flink again and again.
 */
static void
jm_status(struct jm_follow *f, struct json_object *root, int64_t now_ms)
{
	struct json_object *status, *op, *v, *cause;
	const char *id = NULL, *location;

	if (json_object_object_get_ex(root, "status", &status))
		id = jm_string(status, "id");
	if (id != NULL && strcmp(id, "IN_PROGRESS") == 0) {
		jm_later(f, now_ms, JM_POLL_FIRST_MS, JM_POLL_MAX_MS);
		return;
	}
	if (id == NULL || strcmp(id, "COMPLETED") != 0 ||
	    !json_object_object_get_ex(root, "operation", &op)) {
		jm_fail_answer(f, 200);
		return;
	}
	if (json_object_object_get_ex(op,
		f->kind == JM_CHECKPOINT ? "failureCause" : "failure-cause",
		&cause) &&
	    jm_string(cause, "class") != NULL) {
		/* Flink's own failure, every field as it sent it. */
		f->class = jm_strdup(jm_string(cause, "class"));
		f->trace = jm_strdup(jm_string(cause, "stack-trace") != NULL ?
			jm_string(cause, "stack-trace") :
			f->class);
		f->throwable = jm_strdup(
		    jm_string(cause, "serialized-throwable"));
		f->state = JM_DONE;
	} else if (f->kind == JM_DISPOSE)
		f->state = JM_DONE;
	else if (f->kind == JM_CHECKPOINT &&
	    json_object_object_get_ex(op, "checkpointId", &v) &&
	    json_object_is_type(v, json_type_int) &&
	    json_object_get_int64(v) > 0) {
		f->id = json_object_get_int64(v);
		jm_next(f, JM_DETAILS, now_ms);
	} else if (f->kind != JM_CHECKPOINT &&
	    (location = jm_string(op, "location")) != NULL) {
		f->location = jm_strdup(location);
		jm_next(f, JM_SP_ID, now_ms);
	} else
		jm_fail_answer(f, 200);
}

/*
 * The statistics, asked for a completed savepoint's id: the history's
 * savepoint at its location.  Not there yet (the statistics' cache):
 * asked again a while, then recorded without an id.
 */
static void
jm_sp_id(struct jm_follow *f, struct json_object *root, int64_t now_ms)
{
	struct json_object *history, *e, *v;
	const char *path;
	size_t i;

	if (root != NULL &&
	    json_object_object_get_ex(root, "history", &history) &&
	    json_object_is_type(history, json_type_array))
		for (i = 0; i < json_object_array_length(history); i++) {
			e = json_object_array_get_idx(history, i);
			if ((path = jm_string(e, "external_path")) != NULL &&
			    strcmp(path, f->location) == 0 &&
			    json_object_object_get_ex(e, "id", &v)) {
				f->id = json_object_get_int64(v);
				f->state = JM_DONE;
				return;
			}
		}
	if (now_ms - f->completed_ms < JM_DETAILS_MS) {
		jm_later(f, now_ms, JM_POLL_MAX_MS / 2, JM_POLL_MAX_MS);
		return;
	}
	log_warn("savepoint %s job %s: the JobManager %s's statistics do not "
		 "show it: recorded without its checkpoint id",
	    f->trigger, f->job, f->url);
	f->state = JM_DONE;
}

/*
 * The statistics, asked when Flink no longer knew the trigger: the
 * checkpoints (not savepoints) it triggered since the POST was sent.
 * Exactly one: this trigger's, whatever its end; none or several: the
 * outcome cannot be told, and the trigger fails saying so.
 */
/*
 * The entries of history (an array) that are checkpoints triggered since
 * f's POST was sent: how many, and the last in *found.
 */
static size_t
jm_history_since(const struct jm_follow *f, struct json_object *history,
    struct json_object **found)
{
	struct json_object *e, *v;
	size_t i, n = 0;

	for (i = 0; i < json_object_array_length(history); i++) {
		e = json_object_array_get_idx(history, i);
		if (json_object_object_get_ex(e, "is_savepoint", &v) &&
		    json_object_get_boolean(v))
			continue;
		if (!json_object_object_get_ex(e, "trigger_timestamp", &v) ||
		    json_object_get_int64(v) < f->sent_ms)
			continue;
		*found = e;
		n++;
	}
	return n;
}

static void
jm_history(struct jm_follow *f, struct json_object *root, int64_t now_ms)
{
	struct json_object *history, *v, *found = NULL;
	size_t n;
	const char *status;

	if (!json_object_object_get_ex(root, "history", &history) ||
	    !json_object_is_type(history, json_type_array)) {
		jm_fail_answer(f, 200);
		return;
	}
	if ((n = jm_history_since(f, history, &found)) != 1) {
		jm_fail(f, JM_CKPT_CLASS,
		    "%s: The JobManager no longer knows trigger %s (404 on "
		    "its status), and its checkpoint statistics hold %zu "
		    "checkpoints triggered since it was sent: its outcome "
		    "cannot be told.\n\tat checkpoint-runner (%s)\n",
		    JM_CKPT_CLASS, f->trigger, n, f->url);
		return;
	}
	status = jm_string(found, "status");
	if (status != NULL && strcmp(status, "IN_PROGRESS") == 0) {
		jm_later(f, now_ms, JM_POLL_MAX_MS, JM_POLL_MAX_MS);
		return;
	}
	if (json_object_object_get_ex(found, "id", &v) &&
	    json_object_is_type(v, json_type_int))
		f->id = json_object_get_int64(v);
	if (status != NULL && strcmp(status, "COMPLETED") == 0) {
		/* Without an id it is no answer: see jm_status. */
		if (f->id <= 0) {
			jm_fail_answer(f, 200);
			return;
		}
		f->location = jm_strdup(jm_string(found, "external_path"));
		f->state = JM_DONE;
		log_info("trigger %s job %s: Flink no longer knew it; "
			 "checkpoint %lld recovered from its statistics",
		    f->trigger, f->job, (long long)f->id);
		return;
	}
	jm_fail(f, JM_CKPT_CLASS,
	    "%s: %s\n\tat checkpoint-runner (recovered from the checkpoint "
	    "statistics of %s: it no longer knew trigger %s)\n",
	    JM_CKPT_CLASS,
	    jm_string(found, "failure_message") != NULL ?
		jm_string(found, "failure_message") :
		"Checkpoint failed.",
	    f->url, f->trigger);
}

/*
 * Whether the JobManager failed to answer (no connection, or 503): then
 * f asks again later.  Else it is heard again, if it was down.
 */
static int
jm_down(struct jm_follow *f, CURLcode code, long http, int64_t now_ms)
{
	if (code != CURLE_OK || http == 503) {
		if (!f->down)
			log_warn("trigger %s job %s: the JobManager %s did not "
				 "answer (%s): asking again",
			    f->trigger, f->job, f->url,
			    code != CURLE_OK ?
				(f->error[0] != '\0' ?
					f->error :
					curl_easy_strerror(code)) :
				"503 Service Unavailable");
		f->down = 1;
		jm_later(f, now_ms, JM_RETRY_FIRST_MS, JM_RETRY_MAX_MS);
		return 1;
	}
	if (f->down) {
		log_info("trigger %s job %s: the JobManager %s answers again",
		    f->trigger, f->job, f->url);
		f->down = 0;
		f->wait_ms = 0;
	}
	return 0;
}

/* The answer to f's POST: accepted (202), then its status is asked. */
static void
jm_posted(struct jm_follow *f, long http, struct json_object *root,
    int64_t now_ms)
{
	/* A disposal is 200 with Flink's own request id. */
	if (f->kind == JM_DISPOSE && http == 200 && root != NULL &&
	    jm_string(root, "request-id") != NULL &&
	    strlen(jm_string(root, "request-id")) < sizeof(f->rid)) {
		snprintf(f->rid, sizeof(f->rid), "%s",
		    jm_string(root, "request-id"));
		http = 202;
	}
	if (http != 202) {
		jm_fail_answer(f, http);
		return;
	}
	f->accepted = 1;
	f->sent_ms = f->attempt_ms;
	f->state = JM_STATUS;
	f->wait_ms = 0;
	f->next_ms = now_ms;
}

/*
 * The answer to a status request: a checkpoint Flink forgot (404) is
 * looked for in its statistics; a savepoint's outcome cannot be told.
 */
static void
jm_status_answer(struct jm_follow *f, long http, struct json_object *root,
    int64_t now_ms)
{
	if (http == 404 && f->kind == JM_CHECKPOINT) {
		log_warn("trigger %s job %s: the JobManager %s no "
			 "longer knows it: looking for it in its "
			 "checkpoint statistics",
		    f->trigger, f->job, f->url);
		f->state = JM_HISTORY;
		f->wait_ms = 0;
		f->next_ms = now_ms;
	} else if (root == NULL)
		jm_fail_answer(f, http);
	else
		jm_status(f, root, now_ms);
}

/*
 * The checkpoint's details, for its path.  Not there yet (the
 * statistics' cache), or no longer (past Flink's history window): asked
 * again a while, then the checkpoint is recorded without its path.
 */
static void
jm_details(struct jm_follow *f, long http, struct json_object *root,
    int64_t now_ms)
{
	if (root != NULL && jm_string(root, "external_path") != NULL) {
		f->location = jm_strdup(jm_string(root, "external_path"));
		f->state = JM_DONE;
		return;
	}
	if (now_ms - f->completed_ms < JM_DETAILS_MS) {
		jm_later(f, now_ms, JM_POLL_MAX_MS / 2, JM_POLL_MAX_MS);
		return;
	}
	log_warn("trigger %s job %s: checkpoint %lld: the "
		 "JobManager %s gave no details (HTTP %ld): "
		 "recorded without its path",
	    f->trigger, f->job, (long long)f->id, f->url, http);
	f->state = JM_DONE;
}

/* What Flink answered to the request of f's state. */
static void
jm_answer(struct jm_follow *f, CURLcode code, long http, int64_t now_ms)
{
	struct json_object *root = NULL;

	if (jm_down(f, code, http, now_ms))
		return;
	if (http == 200 && buf_str(&f->body) != NULL)
		root = json_tokener_parse(buf_str(&f->body));
	switch (f->state) {
	case JM_POST:
		jm_posted(f, http, root, now_ms);
		break;
	case JM_STATUS:
		jm_status_answer(f, http, root, now_ms);
		break;
	case JM_DETAILS:
		jm_details(f, http, root, now_ms);
		break;
	case JM_HISTORY:
		if (root == NULL)
			jm_fail_answer(f, http);
		else
			jm_history(f, root, now_ms);
		break;
	case JM_SP_ID:
		jm_sp_id(f, root, now_ms);
		break;
	case JM_DONE:
		break;
	}
	json_object_put(root);
}
#endif /* HAVE_LIBCURL */

int
jm_step(struct jm_follow *f, int64_t now_ms)
{
#ifdef HAVE_LIBCURL
	CURLMsg *m;
	CURLcode code;
	long http;
	int running, left;

	if (f->state == JM_DONE)
		return 1;
	if (f->easy == NULL) {
		if (now_ms < f->next_ms)
			return 0;
		if (jm_request(f, now_ms) == -1) {
			jm_fail(f, JM_REST_CLASS,
			    "%s: out of memory asking %s\n"
			    "\tat checkpoint-runner\n",
			    JM_REST_CLASS, f->url);
			return 1;
		}
	}
	curl_multi_perform(f->multi, &running);
	while ((m = curl_multi_info_read(f->multi, &left)) != NULL) {
		if (m->msg != CURLMSG_DONE)
			continue;
		code = m->data.result;
		http = 0;
		curl_easy_getinfo(f->easy, CURLINFO_RESPONSE_CODE, &http);
		jm_end_request(f);
		jm_answer(f, code, http, now_ms);
		break;
	}
#endif
	return f->state == JM_DONE;
}

void
jm_free(struct jm_follow *f)
{
	if (f == NULL)
		return;
#ifdef HAVE_LIBCURL
	jm_end_request(f);
	if (f->multi != NULL)
		curl_multi_cleanup(f->multi);
	curl_slist_free_all(f->headers);
#endif
	buf_free(&f->body);
	buf_free(&f->path);
	free(f->url);
	free(f->target_dir);
	free(f->dispose_path);
	free(f->location);
	free(f->class);
	free(f->trace);
	free(f->throwable);
	free(f);
}
