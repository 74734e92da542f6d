/*
 * The page (cgi/ui/: HTML, CSS, JavaScript modules), embedded at build
 * time by schema/embed.awk and served by the FastCGI program itself at
 * /ui/, so that it works behind every web server, under any prefix and
 * behind the API's own authentication.  The cross-site request rule
 * that keeps another site's page from triggering through a logged-in
 * browser is origin.h's.
 */
#ifndef UI_H
#define UI_H

#include "api.h"
#include "origin.h"
#include "route.h"

/* Generated (cgi/ui_assets.c): file name, then text, ...; NULL-terminated. */
extern const char *const ui_sources[];

struct exchange;

/* Answers GET /ui, /ui/ and /ui/ASSET in r; ui_get is its handler. */
void ui_serve(const struct request *, const struct route *, struct response *);
void ui_get(struct exchange *);

/* Bytes of the embedded page, all assets together (for the tests). */
size_t ui_size(void);

#endif /* UI_H */
