#!/bin/sh
# Every rule of checkpoint-api(7) through Apache 2.4 + mod_fcgid
# (scripts/apache-fcgid.conf), Apache starting the app on demand as an
# unprivileged user.  The checks are tests/http-checks.sh, shared by every
# web server.

SERVER=apache
. "$(dirname "$0")/http-checks.sh"
