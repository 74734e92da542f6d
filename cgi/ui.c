/*
 * The embedded page and the cross-site request rule; see ui.h.  The assets
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

/*
 * The authority of an Origin ("scheme://host[:port]", RFC 6454) of len
 * bytes, without the scheme's default port (in *defport); its length in
 * *alen.  NULL for anything else ("null", a path).
 */
static const char *
origin_authority(const char *origin, size_t len, size_t *alen,
    const char **defport)
{
	const char *a;

	if (len > 7 && strncasecmp(origin, "http://", 7) == 0) {
		a = origin + 7;
		*defport = ":80";
	} else if (len > 8 && strncasecmp(origin, "https://", 8) == 0) {
		a = origin + 8;
		*defport = ":443";
	} else
		return NULL;
	*alen = len - (size_t)(a - origin);
	if (strcspn(a, "/?#@ ") < *alen)
		return NULL;
	return a;
}

/* Drops port (":80") from the end of s[0..*len), if it is there. */
static void
drop_port(const char *s, size_t *len, const char *port)
{
	size_t n = strlen(port);

	if (*len > n && strncmp(s + *len - n, port, n) == 0)
		*len -= n;
}

/* Whether a Host value of len bytes ends in a port ("[::1]" has none). */
static int
host_has_port(const char *host, size_t len)
{
	size_t i;

	for (i = len; i > 0 && host[i - 1] != ']'; i--)
		if (host[i - 1] == ':')
			return 1;
	return 0;
}

int
origin_valid(const char *origin, size_t len)
{
	const char *defport;
	size_t alen;

	return origin_authority(origin, len, &alen, &defport) != NULL;
}

/*
 * Whether origin (NUL-terminated) is the one of len bytes at listed: the
 * same scheme, host without case and port, the default one or none alike.
 */
static int
origin_is(const char *origin, const char *listed, size_t len)
{
	const char *a, *b, *pa, *pb;
	size_t alen, blen;

	if ((a = origin_authority(origin, strlen(origin), &alen, &pa)) ==
		NULL ||
	    (b = origin_authority(listed, len, &blen, &pb)) == NULL ||
	    strcmp(pa, pb) != 0)
		return 0;
	drop_port(a, &alen, pa);
	drop_port(b, &blen, pb);
	return alen == blen && strncasecmp(a, b, alen) == 0;
}

/* Whether origin is one of the space-separated list. */
static int
origin_listed(const char *origin, const char *list)
{
	size_t n;

	for (; *list != '\0'; list += n) {
		list += strspn(list, " ");
		n = strcspn(list, " ");
		if (n > 0 && origin_is(origin, list, n))
			return 1;
	}
	return 0;
}

/*
 * Whether a Host names this server in a way no other site's DNS can: an
 * address or localhost.  A name is anyone's to point here (DNS
 * rebinding), so a page of evil.example sent here comes with Host and
 * Origin both evil.example: only CHECKPOINT_ORIGINS may vouch for names.
 */
static int
host_is_address(const char *host, size_t len)
{
	size_t i;

	if (host_has_port(host, len))
		len = (size_t)((const char *)memrchr(host, ':', len) - host);
	if (len > 0 && host[0] == '[')
		return 1;
	if (len == 9 && strncasecmp(host, "localhost", 9) == 0)
		return 1;
	for (i = 0; i < len; i++)
		if ((host[i] < '0' || host[i] > '9') && host[i] != '.')
			return 0;
	return len > 0;
}

/*
 * Whether origin is this server's by the request alone: same host and
 * port as Host (or as Host and server_port when Host has no port), Host
 * an address (host_is_address).
 */
static int
origin_same_host(const char *origin, const char *host, const char *server_port)
{
	const char *auth, *defport;
	size_t alen, hlen, plen;

	if (host == NULL ||
	    (auth = origin_authority(origin, strlen(origin), &alen,
		 &defport)) == NULL ||
	    !host_is_address(host, strlen(host)))
		return 0;
	/*
	 * The scheme is not compared: behind a proxy that ends TLS the app
	 * sees http for the page's https; a page of another scheme on the
	 * same host and port is the same server.
	 */
	hlen = strlen(host);
	drop_port(auth, &alen, defport);
	drop_port(host, &hlen, defport);
	if (alen == hlen && strncasecmp(auth, host, alen) == 0)
		return 1;
	/*
	 * A Host without its port (Debian's nginx sends $host): the port is
	 * then the one the server took the request on, SERVER_PORT.
	 */
	if (host_has_port(host, strlen(host)) || server_port == NULL)
		return 0;
	plen = strlen(server_port);
	return alen == hlen + 1 + plen && strncasecmp(auth, host, hlen) == 0 &&
	    auth[hlen] == ':' &&
	    memcmp(auth + hlen + 1, server_port, plen) == 0;
}

int
origin_allowed(const char *origin, const char *host, const char *server_port,
    const char *cors_origin, const char *origins)
{
	if (origin == NULL)
		return 1;
	/* "*", the default, lets every site read answers, not trigger. */
	if (cors_origin != NULL && strcmp(cors_origin, "*") != 0 &&
	    strcmp(origin, cors_origin) == 0)
		return 1;
	if (origins != NULL)
		return origin_listed(origin, origins);
	return origin_same_host(origin, host, server_port);
}
