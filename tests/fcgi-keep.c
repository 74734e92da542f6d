/*
 * fcgi-keep: sends FastCGI requests one after another on one connection
 * that it asks the responder to keep (FCGI_KEEP_CONN), as nginx with
 * fastcgi_keep_conn does, and prints each answer's first line (its
 * "Status: ..." header), or "closed" if the connection ended before the
 * request's FCGI_END_REQUEST.  Each request is written whole, body and
 * all, before its answer is read.  cgi-fcgi, which t1000 uses otherwise,
 * opens a connection per request.
 *
 *   fcgi-keep SOCKET METHOD PATH BODY [METHOD PATH BODY ...]
 *
 * SOCKET is a unix socket's path; BODY is sent as is, or, as @N, N bytes
 * of 'x'; CONTENT_LENGTH is its length.  Exit 0 once every request was
 * sent and read, 1 on a failure to connect, 2 on bad arguments.
 */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define FCGI_BEGIN_REQUEST 1
#define FCGI_END_REQUEST 3
#define FCGI_PARAMS 4
#define FCGI_STDIN 5
#define FCGI_STDOUT 6
#define FCGI_RESPONDER 1
#define FCGI_KEEP_CONN 1
#define RECORD_MAX 65535

struct out {
	unsigned char *p;
	size_t len, cap;
};

static void
out_add(struct out *o, const void *p, size_t n)
{
	if (n == 0)
		return;
	while (o->p == NULL || o->len + n > o->cap) {
		o->cap = o->cap ? o->cap * 2 : 4096;
		if ((o->p = realloc(o->p, o->cap)) == NULL) {
			perror("fcgi-keep: realloc");
			exit(1);
		}
	}
	memcpy(o->p + o->len, p, n);
	o->len += n;
}

/* One record of request 1, padded to 8 bytes. */
static void
record(struct out *o, int type, const void *p, size_t n)
{
	static const unsigned char pad[8];
	unsigned char h[8] = { 1, (unsigned char)type, 0, 1,
		(unsigned char)(n >> 8), (unsigned char)n,
		(unsigned char)((8 - n % 8) % 8), 0 };

	out_add(o, h, sizeof(h));
	out_add(o, p, n);
	out_add(o, pad, h[6]);
}

/* A name-value pair of FCGI_PARAMS (both lengths under 128). */
static void
param(struct out *o, const char *name, const char *value)
{
	unsigned char l[2] = { (unsigned char)strlen(name),
		(unsigned char)strlen(value) };

	out_add(o, l, 2);
	out_add(o, name, l[0]);
	out_add(o, value, l[1]);
}

static int
write_all(int fd, const unsigned char *p, size_t n)
{
	ssize_t w;

	while (n > 0) {
		if ((w = write(fd, p, n)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int
read_all(int fd, unsigned char *p, size_t n)
{
	ssize_t r;

	while (n > 0) {
		if ((r = read(fd, p, n)) == -1 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

/* Sends one request; prints its status line; -1 if the connection ended. */
static int
exchange(int fd, const char *method, const char *path, const char *body,
    size_t blen)
{
	static const unsigned char begin[8] = { 0, FCGI_RESPONDER,
		FCGI_KEEP_CONN };
	struct out req = { 0 }, params = { 0 }, answer = { 0 };
	unsigned char h[8], c[RECORD_MAX + 255];
	char len[32], *nl;
	size_t i, n;
	int rc = -1;

	snprintf(len, sizeof(len), "%zu", blen);
	param(&params, "REQUEST_METHOD", method);
	param(&params, "PATH_INFO", path);
	param(&params, "REQUEST_URI", path);
	param(&params, "CONTENT_LENGTH", len);
	record(&req, FCGI_BEGIN_REQUEST, begin, sizeof(begin));
	record(&req, FCGI_PARAMS, params.p, params.len);
	record(&req, FCGI_PARAMS, "", 0);
	for (i = 0; i < blen; i += n) {
		n = blen - i < 65528 ? blen - i : 65528;
		record(&req, FCGI_STDIN, body + i, n);
	}
	record(&req, FCGI_STDIN, "", 0);
	if (write_all(fd, req.p, req.len) == -1)
		goto out;
	for (;;) {
		if (read_all(fd, h, 8) == -1 ||
		    read_all(fd, c, (size_t)(h[4] << 8 | h[5]) + h[6]) == -1)
			goto out;
		if (h[1] == FCGI_STDOUT)
			out_add(&answer, c, (size_t)(h[4] << 8 | h[5]));
		else if (h[1] == FCGI_END_REQUEST)
			break;
	}
	out_add(&answer, "", 1);
	if ((nl = strpbrk((char *)answer.p, "\r\n")) != NULL)
		*nl = '\0';
	printf("%s\n", (char *)answer.p);
	rc = 0;
out:
	if (rc == -1)
		printf("closed\n");
	free(req.p);
	free(params.p);
	free(answer.p);
	return rc;
}

int
main(int argc, char **argv)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char *body;
	size_t blen;
	int fd, i;

	if (argc < 5 || (argc - 2) % 3 != 0 ||
	    strlen(argv[1]) >= sizeof(sun.sun_path)) {
		fprintf(stderr,
		    "usage: fcgi-keep SOCKET METHOD PATH BODY "
		    "[METHOD PATH BODY ...]\n");
		return 2;
	}
	strcpy(sun.sun_path, argv[1]);
	if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) == -1 ||
	    connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
		fprintf(stderr, "fcgi-keep: %s: %s\n", argv[1],
		    strerror(errno));
		return 1;
	}
	for (i = 2; i < argc; i += 3) {
		if (argv[i + 2][0] == '@') {
			blen = strtoul(argv[i + 2] + 1, NULL, 10);
			if ((body = malloc(blen + 1)) == NULL)
				return 1;
			memset(body, 'x', blen);
		} else {
			blen = strlen(argv[i + 2]);
			if ((body = strdup(argv[i + 2])) == NULL)
				return 1;
		}
		if (exchange(fd, argv[i], argv[i + 1], body, blen) == -1) {
			free(body);
			break;
		}
		free(body);
	}
	close(fd);
	fflush(stdout);
	return 0;
}
