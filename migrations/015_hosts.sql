-- Hosts (issue 24): other machines sessions can run on, reached with the
-- system ssh. A host is a name for an ssh destination (what `ssh` accepts:
-- user@host, a ~/.ssh/config alias) and Grove's root folder on it (relative
-- to the host user's home, `~/…`, or absolute).
CREATE TABLE host (
  name TEXT PRIMARY KEY NOT NULL,
  destination TEXT NOT NULL,
  root TEXT NOT NULL DEFAULT '.grove-host',
  created_at INTEGER NOT NULL
);

-- The host a session runs on; NULL: this machine. `grove host rm` refuses a
-- host that sessions still name.
ALTER TABLE session ADD COLUMN host TEXT REFERENCES host (name);
