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
	return NULL;
}

int
main(int argc, char *argv[])
{
	pthread_t t;
	int ch, i, threads = 1;

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
	for (i = 1; i < threads; i++)
		pthread_create(&t, NULL, serve, NULL);
	serve(NULL);
	return 0;
}
