/*
 * t4200's Java side: reads failureCause's "serialized-throwable" as Flink's
 * SerializedThrowableDeserializer does (base64, then ObjectInputStream),
 * and writes what a Flink client would see of it into DIR, one file per
 * string, in UTF-8: class (originalErrorClassName), trace
 * (fullStringifiedStackTrace), message (getMessage(), absent if null) and
 * tostring (toString()), and causes: each cause's toString(), one a line,
 * outermost first (empty without a cause), and cause<N>.trace the Nth's
 * fullStringifiedStackTrace.  It fails, exit status 1 with the exception
 * on stderr, if the blob does not decode to a SerializedThrowable whose
 * causes are SerializedThrowables too, if serializedException, the stack
 * trace or the suppressed list of any is not empty, or if
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
		int n = 0;
		Files.createDirectories(dir);
		for (Throwable c = t; c != null; c = c.getCause(), n++) {
			require(c instanceof SerializedThrowable,
			    "a cause that is no SerializedThrowable: " + c);
			SerializedThrowable s = (SerializedThrowable)c;
			require(s.getSerializedException() == null,
			    "serializedException is not null");
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
		write(dir, "class", t.getOriginalErrorClassName());
		write(dir, "trace", t.getFullStringifiedStackTrace());
		write(dir, "message", t.getMessage());
		write(dir, "tostring", t.toString());
	}
}
