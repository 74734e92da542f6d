#!/bin/sh
# The page behind each web server's authentication, with the very
# snippets scripts/README.examples gives (lighttpd, Apache, nginx): the
# rule for the page alone, the API left open, and the rule for the whole
# server.  The page answers under /ui/ only (never /v1/ui/, checkpoint-api(7),
# "ROUTING"), so one rule covers it; every spelling of its path that the
# app routes to it (doubled slashes, dot segments, percent-encoding, a
# query) must ask for the password, as t3710 asks of /metrics.  curl
# sends each path as written (--path-as-is).

. "$(dirname "$0")/lib.sh"

for c in lighttpd apache2 nginx spawn-fcgi htpasswd curl; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing"
done
unset CHECKPOINT_STORE_DURATION CHECKPOINT_MAX_BODY CHECKPOINT_CORS_ORIGIN \
    CHECKPOINT_REJECT_UNKNOWN_JOBS CHECKPOINT_BUSY_TIMEOUT CHECKPOINT_SYNC

NL='
'
PW=$T/ui.htpasswd
share_dir "$T"
write_htpasswd "$PW"
init_db

# scripts/README.examples' snippets for the page alone, the htpasswd
# file's path put in.
LIGHTTPD_SNIPPET='server.modules := ( "mod_auth", "mod_authn_file", "mod_fastcgi" )
auth.backend = "htpasswd"
auth.backend.htpasswd.userfile = "'$PW'"
auth.require = ( "/ui/" => ( "method" => "basic", "realm" => "checkpoint-api",
    "require" => "valid-user" ) )'
APACHE_SNIPPET='<Location "/ui/">
	AuthType Basic
	AuthName "checkpoint-api"
	AuthUserFile "'$PW'"
	Require valid-user
</Location>'
NGINX_SNIPPET='location /ui/ {
	auth_basic "checkpoint-api";
	auth_basic_user_file "'$PW'";
	fastcgi_split_path_info ^()(/.*)$;
	include /etc/nginx/fastcgi_params;
	fastcgi_param PATH_INFO $fastcgi_path_info;
	fastcgi_pass unix:@SOCKET@;
}'

# Spellings the app serves the page or a file of it for.
PAGE_PATHS='/ui/ /ui/app.js //ui/ /ui// //ui//app.js /./ui/ /x/../ui/
/%75i/ /%75%69/app.js /ui/%61pp.js /ui/./app.js /ui/?a=1'

# status PATH [USER]: the status of a GET of PATH as written.
status() {
	curl -s -g --path-as-is -o "$T/body" -w '%{http_code}' \
	    ${2:+--user "$2"} "$BASE$1"
}

for SERVER in lighttpd apache nginx; do
	case $SERVER in
	lighttpd) LIGHTTPD_EXTRA=$LIGHTTPD_SNIPPET ;;
	apache) APACHE_EXTRA="$APACHE_AUTH_MODULES$NL$APACHE_SNIPPET" ;;
	nginx) NGINX_EXTRA=$NGINX_SNIPPET ;;
	esac
	start_server
	for p in $PAGE_PATHS; do
		is "$(status "$p")" 401 "$SERVER, page rule: GET $p without the password: 401"
	done
	# Not the page: a redirect to ui/ (which asks), an unknown path.
	# nginx's own 301 for a location ending in a slash, or the app's 302.
	like "$(status /ui)" '^30[12]$' "$SERVER, page rule: GET /ui: the redirect to ui/ only"
	is "$(status /v1/ui/)" 404 "$SERVER, page rule: GET /v1/ui/: no page there"
	is "$(status /v1/ui/app.js)" 404 "$SERVER, page rule: GET /v1/ui/app.js: no page there"
	for p in /ui/ //ui/ /%75i/app.js; do
		is "$(status "$p" "alice:$AUTH_PASSWORD")" 200 \
		    "$SERVER, page rule: GET $p with the password: 200"
	done
	is "$(status /ui/ alice:wrong)" 401 "$SERVER, page rule: a wrong password: 401"
	is "$(status /jobs)" 200 "$SERVER, page rule: the API needs no password"
	stop_server
	LIGHTTPD_EXTRA= APACHE_EXTRA= NGINX_EXTRA=

	# The whole server (tests/servers.sh writes README.examples' rule).
	AUTH=1
	start_server
	for p in $PAGE_PATHS /ui /jobs //jobs /v1/jobs /%6Aobs /./jobs \
	    /jobs/overview /metrics; do
		is "$(status "$p")" 401 "$SERVER, whole server: GET $p without the password: 401"
	done
	is "$(status /jobs "alice:$AUTH_PASSWORD")" 200 \
	    "$SERVER, whole server: GET /jobs with the password: 200"
	stop_server
	AUTH=
done

done_testing
