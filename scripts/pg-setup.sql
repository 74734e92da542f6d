-- checkpoint-api on PostgreSQL: the role the programs log in as, their
-- database, and a role for operators who only look.  Run once, as a
-- superuser, on the primary:
--
--   sudo -u postgres psql -v ON_ERROR_STOP=1 -f pg-setup.sql
--   sudo -u postgres psql -c '\password checkpoint'
--
-- then put that password in the PGPASSFILE of every host that runs a
-- program (see checkpoint-pg.env), and make the tables with
--
--   checkpointctl init --db postgresql://checkpoint@DBHOST/checkpoints
--
-- (any of the programs would make them on first use).  The tables are
-- made in the first schema of the role's search_path, so the role needs
-- CREATE there: here it owns the database, and from PostgreSQL 15 on the
-- owner of a database may create in its public schema.

-- The programs' role: it logs in, it makes and migrates the tables.  No
-- password here: \password above sets it without it reaching a file or
-- the server's log.
CREATE ROLE checkpoint LOGIN;

-- UTF8, as the schema requires (it refuses any other encoding).  Ids
-- compare byte by byte whatever the locale.
CREATE DATABASE checkpoints OWNER checkpoint ENCODING 'UTF8'
    LOCALE 'C.UTF-8' TEMPLATE template0;

-- Operators who read with psql (the views trigger_status and
-- job_overview), and nothing else.
CREATE ROLE checkpoint_read LOGIN;
GRANT CONNECT ON DATABASE checkpoints TO checkpoint_read;
\connect checkpoints
GRANT USAGE ON SCHEMA public TO checkpoint_read;
-- The tables do not exist yet: what the programs make later is readable.
ALTER DEFAULT PRIVILEGES FOR ROLE checkpoint IN SCHEMA public
    GRANT SELECT ON TABLES TO checkpoint_read;

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
