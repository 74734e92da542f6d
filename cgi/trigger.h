/*
 * The trigger pair of Flink's API: POST /jobs/:jobid/checkpoints and
 * GET /jobs/:jobid/checkpoints/:triggerid (checkpoint-api(7)).  With a
 * committer, a POST is answered later, from the committer thread: the map
 * of that path is at the head of commit.c.
 */
#ifndef TRIGGER_H
#define TRIGGER_H

#include "commit.h"

struct exchange;

void trigger_post(struct exchange *);
void trigger_get(struct exchange *);
void trigger_answer(struct post *);

#endif /* TRIGGER_H */
