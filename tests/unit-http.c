/*
 * HTTP answers (cgi/http.c, cgi/buf.c; checkpoint-api(7), "ERRORS"): the
 * status lines, the exact bytes of every error body, JSON string escaping,
 * cleaning text to UTF-8, and the CGI header block.
 */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "http.h"
#include "tap.h"

static const struct {
	int line;
	enum http_status st;
	const char *want;
} status_cases[] = {
	{ __LINE__, HTTP_200, "200 OK" },
	{ __LINE__, HTTP_202, "202 Accepted" },
	{ __LINE__, HTTP_400, "400 Bad Request" },
	{ __LINE__, HTTP_404, "404 Not Found" },
	{ __LINE__, HTTP_405, "405 Method Not Allowed" },
	{ __LINE__, HTTP_413, "413 Payload Too Large" },
	{ __LINE__, HTTP_500, "500 Internal Server Error" },
	{ __LINE__, HTTP_503, "503 Service Unavailable" },
	/* Out of range: never NULL, never a crash. */
	{ __LINE__, HTTP__MAX, "500 Internal Server Error" },
	{ __LINE__, (enum http_status)1000, "500 Internal Server Error" },
};

static void
test_status_lines(void)
{
	size_t i;

	for (i = 0; i < sizeof(status_cases) / sizeof(status_cases[0]); i++)
		tap_is_str_at(__FILE__, status_cases[i].line,
		    http_status_line(status_cases[i].st), status_cases[i].want,
		    "status line %zu", i + 1);
}

#define JID "0123456789abcdef0123456789abcdef"
#define TID "fedcba9876543210fedcba9876543210"

/*
 * Each error takes up to two string arguments; the exact status and body.
 */
static const struct {
	int line;
	enum api_error e;
	const char *a1, *a2;
	enum http_status st;
	const char *body;
} error_cases[] = {
	{ __LINE__, ERR_NOT_FOUND, "/x?y=1", NULL, HTTP_404,
	    "{\"errors\":[\"Not found: /x?y=1\"]}" },
	{ __LINE__, ERR_NOT_FOUND, "/v2/jobs/" JID "/checkpoints", NULL,
	    HTTP_404,
	    "{\"errors\":[\"Not found: /v2/jobs/" JID "/checkpoints\"]}" },
	/* A URI is escaped as JSON, '/' left alone, bad bytes replaced. */
	{ __LINE__, ERR_NOT_FOUND, "/a\"b\\c\xff", NULL, HTTP_404,
	    "{\"errors\":[\"Not found: /a\\\"b\\\\c\\ufffd\"]}" },
	{ __LINE__, ERR_METHOD, "GET", NULL, HTTP_405,
	    "{\"errors\":[\"Method GET is not allowed here; see the Allow "
	    "header.\"]}" },
	{ __LINE__, ERR_PATH_PARAM, "jobid", "xyz", HTTP_400,
	    "{\"errors\":[\"Bad request, could not parse parameters: Cannot "
	    "resolve path parameter (jobid) from value \\\"xyz\\\".\"]}" },
	{ __LINE__, ERR_PATH_PARAM, "triggerid", "0123", HTTP_400,
	    "{\"errors\":[\"Bad request, could not parse parameters: Cannot "
	    "resolve path parameter (triggerid) from value \\\"0123\\\".\"]}" },
	{ __LINE__, ERR_QUERY_PARAM, "limit", "0", HTTP_400,
	    "{\"errors\":[\"Bad request, could not parse parameters: Cannot "
	    "resolve query parameter (limit) from value \\\"0\\\".\"]}" },
	{ __LINE__, ERR_BODY, NULL, NULL, HTTP_400,
	    "{\"errors\":[\"Request did not match expected format "
	    "CheckpointTriggerRequestBody.\"]}" },
	{ __LINE__, ERR_BODY_LENGTH, NULL, NULL, HTTP_400,
	    "{\"errors\":[\"Bad request received: the body does not match "
	    "its Content-Length.\"]}" },
	{ __LINE__, ERR_TOO_LARGE, "65536", NULL, HTTP_413,
	    "{\"errors\":[\"Request entity too large: the limit is 65536 "
	    "bytes. Try to raise [CHECKPOINT_MAX_BODY]\"]}" },
	{ __LINE__, ERR_NO_TRIGGER, TID, JID, HTTP_404,
	    "{\"errors\":[\"There is no checkpoint operation with triggerId=" TID
	    " for job " JID ".\"]}" },
	{ __LINE__, ERR_NO_JOB, JID, NULL, HTTP_404,
	    "{\"errors\":[\"Job " JID " not found\"]}" },
	{ __LINE__, ERR_BUSY, NULL, NULL, HTTP_503,
	    "{\"errors\":[\"Service temporarily unavailable: the checkpoint "
	    "database is locked. Please retry.\"]}" },
	{ __LINE__, ERR_UNAVAILABLE, NULL, NULL, HTTP_503,
	    "{\"errors\":[\"Service temporarily unavailable: the checkpoint "
	    "database cannot be opened or read. Please retry.\"]}" },
	{ __LINE__, ERR_READONLY, NULL, NULL, HTTP_503,
	    "{\"errors\":[\"Service unavailable: the checkpoint database is "
	    "not writable by this service (file permissions, a read-only file "
	    "system or a read-only server). Retrying will not help until the "
	    "operator fixes it.\"]}" },
	{ __LINE__, ERR_INTERNAL, NULL, NULL, HTTP_500,
	    "{\"errors\":[\"Internal server error.\"]}" },
	/* Out of range is an internal error, not a crash. */
	{ __LINE__, ERR__MAX, NULL, NULL, HTTP_500,
	    "{\"errors\":[\"Internal server error.\"]}" },
};

static void
test_errors(void)
{
	struct response r;
	size_t i;

	memset(&r, 0, sizeof(r));
	for (i = 0; i < sizeof(error_cases) / sizeof(error_cases[0]); i++) {
		response_reset(&r);
		tap_is_int_at(__FILE__, error_cases[i].line,
		    http_error(&r, error_cases[i].e, error_cases[i].a1,
			error_cases[i].a2),
		    0, "error %zu: rc", i + 1);
		tap_is_int_at(__FILE__, error_cases[i].line, r.status,
		    error_cases[i].st, "error %zu: status", i + 1);
		tap_is_str_at(__FILE__, error_cases[i].line, buf_str(&r.body),
		    error_cases[i].body, "error %zu: body", i + 1);
		tap_is_int_at(__FILE__, error_cases[i].line,
		    (long long)r.body.len,
		    (long long)strlen(error_cases[i].body),
		    "error %zu: body length", i + 1);
	}
	response_free(&r);
}

/* A second error on the same response replaces the first. */
static void
test_error_replaces(void)
{
	struct response r;

	memset(&r, 0, sizeof(r));
	response_reset(&r);
	tap_is_int(r.status, HTTP_500, "response_reset: status 500");
	tap_ok(r.allow == NULL, "response_reset: no Allow");
	tap_is_str(buf_str(&r.body), "", "response_reset: empty body");
	http_error(&r, ERR_NOT_FOUND, "/first");
	http_error(&r, ERR_INTERNAL);
	tap_is_int(r.status, HTTP_500, "second error: its status");
	tap_is_str(buf_str(&r.body),
	    "{\"errors\":[\"Internal server error.\"]}",
	    "second error: its body only");
	response_reset(&r);
	tap_is_str(buf_str(&r.body), "", "response_reset empties the body");
	response_free(&r);
	tap_ok(r.body.p == NULL && r.body.len == 0, "response_free");
}

static const struct {
	int line;
	const char *in;
	size_t len; /* 0: strlen(in) */
	const char *want;
} json_cases[] = {
	{ __LINE__, "", 0, "\"\"" },
	{ __LINE__, "plain text", 0, "\"plain text\"" },
	{ __LINE__, "a\"b", 0, "\"a\\\"b\"" },
	{ __LINE__, "a\\b", 0, "\"a\\\\b\"" },
	{ __LINE__, "\\\"", 0, "\"\\\\\\\"\"" },
	{ __LINE__, "\n\t\r\b\f", 0, "\"\\n\\t\\r\\b\\f\"" },
	{ __LINE__, "line1\nline2", 0, "\"line1\\nline2\"" },
	/* Other control characters as \u00XX (upper-case hex, as Jackson). */
	{ __LINE__, "\x01", 0, "\"\\u0001\"" },
	{ __LINE__, "\x0b", 0, "\"\\u000B\"" },
	{ __LINE__, "\x1b[0m", 0, "\"\\u001B[0m\"" },
	{ __LINE__, "\x1f", 0, "\"\\u001F\"" },
	{ __LINE__, "a\0b", 3, "\"a\\u0000b\"" },
	/* Not escaped: '/', DEL, space, printable ASCII. */
	{ __LINE__, "/jobs/x", 0, "\"/jobs/x\"" },
	{ __LINE__, "</script>", 0, "\"</script>\"" },
	{ __LINE__, "\x7f", 0, "\"\x7f\"" },
	{ __LINE__, " ~", 0, "\" ~\"" },
	/* Well-formed UTF-8 passes through, 2, 3 and 4 bytes. */
	{ __LINE__, "caf\xc3\xa9", 0, "\"caf\xc3\xa9\"" },
	{ __LINE__, "\xe2\x82\xac", 0, "\"\xe2\x82\xac\"" },
	{ __LINE__, "\xf0\x9f\x98\x80", 0, "\"\xf0\x9f\x98\x80\"" },
	{ __LINE__, "\xef\xbf\xbd", 0, "\"\xef\xbf\xbd\"" },
	{ __LINE__, "\xf4\x8f\xbf\xbf", 0, "\"\xf4\x8f\xbf\xbf\"" },
	{ __LINE__, "\xed\x9f\xbf", 0, "\"\xed\x9f\xbf\"" },
	{ __LINE__, "\xee\x80\x80", 0, "\"\xee\x80\x80\"" },
	/* Not UTF-8: each offending byte becomes \ufffd. */
	{ __LINE__, "\xff", 0, "\"\\ufffd\"" },
	{ __LINE__, "\x80", 0, "\"\\ufffd\"" },
	{ __LINE__,
	    "a\xfe"
	    "b",
	    0, "\"a\\ufffdb\"" },
	{ __LINE__, "\xc0\xaf", 0, "\"\\ufffd\\ufffd\"" }, /* overlong '/' */
	{ __LINE__, "\xc1\xbf", 0, "\"\\ufffd\\ufffd\"" }, /* overlong */
	{ __LINE__, "\xe0\x80\xaf", 0, "\"\\ufffd\\ufffd\\ufffd\"" },
	{ __LINE__, "\xf0\x80\x80\xaf", 0, "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" },
	{ __LINE__, "\xed\xa0\x80", 0, "\"\\ufffd\\ufffd\\ufffd\"" }, /* D800 */
	{ __LINE__, "\xed\xbf\xbf", 0, "\"\\ufffd\\ufffd\\ufffd\"" }, /* DFFF */
	{ __LINE__, "\xf4\x90\x80\x80", 0,
	    "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" }, /* 110000 */
	{ __LINE__, "\xf8\x88\x80\x80\x80", 0,
	    "\"\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\"" },
	/* Truncated sequences, at the end and before ASCII. */
	{ __LINE__, "\xc3", 0, "\"\\ufffd\"" },
	{ __LINE__, "\xe2\x82", 0, "\"\\ufffd\\ufffd\"" },
	{ __LINE__, "\xe2\x82x", 0, "\"\\ufffd\\ufffdx\"" },
	{ __LINE__, "\xf0\x9f\x98", 0, "\"\\ufffd\\ufffd\\ufffd\"" },
	/* A sequence cut by the length given, not by a NUL. */
	{ __LINE__, "\xc3\xa9", 1, "\"\\ufffd\"" },
	/* Good and bad mixed. */
	{ __LINE__, "\xc3\xa9\xff\xc3\xa9\n", 0,
	    "\"\xc3\xa9\\ufffd\xc3\xa9\\n\"" },
};

static void
test_json_strings(void)
{
	struct buf b = { 0 };
	size_t i, len;

	for (i = 0; i < sizeof(json_cases) / sizeof(json_cases[0]); i++) {
		buf_reset(&b);
		len = json_cases[i].len ? json_cases[i].len :
					  strlen(json_cases[i].in);
		tap_is_int_at(__FILE__, json_cases[i].line,
		    buf_add_json_string(&b, json_cases[i].in, len), 0,
		    "json string %zu: rc", i + 1);
		tap_is_str_at(__FILE__, json_cases[i].line, buf_str(&b),
		    json_cases[i].want, "json string %zu: output", i + 1);
	}

	/* Appends to what is there. */
	buf_reset(&b);
	buf_adds(&b, "[");
	buf_add_json_string(&b, "x", 1);
	buf_adds(&b, ",");
	buf_add_json_string(&b, "y", 1);
	buf_adds(&b, "]");
	tap_is_str(buf_str(&b), "[\"x\",\"y\"]", "json strings append");
	tap_is_int((long long)b.len, 9, "json strings append: length");
	buf_free(&b);
}

/* buf_utf8_clean: text for the database, '?' for what is not UTF-8 text. */
static const struct {
	int line;
	const char *in;
	const char *want;
	int fixed;
} clean_cases[] = {
	{ __LINE__, "", "", 0 },
	{ __LINE__, "plain\ttext\n", "plain\ttext\n", 0 },
	{ __LINE__, "caf\xc3\xa9 \xf0\x9f\x98\x80",
	    "caf\xc3\xa9 \xf0\x9f\x98\x80", 0 },
	{ __LINE__, "a\rb\x1b[0m\x7f", "a?b?[0m?", 3 },
	{ __LINE__, "\xff\xfe", "??", 2 },
	{ __LINE__, "\xc0\xaf", "??", 2 },
	{ __LINE__, "\xed\xa0\x80x", "???x", 3 },
	{ __LINE__, "ok\xe2\x82", "ok??", 2 },
};

static void
test_utf8_clean(void)
{
	char s[64];
	size_t i;

	for (i = 0; i < sizeof(clean_cases) / sizeof(clean_cases[0]); i++) {
		snprintf(s, sizeof(s), "%s", clean_cases[i].in);
		tap_is_int_at(__FILE__, clean_cases[i].line, buf_utf8_clean(s),
		    clean_cases[i].fixed, "utf8 clean %zu: count", i + 1);
		tap_is_str_at(__FILE__, clean_cases[i].line, s,
		    clean_cases[i].want, "utf8 clean %zu: text", i + 1);
	}
}

static const struct {
	int line;
	enum http_status st;
	const char *allow;
	const char *cors;
	const char *body;
	const char *want;
} header_cases[] = {
	{ __LINE__, HTTP_202, NULL, "*", "{\"request-id\":\"" TID "\"}",
	    "Status: 202 Accepted\r\n"
	    "Content-Type: application/json; charset=UTF-8\r\n"
	    "Content-Length: 49\r\n"
	    "Access-Control-Allow-Origin: *\r\n"
	    "\r\n" },
	{ __LINE__, HTTP_200, NULL, NULL,
	    "{\"status\":{\"id\":\"IN_PROGRESS\"},\"operation\":null}",
	    "Status: 200 OK\r\n"
	    "Content-Type: application/json; charset=UTF-8\r\n"
	    "Content-Length: 48\r\n"
	    "\r\n" },
	{ __LINE__, HTTP_405, "POST", "*",
	    "{\"errors\":[\"Method GET is not allowed here; see the Allow "
	    "header.\"]}",
	    "Status: 405 Method Not Allowed\r\n"
	    "Content-Type: application/json; charset=UTF-8\r\n"
	    "Content-Length: 68\r\n"
	    "Allow: POST\r\n"
	    "Access-Control-Allow-Origin: *\r\n"
	    "\r\n" },
	{ __LINE__, HTTP_405, "GET", NULL, "{}",
	    "Status: 405 Method Not Allowed\r\n"
	    "Content-Type: application/json; charset=UTF-8\r\n"
	    "Content-Length: 2\r\n"
	    "Allow: GET\r\n"
	    "\r\n" },
	{ __LINE__, HTTP_404, NULL, "https://flink.example.com", "",
	    "Status: 404 Not Found\r\n"
	    "Content-Type: application/json; charset=UTF-8\r\n"
	    "Content-Length: 0\r\n"
	    "Access-Control-Allow-Origin: https://flink.example.com\r\n"
	    "\r\n" },
	/* Content-Length counts bytes, not characters. */
	{ __LINE__, HTTP_400, NULL, "*", "\"\xc3\xa9\xe2\x82\xac\"",
	    "Status: 400 Bad Request\r\n"
	    "Content-Type: application/json; charset=UTF-8\r\n"
	    "Content-Length: 7\r\n"
	    "Access-Control-Allow-Origin: *\r\n"
	    "\r\n" },
	{ __LINE__, HTTP_503, NULL, "*", "x",
	    "Status: 503 Service Unavailable\r\n"
	    "Content-Type: application/json; charset=UTF-8\r\n"
	    "Content-Length: 1\r\n"
	    "Access-Control-Allow-Origin: *\r\n"
	    "\r\n" },
};

static void
test_headers(void)
{
	struct response r;
	struct buf out = { 0 };
	size_t i;

	memset(&r, 0, sizeof(r));
	for (i = 0; i < sizeof(header_cases) / sizeof(header_cases[0]); i++) {
		response_reset(&r);
		r.status = header_cases[i].st;
		r.allow = header_cases[i].allow;
		buf_adds(&r.body, header_cases[i].body);
		buf_reset(&out);
		tap_is_int_at(__FILE__, header_cases[i].line,
		    http_headers(&r, header_cases[i].cors, &out), 0,
		    "headers %zu: rc", i + 1);
		tap_is_str_at(__FILE__, header_cases[i].line, buf_str(&out),
		    header_cases[i].want, "headers %zu: block", i + 1);
	}

	/* An error body's Content-Length is its exact byte count. */
	response_reset(&r);
	http_error(&r, ERR_NOT_FOUND, "/\xc3\xa9");
	buf_reset(&out);
	http_headers(&r, "*", &out);
	tap_is_str(buf_str(&r.body), "{\"errors\":[\"Not found: /\xc3\xa9\"]}",
	    "error with UTF-8: body");
	tap_is_str(buf_str(&out),
	    "Status: 404 Not Found\r\n"
	    "Content-Type: application/json; charset=UTF-8\r\n"
	    "Content-Length: 29\r\n"
	    "Access-Control-Allow-Origin: *\r\n"
	    "\r\n",
	    "error with UTF-8: headers");

	/* The block is appended to what the buffer holds. */
	buf_reset(&out);
	buf_adds(&out, "X");
	response_reset(&r);
	r.status = HTTP_200;
	http_headers(&r, NULL, &out);
	tap_is_str(buf_str(&out),
	    "XStatus: 200 OK\r\n"
	    "Content-Type: application/json; charset=UTF-8\r\n"
	    "Content-Length: 0\r\n\r\n",
	    "headers append");

	/* A body of another type says so; an error after it is JSON again. */
	response_reset(&r);
	r.status = HTTP_200;
	r.content_type = "text/plain; version=0.0.4; charset=utf-8";
	buf_adds(&r.body, "a 1\n");
	buf_reset(&out);
	http_headers(&r, NULL, &out);
	tap_is_str(buf_str(&out),
	    "Status: 200 OK\r\n"
	    "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
	    "Content-Length: 4\r\n\r\n",
	    "content type of its own");
	http_error(&r, ERR_UNAVAILABLE);
	buf_reset(&out);
	http_headers(&r, NULL, &out);
	tap_is_str(buf_str(&out),
	    "Status: 503 Service Unavailable\r\n"
	    "Content-Type: application/json; charset=UTF-8\r\n"
	    "Content-Length: 111\r\n\r\n",
	    "an error after it is JSON");

	buf_free(&out);
	response_free(&r);
}

/* Content-Length digits, at every power of ten and the extremes. */
static void
test_size_digits(void)
{
	struct buf b = { 0 };
	char want[80];
	size_t n, i;

	for (i = 0, n = 1; i < 20; i++, n *= 10) {
		buf_reset(&b);
		snprintf(want, sizeof(want), "%zu|%zu|%zu", n - 1, n, n + 1);
		buf_add_size(&b, n - 1);
		buf_adds(&b, "|");
		buf_add_size(&b, n);
		buf_adds(&b, "|");
		buf_add_size(&b, n + 1);
		tap_is_str(buf_str(&b), want, "decimal around %zu", n);
		if (n > SIZE_MAX / 10)
			break;
	}
	buf_reset(&b);
	buf_add_size(&b, SIZE_MAX);
	snprintf(want, sizeof(want), "%zu", (size_t)SIZE_MAX);
	tap_is_str(buf_str(&b), want, "decimal of SIZE_MAX");
	buf_free(&b);
}

int
main(void)
{
	test_status_lines();
	test_size_digits();
	test_errors();
	test_error_replaces();
	test_json_strings();
	test_utf8_clean();
	test_headers();
	return tap_done();
}
