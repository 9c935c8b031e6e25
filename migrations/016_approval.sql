-- Approvals that can be granted (issue 25, item 2): an agent CLI's request
-- that the session's permission mode would deny, held for the person to
-- decide in the inbox (or `grove approve` / `grove deny`). The agent's turn
-- waits on the row; any Grove process may decide it. A row stays waiting
-- until it is decided or expires_at passes (then it is denied on timeout).
-- A row decided 'session' is a grant: later requests of the same session
-- with the same scope pass without asking.
CREATE TABLE approval (
  id TEXT PRIMARY KEY NOT NULL,
  session_id TEXT NOT NULL REFERENCES session (id) ON DELETE CASCADE,
  agent TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('command', 'edit')),
  -- What was asked, verbatim as the CLI said it (sanitized when shown).
  subject TEXT NOT NULL,
  cwd TEXT,
  reason TEXT NOT NULL,
  -- What a session grant matches (domain/approval.ts approvalScope).
  scope TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'waiting'
    CHECK (status IN ('waiting', 'once', 'session', 'denied', 'timedOut')),
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  decided_at INTEGER
);

CREATE INDEX approval_waiting ON approval (status, expires_at);
CREATE INDEX approval_grant ON approval (session_id, scope, status);
