/*
 * Inside the PostgreSQL driver: what its files share and nothing else
 * includes.  store_pg.c holds the connection, its errors, its
 * statements' execution and its migrations; store_pg_pipeline.c the
 * committer's batches in pipeline mode; store_pg_sql.c the statements
 * this dialect writes its own way.
 */
#ifndef STORE_PG_IMPL_H
#define STORE_PG_IMPL_H

#include <libpq-fe.h>

#include "store_impl.h"

/* The channel a runner's watch listens on. */
#define PG_CHANNEL "checkpoint_triggers"
/* Rows a purge deletes per statement, so that no transaction grows long. */
#define PG_PURGE_BATCH 10000
#define PG_QUOTE(x) #x
#define PG_QUOTED(x) PG_QUOTE(x)
#define PG_MAX_PARAMS 24
/* Passwords kept to scrub from messages: as written, and libpq's. */
#define PG_SECRETS 4

/* A batch's trigger and its place in the batch, to sort by key. */
struct rec_at {
	const struct trigger_rec *t;
	size_t i;
};

/*
 * What the committer sent in pipeline mode and has not read yet
 * (pg_record_send): a batch, or the NOTIFY sent after one.  A batch's
 * outcome is read into it, at its turn or ahead of it (pg_pipe_retry),
 * and handed over at its turn.
 */
#define PG_PIPE_MAX (2 * STORE_IN_FLIGHT + 1)
struct pg_sent {
	int notify;
	size_t posts; /* the batch's: created[] is by place among them */
	struct rec_at *r; /* its triggers, sorted by key */
	size_t n;
	/* Its other posts: no of statement other, nv values each in ov[]. */
	enum stmt other;
	struct store_val *ov;
	size_t *oi; /* their places */
	size_t no;
	int nv;
	int read; /* rc and created are its outcome */
	int deadlock; /* a deadlock's loser: tried again at its turn */
	enum store_rc rc;
	int *created; /* a batch's, by place: the posts that created */
};

struct pg {
	struct store base; /* first: the handle store.c hands out */
	PGconn *conn;
	unsigned char prepared[STMT__MAX];
	/* The parameters a statement's SQL leaves unused, once looked at. */
	uint32_t unused[STMT__MAX];
	unsigned char scanned[STMT__MAX];
	int dead; /* the connection is lost: fail fast until closed */
	int wants_primary; /* target_session_attrs asks for a writable host */
	int listening; /* LISTEN done on this connection */
	int sync_cancelled; /* a commit was only local (pg_notice) */
	int64_t notifications; /* store_data_version */
	int64_t wait_ms; /* longest wait for an answer before cancelling */
	int64_t busy_ms; /* lock_timeout */
	int sync_normal; /* synchronous_commit = off */
	char secret[PG_SECRETS][256]; /* never printed: the passwords */
	char state[6]; /* the SQLSTATE of the last error ("": none) */
	char where[256]; /* host:port/db, for messages */
	/* The committer's pipeline: entries sent, oldest first. */
	struct pg_sent pipe[PG_PIPE_MAX];
	int pipe_head, npipe, nbatches;
	int notify_owed; /* a batch was sent since the last NOTIFY */
	int64_t notify_ms; /* when the last NOTIFY was sent (monotonic) */
	/*
	 * The round's locks (store_pg_round.c): the range whose jobs the
	 * transaction locked, and them.
	 */
	int locked; /* locked_after, locked_upto and jobs are valid */
	int64_t locked_after, locked_upto;
	struct buf jobs; /* a text[] literal: {id,id,...} */
};

/*
 * A statement's parameters, as text (NULL: SQL NULL).  typed: the
 * statement is prepared with type, so that its SQL may leave a
 * parameter unused (0: the server infers the type from the SQL).
 */
struct params {
	const char *v[PG_MAX_PARAMS];
	char num[PG_MAX_PARAMS][24];
	Oid type[PG_MAX_PARAMS];
	int n, typed;
};

/* store_pg.c's, for the pipeline, the opening and the round. */
enum store_rc pg_fail(struct store *, const char *what, const char *why);
enum store_rc pg_exec(struct pg *, enum stmt, const struct store_val *, int,
    const char *what, PGresult **);
int pg_schema_version(void);
void pg_notice(void *, const PGresult *);
void pg_scrub(const struct pg *, char *text);
void pg_message(const struct pg *, const char *msg, char *out, size_t len);
enum store_rc pg_simple(struct pg *, const char *sql, const char *what,
    int64_t *v, int n);
enum store_rc pg_lost(struct pg *, const char *what, const char *why);
enum store_rc pg_rc_from(struct pg *, const PGresult *, const char *what);
enum store_rc pg_ready(struct pg *);
enum store_rc pg_prepare(struct pg *, enum stmt, const struct params *);
void pg_params(struct pg *, enum stmt, const struct store_val *, int,
    struct params *);
PGresult *pg_next(struct pg *, const char *what, enum store_rc *);
enum store_rc pg_sync_cancelled(struct pg *, const char *what);
int pg_send(struct pg *, enum stmt, const struct params *);

/* store_pg_open.c's: the server as messages name it; a session's settings. */
void pg_where(struct pg *);
enum store_rc pg_session(struct pg *);

/*
 * store_pg_round.c's, around each statement pg_query runs: the values to
 * run it with (v, or own filled with the jobs a round's statement takes,
 * which it locked first), and the locks a range just read takes; the
 * locks' end with the transaction's.
 */
const struct store_val *pg_round_vals(struct pg *, enum stmt,
    const struct store_val *v, int n, struct store_val *own, enum store_rc *);
enum store_rc pg_round_read(struct pg *, enum stmt, const struct store_val *,
    const PGresult *);
void pg_round_end(struct pg *);

/* store_pg_sql.c's: statement id's text in this dialect, or NULL. */
const char *pg_sql(enum stmt);

/* store_pg_pipeline.c's: the committer's batches (store_ops' record_*). */
enum store_rc pg_record_send(struct store *, const struct trigger_rec *const *,
    const struct store_val *, int nv, size_t n);
enum store_rc pg_record_recv(struct store *, int *created);
/* The pipeline left, its NOTIFYs read; its oldest entry let go. */
enum store_rc pg_pipe_end(struct pg *);
void pg_pipe_pop(struct pg *);

#endif /* STORE_PG_IMPL_H */
