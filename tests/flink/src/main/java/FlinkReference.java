import java.io.ByteArrayInputStream;
import java.io.ObjectInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.runtime.checkpoint.CheckpointException;
import org.apache.flink.runtime.messages.FlinkJobNotFoundException;
import org.apache.flink.util.ExceptionUtils;
import org.apache.flink.util.FlinkException;
import org.apache.flink.util.SerializedThrowable;

/*
 * A real JobManager as the reference: a MiniCluster running an unbounded
 * streaming job with keyed state and file checkpoint storage, and the
 * service behind a web server (its port the first argument), each asked
 * the same requests.  Every difference in status, Content-Type or JSON
 * (keys and their order, types, null, the exact text of strings) is
 * printed, one line each, for the test to hold against the deviations
 * that checkpoint-api(7) lists; the rules of what is masked are here,
 * once: numbers (ids, times, sizes, counts) are compared by kind only,
 * the strings that name a place or are random (MASKED_STRINGS) by type
 * only, and Flink's error texts by their message (HANDLER_EXCEPTION).
 * A failure is compared whole: its "stack-trace" line by line, frames
 * (lines that begin with a tab) aside, and its "serialized-throwable" as
 * Flink's clients read it, an ObjectInputStream, at every level of its
 * chain of causes: the class and the message, and what Flink's
 * ExceptionUtils finds in it (finds).  Arrays are compared by
 * their first element, their lengths being history.
 *
 * Then the flink command line (CliFrontend, a process of its own each
 * time, FLINK_CONF_DIR as given) runs the same commands against both,
 * and every line of its stdout and stderr must be the same, frames
 * aside, with the address, the savepoint directory's paths, the times
 * of flink list and the checkpoint ids masked (CLI_MASKS); its exit
 * status too.  Each difference is a line "cli <command>: ...".
 *
 * Usage: FlinkReference APP-PORT JOBID JOBNAME CHECKPOINT-DIR
 *
 * With --serve instead of APP-PORT it compares nothing: it starts the
 * cluster and its job, prints "rest <URL>" once the job's tasks run,
 * and serves until it is killed, a JobManager for a test to talk to.
 */
public final class FlinkReference {
	private static final Set<String> MASKED_STRINGS = Set.of(
	    "external_path", "location", "request-id");
	/* Flink writes an error as its exception's class (a
	 * RestHandlerException, a NotFoundException), the message and the
	 * stack trace; the service the message alone (checkpoint-api(7),
	 * BEYOND FLINK).  Flink's errors are compared by that message. */
	private static final Pattern HANDLER_EXCEPTION = Pattern.compile(
	    "^org\\.apache\\.flink\\.[A-Za-z0-9_.$]*Exception: ");
	private static final ObjectMapper JSON = new ObjectMapper();
	private static final HttpClient HTTP = HttpClient.newBuilder()
	    .connectTimeout(Duration.ofSeconds(10)).build();
	private static final String T1 = "00000000000000000000000000000a01";
	private static final String T2 = "00000000000000000000000000000a02";
	private static final String T3 = "00000000000000000000000000000a03";
	private static final String T4 = "00000000000000000000000000000a04";
	private static final String S1 = "00000000000000000000000000000c01";
	private static final String S2 = "00000000000000000000000000000c02";
	private static final String S3 = "00000000000000000000000000000c03";
	private static final String S4 = "00000000000000000000000000000c04";
	private static final String S5 = "00000000000000000000000000000c05";
	private static final String S6 = "00000000000000000000000000000c06";
	private static final String T5 = "00000000000000000000000000000a05";
	private static final String NO_TRIGGER = "00000000000000000000000000000bad";
	private static final String UNKNOWN_JOB = "feed00000000000000000000000000ff";

	private static String flink, app, job, savepoints, savepointDir;
	private static final List<String> diffs = new ArrayList<>();
	/* What finds gives on the service's side of each failure, printed
	 * after the differences as "found <where>: <finds>", so that the
	 * test holds the answers themselves, not only their agreement. */
	private static final List<String> found = new ArrayList<>();

	/* The keyed state every checkpoint holds: a count per key. */
	public static final class Count extends RichMapFunction<Long, Long> {
		private transient ValueState<Long> seen;

		@Override
		public void open(OpenContext context) {
			seen = getRuntimeContext().getState(
			    new ValueStateDescriptor<>("seen", Types.LONG));
		}

		@Override
		public Long map(Long value) throws Exception {
			Long n = seen.value();
			seen.update(n == null ? 1 : n + 1);
			return value;
		}
	}

	public static void main(String[] args) throws Exception {
		app = "http://127.0.0.1:" + args[0];
		job = args[1];
		Configuration config = new Configuration();
		config.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
		config.set(RestOptions.ADDRESS, "127.0.0.1");
		config.set(RestOptions.PORT, 0);
		/* -Dstore.seconds=N: results forgotten N s after they end (a
		 * test of what a client does when Flink no longer knows). */
		if (System.getProperty("store.seconds") != null)
			config.set(RestOptions.ASYNC_OPERATION_STORE_DURATION,
			    Duration.ofSeconds(Long.getLong("store.seconds")));
		config.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY,
		    Path.of(args[3]).toUri().toString());
		savepoints = Path.of(args[3], "savepoints").toUri().toString();
		savepointDir = Path.of(args[3], "savepoints").toAbsolutePath()
		    .toString();
		MiniCluster cluster = new MiniCluster(
		    new MiniClusterConfiguration.Builder().setConfiguration(config)
		    .setNumTaskManagers(1).setNumSlotsPerTaskManager(2).build());
		cluster.start();
		flink = cluster.getRestAddress().get().toString()
		    .replaceAll("/$", "");
		if (args[0].equals("--serve")) {
			start(cluster, args[2]);
			System.out.println("rest " + flink);
			System.out.flush();
			Thread.sleep(Long.MAX_VALUE);
		}
		run(cluster, args[2]);
		for (String d : diffs)
			System.out.println(d);
		for (String d : found)
			System.out.println("found " + d);
		System.out.flush();
		/* The cluster's orderly shutdown of an unbounded job takes long
		 * and proves nothing here; the test removes its files. */
		Runtime.getRuntime().halt(0);
	}

	/* Submits the job and waits until every task of it runs. */
	private static void start(MiniCluster cluster, String name)
	    throws Exception {
		StreamExecutionEnvironment env =
		    StreamExecutionEnvironment.getExecutionEnvironment();
		/* Periodic checkpoints far apart: only the test's triggers. */
		env.enableCheckpointing(3_600_000L);
		env.setParallelism(1);
		env.fromSource(new DataGeneratorSource<>(i -> i, Long.MAX_VALUE,
		    RateLimiterStrategy.perSecond(20), Types.LONG),
		    WatermarkStrategy.noWatermarks(), "numbers")
		    .keyBy(v -> v % 4).map(new Count()).name("count")
		    .sinkTo(new DiscardingSink<>());
		StreamGraph stream = env.getStreamGraph(false);
		stream.setJobName(name);
		JobGraph graph = stream.getJobGraph();
		graph.setJobID(JobID.fromHexString(job));
		cluster.submitJob(graph).get(60, TimeUnit.SECONDS);
		long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (cluster.getJobStatus(graph.getJobID()).get() != JobStatus.RUNNING
		    || !tasksRunning()) {
			if (System.nanoTime() > end)
				throw new IllegalStateException("the job did not start");
			Thread.sleep(100);
		}
	}

	private static void run(MiniCluster cluster, String name) throws Exception {
		start(cluster, name);
		String base = "/jobs/" + job + "/checkpoints";
		same("trigger CONFIGURED", "POST", base,
		    "{\"checkpointType\":\"CONFIGURED\",\"triggerId\":\"" + T1 + "\"}");
		long[] ids = completed("status of a completed trigger", base + "/" + T1);
		same("trigger FULL", "POST", base,
		    "{\"checkpointType\":\"FULL\",\"triggerId\":\"" + T2 + "\"}");
		completed("status of a completed FULL trigger", base + "/" + T2);
		same("trigger INCREMENTAL", "POST", base,
		    "{\"checkpointType\":\"INCREMENTAL\",\"triggerId\":\"" + T3 + "\"}");
		same("status of an unknown trigger", "GET", base + "/" + NO_TRIGGER, null);
		same("trigger with a bad type", "POST", base,
		    "{\"checkpointType\":\"full\"}");
		same("trigger with a body that is not JSON", "POST", base, "{");
		same("trigger of a bad job id", "POST", "/jobs/xyz/checkpoints", "{}");
		same("DELETE of the trigger path", "DELETE", base, null);
		same("trigger under /v1", "POST", "/v1" + base,
		    "{\"triggerId\":\"" + T4 + "\"}");
		completed("status under /v1", "/v1" + base + "/" + T4);
		same("trigger of an unknown job", "POST",
		    "/jobs/" + UNKNOWN_JOB + "/checkpoints",
		    "{\"triggerId\":\"" + T1 + "\"}");
		completed("status of an unknown job's trigger",
		    "/jobs/" + UNKNOWN_JOB + "/checkpoints/" + T1);
		savepointFamily();
		cliFamily();
		same("statistics", "GET", base, null);
		same("configuration", "GET", base + "/config", null);
		/* Each side's own id of the same trigger. */
		compare("details", send(flink, "GET", base + "/details/" + ids[0], null),
		    send(app, "GET", base + "/details/" + ids[1], null));
		same("details of an unknown checkpoint", "GET",
		    base + "/details/987654", null);
		same("job status", "GET", "/jobs/" + job + "/status", null);
		same("status of an unknown job", "GET",
		    "/jobs/" + UNKNOWN_JOB + "/status", null);
		same("job overview", "GET", "/jobs/overview", null);
		same("jobs", "GET", "/jobs", null);
		/* After the details: Flink's cache of them is short. */
		failedFamily();
		failureCounted(base);
		same("statistics after a failed savepoint and stop", "GET", base,
		    null);
		/* Last: a stop ends the job. */
		String dir = "\"targetDirectory\":\"" + savepoints + "\"";
		same("stop", "POST", "/jobs/" + job + "/stop",
		    "{" + dir + ",\"triggerId\":\"" + S2 + "\"}");
		pair("status of a completed stop",
		    "/jobs/" + job + "/savepoints/" + S2);
		same("job status after the stop", "GET", "/jobs/" + job + "/status",
		    null);
		same("trigger of a stopped job", "POST", base,
		    "{\"triggerId\":\"" + T5 + "\"}");
		completed("status of a stopped job's trigger", base + "/" + T5);
		same("savepoint of a stopped job", "POST",
		    "/jobs/" + job + "/savepoints",
		    "{\"target-directory\":\"" + savepoints +
		    "\",\"triggerId\":\"" + S4 + "\"}");
		pair("status of a stopped job's savepoint",
		    "/jobs/" + job + "/savepoints/" + S4);
		cli("checkpoint of a stopped job", "checkpoint", job);
		cli("savepoint of a stopped job", "savepoint", job, savepoints);
	}

	/*
	 * Savepoints and their disposal: one taken and polled, the
	 * synchronous refusals, an unknown job's and trigger's, and the
	 * disposal of each side's own savepoint.
	 */
	private static void savepointFamily() throws Exception {
		String sp = "/jobs/" + job + "/savepoints";
		String dir = "\"target-directory\":\"" + savepoints + "\"";
		same("savepoint", "POST", sp,
		    "{" + dir + ",\"triggerId\":\"" + S1 + "\"}");
		Answer[] taken = pair("status of a completed savepoint",
		    sp + "/" + S1);
		same("savepoint without a directory", "POST", sp, "{}");
		same("savepoint with a bad formatType", "POST", sp,
		    "{" + dir + ",\"formatType\":\"PORTABLE\"}");
		same("savepoint of an unknown job", "POST",
		    "/jobs/" + UNKNOWN_JOB + "/savepoints",
		    "{" + dir + ",\"triggerId\":\"" + S1 + "\"}");
		pair("status of an unknown job's savepoint",
		    "/jobs/" + UNKNOWN_JOB + "/savepoints/" + S1);
		same("status of an unknown savepoint trigger", "GET",
		    sp + "/" + NO_TRIGGER, null);
		same("disposal without a path", "POST", "/savepoint-disposal", "{}");
		same("status of an unknown disposal", "GET",
		    "/savepoint-disposal/" + NO_TRIGGER, null);
		Answer[] nowhere = new Answer[2];
		for (int i = 0; i < 2; i++)
			nowhere[i] = send(i == 0 ? flink : app, "POST",
			    "/savepoint-disposal",
			    "{\"savepoint-path\":\"file:/nowhere\"}");
		compare("disposal of a path where no savepoint is", nowhere[0],
		    nowhere[1]);
		compare("status of the disposal of a path where no savepoint is",
		    poll(flink, "/savepoint-disposal/" + requestId(nowhere[0])),
		    poll(app, "/savepoint-disposal/" + requestId(nowhere[1])));
		same("stop of an unknown job", "POST",
		    "/jobs/" + UNKNOWN_JOB + "/stop",
		    "{\"targetDirectory\":\"" + savepoints +
		    "\",\"triggerId\":\"" + S3 + "\"}");
		pair("status of an unknown job's stop",
		    "/jobs/" + UNKNOWN_JOB + "/savepoints/" + S3);
		Answer f = send(flink, "POST", "/savepoint-disposal",
		    disposal(taken[0])), a = send(app, "POST",
		    "/savepoint-disposal", disposal(taken[1]));
		compare("disposal", f, a);
		compare("status of a completed disposal",
		    poll(flink, "/savepoint-disposal/" + requestId(f)),
		    poll(app, "/savepoint-disposal/" + requestId(a)));
	}

	/*
	 * A savepoint and a stop into a directory that cannot be made (a
	 * file named "blocked" is in its way): the MiniCluster's
	 * coordinator fails with an IOException, the service's command
	 * with its stderr, each inside the scheduler's CompletionException
	 * (SchedulerBase.triggerSavepoint, stopWithSavepoint).  What went
	 * wrong is each side's own words; the chain's classes are compared
	 * at every level, the JSON's, the serialized-throwable's and the
	 * flink command's (shape).  The job runs on after both.
	 */
	private static void failedFamily() throws Exception {
		Path blocked = Path.of(savepointDir, "blocked");
		Files.createDirectories(blocked.getParent());
		Files.writeString(blocked, "");
		String target = blocked.resolve("sp").toUri().toString();
		String sp = "/jobs/" + job + "/savepoints";
		same("savepoint into a directory that cannot be made", "POST", sp,
		    "{\"target-directory\":\"" + target + "\",\"triggerId\":\"" +
		    S5 + "\"}");
		shape("status of a savepoint that failed", sp + "/" + S5);
		same("stop into a directory that cannot be made", "POST",
		    "/jobs/" + job + "/stop", "{\"targetDirectory\":\"" + target +
		    "\",\"triggerId\":\"" + S6 + "\"}");
		shape("status of a stop that failed", sp + "/" + S6);
		same("job status after the failed stop", "GET",
		    "/jobs/" + job + "/status", null);
		cliShape("savepoint that failed", "savepoint", job, target);
	}

	/*
	 * Polls both sides' failure and compares its shape: the class of
	 * each level of the chain, as "stack-trace" prints it and as the
	 * serialized-throwable holds it, the words aside.
	 */
	private static void shape(String name, String path) throws Exception {
		Answer f = poll(flink, path), a = poll(app, path);
		System.err.println(name + ": flink " + f.status + " " + f.body);
		System.err.println(name + ": app   " + a.status + " " + a.body);
		JsonNode fc = JSON.readTree(f.body).path("operation")
		    .path("failure-cause"), ac = JSON.readTree(a.body)
		    .path("operation").path("failure-cause");
		String at = name + ": .operation.failure-cause";
		if (!fc.path("class").equals(ac.path("class")))
			diffs.add(at + ".class: " + fc.path("class") + " | " +
			    ac.path("class"));
		List<String> fl = classes(heads(fc.path("stack-trace").asText())),
		    al = classes(heads(ac.path("stack-trace").asText()));
		if (!fl.equals(al))
			diffs.add(at + ".stack-trace: classes " + fl + " | " + al);
		fl = classes(chain(fc.path("serialized-throwable").asText()));
		al = classes(chain(ac.path("serialized-throwable").asText()));
		if (!fl.equals(al))
			diffs.add(at + ".serialized-throwable: classes " + fl + " | " +
			    al);
		fl = finds(fc.path("serialized-throwable").asText());
		al = finds(ac.path("serialized-throwable").asText());
		if (!fl.equals(al))
			diffs.add(at + ".serialized-throwable: finds " + fl + " | " +
			    al);
		found.add(at + ".serialized-throwable: " + al);
		rewritten(at + ".serialized-throwable", ac.path("serialized-throwable")
		    .asText());
	}

	/* Each line's class: what it holds before its first ": ". */
	private static List<String> classes(List<String> lines) {
		List<String> out = new ArrayList<>();
		for (String l : lines)
			out.add(l.replaceFirst("^(Caused by: )?([^:]*):? .*$", "$1$2"));
		return out;
	}

	/*
	 * Runs a failing flink command against each side and compares its
	 * exit status, stdout, and stderr, its "Caused by: " lines by their
	 * class (the words aside), masked as cli's.
	 */
	private static void cliShape(String name, String action, String... args)
	    throws Exception {
		String at = "cli " + name + ": ";
		String[][] out = onBoth(at, action, args);
		if (!masked(out[0][1]).equals(masked(out[1][1])))
			diffs.add(at + "stdout " + masked(out[0][1]) + " | " +
			    masked(out[1][1]));
		List<String> f = causes(masked(out[0][2])),
		    a = causes(masked(out[1][2]));
		if (!f.equals(a))
			diffs.add(at + "stderr " + f + " | " + a);
	}

	/* A command's report: each "Caused by: " line as its class alone. */
	private static List<String> causes(List<String> lines) {
		List<String> out = new ArrayList<>();
		for (String l : lines)
			out.add(l.startsWith("Caused by: ") ?
			    classes(List.of(l)).get(0) : l);
		return out;
	}

	/* The flink command's failures and successes while the job runs. */
	private static void cliFamily() throws Exception {
		cli("checkpoint of an unknown job", "checkpoint", UNKNOWN_JOB);
		cli("savepoint of an unknown job", "savepoint", UNKNOWN_JOB,
		    savepoints);
		cli("stop of an unknown job", "stop", "-p", savepoints,
		    UNKNOWN_JOB);
		cli("disposal of a path where no savepoint is", "savepoint", "-d",
		    "file:/nowhere");
		cli("list", "list");
		cli("checkpoint", "checkpoint", job);
		cli("checkpoint -full", "checkpoint", "-full", job);
		cli("savepoint", "savepoint", job, savepoints);
	}

	/*
	 * Runs "flink ACTION -m <side> ARG..." against each side and adds
	 * every difference of exit status, stdout and stderr, masked.
	 */
	private static void cli(String name, String action, String... args)
	    throws Exception {
		String at = "cli " + name + ": ";
		String[][] out = onBoth(at, action, args);
		for (int k = 1; k <= 2; k++) {
			List<String> f = masked(out[0][k]), a = masked(out[1][k]);
			String what = k == 1 ? "stdout" : "stderr";
			for (int j = 0; j < Math.max(f.size(), a.size()); j++) {
				String fl = j < f.size() ? f.get(j) : "(none)";
				String al = j < a.size() ? a.get(j) : "(none)";
				if (!fl.equals(al)) {
					diffs.add(at + what + " line " + (j + 1) + ": \"" +
					    fl + "\" | \"" + al + "\"");
					break;
				}
			}
		}
	}

	/*
	 * Runs "flink ACTION -m <side> ARG..." against each side, adds a
	 * difference of exit status, and answers both runs.
	 */
	private static String[][] onBoth(String at, String action,
	    String... args) throws Exception {
		String[][] out = new String[2][];
		for (int i = 0; i < 2; i++)
			out[i] = flinkCommand(i == 0 ? flink : app, action, args);
		if (!out[0][0].equals(out[1][0]))
			diffs.add(at + "exit status " + out[0][0] + " | " + out[1][0]);
		return out;
	}

	/* Exit status, stdout and stderr of one run of the flink command. */
	private static String[] flinkCommand(String side, String action,
	    String... args) throws Exception {
		List<String> cmd = new ArrayList<>(List.of(
		    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
		    "-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"),
		    "-cp", System.getProperty("java.class.path"),
		    "org.apache.flink.client.cli.CliFrontend", action, "-m",
		    URI.create(side).getAuthority()));
		cmd.addAll(Arrays.asList(args));
		Path dir = Files.createTempDirectory("cli");
		Process p = new ProcessBuilder(cmd)
		    .redirectOutput(dir.resolve("out").toFile())
		    .redirectError(dir.resolve("err").toFile()).start();
		if (!p.waitFor(120, TimeUnit.SECONDS)) {
			p.destroyForcibly();
			p.waitFor();
		}
		String[] r = { String.valueOf(p.exitValue()),
		    Files.readString(dir.resolve("out"), StandardCharsets.UTF_8),
		    Files.readString(dir.resolve("err"), StandardCharsets.UTF_8) };
		System.err.println("cli " + action + " " + side + ": exit " + r[0] +
		    "\n" + r[1] + r[2]);
		return r;
	}

	/*
	 * What of a command's output must be the same: its lines, but
	 * frames, "... n more" and SLF4J's notices, with the masks applied.
	 */
	private static List<String> masked(String text) {
		String[][] masks = {
		    { Pattern.quote(URI.create(flink).getAuthority()), "<address>" },
		    { Pattern.quote(URI.create(app).getAuthority()), "<address>" },
		    { "file:/+" + Pattern.quote(savepointDir.substring(1)) +
		      "[^\\s']*", "<savepoint>" },
		    { "\\d{2}\\.\\d{2}\\.\\d{4} \\d{2}:\\d{2}:\\d{2}", "<time>" },
		    { "Checkpoint(\\(FULL\\))? \\d+ for job", "Checkpoint$1 <id> for job" },
		};
		List<String> out = new ArrayList<>();
		for (String l : text.split("\n")) {
			if (l.startsWith("\t") || l.startsWith("SLF4J"))
				continue;
			for (String[] m : masks)
				l = l.replaceAll(m[0], m[1]);
			out.add(l);
		}
		return out;
	}

	private static String disposal(Answer savepoint) throws Exception {
		String path = JSON.readTree(savepoint.body).path("operation")
		    .path("location").asText();
		return "{\"savepoint-path\":" + JSON.writeValueAsString(path) + "}";
	}

	private static String requestId(Answer a) throws Exception {
		return JSON.readTree(a.body).path("request-id").asText();
	}

	/* Polls both sides until COMPLETED, compares, answers both. */
	private static Answer[] pair(String name, String path) throws Exception {
		Answer f = poll(flink, path), a = poll(app, path);
		compare(name, f, a);
		return new Answer[] { f, a };
	}

	private static boolean tasksRunning() throws Exception {
		Answer a = send(flink, "GET", "/jobs/" + job, null);
		JsonNode v = JSON.readTree(a.body).path("vertices");
		for (JsonNode n : v)
			if (!"RUNNING".equals(n.path("status").asText()))
				return false;
		return v.size() > 0;
	}

	/* GETs a trigger's status on both sides until each has COMPLETED, then
	 * compares; answers each side's checkpoint id (-1 for none). */
	private static long[] completed(String name, String path) throws Exception {
		Answer f = poll(flink, path), a = poll(app, path);
		compare(name, f, a);
		return new long[] { id(f), id(a) };
	}

	private static long id(Answer a) throws Exception {
		return JSON.readTree(a.body).path("operation")
		    .path("checkpointId").asLong(-1);
	}

	/*
	 * Until Flink's statistics at path hold the last failure, at most
	 * 30 s: they are a snapshot cached for a while, and a loaded machine
	 * reads them again before the cache has let the old one go.
	 */
	private static void failureCounted(String path) throws Exception {
		long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		do {
			Answer a = send(flink, "GET", path, null);
			if (JSON.readTree(a.body).path("history").path(0)
			    .path("status").asText().equals("FAILED"))
				return;
			Thread.sleep(200);
		} while (System.nanoTime() < end);
	}

	private static Answer poll(String side, String path) throws Exception {
		long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		Answer a;
		do {
			a = send(side, "GET", path, null);
			if (a.body.contains("\"COMPLETED\""))
				break;
			Thread.sleep(100);
		} while (System.nanoTime() < end);
		return a;
	}

	private static void same(String name, String method, String path,
	    String body) throws Exception {
		compare(name, send(flink, method, path, body),
		    send(app, method, path, body));
	}

	private static final class Answer {
		int status;
		String type;
		String body;
	}

	private static Answer send(String side, String method, String path,
	    String body) throws Exception {
		HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(side + path))
		    .timeout(Duration.ofSeconds(30));
		if (body != null)
			r.header("Content-Type", "application/json");
		r.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
		    : HttpRequest.BodyPublishers.ofString(body));
		HttpResponse<String> got = HTTP.send(r.build(),
		    HttpResponse.BodyHandlers.ofString());
		Answer a = new Answer();
		a.status = got.statusCode();
		a.type = got.headers().firstValue("Content-Type").orElse("-");
		a.body = got.body();
		return a;
	}

	private static void compare(String name, Answer f, Answer a) {
		/* Both answers, for the test's log. */
		System.err.println(name + ": flink " + f.status + " " + f.body);
		System.err.println(name + ": app   " + a.status + " " + a.body);
		if (f.status != a.status)
			diffs.add(name + ": status " + f.status + " | " + a.status);
		if (!f.type.equals(a.type))
			diffs.add(name + ": Content-Type " + f.type + " | " + a.type);
		JsonNode fj, aj;
		try {
			fj = JSON.readTree(f.body);
			aj = JSON.readTree(a.body);
		} catch (Exception e) {
			diffs.add(name + ": not JSON: " + f.body + " | " + a.body);
			return;
		}
		node(name, "", "", fj, aj);
	}

	private static String kind(JsonNode n) {
		if (n.isIntegralNumber())
			return "integer";
		if (n.isNumber())
			return "number";
		return n.getNodeType().toString().toLowerCase();
	}

	private static void node(String name, String path, String key,
	    JsonNode f, JsonNode a) {
		String at = name + ": " + (path.isEmpty() ? "(top)" : path);
		if (!kind(f).equals(kind(a))) {
			diffs.add(at + ": " + kind(f) + " | " + kind(a));
			return;
		}
		if (f.isObject()) {
			List<String> fk = keys(f), ak = keys(a);
			if (!fk.equals(ak))
				diffs.add(at + ": keys " + fk + " | " + ak);
			for (String k : fk)
				if (a.has(k))
					node(name, path + "." + k, k, f.get(k), a.get(k));
		} else if (f.isArray()) {
			if (f.size() > 0 && a.size() > 0)
				node(name, path + "[0]", key, f.get(0), a.get(0));
		} else if (f.isTextual() && key.equals("stack-trace")) {
			List<String> fl = heads(f.asText()), al = heads(a.asText());
			if (!fl.equals(al))
				diffs.add(at + ": lines " + fl + " | " + al);
		} else if (f.isTextual() && key.equals("serialized-throwable")) {
			List<String> fl = chain(f.asText()), al = chain(a.asText());
			if (!fl.equals(al))
				diffs.add(at + ": chain " + fl + " | " + al);
			fl = finds(f.asText());
			al = finds(a.asText());
			if (!fl.equals(al))
				diffs.add(at + ": finds " + fl + " | " + al);
			found.add(at + ": " + al);
			rewritten(at, a.asText());
		} else if (f.isTextual() && key.equals("errors")) {
			String m = HANDLER_EXCEPTION.matcher(
			    f.asText().split("\n", 2)[0]).replaceFirst("");
			if (!m.equals(a.asText()))
				diffs.add(at + ": \"" + m + "\" | \"" + a.asText() + "\"");
		} else if (f.isTextual() && !MASKED_STRINGS.contains(key)) {
			if (!f.asText().equals(a.asText()))
				diffs.add(at + ": \"" + f.asText() + "\" | \"" +
				    a.asText() + "\"");
		} else if (f.isBoolean() && f.asBoolean() != a.asBoolean()) {
			diffs.add(at + ": " + f + " | " + a);
		}
	}

	/* A stack trace's lines but its frames (and "\t... n more"). */
	private static List<String> heads(String trace) {
		List<String> out = new ArrayList<>();
		for (String l : trace.split("\n"))
			if (!l.startsWith("\t") && !l.isEmpty())
				out.add(l);
		return out;
	}

	/*
	 * The chain a serialized-throwable holds, as Flink's clients read
	 * it (SerializedThrowableDeserializer: base64, then
	 * ObjectInputStream): "class: message" of each level, outermost
	 * first.
	 */
	private static List<String> chain(String base64) {
		List<String> out = new ArrayList<>();
		try (ObjectInputStream in = new ObjectInputStream(
		    new ByteArrayInputStream(Base64.getDecoder().decode(base64)))) {
			Throwable t = (Throwable) in.readObject();
			for (; t != null && out.size() < 64; t = t.getCause())
				out.add((t instanceof SerializedThrowable ?
				    ((SerializedThrowable) t).getOriginalErrorClassName() :
				    t.getClass().getName()) + ": " + t.getMessage());
		} catch (Exception e) {
			out.add("unreadable: " + e);
		}
		return out;
	}

	/* A serialized-throwable as Flink's clients read it. */
	private static Throwable decode(String base64) throws Exception {
		try (ObjectInputStream in = new ObjectInputStream(
		    new ByteArrayInputStream(Base64.getDecoder().decode(base64)))) {
			return (Throwable) in.readObject();
		}
	}

	/* The classes client code looks for in a failure's chain. */
	private static final List<Class<? extends Throwable>> FIND = List.of(
	    FlinkJobNotFoundException.class, CheckpointException.class,
	    FlinkException.class, CompletionException.class);

	/*
	 * What Flink's ExceptionUtils finds in the chain, for each class of
	 * FIND: findThrowable (the objects' own classes), then
	 * findThrowableSerializedAware (SerializedThrowable.deserializeError
	 * at each such level, which gives the original exception back from
	 * serializedException).  The latter never returns where
	 * deserializeError gives back the same object (a SerializedThrowable
	 * without serializedException, or one whose class the reader lacks):
	 * "never", said instead of calling it.
	 */
	private static List<String> finds(String base64) {
		List<String> out = new ArrayList<>();
		ClassLoader cl = FlinkReference.class.getClassLoader();
		Throwable t;
		try {
			t = decode(base64);
		} catch (Exception e) {
			out.add("unreadable: " + e);
			return out;
		}
		for (Class<? extends Throwable> c : FIND)
			out.add(c.getSimpleName() + " " +
			    ExceptionUtils.findThrowable(t, c).isPresent() + "/" +
			    (loops(t, c, cl) ? "never" : String.valueOf(
			    ExceptionUtils.findThrowableSerializedAware(t, c, cl)
			    .isPresent())));
		return out;
	}

	/*
	 * The service's originals are what a JDK writes: at each level whose
	 * serializedException Flink's deserializeError reads, the object it
	 * gives, written by an ObjectOutputStream, must be the same bytes;
	 * a difference is a line.
	 */
	private static void rewritten(String at, String base64) {
		ClassLoader cl = FlinkReference.class.getClassLoader();
		Throwable t;
		try {
			t = decode(base64);
		} catch (Exception e) {
			return; /* chain() has said so */
		}
		for (int n = 0; t instanceof SerializedThrowable && n < 64;
		    t = t.getCause(), n++) {
			SerializedThrowable s = (SerializedThrowable) t;
			Throwable o = s.deserializeError(cl);
			if (o == s)
				continue;
			java.io.ByteArrayOutputStream out =
			    new java.io.ByteArrayOutputStream();
			try (java.io.ObjectOutputStream w =
			    new java.io.ObjectOutputStream(out)) {
				w.writeObject(o);
			} catch (Exception e) {
				diffs.add(at + ": level " + n + " not written: " + e);
				continue;
			}
			if (!Arrays.equals(out.toByteArray(),
			    s.getSerializedException()))
				diffs.add(at + ": level " + n +
				    ": serializedException is not what a JDK writes");
		}
	}

	/* Whether findThrowableSerializedAware(t, c) would loop forever. */
	private static boolean loops(Throwable t, Class<?> c, ClassLoader cl) {
		for (int n = 0; t != null && n < 64; n++) {
			if (c.isInstance(t))
				return false;
			if (t instanceof SerializedThrowable) {
				Throwable d = ((SerializedThrowable) t).deserializeError(cl);
				if (d == t)
					return true;
				t = d;
			} else
				t = t.getCause();
		}
		return false;
	}

	private static List<String> keys(JsonNode n) {
		List<String> k = new ArrayList<>();
		for (Iterator<String> i = n.fieldNames(); i.hasNext();)
			k.add(i.next());
		return k;
	}
}
