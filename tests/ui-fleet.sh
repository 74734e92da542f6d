# Sourced by tests/t3800-ui-browser.sh: a realistic fleet of 12 jobs in a
# database of its own, for the page's health checks (tests/browser/ui.mjs).
# Every job's checkpoints are recorded as the runner leaves them (claimed,
# then completed), so that the statistics count them; times are relative
# to now.  Names say what each job shows:
#   ok-1 .. ok-5   healthy: one checkpoint a minute, the last 30 s ago
#   payments       0 completed, 11 failed: a Python traceback, its cause
#                  last; its action fails so again (a one-pass runner)
#   ledger         10 completed, two savepoints (ids 11 and 12), then its
#                  last 5 checkpoints expired
#   reports        stale: scheduled every 2 min, one a minute until 30
#                  min ago, none since (the schedule's slot just fired, so
#                  that no runner fires it during the test)
#   queued         healthy, and a trigger posted 70 s ago that no runner took
#   waited         its last checkpoint waited 76 s for a runner, ran 249 ms
#   archive        SUSPENDED
#   fresh          RUNNING, never checkpointed
# fleet_runner_pass MS_AGO sets when the runner last recorded a pass.
# shellcheck disable=SC2016

FLEET_PREFIX=00000000000000000000000000f1ee
fleet_job() { printf '%s%02d' "$FLEET_PREFIX" "$1"; }
FLEET_FAIL=$(fleet_job 6) FLEET_EXPIRED=$(fleet_job 7) FLEET_STALE=$(fleet_job 8)
FLEET_QUEUE=$(fleet_job 9) FLEET_WAITED=$(fleet_job 10)

# fleet_ckpts JOB FIRST LAST START_MS GAP_MS WAIT_MS RUN_MS TRACE: checkpoints
# FIRST..LAST of JOB, one every GAP_MS from START_MS, each claimed WAIT_MS
# after its trigger and ended RUN_MS after its claim; TRACE (an SQL
# expression) fails them, NULL completes them at a location.
fleet_ckpts() {
	echo "WITH RECURSIVE n(i) AS (SELECT $2 UNION ALL SELECT i + 1 FROM n
	    WHERE i < $3)
	INSERT INTO triggers (job_id, trigger_id, requested_type,
	    checkpoint_type, checkpoint_id, created_ms, claimed_by, claimed_ms)
	SELECT '$1', substr('$1', 31, 2) || printf('%030x', i), 'CONFIGURED',
	    'FULL', i, $4 + (i - $2) * $5, 'runner', $4 + (i - $2) * $5 + $6
	    FROM n;
	UPDATE triggers SET status = 'COMPLETED',
	    completed_ms = claimed_ms + $7,
	    location = CASE WHEN $8 IS NULL THEN
	        's3://checkpoints-prod-eu-west-1/flink/$1/chk-' ||
	        checkpoint_id END,
	    failure_class = CASE WHEN $8 IS NOT NULL THEN
	        'org.apache.flink.runtime.checkpoint.CheckpointException' END,
	    failure_trace = $8,
	    failure_throwable = CASE WHEN $8 IS NOT NULL THEN
	        'placeholder' END
	    WHERE job_id = '$1' AND checkpoint_id BETWEEN $2 AND $3;
	INSERT OR REPLACE INTO checkpoint_counters VALUES ('$1', $3);"
}

fleet_fixture() {
	_now=$(($(date +%s) * 1000))
	_min=60000
	_ckx="'org.apache.flink.runtime.checkpoint.CheckpointException: '"
	_nl="char(10)"
	_py="$_ckx || 'Checkpoint was declined. Traceback (most recent call last):' || $_nl ||
	    '  File \"/opt/ckpt/snapshot.py\", line 41, in <module>' || $_nl ||
	    '    main()' || $_nl ||
	    '  File \"/opt/ckpt/snapshot.py\", line 37, in main' || $_nl ||
	    '    upload(state_dir, bucket)' || $_nl ||
	    'OSError: [Errno 122] Disk quota exceeded: ''/var/lib/ckpt/payments''' ||
	    $_nl || char(9) || 'at checkpoint action (it exited with status 1)' || $_nl"
	_exp="$_ckx || 'Checkpoint expired before completing.' || $_nl || char(9) ||
	    'at checkpoint action (killed after its timeout of 600 s)' || $_nl"
	{
		echo "BEGIN;"
		for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
			case $i in
			[1-5]) name=ok-$i state=RUNNING ;;
			6) name=payments state=RUNNING ;;
			7) name=ledger state=RUNNING ;;
			8) name=reports state=RUNNING ;;
			9) name=queued state=RUNNING ;;
			10) name=waited state=RUNNING ;;
			11) name=archive state=SUSPENDED ;;
			12) name=fresh state=RUNNING ;;
			esac
			echo "INSERT INTO jobs (job_id, name, state, created_ms,
			    updated_ms) VALUES ('$(fleet_job $i)', '$name', '$state',
			    $_now - 86400000, $_now - 86400000);"
		done
		for i in 1 2 3 4 5 9; do
			fleet_ckpts "$(fleet_job $i)" 1 10 \
			    $((_now - 30000 - 9 * _min - 200 - i)) $_min 150 $((40 + 7 * i)) NULL
		done
		fleet_ckpts "$FLEET_FAIL" 1 11 $((_now - 11 * _min)) $_min 200 900 "$_py"
		fleet_ckpts "$FLEET_EXPIRED" 1 10 $((_now - 20 * _min)) $_min 100 80 NULL
		# A savepoint takes the next id as a checkpoint does: these
		# are no failures of the streak that follows.
		for i in 11 12; do
			echo "INSERT INTO savepoints (job_id, trigger_id, kind,
			    target_directory, format_type, status, checkpoint_id,
			    location, created_ms, claimed_by, claimed_ms,
			    completed_ms) VALUES ('$FLEET_EXPIRED',
			    '${FLEET_EXPIRED%????}5a$i', 'SAVEPOINT', 's3://sp',
			    'CANONICAL', 'COMPLETED', $i, 's3://sp/sp-$i',
			    $_now - 11 * $_min, 'runner', $_now - 11 * $_min,
			    $_now - 11 * $_min + 500);"
		done
		fleet_ckpts "$FLEET_EXPIRED" 13 17 $((_now - 10 * _min)) $((2 * _min)) 100 \
		    $((_min - 1000)) "$_exp"
		fleet_ckpts "$FLEET_STALE" 1 10 $((_now - 40 * _min)) $_min 120 60 NULL
		echo "INSERT INTO schedules (job_id, kind, every_ms, since_ms,
		    last_slot_ms, set_by) VALUES ('$FLEET_STALE', 'CHECKPOINT',
		    120000, $_now - 86400000, $_now, 'root');"
		fleet_ckpts "$FLEET_WAITED" 1 9 $((_now - 12 * _min)) $_min 90 70 NULL
		fleet_ckpts "$FLEET_WAITED" 10 10 $((_now - 3 * _min)) $_min 76000 249 NULL
		# What the button shows when the action fails as a Python
		# script does: the cause comes last.
		printf "UPDATE jobs SET command = '%s' WHERE job_id = '%s';\n" \
		    'printf "Traceback (most recent call last):\n  File \"snapshot.py\", line 41, in <module>\nOSError: [Errno 122] Disk quota exceeded\n" >&2; exit 1' \
		    "$FLEET_FAIL"
		echo "INSERT INTO triggers (job_id, trigger_id, requested_type,
		    created_ms) VALUES ('$FLEET_QUEUE', '${FLEET_QUEUE%????}ffff',
		    'FULL', $_now - 70000);
		COMMIT;"
	} | sqlite3 -bail "$1" || bail "the fleet's fixture"
}

# fleet_runner_pass DB MS_AGO
fleet_runner_pass() {
	sqlite3 "$1" "UPDATE service_metrics SET
	    pass_ms = $(($(date +%s) * 1000 - $2)) WHERE id = 1" ||
	    bail "the runner's last pass"
}
