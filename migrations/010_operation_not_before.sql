-- A queued prompt whose agent reported a usage or rate limit waits until the
-- limit lifts: the worker does not take it before `not_before` (ms since the
-- epoch), and `wait_agent` names the agent it waits for.
ALTER TABLE session_operation ADD COLUMN not_before INTEGER;
ALTER TABLE session_operation ADD COLUMN wait_agent TEXT;
