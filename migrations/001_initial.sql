-- Grove's first schema: projects, settings, sessions with their transcript,
-- the durable operation journal, token usage and linked pull requests.

CREATE TABLE project (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  path TEXT NOT NULL UNIQUE,
  display_name TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  last_opened_at INTEGER NOT NULL
);

CREATE TABLE setting (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE project_setting (
  project_id INTEGER NOT NULL REFERENCES project (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (project_id, name)
);

CREATE TABLE session (
  id TEXT PRIMARY KEY,
  project_id INTEGER NOT NULL REFERENCES project (id) ON DELETE CASCADE,
  title TEXT NOT NULL DEFAULT '',
  title_provisional INTEGER NOT NULL DEFAULT 1,
  title_generation INTEGER NOT NULL DEFAULT 0,
  status TEXT NOT NULL CHECK (
    status IN ('Draft', 'InProgress', 'Review', 'AgentReview', 'Question', 'Queued',
               'Rebasing', 'Merging', 'Merged', 'Done', 'Canceled')
  ),
  base_branch TEXT NOT NULL,
  branch TEXT NOT NULL,
  worktree_path TEXT NOT NULL,
  agent TEXT NOT NULL,
  model TEXT NOT NULL,
  reasoning_level TEXT NOT NULL,
  permission_mode TEXT NOT NULL DEFAULT 'auto_edit',
  prompt TEXT,
  size TEXT NOT NULL DEFAULT 'XS',
  added_lines INTEGER NOT NULL DEFAULT 0,
  deleted_lines INTEGER NOT NULL DEFAULT 0,
  has_diff INTEGER,
  input_tokens INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  active_seconds INTEGER NOT NULL DEFAULT 0,
  active_since INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  queued_at INTEGER,
  summary TEXT,
  questions TEXT NOT NULL DEFAULT '[]',
  provider_conversation_id TEXT,
  commit_message TEXT,
  head_commit TEXT,
  merged_commit TEXT,
  kept_branch TEXT,
  published_branch TEXT,
  main_checkout_warning INTEGER NOT NULL DEFAULT 0,
  focused_review_text TEXT,
  focused_review_diff_hash TEXT,
  focused_review_status TEXT
);

CREATE INDEX session_project_updated_idx ON session (project_id, updated_at DESC, id);

CREATE TABLE session_message (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL REFERENCES session (id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('user_prompt', 'assistant_answer', 'notice', 'output')),
  content TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  UNIQUE (session_id, position)
);

CREATE TABLE session_operation (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES session (id) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'done', 'failed', 'canceled')),
  payload TEXT NOT NULL DEFAULT '{}',
  cancel_requested INTEGER NOT NULL DEFAULT 0,
  owner TEXT,
  heartbeat_at INTEGER,
  queued_at INTEGER NOT NULL,
  started_at INTEGER,
  finished_at INTEGER,
  last_error TEXT
);

CREATE INDEX session_operation_session_status_idx ON session_operation (session_id, status);
CREATE INDEX session_operation_status_idx ON session_operation (status);

CREATE TABLE session_usage (
  session_id TEXT NOT NULL REFERENCES session (id) ON DELETE CASCADE,
  model TEXT NOT NULL,
  input_tokens INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  invocation_count INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (session_id, model)
);

CREATE TABLE session_review_request (
  session_id TEXT PRIMARY KEY REFERENCES session (id) ON DELETE CASCADE,
  forge TEXT NOT NULL DEFAULT 'github',
  number INTEGER NOT NULL,
  url TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('open', 'merged', 'closed')),
  is_draft INTEGER NOT NULL DEFAULT 1,
  review_decision TEXT,
  checks_summary TEXT,
  head_branch TEXT NOT NULL,
  base_branch TEXT NOT NULL,
  written_title TEXT,
  written_body TEXT,
  last_refreshed_at INTEGER
);
