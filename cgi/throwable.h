/*
 * A failure as Flink's Java clients read it: failureCause's
 * "serialized-throwable" (checkpoint-api(7)), the base64 of a Java
 * serialization stream of an org.apache.flink.util.SerializedThrowable.
 * The Flink CLI and the Kubernetes operator decode failureCause from that
 * field alone; its "class" and "stack-trace" they ignore.
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

#endif /* THROWABLE_H */
