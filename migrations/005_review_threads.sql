-- Unresolved review threads of a published session's pull request, as the
-- poller last fetched them (sanitized), with Grove's own progress on each:
-- sent to the agent as a turn, then answered on GitHub with the commit and
-- waiting for the person to confirm resolving it. A thread resolved on
-- GitHub (or by Grove) is removed.
CREATE TABLE review_thread (
  session_id TEXT NOT NULL REFERENCES session (id) ON DELETE CASCADE,
  thread_id TEXT NOT NULL,
  pull_number INTEGER NOT NULL,
  -- Order as GitHub lists the threads.
  position INTEGER NOT NULL,
  path TEXT NOT NULL,
  line INTEGER,
  start_line INTEGER,
  is_outdated INTEGER NOT NULL DEFAULT 0,
  -- JSON array of {id, author, body, createdAt, url}.
  comments TEXT NOT NULL DEFAULT '[]',
  state TEXT NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'sent', 'answered')),
  operation_id TEXT,
  replied_commit TEXT,
  reply_comment_id TEXT,
  fetched_at INTEGER NOT NULL,
  PRIMARY KEY (session_id, thread_id)
);
