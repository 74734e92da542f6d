/*
 * The embedded page; see ui.h (the cross-site request rule is origin.c's).  The assets
 * are answered with an ETag (FNV-1a of the text, computed once) and
 * Cache-Control: no-cache, so that a browser revalidates each load and
 * gets a bodiless 304 while the program is the same.
 */
#include <config.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "exchange.h"
#include "ui.h"

#define UI_MAX_ASSETS 16
#define UI_DIR "cgi/ui/"

static struct asset {
	const char *name; /* as requested: "app.js" */
	const char *text;
	size_t len;
	const char *type;
	char etag[20]; /* "0123456789abcdef", quotes included */
} assets[UI_MAX_ASSETS];
static size_t nassets;
static pthread_once_t assets_once = PTHREAD_ONCE_INIT;

static const char *
ui_type(const char *name)
{
	static const struct {
		const char *ext, *type;
	} types[] = {
		{ ".html", "text/html; charset=utf-8" },
		{ ".js", "text/javascript; charset=utf-8" },
		{ ".css", "text/css; charset=utf-8" },
	};
	size_t i, n = strlen(name), e;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		e = strlen(types[i].ext);
		if (n > e && strcmp(name + n - e, types[i].ext) == 0)
			return types[i].type;
	}
	return "application/octet-stream";
}

static void
ui_load(void)
{
	const char *const *s;
	struct asset *a;
	uint64_t h;
	size_t i;

	for (s = ui_sources;
	     s[0] != NULL && s[1] != NULL && nassets < UI_MAX_ASSETS; s += 2) {
		a = &assets[nassets++];
		a->name = strncmp(s[0], UI_DIR, strlen(UI_DIR)) == 0 ?
		    s[0] + strlen(UI_DIR) :
		    s[0];
		a->text = s[1];
		a->len = strlen(s[1]);
		a->type = ui_type(a->name);
		h = 14695981039346656037ULL;
		for (i = 0; i < a->len; i++)
			h = (h ^ (unsigned char)a->text[i]) * 1099511628211ULL;
		snprintf(a->etag, sizeof(a->etag), "\"%016llx\"",
		    (unsigned long long)h);
	}
}

size_t
ui_size(void)
{
	size_t i, n = 0;

	pthread_once(&assets_once, ui_load);
	for (i = 0; i < nassets; i++)
		n += assets[i].len;
	return n;
}

/* If-None-Match names this ETag, weakly or not, or is "*" (RFC 9110). */
static int
ui_not_modified(const char *inm, const char *etag)
{
	while (inm != NULL && (*inm == ' ' || *inm == '\t'))
		inm++;
	return inm != NULL && (strcmp(inm, "*") == 0 || strstr(inm, etag));
}

void
ui_serve(const struct request *req, const struct route *rt, struct response *r)
{
	const struct asset *a = NULL;
	const char *path = req->path != NULL ? req->path : "";
	size_t i;

	pthread_once(&assets_once, ui_load);
	/*
	 * /ui without its slash: the page's relative URLs (app.js,
	 * ../jobs/overview) need the slash, so send the browser there.  A
	 * relative Location keeps any prefix (/api/ui -> /api/ui/).
	 */
	if (rt->asset.len == 0 &&
	    (path[0] == '\0' || path[strlen(path) - 1] != '/')) {
		r->status = HTTP_302;
		r->location = "ui/";
		r->content_type = "text/plain; charset=utf-8";
		buf_reset(&r->body);
		return;
	}
	for (i = 0; i < nassets && a == NULL; i++)
		if (rt->asset.len == 0 ?
			strcmp(assets[i].name, "index.html") == 0 :
			strlen(assets[i].name) == rt->asset.len &&
			    memcmp(assets[i].name, rt->asset.p,
				rt->asset.len) == 0)
			a = &assets[i];
	if (a == NULL) {
		http_error(r, ERR_NOT_FOUND,
		    req->uri != NULL ? req->uri : path);
		return;
	}
	buf_reset(&r->body);
	if (ui_not_modified(req->if_none_match, a->etag))
		r->status = HTTP_304;
	else if (buf_add(&r->body, a->text, a->len) == 0)
		r->status = HTTP_200;
	else {
		http_error(r, ERR_INTERNAL); /* JSON, as every error */
		return;
	}
	r->etag = a->etag;
	r->content_type = a->type;
}

void
ui_get(struct exchange *x)
{
	ui_serve(x->req, x->route, x->res);
}
