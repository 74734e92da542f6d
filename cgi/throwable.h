/*
 * A failure as Flink's Java clients read it: failureCause's
 * "serialized-throwable" (checkpoint-api(7)), the base64 of a Java
 * serialization stream of an org.apache.flink.util.SerializedThrowable.
 * The Flink CLI and the Kubernetes operator decode failureCause from that
 * field alone; its "class" and "stack-trace" they ignore.  Each
 * "Caused by:" line of the trace is a cause in the object, as Flink nests
 * them.  Each level carries, as serializedException, the Java
 * serialization of the original exception from there down, when Flink's
 * or the JDK's classes of that chain are ones throwable.c knows, so that
 * SerializedThrowable.deserializeError gives back the real classes.
 *
 * Also the traces of failures the service makes as Flink's code does.
 */
#ifndef THROWABLE_H
#define THROWABLE_H

#include <stddef.h>

#include "buf.h"

int throwable_message(const char *class, size_t classlen, const char *trace,
    size_t tracelen, size_t *off, size_t *len);
int throwable_serialize(struct buf *, const char *class, size_t classlen,
    const char *trace, size_t tracelen);
int throwable_base64(struct buf *, const char *class, size_t classlen,
    const char *trace, size_t tracelen);

/*
 * A savepoint's or a stop's failure as a JobManager's scheduler gives it:
 * the coordinator's (class, trace) inside THROWABLE_COMPLETION_CLASS.
 */
#define THROWABLE_COMPLETION_CLASS "java.util.concurrent.CompletionException"

int throwable_completion(struct buf *out, const char *class, const char *trace);

/*
 * A disposal's failure as Flink's Dispatcher.disposeSavepoint gives it:
 * class THROWABLE_DISPOSE_CLASS, the trace "Could not dispose savepoint
 * <path>." caused by cause_class with cause_message (NULL: none).
 * throwable_dispose_head writes the trace up to the cause's class.
 */
#define THROWABLE_DISPOSE_CLASS "org.apache.flink.util.FlinkException"

int throwable_dispose_head(struct buf *trace, const char *path);
int throwable_dispose_trace(struct buf *trace, const char *path,
    const char *cause_class, const char *cause_message);
int throwable_dispose_missing(struct buf *trace, const char *path);

#endif /* THROWABLE_H */
