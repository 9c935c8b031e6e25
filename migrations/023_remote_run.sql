-- A turn of a session on a host (issue 24, item 4): the detached run the
-- agent works in on the host (its id names the run folder there), its
-- process group as startRun reported it (the pid file on the host is the
-- agent's to write, so a cancel after a restart trusts this one), and how
-- many bytes of its stdout the transcript has taken in: a Grove that was
-- killed mid-turn re-attaches on its next start and goes on from there,
-- no line lost and none twice.
ALTER TABLE session_operation ADD COLUMN remote_run_id TEXT;
ALTER TABLE session_operation ADD COLUMN remote_pgid INTEGER;
ALTER TABLE session_operation ADD COLUMN remote_offset INTEGER NOT NULL DEFAULT 0;
