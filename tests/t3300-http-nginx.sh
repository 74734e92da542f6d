#!/bin/sh
# Every rule of checkpoint-api(7) through nginx (scripts/nginx.conf), one
# FastCGI connection per request, to the app started by spawn-fcgi on a
# Unix socket as an unprivileged user.  The checks are tests/http-checks.sh,
# shared by every web server.

SERVER=nginx
. "$(dirname "$0")/http-checks.sh"
