-- Tool calls in the transcript: the agent's tool calls and commands (edits,
-- reads, shell commands with their exit codes) are kept as entries of their
-- own kind, 'tool', shown folded to one line. SQLite cannot change a CHECK
-- constraint in place, so the table is rebuilt with the same rows.
CREATE TABLE session_message_next (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL REFERENCES session (id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('user_prompt', 'assistant_answer', 'notice', 'output', 'tool')),
  content TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  UNIQUE (session_id, position)
);

INSERT INTO session_message_next (id, session_id, position, kind, content, created_at)
SELECT id, session_id, position, kind, content, created_at FROM session_message;

DROP TABLE session_message;

ALTER TABLE session_message_next RENAME TO session_message;
