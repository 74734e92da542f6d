#!/bin/sh
# On PostgreSQL the GETs of threads that wait at the same time are read in
# one statement (cgi/readers.c): 32 clients at once, against a pool of a
# few connections, each get their own trigger's answer byte for byte
# (completed, in progress, or the contract's 404), the server ran fewer
# status statements than there were GETs (pg_stat_statements counts
# them), and with the server stopped every one of those waiting GETs is
# the contract's 503, not a hang, until it is back.

. "$(dirname "$0")/lib.sh"
PG_SERVER_OPTS="-c shared_preload_libraries=pg_stat_statements"
. "$(dirname "$0")/pg.sh"

for c in lighttpd curl; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing"
done

J=0123456789abcdef0123456789abcdef
CANNOT_OPEN='{"errors":["Service temporarily unavailable: the checkpoint database cannot be opened or read. Please retry."]}'
IN_PROGRESS='{"status":{"id":"IN_PROGRESS"},"operation":null}'
N=60 # triggers of each kind: completed, in progress, never posted

pg_start
pg_app_db together
"$CTL" init > /dev/null && "$CTL" job add "$J" > /dev/null ||
    bail "checkpointctl init, job add"
pg_sql "CREATE EXTENSION pg_stat_statements" > /dev/null ||
    bail "CREATE EXTENSION pg_stat_statements"
start_lighttpd

tid() {
	printf '%032x' "$1"
}

# The first N completed (checkpoint i), the next N in progress.
i=1
while [ $i -le $((2 * N)) ]; do
	http POST "/jobs/$J/checkpoints" "{\"triggerId\":\"$(tid $i)\"}"
	[ "$STATUS" = 202 ] || bail "POST $i: $STATUS $BODY"
	[ $i -eq $N ] && { "$RUNNER" 2>> "$T/runner.log" || bail "runner"; }
	i=$((i + 1))
done

# What each of the 3N triggers must answer, "id status body", sorted.
i=1
while [ $i -le $((3 * N)) ]; do
	if [ $i -le $N ]; then
		echo "$(tid $i) 200 {\"status\":{\"id\":\"COMPLETED\"},\"operation\":{\"checkpointId\":$i}}"
	elif [ $i -le $((2 * N)) ]; then
		echo "$(tid $i) 200 $IN_PROGRESS"
	else
		echo "$(tid $i) 404 {\"errors\":[\"There is no checkpoint operation with triggerId=$(tid $i) for job $J.\"]}"
	fi
	i=$((i + 1))
done | sort > "$T/expected"

# gets ROUNDS: every trigger ROUNDS times, by one curl of 32 transfers at
# once (a process a GET would rarely have two at the same time); "id
# status body" lines, sorted, in $T/got.
gets() {
	rm -rf "$T/got.d" && mkdir "$T/got.d"
	: > "$T/curl.cfg"
	_k=0
	_r=0
	while [ $_r -lt "$1" ]; do
		i=1
		while [ $i -le $((3 * N)) ]; do
			_k=$((_k + 1))
			printf 'url = "%s/jobs/%s/checkpoints/%s"\noutput = "%s/%s"\n' \
			    "$BASE" "$J" "$(tid $i)" "$T/got.d" $_k >> "$T/curl.cfg"
			i=$((i + 1))
		done
		_r=$((_r + 1))
	done
	curl -s -g -Z --parallel-max 32 -K "$T/curl.cfg" \
	    -w '%{http_code} %{url_effective} %{filename_effective}\n' \
	    > "$T/codes" 2> "$T/curl.err"
	while read -r _code _url _file; do
		printf '%s %s %s\n' "${_url##*/}" "$_code" "$(cat "$_file")"
	done < "$T/codes" | sort > "$T/got"
}

statements() {
	pg_sql "SELECT coalesce(sum(calls), 0) || ' ' || coalesce(sum(rows), 0)
	    FROM pg_stat_statements WHERE query LIKE '%unnest(\$1::text[], \$2::text[])%'"
}

pg_sql "SELECT pg_stat_statements_reset()" > /dev/null
gets 4
is "$(wc -l < "$T/got" | tr -d ' ')" $((12 * N)) "$((12 * N)) GETs, 32 at once: all answered"
is "$(sort -u "$T/got" | diff - "$T/expected" && echo same)" same \
    "  each its own trigger's answer, byte for byte (completed, in progress, 404)"
set -- $(statements)
calls=${1:-0} rows=${2:-0}
[ "$calls" -gt 0 ] && [ "$calls" -lt $((12 * N)) ]
ok $? "  read in fewer statements than GETs ($calls statements)"
is "$rows" $((8 * N)) "  which found the $((8 * N)) answers that exist"
diag "GETs a statement: $((12 * N * 100 / (calls > 0 ? calls : 1))) / 100"

pg_down fast
gets 1
is "$(awk '{ $1 = ""; print }' "$T/got" | sort -u)" " 503 $CANNOT_OPEN" \
    "server stopped: every one of $((3 * N)) waiting GETs is the contract's 503"
pg_up
gets 2
is "$(sort -u "$T/got" | diff - "$T/expected" && echo same)" same \
    "server back: the same app answers every GET right again, no restart"
done_testing
