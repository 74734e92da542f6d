/*
 * Names of checkpoint types and job states.  See checkpoint.h.  Matching is
 * exact (Flink's enums are case-sensitive: "full" is a 400).
 */
#include <config.h>

#include <string.h>

#include "checkpoint.h"

static const char *const ckpt_types[CKPT__MAX] = {
	[CKPT_CONFIGURED] = "CONFIGURED",
	[CKPT_FULL] = "FULL",
	[CKPT_INCREMENTAL] = "INCREMENTAL",
};

static const char *const job_states[JOB__MAX] = {
	[JOB_RUNNING] = "RUNNING",
	[JOB_FINISHED] = "FINISHED",
	[JOB_CANCELED] = "CANCELED",
	[JOB_FAILED] = "FAILED",
	[JOB_SUSPENDED] = "SUSPENDED",
};

static int
name_lookup(const char *const *names, int n, const char *s)
{
	int i;

	if (s == NULL)
		return -1;
	for (i = 0; i < n; i++)
		if (strcmp(names[i], s) == 0)
			return i;
	return -1;
}

const char *
ckpt_type_name(enum ckpt_type t)
{
	return t < CKPT__MAX ? ckpt_types[t] : "?";
}

int
ckpt_type_parse(const char *s, enum ckpt_type *out)
{
	int i;

	if ((i = name_lookup(ckpt_types, CKPT__MAX, s)) == -1)
		return -1;
	*out = (enum ckpt_type)i;
	return 0;
}

const char *
job_state_name(enum job_state st)
{
	return st < JOB__MAX ? job_states[st] : "?";
}

int
job_state_parse(const char *s, enum job_state *out)
{
	int i;

	if ((i = name_lookup(job_states, JOB__MAX, s)) == -1)
		return -1;
	*out = (enum job_state)i;
	return 0;
}
