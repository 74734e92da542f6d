#!/bin/sh
# failureCause's serialized-throwable as Flink's Java clients read it
# (checkpoint-api(7)): every failure the runner makes (an unknown job, a
# job not RUNNING, an action declined with 64 KiB of stderr, non-ASCII
# included, or without any, or killed by a signal, an action past its
# timeout, the claim of a runner that is gone) and one stored before
# migration 3, each answered by the real FastCGI app and read by a JDK:
# base64, then ObjectInputStream into a class with the name,
# serialVersionUID and serial fields of Flink's SerializedThrowable
# (tests/java), every string checked exactly at every level of the chain
# of causes (an unknown job's FlinkJobNotFoundException inside its
# CompletionException), and ObjectOutputStream must write the object back
# as the very same bytes.  A stream cut short or
# with a byte altered must make the Java side fail, or its strings differ.
#
# Jobs' commands are in single quotes on purpose: their $VARS are for the
# action's shell.
# shellcheck disable=SC2016

. "$(dirname "$0")/lib.sh"

for c in javac java cgi-fcgi sqlite3 base64 dd cmp perl; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing"
done

CLASSES=$T/classes
JOB_CLASS=java.util.concurrent.CompletionException
NOT_FOUND=org.apache.flink.runtime.messages.FlinkJobNotFoundException
CKPT_CLASS=org.apache.flink.runtime.checkpoint.CheckpointException
DECLINED='Checkpoint was declined.'
EXPIRED='Checkpoint expired before completing.'

jid() {
	printf 'feed%028x' "$1"
}

tid() {
	printf '%032x' "$1"
}

post() {
	fcgi_raw POST "/jobs/$1/checkpoints" "{\"triggerId\":\"$2\"}" |
	    status_body
}

# One pass of the runner; its log in $T/runner.log.
pass() {
	"$RUNNER" --log-level info 2>>"$T/runner.log"
}

# java_check NAME BLOB: the Java side on the base64 text BLOB; its files in
# $T/java/NAME (ThrowableCheck.java), its stderr in $T/java/NAME.err.
java_check() {
	mkdir -p "$T/java"
	printf '%s' "$2" > "$T/java/$1.b64"
	java -cp "$CLASSES" ThrowableCheck "$T/java/$1.b64" "$T/java/$1" \
	    2> "$T/java/$1.err"
}

# same_file NAME FILE WANT DESCRIPTION: FILE of the Java side holds exactly
# the bytes WANT.
same_file() {
	printf '%s' "$3" > "$T/java/$1.want-$2"
	cmp -s "$T/java/$1/$2" "$T/java/$1.want-$2"
	ok $? "$4"
	if [ ! -e "$T/java/$1/$2" ]; then
		diag "no $2 from the Java side"
	elif ! cmp -s "$T/java/$1/$2" "$T/java/$1.want-$2"; then
		cmp "$T/java/$1/$2" "$T/java/$1.want-$2" 2>&1 | sed 's/^/# /'
	fi
}

# json_string TEXT: TEXT as the JSON string the app writes (no quotes
# around it): backslash, quote, tab and newline escaped; these traces hold
# no other control character.
json_string() {
	printf '%s' "$1" |
	    perl -0777 -pe 's/\\/\\\\/g; s/"/\\"/g; s/\t/\\t/g; s/\n/\\n/g'
}

# failure NAME JOB TID CLASS TRACE MESSAGE [CAUSES]: the GET of a failed
# trigger answers exactly its class, TRACE and a serialized-throwable, the
# one in its row; the Java side reads from it the class, TRACE, the detail
# message "CLASS: MESSAGE" (Flink's SerializedThrowable writes it so, its
# getClassNameAndMessageOrError), "CLASS: CLASS: MESSAGE" as toString()
# and the causes' toString(), CAUSES (one a line; none by default), and
# at every level a serializedException, the original exception's stream
# (every class here is one the service knows).
failure() {
	_got=$(fcgi_raw GET "/jobs/$2/checkpoints/$3" | status_body)
	BLOB=$(printf '%s' "$_got" |
	    sed -n 's/.*,"serialized-throwable":"\([A-Za-z0-9+/]*=*\)"}}}$/\1/p')
	is "$_got" "200 {\"status\":{\"id\":\"COMPLETED\"},\"operation\":{\"failureCause\":{\"class\":\"$4\",\"stack-trace\":\"$(json_string "$5")\",\"serialized-throwable\":\"$BLOB\"}}}" \
	    "$1: GET answers class, stack-trace, then serialized-throwable"
	is "$BLOB" "$(sql "SELECT failure_throwable FROM triggers
	    WHERE job_id = '$2' AND trigger_id = '$3'")" \
	    "$1: the serialized-throwable stored with the failure"
	java_check "$1" "$BLOB"
	ok $? "$1: ObjectInputStream reads a SerializedThrowable, and ObjectOutputStream writes it back the same"
	[ -s "$T/java/$1.err" ] && sed 's/^/# /' "$T/java/$1.err"
	same_file "$1" class "$4" "$1: originalErrorClassName"
	same_file "$1" trace "$5" "$1: fullStringifiedStackTrace"
	same_file "$1" message "$4: $6" "$1: the detail message, \"CLASS: MESSAGE\" as Flink's"
	same_file "$1" tostring "$4: $4: $6" "$1: toString(), as Flink's clients show it"
	same_file "$1" causes "${7:-}" "$1: the chain of causes"
	_n=$(($(printf '%s' "${7:-}" | grep -c .) + 1))
	same_file "$1" originals "$(yes stream | head -n "$_n")
" "$1: a serializedException at each of its $_n levels"
}

javac -d "$CLASSES" \
    "$top_srcdir/tests/java/org/apache/flink/util/SerializedThrowable.java" \
    "$top_srcdir/tests/java/ThrowableCheck.java" 2> "$T/javac.err"
ok $? "javac: the stand-in for SerializedThrowable and its checker"
[ -s "$T/javac.err" ] && sed 's/^/# /' "$T/javac.err"

# --- a failure stored before migration 3 -----------------------------------------

J0=$(jid 1)
rm -f "$DB" # lib.sh's, at today's version
for m in 0001-initial 0002-triggers-check; do
	sql < "$top_srcdir/schema/$m.sql" || bail "schema/$m.sql"
done
OLD_TRACE="$CKPT_CLASS: $DECLINED old
	at checkpoint action (it exited with status 1)
"
sql "PRAGMA application_id = 1667985524; PRAGMA user_version = 2;
    INSERT INTO triggers (job_id, trigger_id, requested_type, status,
    checkpoint_id, failure_class, failure_trace, created_ms, completed_ms)
    VALUES ('$J0', '$(tid 1)', 'FULL', 'COMPLETED', 1, '$CKPT_CLASS',
    '$OLD_TRACE', 1, $(($(date +%s) * 1000)))"
ok $? "a database of version 2 with a failure in it"
start_app
failure "migrated" "$J0" "$(tid 1)" "$CKPT_CLASS" "$OLD_TRACE" "$DECLINED old"
LATEST=$(ls "$top_srcdir"/schema/[0-9]*.sql | wc -l)
is "$(sql "PRAGMA user_version")" "$LATEST" \
    "the app migrated it to the latest version, $LATEST"

# --- the runner's failures --------------------------------------------------------

JU=$(jid 2) # never registered
JF=$(jid 3)
"$CTL" job add "$JF" && "$CTL" job set "$JF" --state FINISHED
ok $? "checkpointctl: a FINISHED job"

# 64 KiB of stderr; the runner keeps its last 2048 bytes, which are these.
TAIL="Ünïcödé: é € 😀 𝄞 ✓
ß	tab, \"quotes\", \\ back
$(printf '%s\n' 'Καλημέρα' '日本語のテキスト' 'last line but one')"
n=$(printf '%s\n' "$TAIL" | wc -c)
TAIL=$TAIL$(printf '\n%*s' $((2047 - n)) '' | tr ' ' x)
printf '%s\n' "$TAIL" > "$T/tail"
is "$(wc -c < "$T/tail" | tr -d ' ')" 2048 "the end of stderr: 2048 bytes"
{
	i=0
	while [ "$i" -lt 3000 ]; do
		printf 'filler ß € 😀 line %04d\n' "$i"
		i=$((i + 1))
	done
} | head -c $((65536 - 2048)) > "$T/stderr"
cat "$T/tail" >> "$T/stderr"
is "$(wc -c < "$T/stderr" | tr -d ' ')" 65536 "stderr: 64 KiB"

JD=$(jid 4)
"$CTL" job add "$JD" --command "cat '$T/stderr' >&2; exit 3"
JE=$(jid 5)
"$CTL" job add "$JE" --command 'exit 5'
JK=$(jid 6)
"$CTL" job add "$JK" --command 'kill -9 $$'
JT=$(jid 7)
"$CTL" job add "$JT" --command 'sleep 30 & wait' --timeout 1
JS=$(jid 8)
"$CTL" job add "$JS" --command 'true'
ok $? "checkpointctl: five jobs with commands"

for j in "$JU" "$JF" "$JD" "$JE" "$JK" "$JT" "$JS"; do
	is "$(post "$j" "$(tid 2)")" "202 {\"request-id\":\"$(tid 2)\"}" \
	    "POST a trigger for job $j"
done
# The runner of JS's claim is gone: its pid runs nothing.
DEAD=999999
while [ -e "/proc/$DEAD" ]; do
	DEAD=$((DEAD - 1))
done
OWNER=$(uname -n):$DEAD:1
sql "UPDATE triggers SET claimed_by = '$OWNER', claimed_ms = 1,
    lease_ms = 9999999999999, checkpoint_id = 1, checkpoint_type = 'FULL'
    WHERE job_id = '$JS';
    INSERT INTO checkpoint_counters (job_id, last_id) VALUES ('$JS', 1)"
pass
ok $? "one pass of the runner"

# The dispatcher's FlinkJobNotFoundException inside the CompletionException
# of its future (Dispatcher.triggerCheckpoint, getJobMasterGateway): the
# message of the outer one is the inner one's toString().
for j in "$JU" "$JF"; do
	failure "job $j not running" "$j" "$(tid 2)" "$JOB_CLASS" \
	    "$JOB_CLASS: $NOT_FOUND: Could not find Flink job ($j)
Caused by: $NOT_FOUND: Could not find Flink job ($j)
" "$NOT_FOUND: Could not find Flink job ($j)" \
	    "$NOT_FOUND: $NOT_FOUND: Could not find Flink job ($j)
"
	same_file "job $j not running" cause1.trace \
	    "$NOT_FOUND: Could not find Flink job ($j)
" "job $j not running: the cause's fullStringifiedStackTrace, its own trace"
done
failure "declined, 64 KiB of stderr" "$JD" "$(tid 2)" "$CKPT_CLASS" \
    "$CKPT_CLASS: $DECLINED $TAIL
	at checkpoint action (it exited with status 3)
" "$DECLINED $TAIL"
DECLINED_BLOB=$BLOB
failure "declined, no stderr" "$JE" "$(tid 2)" "$CKPT_CLASS" \
    "$CKPT_CLASS: $DECLINED The checkpoint action failed.
	at checkpoint action (it exited with status 5)
" "$DECLINED The checkpoint action failed."
failure "killed by a signal" "$JK" "$(tid 2)" "$CKPT_CLASS" \
    "$CKPT_CLASS: $DECLINED The checkpoint action failed.
	at checkpoint action (it was killed by signal 9)
" "$DECLINED The checkpoint action failed."
failure "past its timeout" "$JT" "$(tid 2)" "$CKPT_CLASS" \
    "$CKPT_CLASS: $EXPIRED
	at checkpoint action (killed after its timeout of 1 s)
" "$EXPIRED"
failure "its runner gone" "$JS" "$(tid 2)" "$CKPT_CLASS" \
    "$CKPT_CLASS: $EXPIRED
	at checkpoint-runner (the runner $OWNER that claimed it is gone)
" "$EXPIRED"

# --- what the Java side must refuse -------------------------------------------------

# altered NAME OFFSET OCTAL: DECLINED_BLOB with the byte at OFFSET of its
# stream replaced, base64 again.
altered() {
	printf '%s' "$DECLINED_BLOB" | base64 -d > "$T/$1.bin"
	# shellcheck disable=SC2059 # the format is the byte, in octal
	printf "\\$3" | dd of="$T/$1.bin" bs=1 seek="$2" conv=notrunc \
	    2>/dev/null
	base64 -w 0 < "$T/$1.bin"
}

printf '%s' "$DECLINED_BLOB" | base64 -d > "$T/whole.bin"
SIZE=$(wc -c < "$T/whole.bin" | tr -d ' ')
CUT=$(head -c $((SIZE - 1)) "$T/whole.bin" | base64 -w 0)
! java_check cut "$CUT"
ok $? "cut short by one byte: the Java side fails"
like "$(cat "$T/java/cut.err")" 'java\.io\.EOFException' \
    "cut short: EOFException"
# The stream's first byte, and the first of SerializedThrowable's
# serialVersionUID (after the magic, the version, TC_OBJECT, TC_CLASSDESC
# and the class's name).
! java_check magic "$(altered magic 0 001)"
ok $? "the magic number altered: the Java side fails"
like "$(cat "$T/java/magic.err")" 'StreamCorruptedException: invalid stream header' \
    "the magic number altered: StreamCorruptedException"
! java_check suid "$(altered suid 49 146)"
ok $? "serialVersionUID altered: the Java side fails"
like "$(cat "$T/java/suid.err")" 'InvalidClassException: org\.apache\.flink\.util\.SerializedThrowable; local class incompatible' \
    "serialVersionUID altered: InvalidClassException"
# The last letter of the class name, just before the byte[] of its
# original (TC_ARRAY, TC_CLASSDESC, "[B"): still a valid stream, so the
# strings must tell.
LETTER=$(perl -0777 -ne 'print rindex($_, "Exception\x75\x72\x00\x02[B") + 8' \
    "$T/whole.bin")
java_check letter "$(altered letter "$LETTER" 116)"
ok $? "a letter of a string altered: the Java side reads it"
! cmp -s "$T/java/letter/class" "$T/java/declined, 64 KiB of stderr/class"
ok $? "a letter of a string altered: the class read differs"

done_testing
