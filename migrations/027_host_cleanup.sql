-- What Grove still has to remove on a host once a session there ended for
-- good (merged, canceled, reclaimed by grove gc; issue 24): the session's
-- worktree, its branch in the project's mirror and its run folders. A row
-- is written before the local branch goes (commit: the local branch's commit
-- then, which the host's branch must not be ahead of) and deleted once the
-- host said it is clean; a host that could not be reached keeps its row
-- (error: why) for the next contact, grove host check or grove gc.
CREATE TABLE host_cleanup (
  session_id TEXT PRIMARY KEY,
  host TEXT NOT NULL,
  repo TEXT NOT NULL,
  branch TEXT NOT NULL,
  commit_id TEXT,
  created_at INTEGER NOT NULL,
  attempted_at INTEGER,
  error TEXT
);
CREATE INDEX host_cleanup_host ON host_cleanup (host);
