/*
 * The benchmark's ceiling: a FastCGI responder that does the least a
 * responder can (accept, read the body, answer a fixed JSON body of the
 * size of a status answer), behind the same web server as the app, with
 * the same options: -s to listen on its own socket, -t for threads.
 * scripts/bench reports the app's figures as ratios of this one's.
 */
#include <config.h>

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <fcgiapp.h>

static int sock;

static void *
serve(void *arg)
{
	static const char head[] =
	    "Status: 200 OK\r\n"
	    "Content-Type: application/json; charset=UTF-8\r\n"
	    "Content-Length: 48\r\n"
	    "Access-Control-Allow-Origin: *\r\n\r\n";
	static const char body[] =
	    "{\"status\":{\"id\":\"IN_PROGRESS\"},\"operation\":null}";
	FCGX_Request req;
	char buf[4096];

	FCGX_InitRequest(&req, sock, 0);
	while (FCGX_Accept_r(&req) >= 0) {
		while (FCGX_GetStr(buf, sizeof(buf), req.in) > 0)
			;
		FCGX_PutStr(head, (int)strlen(head), req.out);
		FCGX_PutStr(body, (int)strlen(body), req.out);
		FCGX_Finish_r(&req);
	}
	/* Signals are blocked here: only a broken socket ends the loop. */
	fprintf(stderr, "fcgi-hello: accept failed\n");
	exit(1);
}

int
main(int argc, char *argv[])
{
	pthread_attr_t attr;
	pthread_t t;
	sigset_t set;
	int ch, i, sig, threads = 1;

	signal(SIGPIPE, SIG_IGN);
	if (FCGX_Init() != 0)
		return 1;
	while ((ch = getopt(argc, argv, "s:t:")) != -1) {
		switch (ch) {
		case 's':
			if ((sock = FCGX_OpenSocket(optarg, 128)) < 0)
				return 1;
			break;
		case 't':
			threads = atoi(optarg);
			break;
		default:
			return 2;
		}
	}
	/*
	 * libfcgi ends the accept of whichever thread SIGTERM happens to
	 * interrupt, and leaves the others blocked.  So the threads block
	 * SIGTERM, SIGINT and SIGUSR1, run detached, and the main thread
	 * waits for one of them and exits: the process stops as a whole, with
	 * no thread left half-finished (ThreadSanitizer's "thread leak").
	 */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1);
	if (threads < 1 || pthread_sigmask(SIG_BLOCK, &set, NULL) != 0 ||
	    pthread_attr_init(&attr) != 0 ||
	    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED) != 0)
		return 1;
	for (i = 0; i < threads; i++)
		if (pthread_create(&t, &attr, serve, NULL) != 0)
			return 1;
	while (sigwait(&set, &sig) != 0)
		;
	return 0;
}
