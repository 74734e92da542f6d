-- 0017: a job whose savepoints and stops are bookkeeping only, as its
-- operator says (checkpointctl job set --bookkeeping-only yes).  Such a
-- savepoint or stop runs nothing and is recorded as such; any other job
-- without the command fails it, so that no location is ever made up.
ALTER TABLE jobs ADD COLUMN bookkeeping_only INTEGER NOT NULL DEFAULT 0
	CHECK (bookkeeping_only IN (0, 1));
