-- One usage figure: a session's usage is kept by role as well as by model
-- (the agent's turns, and Grove's own calls for the session: title, commit
-- message, focused review, rebase, best-of judge, protocol repair). What was
-- counted before this migration was the agent's turns.
CREATE TABLE session_usage_by_role (
  session_id TEXT NOT NULL REFERENCES session (id) ON DELETE CASCADE,
  model TEXT NOT NULL,
  -- turn | title | commit | review | rebase | judge | repair
  role TEXT NOT NULL DEFAULT 'turn',
  input_tokens INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  invocation_count INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (session_id, model, role)
);

INSERT INTO session_usage_by_role
  (session_id, model, role, input_tokens, output_tokens, invocation_count)
SELECT session_id, model, 'turn', input_tokens, output_tokens, invocation_count
FROM session_usage;

DROP TABLE session_usage;
ALTER TABLE session_usage_by_role RENAME TO session_usage;

-- Grove's model calls for a project, not for one session (sync's conflict
-- resolution in the main checkout): counted in the project's total.
CREATE TABLE project_usage (
  project_id INTEGER NOT NULL REFERENCES project (id) ON DELETE CASCADE,
  model TEXT NOT NULL,
  -- sync
  role TEXT NOT NULL,
  input_tokens INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  invocation_count INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (project_id, model, role)
);
