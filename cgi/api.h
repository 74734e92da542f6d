/*
 * The API: pure logic over a parsed request and the store.  It knows
 * nothing of FastCGI, sockets or the environment; the mains fill in a
 * struct request and write out the struct response.
 */
#ifndef API_H
#define API_H

#include <stddef.h>
#include <stdint.h>

#include "commit.h"
#include "http.h"
#include "settings.h"
#include "store.h"

/* Reads up to n body bytes into p; returns the count, short only at EOF. */
typedef size_t (*body_reader)(void *ctx, char *p, size_t n);

struct request {
	const char *method; /* REQUEST_METHOD */
	const char *path; /* PATH_INFO, decoded by the server */
	const char *uri; /* REQUEST_URI, raw, for 404 texts */
	const char *content_length; /* CONTENT_LENGTH, may be NULL */
	const char *transfer_encoding; /* HTTP_TRANSFER_ENCODING, or NULL */
	const char *remote_user; /* REMOTE_USER, may be NULL */
	const char *remote_addr; /* REMOTE_ADDR, may be NULL */
	const char *origin; /* HTTP_ORIGIN, or NULL */
	const char *host; /* HTTP_HOST, or NULL */
	const char *server_port; /* SERVER_PORT, or NULL */
	const char *if_none_match; /* HTTP_IF_NONE_MATCH, or NULL */
	body_reader read_body;
	void *ctx;
};

struct json_tokener;
struct readers;

/*
 * One per process (or per thread): settings, the store, scratch space.
 * With readers set, the store is borrowed from that pool for the length
 * of one request; without, it is the api's own.
 */
struct api {
	const struct settings *settings;
	struct store *store; /* NULL until opened, or after a fault */
	struct readers *readers; /* shared read connections, or NULL */
	int borrowed; /* store is the pool's, until the request ends */
	struct committer *committer; /* shared group commit, with reply */
	struct buf body; /* request body scratch */
	struct json_tokener *parser; /* kept between requests */
	/*
	 * With a committer, a POST is answered by reply, called in the
	 * committer thread once its transaction is over, with the response
	 * api_handle was given; api_handle returns 1 at once.
	 */
	void (*reply)(struct api *, const struct response *);
	struct commit_req pending; /* the POST being committed: pending_rec */
	struct trigger_rec pending_rec;
	struct response *answer; /* api_handle's, until reply */
};

void api_init(struct api *, const struct settings *);
void api_free(struct api *);
int api_handle(struct api *, const struct request *, struct response *,
    int64_t now_ms);

#endif /* API_H */
