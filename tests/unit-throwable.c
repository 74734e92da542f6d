/*
 * Unit tests of throwable.c: the failure's message, the Java serialization
 * stream of a SerializedThrowable byte for byte, strings in modified UTF-8
 * and past 65535 bytes, and its base64.  The expected stream of the small
 * case is what JDK 17's ObjectOutputStream writes for the object its
 * ObjectInputStream reads from it (t4200 checks that on every run, with a
 * real JDK).  So is a known class's original exception, its
 * serializedException (t7000 and t7010 read it with Flink's own classes).
 */
#include <config.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tap.h"
#include "throwable.h"

/* A piece of an expected stream: hex digits, or text taken as it is. */
struct piece {
	const char *hex;
	const char *text;
};

#define HEX(h) \
	{ \
		h, NULL \
	}
#define TEXT(t) \
	{ \
		NULL, t \
	}

static void
add_hex(struct buf *b, const char *hex)
{
	unsigned v;
	unsigned char c;

	for (; hex[0] != '\0' && hex[1] != '\0'; hex += 2) {
		sscanf(hex, "%2x", &v);
		c = (unsigned char)v;
		buf_add(b, &c, 1);
	}
}

static void
expect(struct buf *b, const struct piece *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i].text != NULL)
			buf_adds(b, p[i].text);
		else
			add_hex(b, p[i].hex);
}

/* got equals want byte for byte; else says where they part. */
static void __attribute__((format(printf, 4, 5))) same_bytes_at(int line,
    const struct buf *got, const struct buf *want, const char *fmt, ...)
{
	va_list ap;
	size_t i;
	int same;

	for (i = 0; i < got->len && i < want->len; i++)
		if (got->p[i] != want->p[i])
			break;
	same = got->len == want->len && i == got->len;
	va_start(ap, fmt);
	tap_vresult(__FILE__, line, same, fmt, ap);
	va_end(ap);
	if (!same)
		printf("#   got %zu bytes, expected %zu; they differ from "
		       "byte %zu\n",
		    got->len, want->len, i);
}
#define same_bytes(g, w, ...) same_bytes_at(__LINE__, (g), (w), __VA_ARGS__)

/* clang-format off: one line per item of the stream. */
/* The descriptors before Throwable's data: the same in every stream. */
static const struct piece head[] = {
	HEX("aced0005"), /* STREAM_MAGIC, STREAM_VERSION */
	HEX("7372"), /* TC_OBJECT, TC_CLASSDESC */
	HEX("0029"), TEXT("org.apache.flink.util.SerializedThrowable"),
	HEX("65169df51fa713f3"), /* serialVersionUID */
	HEX("02"), /* SC_SERIALIZABLE */
	HEX("0003"), /* 3 fields, sorted by name */
	HEX("4c0019"), TEXT("fullStringifiedStackTrace"), HEX("740012"),
	TEXT("Ljava/lang/String;"), /* handle 0x7e0001 */
	HEX("4c0016"), TEXT("originalErrorClassName"),
	HEX("71007e0001"), /* TC_REFERENCE to "Ljava/lang/String;" */
	HEX("5b0013"), TEXT("serializedException"), HEX("740002"), TEXT("[B"),
	HEX("78"), /* TC_ENDBLOCKDATA: no class annotation */
	HEX("720013"), TEXT("java.lang.Exception"), /* the superclass */
	HEX("d0fd1f3e1a3b1cc4"), HEX("02"), HEX("0000"), HEX("78"),
	HEX("720013"), TEXT("java.lang.Throwable"), /* and its */
	HEX("d5c635273977b8cb"),
	HEX("03"), /* SC_SERIALIZABLE | SC_WRITE_METHOD */
	HEX("0004"), HEX("4c0005"), TEXT("cause"), HEX("740015"),
	TEXT("Ljava/lang/Throwable;"), HEX("4c000d"), TEXT("detailMessage"),
	HEX("71007e0001"), HEX("5b000a"), TEXT("stackTrace"), HEX("74001e"),
	TEXT("[Ljava/lang/StackTraceElement;"), HEX("4c0014"),
	TEXT("suppressedExceptions"), HEX("740010"), TEXT("Ljava/util/List;"),
	HEX("78"), HEX("70"), /* TC_NULL: no superclass of Throwable's */
	HEX("70"), /* Throwable's data: cause, null */
};

/* Throwable's data after its detailMessage, and its end. */
static const struct piece mid[] = {
	HEX("75"), /* TC_ARRAY: stackTrace, empty */
	HEX("72001e"), TEXT("[Ljava.lang.StackTraceElement;"),
	HEX("02462a3c3cfd2239"), HEX("02"), HEX("0000"), HEX("78"), HEX("70"),
	HEX("00000000"), /* its length */
	HEX("73"), /* suppressedExceptions: Collections.EMPTY_LIST */
	HEX("72001f"), TEXT("java.util.Collections$EmptyList"),
	HEX("7ab817b43ca79ede"), HEX("02"), HEX("0000"), HEX("78"), HEX("70"),
	HEX("78"), /* the end of writeObject's block */
};
/* clang-format on */

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void
test_small(void)
{
	static const char trace[] = "E: m\n\tat f\n";
	static const struct piece data[] = {
		HEX("740004"), TEXT("E: m"), /* detailMessage */
	};
	static const struct piece tail[] = {
		HEX("74000b"), TEXT("E: m\n\tat f\n"), /* the trace */
		HEX("740001"), TEXT("E"), /* the class */
		HEX("70"), /* serializedException: null */
	};
	struct buf got = { 0 }, want = { 0 };

	expect(&want, head, N(head));
	expect(&want, data, N(data));
	expect(&want, mid, N(mid));
	expect(&want, tail, N(tail));
	tap_ok(throwable_serialize(&got, "E", 1, trace, strlen(trace)) == 0,
	    "small: serialized");
	same_bytes(&got, &want, "small: the stream, byte for byte");
	buf_free(&got);
	tap_ok(throwable_base64(&got, "E", 1, trace, strlen(trace)) == 0,
	    "small: base64");
	tap_is_str(buf_str(&got),
	    "rO0ABXNyAClvcmcuYXBhY2hlLmZsaW5rLnV0aWwuU2VyaWFsaXplZFRocm93YWJs"
	    "ZWUWnfUfpxPzAgADTAAZZnVsbFN0cmluZ2lmaWVkU3RhY2tUcmFjZXQAEkxqYXZh"
	    "L2xhbmcvU3RyaW5nO0wAFm9yaWdpbmFsRXJyb3JDbGFzc05hbWVxAH4AAVsAE3Nl"
	    "cmlhbGl6ZWRFeGNlcHRpb250AAJbQnhyABNqYXZhLmxhbmcuRXhjZXB0aW9u0P0f"
	    "Pho7HMQCAAB4cgATamF2YS5sYW5nLlRocm93YWJsZdXGNSc5d7jLAwAETAAFY2F1"
	    "c2V0ABVMamF2YS9sYW5nL1Rocm93YWJsZTtMAA1kZXRhaWxNZXNzYWdlcQB+AAFb"
	    "AApzdGFja1RyYWNldAAeW0xqYXZhL2xhbmcvU3RhY2tUcmFjZUVsZW1lbnQ7TAAU"
	    "c3VwcHJlc3NlZEV4Y2VwdGlvbnN0ABBMamF2YS91dGlsL0xpc3Q7eHBwdAAERTog"
	    "bXVyAB5bTGphdmEubGFuZy5TdGFja1RyYWNlRWxlbWVudDsCRio8PP0iOQIAAHhw"
	    "AAAAAHNyAB9qYXZhLnV0aWwuQ29sbGVjdGlvbnMkRW1wdHlMaXN0ergXtDynnt4C"
	    "AAB4cHh0AAtFOiBtCglhdCBmCnQAAUVw",
	    "small: its base64, padded, without line breaks");
	buf_free(&got);
	buf_free(&want);
}

/* Base64's padding: a stream of each length modulo 3 ends as it should. */
static void
test_padding(void)
{
	static const struct {
		const char *trace, *end;
		size_t len;
	} t[] = {
		{ "E: m\n\tat f\n", "dCBmCnQAAUVw", 504 },
		{ "E: m\n\tat fg\n", "Zwp0AAFFcA==", 505 },
		{ "E: m\n\tat fgh\n", "Z2gKdAABRXA=", 506 },
	};
	struct buf b = { 0 };
	size_t i, n;

	for (i = 0; i < N(t); i++) {
		buf_reset(&b);
		throwable_serialize(&b, "E", 1, t[i].trace, strlen(t[i].trace));
		tap_is_int(b.len, t[i].len, "padding: a %zu-byte stream",
		    t[i].len);
		buf_reset(&b);
		throwable_base64(&b, "E", 1, t[i].trace, strlen(t[i].trace));
		n = strlen(t[i].end);
		tap_is_str(b.len >= n ? b.p + b.len - n : b.p, t[i].end,
		    "padding: its base64 ends as it should");
		tap_is_int(b.len, (t[i].len + 2) / 3 * 4,
		    "padding: 4 characters for every 3 bytes or part of 3");
	}
	buf_free(&b);
}

/* The stream of class C and trace, with detailMessage as data says. */
static void
check_stream(int line, const char *trace, size_t tracelen,
    const struct piece *data, size_t ndata, const struct piece *tail,
    size_t ntail, const char *what)
{
	struct buf got = { 0 }, want = { 0 };

	expect(&want, head, N(head));
	expect(&want, data, ndata);
	expect(&want, mid, N(mid));
	expect(&want, tail, ntail);
	throwable_serialize(&got, "C", 1, trace, tracelen);
	same_bytes_at(line, &got, &want, "%s", what);
	buf_free(&got);
	buf_free(&want);
}

/*
 * Modified UTF-8 (DataOutput.writeUTF): NUL as C0 80, a character above
 * U+FFFF as its two surrogates of three bytes each, a byte that is not
 * UTF-8 as U+FFFD.
 */
static void
test_modified_utf8(void)
{
	static const char trace[] = "C: \0\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"
				    "\xff";
	/* NUL, U+00E9, U+20AC, U+1F600 as two surrogates, U+FFFD. */
#define MUTF8 "c080c3a9e282aceda0bdedb880efbfbd"
	static const struct piece data[] = { HEX("740013"), TEXT("C: "),
		HEX(MUTF8) };
	static const struct piece tail[] = {
		HEX("740013"),
		TEXT("C: "),
		HEX(MUTF8),
		HEX("740001"),
		TEXT("C"),
		HEX("70"),
	};

	check_stream(__LINE__, trace, sizeof(trace) - 1, data, N(data), tail,
	    N(tail),
	    "modified UTF-8: NUL, 2, 3 and 4-byte characters, a bad byte");
}

/*
 * A string of up to 65535 bytes of modified UTF-8 is TC_STRING, a longer
 * one TC_LONGSTRING with an 8-byte length (ObjectOutputStream.writeString),
 * counted in modified UTF-8: a NUL stored as one byte is two there.  The
 * message is n times the character c, the trace "C: " and the message.
 */
static void
test_long_strings(void)
{
	static const struct {
		const char *c, *mc; /* stored, and in modified UTF-8 */
		size_t n;
		const char *thead; /* the header of the trace's string */
	} t[] = {
		{ "a", "a", 65532, "74ffff" },
		{ "a", "a", 65533, "7c0000000000010000" },
		{ "a", "a", 65535, "7c0000000000010002" },
		{ "a", "a", 65536, "7c0000000000010003" },
		{ "\xc3\xa9", "\xc3\xa9", 32766, "74ffff" },
		{ "\xc3\xa9", "\xc3\xa9", 32768, "7c0000000000010003" },
		{ "", "\xc0\x80", 32767, "7c0000000000010001" },
	};
	struct buf trace = { 0 }, msg = { 0 }, got = { 0 }, want = { 0 };
	size_t i, j, clen;

	for (i = 0; i < N(t); i++) {
		buf_reset(&trace);
		buf_reset(&msg);
		buf_reset(&got);
		buf_reset(&want);
		/* "" stands for NUL, which a C string cannot hold. */
		clen = t[i].c[0] == '\0' ? 1 : strlen(t[i].c);
		buf_adds(&trace, "C: ");
		for (j = 0; j < t[i].n; j++) {
			buf_add(&trace, t[i].c, clen);
			buf_adds(&msg, t[i].mc);
		}
		/* detailMessage "C: <message>": the trace's text again. */
		expect(&want, head, N(head));
		add_hex(&want, t[i].thead);
		buf_adds(&want, "C: ");
		buf_add(&want, msg.p, msg.len);
		expect(&want, mid, N(mid));
		add_hex(&want, t[i].thead);
		buf_adds(&want, "C: ");
		buf_add(&want, msg.p, msg.len);
		add_hex(&want, "74000143"); /* "C" */
		add_hex(&want, "70");
		throwable_serialize(&got, "C", 1, trace.p, trace.len);
		same_bytes(&got, &want, "long strings: case %zu", i);
	}
	buf_free(&trace);
	buf_free(&msg);
	buf_free(&got);
	buf_free(&want);
}

/*
 * The message: what printStackTrace printed after "<class>: ", up to the
 * first frame, the first cause or the final newline.
 */
static void
test_message(void)
{
	static const struct {
		int line;
		const char *class, *trace, *msg; /* msg NULL: none */
	} t[] = {
		{ __LINE__, "E", "E: m\n\tat f\n", "m" },
		{ __LINE__, "E", "E: m", "m" },
		{ __LINE__, "E", "E: m\n", "m" },
		{ __LINE__, "E", "E: two\nlines\n\tat f\n", "two\nlines" },
		{ __LINE__, "E", "E: m\nCaused by: F: n\n", "m" },
		{ __LINE__, "E", "E: m\n\tat f\nCaused by: F: n\n\tat g\n",
		    "m" },
		{ __LINE__, "E", "E: a\tb\n\n", "a\tb\n" },
		{ __LINE__, "E", "E: ", "" },
		{ __LINE__, "E", "E", NULL },
		{ __LINE__, "E", "E\n", NULL },
		{ __LINE__, "E", "E\n\tat f\n", NULL },
		{ __LINE__, "E", "", NULL },
		{ __LINE__, "E", "\n", NULL },
		{ __LINE__, "E", "line1\nline2", "line1\nline2" },
		{ __LINE__, "E", "EF: m\n", "EF: m" },
		{ __LINE__, "E", "E:m", "E:m" },
		{ __LINE__, "java.util.concurrent.CompletionException",
		    "java.util.concurrent.CompletionException: "
		    "org.apache.flink.runtime.messages."
		    "FlinkJobNotFoundException: Could not find Flink job "
		    "(00000000000000000000000000000001)\n",
		    "org.apache.flink.runtime.messages."
		    "FlinkJobNotFoundException: Could not find Flink job "
		    "(00000000000000000000000000000001)" },
	};
	char got[128];
	size_t i, off, len;
	int has;

	for (i = 0; i < N(t); i++) {
		has = throwable_message(t[i].class, strlen(t[i].class),
		    t[i].trace, strlen(t[i].trace), &off, &len);
		if (has)
			snprintf(got, sizeof(got), "%.*s", (int)len,
			    t[i].trace + off);
		tap_is_str_at(__FILE__, t[i].line, has ? got : NULL, t[i].msg,
		    "message: the case of line %d", t[i].line);
	}
}

/*
 * No message: detailMessage is the class alone (Flink's
 * getClassNameAndMessageOrError), and toString() "C: C".
 */
static void
test_no_message(void)
{
	static const struct piece data[] = { HEX("740001"), TEXT("C") };
	static const struct piece tail[] = {
		HEX("740001"),
		TEXT("C"),
		HEX("740001"),
		TEXT("C"),
		HEX("70"),
	};

	check_stream(__LINE__, "C", 1, data, N(data), tail, N(tail),
	    "no message: detailMessage the class");
}

/*
 * A disposal's failure: Flink's FlinkException and its cause; the scheme
 * of a path as Flink's Path reads it, the local file system's without.
 */
static void
test_dispose(void)
{
	static const struct {
		int line;
		const char *path, *cause_class, *cause_msg, *want;
	} t[] = {
		{ __LINE__, "file:/nowhere", NULL, NULL,
		    THROWABLE_DISPOSE_CLASS
		    ": Could not dispose savepoint file:/nowhere.\n"
		    "Caused by: java.io.FileNotFoundException: Cannot find "
		    "checkpoint or savepoint file/directory 'file:/nowhere' "
		    "on file system 'file'.\n" },
		{ __LINE__, "/sp/x", NULL, NULL,
		    THROWABLE_DISPOSE_CLASS
		    ": Could not dispose savepoint /sp/x.\n"
		    "Caused by: java.io.FileNotFoundException: Cannot find "
		    "checkpoint or savepoint file/directory '/sp/x' on file "
		    "system 'file'.\n" },
		{ __LINE__, "s3://b/sp", NULL, NULL,
		    THROWABLE_DISPOSE_CLASS
		    ": Could not dispose savepoint s3://b/sp.\n"
		    "Caused by: java.io.FileNotFoundException: Cannot find "
		    "checkpoint or savepoint file/directory 's3://b/sp' on "
		    "file system 's3'.\n" },
		{ __LINE__, "/a:b", NULL, NULL,
		    THROWABLE_DISPOSE_CLASS
		    ": Could not dispose savepoint /a:b.\n"
		    "Caused by: java.io.FileNotFoundException: Cannot find "
		    "checkpoint or savepoint file/directory '/a:b' on file "
		    "system 'file'.\n" },
		{ __LINE__, "file:/sp", "java.io.IOException", "why",
		    THROWABLE_DISPOSE_CLASS
		    ": Could not dispose savepoint file:/sp.\n"
		    "Caused by: java.io.IOException: why\n" },
		{ __LINE__, "file:/sp", "java.io.IOException", NULL,
		    THROWABLE_DISPOSE_CLASS
		    ": Could not dispose savepoint file:/sp.\n"
		    "Caused by: java.io.IOException\n" },
	};
	struct buf b = { 0 };
	size_t i;

	for (i = 0; i < N(t); i++) {
		buf_reset(&b);
		if (t[i].cause_class == NULL)
			throwable_dispose_missing(&b, t[i].path);
		else
			throwable_dispose_trace(&b, t[i].path, t[i].cause_class,
			    t[i].cause_msg);
		tap_is_str_at(__FILE__, t[i].line, buf_str(&b), t[i].want,
		    "dispose: the trace of line %d", t[i].line);
	}
	buf_free(&b);
}

/*
 * A cause: a second SerializedThrowable as the first one's cause, written
 * whole before the rest of the first one's data, referring back to the
 * descriptors (handle 0x7e0000), and for the first one's stack trace and
 * suppressed list to the array class and the empty list the cause wrote
 * (handles 0x7e000b and 0x7e000e).
 */
static void
test_chain(void)
{
	static const char trace[] = "E: m\nCaused by: F: n\n";
	/* clang-format off */
	static const struct piece cause[] = {
		HEX("73"), HEX("71007e0000"), /* handle 0x7e0009 */
		HEX("70"), /* its cause: null */
		HEX("740004"), TEXT("F: n"),
	};
	static const struct piece tail[] = {
		HEX("740005"), TEXT("F: n\n"), /* its trace */
		HEX("740001"), TEXT("F"), HEX("70"),
		HEX("740004"), TEXT("E: m"), /* the first one's detailMessage */
		HEX("75"), HEX("71007e000b"), HEX("00000000"),
		HEX("71007e000e"), HEX("78"),
		HEX("740015"), TEXT("E: m\nCaused by: F: n\n"),
		HEX("740001"), TEXT("E"), HEX("70"),
	};
	/* clang-format on */
	struct buf got = { 0 }, want = { 0 };

	expect(&want, head, N(head) - 1); /* but its cause, null */
	expect(&want, cause, N(cause));
	expect(&want, mid, N(mid));
	expect(&want, tail, N(tail));
	throwable_serialize(&got, "E", 1, trace, strlen(trace));
	same_bytes(&got, &want, "a cause: nested, with references back");
	buf_free(&got);
	buf_free(&want);
}

/*
 * A known class's original (serializedException): a stream of its own,
 * here the whole one of a CheckpointException declined, as JDK 17's
 * ObjectOutputStream writes the CheckpointException that Flink 1.20.5's
 * and 2.3.0's ObjectInputStream read from it, and after it, as the outer
 * stream's last datum, behind byte[]'s descriptor and its length.
 */
static void
test_original(void)
{
	static const char trace[] = "org.apache.flink.runtime.checkpoint."
				    "CheckpointException: Checkpoint was "
				    "declined. x\n";
	/* clang-format off */
	static const struct piece original[] = {
		HEX("aced0005"), HEX("7372"), HEX("0037"),
		TEXT("org.apache.flink.runtime.checkpoint.CheckpointException"),
		HEX("2d350ebf02e465a4"), HEX("02"), HEX("0001"),
		HEX("4c0017"), TEXT("checkpointFailureReason"), HEX("74003d"),
		TEXT("Lorg/apache/flink/runtime/checkpoint/"
		    "CheckpointFailureReason;"), HEX("78"),
		HEX("720013"), TEXT("java.lang.Exception"),
		HEX("d0fd1f3e1a3b1cc4"), HEX("02"), HEX("0000"), HEX("78"),
		HEX("720013"), TEXT("java.lang.Throwable"),
		HEX("d5c635273977b8cb"), HEX("03"), HEX("0004"), HEX("4c0005"),
		TEXT("cause"), HEX("740015"), TEXT("Ljava/lang/Throwable;"),
		HEX("4c000d"), TEXT("detailMessage"), HEX("740012"),
		TEXT("Ljava/lang/String;"), /* new here: its first time */
		HEX("5b000a"), TEXT("stackTrace"), HEX("74001e"),
		TEXT("[Ljava/lang/StackTraceElement;"), HEX("4c0014"),
		TEXT("suppressedExceptions"), HEX("740010"),
		TEXT("Ljava/util/List;"), HEX("78"), HEX("70"),
		HEX("70"), /* cause: null */
		HEX("74001a"), TEXT("Checkpoint was declined. x"),
	};
	static const struct piece reason[] = {
		HEX("78"), /* the end of Throwable's writeObject */
		HEX("7e"), /* TC_ENUM */
		HEX("72003b"),
		TEXT("org.apache.flink.runtime.checkpoint.CheckpointFailureReason"),
		HEX("0000000000000000"), HEX("12"), /* SC_SERIALIZABLE | SC_ENUM */
		HEX("0000"), HEX("78"), HEX("72000e"), TEXT("java.lang.Enum"),
		HEX("0000000000000000"), HEX("12"), HEX("0000"), HEX("78"),
		HEX("70"), HEX("740013"), TEXT("CHECKPOINT_DECLINED"),
	};
	/* clang-format on */
	struct buf got = { 0 }, want = { 0 }, head_b = { 0 };
	size_t n;

	expect(&want, original, N(original));
	/* The stack trace and the empty list, the first of this stream. */
	add_hex(&want, "757200");
	add_hex(&want, "1e");
	buf_adds(&want, "[Ljava.lang.StackTraceElement;");
	add_hex(&want, "02462a3c3cfd22390200007870000000007372001f");
	buf_adds(&want, "java.util.Collections$EmptyList");
	add_hex(&want, "7ab817b43ca79ede0200007870");
	expect(&want, reason, N(reason));
	throwable_serialize(&got,
	    "org.apache.flink.runtime.checkpoint."
	    "CheckpointException",
	    55, trace, strlen(trace));
	add_hex(&head_b, "757200025b42acf317f8060854e00200007870");
	n = want.len;
	tap_ok(got.len > n + head_b.len + 4 &&
		memcmp(got.p + got.len - n - 4 - head_b.len, head_b.p,
		    head_b.len) == 0,
	    "original: a byte[] after the class name");
	tap_ok(got.len > n &&
		(size_t)((unsigned char)got.p[got.len - n - 2] << 8 |
		    (unsigned char)got.p[got.len - n - 1]) == n,
	    "original: its length");
	if (got.len > n)
		memmove(got.p, got.p + got.len - n, n);
	got.len = got.len > n ? n : 0;
	same_bytes(&got, &want,
	    "original: the CheckpointException, its "
	    "reason CHECKPOINT_DECLINED");
	buf_free(&got);
	buf_free(&want);
	buf_free(&head_b);
}

/* Whether b holds the class descriptor of name with that UID (hex). */
static int
holds_desc(const struct buf *b, const char *name, const char *suid)
{
	struct buf d = { 0 };
	unsigned char len[2] = { 0, (unsigned char)strlen(name) };
	size_t i;
	int found = 0;

	add_hex(&d, "72");
	buf_add(&d, len, 2);
	buf_adds(&d, name);
	add_hex(&d, suid);
	for (i = 0; !found && i + d.len <= b->len; i++)
		found = memcmp(b->p + i, d.p, d.len) == 0;
	buf_free(&d);
	return found;
}

/* How many times b holds the stream magic: one stream and its originals. */
static int
count_streams(const struct buf *b)
{
	static const unsigned char magic[] = { 0xac, 0xed, 0x00, 0x05 };
	size_t i;
	int n = 0;

	for (i = 0; i + 4 <= b->len; i++)
		n += memcmp(b->p + i, magic, 4) == 0;
	return n;
}

#define CK "org.apache.flink.runtime.checkpoint.CheckpointException"
#define CE "java.util.concurrent.CompletionException"
#define NF "org.apache.flink.runtime.messages.FlinkJobNotFoundException"
#define FE "org.apache.flink.util.FlinkException"
#define RC "org.apache.flink.runtime.rest.util.RestClientException"

/*
 * Each known class's descriptor, with the serialVersionUID the JDK's
 * serialver gives for it (Flink's from 1.20.5's and 2.3.0's jars, the
 * same), in the originals of a chain of them; the reason a
 * CheckpointException's message gives; and no original (one stream)
 * where a class of the chain is unknown.
 */
static void
test_original_classes(void)
{
	static const struct {
		int line;
		const char *class, *trace;
		int streams; /* the outer one and each level's original */
		const char *descs[6][2]; /* name, UID */
		const char *reason;
	} t[] = {
		{ __LINE__, CE, CE ": " NF ": x\nCaused by: " NF ": x\n", 3,
		    { { CE, "6caab173bfb4e069" },
			{ "java.lang.RuntimeException", "9e5f06470a3483e5" },
			{ NF, "1fd867b9269c5911" }, { FE, "06412b0cfb4599b4" },
			{ "java.lang.Exception", "d0fd1f3e1a3b1cc4" },
			{ "java.lang.Throwable", "d5c635273977b8cb" } },
		    NULL },
		{ __LINE__, FE,
		    FE ": d\nCaused by: java.lang.IllegalStateException: s\n"
		       "Caused by: java.io.FileNotFoundException: f\n",
		    4,
		    { { "java.lang.IllegalStateException", "e65755e69a46f248" },
			{ "java.io.FileNotFoundException", "f38a2bd6e0216ae4" },
			{ "java.io.IOException", "6c8073646525f0ab" } },
		    NULL },
		{ __LINE__, RC, RC ": [x]\n\tat r (GET u answered HTTP 503)\n",
		    2, { { RC, "0d04246123495ee7" } }, NULL },
		{ __LINE__, CK, CK ": Checkpoint expired before completing.\n",
		    2, { { CK, "2d350ebf02e465a4" } }, "CHECKPOINT_EXPIRED" },
		{ __LINE__, CK,
		    CK ": The maximum number of queued checkpoint requests "
		       "exceeded\n",
		    2, { { CK, "2d350ebf02e465a4" } },
		    "TOO_MANY_CHECKPOINT_REQUESTS" },
		{ __LINE__, CK,
		    CK ": Checkpoint was declined (tasks not ready)", 2,
		    { { CK, "2d350ebf02e465a4" } },
		    "CHECKPOINT_DECLINED_TASK_NOT_READY" },
		{ __LINE__, CK, CK ": The JobManager no longer knows it.", 2,
		    { { CK, "2d350ebf02e465a4" } },
		    "TRIGGER_CHECKPOINT_FAILURE" },
		{ __LINE__, CE, CE ": E: x\nCaused by: E: x\n", 1, { { 0 } },
		    NULL },
		{ __LINE__, "E",
		    "E: x\nCaused by: " CK ": Checkpoint was "
		    "declined.\n",
		    2, { { CK, "2d350ebf02e465a4" } }, NULL },
	};
	struct buf b = { 0 };
	size_t i, j, n;

	for (i = 0; i < N(t); i++) {
		buf_reset(&b);
		throwable_serialize(&b, t[i].class, strlen(t[i].class),
		    t[i].trace, strlen(t[i].trace));
		tap_is_int_at(__FILE__, t[i].line, count_streams(&b),
		    t[i].streams, "originals: the streams of line %d",
		    t[i].line);
		for (j = 0; j < 6 && t[i].descs[j][0] != NULL; j++)
			tap_ok_at(__FILE__, t[i].line,
			    holds_desc(&b, t[i].descs[j][0], t[i].descs[j][1]),
			    "originals: line %d holds %s, UID %s", t[i].line,
			    t[i].descs[j][0], t[i].descs[j][1]);
		if (t[i].reason == NULL)
			continue;
		n = strlen(t[i].reason);
		tap_ok_at(__FILE__, t[i].line,
		    b.len > n && memcmp(b.p + b.len - n, t[i].reason, n) == 0,
		    "originals: line %d ends in the reason %s", t[i].line,
		    t[i].reason);
	}
	buf_free(&b);
}

int
main(void)
{
	test_original_classes();
	test_original();
	test_dispose();
	test_chain();
	test_message();
	test_small();
	test_no_message();
	test_padding();
	test_modified_utf8();
	test_long_strings();
	return tap_done();
}
