/*
 * The vocabulary every part shares: checkpoint types and job states, with
 * their names as they appear on the wire, in the database and on the
 * command line (one spelling each).
 */
#ifndef CHECKPOINT_H
#define CHECKPOINT_H

#include <stddef.h>

enum ckpt_type {
	CKPT_CONFIGURED, /* the job's own setting (requests only) */
	CKPT_FULL,
	CKPT_INCREMENTAL,
	CKPT__MAX
};

enum job_state {
	JOB_RUNNING, /* the only state that can be checkpointed */
	JOB_FINISHED,
	JOB_CANCELED,
	JOB_FAILED,
	JOB_SUSPENDED,
	JOB__MAX
};

const char *ckpt_type_name(enum ckpt_type);
int ckpt_type_parse(const char *, enum ckpt_type *);
const char *job_state_name(enum job_state);
int job_state_parse(const char *, enum job_state *);
/*
 * A failure's cause in one line, for a log line or a table's cell: what
 * went wrong (the command's last line of stderr), then how its action
 * ended ("exited with status 3", "killed after its timeout of 5 s"),
 * without the Java class names and Flink's fixed words that lead the
 * stored trace.  trace may be NULL (class is then said).
 */
void ckpt_failure_cause(const char *class, const char *trace, char *out,
    size_t len);

#endif /* CHECKPOINT_H */
