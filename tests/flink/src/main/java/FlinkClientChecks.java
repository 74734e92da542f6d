import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.flink.api.common.JobID;
import org.apache.flink.client.deployment.StandaloneClusterId;
import org.apache.flink.client.program.rest.RestClusterClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.core.execution.CheckpointType;
import org.apache.flink.runtime.client.JobStatusMessage;
import org.apache.flink.util.SerializedThrowable;

/*
 * Flink's own RestClusterClient, unmodified, against a running
 * checkpoint-api: each argument is one call, and each call prints a
 * line that begins with the argument, which the shell test compares
 * with what the service recorded.  Nothing is judged here, so that
 * the expectations live in one place, the test.
 *
 *   trigger:JOBID:TYPE  triggerCheckpoint; "ok <checkpoint id>", or
 *                       "failed <exception class> <original class>:
 *                       <message>" as Flink's client raises it, and
 *                       " <- <class>: <message>" for each cause
 *   status:JOBID        getJobStatus; "ok <status>", or "failed ..."
 *   list                listJobs; the count, then "job <id> <status>
 *                       <name> <start time>" a line, sorted; or
 *                       "failed ..." and each cause after " <- ", for
 *                       the test to find the field a client refused
 *
 * Usage: FlinkClientChecks PORT CALL...
 */
public final class FlinkClientChecks {
	/* A generous bound: the runner completes a trigger in well under it. */
	private static final long WAIT_SECONDS = 30;

	public static void main(String[] args) throws Exception {
		if (args.length < 1) {
			System.err.println("usage: FlinkClientChecks PORT CALL...");
			System.exit(2);
		}
		Configuration config = new Configuration();
		config.set(RestOptions.ADDRESS, "127.0.0.1");
		config.set(RestOptions.PORT, Integer.parseInt(args[0]));
		/* Flink's default retries a failed request 20 times, 3 s apart:
		 * a broken answer would take a minute to show.  The same retries,
		 * closer together. */
		config.set(RestOptions.RETRY_DELAY, Duration.ofMillis(100));
		int status = 0;
		try (RestClusterClient<StandaloneClusterId> client =
		    new RestClusterClient<>(config, StandaloneClusterId.getInstance())) {
			for (int i = 1; i < args.length; i++) {
				String line;
				try {
					line = call(client, args[i]);
				} catch (IllegalArgumentException e) {
					System.err.println(args[i] + ": " + e.getMessage());
					status = 2;
					continue;
				}
				System.out.println(args[i] + " " + line);
				System.out.flush();
			}
		}
		System.exit(status);
	}

	private static String call(RestClusterClient<StandaloneClusterId> client,
	    String arg) throws InterruptedException {
		String[] part = arg.split(":");
		try {
			switch (part[0]) {
			case "trigger":
				return "ok " + client.triggerCheckpoint(
				    JobID.fromHexString(part[1]),
				    CheckpointType.valueOf(part[2]))
				    .get(WAIT_SECONDS, TimeUnit.SECONDS);
			case "status":
				return "ok " + client.getJobStatus(
				    JobID.fromHexString(part[1]))
				    .get(WAIT_SECONDS, TimeUnit.SECONDS);
			case "list":
				return jobs(client.listJobs()
				    .get(WAIT_SECONDS, TimeUnit.SECONDS));
			default:
				throw new IllegalArgumentException("unknown call");
			}
		} catch (ExecutionException e) {
			if (part[0].equals("list"))
				return failedWithCauses(e.getCause());
			return failed(e.getCause());
		} catch (java.util.concurrent.TimeoutException e) {
			return "timeout after " + WAIT_SECONDS + " s";
		}
	}

	/* The exception's class, then, for Flink's SerializedThrowable (what
	 * its client decodes from failureCause), the original class and the
	 * message that Flink's tools print, and the same of each cause after
	 * " <- ". */
	private static String failed(Throwable t) {
		if (t instanceof SerializedThrowable) {
			StringBuilder out = new StringBuilder("failed " +
			    t.getClass().getName() + " ");
			for (Throwable c = t; c instanceof SerializedThrowable;
			    c = c.getCause()) {
				SerializedThrowable s = (SerializedThrowable) c;
				if (c != t)
					out.append(" <- ");
				out.append(s.getOriginalErrorClassName()).append(": ")
				    .append(oneLine(s.getMessage()));
			}
			return out.toString();
		}
		return "failed " + t.getClass().getName() + ": " +
		    oneLine(t.getMessage());
	}

	private static String failedWithCauses(Throwable t) {
		StringBuilder out = new StringBuilder(failed(t));
		for (Throwable c = t.getCause(); c != null && c != t;
		    t = c, c = c.getCause())
			out.append(" <- ").append(c.getClass().getName())
			    .append(": ").append(oneLine(c.getMessage()));
		return out.toString();
	}

	private static String jobs(Collection<JobStatusMessage> found) {
		List<String> lines = new ArrayList<>();
		for (JobStatusMessage j : found)
			lines.add(j.getJobId() + " " + j.getJobState() + " " +
			    j.getJobName() + " " + j.getStartTime());
		lines.sort(null);
		StringBuilder out = new StringBuilder();
		out.append(lines.size());
		for (String l : lines)
			out.append("\njob ").append(l);
		return out.toString();
	}

	private static String oneLine(String s) {
		return s == null ? "null" : s.replace("\n", "\\n");
	}
}
