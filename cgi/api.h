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
	const char *query; /* QUERY_STRING, raw, or NULL */
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
	/*
	 * Where a POST waits for the committer (commit.h), filled in by its
	 * handler, which then leaves the answer to post->reply; NULL: every
	 * request is answered at once.
	 */
	struct post *post;
};

struct json_tokener;
struct readers;

/*
 * What a process (or each of its threads) answers with, for as long as
 * it runs: settings, its connection, scratch space, and the services it
 * shares with the others.  With readers set, each request borrows a
 * connection from that pool instead (struct exchange); without, it uses
 * the api's own.
 */
struct api {
	const struct settings *settings;
	struct store *store; /* own: NULL until opened, or after a fault */
	struct readers *readers; /* shared read connections, or NULL */
	struct committer *committer; /* shared group commit, or NULL */
	struct buf body; /* request body scratch */
	struct json_tokener *parser; /* kept between requests */
};

void api_init(struct api *, const struct settings *);
void api_free(struct api *);
int api_handle(struct api *, const struct request *, struct response *,
    int64_t now_ms);

#endif /* API_H */
