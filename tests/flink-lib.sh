# Sourced by the tests that run Flink's own code (t7000, t7110): builds
# tests/flink once per test with Maven, resolving flink-clients from Maven
# Central (FLINK_VERSION picks another release, FLINK_PROFILE=flink2
# Flink 2; a Flink that cannot be resolved fails the test), and gives
# B (the build), FV (the flink-clients version resolved), CP (the class
# path) and flink ARG..., Flink's command line as bin/flink runs it.

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

# lines ARG...: the ARGs, one a line: an expected output.
lines() {
	printf '%s\n' "$@"
}
