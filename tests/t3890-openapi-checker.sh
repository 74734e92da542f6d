#!/bin/sh
# tests/openapi-check itself, before t3900 trusts it: against a small
# document that uses every rule it knows, a body that keeps each rule
# passes and a body that breaks it fails, with its one-line reason; paths
# match their templates (a literal before a parameter, under /v1, with a
# trailing slash and a query), a method the path does not list is its 405,
# any other path the document's 404; the listing (-l) and the Allow
# methods (-a); a broken $ref and a missing document are exit status 2.

. "$(dirname "$0")/lib.sh"

CHECK=$top_builddir/tests/openapi-check
DOC=$T/rules.json
JSON='application/json; charset=UTF-8'

cat > "$DOC" <<'EOF'
{
  "openapi": "3.0.3",
  "info": { "title": "rules", "version": "1" },
  "servers": [ { "url": "/" }, { "url": "/v1" } ],
  "x-unknown-path": { "$ref": "#/components/responses/Error" },
  "paths": {
    "/things/{id}": {
      "x-method-not-allowed": { "$ref": "#/components/responses/Error" },
      "get": { "responses": {
        "200": { "description": "a thing", "content": {
          "application/json; charset=UTF-8": {
            "schema": { "$ref": "#/components/schemas/Thing" } } } },
        "404": { "$ref": "#/components/responses/Error" } } },
      "delete": { "responses": { "204": { "description": "gone" } } }
    },
    "/plain": {
      "servers": [ { "url": "/" } ],
      "get": { "responses": { "200": { "description": "text",
        "content": { "text/plain; charset=utf-8": {
          "schema": { "type": "string" } } } } } }
    },
    "/things/special": {
      "get": { "responses": { "200": { "description": "text",
        "content": { "text/plain; charset=utf-8": {
          "schema": { "type": "string" } } } } } }
    }
  },
  "components": {
    "schemas": {
      "Thing": {
        "type": "object",
        "required": [ "i", "n" ],
        "additionalProperties": false,
        "properties": {
          "i": { "type": "integer", "format": "int32" },
          "n": { "type": "number" },
          "s": { "type": "string", "pattern": "^[a-f]{2}$" },
          "b": { "type": "boolean" },
          "e": { "type": "string", "enum": [ "A", "B" ] },
          "z": { "type": "string", "nullable": true },
          "r": { "nullable": true,
                 "allOf": [ { "$ref": "#/components/schemas/Sub" } ] },
          "a": { "type": "array", "minItems": 1, "maxItems": 2,
                 "items": { "type": "integer" } },
          "m": { "type": "object",
                 "additionalProperties": { "type": "integer" } },
          "q": { "anyOf": [ { "type": "number" },
                            { "type": "string", "enum": [ "NaN" ] } ] },
          "o": { "oneOf": [ { "$ref": "#/components/schemas/X" },
                            { "$ref": "#/components/schemas/Y" } ] },
          "open": { "type": "object",
                    "properties": { "k": { "type": "integer" } } },
          "l": { "type": "integer", "format": "int64" }
        }
      },
      "Sub": { "type": "object", "required": [ "k" ],
               "properties": { "k": { "type": "string" } } },
      "X": { "type": "object", "required": [ "kind", "x" ],
             "properties": { "kind": { "type": "string", "enum": [ "x" ] },
                             "x": { "type": "integer" } } },
      "Y": { "type": "object", "required": [ "kind" ],
             "properties": { "kind": { "type": "string", "enum": [ "y", "x" ] },
                             "x": { "type": "integer" } } },
      "Error": { "type": "object", "required": [ "errors" ],
                 "additionalProperties": false,
                 "properties": { "errors": { "type": "array",
                   "minItems": 1, "items": { "type": "string" } } } }
    },
    "responses": {
      "Error": { "description": "an error", "content": {
        "application/json; charset=UTF-8": {
          "schema": { "$ref": "#/components/schemas/Error" } } } }
    }
  }
}
EOF

# run METHOD PATH STATUS CONTENT-TYPE BODY: the checker's exit status and
# its output (stdout and stderr), on one line.
run() {
	printf '%s' "$5" > "$T/body"
	_out=$("$CHECK" "$DOC" "$1" "$2" "$3" "$4" "$T/body" 2>&1)
	printf '%s %s' "$?" "$_out"
}

# good NAME BODY: a GET of a thing with BODY passes.
good() {
	is "$(run GET /things/1 200 "$JSON" "$2")" \
	    "0 GET /things/{id} 200" "passes: $1"
}
# bad NAME BODY REASON: it fails, with that reason.
bad() {
	is "$(run GET /things/1 200 "$JSON" "$2")" \
	    "1 openapi-check: $3" "fails: $1"
}

# --- each rule, kept and broken ------------------------------------------------

good "the required fields only" '{"i":1,"n":2}'
good "every field" '{"i":-2147483648,"n":2.5,"s":"ab","b":true,"e":"B","z":null,"r":{"k":"v","more":1},"a":[1,2],"m":{"p":1,"q":2},"q":"NaN","o":{"kind":"y"},"open":{"k":1,"other":"x"},"l":9223372036854775807}'
good "a number may be an integer" '{"i":1,"n":2}'
good "a nullable string is a string too" '{"i":1,"n":2,"z":"x"}'
good "a nullable \$ref may be null" '{"i":1,"n":2,"r":null}'
good "anyOf: a number" '{"i":1,"n":2,"q":0.5}'
good "oneOf: exactly one branch" '{"i":1,"n":2,"o":{"kind":"y"}}'
good "an empty map" '{"i":1,"n":2,"m":{}}'

bad "required missing" '{"i":1}' '$: required "n" missing'
bad "additionalProperties false" '{"i":1,"n":2,"x":0}' '$: "x" is not allowed'
bad "integer given as a number" '{"i":1.0,"n":2}' '$.i: number where integer is expected'
bad "integer given as a string" '{"i":"1","n":2}' '$.i: string where integer is expected'
bad "number given as a string" '{"i":1,"n":"2"}' '$.n: string where number is expected'
bad "int32 out of range" '{"i":2147483648,"n":2}' '$.i: 2147483648 is out of int32'"'"'s range'
bad "boolean given as a number" '{"i":1,"n":2,"b":1}' '$.b: integer where boolean is expected'
bad "null where not nullable" '{"i":null,"n":2}' '$.i: null where integer is not nullable'
bad "pattern" '{"i":1,"n":2,"s":"abc"}' '$.s: "abc" does not match ^[a-f]{2}$'
bad "enum" '{"i":1,"n":2,"e":"C"}' '$.e: "C" is not one of the enum ["A","B"]'
bad "enum is case-sensitive" '{"i":1,"n":2,"e":"a"}' '$.e: "a" is not one of the enum ["A","B"]'
bad "\$ref: the referenced schema's rules" '{"i":1,"n":2,"r":{"x":1}}' '$.r: required "k" missing'
bad "\$ref: its properties' types" '{"i":1,"n":2,"r":{"k":1}}' '$.r.k: integer where string is expected'
bad "items" '{"i":1,"n":2,"a":[1,"2"]}' '$.a[1]: string where integer is expected'
bad "minItems" '{"i":1,"n":2,"a":[]}' '$.a: 0 items, fewer than minItems 1'
bad "maxItems" '{"i":1,"n":2,"a":[1,2,3]}' '$.a: 3 items, more than maxItems 2'
bad "an array where an object is expected" '{"i":1,"n":2,"m":[]}' '$.m: array where object is expected'
bad "additionalProperties as a schema" '{"i":1,"n":2,"m":{"p":"1"}}' '$.m.p: string where integer is expected'
bad "anyOf: none" '{"i":1,"n":2,"q":"nan"}' '$.q: matches none of anyOf ($.q: string where number is expected)'
bad "oneOf: none, the branch meant named" '{"i":1,"n":2,"o":{"kind":"x","x":"s"}}' \
    '$.o: matches none of oneOf ($.o.x: string where integer is expected)'
bad "oneOf: two" '{"i":1,"n":2,"o":{"kind":"x","x":1}}' '$.o: matches 2 of oneOf, not one'
bad "open objects still check their properties" '{"i":1,"n":2,"open":{"k":true}}' \
    '$.open.k: boolean where integer is expected'
bad "the top level's type" '[]' '$: array where object is expected'
bad "a body that is not JSON" '{"i":1,' '$: the body is not one JSON text'
bad "trailing garbage" '{"i":1,"n":2} x' '$: the body is not one JSON text'
bad "an empty body" '' '$: the body is not one JSON text'
bad "NaN as a bare literal" '{"i":1,"n":NaN}' '$: the body is not one JSON text'
bad "single quotes" "{'i':1,'n':2}" '$: the body is not one JSON text'
bad "a raw control character in a string" "$(printf '{"i":1,"n":2,"s":"a\tb"}')" \
    '$: the body is not one JSON text'

# --- paths, methods, statuses and content types --------------------------------

ERR='{"errors":["x"]}'
is "$(run GET /v1/things/1/ 200 "$JSON" '{"i":1,"n":2}')" "0 GET /things/{id} 200" \
    "under /v1 with a trailing slash"
is "$(run GET '/things/1?a=/b' 200 "$JSON" '{"i":1,"n":2}')" "0 GET /things/{id} 200" \
    "the query is not part of the path"
is "$(run GET /things/special 200 'text/plain; charset=utf-8' 'anything')" \
    "0 GET /things/special 200" "a literal segment beats a parameter; text is not parsed"
is "$(run GET /things/special 200 'text/plain;charset=UTF-8' 'x')" \
    "0 GET /things/special 200" "content types compare without case or blanks"
is "$(run GET /things/special 200 'text/html; charset=utf-8' 'x')" \
    '1 openapi-check: content type: "text/html; charset=utf-8" is not documented' \
    "fails: an undocumented content type"
is "$(run GET /things/1 200 'application/json' '{"i":1,"n":2}')" \
    '1 openapi-check: content type: "application/json" is not documented' \
    "fails: the charset is part of the content type"
is "$(run GET /things/1 404 "$JSON" "$ERR")" "0 GET /things/{id} 404" \
    "a documented error status"
is "$(run GET /things/1 404 "$JSON" '{"errors":[]}')" \
    '1 openapi-check: $.errors: 0 items, fewer than minItems 1' "fails: a bad error body"
is "$(run GET /things/1 500 "$JSON" "$ERR")" \
    '1 openapi-check: /things/{id}: GET answered 500, which is not documented' \
    "fails: an undocumented status"
is "$(run DELETE /things/1 204 '' '')" "0 DELETE /things/{id} 204" \
    "a response without a body"
is "$(run DELETE /things/1 204 "$JSON" '{}')" \
    '1 openapi-check: content type: "application/json; charset=UTF-8" where no body is documented' \
    "fails: a body where none is documented"
is "$(run PUT /things/1 405 "$JSON" "$ERR")" "0 OTHER /things/{id} 405" \
    "a method the path does not list: its 405"
is "$(run PUT /things/1 200 "$JSON" "$ERR")" \
    '1 openapi-check: /things/{id}: PUT answered 200, not 405' \
    "fails: a method the path does not list, answered"
is "$(run PUT /things/special 405 "$JSON" "$ERR")" \
    '1 openapi-check: /things/special: PUT is not documented' \
    "fails: a method of a path without x-method-not-allowed"
is "$(run GET /nope 404 "$JSON" "$ERR")" "0 ANY - 404" "an unknown path: the 404"
is "$(run GET /v2/things/1 404 "$JSON" "$ERR")" "0 ANY - 404" \
    "a prefix no server has is an unknown path"
is "$(run GET /v1/v1/things/1 404 "$JSON" "$ERR")" "0 ANY - 404" \
    "the prefix is taken once"
is "$(run GET /Things/1 404 "$JSON" "$ERR")" "0 ANY - 404" \
    "literal segments are case-sensitive"
is "$(run GET /things/1/x 404 "$JSON" "$ERR")" "0 ANY - 404" \
    "a longer path is unknown"
is "$(run GET /plain 200 'text/plain; charset=utf-8' x)" "0 GET /plain 200" \
    "a path with servers of its own"
is "$(run GET /v1/plain 404 "$JSON" "$ERR")" "0 ANY - 404" \
    "a path with servers of its own is not under the document's"
is "$(run GET /nope 200 "$JSON" "$ERR")" \
    '1 openapi-check: /nope: unknown path answered 200, not 404' \
    "fails: an unknown path answered"

# --- the listing, Allow, and broken documents ---------------------------------

is "$("$CHECK" -l "$DOC" | tr '\n' '|')" \
    'ANY - 404|GET /things/{id} 200|GET /things/{id} 404|DELETE /things/{id} 204|OTHER /things/{id} 405|GET /plain 200|GET /things/special 200|' \
    "-l lists every method, template and status"
is "$("$CHECK" -a "$DOC" /v1/things/7/)" "/things/{id} GET DELETE" \
    "-a: the path's template and methods"

sed 's|#/components/schemas/Sub|#/components/schemas/Nothing|' "$DOC" > "$T/broken.json"
"$CHECK" -l "$T/broken.json" > /dev/null 2> "$T/err"
is "$? $(cat "$T/err")" \
    "2 openapi-check: \$ref: #/components/schemas/Nothing resolves to nothing" \
    "-l: a \$ref that resolves to nothing is the document's fault"
printf '%s' '{"i":1,"n":2,"r":{"k":"v"}}' > "$T/body"
"$CHECK" "$T/broken.json" GET /things/1 200 "$JSON" "$T/body" > /dev/null 2> "$T/err"
is "$? $(cat "$T/err")" \
    "2 openapi-check: \$.r: \$ref #/components/schemas/Nothing resolves to nothing" \
    "a check through a broken \$ref is the document's fault"
"$CHECK" "$T/missing.json" GET /things/1 200 "$JSON" "$T/body" > /dev/null 2>&1
is "$?" 2 "a missing document is exit status 2"
"$CHECK" "$DOC" GET /things/1 > /dev/null 2>&1
is "$?" 2 "a short command line is exit status 2"

# --- the project's document ----------------------------------------------------

"$CHECK" -l "$top_srcdir/cgi/checkpoint-api.openapi.json" > "$T/ops"
ok $? "the project's document: every \$ref resolves"
like "$(wc -l < "$T/ops")" '^ *[1-9][0-9]+$' "the project's document lists its operations"

done_testing
