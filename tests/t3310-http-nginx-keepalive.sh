#!/bin/sh
# Tier 3: every rule of API.md through nginx keeping its FastCGI
# connections open (scripts/nginx-keepalive.conf: upstream keepalive,
# fastcgi_keep_conn) to the app listening on its own socket (-s), started
# as an unprivileged user.  The checks are tests/http-checks.sh, shared by
# every web server.

SERVER=nginx-keepalive
. "$(dirname "$0")/http-checks.sh"
