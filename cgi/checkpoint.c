/*
 * Names of checkpoint types and job states, and a failure's cause in one
 * line.  See checkpoint.h.  Matching is exact (Flink's enums are
 * case-sensitive: "full" is a 400).
 */
#include <config.h>

#include <ctype.h>
#include <stdio.h>
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

/*
 * The words a stored trace leads with that say nothing of the cause:
 * Flink's (checkpoint-api(7), "FAILURE CAUSES") and the runner's own for
 * a command that wrote nothing to stderr.
 */
static const char *const fixed_words[] = { "Checkpoint was declined.",
	"Checkpoint expired before completing.",
	"The checkpoint action failed.", "The savepoint action failed.", NULL };

/* s past its leading Java class names ("java.util.Foo: "), if any. */
static const char *
skip_classes(const char *s)
{
	const char *p;

	for (;;) {
		for (p = s; isalnum((unsigned char)*p) || *p == '.' ||
		     *p == '_' || *p == '$';
		     p++)
			;
		if (p == s || p[0] != ':' || p[1] != ' ' ||
		    memchr(s, '.', (size_t)(p - s)) == NULL)
			return s;
		s = p + 2;
	}
}

#define CAUSED_BY_LEN (sizeof("Caused by: ") - 1)

/* The last line of [s, end) with something in it, trimmed; n its length. */
static const char *
last_line(const char *s, const char *end, size_t *n)
{
	const char *b;

	while (end > s && isspace((unsigned char)end[-1]))
		end--;
	for (b = end; b > s && b[-1] != '\n'; b--)
		;
	while (b < end && isspace((unsigned char)*b))
		b++;
	*n = (size_t)(end - b);
	return b;
}

/* msg past the fixed words it leads with; its length in *n. */
static const char *
skip_fixed(const char *msg, size_t *n)
{
	size_t i, w;

	for (i = 0; fixed_words[i] != NULL; i++) {
		w = strlen(fixed_words[i]);
		if (*n >= w && strncmp(msg, fixed_words[i], w) == 0) {
			msg += w;
			*n -= w;
			while (*n > 0 && *msg == ' ') {
				msg++;
				(*n)--;
			}
		}
	}
	return msg;
}

void
ckpt_failure_cause(const char *class, const char *trace, char *out, size_t len)
{
	const char *t, *head_end, *how, *msg, *p;
	size_t how_n = 0, msg_n, skipped;

	t = trace != NULL && *trace != '\0' ? trace : class;
	if (t == NULL)
		t = "";
	/* The message is what precedes the first frame. */
	if ((head_end = strstr(t, "\n\tat ")) == NULL)
		head_end = t + strlen(t);
	/* The runner's frame says how the action ended. */
	if ((how = strstr(head_end, " action (")) != NULL) {
		how += strlen(" action (");
		if (strncmp(how, "it ", 3) == 0)
			how += 3;
		how_n = strcspn(how, ")\n");
	}
	msg = last_line(t, head_end, &msg_n);
	/* A chain's last line is its deepest cause's. */
	if (msg_n > CAUSED_BY_LEN &&
	    strncmp(msg, "Caused by: ", CAUSED_BY_LEN) == 0) {
		msg += CAUSED_BY_LEN;
		msg_n -= CAUSED_BY_LEN;
	}
	p = skip_classes(msg);
	skipped = (size_t)(p - msg);
	msg_n = skipped < msg_n ? msg_n - skipped : 0;
	msg = skip_fixed(p, &msg_n);
	if (msg_n == 0 && how_n == 0) {
		/* Only the fixed words: they are the cause (Flink's own). */
		msg = skip_classes(t);
		msg_n = strcspn(msg, "\n");
	}
	if (msg_n > 0 && how_n > 0)
		snprintf(out, len, "%.*s (%.*s)", (int)msg_n, msg, (int)how_n,
		    how);
	else
		snprintf(out, len, "%.*s", (int)(msg_n > 0 ? msg_n : how_n),
		    msg_n > 0 ? msg : how);
}
