#!/bin/sh
# Every rule of checkpoint-api(7) through nginx keeping its FastCGI
# connections open (scripts/nginx-keepalive.conf: upstream keepalive,
# fastcgi_keep_conn) to the app listening on its own socket (-s), started
# as an unprivileged user.  The checks are tests/http-checks.sh, shared by
# every web server.

SERVER=nginx-keepalive
. "$(dirname "$0")/http-checks.sh"
