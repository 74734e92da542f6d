/*
 * The benchmark's ceiling: a FastCGI responder that does the least a
 * responder can (accept, read the body, answer a fixed JSON body of the
 * size of a status answer), behind the same web server as the app.
 * scripts/bench reports the app's figures as ratios of this one's.
 */
#include <config.h>

#include <signal.h>
#include <string.h>

#include <fcgiapp.h>

int
main(void)
{
	static const char	 head[] = "Status: 200 OK\r\n"
	    "Content-Type: application/json; charset=UTF-8\r\n"
	    "Content-Length: 48\r\n"
	    "Access-Control-Allow-Origin: *\r\n\r\n";
	static const char	 body[] =
	    "{\"status\":{\"id\":\"IN_PROGRESS\"},\"operation\":null}";
	FCGX_Request		 req;
	char			 buf[4096];

	signal(SIGPIPE, SIG_IGN);
	if (FCGX_Init() != 0)
		return 1;
	FCGX_InitRequest(&req, 0, 0);
	while (FCGX_Accept_r(&req) >= 0) {
		while (FCGX_GetStr(buf, sizeof(buf), req.in) > 0)
			;
		FCGX_PutStr(head, (int)strlen(head), req.out);
		FCGX_PutStr(body, (int)strlen(body), req.out);
		FCGX_Finish_r(&req);
	}
	return 0;
}
