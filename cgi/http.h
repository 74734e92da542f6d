/*
 * HTTP answers: the status table, the error table, and a response that the
 * handlers fill in and the main writes out as CGI headers (RFC 3875 section
 * 6) plus a JSON body.  No status line or error text is spelled anywhere
 * else (checkpoint-api(7), "ERRORS").
 */
#ifndef HTTP_H
#define HTTP_H

#include "buf.h"

enum http_status {
	HTTP_200,
	HTTP_202,
	HTTP_302,
	HTTP_304,
	HTTP_400,
	HTTP_403,
	HTTP_404,
	HTTP_405,
	HTTP_413,
	HTTP_500,
	HTTP_503,
	HTTP__MAX
};

/*
 * Every error the API answers.  Each maps to one status and one message in
 * http.c; the message's %s take the arguments named here.  The texts are
 * Flink's for the same case unless marked ours (checkpoint-api(7),
 * "BEYOND FLINK").
 */
enum api_error {
	/* Unknown path.  %s: REQUEST_URI as sent, query included. */
	ERR_NOT_FOUND,
	/* Known path, wrong method (ours: Flink answers 404).  %s: method. */
	ERR_METHOD,
	/* A path id that is not 32 hex.  %s: "jobid" or "triggerid", value. */
	ERR_PATH_PARAM,
	/*
	 * A query parameter's value that is not one (ours, in the words of
	 * the path's).  %s: its name, its value as sent.
	 */
	ERR_QUERY_PARAM,
	/* The POST body is not a CheckpointTriggerRequestBody. */
	ERR_BODY,
	/* CONTENT_LENGTH disagrees with the body or is not a number. */
	ERR_BODY_LENGTH,
	/* The body is over CHECKPOINT_MAX_BODY.  %s: the limit in bytes. */
	ERR_TOO_LARGE,
	/* No such trigger for this job, or its result expired.  %s: tid, jid. */
	ERR_NO_TRIGGER,
	/* A POST from another site's page (ours; ui.c).  %s: its Origin. */
	ERR_CROSS_SITE,
	/*
	 * The job is not registered: CHECKPOINT_REJECT_UNKNOWN_JOBS (ours),
	 * or the statistics of an unknown job (Flink's).  %s: jid.
	 */
	ERR_NO_JOB,
	/* No such checkpoint stored for the job.  %s: checkpoint id. */
	ERR_NO_CHECKPOINT,
	/* The store stayed locked past the busy timeout (retryable). */
	ERR_BUSY,
	/* The store cannot be opened or read: missing, no permission, not a
	 * database, an I/O error (the log has the path and SQLite's error). */
	ERR_UNAVAILABLE,
	/* The store refuses this service's writes: a file or directory its
	 * user may not write, a read-only file system, a read-only
	 * PostgreSQL transaction.  Retrying cannot help until the operator
	 * acts (the log has the path, the user and the cause). */
	ERR_READONLY,
	/* No database at CHECKPOINT_DB: only checkpointctl init makes one,
	 * so retrying cannot help until the operator runs it. */
	ERR_NO_DATABASE,
	/* Anything else: logged in full, answered without detail. */
	ERR_INTERNAL,
	/* Savepoints, stops and disposals (savepoint.c): Flink's texts. */
	ERR_SAVEPOINT_BODY,
	ERR_STOP_BODY,
	ERR_DISPOSAL_BODY,
	ERR_NO_SAVEPOINT_DIR, /* %s: the request's field for it */
	ERR_NO_SAVEPOINT_PATH,
	ERR_NO_SAVEPOINT, /* %s: triggerId, jobid */
	ERR_NO_DISPOSAL, /* %s: the key's hash, as hex */
	/*
	 * A directory, path or caller past its bound or out of its scope
	 * (ours; sppath.h).  %s: the field's name, why.
	 */
	ERR_FIELD_REFUSED,
	ERR__MAX
};

struct response {
	enum http_status status;
	const char *allow; /* Allow: header value for 405, else NULL */
	const char *content_type; /* NULL: JSON */
	const char *etag; /* the page's validator (ui.c), or NULL */
	const char *location; /* of the page's redirect, or NULL */
	struct buf body; /* JSON, without a trailing newline */
	/*
	 * Memory for the answer ran out: its body is ERR_INTERNAL's, a
	 * constant, not body (http_error).  Read it with response_body.
	 */
	int no_memory;
};

const char *http_status_line(enum http_status);
int http_error(struct response *, enum api_error, ...);
int http_headers(const struct response *, const char *cors_origin,
    struct buf *out);
const char *response_body(const struct response *, size_t *len);
void response_reset(struct response *);
void response_free(struct response *);
/* After the answer: its body kept only if small (buf_shrink); 1 if not. */
int response_shrink(struct response *);

#endif /* HTTP_H */
