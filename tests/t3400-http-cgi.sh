#!/bin/sh
# Every rule of checkpoint-api(7) through Apache 2.4 + mod_cgi running the
# app as plain CGI (scripts/apache-cgi.conf): one process per request,
# which serves it and exits.  The checks are tests/http-checks.sh, shared
# by every web server.

SERVER=cgi
. "$(dirname "$0")/http-checks.sh"
