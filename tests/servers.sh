# Sourced by tests/lib.sh, never by a test: start_server and the
# launchers behind it (lighttpd, Apache, nginx, spawn-fcgi), from the
# configs in scripts/.  lib.sh describes start_server and sets the
# variables it reads (SERVER, MOUNT, AUTH, SETTINGS, ...); this file uses
# its spawn, stop_pid, free_port, wait_port and bail.

# Run as root, Apache and nginx run their workers and the app as RUN_USER,
# who must reach $T and write the databases in it (share_dir).
if [ "$(id -u)" -eq 0 ]; then
	RUN_USER=nobody
	RUN_GROUP=$(id -gn nobody)
else
	RUN_USER=$(id -un)
	RUN_GROUP=$(id -gn)
fi

# as_run_user CMD...: runs CMD as RUN_USER in place of the shell (so that
# "spawn as_run_user CMD" records CMD's pid).
as_run_user() {
	if [ "$(id -u)" -eq 0 ]; then
		exec setpriv --reuid="$RUN_USER" --regid="$RUN_GROUP" \
		    --clear-groups -- "$@"
	fi
	exec "$@"
}

# share_dir DIR...: creates the directories, owned by RUN_USER.
share_dir() {
	mkdir -p "$@" || bail "mkdir $*"
	if [ "$(id -u)" -eq 0 ]; then
		chown "$RUN_USER:$RUN_GROUP" "$@" || bail "chown $*"
	fi
}

# The exported settings, and the sanitizers' options of the test suite's
# sanitizer run, as "NAME value" lines (value may be empty): what Apache
# must hand the app.
settings_set() {
	for _s in $SETTINGS ASAN_OPTIONS UBSAN_OPTIONS TSAN_OPTIONS; do
		eval "_set=\${$_s+x} _v=\${$_s-}"
		if [ -n "$_set" ]; then
			printf '%s %s\n' "$_s" "$_v"
		fi
	done
}

# What an Apache with HTTP Basic loads that Debian's a2enmod auth_basic
# authn_file authz_user would (AUTH=1, and the tests of auth snippets).
_m=/usr/lib/apache2/modules
APACHE_AUTH_MODULES="LoadModule authn_core_module $_m/mod_authn_core.so
LoadModule authn_file_module $_m/mod_authn_file.so
LoadModule auth_basic_module $_m/mod_auth_basic.so
LoadModule authz_user_module $_m/mod_authz_user.so"

# The htpasswd file of AUTH=1 (bcrypt, which all three servers read).
write_htpasswd() {
	htpasswd -cbB "$1" alice "$AUTH_PASSWORD" 2>/dev/null ||
	    bail "htpasswd (apache2-utils) failed"
	chmod 644 "$1"
}

start_server() {
	# INSTANCE tells apart servers of one kind running at once.
	H=$T/$SERVER${INSTANCE:-}
	mkdir -p "$H" || bail "mkdir $H"
	APP_PID=
	if [ "$SERVER" != lighttpd ]; then
		share_dir "$T"
		(as_run_user test -x "$API") ||
		    bail "$RUN_USER cannot run $API: open its directories to others"
	fi
	for attempt in 1 2 3; do
		PORT=$(free_port)
		export PORT
		BASE=http://127.0.0.1:$PORT$MOUNT
		case $SERVER in
		lighttpd) start_lighttpd_once ;;
		apache) start_apache fcgid ;;
		cgi) start_apache cgi ;;
		nginx|nginx-keepalive) start_nginx ;;
		*) bail "unknown SERVER=$SERVER" ;;
		esac
		if wait_port "$PORT"; then
			return 0
		fi
		stop_server
	done
	sed 's/^/# /' "$SERVER_LOG" 2>/dev/null
	bail "$SERVER did not start"
}

# Stops the server, then the app if the test started it, and waits for both.
stop_server() {
	stop_pid "$SERVER_PID"
	if [ -n "$APP_PID" ]; then
		stop_pid "$APP_PID"
		APP_PID=
	fi
}

start_lighttpd_once() {
	export CHECKPOINT_HOME=$H
	export CHECKPOINT_FCGI=$API
	export CHECKPOINT_PROCS=${CHECKPOINT_PROCS:-2}
	mkdir -p "$H/www" "$H/tmp"
	_conf=$top_srcdir/scripts/lighttpd.conf
	[ "$MOUNT" = /api ] && _conf=$top_srcdir/scripts/lighttpd-prefix.conf
	# SITE=jobmanager: lighttpd-jobmanager.conf, before a JobManager.
	[ -n "${SITE:-}" ] && _conf=$top_srcdir/scripts/lighttpd-$SITE.conf
	if [ -n "$AUTH" ]; then
		write_htpasswd "$H/htpasswd"
		cat > "$H/auth.conf" <<-EOF
		include "$_conf"
		server.modules := ( "mod_auth", "mod_authn_file", "mod_fastcgi" )
		auth.backend = "htpasswd"
		auth.backend.htpasswd.userfile = "$H/htpasswd"
		auth.require = ( "/" => ( "method" => "basic",
		    "realm" => "checkpoint-api", "require" => "valid-user" ) )
		EOF
		_conf=$H/auth.conf
	fi
	if [ -n "$LIGHTTPD_EXTRA" ]; then
		printf 'include "%s"\n%s\n' "$_conf" "$LIGHTTPD_EXTRA" \
		    > "$H/extra.conf"
		_conf=$H/extra.conf
	fi
	SERVER_LOG=$H/lighttpd-error.log
	spawn lighttpd -D -f "$_conf"
	SERVER_PID=$LAST_PID
	LIGHTTPD_PID=$SERVER_PID
}

# Apache from a minimal httpd.conf that includes scripts/apache-$1.conf
# (fcgid, with the event MPM, or cgi, with prefork), as root with User and
# Group.
start_apache() {
	mkdir -p "$H/www"
	export CHECKPOINT_PREFIX=$MOUNT
	export CHECKPOINT_FCGI=$API
	export CHECKPOINT_PROCS=${CHECKPOINT_PROCS:-2}
	_m=/usr/lib/apache2/modules
	{
		cat <<-EOF
		ServerRoot "$H"
		ServerName 127.0.0.1
		Listen 127.0.0.1:$PORT
		PidFile "$H/apache.pid"
		ErrorLog "$H/apache-error.log"
		DefaultRuntimeDir "$H"
		Mutex file:$H
		EOF
		if [ "$1" = fcgid ]; then
			cat <<-EOF
			LoadModule mpm_event_module $_m/mod_mpm_event.so
			StartServers 1
			ServerLimit 2
			ThreadsPerChild 16
			MaxRequestWorkers 32
			EOF
		else
			cat <<-EOF
			LoadModule mpm_prefork_module $_m/mod_mpm_prefork.so
			StartServers 2
			MinSpareServers 1
			MaxSpareServers 4
			ServerLimit 8
			MaxRequestWorkers 8
			EOF
		fi
		cat <<-EOF
		LoadModule authz_core_module $_m/mod_authz_core.so
		LoadModule alias_module $_m/mod_alias.so
		LoadModule env_module $_m/mod_env.so
		LoadModule $1_module $_m/mod_$1.so
		DocumentRoot "$H/www"
		<Directory />
		    Require all denied
		</Directory>
		<Directory "$H/www">
		    Require all granted
		</Directory>
		EOF
		if [ "$(id -u)" -eq 0 ]; then
			printf 'User %s\nGroup %s\n' "$RUN_USER" "$RUN_GROUP"
		fi
		if [ "$1" = fcgid ]; then
			printf 'FcgidIPCDir "%s"\nFcgidProcessTableFile "%s"\n' \
			    "$H/fcgidsock" "$H/fcgid_shm"
			echo "Include \"$top_srcdir/scripts/apache-fcgid.conf\""
			settings_set | sed 's/^\([^ ]*\) \(.*\)$/FcgidInitialEnv \1 "\2"/'
		else
			echo "Include \"$top_srcdir/scripts/apache-cgi.conf\""
			settings_set | sed 's/^\([^ ]*\) \(.*\)$/SetEnv \1 "\2"/'
		fi
		if [ -n "$AUTH" ]; then
			write_htpasswd "$H/htpasswd"
			cat <<-EOF
			$APACHE_AUTH_MODULES
			<Location "$MOUNT/">
			    AuthType Basic
			    AuthName "checkpoint-api"
			    AuthUserFile "$H/htpasswd"
			    Require valid-user
			</Location>
			EOF
		fi
		printf '%s\n' "$APACHE_EXTRA"
	} > "$H/httpd.conf"
	SERVER_LOG=$H/apache-error.log
	# A group of its own: stopping, the prefork MPM signals its whole
	# process group, which would otherwise be the test's.
	spawn setsid apache2 -d "$H" -f "$H/httpd.conf" -DFOREGROUND
	SERVER_PID=$LAST_PID
}

# nginx from a minimal nginx.conf that includes the site made from
# scripts/nginx.conf (app started by spawn-fcgi) or nginx-keepalive.conf
# (app started with -s), placeholders replaced with sed.
start_nginx() {
	share_dir "$H"
	mkdir -p "$H/tmp"
	_sock=$H/api.sock
	_site=nginx
	[ "$SERVER" = nginx-keepalive ] && _site=nginx-keepalive
	# SITE=jobmanager: nginx-jobmanager.conf, before JOBMANAGER
	# (host:port), the app started as for nginx.conf.
	[ -n "${SITE:-}" ] && _site=nginx-$SITE
	{
		sed '$d' "$top_srcdir/scripts/$_site.conf"
		printf '%s\n}\n' "$NGINX_EXTRA"
	} | sed -e "s|@LISTEN@|127.0.0.1:$PORT|g" -e "s|@PREFIX@|$MOUNT|g" \
	    -e "s|@SOCKET@|$_sock|g" -e "s|@JOBMANAGER@|${JOBMANAGER:-}|g" \
	    > "$H/site.conf"
	{
		echo "daemon off;"
		echo "worker_processes 1;"
		echo "pid \"$H/nginx.pid\";"
		echo "error_log \"$H/nginx-error.log\" notice;"
		if [ "$(id -u)" -eq 0 ]; then
			echo "user $RUN_USER $RUN_GROUP;"
		fi
		echo "events { worker_connections 512; }"
		echo "http {"
		echo "	access_log off;"
		for _t in client_body proxy fastcgi uwsgi scgi; do
			echo "	${_t}_temp_path \"$H/tmp/$_t\";"
		done
		if [ -n "$AUTH" ]; then
			write_htpasswd "$H/htpasswd"
			echo "	auth_basic \"checkpoint-api\";"
			echo "	auth_basic_user_file \"$H/htpasswd\";"
		fi
		echo "	include \"$H/site.conf\";"
		echo "}"
	} > "$H/nginx.conf"
	SERVER_LOG=$H/nginx-error.log
	rm -f "$_sock"
	if [ "$SERVER" = nginx ]; then
		if [ "$(id -u)" -eq 0 ]; then
			spawn spawn-fcgi -n -s "$_sock" -M 0660 -u "$RUN_USER" \
			    -g "$RUN_GROUP" -U "$RUN_USER" -G "$RUN_GROUP" -- "$API" \
			    2>>"$SERVER_LOG"
		else
			spawn spawn-fcgi -n -s "$_sock" -M 0600 -- "$API" \
			    2>>"$SERVER_LOG"
		fi
	else
		spawn_keepalive_app "$_sock"
	fi
	APP_PID=$LAST_PID
	_i=0
	while [ ! -S "$_sock" ] && [ $_i -lt 100 ]; do
		sleep 0.05
		_i=$((_i + 1))
	done
	spawn nginx -p "$H/" -c "$H/nginx.conf" -e "$SERVER_LOG"
	SERVER_PID=$LAST_PID
}

# spawn_keepalive_app SOCKET: the app as nginx-keepalive runs it, on its
# own socket with 64 threads, as RUN_USER, with API_ARGS.  Sets APP_PID.
spawn_keepalive_app() {
	spawn as_run_user "$API" ${API_ARGS:-} -t 64 -s "$1" 2>>"$SERVER_LOG"
	APP_PID=$LAST_PID
}

# Starts lighttpd (SERVER=lighttpd start_server), as the tests before
# start_server did.  Sets PORT, BASE and LIGHTTPD_PID.
start_lighttpd() {
	_server=$SERVER
	SERVER=lighttpd
	start_server
	SERVER=$_server
}

stop_lighttpd() {
	stop_pid "$LIGHTTPD_PID"
}
