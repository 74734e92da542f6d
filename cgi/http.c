/*
 * The status and error tables and the writing of CGI response headers.
 * See http.h.
 */
#include <config.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "http.h"

/* Reason phrases as Netty writes them (Flink's REST server). */
static const char *const http_status_lines[HTTP__MAX] = {
	[HTTP_200] = "200 OK",
	[HTTP_202] = "202 Accepted",
	[HTTP_302] = "302 Found",
	[HTTP_304] = "304 Not Modified",
	[HTTP_400] = "400 Bad Request",
	[HTTP_403] = "403 Forbidden",
	[HTTP_404] = "404 Not Found",
	[HTTP_405] = "405 Method Not Allowed",
	[HTTP_413] = "413 Payload Too Large",
	[HTTP_500] = "500 Internal Server Error",
	[HTTP_503] = "503 Service Unavailable",
};

static const struct {
	enum http_status status;
	const char *fmt;
} api_errors[ERR__MAX] = {
	[ERR_NOT_FOUND] = { HTTP_404, "Not found: %s" },
	[ERR_METHOD] = { HTTP_405,
	    "Method %s is not allowed here; see the Allow header." },
	[ERR_PATH_PARAM] = { HTTP_400,
	    "Bad request, could not parse parameters: "
	    "Cannot resolve path parameter (%s) from value \"%s\"." },
	[ERR_QUERY_PARAM] = { HTTP_400,
	    "Bad request, could not parse parameters: "
	    "Cannot resolve query parameter (%s) from value \"%s\"." },
	[ERR_BODY] = { HTTP_400,
	    "Request did not match expected format "
	    "CheckpointTriggerRequestBody." },
	[ERR_BODY_LENGTH] = { HTTP_400,
	    "Bad request received: the body does not match its "
	    "Content-Length." },
	[ERR_TOO_LARGE] = { HTTP_413,
	    "Request entity too large: the limit is %s bytes. "
	    "Try to raise [CHECKPOINT_MAX_BODY]" },
	[ERR_NO_TRIGGER] = { HTTP_404,
	    "There is no checkpoint operation with triggerId=%s for job %s." },
	[ERR_CROSS_SITE] = { HTTP_403,
	    "Cross-site request refused: Origin %s is neither this "
	    "service's nor CHECKPOINT_CORS_ORIGIN." },
	[ERR_NO_JOB] = { HTTP_404, "Job %s not found" },
	[ERR_NO_CHECKPOINT] = { HTTP_404,
	    "Could not find checkpointing statistics for checkpoint %s." },
	/* Ours: the cause, never the path (that is for the log). */
	[ERR_BUSY] = { HTTP_503,
	    "Service temporarily unavailable: the checkpoint database is "
	    "locked. Please retry." },
	[ERR_UNAVAILABLE] = { HTTP_503,
	    "Service temporarily unavailable: the checkpoint database cannot "
	    "be opened or read. Please retry." },
	[ERR_READONLY] = { HTTP_503,
	    "Service unavailable: the checkpoint database is not writable "
	    "by this service (file permissions, a read-only file system or "
	    "a read-only server). Retrying will not help until the operator "
	    "fixes it." },
	[ERR_NO_DATABASE] = { HTTP_503,
	    "Service unavailable: the checkpoint database does not exist. "
	    "Retrying will not help until the operator creates it with "
	    "checkpointctl init." },
	[ERR_INTERNAL] = { HTTP_500, "Internal server error." },
	[ERR_SAVEPOINT_BODY] = { HTTP_400,
	    "Request did not match expected format "
	    "SavepointTriggerRequestBody." },
	[ERR_STOP_BODY] = { HTTP_400,
	    "Request did not match expected format "
	    "StopWithSavepointRequestBody." },
	[ERR_DISPOSAL_BODY] = { HTTP_400,
	    "Request did not match expected format SavepointDisposalRequest." },
	[ERR_NO_SAVEPOINT_DIR] = { HTTP_400,
	    "Config key [execution.checkpointing.savepoint-dir] is not set. "
	    "Property [%s] must be provided." },
	[ERR_NO_SAVEPOINT_PATH] = { HTTP_400,
	    "Field savepoint-path must not be omitted or be null." },
	[ERR_NO_SAVEPOINT] = { HTTP_404,
	    "There is no savepoint operation with triggerId=%s for job %s." },
	[ERR_NO_DISPOSAL] = { HTTP_404,
	    "Operation not found under key: "
	    "org.apache.flink.runtime.rest.handler.async.OperationKey@%s" },
	[ERR_FIELD_REFUSED] = { HTTP_400, "Field %s is refused: %s." },
};

const char *
http_status_line(enum http_status st)
{
	return st < HTTP__MAX ? http_status_lines[st] :
				http_status_lines[HTTP_500];
}

/*
 * ERR_INTERNAL's answer as a constant, for when memory for any answer
 * ran out: the client still gets a whole one, of the contract's form.
 */
static const char http_no_memory[] =
    "{\"errors\":[\"Internal server error.\"]}";

/*
 * Fills r with the error's status and {"errors":["<message>"]}.  The
 * arguments are the %s of the error's format (see enum api_error).  -1:
 * memory ran out, and r is ERR_INTERNAL's answer, its body the constant.
 */
int
http_error(struct response *r, enum api_error e, ...)
{
	struct buf msg = { 0 };
	va_list ap;
	int n, rc = -1;

	if (e >= ERR__MAX)
		e = ERR_INTERNAL;
	r->status = api_errors[e].status;
	r->content_type = NULL;
	buf_reset(&r->body);
	va_start(ap, e);
	n = vsnprintf(NULL, 0, api_errors[e].fmt, ap);
	va_end(ap);
	if (n >= 0 && buf_reserve(&msg, (size_t)n) == 0) {
		va_start(ap, e);
		vsnprintf(msg.p, (size_t)n + 1, api_errors[e].fmt, ap);
		va_end(ap);
		if (buf_adds(&r->body, "{\"errors\":[") == 0 &&
		    buf_add_json_string(&r->body, msg.p, (size_t)n) == 0 &&
		    buf_adds(&r->body, "]}") == 0)
			rc = 0;
	}
	buf_free(&msg);
	if (rc == -1) {
		r->status = HTTP_500;
		r->etag = r->location = r->allow = NULL;
		r->no_memory = 1;
	}
	return rc;
}

/* Appends "name: value\r\n"; a NULL value appends nothing. */
static int
http_header(struct buf *out, const char *name, const char *value)
{
	if (value == NULL)
		return 0;
	if (buf_adds(out, name) == -1 || buf_add(out, ": ", 2) == -1 ||
	    buf_adds(out, value) == -1 || buf_add(out, "\r\n", 2) == -1)
		return -1;
	return 0;
}

/*
 * The page's headers (ui.c): revalidated at each load, never framed by
 * another site (a click on its trigger button through a frame), and
 * nothing run or fetched but its own files.
 */
#define PAGE_HEADERS \
	"Cache-Control: no-cache\r\n" \
	"X-Content-Type-Options: nosniff\r\n" \
	"X-Frame-Options: DENY\r\n" \
	"Referrer-Policy: no-referrer\r\n" \
	"Content-Security-Policy: default-src 'self'; img-src 'self' data:; " \
	"frame-ancestors 'none'; form-action 'none'; base-uri 'none'\r\n"

/*
 * The CGI header block for r (RFC 3875 section 6.3): Status, Content-Type,
 * Content-Length (none for a 304), and the optional Allow,
 * Access-Control-Allow-Origin, and the page's Location, ETag and others.
 */
int
http_headers(const struct response *r, const char *cors_origin, struct buf *out)
{
	size_t len;

	(void)response_body(r, &len);
	/* Appends, not printf: this runs for every request. */
	if (http_header(out, "Status", http_status_line(r->status)) == -1 ||
	    (r->status != HTTP_304 &&
		(http_header(out, "Content-Type",
		     r->content_type != NULL ? r->content_type :
					       "application/json; "
					       "charset=UTF-8") == -1 ||
		    buf_adds(out, "Content-Length: ") == -1 ||
		    buf_add_size(out, len) == -1 ||
		    buf_add(out, "\r\n", 2) == -1)) ||
	    http_header(out, "Location", r->location) == -1 ||
	    http_header(out, "ETag", r->etag) == -1 ||
	    ((r->etag != NULL || r->location != NULL) &&
		buf_adds(out, PAGE_HEADERS) == -1) ||
	    http_header(out, "Allow", r->allow) == -1 ||
	    http_header(out, "Access-Control-Allow-Origin", cors_origin) == -1)
		return -1;
	return buf_add(out, "\r\n", 2);
}

/* The answer's body, len bytes. */
const char *
response_body(const struct response *r, size_t *len)
{
	if (r->no_memory) {
		*len = sizeof(http_no_memory) - 1;
		return http_no_memory;
	}
	*len = r->body.len;
	return buf_str(&r->body);
}

void
response_reset(struct response *r)
{
	r->no_memory = 0;
	r->status = HTTP_500;
	r->allow = NULL;
	r->content_type = NULL;
	r->etag = NULL;
	r->location = NULL;
	buf_reset(&r->body);
}

void
response_free(struct response *r)
{
	buf_free(&r->body);
}

int
response_shrink(struct response *r)
{
	return buf_shrink(&r->body, BUF_KEEP);
}
