/*
 * The cross-site request rule: see origin.h.  Below the app and the
 * settings alike, which both read origins.
 */
#include <config.h>

#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "origin.h"

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
