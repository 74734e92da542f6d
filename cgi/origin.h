/*
 * The cross-site request rule, which keeps another site's page from
 * triggering through a logged-in browser (checkpoint-api(7), "CROSS-SITE
 * REQUESTS"), and the check of the origins a setting names.
 */
#ifndef ORIGIN_H
#define ORIGIN_H

#include <stddef.h>

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

#endif /* ORIGIN_H */
