/*
 * The savepoint family of Flink's API (checkpoint-api(7), "SAVEPOINTS"):
 * POST /jobs/:jobid/savepoints and /jobs/:jobid/stop, both polled at
 * GET /jobs/:jobid/savepoints/:triggerid, and POST /savepoint-disposal
 * polled at GET /savepoint-disposal/:triggerid.
 */
#ifndef SAVEPOINT_H
#define SAVEPOINT_H

struct exchange;

void savepoint_post(struct exchange *);
void savepoint_get(struct exchange *);
void disposal_post(struct exchange *);
void disposal_get(struct exchange *);
void savepoint_list(struct exchange *);

#endif /* SAVEPOINT_H */
