# Sourced by tests/http-checks.sh, through whichever web server it runs:
# the read-only answers of checkpoint-api(7), "GET /jobs/:jobid/checkpoints"
# and the sections after it, byte for byte: GET /jobs/:jobid/checkpoints,
# .../details/:id, .../config, /jobs and /jobs/overview, with the routing rules of the
# trigger pair (/v1, a trailing slash, the query ignored, 405 with Allow,
# the CORS header that check compares) and Flink's 400 and 404 texts.
# The store is filled by hand with SQL (sqlite3 or psql: http-checks.sh's
# sql), as the runner would leave it, once the app has made the database
# (as RUN_USER).

JS=5f1e0c3b2a1d4e5f6a7b8c9d0e1f2a3b
JF=11111111111111111111111111111111
JN=22222222222222222222222222222222
CKX=org.apache.flink.runtime.checkpoint.CheckpointException

# stats_fixture: two jobs, JS with five triggers as the runner leaves them:
# id 1 failed (expired), id 2 completed with a location, id 3 completed
# without one, id 4 running (claimed), and a failure that got no id (the
# job was not RUNNING then: job not found, which no count of the job's
# includes).  JN is registered without any trigger.  The
# failures' serialized-throwable is a placeholder: these endpoints never
# read it (t4200 checks the real ones).
stats_fixture() {
	sql "INSERT INTO jobs (job_id, name, state, timeout_s, created_ms,
	    updated_ms) VALUES
	    ('$JS', 'orders', 'RUNNING', 300, 1699999990000, 1699999995000),
	    ('$JF', 'etl \"nightly\"', 'FINISHED', 600, 1600000000000,
	     1600000100000),
	    ('$JN', 'idle', 'RUNNING', 600, 1600000000000, 1600000000000);
	INSERT INTO triggers (job_id, trigger_id, requested_type, created_ms)
	VALUES ('$JS', '${JS%????}0001', 'FULL', 1699999999000),
	    ('$JS', '${JS%????}0002', 'FULL', 1700000059000),
	    ('$JS', '${JS%????}0003', 'FULL', 1700000099000),
	    ('$JS', '${JS%????}0004', 'FULL', 1700000119000),
	    ('$JS', '${JS%????}0005', 'FULL', 1700000130000);
	UPDATE triggers SET status = 'COMPLETED', claimed_by = 'runner',
	    claimed_ms = 1700000000000, checkpoint_id = 1,
	    checkpoint_type = 'FULL', completed_ms = 1700000600001,
	    failure_class = '$CKX',
	    failure_trace = '$CKX: Checkpoint expired before completing.$NL$TAB'
	        || 'at checkpoint action (killed after its timeout of 600 s)$NL',
	    failure_throwable = 'placeholder'
	    WHERE trigger_id = '${JS%????}0001';
	UPDATE triggers SET status = 'COMPLETED', claimed_by = 'runner',
	    claimed_ms = 1700000060000, checkpoint_id = 2,
	    checkpoint_type = 'FULL', completed_ms = 1700000060080,
	    location = 'file:/ckpt/$JS/chk-2'
	    WHERE trigger_id = '${JS%????}0002';
	UPDATE triggers SET status = 'COMPLETED', checkpoint_id = 3,
	    checkpoint_type = 'FULL', completed_ms = 1700000099035
	    WHERE trigger_id = '${JS%????}0003';
	UPDATE triggers SET claimed_by = 'runner', claimed_ms = 1700000120000,
	    checkpoint_id = 4, checkpoint_type = 'FULL'
	    WHERE trigger_id = '${JS%????}0004';
	UPDATE triggers SET status = 'COMPLETED', completed_ms = 1700000130001,
	    failure_class = 'java.util.concurrent.CompletionException',
	    failure_trace = 'java.util.concurrent.CompletionException: x',
	    failure_throwable = 'placeholder'
	    WHERE trigger_id = '${JS%????}0005';"
}

# The checkpoints of the fixture, as Flink's CheckpointStatistics.
MID='"checkpointed_size":0,"state_size":0,"end_to_end_duration"'
TAIL='"alignment_buffered":0,"processed_data":0,"persisted_data":0,"num_subtasks":0,"num_acknowledged_subtasks":0,"checkpoint_type":"CHECKPOINT","tasks":{}'
C1='{"className":"failed","id":1,"status":"FAILED","is_savepoint":false,"savepointFormat":null,"trigger_timestamp":1700000000000,"latest_ack_timestamp":-1,'$MID':600001,'$TAIL',"failure_timestamp":1700000600001,"failure_message":"Checkpoint expired before completing."}'
C2='{"className":"completed","id":2,"status":"COMPLETED","is_savepoint":false,"savepointFormat":null,"trigger_timestamp":1700000060000,"latest_ack_timestamp":1700000060080,'$MID':80,'$TAIL',"external_path":"file:/ckpt/'$JS'/chk-2","discarded":false}'
C3='{"className":"completed","id":3,"status":"COMPLETED","is_savepoint":false,"savepointFormat":null,"trigger_timestamp":1700000099000,"latest_ack_timestamp":1700000099035,'$MID':35,'$TAIL',"external_path":"<checkpoint-not-externally-addressable>","discarded":false}'
C4='{"className":"in_progress","id":4,"status":"IN_PROGRESS","is_savepoint":false,"savepointFormat":null,"trigger_timestamp":1700000120000,"latest_ack_timestamp":-1,'$MID':-1,'$TAIL'}'
ZERO='{"min":0,"max":0,"avg":0,"p50":0.0,"p90":0.0,"p95":0.0,"p99":0.0,"p999":0.0}'
NAN='{"min":0,"max":0,"avg":0,"p50":"NaN","p90":"NaN","p95":"NaN","p99":"NaN","p999":"NaN"}'
# durations 35 and 80: avg 115 / 2 = 57 (integer), p50 at pos 1.5: 57.5.
E2E='{"min":35,"max":80,"avg":57,"p50":57.5,"p90":80.0,"p95":80.0,"p99":80.0,"p999":80.0}'
STATS_HEAD='{"counts":{"restored":0,"total":4,"in_progress":1,"completed":2,"failed":1},"summary":{"checkpointed_size":'$ZERO',"state_size":'$ZERO',"end_to_end_duration":'$E2E',"alignment_buffered":'$ZERO',"processed_data":'$ZERO',"persisted_data":'$ZERO'},"latest":{"completed":'$C3',"savepoint":null,"failed":'$C1',"restored":null},"history":['
STATS="$STATS_HEAD$C4,$C3,$C2,$C1]}"
# A registered job without a checkpoint: Flink's "no data" (NaN strings).
EMPTY='{"counts":{"restored":0,"total":0,"in_progress":0,"completed":0,"failed":0},"summary":{"checkpointed_size":'$NAN',"state_size":'$NAN',"end_to_end_duration":'$NAN',"alignment_buffered":'$ZERO',"processed_data":'$NAN',"persisted_data":'$NAN'},"latest":{"completed":null,"savepoint":null,"failed":null,"restored":null},"history":[]}'
CONFIG='{"mode":"exactly_once","interval":9223372036854775807,"timeout":300000,"min_pause":0,"max_concurrent":1,"externalization":{"enabled":false,"delete_on_cancellation":true},"state_backend":"HashMapStateBackend","checkpoint_storage":"JobManagerCheckpointStorage","unaligned_checkpoints":false,"tolerable_failed_checkpoints":0,"aligned_checkpoint_timeout":0,"checkpoints_after_tasks_finish":true,"state_changelog_enabled":false,"changelog_periodic_materialization_interval":600000,"changelog_storage":"memory"}'
TASKS='"tasks":{"running":0,"canceling":0,"canceled":0,"total":0,"created":0,"scheduled":0,"deploying":0,"reconciling":0,"finished":0,"initializing":0,"failed":0}'
KIND='"jobType":"STREAMING","schedulerType":"Default",'
PENDING='"pending-operators":0'
JOBS='{"jobs":[{"id":"'$JF'","status":"FINISHED"},{"id":"'$JN'","status":"RUNNING"},{"id":"'$JS'","status":"RUNNING"}]}'
no_job() {
	printf '{"errors":["Job %s not found"]}' "$1"
}
no_ckpt() {
	printf '{"errors":["Could not find checkpointing statistics for checkpoint %s."]}' "$1"
}

# === statistics ===============================================================
phase stats
http GET /jobs
check "GET /jobs, none registered" 200 '{"jobs":[]}'
http GET /jobs/overview
check "GET /jobs/overview, none registered" 200 '{"jobs":[]}'
http GET /jobs/$JS/checkpoints
check "statistics of an unregistered job: Flink's 404" 404 "$(no_job $JS)"
stats_fixture

http GET /jobs/$JS/checkpoints
check "statistics: counts, summary, latest, history newest first" 200 "$STATS"
http GET /v1/jobs/$(echo $JS | tr a-f A-F)/checkpoints/
check "statistics under /v1, an uppercase jobid, a trailing slash" 200 "$STATS"
http GET "/jobs/$JS/checkpoints?a=1&history=1"
check "statistics: the query string is ignored" 200 "$STATS"
http GET /jobs/$JN/checkpoints
check "statistics of a job without checkpoints: NaN quantiles, nulls" 200 "$EMPTY"
http GET /jobs/$JB/checkpoints
check "statistics of an unknown job: Flink's 404" 404 "$(no_job $JB)"
http GET /jobs/xyz/checkpoints
check "statistics, bad jobid: 400" 400 "$(bad_param jobid xyz)"

http GET /jobs/$JS/checkpoints/details/2
check "details of a completed checkpoint" 200 "$C2"
http GET /jobs/$JS/checkpoints/details/3
check "details of one with no location: Flink's sentinel" 200 "$C3"
http GET /jobs/$JS/checkpoints/details/1
check "details of a failed checkpoint" 200 "$C1"
http GET /v1/jobs/$JS/checkpoints/details/4/
check "details of a running checkpoint, /v1, trailing slash" 200 "$C4"
http GET "/jobs/$JS/checkpoints/details/+0002?x=1"
check "details: the id read as Long.parseLong does; query ignored" 200 "$C2"
http GET /jobs/$JS/checkpoints/details/5
check "details of an id never given" 404 "$(no_ckpt 5)"
http GET /jobs/$JS/checkpoints/details/-1
check "details of a negative id" 404 "$(no_ckpt -1)"
http GET /jobs/$JS/checkpoints/details/0
check "details of id 0" 404 "$(no_ckpt 0)"
http GET /jobs/$JS/checkpoints/details/abc
check "details, an id that is not a number: 400" 400 "$(bad_param checkpointid abc)"
http GET /jobs/$JS/checkpoints/details/9223372036854775808
check "details, an id past Long.MAX_VALUE: 400" 400 \
    "$(bad_param checkpointid 9223372036854775808)"
http GET /jobs/xyz/checkpoints/details/abc
check "details, both bad: jobid reported" 400 "$(bad_param jobid xyz)"
http GET /jobs/$JB/checkpoints/details/2
check "details of an unknown job: Flink's 404" 404 "$(no_job $JB)"
http GET /jobs/$JS/checkpoints/details
check "details without an id is a trigger id, as in Flink" 400 \
    "$(bad_param triggerid details)"

http GET /jobs/$JS/checkpoints/config
check "config: no periodic interval, the job's timeout" 200 "$CONFIG"
http GET "/v1/jobs/$JS/checkpoints/config/?x"
check "config under /v1, trailing slash, query" 200 "$CONFIG"
http GET /jobs/$JB/checkpoints/config
check "config of an unknown job: Flink's 404" 404 "$(no_job $JB)"

http GET /jobs/$JS/status
check "GET /jobs/:jobid/status: the registered state" 200 '{"status":"RUNNING"}'
http GET "/v1/jobs/$JF/status/"
check "GET /jobs/:jobid/status of a FINISHED job, under /v1" 200 \
    '{"status":"FINISHED"}'
http GET /jobs/$JB/status
check "status of an unknown job: Flink's 404" 404 "$(no_job $JB)"
method "POST on the job status path" POST /jobs/$JS/status GET

http GET /jobs
check "GET /jobs: id and status, by id" 200 "$JOBS"
http GET "/v1/jobs/?x=1"
check "GET /jobs under /v1, trailing slash, query" 200 "$JOBS"
http GET /jobs/overview
# Flink 2's JobDetails, which 1.20's clients read too.
check_like "GET /jobs/overview: every job, by id, tasks all 0, Flink 2's keys" 200 \
    "^\\{\"jobs\":\\[\\{\"jid\":\"$JF\",\"name\":\"etl \\\\\"nightly\\\\\"\",$KIND\"start-time\":1600000000000,\"end-time\":1600000100000,\"duration\":100000,\"state\":\"FINISHED\",\"last-modification\":1600000100000,$TASKS,$PENDING\\},\\{\"jid\":\"$JN\",\"name\":\"idle\",$KIND\"start-time\":1600000000000,\"end-time\":-1,\"duration\":[0-9]+,\"state\":\"RUNNING\",\"last-modification\":1600000000000,$TASKS,$PENDING\\},\\{\"jid\":\"$JS\",\"name\":\"orders\",$KIND\"start-time\":1699999990000,\"end-time\":-1,\"duration\":[0-9]+,\"state\":\"RUNNING\",\"last-modification\":1699999995000,$TASKS,$PENDING\\}\\]\\}$"
_d=$(printf '%s' "$BODY" | sed 's/.*"jid":"'$JS'","name":"orders",'"$KIND"'"start-time":1699999990000,"end-time":-1,"duration":\([0-9]*\),.*/\1/')
_now=$(now_ms)
ok "$([ $((_now - 1699999990000 - _d)) -ge 0 ] && [ $((_now - 1699999990000 - _d)) -lt 60000 ] && echo 0 || echo 1)" \
    "GET /jobs/overview: a running job's duration runs to now"

method "POST on /jobs" POST /jobs GET
method "PUT on /jobs/overview" PUT /jobs/overview GET
method "POST on the config path" POST /jobs/$JS/checkpoints/config GET
method "DELETE on the details path" DELETE /jobs/$JS/checkpoints/details/2 GET
method "PATCH on the statistics path" PATCH /jobs/$JS/checkpoints/ "GET, POST"
http GET /jobs/$JS/checkpoints/details/2/x
check "a longer details path is unknown" 404 \
    "{\"errors\":[\"Not found: /jobs/$JS/checkpoints/details/2/x\"]}"
http GET /jobs/Overview
check "job paths are case-sensitive" 404 '{"errors":["Not found: /jobs/Overview"]}'

# === GET /jobs/:jobid/triggers (beyond Flink) ===============================
# The fixture's triggers newest first, and one more queued that no runner
# claimed: two wait (queued and running), the oldest since trigger 4.  The
# failure that took no checkpoint id (trigger 5) is not listed: the list is
# the queue and the checkpoints, each read from its own index.
sql "INSERT INTO triggers (job_id, trigger_id, requested_type, created_ms)
    VALUES ('$JS', '${JS%????}0006', 'INCREMENTAL', 1700000140000);"
T6='{"trigger_id":"'${JS%????}0006'","status":"IN_PROGRESS","requested_type":"INCREMENTAL","checkpoint_id":null,"created_ms":1700000140000,"claimed_ms":null,"completed_ms":null,"location":null,"failure_class":null,"failure_trace":null,"remote_user":null,"remote_addr":null}'
T5='{"trigger_id":"'${JS%????}0005'","status":"COMPLETED","requested_type":"FULL","checkpoint_id":null,"created_ms":1700000130000,"claimed_ms":null,"completed_ms":1700000130001,"location":null,"failure_class":"java.util.concurrent.CompletionException","failure_trace":"java.util.concurrent.CompletionException: x","remote_user":null,"remote_addr":null}'
T4='{"trigger_id":"'${JS%????}0004'","status":"IN_PROGRESS","requested_type":"FULL","checkpoint_id":4,"created_ms":1700000119000,"claimed_ms":1700000120000,"completed_ms":null,"location":null,"failure_class":null,"failure_trace":null,"remote_user":null,"remote_addr":null}'
T3='{"trigger_id":"'${JS%????}0003'","status":"COMPLETED","requested_type":"FULL","checkpoint_id":3,"created_ms":1700000099000,"claimed_ms":null,"completed_ms":1700000099035,"location":null,"failure_class":null,"failure_trace":null,"remote_user":null,"remote_addr":null}'
T2='{"trigger_id":"'${JS%????}0002'","status":"COMPLETED","requested_type":"FULL","checkpoint_id":2,"created_ms":1700000059000,"claimed_ms":1700000060000,"completed_ms":1700000060080,"location":"file:/ckpt/'$JS'/chk-2","failure_class":null,"failure_trace":null,"remote_user":null,"remote_addr":null}'
T1='{"trigger_id":"'${JS%????}0001'","status":"COMPLETED","requested_type":"FULL","checkpoint_id":1,"created_ms":1699999999000,"claimed_ms":1700000000000,"completed_ms":1700000600001,"location":null,"failure_class":"'$CKX'","failure_trace":"'$CKX': Checkpoint expired before completing.\n\tat checkpoint action (killed after its timeout of 600 s)\n","remote_user":null,"remote_addr":null}'
TRIGGERS='{"in_progress":2,"oldest_in_progress_ms":1700000119000,"runner_last_pass_ms":null,"triggers":['$T6,$T4,$T3,$T2,$T1'],"schedules":[]}'
http GET /jobs/$JS/triggers
check "triggers: waiting count, oldest, no runner pass yet, newest first, traces" \
    200 "$TRIGGERS"
http GET "/v1/jobs/$(echo $JS | tr a-f A-F)/triggers/?x=1"
check "triggers under /v1, uppercase jobid, trailing slash, query" 200 \
    "$TRIGGERS"
# A runner's pass, as the runner records it: every job's answer gives it.
sql "UPDATE service_metrics SET pass_ms = 1700000150000 WHERE id = 1"
http GET /jobs/$JN/triggers
check "triggers of a job that has none, with the runner's last pass" 200 \
    '{"in_progress":0,"oldest_in_progress_ms":null,"runner_last_pass_ms":1700000150000,"triggers":[],"schedules":[]}'
sql "UPDATE service_metrics SET pass_ms = 0 WHERE id = 1"
http GET /jobs/$JB/triggers
check "triggers of an unknown job: the statistics' 404" 404 "$(no_job $JB)"
http GET /jobs/xyz/triggers
check "triggers, bad jobid: 400" 400 "$(bad_param jobid xyz)"
method "POST on the triggers path" POST /jobs/$JS/triggers GET
# More than the bound: only the newest STATS_TRIGGERS (100), all counted.
sql "WITH RECURSIVE n(i) AS (SELECT 7 UNION ALL SELECT i + 1 FROM n
    WHERE i < 106) INSERT INTO triggers (job_id, trigger_id, requested_type,
    created_ms) SELECT '$JS', '${JS%????}' || substr(CAST(10000 + i AS TEXT), 2), 'FULL',
    1700000140000 + i FROM n;"
http GET /jobs/$JS/triggers
_n=$(printf '%s' "$BODY" | grep -o '"trigger_id"' | wc -l)
ok "$([ "$_n" -eq 100 ] && echo 0 || echo 1)" \
    "triggers: at most the newest 100 listed (got $_n)"
check_like "triggers: all 102 waiting counted, the oldest still trigger 4" \
    200 '^\{"in_progress":102,"oldest_in_progress_ms":1700000119000,"runner_last_pass_ms":null,"triggers":\[\{"trigger_id":"'${JS%????}'0106",'

# ?limit= lists more, up to 1000 (CHECKPOINT_HISTORY_KEEP's default, so
# that the page can chart the kept history), or fewer: here the 102 waiting
# and the 3 finished checkpoints.
http GET "/jobs/$JS/triggers?limit=1000"
_n=$(printf '%s' "$BODY" | grep -o '"trigger_id"' | wc -l)
ok "$([ "$_n" -eq 105 ] && echo 0 || echo 1)" \
    "triggers?limit=1000: all 105 listed (got $_n)"
check_like "triggers?limit=1000: the oldest checkpoint last" 200 \
    '"trigger_id":"'${JS%????}'0001",[^{]*\}\],"schedules":\[\]\}$'
http GET "/v1/jobs/$JS/triggers/?x=1&limit=2&limit=7"
check_like "triggers?limit=2, another parameter and a second limit ignored: the newest 2" \
    200 '"triggers":\[\{"trigger_id":"'${JS%????}'0106",[^{]*\},\{"trigger_id":"'${JS%????}'0105",[^{]*\}\],'
bad_limit() {
	printf '{"errors":["Bad request, could not parse parameters: Cannot resolve query parameter (limit) from value \\"%s\\"."]}' "$1"
}
for _v in 0 1001 -1 +5 5x 1e3 ''; do
	http GET "/jobs/$JS/triggers?limit=$_v"
	check "triggers?limit=$_v: 400, the value echoed" 400 "$(bad_limit "$_v")"
done
http GET "/jobs/$JS/triggers?limit"
check "triggers?limit without a value: 400" 400 "$(bad_limit '')"
http GET "/jobs/xyz/triggers?limit=0"
check "triggers, a bad jobid and a bad limit: the jobid's 400" 400 \
    "$(bad_param jobid xyz)"
http GET "/jobs/$JB/triggers?limit=5"
check "triggers?limit=5 of an unknown job: 404" 404 "$(no_job $JB)"

# === CHECKPOINT_HISTORY =========================================================
export CHECKPOINT_HISTORY=2
phase history
http GET /jobs
check "CHECKPOINT_HISTORY=2: the app made the database" 200 '{"jobs":[]}'
stats_fixture
http GET /jobs/$JS/checkpoints
check "CHECKPOINT_HISTORY=2: the newest two in the history" 200 \
    "$STATS_HEAD$C4,$C3]}"
http GET /jobs/$JS/checkpoints/details/2
check "CHECKPOINT_HISTORY=2: details of an older one still answer" 200 "$C2"
unset CHECKPOINT_HISTORY
