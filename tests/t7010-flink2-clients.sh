#!/bin/sh
# t7000 with Flink 2.x's client and command line (FLINK_PROFILE=flink2 in
# tests/flink/pom.xml): every trigger, failure and checkpoint check the
# same, and the two known differences checked as the deviations they
# are, not skipped: 2.x's listJobs and flink list fail on 1.20's
# JobDetails for want of pending-operators, and FlinkReference's job
# does not compile against 2.x for the sink API it removed (addSink,
# DiscardingSink), which is why the MiniCluster comparison is 1.20's.
FLINK_PROFILE=flink2
. "$(dirname "$0")/t7000-flink-clients.sh"
