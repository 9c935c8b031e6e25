-- Confirmations (issue 25, item 4): an irreversible action an MCP client
-- (`grove mcp`, with the setting mcp.irreversibleTools on) asked for, held
-- for the person to confirm or refuse in the inbox (or `grove approve` /
-- `grove deny`). The grove mcp process that asked waits on the row and, only
-- once it reads 'confirmed', performs the action and writes its outcome. Any
-- Grove process may decide it; a row stays waiting until it is decided or
-- expires_at passes (then it is refused on timeout).
CREATE TABLE confirmation (
  id TEXT PRIMARY KEY NOT NULL,
  session_id TEXT NOT NULL REFERENCES session (id) ON DELETE CASCADE,
  action TEXT NOT NULL CHECK (action IN ('merge', 'publish', 'cancel', 'approve')),
  -- The action's argument as the client gave it (a remote branch to publish
  -- to, the held approval to approve): untrusted, sanitized when shown.
  detail TEXT,
  -- The MCP client's name as it introduced itself: untrusted.
  client TEXT NOT NULL,
  -- The grove mcp process that asked (infra/owner.ts): only it performs the action.
  owner TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'waiting'
    CHECK (status IN ('waiting', 'confirmed', 'refused', 'timedOut')),
  -- What came of it, in words, once performed (or why it was not).
  outcome TEXT,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  decided_at INTEGER
);

CREATE INDEX confirmation_waiting ON confirmation (status, expires_at);
