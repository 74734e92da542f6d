# Shared by t7000 and t7020 (sourced after lib.sh): what Flink's clients
# need, built once: tests/flink with Maven (FLINK_VERSION, FLINK_PROFILE),
# its classpath in CP, and flink, Flink's command line.

for c in mvn java sqlite3 curl lighttpd apache2 nginx spawn-fcgi; do
	command -v "$c" >/dev/null 2>&1 || bail "$c is missing"
done
if [ "$(id -u)" -eq 0 ]; then
	command -v setpriv >/dev/null 2>&1 || bail "setpriv (util-linux) is missing"
fi
unset CHECKPOINT_STORE_DURATION CHECKPOINT_MAX_BODY CHECKPOINT_CORS_ORIGIN \
    CHECKPOINT_REJECT_UNKNOWN_JOBS CHECKPOINT_BUSY_TIMEOUT CHECKPOINT_SYNC

# --- the Java side, built once --------------------------------------------------

B=$T/flink-build
set -- -q -f "$top_srcdir/tests/flink/pom.xml" -Dchecks.out="$B" \
    -Dmdep.outputFile="$B/classpath"
[ -n "${FLINK_VERSION:-}" ] && set -- "$@" -Dflink.version="$FLINK_VERSION"
[ -n "${FLINK_PROFILE:-}" ] && set -- "$@" -P"$FLINK_PROFILE"
mvn "$@" compile dependency:build-classpath > "$T/mvn.log" 2>&1
RC=$?
if [ "$RC" -ne 0 ]; then
	sed 's/^/# /' "$T/mvn.log" | tail -n 20
	bail "mvn could not build tests/flink (is Maven Central reachable?)"
fi
FV=$(tr ':' '\n' < "$B/classpath" |
    sed -n 's|.*/flink-clients-\([^/]*\)\.jar$|\1|p')
ok 0 "mvn: flink-clients $FV resolved, tests/flink built"
# The job lists are Flink 1.20's JobDetails (checkpoint-api(7)): Flink 2
# requires a "pending-operators" field there that 1.20's client refuses
# (it fails on unknown fields), so one answer cannot serve both.
case $FV in
1.*) LISTS=yes LIST_CALL=list ;;
*) LISTS= LIST_CALL= ;;
esac
CP=$B/classes:$(cat "$B/classpath")

# The flink command's configuration: retries closer together than
# Flink's 3 s, so that a broken answer fails fast; the rest its defaults.
# Flink 1.20 reads config.yaml first (flink-conf.yaml is its legacy
# name), 2.x only config.yaml.
mkdir -p "$T/flink-conf"
echo 'rest.retry.delay: 100 ms' > "$T/flink-conf/config.yaml"

# flink ARG...: Flink's command line, as bin/flink runs it; sets OUT, ERR
# and RC.
flink() {
	FLINK_CONF_DIR=$T/flink-conf java -cp "$CP" \
	    org.apache.flink.client.cli.CliFrontend "$@" \
	    > "$T/flink.out" 2> "$T/flink.err"
	RC=$?
	OUT=$(cat "$T/flink.out")
	ERR=$(grep -v '^SLF4J: ' "$T/flink.err")
}

# lines ARG...: the arguments, one per line (a command's output).
lines() {
	printf '%s\n' "$@"
}
