-- Best-of-N: one prompt fanned out to several sessions (a group), the
-- project's check command run in each variant's worktree, and the judge's
-- ranking of the variants.
CREATE TABLE session_group (
  id TEXT PRIMARY KEY,
  project_id INTEGER NOT NULL REFERENCES project (id) ON DELETE CASCADE,
  prompt TEXT NOT NULL,
  -- running | checking | judging | ranked | chosen | failed
  status TEXT NOT NULL,
  -- JSON [{sessionId, rank, reason}] once judged
  ranking TEXT,
  -- Why judging failed, or the judge's note
  note TEXT,
  chosen_session_id TEXT REFERENCES session (id) ON DELETE SET NULL,
  created_at INTEGER NOT NULL
);

CREATE TABLE session_group_member (
  session_id TEXT PRIMARY KEY REFERENCES session (id) ON DELETE CASCADE,
  group_id TEXT NOT NULL REFERENCES session_group (id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  -- The check command's result in this worktree (null: not run)
  check_exit INTEGER,
  check_timed_out INTEGER,
  check_output TEXT
);

CREATE INDEX session_group_member_by_group ON session_group_member (group_id, position);
CREATE INDEX session_group_by_project ON session_group (project_id);
