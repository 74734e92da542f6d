-- PostgreSQL 0011: one job holds few of the triggers, as the planner is
-- to cost a look-up by job.
--
-- Every statement is prepared once and planned generically (store_pg.c's
-- session), so a look-up by job is costed from job_id's statistics alone,
-- whichever job it names.  Where the table holds few jobs, or one job
-- most of its rows (a backlog, a flood of refused triggers), those
-- statistics said that any job holds most of the table, and the queue's
-- count of each POST (STMT_RECORD, by the partial index triggers_queue)
-- became a scan of the whole table: a cost that grows with the table,
-- paid on every POST.  A fixed fraction of distinct values tells the
-- planner that one job holds about a hundred rows whatever the table's
-- size, so that look-ups by job go by index; statements that read every
-- row are costed as before.  ANALYZE takes the setting at once.
ALTER TABLE triggers ALTER COLUMN job_id SET (n_distinct = -0.01);
ANALYZE triggers;

UPDATE schema_version SET version = version + 1,
	applied_ms = floor(extract(epoch FROM now()) * 1000)::bigint;
