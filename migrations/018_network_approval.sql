-- Network requests held for the person (issue 25, item 2): a confined
-- agent's request to a host not on agents.network.allow waits in the inbox
-- (kind 'network', subject host:port) instead of being refused at once. The
-- person may also answer it by adding the host to the allow list (status
-- 'allowList', a session grant too). SQLite cannot widen a CHECK in place:
-- the table is rebuilt with the same rows.
CREATE TABLE approval_new (
  id TEXT PRIMARY KEY NOT NULL,
  session_id TEXT NOT NULL REFERENCES session (id) ON DELETE CASCADE,
  agent TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('command', 'edit', 'network')),
  subject TEXT NOT NULL,
  cwd TEXT,
  reason TEXT NOT NULL,
  scope TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'waiting'
    CHECK (status IN ('waiting', 'once', 'session', 'allowList', 'denied', 'timedOut')),
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  decided_at INTEGER
);

INSERT INTO approval_new
  (id, session_id, agent, kind, subject, cwd, reason, scope, status, created_at, expires_at, decided_at)
SELECT id, session_id, agent, kind, subject, cwd, reason, scope, status, created_at, expires_at, decided_at
FROM approval;

DROP TABLE approval;
ALTER TABLE approval_new RENAME TO approval;

CREATE INDEX approval_waiting ON approval (status, expires_at);
CREATE INDEX approval_grant ON approval (session_id, scope, status);
