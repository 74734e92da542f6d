/*
 * The trigger pair of Flink's API: POST /jobs/:jobid/checkpoints and
 * GET /jobs/:jobid/checkpoints/:triggerid (checkpoint-api(7)).  With a
 * committer, a POST is answered later, from the committer thread: the map
 * of that path is at the head of commit.c.
 */
#ifndef TRIGGER_H
#define TRIGGER_H

#include "commit.h"

struct api;
struct exchange;
struct request;
struct response;

void trigger_post(struct exchange *);
void trigger_get(struct exchange *);
void trigger_answer(struct post *);
/*
 * Reads a POST's body into a->body (body.h): 0, or -1 with the answer
 * made (413 over the limit, 400 for a length that lies).
 */
int trigger_read_body(struct api *, const struct request *, struct response *);

#endif /* TRIGGER_H */
