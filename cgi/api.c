/*
 * A request in, an answer out: route it, refuse what no route takes, and
 * call the route's handler (route.c names one for each).  The handlers
 * are in the files named for what they answer: trigger.c, savepoint.c,
 * stats.c, jobs.c, metrics.c and ui.c.
 */
#include <config.h>

#include <string.h>

#include "api.h"
#include "body.h"
#include "exchange.h"
#include "readers.h"
#include "route.h"
#include "ui.h"

void
api_init(struct api *a, const struct settings *st)
{
	memset(a, 0, sizeof(*a));
	a->settings = st;
}

void
api_free(struct api *a)
{
	store_close(a->store);
	a->store = NULL;
	buf_free(&a->body);
	body_parser_free(a->parser);
	a->parser = NULL;
}

/*
 * Answers req in r and returns 0; or returns 1 when req->post's reply
 * will answer (a POST, once committed).
 */
int
api_handle(struct api *a, const struct request *req, struct response *r,
    int64_t now_ms)
{
	struct route rt;
	struct exchange x = { .api = a,
		.req = req,
		.route = &rt,
		.res = r,
		.now_ms = now_ms };
	const char *method = req->method != NULL ? req->method : "";

	response_reset(r);
	route_match(method, req->path, &rt);
	/* CHECKPOINT_METRICS=0: no such path. */
	if (rt.id == ROUTE_NONE ||
	    (rt.id == ROUTE_METRICS && !a->settings->metrics)) {
		http_error(r, ERR_NOT_FOUND,
		    req->uri != NULL ? req->uri : (req->path ? req->path : ""));
		return 0;
	}
	if (!rt.method_ok) {
		r->allow = rt.allow;
		http_error(r, ERR_METHOD, method);
		return 0;
	}
	/* Anything but a read, from another site's page (ui.h). */
	if (strcmp(method, "GET") != 0 &&
	    !origin_allowed(req->origin, req->host, req->server_port,
		a->settings->cors_origin, a->settings->origins)) {
		http_error(r, ERR_CROSS_SITE, req->origin);
		return 0;
	}
	rt.handler(&x);
	/* Open, or NULL after a fault. */
	if (x.on_loan)
		readers_give(a->readers, x.loan);
	return x.deferred;
}
