/*
 * libFuzzer harness for what the runner makes of a JobManager's answers
 * (cgi/jobmanager.c), without a network: a follow of each kind is given
 * a series of answers (a transfer's failure or an HTTP status, a body,
 * and the time that passed), as jm_step hands them over, until it ends.
 * Whatever the answers, an ended follow is one the store can record: a
 * failure has its trace; else a checkpoint has a positive id, and a
 * savepoint or a stop its location.  An answer that could never be
 * recorded would be asked of the JobManager again, for ever.
 *
 * jobmanager.c is included whole, not linked: its answer's handling is
 * static, as it should be for the runner.
 */
#include "jobmanager.c"

#include "fuzz.h"
#include "log.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* What an answer's first byte picks: a status, or 0 for no answer. */
static const long statuses[] = { 202, 200, 200, 200, 404, 500, 503, 400, 0 };

/*
 * Input: a byte for the kind, then answers, each a status byte, a byte
 * of seconds passed before it, and a body up to a NUL byte.
 */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jm_op op = { JM_CHECKPOINT, "file:/sp", 0, 0, 0, "file:/sp/1" };
	struct jm_follow *f;
	struct jm_result r;
	const uint8_t *end = data + size, *body;
	int64_t now = 1764547200000LL;
	long http;
	int answers = 0;

	log_init("fuzz", 0, LOG_LVL_NONE);
	if (size < 1)
		return 0;
	op.kind = (enum jm_kind)(*data++ % 4);
	FUZZ_CHECK((f = jm_start_op("http://127.0.0.1:1", "0123", "4567", &op,
			now)) != NULL);
	buf_adds(&f->path, "/jobs/0123/checkpoints");
	while (f->state != JM_DONE && end - data >= 2 && answers++ < 64) {
		http = statuses[data[0] %
		    (sizeof(statuses) / sizeof(statuses[0]))];
		now += data[1] * 1000LL;
		data += 2;
		for (body = data; data < end && *data != '\0'; data++)
			;
		buf_reset(&f->body);
		FUZZ_CHECK(buf_add(&f->body, body, (size_t)(data - body)) == 0);
		if (data < end)
			data++;
		f->attempt_ms = now;
		jm_answer(f, http == 0 ? CURLE_COULDNT_CONNECT : CURLE_OK, http,
		    now);
	}
	if (f->state == JM_DONE) {
		jm_result(f, &r);
		if (r.failure_class != NULL)
			FUZZ_CHECK(r.failure_trace != NULL);
		else if (op.kind == JM_CHECKPOINT)
			FUZZ_CHECK(r.checkpoint_id > 0);
		else if (op.kind != JM_DISPOSE)
			FUZZ_CHECK(r.location != NULL);
	}
	jm_free(f);
	return 0;
}
