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
 * The object is what Flink makes of an exception that has no cause:
 * originalErrorClassName is the class, fullStringifiedStackTrace the
 * trace, detailMessage the message (throwable_message), cause null (its
 * constructor calls initCause(null)), serializedException null (no
 * original exception is on hand; deserializeError then returns the
 * SerializedThrowable itself), an empty stack trace (the frames are in
 * the trace text, which SerializedThrowable's printStackTrace prints) and
 * Throwable's own empty suppressed list, Collections.EMPTY_LIST.  Its
 * toString() is then "<class>: <message>", as Flink's clients show it.
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
#define SC_WRITE_METHOD 0x01
#define SC_SERIALIZABLE 0x02
#define BASE_WIRE_HANDLE 0x7e0000

/*
 * The serialVersionUIDs, as ObjectStreamClass.lookup gives them (JDK 17):
 * declared by SerializedThrowable, Exception, Throwable and
 * Collections$EmptyList; computed for StackTraceElement[], which no JDK
 * checks for an array class.
 */
#define SUID_SERIALIZED_THROWABLE \
	0x65169df51fa713f3ULL /* 7284183123441947635 */
#define SUID_EXCEPTION 0xd0fd1f3e1a3b1cc4ULL
#define SUID_THROWABLE 0xd5c635273977b8cbULL
#define SUID_STACK_TRACE_ARRAY 0x02462a3c3cfd2239ULL
#define SUID_EMPTY_LIST 0x7ab817b43ca79edeULL

/*
 * The one handle the stream refers back to: "Ljava/lang/String;", the
 * second object of the stream after SerializedThrowable's descriptor.
 */
#define HANDLE_STRING_TYPE (BASE_WIRE_HANDLE + 1)

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
 * A new String object: TC_STRING with a 2-byte length, or TC_LONGSTRING
 * with an 8-byte one past 65535 bytes, as ObjectOutputStream.writeString
 * chooses.
 */
static int
put_string(struct buf *b, const char *s, size_t n)
{
	int err = 0;
	uint64_t len = mutf8(NULL, s, n, &err);

	if (len <= 0xffff) {
		if (put_u8(b, TC_STRING) == -1 || put_be(b, len, 2) == -1)
			return -1;
	} else if (put_u8(b, TC_LONGSTRING) == -1 || put_be(b, len, 8) == -1)
		return -1;
	mutf8(b, s, n, &err);
	return err ? -1 : 0;
}

/* A field of a class descriptor: its type code, name and type string. */
struct field {
	char code; /* 'L' object, '[' array */
	const char *name;
	const char *type; /* NULL: a reference to "Ljava/lang/String;" */
};

/*
 * A class descriptor up to its superclass's (TC_CLASSDESC, name, suid,
 * flags, fields, an empty annotation): writeNonProxyDesc.
 */
static int
put_classdesc(struct buf *b, const char *name, uint64_t suid, unsigned flags,
    const struct field *f, size_t nf)
{
	size_t i;

	if (put_u8(b, TC_CLASSDESC) == -1 || put_utf(b, name) == -1 ||
	    put_be(b, suid, 8) == -1 || put_u8(b, flags) == -1 ||
	    put_be(b, nf, 2) == -1)
		return -1;
	for (i = 0; i < nf; i++) {
		if (put_u8(b, (unsigned char)f[i].code) == -1 ||
		    put_utf(b, f[i].name) == -1)
			return -1;
		if (f[i].type == NULL) {
			if (put_u8(b, TC_REFERENCE) == -1 ||
			    put_be(b, HANDLE_STRING_TYPE, 4) == -1)
				return -1;
		} else if (put_u8(b, TC_STRING) == -1 ||
		    put_utf(b, f[i].type) == -1)
			return -1;
	}
	return put_u8(b, TC_ENDBLOCKDATA);
}

/* Fields in ObjectStreamClass's order: by name, objects after primitives. */
static const struct field serialized_throwable_fields[] = {
	{ 'L', "fullStringifiedStackTrace", "Ljava/lang/String;" },
	{ 'L', "originalErrorClassName", NULL },
	{ '[', "serializedException", "[B" },
};
static const struct field throwable_fields[] = {
	{ 'L', "cause", "Ljava/lang/Throwable;" },
	{ 'L', "detailMessage", NULL },
	{ '[', "stackTrace", "[Ljava/lang/StackTraceElement;" },
	{ 'L', "suppressedExceptions", "Ljava/util/List;" },
};

#define NFIELDS(a) (sizeof(a) / sizeof((a)[0]))

static int
put_stream(struct buf *b, const char *class, size_t classlen, const char *trace,
    size_t tracelen)
{
	size_t off, len;
	int msg;

	msg = throwable_message(class, classlen, trace, tracelen, &off, &len);
	if (put_be(b, STREAM_MAGIC, 2) == -1 ||
	    put_be(b, STREAM_VERSION, 2) == -1 || put_u8(b, TC_OBJECT) == -1 ||
	    put_classdesc(b, "org.apache.flink.util.SerializedThrowable",
		SUID_SERIALIZED_THROWABLE, SC_SERIALIZABLE,
		serialized_throwable_fields,
		NFIELDS(serialized_throwable_fields)) == -1 ||
	    put_classdesc(b, "java.lang.Exception", SUID_EXCEPTION,
		SC_SERIALIZABLE, NULL, 0) == -1 ||
	    put_classdesc(b, "java.lang.Throwable", SUID_THROWABLE,
		SC_SERIALIZABLE | SC_WRITE_METHOD, throwable_fields,
		NFIELDS(throwable_fields)) == -1 ||
	    put_u8(b, TC_NULL) == -1)
		return -1;
	/* Throwable's data, by its writeObject: defaultWriteObject, then
	 * the end of its block. */
	if (put_u8(b, TC_NULL) == -1 ||
	    (msg ? put_string(b, trace + off, len) : put_u8(b, TC_NULL)) ==
		-1 ||
	    put_u8(b, TC_ARRAY) == -1 ||
	    put_classdesc(b, "[Ljava.lang.StackTraceElement;",
		SUID_STACK_TRACE_ARRAY, SC_SERIALIZABLE, NULL, 0) == -1 ||
	    put_u8(b, TC_NULL) == -1 || put_be(b, 0, 4) == -1 ||
	    put_u8(b, TC_OBJECT) == -1 ||
	    put_classdesc(b, "java.util.Collections$EmptyList", SUID_EMPTY_LIST,
		SC_SERIALIZABLE, NULL, 0) == -1 ||
	    put_u8(b, TC_NULL) == -1 || put_u8(b, TC_ENDBLOCKDATA) == -1)
		return -1;
	/* Exception has none; SerializedThrowable's fields. */
	if (put_string(b, trace, tracelen) == -1 ||
	    put_string(b, class, classlen) == -1 || put_u8(b, TC_NULL) == -1)
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
