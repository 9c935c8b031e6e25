-- The git step journal: before Grove starts a multi-step git operation
-- (a session rebase, the squash merge into the base branch, a sync of the
-- main checkout) it records which checkout it is about to change and the
-- commit it was at. The row is removed when the operation ends; a row left by
-- a Grove process that is gone tells recovery what to finish or undo.
CREATE TABLE git_step (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('rebase', 'squash', 'sync')),
  step TEXT NOT NULL,
  session_id TEXT REFERENCES session (id) ON DELETE CASCADE,
  project_id INTEGER REFERENCES project (id) ON DELETE CASCADE,
  dir TEXT NOT NULL,
  branch TEXT NOT NULL,
  head_before TEXT NOT NULL,
  detail TEXT NOT NULL DEFAULT '{}',
  owner TEXT NOT NULL,
  started_at INTEGER NOT NULL
);
