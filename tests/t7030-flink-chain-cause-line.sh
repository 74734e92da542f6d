#!/bin/sh
# The page's failure cell (cgi/ui/format.js, causeLine) reads a failure
# shaped as a JobManager's chain: a savepoint's or a stop's failure is a
# CompletionException whose cause, on a "Caused by: " line, is the
# CheckpointException with the command's words (checkpoint-api(7),
# FAILURE CAUSES), and the cell leads with those words and how the
# command ended, as it does for a checkpoint's one-level failure.  The
# function runs in node, the page's own file.

. "$(dirname "$0")/lib.sh"

command -v node >/dev/null 2>&1 || bail "node is missing"
cp "$top_srcdir/cgi/ui/format.js" "$T/format.mjs"
CE=java.util.concurrent.CompletionException
CKPT=org.apache.flink.runtime.checkpoint.CheckpointException

# cause TRACE: what the cell says of TRACE.
cause() {
	node --input-type=module -e "
import { causeLine } from '$T/format.mjs';
process.stdout.write(causeLine(process.argv[1]));" "$1"
}

is "$(cause "$CKPT: Checkpoint was declined. no space left
	at checkpoint action (it exited with status 3)
")" "no space left (exited with status 3)" \
    "a checkpoint's failure, one level: the command's words and exit status"
is "$(cause "$CE: $CKPT: Checkpoint was declined. no space left
Caused by: $CKPT: Checkpoint was declined. no space left
	at savepoint action (it exited with status 3)
")" "no space left (exited with status 3)" \
    "a savepoint's, inside the scheduler's CompletionException: the same"
is "$(cause "$CE: $CKPT: Checkpoint expired before completing.
Caused by: $CKPT: Checkpoint expired before completing.
	at savepoint action (killed after its timeout of 5 s)
")" "killed after its timeout of 5 s" \
    "a savepoint past its timeout: how it ended"
is "$(cause "$CE: $CKPT: An Exception occurred while triggering the checkpoint. IO-problem detected.
	at java.base/java.util.concurrent.CompletableFuture.encodeThrowable(CompletableFuture.java:315)
Caused by: $CKPT: An Exception occurred while triggering the checkpoint. IO-problem detected.
	... 3 more
Caused by: java.io.IOException: Failed to create savepoint directory at file:/x/sp
")" "Failed to create savepoint directory at file:/x/sp" \
    "a bound JobManager's chain: its deepest cause, without its class"

done_testing
