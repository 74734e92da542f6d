/*
 * t4200's Java side: reads failureCause's "serialized-throwable" as Flink's
 * SerializedThrowableDeserializer does (base64, then ObjectInputStream),
 * and writes what a Flink client would see of it into DIR, one file per
 * string, in UTF-8: class (originalErrorClassName), trace
 * (fullStringifiedStackTrace), message (getMessage(), absent if null) and
 * tostring (toString()), and causes: each cause's toString(), one a line,
 * outermost first (empty without a cause), and cause<N>.trace the Nth's
 * fullStringifiedStackTrace, and originals: for each level, outermost
 * first, "stream" where its serializedException is a Java serialization
 * stream (the original exception, which t7000 reads with Flink's own
 * classes), "null" where it has none.  It fails, exit status 1 with the
 * exception on stderr, if the blob does not decode to a
 * SerializedThrowable whose causes are SerializedThrowables too, if
 * serializedException is neither null nor begins with the stream's magic
 * and version, if the stack trace or the suppressed list of any is not
 * empty, or if
 * ObjectOutputStream does not write the object it read back as the very
 * same bytes.
 *
 *	java -cp CLASSES ThrowableCheck BLOB-FILE DIR
 */
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.Base64;

import org.apache.flink.util.SerializedThrowable;

public class ThrowableCheck {

	private static void write(Path dir, String name, String s)
	    throws Exception {
		if (s != null)
			Files.write(dir.resolve(name),
			    s.getBytes(StandardCharsets.UTF_8));
	}

	private static void require(boolean ok, String what) {
		if (!ok)
			throw new IllegalStateException(what);
	}

	public static void main(String[] args) throws Exception {
		String text = new String(Files.readAllBytes(Paths.get(args[0])),
		    StandardCharsets.US_ASCII).trim();
		Path dir = Paths.get(args[1]);
		byte[] blob = Base64.getDecoder().decode(text);
		SerializedThrowable t;

		try (ObjectInputStream in = new ObjectInputStream(
		    new ByteArrayInputStream(blob))) {
			t = (SerializedThrowable)in.readObject();
			require(in.read() == -1, "bytes after the object");
		}
		StringBuilder causes = new StringBuilder();
		StringBuilder originals = new StringBuilder();
		int n = 0;
		Files.createDirectories(dir);
		for (Throwable c = t; c != null; c = c.getCause(), n++) {
			require(c instanceof SerializedThrowable,
			    "a cause that is no SerializedThrowable: " + c);
			SerializedThrowable s = (SerializedThrowable)c;
			byte[] raw = s.getSerializedException();
			require(raw == null || (raw.length > 4 &&
			    (raw[0] & 0xff) == 0xac && (raw[1] & 0xff) == 0xed &&
			    raw[2] == 0 && raw[3] == 5),
			    "serializedException is no serialization stream");
			originals.append(raw == null ? "null\n" : "stream\n");
			require(s.getStackTrace().length == 0,
			    "the stack trace is not empty");
			require(s.getSuppressed().length == 0,
			    "suppressed exceptions");
			if (n > 0) {
				causes.append(s.toString()).append('\n');
				write(dir, "cause" + n + ".trace",
				    s.getFullStringifiedStackTrace());
			}
		}

		ByteArrayOutputStream again = new ByteArrayOutputStream();
		try (ObjectOutputStream out = new ObjectOutputStream(again)) {
			out.writeObject(t);
		}
		require(Arrays.equals(again.toByteArray(), blob),
		    "ObjectOutputStream writes it otherwise: " +
		    Base64.getEncoder().encodeToString(again.toByteArray()));

		write(dir, "causes", causes.toString());
		write(dir, "originals", originals.toString());
		write(dir, "class", t.getOriginalErrorClassName());
		write(dir, "trace", t.getFullStringifiedStackTrace());
		write(dir, "message", t.getMessage());
		write(dir, "tostring", t.toString());
	}
}
