# Sourced by tests/http-checks.sh, through whichever web server it runs:
# the page (GET /ui/, cgi/ui.c) with its type, ETag and 304 as the server
# passes them, the /ui redirect; and the cross-site rule for POSTs, which
# needs the server to pass Origin and Host (HTTP_ORIGIN, HTTP_HOST).

http GET /ui
is "$STATUS $(header location)" "302 ui/" "page: /ui redirects to ui/"
http GET /ui/
is "$STATUS $(header content-type)" "200 text/html; charset=utf-8" \
    "page: /ui/ is the page"
like "$BODY" '<script type="module" src="app.js">' \
    "page: its script is a module at a relative URL"
is "$(header cache-control)" no-cache "page: revalidated at each load"
_etag=$(header etag)
is "$(curl -s -o /dev/null -w '%{http_code} %{size_download}' \
    -H "If-None-Match: $_etag" "$BASE/ui/")" "304 0" \
    "page: 304 on its ETag, with no body"
http GET /ui/app.js
is "$STATUS $(header content-type)" "200 text/javascript; charset=utf-8" \
    "page: app.js is JavaScript"

# origin_post ORIGIN TRIGGERID [HOST]: the status of a POST with that
# Origin (and Host).
origin_post() {
	curl -s -o "$T/resp-body" -w '%{http_code}' -H "Origin: $1" \
	    ${3:+-H "Host: $3"} \
	    -H 'Content-Type: application/json' -d "{\"triggerId\":\"$2\"}" \
	    "$BASE/jobs/$J/checkpoints"
}
TX=0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e
is "$(origin_post http://evil.example $TX)" 403 \
    "cross-site: a POST with another site's Origin is refused"
is "$(sql "SELECT count(*) FROM triggers WHERE trigger_id='$TX'")" 0 \
    "cross-site: and recorded nothing"
# DNS rebinding: another site's page, its name pointed here, sends Host
# and Origin both its own.  Without CHECKPOINT_ORIGINS only an address's
# (or localhost's) own page is believed; http-checks.sh sets the list.
is "$(origin_post "http://evil.example:$PORT" $TX "evil.example:$PORT")" 403 \
    "cross-site: Host and Origin both another site's name: refused"
is "$(sql "SELECT count(*) FROM triggers WHERE trigger_id='$TX'")" 0 \
    "cross-site: and recorded nothing"
is "$(origin_post "http://127.0.0.1:$PORT" $TX)" 202 \
    "cross-site: the service's own Origin is accepted (the server passes Host)"
