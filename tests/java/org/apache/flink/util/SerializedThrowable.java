/*
 * A stand-in for Flink's org.apache.flink.util.SerializedThrowable, for
 * t4200 only: the same name, serialVersionUID and serial fields (and so
 * the same serialized form), and the same toString(), which is what
 * Flink's clients show of a failure.  It is never shipped.
 */
package org.apache.flink.util;

import java.lang.ref.WeakReference;

public class SerializedThrowable extends Exception {

	private static final long serialVersionUID = 7284183123441947635L;

	private final byte[] serializedException;

	private final String originalErrorClassName;

	private final String fullStringifiedStackTrace;

	private transient WeakReference<Throwable> cachedException;

	private SerializedThrowable() {
		serializedException = null;
		originalErrorClassName = null;
		fullStringifiedStackTrace = null;
	}

	public String getOriginalErrorClassName() {
		return originalErrorClassName;
	}

	public byte[] getSerializedException() {
		return serializedException;
	}

	public String getFullStringifiedStackTrace() {
		return fullStringifiedStackTrace;
	}

	@Override
	public String toString() {
		String message = getLocalizedMessage();
		return message != null ? originalErrorClassName + ": " + message
		    : originalErrorClassName;
	}
}
