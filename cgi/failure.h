/*
 * Flink's failure texts (checkpoint-api(7), "FAILURE CAUSES"), which the
 * runner records, the store makes for a request past its queue, and the
 * API answers: below the store and the runner alike, so that neither
 * reaches up into the other for them.
 */
#ifndef FAILURE_H
#define FAILURE_H

/*
 * The dispatcher's FlinkJobNotFoundException, inside the CompletionException
 * of its future, whose message is its cause's toString(): two levels, and
 * each %s the job's id.
 */
#define FAIL_JOB_CLASS "java.util.concurrent.CompletionException"
#define FAIL_JOB_NOT_FOUND \
	"org.apache.flink.runtime.messages.FlinkJobNotFoundException: " \
	"Could not find Flink job (%s)"
#define FAIL_JOB_TRACE \
	FAIL_JOB_CLASS ": " FAIL_JOB_NOT_FOUND \
		       "\nCaused by: " FAIL_JOB_NOT_FOUND
#define FAIL_CKPT_CLASS \
	"org.apache.flink.runtime.checkpoint.CheckpointException"
#define FAIL_DECLINED "Checkpoint was declined."
#define FAIL_EXPIRED "Checkpoint expired before completing."
#define FAIL_QUEUE_FULL \
	"The maximum number of queued checkpoint requests exceeded"

#endif /* FAILURE_H */
