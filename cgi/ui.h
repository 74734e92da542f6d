/*
 * The page (cgi/ui/: HTML, CSS, JavaScript modules), embedded at build
 * time by schema/embed.awk and served by the FastCGI program itself at
 * /ui/, so that it works behind every web server, under any prefix and
 * behind the API's own authentication; and the cross-site request rule
 * that keeps another site's page from triggering through a logged-in
 * browser.
 */
#ifndef UI_H
#define UI_H

#include "api.h"
#include "route.h"

/* Generated (cgi/ui_assets.c): file name, then text, ...; NULL-terminated. */
extern const char *const ui_sources[];

struct exchange;

/* Answers GET /ui, /ui/ and /ui/ASSET in r; ui_get is its handler. */
void ui_serve(const struct request *, const struct route *, struct response *);
void ui_get(struct exchange *);

/*
 * 1 if a request with this Origin header (NULL: none was sent) may change
 * anything: no Origin (curl, Flink's clients), exactly cors_origin when
 * that is not "*", or the service's own: one of origins
 * (CHECKPOINT_ORIGINS, space-separated) when it is set, else the same
 * host and port as Host (or as Host and server_port when Host has no
 * port) where Host is an address or localhost, never a name (which DNS
 * rebinding lends to any site).
 */
int origin_allowed(const char *origin, const char *host,
    const char *server_port, const char *cors_origin, const char *origins);
/* Whether the len bytes at origin are an origin origin_allowed can match. */
int origin_valid(const char *origin, size_t len);

/* Bytes of the embedded page, all assets together (for the tests). */
size_t ui_size(void);

#endif /* UI_H */
