#!/bin/sh
# t7000 with Flink 2.x's client, command line and MiniCluster
# (FLINK_PROFILE=flink2 in tests/flink/pom.xml): every trigger, failure,
# job list and checkpoint check the same, and the comparison with a 2.x
# JobManager the same list of differences but the job lists', which are
# 2.x's own shape (GET /jobs/overview in checkpoint-api(7)).
FLINK_PROFILE=flink2
. "$(dirname "$0")/t7000-flink-clients.sh"
