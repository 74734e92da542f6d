-- checkpoint-api on PostgreSQL: what each program's role may write, given
-- by the owner of the tables once checkpointctl init has made or migrated
-- them (pg-setup.sql makes the roles):
--
--   psql -v ON_ERROR_STOP=1 -f pg-grants.sql \
--       postgresql://checkpoint@DBHOST/checkpoints
--
-- Run it again after every init that applied a migration: a table added
-- since is readable by the default privileges of pg-setup.sql, not yet
-- writable.  Every statement may be repeated.  The tables are those of
-- the public schema (another, given by pg-setup.sql's search_path, is
-- named below in its place).
--
-- The web server's role records requests and reads results; it cannot
-- change a job, its command, schedule or retention, nor anything the
-- runner records but the rows of a request.  The runner's role completes
-- what was asked; of a job it may change the state alone (a stop ends the
-- job) and never its command.  Only the owner, the operator's
-- checkpointctl, registers jobs and what they run.

GRANT SELECT ON ALL TABLES IN SCHEMA public
    TO checkpoint_web, checkpoint_runner;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA public
    TO checkpoint_web, checkpoint_runner;

-- A POST records its trigger, savepoint, stop or disposal, or starts an
-- expired one afresh; the row of a refused trigger started afresh is
-- counted in service_metrics (a trigger's function, run as the caller).
GRANT INSERT, UPDATE ON triggers, savepoints, savepoint_disposals
    TO checkpoint_web;
GRANT UPDATE ON service_metrics TO checkpoint_web;
-- Each job's count of waiting rows follows them (0015): kept by the
-- triggers' functions, run as the caller, whoever records or completes.
-- A role that writes it can misstate a queue's length, not what runs.
GRANT INSERT, UPDATE, DELETE ON queue_waiting
    TO checkpoint_web, checkpoint_runner;

-- Everything a pass records, purges and prunes, and a job's state.
GRANT INSERT, UPDATE, DELETE ON triggers, savepoints, savepoint_disposals,
    checkpoint_counters, checkpoint_stats, checkpoint_history,
    schedule_slots, service_metrics
    TO checkpoint_runner;
GRANT UPDATE (last_slot_ms, missed) ON schedules TO checkpoint_runner;
-- Retention's due times and the history's grown jobs (0014), which the
-- runner's pass reads and settles.
GRANT UPDATE (due_ms, changes) ON retention TO checkpoint_runner;
GRANT INSERT, DELETE ON history_grown TO checkpoint_runner;
GRANT INSERT, UPDATE ON history_keep TO checkpoint_runner;
GRANT UPDATE (state, updated_ms) ON jobs TO checkpoint_runner;
