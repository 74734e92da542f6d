-- checkpoint-api on PostgreSQL: the roles the programs log in as, their
-- database, and a role for operators who only look.  Run once, as a
-- superuser, on the primary:
--
--   sudo -u postgres psql -v ON_ERROR_STOP=1 -f pg-setup.sql
--   sudo -u postgres psql -c '\password checkpoint'    (and each role)
--
-- then put each password in the PGPASSFILE of the hosts that log in as
-- that role (see checkpoint-pg.env), make the tables as the owner, and
-- give the other roles their part (pg-grants.sql, after every init that
-- migrated):
--
--   checkpointctl init --db postgresql://checkpoint@DBHOST/checkpoints
--   psql -v ON_ERROR_STOP=1 -f pg-grants.sql \
--       postgresql://checkpoint@DBHOST/checkpoints
--
-- The tables are made in the first schema of the owner's search_path, so
-- it needs CREATE there: here it owns the database, and from PostgreSQL
-- 15 on the owner of a database may create in its public schema.
--
-- Three roles, so that the web server cannot change what the runner runs
-- (checkpoint-api(7), "SECURITY"):
--   checkpoint         the owner: checkpointctl, the operator's; makes and
--                      migrates the tables, registers jobs and commands
--   checkpoint_web     checkpoint-api.fcgi: records requests, reads all;
--                      no write to jobs, schedules or retention
--   checkpoint_runner  checkpoint-runner: completes what was asked; of
--                      jobs it may change the state alone (a stop)

-- The owner.  No password here: \password above sets it without it
-- reaching a file or the server's log.
CREATE ROLE checkpoint LOGIN;
CREATE ROLE checkpoint_web LOGIN;
CREATE ROLE checkpoint_runner LOGIN;

-- UTF8, as the schema requires (it refuses any other encoding).  Ids
-- compare byte by byte whatever the locale.
CREATE DATABASE checkpoints OWNER checkpoint ENCODING 'UTF8'
    LOCALE 'C.UTF-8' TEMPLATE template0;

-- Operators who read with psql (the views trigger_status and
-- job_overview), and nothing else.
CREATE ROLE checkpoint_read LOGIN;
GRANT CONNECT ON DATABASE checkpoints
    TO checkpoint_read, checkpoint_web, checkpoint_runner;
\connect checkpoints
GRANT USAGE ON SCHEMA public
    TO checkpoint_read, checkpoint_web, checkpoint_runner;
-- The tables do not exist yet: what the owner makes later is readable
-- (pg-grants.sql gives the writes).
ALTER DEFAULT PRIVILEGES FOR ROLE checkpoint IN SCHEMA public
    GRANT SELECT ON TABLES
    TO checkpoint_read, checkpoint_web, checkpoint_runner;

-- To share a database with other applications instead, give the programs
-- a schema of their own rather than a database:
--
--   CREATE SCHEMA checkpoint AUTHORIZATION checkpoint;
--   ALTER ROLE checkpoint IN DATABASE appdb SET search_path = checkpoint;
--
-- Each connection is a server process: N web hosts of M FastCGI
-- processes hold up to N * M * (1 + readers) connections, and each runner
-- one more (scripts/README.examples).  A cap keeps a mistake from
-- starving the other clients of the server:
--
--   ALTER ROLE checkpoint CONNECTION LIMIT 80;
