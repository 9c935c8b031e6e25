-- The Grove process (host:pid) checking and judging a best-of-N group: a
-- group left in checking or judging by a process that is gone is evaluated
-- again by the next Grove that starts.
ALTER TABLE session_group ADD COLUMN evaluator TEXT;
