/*
 * The page's server side (cgi/ui.c): the cross-site rule for POSTs, the
 * embedded assets with their types, ETag, 304 and the /ui redirect, and
 * the page's whole weight (under 40 KB).
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "tap.h"
#include "ui.h"

static const struct origin_case {
	int line;
	const char *origin, *host, *cors;
	int allowed;
	const char *server_port; /* NULL unless given */
} origin_cases[] = {
	/* curl and Flink's clients send no Origin. */
	{ __LINE__, NULL, "127.0.0.1:8080", "*", 1, NULL },
	{ __LINE__, NULL, NULL, NULL, 1, NULL },
	/* The page itself: same host and port, either scheme, Host an
	 * address or localhost. */
	{ __LINE__, "http://127.0.0.1:8080", "127.0.0.1:8080", "*", 1, NULL },
	{ __LINE__, "https://127.0.0.1:8443", "127.0.0.1:8443", "*", 1, NULL },
	{ __LINE__, "http://LocalHost:8080", "localhost:8080", "*", 1, NULL },
	{ __LINE__, "http://[::1]:8080", "[::1]:8080", "*", 1, NULL },
	{ __LINE__, "http://10.1.2.3", "10.1.2.3:80", "*", 1, NULL },
	/* A name without CHECKPOINT_ORIGINS: anyone's to point here (DNS
	 * rebinding: Host and Origin both the attacker's). */
	{ __LINE__, "http://evil.example:8080", "evil.example:8080", "*", 0,
	    NULL },
	{ __LINE__, "https://flink.example:8443", "flink.example:8443", "*", 0,
	    NULL },
	{ __LINE__, "https://Flink.Example", "flink.example", NULL, 0, NULL },
	{ __LINE__, "http://flink.example:80", "flink.example", "*", 0, NULL },
	{ __LINE__, "http://localhost.evil:8080", "localhost.evil:8080", "*", 0,
	    NULL },
	{ __LINE__, "http://127.0.0.1.evil:80", "127.0.0.1.evil", "*", 0,
	    NULL },
	/* Another site, or another port of this host. */
	{ __LINE__, "http://evil.example", "127.0.0.1:8080", "*", 0, NULL },
	{ __LINE__, "http://127.0.0.1:8081", "127.0.0.1:8080", "*", 0, NULL },
	{ __LINE__, "http://127.0.0.1", "127.0.0.1:8080", "*", 0, NULL },
	{ __LINE__, "https://flink.example", "flink.example:80", "*", 0, NULL },
	{ __LINE__, "http://flink.example.evil", "flink.example", "*", 0,
	    NULL },
	{ __LINE__, "http://flink.exampl", "flink.example", "*", 0, NULL },
	/* Not an origin: sandboxed frames send "null". */
	{ __LINE__, "null", "127.0.0.1:8080", "*", 0, NULL },
	{ __LINE__, "http://127.0.0.1:8080/x", "127.0.0.1:8080", "*", 0, NULL },
	{ __LINE__, "http://u@127.0.0.1:8080", "127.0.0.1:8080", "*", 0, NULL },
	{ __LINE__, "ftp://127.0.0.1:8080", "127.0.0.1:8080", "*", 0, NULL },
	{ __LINE__, "http://", "", "*", 0, NULL },
	{ __LINE__, "http://127.0.0.1:8080", NULL, "*", 0, NULL },
	/* CHECKPOINT_CORS_ORIGIN: that origin exactly; "*" is no allowlist. */
	{ __LINE__, "https://ops.example", "127.0.0.1:8080",
	    "https://ops.example", 1, NULL },
	{ __LINE__, "https://ops.example:1", "127.0.0.1:8080",
	    "https://ops.example", 0, NULL },
	{ __LINE__, "*", "127.0.0.1:8080", "*", 0, NULL },
	/* Host without its port (Debian's nginx): SERVER_PORT's, or none. */
	{ __LINE__, "http://127.0.0.1:8080", "127.0.0.1", "*", 1, "8080" },
	{ __LINE__, "http://127.0.0.1:9000", "127.0.0.1", "*", 0, "8080" },
	{ __LINE__, "http://127.0.0.1:80800", "127.0.0.1", "*", 0, "8080" },
	{ __LINE__, "http://127.0.0.1:8080", "127.0.0.1", "*", 0, NULL },
	{ __LINE__, "http://127.0.0.1", "127.0.0.1", "*", 1, "8080" },
	{ __LINE__, "http://127.0.0.1:8080", "127.0.0.1:9000", "*", 0, "8080" },
	{ __LINE__, "http://[::1]:8080", "[::1]", "*", 1, "8080" },
	{ __LINE__, "http://[::1]:8080", "[::1]:9000", "*", 0, "8080" },
	{ __LINE__, "http://evil.example:8080", "127.0.0.1", "*", 0, "8080" },
};

/* CHECKPOINT_ORIGINS set: those origins, and no Host is believed. */
#define OURS "https://flink.example:8443  http://Flink.Example http://[::1]:80"
static const struct origin_case listed_cases[] = {
	{ __LINE__, NULL, "evil.example", "*", 1, "8443" },
	{ __LINE__, "https://flink.example:8443", "evil.example", "*", 1,
	    "8443" },
	{ __LINE__, "https://FLINK.example:8443", "flink.example:8443", "*", 1,
	    "8443" },
	{ __LINE__, "http://flink.example", "flink.example", "*", 1, "8443" },
	{ __LINE__, "http://flink.example:80", "127.0.0.1", "*", 1, "8443" },
	{ __LINE__, "http://[::1]", "[::1]", "*", 1, "8443" },
	/* The scheme and the port count; Host alone is nothing. */
	{ __LINE__, "https://flink.example", "flink.example", "*", 0, "8443" },
	{ __LINE__, "http://flink.example:8443", "flink.example:8443", "*", 0,
	    "8443" },
	{ __LINE__, "http://evil.example", "evil.example", "*", 0, "8443" },
	{ __LINE__, "http://127.0.0.1:8080", "127.0.0.1:8080", "*", 0, "8443" },
	{ __LINE__, "http://flink.exampl", "flink.example", "*", 0, "8443" },
	{ __LINE__, "http://flink.example.evil", "flink.example", "*", 0,
	    "8443" },
	{ __LINE__, "null", "flink.example", "*", 0, "8443" },
	{ __LINE__, "http://flink.example/", "flink.example", "*", 0, "8443" },
};

/* Each case of n, with CHECKPOINT_ORIGINS origins (NULL: unset). */
static void
test_origin_cases(const struct origin_case *cases, size_t n,
    const char *origins)
{
	const struct origin_case *c;
	size_t i;

	for (i = 0; i < n; i++) {
		c = &cases[i];
		tap_is_int_at(__FILE__, c->line,
		    origin_allowed(c->origin, c->host, c->server_port, c->cors,
			origins),
		    c->allowed,
		    "Origin %s, Host %s, SERVER_PORT %s, CORS %s, ORIGINS %s",
		    c->origin ? c->origin : "-", c->host ? c->host : "-",
		    c->server_port ? c->server_port : "-",
		    c->cors ? c->cors : "-", origins ? origins : "-");
	}
}

static void
test_origins(void)
{
	test_origin_cases(origin_cases,
	    sizeof(origin_cases) / sizeof(origin_cases[0]), NULL);
	test_origin_cases(listed_cases,
	    sizeof(listed_cases) / sizeof(listed_cases[0]), OURS);
}

/* GET path with If-None-Match inm through the router and ui_serve. */
static void
get(const char *path, const char *inm, struct response *r)
{
	struct request req;
	struct route rt;

	memset(&req, 0, sizeof(req));
	req.method = "GET";
	req.path = path;
	req.uri = path;
	req.if_none_match = inm;
	route_match("GET", path, &rt);
	response_reset(r);
	ui_serve(&req, &rt, r);
}

static void
test_assets(void)
{
	static const struct {
		const char *path, *type, *has;
	} files[] = {
		{ "/ui/", "text/html; charset=utf-8", "<!doctype html>" },
		{ "/ui/index.html", "text/html; charset=utf-8", "app.js" },
		{ "/ui/app.js", "text/javascript; charset=utf-8", "import " },
		{ "/ui/chart.js", "text/javascript; charset=utf-8", "svg" },
		{ "/ui/style.css", "text/css; charset=utf-8", "{" },
	};
	struct response r = { 0 };
	char etag[32], list[80];
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		get(files[i].path, NULL, &r);
		tap_is_int(r.status, HTTP_200, "%s: 200", files[i].path);
		tap_is_str(r.content_type, files[i].type, "%s: type",
		    files[i].path);
		tap_ok(strstr(buf_str(&r.body), files[i].has) != NULL,
		    "%s: its text (%s)", files[i].path, files[i].has);
		tap_ok(r.etag != NULL && strlen(r.etag) == 18 &&
			r.etag[0] == '"',
		    "%s: a quoted 16-hex ETag", files[i].path);
		snprintf(etag, sizeof(etag), "%s", r.etag ? r.etag : "");
		get(files[i].path, etag, &r);
		tap_is_int(r.status, HTTP_304, "%s: 304 on its ETag",
		    files[i].path);
		tap_is_int((long long)r.body.len, 0, "%s: 304 has no body",
		    files[i].path);
		snprintf(list, sizeof(list), "\"x\", W/%s", etag);
		get(files[i].path, list, &r);
		tap_is_int(r.status, HTTP_304, "%s: 304 on a list, weak",
		    files[i].path);
		get(files[i].path, "\"0000000000000000\"", &r);
		tap_is_int(r.status, HTTP_200, "%s: 200 on another ETag",
		    files[i].path);
	}
	get("/ui/app.js", NULL, &r);
	snprintf(etag, sizeof(etag), "%s", r.etag);
	get("/ui/style.css", NULL, &r);
	tap_ok(strcmp(etag, r.etag) != 0, "each file its own ETag");

	get("/ui", NULL, &r);
	tap_is_int(r.status, HTTP_302, "/ui: redirected");
	tap_is_str(r.location, "ui/",
	    "/ui: to ui/, relative, under any prefix");
	get("/ui/nothing.js", NULL, &r);
	tap_is_int(r.status, HTTP_404, "an unknown file: 404");
	tap_ok(strstr(buf_str(&r.body), "Not found: /ui/nothing.js") != NULL,
	    "an unknown file: the API's JSON error");
	response_free(&r);
}

/* The CGI headers of the page's answers (http.c): 200, 304, 302. */
static void
test_headers(void)
{
	struct response r = { 0 };
	struct buf h = { 0 };
	const char *s;

	get("/ui/style.css", NULL, &r);
	http_headers(&r, "*", &h);
	s = buf_str(&h);
	tap_ok(strncmp(s,
		   "Status: 200 OK\r\nContent-Type: text/css; "
		   "charset=utf-8\r\nContent-Length: ",
		   strlen("Status: 200 OK\r\nContent-Type: text/css; "
			  "charset=utf-8\r\nContent-Length: ")) == 0,
	    "200: the asset's type and length");
	tap_ok(strstr(s, "\r\nETag: \"") != NULL &&
		strstr(s, "\r\nCache-Control: no-cache\r\n") != NULL,
	    "200: ETag and Cache-Control: no-cache");
	tap_ok(strstr(s, "Content-Security-Policy: default-src 'self';") !=
		    NULL &&
		strstr(s, "frame-ancestors 'none'") != NULL &&
		strstr(s, "X-Frame-Options: DENY\r\n") != NULL,
	    "200: its own files only, never framed");
	tap_ok(strlen(s) > 4 && strcmp(s + strlen(s) - 4, "\r\n\r\n") == 0,
	    "200: the headers end with an empty line");

	get("/ui/style.css", r.etag, &r);
	buf_reset(&h);
	http_headers(&r, "*", &h);
	s = buf_str(&h);
	tap_ok(strncmp(s, "Status: 304 Not Modified\r\n", 26) == 0 &&
		strstr(s, "Content-Length") == NULL &&
		strstr(s, "\r\nContent-Type:") == NULL &&
		strstr(s, "\r\nETag: \"") != NULL,
	    "304: no Content-Length or type, the ETag");

	get("/ui", NULL, &r);
	buf_reset(&h);
	http_headers(&r, "*", &h);
	tap_ok(strstr(buf_str(&h), "Status: 302 Found\r\n") != NULL &&
		strstr(buf_str(&h), "\r\nLocation: ui/\r\n") != NULL &&
		strstr(buf_str(&h), "Content-Length: 0\r\n") != NULL,
	    "302: Location: ui/, no body");
	buf_free(&h);
	response_free(&r);
}

int
main(void)
{
	size_t n;

	test_origins();
	test_assets();
	test_headers();
	n = ui_size();
	/* The budget t3800 holds the served page to, as embedded. */
	tap_ok(n > 1000 && n < 44 * 1024,
	    "the page weighs %zu bytes (< 44 KiB)", n);
	return tap_done();
}
