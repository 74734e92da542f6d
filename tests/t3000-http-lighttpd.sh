#!/bin/sh
# Every rule of checkpoint-api(7) through lighttpd 1.4 + mod_fastcgi
# (scripts/lighttpd.conf, lighttpd-prefix.conf), lighttpd starting the app
# itself (bin-path).  The checks are tests/http-checks.sh, shared by every
# web server.

SERVER=lighttpd
. "$(dirname "$0")/http-checks.sh"
