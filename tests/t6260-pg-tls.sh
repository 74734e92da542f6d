#!/bin/sh
# The PostgreSQL store over TLS with the server's certificate checked
# (sslmode=verify-full), CHECKPOINT_DB a libpq URI holding a password, on
# a throwaway cluster (tests/pg.sh) whose certificates come from a CA the
# test makes with the openssl CLI, and whose pg_hba.conf lets the app's
# role in by hostssl and scram-sha-256 only.  With the right CA,
# checkpointctl works, POST and GET through lighttpd answer what
# checkpoint-api(7) says byte for byte, and pg_stat_ssl shows the app's
# and the runner's connections encrypted.  Whatever verify-full must
# refuse is refused, by checkpointctl (exit 1, one line) and by the app
# (the contract's 503, the log saying why): a certificate of another CA,
# a certificate that does not name the host connected to (and the same
# one accepted under the name it does bear), and sslmode=require against
# a server without TLS.  The password appears in no output, no error, no
# log line of the app or of lighttpd, and no process's command line.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg.sh"

for c in lighttpd openssl curl; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing"
done

J=0123456789abcdef0123456789abcdef
A=000000000000000000000000000000a1
B=000000000000000000000000000000b2
IN_PROGRESS='{"status":{"id":"IN_PROGRESS"},"operation":null}'
CANNOT_OPEN='{"errors":["Service temporarily unavailable: the checkpoint database cannot be opened or read. Please retry."]}'
V=$(ls "$top_srcdir"/schema/pg/[0-9][0-9][0-9][0-9]-*.sql | wc -l)

# --- A CA, another CA, and the server's certificates ---------------------

TLS=$T/tls
mkdir -p "$TLS" || bail "mkdir $TLS"

# new_key NAME: an EC key and its certificate request, subject CN=NAME.
new_key() {
	openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	    -keyout "$TLS/$1.key" -out "$TLS/$1.csr" -subj "/CN=$1" \
	    >> "$TLS/openssl.log" 2>&1 || bail "openssl req for $1 failed"
}

# make_ca NAME: a self-signed CA, NAME.crt and NAME.key.
make_ca() {
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	    -keyout "$TLS/$1.key" -out "$TLS/$1.crt" -subj "/CN=$1" -days 2 \
	    -addext basicConstraints=critical,CA:true \
	    -addext keyUsage=critical,keyCertSign,cRLSign \
	    >> "$TLS/openssl.log" 2>&1 || bail "openssl: CA $1 failed"
}

# make_server NAME CA SAN: NAME.crt signed by CA for the subjectAltName
# SAN, and NAME.key as the server wants it: its user's, mode 600.
make_server() {
	new_key "$1"
	printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth\n' "$3" \
	    > "$TLS/$1.ext"
	openssl x509 -req -in "$TLS/$1.csr" -CA "$TLS/$2.crt" \
	    -CAkey "$TLS/$2.key" -CAcreateserial -days 2 \
	    -extfile "$TLS/$1.ext" -out "$TLS/$1.crt" \
	    >> "$TLS/openssl.log" 2>&1 || bail "openssl: certificate $1 failed"
	[ "$(id -u)" -eq 0 ] && chown postgres "$TLS/$1.key"
	chmod 600 "$TLS/$1.key"
}

make_ca ca
make_ca otherca
make_server server ca "IP:127.0.0.1,DNS:localhost"
# The same CA's, naming only localhost: not 127.0.0.1.
make_server named ca "DNS:localhost"

# The role ckpt gets in by TLS only (no host line for it, so a connection
# without TLS matches nothing); the test itself as postgres, as pg.sh
# does.
cat > "$TLS/pg_hba.conf" <<EOF
local all all trust
local replication all trust
host all postgres 127.0.0.1/32 scram-sha-256
hostssl tls ckpt 127.0.0.1/32 scram-sha-256
EOF

# tls_opts CERT: the server's settings, TLS on with CERT.crt and its key.
tls_opts() {
	printf -- '-c hba_file=%s -c ssl=on -c ssl_cert_file=%s -c ssl_key_file=%s' \
	    "$TLS/pg_hba.conf" "$TLS/$1.crt" "$TLS/$1.key"
}

# server_restart OPTIONS: the server again on its port, with OPTIONS.
server_restart() {
	PG_SERVER_OPTS=$1
	pg_down fast && pg_up || bail "restarting the server failed"
}

PG_SERVER_OPTS=$(tls_opts server)
pg_start

# The password has a character a URI must escape: written %2F there, so
# that both of its spellings must stay hidden.
HEX=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
PW="Tls/$HEX"
PW_URI="Tls%2F$HEX"
psql_q "CREATE ROLE ckpt LOGIN PASSWORD '$PW'" postgres &&
    psql_q "CREATE DATABASE tls OWNER ckpt" postgres ||
    bail "CREATE ROLE ckpt"

# uri HOST [PARAMETERS]: the role's database on HOST, with its password.
uri() {
	printf 'postgresql://ckpt:%s@%s:%s/tls%s' "$PW_URI" "$1" "$PG_PORT" \
	    "${2:+?$2}"
}
VERIFY="sslmode=verify-full&sslrootcert=$TLS/ca.crt"
GOOD=$(uri 127.0.0.1 "$VERIFY")
OTHER_CA=$(uri 127.0.0.1 "sslmode=verify-full&sslrootcert=$TLS/otherca.crt")

# How the store names the server in its messages, as a regex.
WHERE="postgresql://ckpt@127\\.0\\.0\\.1:$PG_PORT/tls"

# The cluster as configured: psql, verify-full, gets in by TLS only.
is "$("$PG_BIN/psql" -X -A -t -d "$GOOD" -c "SELECT ssl FROM pg_stat_ssl
    WHERE pid = pg_backend_pid()" 2>&1)" t \
    "psql with verify-full and the CA: connected, by TLS"
like "$("$PG_BIN/psql" -X -A -t -d "$(uri 127.0.0.1 sslmode=disable)" \
    -c "SELECT 1" 2>&1)" 'no pg_hba\.conf entry .*user "ckpt".*no encryption' \
    "  without TLS the role is refused (hostssl only)"

# --- The right CA: everything works, encrypted ----------------------------

export CHECKPOINT_DB=$GOOD
run init
like "$RC|$OUT|$ERR" \
    "^0\\|postgresql://ckpt:\\*\\*\\*@127\\.0\\.0\\.1:$PG_PORT/tls\\?sslmode=verify-full&sslrootcert=[^|]*: schema version $V\\|\$" \
    "checkpointctl init with verify-full: the schema made, *** for the password"
run job add "$J" --name tls
is "$RC|$OUT|$ERR" "0||" "checkpointctl job add with verify-full"
is "$(psql_q "SELECT job_id || ' ' || name FROM jobs" tls)" "$J tls" \
    "  the job is in the database"

# phase NAME: lighttpd in front of the app with the CHECKPOINT_DB of the
# moment, in a directory of the phase's own; the app logs to lighttpd's
# stderr, APP_LOG.
phase() {
	[ -n "${LIGHTTPD_PID:-}" ] && stop_lighttpd
	INSTANCE=-$1
	APP_LOG=$T/app-$1.log
	start_lighttpd 2>> "$APP_LOG"
}

phase good
http POST "/jobs/$J/checkpoints" "{\"triggerId\":\"$A\"}"
is "$STATUS $BODY" "202 {\"request-id\":\"$A\"}" \
    "POST through lighttpd, verify-full: 202 and the triggerId"
http GET "/jobs/$J/checkpoints/$A"
is "$STATUS $BODY" "200 $IN_PROGRESS" "GET: 200, IN_PROGRESS, byte for byte"
is "$(psql_q "SELECT count(*) FROM triggers WHERE trigger_id = '$A'" tls)" 1 \
    "  the trigger is recorded"
# Each process of the app opens a connection of its own for POSTs (the
# committer) and another for reads: at least two, all of them TLS.
SSL_Q="SELECT count(*) || ' ' || count(*) FILTER (WHERE s.ssl AND a.usename = 'ckpt')
    FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid)
    WHERE a.application_name ="
_c=$(psql_q "$SSL_Q 'checkpoint-api.fcgi'" postgres)
[ "${_c% *}" -ge 2 ] && [ "${_c% *}" = "${_c#* }" ]
ok $? "pg_stat_ssl: the app's connections are the role's, by TLS (all, of $_c)"

# checkpoint-runner --watch, given the URI with the password by --db: it
# runs, its connection is TLS, and ps shows no password.
spawn "$RUNNER" --watch --db "$GOOD" 2> "$T/runner.log"
RUNNER_PID=$LAST_PID
wait_until 100 "[ \"\$(psql_q \"$SSL_Q 'checkpoint-runner'\" postgres)\" = '1 1' ] ||
    gone $RUNNER_PID"
is "$(psql_q "$SSL_Q 'checkpoint-runner'" postgres)" "1 1" \
    "checkpoint-runner --watch --db: connected, by TLS"
wait_until 100 "[ \"\$(psql_q \"SELECT status FROM triggers
    WHERE trigger_id = '$A'\" tls)\" = COMPLETED ]"
http GET "/jobs/$J/checkpoints/$A"
is "$STATUS $BODY" \
    '200 {"status":{"id":"COMPLETED"},"operation":{"checkpointId":1}}' \
    "  it completed the trigger"
tr '\0' ' ' < "/proc/$RUNNER_PID/cmdline" > "$T/runner-cmdline"
ps -o args= -p "$RUNNER_PID" > "$T/runner-ps"
for _f in runner-cmdline runner-ps; do
	[ -s "$T/$_f" ] && ! grep -q -F -e "$HEX" "$T/$_f"
	ok $? "the password is not in the runner's $_f: $(sed "s/$HEX/<PASSWORD>/g" "$T/$_f")"
done
stop_pid "$RUNNER_PID"
cat "$T/runner.log" >> "$T/all-output"

# --- What verify-full refuses ------------------------------------------------

# refused URI PHASE WHAT REASON: checkpointctl fails in one line naming
# the server and REASON (a regex), nothing on stdout; the app behind
# lighttpd (phase PHASE) answers POST and GET with the contract's 503,
# and its log says REASON.
refused() {
	export CHECKPOINT_DB="$1"
	run job list
	like "$RC|$OUT|$ERR|$(printf '%s\n' "$ERR" | wc -l)" \
	    "^1\\|\\|checkpointctl: $WHERE: .*$4.*\\|1\$" \
	    "$3: checkpointctl refuses, exit 1, one line saying why"
	phase "$2"
	http POST "/jobs/$J/checkpoints" "{\"triggerId\":\"$B\"}"
	is "$STATUS $BODY" "503 $CANNOT_OPEN" "$3: POST is the contract's 503"
	http GET "/jobs/$J/checkpoints/$A"
	is "$STATUS $BODY" "503 $CANNOT_OPEN" "$3: GET is the contract's 503"
	grep -Eq "error: open store: $WHERE: .*$4" "$APP_LOG"
	ok $? "$3: the app's log says why"
}

refused "$OTHER_CA" otherca "a certificate of another CA" \
    "certificate verify failed"
is "$(psql_q "SELECT count(*) FROM triggers WHERE trigger_id = '$B'" tls)" 0 \
    "  nothing recorded"

# The server presents a certificate of the right CA naming localhost
# only: 127.0.0.1 is refused, the name it bears accepted.
server_restart "$(tls_opts named)"
refused "$GOOD" named "a certificate not naming 127.0.0.1" \
    'server certificate for "localhost" .*does not match host name "127\.0\.0\.1"'
run --db "$(uri localhost "hostaddr=127.0.0.1&$VERIFY")" job list
is "$RC|$(printf '%s\n' "$OUT" | grep -c "^$J ")|$ERR" "0|1|" \
    "  the same certificate, the host named localhost: accepted"

# No TLS at all on the server: sslmode=require refuses to go on.
server_restart "-c hba_file=$TLS/pg_hba.conf -c ssl=off"
refused "$(uri 127.0.0.1 sslmode=require)" nossl "sslmode=require without TLS" \
    "server does not support SSL, but SSL was required"

# The server with TLS again: the same app URI works once more.
server_restart "$(tls_opts server)"
# The name checked is the host's, not the address connected to.
run --db "$(uri db.invalid "hostaddr=127.0.0.1&$VERIFY")" job list
like "$RC|$OUT|$ERR" \
    '^1\|\|checkpointctl: postgresql://ckpt@db\.invalid:[0-9]+/tls: .*does not match host name "db\.invalid"$' \
    "a host the certificate does not name, at its address (hostaddr): refused"
export CHECKPOINT_DB=$GOOD
phase again
http POST "/jobs/$J/checkpoints" "{\"triggerId\":\"$B\"}"
is "$STATUS $BODY" "202 {\"request-id\":\"$B\"}" \
    "TLS back: POST with verify-full answers 202"
stop_lighttpd

# --- The password shows nowhere -------------------------------------------

# Every log of the app and of lighttpd, every output of checkpointctl.
LOGS="$T/all-output $T/runner.log $(ls "$T"/app-*.log \
    "$T"/lighttpd-*/lighttpd-error.log | tr '\n' ' ')"
for _f in $LOGS; do
	case $_f in
	*/runner.log|*/app-good.log|*/app-again.log) ;;
	*) [ -s "$_f" ] || bail "$_f is empty" ;;
	esac
done
# shellcheck disable=SC2086
is "$(echo $LOGS | wc -w)" 12 \
    "(the logs: checkpointctl's, the runner's, the app's and lighttpd's of 5 phases)"
# shellcheck disable=SC2086
_found=$(grep -l -F -e "$HEX" -e "$PW" -e "$PW_URI" $LOGS 2>/dev/null)
is "$_found" "" \
    "no password in checkpointctl's outputs, the runner's or the app's log, lighttpd's"

done_testing
