-- Inline review comments on a session's diff: drafted by a person (or taken
-- from a focused review's findings), sent to the agent together as one turn,
-- then marked by whether that turn changed the lines they point at.
CREATE TABLE diff_comment (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES session (id) ON DELETE CASCADE,
  path TEXT NOT NULL,
  -- 'new' and 'old' are line ranges of that side of the diff; 'file' is the whole file.
  side TEXT NOT NULL CHECK (side IN ('new', 'old', 'file')),
  start_line INTEGER,
  end_line INTEGER,
  body TEXT NOT NULL,
  -- The commented lines as diff text when written or sent, to compare after the turn.
  excerpt TEXT NOT NULL DEFAULT '',
  -- The hunk the lines are in (what the agent is shown).
  hunk TEXT NOT NULL DEFAULT '',
  severity TEXT CHECK (severity IN ('high', 'medium', 'low')),
  origin TEXT NOT NULL DEFAULT 'person' CHECK (origin IN ('person', 'review')),
  status TEXT NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'sent', 'addressed', 'open')),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);

CREATE INDEX diff_comment_by_session ON diff_comment (session_id, created_at);
