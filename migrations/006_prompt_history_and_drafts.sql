-- The prompt composer's memory: every prompt sent in a project (Up/Down and
-- Ctrl+R in the composer), and the unsent text of a session's composer (kept
-- when the person closes the composer, restored when it opens again).
CREATE TABLE prompt_history (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER NOT NULL REFERENCES project (id) ON DELETE CASCADE,
  text TEXT NOT NULL,
  created_at INTEGER NOT NULL
);

CREATE INDEX prompt_history_by_project ON prompt_history (project_id, id);

CREATE TABLE session_draft (
  session_id TEXT PRIMARY KEY REFERENCES session (id) ON DELETE CASCADE,
  text TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);
