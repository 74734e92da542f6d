#!/bin/sh
# GET /metrics behind each web server's authentication, with the very
# snippets scripts/README.examples gives (lighttpd, Apache, nginx), the
# rest of the API left open.  Every spelling of the path that the app routes to /metrics
# (a trailing slash, doubled slashes, percent-encoding, a query) must ask
# for the password: a rule that one of them slipped past would show the
# metrics to anyone.  checkpoint-api(7), "GET /metrics".

. "$(dirname "$0")/lib.sh"

for c in lighttpd apache2 nginx spawn-fcgi htpasswd curl; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing"
done
unset CHECKPOINT_STORE_DURATION CHECKPOINT_MAX_BODY CHECKPOINT_CORS_ORIGIN \
    CHECKPOINT_REJECT_UNKNOWN_JOBS CHECKPOINT_BUSY_TIMEOUT CHECKPOINT_SYNC \
    CHECKPOINT_METRICS CHECKPOINT_METRICS_FILTER

J=0123456789abcdef0123456789abcdef
NL='
'
TR=fedcba9876543210fedcba9876543210
PW=$T/metrics.htpasswd
share_dir "$T"
write_htpasswd "$PW"
"$CTL" init > /dev/null || bail "checkpointctl init"
if [ "$(id -u)" -eq 0 ]; then
	chown "$RUN_USER:$RUN_GROUP" "$DB" || bail "chown $DB"
fi

# scripts/README.examples' snippets, the htpasswd file's path put in.
LIGHTTPD_SNIPPET='server.modules := ( "mod_auth", "mod_authn_file", "mod_fastcgi" )
auth.backend = "htpasswd"
auth.backend.htpasswd.userfile = "'$PW'"
$HTTP["url"] =~ "^/+metrics" {
	auth.require = ( "" => ( "method" => "basic",
	    "realm" => "checkpoint-api metrics", "require" => "valid-user" ) )
}'
APACHE_SNIPPET='<LocationMatch "^/+metrics">
	AuthType Basic
	AuthName "checkpoint-api metrics"
	AuthUserFile "'$PW'"
	Require valid-user
</LocationMatch>'
NGINX_SNIPPET='location @PREFIX@/metrics {
	auth_basic "checkpoint-api metrics";
	auth_basic_user_file "'$PW'";
	fastcgi_split_path_info ^(@PREFIX@)(/.*)$;
	include /etc/nginx/fastcgi_params;
	fastcgi_param PATH_INFO $fastcgi_path_info;
	fastcgi_pass unix:@SOCKET@;
}'

for SERVER in lighttpd apache nginx; do
	case $SERVER in
	lighttpd) LIGHTTPD_EXTRA=$LIGHTTPD_SNIPPET ;;
	apache) APACHE_EXTRA="$APACHE_AUTH_MODULES$NL$APACHE_SNIPPET" ;;
	nginx) NGINX_EXTRA=$NGINX_SNIPPET ;;
	esac
	start_server
	for p in /metrics /metrics/ //metrics /%6Detrics /%6detrics/ \
	    '/metrics?a=1'; do
		HTTP_USER=
		http GET "$p"
		is "$STATUS" 401 "$SERVER: GET $p without the password: 401"
	done
	HTTP_USER=alice:wrong
	http GET /metrics
	is "$STATUS" 401 "$SERVER: GET /metrics, a wrong password: 401"
	HTTP_USER=alice:$AUTH_PASSWORD
	for p in /metrics //metrics /%6Detrics; do
		http GET "$p"
		is "$STATUS" 200 "$SERVER: GET $p with the password: 200"
		like "$BODY" '^# HELP checkpoint_api_triggers_queued ' \
		    "$SERVER: GET $p with the password: the metrics"
	done
	HTTP_USER=
	http GET /jobs/$J/checkpoints/$TR
	is "$STATUS" 404 "$SERVER: the API needs no password"
	stop_server
	LIGHTTPD_EXTRA= APACHE_EXTRA= NGINX_EXTRA=
done

done_testing
