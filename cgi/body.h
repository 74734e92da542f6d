/*
 * The request body of POST /jobs/:jobid/checkpoints: its length as the web
 * server announced it (RFC 3875 section 4.1.2) and its JSON
 * (checkpoint-api(7), "POST /jobs/:jobid/checkpoints").
 */
#ifndef BODY_H
#define BODY_H

#include <stddef.h>

#include "checkpoint.h"
#include "ids.h"

enum body_rc {
	BODY_OK,
	BODY_BAD, /* not a CheckpointTriggerRequestBody */
	BODY_BAD_LENGTH, /* CONTENT_LENGTH is not a byte count */
	BODY_TOO_LARGE, /* over the configured limit */
	BODY_NOMEM /* memory ran out: the server's fault, not the body's */
};

struct trigger_body {
	enum ckpt_type type; /* CKPT_CONFIGURED when absent or null */
	int has_trigger_id;
	struct id trigger_id; /* valid if has_trigger_id */
};

/* POST /jobs/:jobid/savepoints or /stop, every field optional. */
struct savepoint_body {
	char *target_dir; /* NULL when absent or null; owned */
	int native; /* formatType NATIVE; CANONICAL by default */
	int cancel_job; /* savepoints only */
	int drain; /* stop only */
	int has_trigger_id;
	struct id trigger_id; /* valid if has_trigger_id */
};

struct json_tokener;

enum body_rc body_length(const char *content_length, size_t max, size_t *len);
int body_unannounced(const char *content_length, const char *transfer_encoding);
int body_is_json(const char *buf, size_t len);
enum body_rc body_parse_trigger(struct json_tokener **, const char *buf,
    size_t len, struct trigger_body *);
enum body_rc body_parse_savepoint(struct json_tokener **, const char *buf,
    size_t len, int stop, struct savepoint_body *);
void body_savepoint_free(struct savepoint_body *);
enum body_rc body_parse_disposal(struct json_tokener **, const char *buf,
    size_t len, char **path);
void body_parser_free(struct json_tokener *);

#endif /* BODY_H */
