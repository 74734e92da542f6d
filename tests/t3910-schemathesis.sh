#!/bin/sh
# An outside fuzzer on the whole API: Schemathesis (pinned with everything
# it installs in tests/schemathesis/requirements.txt) reads the OpenAPI
# document (cgi/checkpoint-api.openapi.json) and sends every operation
# requests of its own making, valid and not, to the live app behind
# lighttpd, with a watching checkpoint-runner completing what it triggers;
# the document's links take it from a job list to that job's endpoints and
# from a trigger's 202 to its status.  Every check it has must pass on
# every answer: no 5xx, status, content type, headers and body as
# documented, schema-valid requests accepted and invalid ones refused, 405
# with its Allow.  The run is bounded (examples per operation, a seed, a
# time limit), and the database is whole after it.
#
# Python is here only to run the fuzzer: a virtual environment of
# Debian's python3 (python3-venv), cached by the requirements' checksum
# under $XDG_CACHE_HOME (or ~/.cache)/checkpoint-api, so that a warm run
# downloads nothing.  The test fails, never skips, when it cannot be
# installed.
#
# ST_SEED, ST_EXAMPLES (per operation and phase) and ST_TIMEOUT (seconds)
# change the run; a failure's report says how to replay it.

. "$(dirname "$0")/lib.sh"

for c in lighttpd curl sqlite3; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing"
done
# The app's defaults: none of its settings (lib.sh's SETTINGS) from outside.
unset $SETTINGS

DOC=$top_srcdir/cgi/checkpoint-api.openapi.json
REQS=$top_srcdir/tests/schemathesis/requirements.txt
ST_CONFIG=$top_srcdir/tests/schemathesis/schemathesis.toml
PYTHON=${PYTHON:-/usr/bin/python3}
ST_SEED=${ST_SEED:-3910}
ST_EXAMPLES=${ST_EXAMPLES:-200}
ST_TIMEOUT=${ST_TIMEOUT:-300}

# --- the fuzzer, installed once --------------------------------------------------

ST_VERSION=$(sed -n 's/^schemathesis==//p' "$REQS")
[ -n "$ST_VERSION" ] || bail "$REQS pins no schemathesis"
[ -x "$PYTHON" ] || bail "$PYTHON is missing (Debian's python3, python3-venv)"
PY_VERSION=$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])') ||
    bail "$PYTHON does not run"
CACHE=${XDG_CACHE_HOME:-${HOME:-$top_builddir}/.cache}/checkpoint-api
VENV=$CACHE/schemathesis-$ST_VERSION-py$PY_VERSION-$(sha256sum < "$REQS" | cut -c1-12)

# A new environment is made beside the cache's and renamed into place
# whole, so that a run that stops halfway, or two at once, never leave a
# broken one to be used; python -m runs it, as a moved environment's
# scripts would name the old place.
if [ ! -f "$VENV/installed" ]; then
	mkdir -p "$CACHE" || bail "cannot make $CACHE"
	NEW=$(mktemp -d "$VENV.new.XXXXXX") || bail "cannot make a directory in $CACHE"
	if "$PYTHON" -m venv "$NEW" > "$T/venv.log" 2>&1 &&
	    "$NEW/bin/python" -m pip install --quiet --disable-pip-version-check \
	    --no-input --require-virtualenv -r "$REQS" >> "$T/venv.log" 2>&1; then
		touch "$NEW/installed"
		mv -T "$NEW" "$VENV" 2>/dev/null || rm -rf "$NEW"
	else
		sed 's/^/# /' "$T/venv.log" | tail -n 20
		rm -rf "$NEW"
	fi
else
	diag "schemathesis $ST_VERSION: cached in $VENV"
fi
[ -f "$VENV/installed" ]
ok $? "schemathesis $ST_VERSION installed ($VENV)"
GOT=$("$VENV/bin/python" -m schemathesis.cli --version 2>&1)
is "$GOT" "python -m schemathesis.cli, version $ST_VERSION" \
    "schemathesis: the pinned version runs"
[ "$GOT" = "python -m schemathesis.cli, version $ST_VERSION" ] ||
    bail "no schemathesis $ST_VERSION to run"

# --- the service, with jobs of every kind ----------------------------------------

# The document's examples: the job of its jobid examples, whose checkpoint
# 1 and trigger 111...1 exist before the fuzzer asks for them.
J=0123456789abcdef0123456789abcdef
TJ=11111111111111111111111111111111
JF=fa11fa11fa11fa11fa11fa11fa11fa11 # its action fails
JC=cccccccccccccccccccccccccccccccc # canceled
is "$(grep -c "\"example\": \"$J\"" "$DOC")" "$(grep -c '"name": "jobid"' "$DOC")" \
    "the document's example of every jobid is the job made here"
grep -q "\"example\": \"$TJ\"" "$DOC"
ok $? "the document's example of a triggerid is the trigger made here"

# Each has a savepoint directory, so that a savepoint or stop whose body
# names none, which the document allows, is accepted (with no directory
# at all it is Flink's 400).
SPD="--savepoint-dir file:///tmp/checkpoint-api-t3910"
"$CTL" job add $J --name completes $SPD > /dev/null &&
    "$CTL" job add $JF --name fails --command 'echo disk full >&2; exit 3' \
    $SPD > /dev/null &&
    "$CTL" job add $JC --name canceled $SPD > /dev/null &&
    "$CTL" job set $JC --state CANCELED > /dev/null || bail "checkpointctl job"

# lighttpd refuses a path with a control character itself, with its own
# HTML 400 (scripts/README.examples), before the app sees it: here it
# passes them on, so that the fuzzer's paths reach the app's own checks.
# Added to lighttpd.conf's own options (+=): a second "=" is refused.
LIGHTTPD_EXTRA='server.http-parseopts += ( "url-ctrls-reject" => "disable" )'
start_server 2>> "$T/server-stderr.log"
spawn "$RUNNER" --watch 2>> "$T/runner.log"
RUNNER_PID=$LAST_PID

http POST /jobs/$J/checkpoints "{\"triggerId\":\"$TJ\"}"
is "$STATUS" 202 "the example trigger is recorded"
http POST /jobs/$JF/checkpoints
is "$STATUS" 202 "a trigger of the failing job is recorded"
both_completed() {
	[ "$(sql "SELECT count(*) FROM triggers WHERE status = 'COMPLETED'")" = 2 ]
}
wait_until 100 both_completed
ok $? "the watching runner ran both"
http GET /jobs/$J/checkpoints/details/1
is "$STATUS" 200 "the example checkpoint 1 exists"

# --- the runs --------------------------------------------------------------------

"$top_builddir/tests/openapi-check" -l "$DOC" > "$T/documented-answers" ||
    bail "openapi-check -l failed"
grep -v '^ANY \|^OTHER ' "$T/documented-answers" | cut -d' ' -f1,2 |
    sort -u > "$T/documented"

# fuzz NAME PREFIX EXAMPLES [OPTION...]: one run of schemathesis on every
# operation of the document at $BASE$PREFIX, but those OPTION excludes;
# then one test line for each operation and for the stateful phase, as
# its JUnit report gives them (a test case each, with a <failure> or
# <error> when it had one).
fuzz() {
	_name=$1 _url=$BASE$2 _n=$3
	shift 3
	_out=$T/schemathesis-$_name
	mkdir -p "$_out"
	diag "schemathesis on $_url: seed $ST_SEED, $_n examples, at most $ST_TIMEOUT s"
	_start=$(date +%s)
	(cd "$_out" && timeout -k 10 "$ST_TIMEOUT" "$VENV/bin/python" \
	    -m schemathesis.cli --config-file "$ST_CONFIG" run "$DOC" \
	    --url "$_url" "$@" \
	    --checks all --workers 1 --seed "$ST_SEED" --max-examples "$_n" \
	    --generation-database none --request-timeout 10 --no-color \
	    --report junit --report-junit-path "$_out/junit.xml") \
	    > "$_out/output" 2>&1
	_rc=$?
	diag "schemathesis exited $_rc after $(($(date +%s) - _start)) s"
	sed -n '/^Test cases:/,/^$/p; /^=* .* in [0-9.]*s =*$/p' "$_out/output" |
	    sed 's/^/# /'
	is "$_rc" 0 "$_name: schemathesis found no failure and no error"
	if [ "$_rc" -ne 0 ]; then
		sed -n '/^=* \(FAILURES\|ERRORS\) =*$/,/^=* SUMMARY =*$/p' \
		    "$_out/output" | head -n 300 | sed 's/^/# /'
	fi
	[ -f "$_out/junit.xml" ] || bail "$_name: no JUnit report from schemathesis"
	tr -d '\n' < "$_out/junit.xml" | sed 's/<testcase /\
&/g' | grep '^<testcase ' > "$_out/cases"
	sed 's/^<testcase [^>]*name="\([^"]*\)".*/\1/' "$_out/cases" |
	    sort > "$_out/tested"
	while IFS= read -r _case; do
		_op=$(printf '%s' "$_case" |
		    sed 's/^<testcase [^>]*name="\([^"]*\)".*/\1/')
		case $_case in
		*'<failure'* | *'<error'*) ok 1 "$_name: $_op" ;;
		*) ok 0 "$_name: $_op" ;;
		esac
	done < "$_out/cases"
}

# covered NAME [EXCLUDED]: the operations the run NAME tested are the
# documented ones but EXCLUDED, and it ran the stateful phase.
covered() {
	is "$(grep -vx 'Stateful tests' "$T/schemathesis-$1/tested" | tr '\n' ';')" \
	    "$(grep -vxE "${2:-}" "$T/documented" | tr '\n' ';')" \
	    "$1: schemathesis tested every documented operation${2:+ but $2}"
	grep -qx 'Stateful tests' "$T/schemathesis-$1/tested"
	ok $? "$1: and it followed the document's links (stateful phase)"
}

fuzz root "" "$ST_EXAMPLES"
covered root

# The same paths under Flink's version prefix (the document's second
# server); /metrics is never there, nor the page (one prefix, /ui/).
fuzz v1 /v1 "$((ST_EXAMPLES / 2 + 1))" --exclude-path /metrics \
    --exclude-path-regex '^/ui/'
covered v1 'GET /metrics|GET /ui/.*'

# --- afterwards: the service and the store whole -------------------------------

http GET /jobs/$J/checkpoints/$TJ
is "$STATUS" 200 "the service still answers after the run"
diag "$(sql "SELECT count(*) FROM triggers") triggers recorded"
# Every trigger the fuzzer's 202s recorded, on any job or none, is run by
# the watching runner to a result.
none_in_progress() {
	[ "$(sql "SELECT count(*) FROM triggers WHERE status = 'IN_PROGRESS'")" = 0 ]
}
wait_until 600 none_in_progress
ok $? "the watching runner ran every trigger to a result"
term_wait "$RUNNER_PID"
is "$RC" 0 "the watching runner ends on SIGTERM"
stop_server
is "$(sql 'PRAGMA integrity_check')" ok "the database: integrity_check"
is "$(sql 'PRAGMA foreign_key_check')" "" "the database: foreign_key_check"
"$CTL" job list > "$T/jobs" 2>&1
ok $? "checkpointctl job list reads it"
"$CTL" triggers --limit 100000 > "$T/triggers" 2>&1
ok $? "checkpointctl triggers reads every trigger"

done_testing
