/*
 * failureCause's "serialized-throwable".  See throwable.h.
 *
 * Flink's SerializedThrowableDeserializer hands the decoded bytes to an
 * ObjectInputStream, so they must be a stream a JDK accepts: the Java
 * Object Serialization Specification, chapter 6 ("Object Serialization
 * Stream Protocol").  This file writes, from a failure's class and stack
 * trace, the stream a JDK's ObjectOutputStream writes for a
 * SerializedThrowable holding them: the same class descriptors (with
 * Exception's and Throwable's, and the handles that share the type string
 * "Ljava/lang/String;"), the same field order (ObjectStreamClass sorts
 * object fields by name), the same end-of-block after the data of
 * Throwable, which has a writeObject method.
 *
 * The object is what Flink makes of an exception: originalErrorClassName
 * is the class, fullStringifiedStackTrace the trace, detailMessage
 * "<class>: <message>" (throwable_message), or the class alone without a
 * message, as Flink 1.20's and 2.x's constructor writes it (its
 * getClassNameAndMessageOrError), serializedException the serialization
 * of the original exception (below), an empty stack trace (the frames are in
 * the trace text, which SerializedThrowable's printStackTrace prints) and
 * Throwable's own empty suppressed list, Collections.EMPTY_LIST.  Its
 * toString() is then "<class>: <class>: <message>", as Flink's clients
 * show a JobManager's failure.
 * Its cause is a SerializedThrowable made likewise of what follows the
 * trace's first "\nCaused by: ", and so on down the chain, as Flink's
 * constructor makes one for each cause of the original; the last cause's
 * is null (initCause(null)).  Later objects refer back to the class
 * descriptors, the stack trace's array class and the shared empty list.
 *
 * The original is what a JobManager serializes into serializedException
 * (InstantiationUtil.serializeObject, a stream of its own): the exception
 * of the level's class itself, its message alone as detailMessage, its
 * cause the next level's original (null at the last), the same empty
 * stack trace and suppressed list, and the fields of its class (a
 * CheckpointException's CheckpointFailureReason).  Without it Flink's
 * SerializedThrowable.deserializeError returns the SerializedThrowable
 * itself, on which ExceptionUtils.findThrowableSerializedAware loops for
 * ever.  Only classes in jclasses can be written, for the reader checks
 * each one's serialVersionUID: a level of any other class, or above one,
 * keeps serializedException null.
 */
#include <config.h>

#include <stdint.h>
#include <string.h>

#include "throwable.h"

/* The stream's constants (java.io.ObjectStreamConstants). */
#define STREAM_MAGIC 0xaced
#define STREAM_VERSION 5
#define TC_NULL 0x70
#define TC_REFERENCE 0x71
#define TC_CLASSDESC 0x72
#define TC_OBJECT 0x73
#define TC_STRING 0x74
#define TC_ARRAY 0x75
#define TC_ENDBLOCKDATA 0x78
#define TC_LONGSTRING 0x7c
#define TC_ENUM 0x7e
#define SC_WRITE_METHOD 0x01
#define SC_SERIALIZABLE 0x02
#define SC_ENUM 0x10
#define BASE_WIRE_HANDLE 0x7e0000

/*
 * The serialVersionUIDs, as ObjectStreamClass.lookup gives them (JDK 17):
 * declared by SerializedThrowable, Exception, Throwable and
 * Collections$EmptyList; computed for StackTraceElement[] and byte[],
 * which no JDK checks for an array class.  The exceptions' are in
 * jclasses; Flink's are the same in 1.20 and 2.x.
 */
#define SUID_SERIALIZED_THROWABLE \
	0x65169df51fa713f3ULL /* 7284183123441947635 */
#define SUID_EXCEPTION 0xd0fd1f3e1a3b1cc4ULL
#define SUID_THROWABLE 0xd5c635273977b8cbULL
#define SUID_STACK_TRACE_ARRAY 0x02462a3c3cfd2239ULL
#define SUID_EMPTY_LIST 0x7ab817b43ca79edeULL
#define SUID_BYTE_ARRAY 0xacf317f8060854e0ULL

/* SerializedThrowable's descriptor: the stream's first object. */
#define HANDLE_SERIALIZED_THROWABLE BASE_WIRE_HANDLE
/* A type string that ObjectOutputStream writes once and refers back to. */
#define STRING_TYPE "Ljava/lang/String;"

/*
 * The most SerializedThrowables a stream nests; the last takes the rest
 * of the trace, "Caused by:" lines and all.
 */
#define MAX_LEVELS 64

/* U+FFFD, for bytes that are not UTF-8, as the JSON answer shows them. */
#define REPLACEMENT 0xfffd

/*
 * Where the failure's message lies in its trace: what Throwable's
 * printStackTrace printed as toString() ("<class>: <message>") before the
 * first frame ("\n\tat "), the first cause ("\nCaused by: ") or the
 * trace's final newline.  Returns 1 and sets *off and *len, or 0 if there
 * is no message: the trace names the class alone, or is empty.  A trace
 * that does not begin with the class is all message up to that point.
 */
int
throwable_message(const char *class, size_t classlen, const char *trace,
    size_t tracelen, size_t *off, size_t *len)
{
	static const char *const ends[] = { "\n\tat ", "\nCaused by: " };
	size_t end = tracelen, i, j, n;

	for (i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
		n = strlen(ends[i]);
		for (j = 0; j + n <= end; j++)
			if (memcmp(trace + j, ends[i], n) == 0) {
				end = j;
				break;
			}
	}
	if (end == tracelen && end > 0 && trace[end - 1] == '\n')
		end--;
	*off = 0;
	if (end >= classlen && memcmp(trace, class, classlen) == 0) {
		if (end == classlen)
			return 0;
		if (end >= classlen + 2 && trace[classlen] == ':' &&
		    trace[classlen + 1] == ' ')
			*off = classlen + 2;
	}
	*len = end - *off;
	return end > 0;
}

static int
put_u8(struct buf *b, unsigned v)
{
	unsigned char c = (unsigned char)v;

	return buf_add(b, &c, 1);
}

/* Big-endian, as DataOutput writes every number. */
static int
put_be(struct buf *b, uint64_t v, int bytes)
{
	unsigned char c[8];
	int i;

	for (i = 0; i < bytes; i++)
		c[i] = (unsigned char)(v >> (8 * (bytes - 1 - i)));
	return buf_add(b, c, (size_t)bytes);
}

/* One UTF-16 code unit in modified UTF-8 (DataOutput.writeUTF). */
static size_t
mutf8_unit(struct buf *b, uint32_t u, int *err)
{
	unsigned char c[3];
	size_t n;

	if (u >= 0x01 && u <= 0x7f) {
		c[0] = (unsigned char)u;
		n = 1;
	} else if (u <= 0x7ff) {
		/* NUL too: C0 80, so that the bytes hold no zero. */
		c[0] = (unsigned char)(0xc0 | (u >> 6));
		c[1] = (unsigned char)(0x80 | (u & 0x3f));
		n = 2;
	} else {
		c[0] = (unsigned char)(0xe0 | (u >> 12));
		c[1] = (unsigned char)(0x80 | ((u >> 6) & 0x3f));
		c[2] = (unsigned char)(0x80 | (u & 0x3f));
		n = 3;
	}
	if (b != NULL && buf_add(b, c, n) == -1)
		*err = 1;
	return n;
}

/*
 * The UTF-8 text s as Java's modified UTF-8: its length in bytes, and the
 * bytes appended to b unless b is NULL.  A character above U+FFFF is a
 * surrogate pair in Java, and each half is written as three bytes.
 */
static uint64_t
mutf8(struct buf *b, const char *str, size_t n, int *err)
{
	const unsigned char *s = (const unsigned char *)str;
	uint64_t total = 0;
	uint32_t cp;
	size_t i, len;

	for (i = 0; i < n; i += len) {
		if ((len = buf_utf8_next(s + i, n - i, &cp)) == 0) {
			cp = REPLACEMENT;
			len = 1;
		}
		if (cp >= 0x10000) {
			cp -= 0x10000;
			total += mutf8_unit(b, 0xd800 + (cp >> 10), err);
			total += mutf8_unit(b, 0xdc00 + (cp & 0x3ff), err);
		} else
			total += mutf8_unit(b, cp, err);
	}
	return total;
}

/* A name in a class descriptor (writeUTF: a 2-byte length); ASCII. */
static int
put_utf(struct buf *b, const char *s)
{
	size_t n = strlen(s);

	return put_be(b, n, 2) == -1 || buf_add(b, s, n) == -1 ? -1 : 0;
}

/*
 * The exception classes an original may be of, each with its superclass
 * (Throwable's is none) and the field of its own, if any.  Their
 * serialVersionUIDs are the JDK's serialver tool's, for Flink's classes
 * from Flink 1.20.5's and 2.3.0's jars alike.
 */
enum jclass {
	JC_THROWABLE,
	JC_EXCEPTION,
	JC_RUNTIME,
	JC_COMPLETION,
	JC_ILLEGAL_STATE,
	JC_IO,
	JC_FILE_NOT_FOUND,
	JC_FLINK,
	JC_JOB_NOT_FOUND,
	JC_REST_CLIENT,
	JC_CHECKPOINT,
	JC_N
};

enum jfield { JF_NONE, JF_REASON, JF_RESPONSE_CODE };

static const struct {
	const char *name;
	uint64_t suid;
	enum jclass super;
	enum jfield field;
} jclasses[JC_N] = {
	[JC_THROWABLE] = { "java.lang.Throwable", SUID_THROWABLE, JC_N,
	    JF_NONE },
	[JC_EXCEPTION] = { "java.lang.Exception", SUID_EXCEPTION, JC_THROWABLE,
	    JF_NONE },
	[JC_RUNTIME] = { "java.lang.RuntimeException", 0x9e5f06470a3483e5ULL,
	    JC_EXCEPTION, JF_NONE },
	[JC_COMPLETION] = { "java.util.concurrent.CompletionException",
	    0x6caab173bfb4e069ULL, JC_RUNTIME, JF_NONE },
	[JC_ILLEGAL_STATE] = { "java.lang.IllegalStateException",
	    0xe65755e69a46f248ULL, JC_RUNTIME, JF_NONE },
	[JC_IO] = { "java.io.IOException", 0x6c8073646525f0abULL, JC_EXCEPTION,
	    JF_NONE },
	[JC_FILE_NOT_FOUND] = { "java.io.FileNotFoundException",
	    0xf38a2bd6e0216ae4ULL, JC_IO, JF_NONE },
	[JC_FLINK] = { "org.apache.flink.util.FlinkException",
	    0x06412b0cfb4599b4ULL, JC_EXCEPTION, JF_NONE },
	[JC_JOB_NOT_FOUND] = { "org.apache.flink.runtime.messages.FlinkJobNotFoundException",
	    0x1fd867b9269c5911ULL, JC_FLINK, JF_NONE },
	[JC_REST_CLIENT] = { "org.apache.flink.runtime.rest.util.RestClientException",
	    0x0d04246123495ee7ULL, JC_FLINK, JF_RESPONSE_CODE },
	[JC_CHECKPOINT] = { "org.apache.flink.runtime.checkpoint.CheckpointException",
	    0x2d350ebf02e465a4ULL, JC_EXCEPTION, JF_REASON },
};

/*
 * CheckpointFailureReason's constants (the same in 1.20 and 2.x), each
 * with its message(), which begins a CheckpointException's message as
 * Flink's constructors make it: a failure's reason is the one whose
 * message begins its own, the longest.  One that begins with none, the
 * service's own words, is TRIGGER_CHECKPOINT_FAILURE, Flink's catch-all
 * for a trigger that failed.
 */
static const struct {
	const char *name, *message;
} reasons[] = {
	{ "PERIODIC_SCHEDULER_SHUTDOWN",
	    "Periodic checkpoint scheduler is shut down." },
	{ "TOO_MANY_CHECKPOINT_REQUESTS",
	    "The maximum number of queued checkpoint requests exceeded" },
	{ "MINIMUM_TIME_BETWEEN_CHECKPOINTS",
	    "The minimum time between checkpoints is still pending." },
	{ "NOT_ALL_REQUIRED_TASKS_RUNNING",
	    "Not all required tasks are currently running." },
	{ "IO_EXCEPTION",
	    "An Exception occurred while triggering the checkpoint." },
	{ "BLOCKING_OUTPUT_EXIST",
	    "Blocking output edge exists in running tasks." },
	{ "CHECKPOINT_ASYNC_EXCEPTION",
	    "Asynchronous task checkpoint failed." },
	{ "CHANNEL_STATE_SHARED_STREAM_EXCEPTION",
	    "The checkpoint was aborted due to exception of other subtasks" },
	{ "CHECKPOINT_EXPIRED", "Checkpoint expired before completing." },
	{ "CHECKPOINT_SUBSUMED", "Checkpoint has been subsumed." },
	{ "CHECKPOINT_DECLINED", "Checkpoint was declined." },
	{ "CHECKPOINT_DECLINED_TASK_NOT_READY",
	    "Checkpoint was declined (tasks not ready)" },
	{ "CHECKPOINT_DECLINED_TASK_CLOSING",
	    "Checkpoint was declined (task is closing)" },
	{ "CHECKPOINT_DECLINED_SUBSUMED",
	    "Checkpoint was canceled because a barrier from newer checkpoint" },
	{ "CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER",
	    "Task received cancellation from one of its inputs" },
	{ "CHECKPOINT_DECLINED_INPUT_END_OF_STREAM",
	    "Checkpoint was declined because one input stream is finished" },
	{ "CHECKPOINT_COORDINATOR_SHUTDOWN",
	    "CheckpointCoordinator shutdown." },
	{ "CHECKPOINT_COORDINATOR_SUSPEND",
	    "Checkpoint Coordinator is suspending." },
	{ "JOB_FAILOVER_REGION", "FailoverRegion is restarting." },
	{ "TASK_FAILURE", "Task has failed." },
	{ "TASK_CHECKPOINT_FAILURE", "Task local checkpoint failure." },
	{ "UNKNOWN_TASK_CHECKPOINT_NOTIFICATION_FAILURE",
	    "Unknown task for the checkpoint to notify." },
	{ "FINALIZE_CHECKPOINT_FAILURE", "Failure to finalize checkpoint." },
	{ "TRIGGER_CHECKPOINT_FAILURE", "Trigger checkpoint failure." },
};

#define NFIELDS(a) (sizeof(a) / sizeof((a)[0]))
#define REASON_FALLBACK (NFIELDS(reasons) - 1)

/*
 * A stream being written, and the handles it assigns in order (to each
 * class descriptor, string, object and array) for those it refers back
 * to.  0: not written yet.
 */
struct stream {
	struct buf *b;
	uint32_t next; /* the next object's handle */
	uint32_t string_type; /* STRING_TYPE */
	uint32_t stack_trace_desc; /* StackTraceElement[]'s descriptor */
	uint32_t empty_list; /* Collections.EMPTY_LIST */
	uint32_t byte_array_desc; /* byte[]'s descriptor */
	uint32_t desc[JC_N]; /* each exception class's descriptor */
	uint32_t reason_desc; /* CheckpointFailureReason's descriptor */
	uint32_t reason[NFIELDS(reasons)]; /* each constant, one object */
};

/* A piece of a string's text. */
struct part {
	const char *s;
	size_t n;
};

/*
 * A new String object of the pieces one after the other: TC_STRING with
 * a 2-byte length, or TC_LONGSTRING with an 8-byte one past 65535 bytes,
 * as ObjectOutputStream.writeString chooses.
 */
static int
put_parts(struct stream *st, const struct part *p, size_t np)
{
	struct buf *b = st->b;
	int err = 0;
	uint64_t len = 0;
	size_t i;

	for (i = 0; i < np; i++)
		len += mutf8(NULL, p[i].s, p[i].n, &err);
	st->next++;
	if (len <= 0xffff) {
		if (put_u8(b, TC_STRING) == -1 || put_be(b, len, 2) == -1)
			return -1;
	} else if (put_u8(b, TC_LONGSTRING) == -1 || put_be(b, len, 8) == -1)
		return -1;
	for (i = 0; i < np; i++)
		mutf8(b, p[i].s, p[i].n, &err);
	return err ? -1 : 0;
}

static int
put_string(struct stream *st, const char *s, size_t n)
{
	struct part p = { s, n };

	return put_parts(st, &p, 1);
}

/* A field of a class descriptor: its type code, name and type string. */
struct field {
	char code; /* 'I' int, 'L' object, '[' array */
	const char *name;
	const char *type; /* NULL: a primitive's, which has none */
};

static int put_reference(struct stream *, uint32_t handle);

/*
 * An object field's type string: STRING_TYPE, which every class of ours
 * but one has, a reference after its first time (writeTypeString finds
 * it among the handles); any other, new.
 */
static int
put_type(struct stream *st, const char *type)
{
	int string = type != NULL && strcmp(type, STRING_TYPE) == 0;

	if (type == NULL)
		return 0;
	if (string && st->string_type != 0)
		return put_reference(st, st->string_type);
	if (string)
		st->string_type = st->next;
	st->next++;
	return put_u8(st->b, TC_STRING) == -1 || put_utf(st->b, type) == -1 ?
	    -1 :
	    0;
}

/*
 * A class descriptor up to its superclass's (TC_CLASSDESC, name, suid,
 * flags, fields, an empty annotation): writeNonProxyDesc.
 */
static int
put_classdesc(struct stream *st, const char *name, uint64_t suid,
    unsigned flags, const struct field *f, size_t nf)
{
	struct buf *b = st->b;
	size_t i;

	st->next++;
	if (put_u8(b, TC_CLASSDESC) == -1 || put_utf(b, name) == -1 ||
	    put_be(b, suid, 8) == -1 || put_u8(b, flags) == -1 ||
	    put_be(b, nf, 2) == -1)
		return -1;
	for (i = 0; i < nf; i++) {
		if (put_u8(b, (unsigned char)f[i].code) == -1 ||
		    put_utf(b, f[i].name) == -1)
			return -1;
		if (put_type(st, f[i].type) == -1)
			return -1;
	}
	return put_u8(b, TC_ENDBLOCKDATA);
}

static int
put_reference(struct stream *st, uint32_t handle)
{
	return put_u8(st->b, TC_REFERENCE) == -1 ||
		put_be(st->b, handle, 4) == -1 ?
	    -1 :
	    0;
}

/* Fields in ObjectStreamClass's order: by name, objects after primitives. */
static const struct field serialized_throwable_fields[] = {
	{ 'L', "fullStringifiedStackTrace", STRING_TYPE },
	{ 'L', "originalErrorClassName", STRING_TYPE },
	{ '[', "serializedException", "[B" },
};
static const struct field throwable_fields[] = {
	{ 'L', "cause", "Ljava/lang/Throwable;" },
	{ 'L', "detailMessage", STRING_TYPE },
	{ '[', "stackTrace", "[Ljava/lang/StackTraceElement;" },
	{ 'L', "suppressedExceptions", "Ljava/util/List;" },
};

/* One SerializedThrowable of the chain: its class and its trace. */
struct level {
	const char *class, *trace;
	size_t classlen, tracelen;
};

/*
 * The chain the trace prints: the failure itself, then a cause for each
 * "\nCaused by: " line, whose class is what the line holds before ": "
 * and whose trace the rest of the text, as the cause's printStackTrace
 * begins.  Returns the number of levels, at most max.
 */
static size_t
chain_levels(const char *class, size_t classlen, const char *trace,
    size_t tracelen, struct level *lv, size_t max)
{
	static const char mark[] = "\nCaused by: ";
	const size_t marklen = sizeof(mark) - 1;
	const char *t;
	size_t n = 1, i, rest, c;

	lv[0] = (struct level){ class, trace, classlen, tracelen };
	for (i = 0; n < max && i + marklen <= tracelen; i++) {
		if (memcmp(trace + i, mark, marklen) != 0)
			continue;
		t = trace + i + marklen;
		rest = tracelen - i - marklen;
		for (c = 0; c < rest && t[c] != '\n' &&
		     !(t[c] == ':' && c + 1 < rest && t[c + 1] == ' ');
		     c++)
			;
		lv[n++] = (struct level){ t, t, c, rest };
	}
	return n;
}

/*
 * A SerializedThrowable up to its data: the descriptors of its classes
 * the first time, a reference to them after; then the first of its data,
 * the cause, follows.
 */
static int
put_head(struct stream *st, int first)
{
	struct buf *b = st->b;

	if (put_u8(b, TC_OBJECT) == -1)
		return -1;
	if (!first) {
		st->next++;
		return put_reference(st, HANDLE_SERIALIZED_THROWABLE);
	}
	if (put_classdesc(st, "org.apache.flink.util.SerializedThrowable",
		SUID_SERIALIZED_THROWABLE, SC_SERIALIZABLE,
		serialized_throwable_fields,
		NFIELDS(serialized_throwable_fields)) == -1 ||
	    put_classdesc(st, "java.lang.Exception", SUID_EXCEPTION,
		SC_SERIALIZABLE, NULL, 0) == -1 ||
	    put_classdesc(st, "java.lang.Throwable", SUID_THROWABLE,
		SC_SERIALIZABLE | SC_WRITE_METHOD, throwable_fields,
		NFIELDS(throwable_fields)) == -1 ||
	    put_u8(b, TC_NULL) == -1)
		return -1;
	st->next++;
	return 0;
}

/*
 * An array's head: TC_ARRAY, then its class's descriptor the first time,
 * a reference to it (*desc) after; the array's own handle follows.
 */
static int
put_array_head(struct stream *st, uint32_t *desc, const char *name,
    uint64_t suid)
{
	struct buf *b = st->b;

	if (put_u8(b, TC_ARRAY) == -1)
		return -1;
	if (*desc != 0) {
		if (put_reference(st, *desc) == -1)
			return -1;
	} else {
		*desc = st->next;
		if (put_classdesc(st, name, suid, SC_SERIALIZABLE, NULL, 0) ==
			-1 ||
		    put_u8(b, TC_NULL) == -1)
			return -1;
	}
	st->next++;
	return 0;
}

/*
 * The empty stack trace, an array of its own for each object (its
 * setStackTrace copies), and the suppressed list, the one
 * Collections.EMPTY_LIST every Throwable shares.
 */
static int
put_empties(struct stream *st)
{
	struct buf *b = st->b;

	if (put_array_head(st, &st->stack_trace_desc,
		"[Ljava.lang.StackTraceElement;",
		SUID_STACK_TRACE_ARRAY) == -1 ||
	    put_be(b, 0, 4) == -1)
		return -1;
	if (st->empty_list != 0)
		return put_reference(st, st->empty_list);
	if (put_u8(b, TC_OBJECT) == -1 ||
	    put_classdesc(st, "java.util.Collections$EmptyList",
		SUID_EMPTY_LIST, SC_SERIALIZABLE, NULL, 0) == -1 ||
	    put_u8(b, TC_NULL) == -1)
		return -1;
	st->empty_list = st->next++;
	return 0;
}

/* The class in jclasses of that name, or JC_N. */
static enum jclass
jclass_find(const char *name, size_t n)
{
	int c;

	for (c = 0; c < JC_N; c++)
		if (strlen(jclasses[c].name) == n &&
		    memcmp(jclasses[c].name, name, n) == 0)
			return (enum jclass)c;
	return JC_N;
}

/*
 * A class's descriptor, then its superclass's, down to Throwable's, or a
 * reference to one written before: writeClassDesc.
 */
static int
put_jclass(struct stream *st, enum jclass c)
{
	static const struct field reason = {
		'L', "checkpointFailureReason",
		"Lorg/apache/flink/runtime/checkpoint/CheckpointFailureReason;"
	};
	static const struct field code = { 'I', "responseCode", NULL };
	enum jfield f = jclasses[c].field;

	if (st->desc[c] != 0)
		return put_reference(st, st->desc[c]);
	st->desc[c] = st->next;
	if (c == JC_THROWABLE)
		return put_classdesc(st, jclasses[c].name, jclasses[c].suid,
			   SC_SERIALIZABLE | SC_WRITE_METHOD, throwable_fields,
			   NFIELDS(throwable_fields)) == -1 ||
			put_u8(st->b, TC_NULL) == -1 ?
		    -1 :
		    0;
	if (put_classdesc(st, jclasses[c].name, jclasses[c].suid,
		SC_SERIALIZABLE, f == JF_REASON ? &reason : &code,
		f == JF_NONE ? 0 : 1) == -1)
		return -1;
	return put_jclass(st, jclasses[c].super);
}

/* The reason whose message begins msg, the longest: an index of reasons. */
static size_t
reason_of(const char *msg, size_t len)
{
	size_t i, n, best = REASON_FALLBACK, bestlen = 0;

	for (i = 0; i < NFIELDS(reasons); i++) {
		n = strlen(reasons[i].message);
		if (n <= len && n > bestlen &&
		    memcmp(msg, reasons[i].message, n) == 0) {
			best = i;
			bestlen = n;
		}
	}
	return best;
}

/*
 * A CheckpointFailureReason: TC_ENUM, its class's descriptor (and
 * Enum's), then the constant's name; a constant is one object, so a
 * reference the second time: writeEnum.
 */
static int
put_reason(struct stream *st, size_t r)
{
	struct buf *b = st->b;

	if (st->reason[r] != 0)
		return put_reference(st, st->reason[r]);
	if (put_u8(b, TC_ENUM) == -1)
		return -1;
	if (st->reason_desc != 0) {
		if (put_reference(st, st->reason_desc) == -1)
			return -1;
	} else {
		st->reason_desc = st->next;
		if (put_classdesc(st,
			"org.apache.flink.runtime.checkpoint."
			"CheckpointFailureReason",
			0, SC_SERIALIZABLE | SC_ENUM, NULL, 0) == -1 ||
		    put_classdesc(st, "java.lang.Enum", 0,
			SC_SERIALIZABLE | SC_ENUM, NULL, 0) == -1 ||
		    put_u8(b, TC_NULL) == -1)
			return -1;
	}
	st->reason[r] = st->next++;
	return put_string(st, reasons[r].name, strlen(reasons[r].name));
}

/*
 * A RestClientException's responseCode: the HTTP status its trace says
 * the JobManager answered (jobmanager.c writes "answered HTTP <n>"), 0
 * where it answered none.
 */
static uint32_t
response_code(const struct level *lv)
{
	static const char mark[] = "answered HTTP ";
	const size_t n = sizeof(mark) - 1;
	uint32_t code = 0;
	size_t i;

	for (i = 0; i + n <= lv->tracelen; i++)
		if (memcmp(lv->trace + i, mark, n) == 0)
			break;
	for (i += n; i < lv->tracelen && code < 1000 && lv->trace[i] >= '0' &&
	     lv->trace[i] <= '9';
	     i++)
		code = code * 10 + (uint32_t)(lv->trace[i] - '0');
	return code;
}

/* The field of class c's own, after its superclasses' data. */
static int
put_own_field(struct stream *st, enum jclass c, const struct level *lv,
    const struct part *msg)
{
	switch (jclasses[c].field) {
	case JF_REASON:
		return put_reason(st,
		    msg != NULL ? reason_of(msg->s, msg->n) : REASON_FALLBACK);
	case JF_RESPONSE_CODE:
		return put_be(st->b, response_code(lv), 4);
	default:
		return 0;
	}
}

/*
 * The original exception of the level lv and its n - 1 causes after it:
 * the object, then Throwable's data (its cause, whole, first), then its
 * class's own field.
 */
static int
put_original(struct stream *st, const struct level *lv, size_t n)
{
	enum jclass c = jclass_find(lv->class, lv->classlen);
	struct part msg;
	size_t off, len;
	int has;

	has = throwable_message(lv->class, lv->classlen, lv->trace,
	    lv->tracelen, &off, &len);
	msg = (struct part){ lv->trace + off, len };
	if (put_u8(st->b, TC_OBJECT) == -1 || put_jclass(st, c) == -1)
		return -1;
	st->next++;
	if ((n > 1 ? put_original(st, lv + 1, n - 1) :
		     put_u8(st->b, TC_NULL)) == -1)
		return -1;
	if ((has ? put_parts(st, &msg, 1) : put_u8(st->b, TC_NULL)) == -1 ||
	    put_empties(st) == -1 || put_u8(st->b, TC_ENDBLOCKDATA) == -1)
		return -1;
	return put_own_field(st, c, lv, has ? &msg : NULL);
}

/*
 * SerializedThrowable's serializedException: the stream of the original
 * of lv and its n - 1 causes as a byte[], or null where a class of them
 * is none that jclasses holds.
 */
static int
put_serialized(struct stream *st, const struct level *lv, size_t n)
{
	struct buf raw = { 0 };
	struct stream o = { .b = &raw, .next = BASE_WIRE_HANDLE };
	size_t i;
	int rc;

	for (i = 0; i < n; i++)
		if (jclass_find(lv[i].class, lv[i].classlen) == JC_N)
			return put_u8(st->b, TC_NULL);
	rc = put_be(&raw, STREAM_MAGIC, 2) == -1 ||
		put_be(&raw, STREAM_VERSION, 2) == -1 ||
		put_original(&o, lv, n) == -1 ||
		put_array_head(st, &st->byte_array_desc, "[B",
		    SUID_BYTE_ARRAY) == -1 ||
		put_be(st->b, raw.len, 4) == -1 ||
		buf_add(st->b, raw.p, raw.len) == -1 ?
	    -1 :
	    0;
	buf_free(&raw);
	return rc;
}

/*
 * A SerializedThrowable's data after its cause: Throwable's, by its
 * writeObject (defaultWriteObject, then the end of its block); Exception
 * has none; then SerializedThrowable's fields.  lv is followed by its
 * n - 1 causes.
 */
static int
put_tail(struct stream *st, const struct level *lv, size_t n)
{
	struct part detail[3] = { { lv->class, lv->classlen }, { ": ", 2 } };
	size_t off, len;
	int msg;

	msg = throwable_message(lv->class, lv->classlen, lv->trace,
	    lv->tracelen, &off, &len);
	detail[2] = (struct part){ lv->trace + off, len };
	if (put_parts(st, detail, msg ? 3 : 1) == -1 || put_empties(st) == -1 ||
	    put_u8(st->b, TC_ENDBLOCKDATA) == -1)
		return -1;
	if (put_string(st, lv->trace, lv->tracelen) == -1 ||
	    put_string(st, lv->class, lv->classlen) == -1 ||
	    put_serialized(st, lv, n) == -1)
		return -1;
	return 0;
}

/*
 * The chain nests: each object's first datum is its cause, written whole
 * before the rest of its data, and the last cause's cause is null.
 */
static int
put_stream(struct buf *b, const char *class, size_t classlen, const char *trace,
    size_t tracelen)
{
	struct level lv[MAX_LEVELS];
	struct stream st = { .b = b, .next = BASE_WIRE_HANDLE };
	size_t n, i;

	n = chain_levels(class, classlen, trace, tracelen, lv, MAX_LEVELS);
	if (put_be(b, STREAM_MAGIC, 2) == -1 ||
	    put_be(b, STREAM_VERSION, 2) == -1)
		return -1;
	for (i = 0; i < n; i++)
		if (put_head(&st, i == 0) == -1)
			return -1;
	if (put_u8(b, TC_NULL) == -1)
		return -1;
	for (i = n; i-- > 0;)
		if (put_tail(&st, &lv[i], n - i) == -1)
			return -1;
	return 0;
}

/*
 * Appends the serialization stream of the failure's SerializedThrowable
 * to b.  class and trace are UTF-8 text; a byte that is not is U+FFFD.
 * Returns 0, or -1 out of memory (b then holds what it held before).
 */
int
throwable_serialize(struct buf *b, const char *class, size_t classlen,
    const char *trace, size_t tracelen)
{
	size_t was = b->len;

	if (put_stream(b, class, classlen, trace, tracelen) == -1) {
		b->len = was;
		if (b->p != NULL)
			b->p[was] = '\0';
		return -1;
	}
	return 0;
}

/*
 * Appends the same as base64 (RFC 4648, with padding and no line breaks:
 * what Jackson's default variant writes and reads).  Returns 0 or -1.
 */
int
throwable_base64(struct buf *b, const char *class, size_t classlen,
    const char *trace, size_t tracelen)
{
	static const char alphabet[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	struct buf raw = { 0 };
	const unsigned char *s;
	size_t i, n, was = b->len;
	uint32_t v;
	char q[4];
	int rc = 0;

	if (throwable_serialize(&raw, class, classlen, trace, tracelen) == -1 ||
	    buf_reserve(b, (raw.len + 2) / 3 * 4) == -1) {
		buf_free(&raw);
		return -1;
	}
	s = (const unsigned char *)raw.p;
	for (i = 0; i < raw.len && rc == 0; i += 3) {
		n = raw.len - i < 3 ? raw.len - i : 3;
		v = (uint32_t)s[i] << 16;
		if (n > 1)
			v |= (uint32_t)s[i + 1] << 8;
		if (n > 2)
			v |= s[i + 2];
		q[0] = alphabet[v >> 18];
		q[1] = alphabet[(v >> 12) & 0x3f];
		q[2] = n > 1 ? alphabet[(v >> 6) & 0x3f] : '=';
		q[3] = n > 2 ? alphabet[v & 0x3f] : '=';
		rc = buf_add(b, q, 4);
	}
	buf_free(&raw);
	if (rc == -1) {
		b->len = was;
		if (b->p != NULL)
			b->p[was] = '\0';
	}
	return rc;
}

/*
 * Appends the trace of the CompletionException a JobManager's scheduler
 * throws around its checkpoint coordinator's failure of a savepoint or a
 * stop (SchedulerBase.triggerSavepoint and stopWithSavepoint, whose
 * handleAsync throws new CompletionException(throwable)): its message the
 * cause's toString(), "<class>: <message>" or the class alone, then
 * "Caused by: " and the cause's own trace.  Returns 0 or -1.
 */
int
throwable_completion(struct buf *out, const char *class, const char *trace)
{
	size_t off, len, n = strlen(trace);

	if (buf_printf(out, THROWABLE_COMPLETION_CLASS ": %s", class) == -1 ||
	    (throwable_message(class, strlen(class), trace, n, &off, &len) &&
		buf_printf(out, ": %.*s", (int)len, trace + off) == -1))
		return -1;
	if (n == 0)
		return buf_printf(out, "\nCaused by: %s\n", class);
	return buf_printf(out, "\nCaused by: %s%s", trace,
	    trace[n - 1] == '\n' ? "" : "\n");
}

/*
 * Appends "<THROWABLE_DISPOSE_CLASS>: Could not dispose savepoint <path>."
 * and the line that begins its cause, "Caused by: ".  The Dispatcher
 * wraps it in a CompletionException, which the operation's result drops:
 * clients get the FlinkException.  Returns 0 or -1 out of memory.
 */
int
throwable_dispose_head(struct buf *trace, const char *path)
{
	return buf_printf(trace,
	    THROWABLE_DISPOSE_CLASS ": Could not dispose savepoint %s.\n"
				    "Caused by: ",
	    path);
}

/* The whole trace, its cause a line of its own.  Returns 0 or -1. */
int
throwable_dispose_trace(struct buf *trace, const char *path,
    const char *cause_class, const char *cause_message)
{
	if (throwable_dispose_head(trace, path) == -1)
		return -1;
	return cause_message != NULL ?
	    buf_printf(trace, "%s: %s\n", cause_class, cause_message) :
	    buf_printf(trace, "%s\n", cause_class);
}

/*
 * A path where no savepoint is: AbstractFsCheckpointStorageAccess.
 * resolveCheckpointPointer's FileNotFoundException, which names the
 * pointer as given and its file system's scheme (Flink's Path: the text
 * before a colon that comes before any slash; the local one, "file",
 * without).  Returns 0 or -1.
 */
int
throwable_dispose_missing(struct buf *trace, const char *path)
{
	size_t n = strcspn(path, ":/");
	int scheme = path[n] == ':' && n > 0;

	if (throwable_dispose_head(trace, path) == -1)
		return -1;
	return buf_printf(trace,
	    "java.io.FileNotFoundException: Cannot find checkpoint or "
	    "savepoint file/directory '%s' on file system '%.*s'.\n",
	    path, scheme ? (int)n : 4, scheme ? path : "file");
}
