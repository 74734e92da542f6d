/*
 * checkpoint-api.fcgi: the FastCGI responder.  It keeps nothing between
 * requests but the store's connection and prepared statements.  Under a
 * process manager (lighttpd bin-path, mod_fcgid, spawn-fcgi) it accepts on
 * the listening socket it was given as fd 0; with -s it opens its own; run
 * as plain CGI (no listening socket, REQUEST_METHOD set) it serves the one
 * request in its environment and exits.
 */
#include <config.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <fcgiapp.h>

#include "handler.h"
#include "log.h"
#include "settings.h"

static volatile sig_atomic_t	 quit;

static void
on_term(int sig)
{
	quit = 1;
	FCGX_ShutdownPending();
}

static void
usage(void)
{
	fprintf(stderr, "usage: checkpoint-api.fcgi [-dV] [-n requests] "
	    "[-s path | -s 127.0.0.1:port]\n");
	exit(2);
}

static int64_t
now_ms(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static size_t
fcgi_read(void *ctx, char *p, size_t n)
{
	size_t	 got = 0;
	int	 r;

	while (got < n) {
		r = FCGX_GetStr(p + got, (int)(n - got), ctx);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	return got;
}

static size_t
stdin_read(void *ctx, char *p, size_t n)
{
	size_t	 got = 0;
	ssize_t	 r;

	while (got < n) {
		r = read(STDIN_FILENO, p + got, n - got);
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	return got;
}

/* PATH_INFO, or SCRIPT_NAME where a root mount leaves PATH_INFO empty. */
static const char *
request_path(const char *path_info, const char *script_name)
{
	if (path_info != NULL && *path_info != '\0')
		return path_info;
	return script_name;
}

/* Serves the single request of a plain CGI invocation (RFC 3875). */
static int
serve_cgi(struct api *a)
{
	struct request	 req;
	struct response	 r = { 0 };
	struct buf	 head = { 0 };
	int		 rc = 0;

	memset(&req, 0, sizeof(req));
	req.method = getenv("REQUEST_METHOD");
	req.path = request_path(getenv("PATH_INFO"), getenv("SCRIPT_NAME"));
	req.uri = getenv("REQUEST_URI");
	req.content_length = getenv("CONTENT_LENGTH");
	req.remote_user = getenv("REMOTE_USER");
	req.remote_addr = getenv("REMOTE_ADDR");
	req.read_body = stdin_read;
	api_handle(a, &req, &r, now_ms());
	if (http_headers(&r, a->settings->cors_origin, &head) == -1 ||
	    fwrite(head.p, 1, head.len, stdout) != head.len ||
	    fwrite(buf_str(&r.body), 1, r.body.len, stdout) != r.body.len ||
	    fflush(stdout) == EOF)
		rc = 1;
	buf_free(&head);
	response_free(&r);
	return rc;
}

static void
serve_fcgi(struct api *a, int sock, long max_requests)
{
	FCGX_Request	 fr;
	struct request	 req;
	struct response	 r = { 0 };
	struct buf	 head = { 0 };
	sigset_t	 term, old;
	long		 served = 0;

	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigaddset(&term, SIGINT);
	sigaddset(&term, SIGUSR1);
	FCGX_InitRequest(&fr, sock, FCGI_FAIL_ACCEPT_ON_INTR);
	while (!quit && (max_requests == 0 || served < max_requests)) {
		/*
		 * Signals are taken only while waiting for a request: one in
		 * flight is always finished first (a SIGTERM in the middle
		 * would cut its reads and writes short).
		 * XXX a signal between the check of quit and accept(2) waits
		 * for the next connection.
		 */
		if (FCGX_Accept_r(&fr) < 0)
			break;
		sigprocmask(SIG_BLOCK, &term, &old);
		memset(&req, 0, sizeof(req));
		req.method = FCGX_GetParam("REQUEST_METHOD", fr.envp);
		req.path = request_path(FCGX_GetParam("PATH_INFO", fr.envp),
		    FCGX_GetParam("SCRIPT_NAME", fr.envp));
		req.uri = FCGX_GetParam("REQUEST_URI", fr.envp);
		req.content_length = FCGX_GetParam("CONTENT_LENGTH", fr.envp);
		req.remote_user = FCGX_GetParam("REMOTE_USER", fr.envp);
		req.remote_addr = FCGX_GetParam("REMOTE_ADDR", fr.envp);
		req.read_body = fcgi_read;
		req.ctx = fr.in;
		api_handle(a, &req, &r, now_ms());

		buf_reset(&head);
		if (http_headers(&r, a->settings->cors_origin, &head) == -1 ||
		    FCGX_PutStr(head.p, (int)head.len, fr.out) < 0 ||
		    FCGX_PutStr(buf_str(&r.body), (int)r.body.len, fr.out) < 0)
			log_warn("%s %s: the client went away before the answer",
			    req.method ? req.method : "-",
			    req.path ? req.path : "-");
		FCGX_Finish_r(&fr);
		served++;
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
	buf_free(&head);
	response_free(&r);
}

int
main(int argc, char *argv[])
{
	struct settings		 st;
	struct api		 a;
	struct sigaction	 sa;
	enum log_level		 lvl = LOG_LVL_INFO;
	char			 err[256];
	const char		*sockpath = NULL;
	long			 max_requests = 0;
	int64_t			 n;
	int			 ch, sock = 0;

	while ((ch = getopt(argc, argv, "dn:s:V")) != -1) {
		switch (ch) {
		case 'd':
			lvl = LOG_LVL_DEBUG;
			break;
		case 'n':
			if (settings_parse_int(optarg, 1, 1000000000, &n) == -1)
				usage();
			max_requests = (long)n;
			break;
		case 's':
			sockpath = optarg;
			break;
		case 'V':
			puts(PACKAGE_STRING);
			return 0;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	log_init("checkpoint-api.fcgi", 0, lvl);

	/* Settings come from the process environment, before any accept. */
	if (settings_from_env(&st, NULL, err, sizeof(err)) == -1) {
		log_error("%s", err);
		return 1;
	}
	umask(007);
	signal(SIGPIPE, SIG_IGN);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	if (FCGX_Init() != 0) {
		log_error("FCGX_Init failed");
		return 1;
	}
	api_init(&a, &st);

	if (sockpath != NULL) {
		/* libfcgi exits on a failed bind; say what we tried first. */
		if (strchr(sockpath, '/') == NULL && sockpath[0] == ':') {
			log_error("-s %s: give an address, such as 127.0.0.1%s",
			    sockpath, sockpath);
			return 1;
		}
		log_info("listening on %s", sockpath);
		if ((sock = FCGX_OpenSocket(sockpath, 128)) < 0) {
			log_error("-s %s: cannot listen", sockpath);
			return 1;
		}
	} else if (FCGX_IsCGI()) {
		if (getenv("REQUEST_METHOD") == NULL) {
			fprintf(stderr, "checkpoint-api.fcgi: not started by a "
			    "web server; use -s to listen on a socket\n");
			usage();
		}
		ch = serve_cgi(&a);
		api_free(&a);
		return ch;
	}
	serve_fcgi(&a, sock, max_requests);
	api_free(&a);
	return 0;
}
