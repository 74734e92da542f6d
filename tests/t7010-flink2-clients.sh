#!/bin/sh
# t7000 with Flink 2.x's client, command line and MiniCluster
# (FLINK_PROFILE=flink2 in tests/flink/pom.xml): every trigger, failure
# and checkpoint check the same, the comparison with a 2.x JobManager
# the same list of differences, and the one known difference besides
# checked as the deviation it is, not skipped: 2.x's job overview has
# three keys more (pending-operators among them), so 2.x's listJobs and
# flink list fail on the 1.20 JobDetails the service answers.
FLINK_PROFILE=flink2
. "$(dirname "$0")/t7000-flink-clients.sh"
