-- Forks: a session made from another session's branch and worktree state
-- keeps a link to it (shown in both session views), and the short context
-- from the parent's transcript that goes before its first prompt.
ALTER TABLE session ADD COLUMN parent_session_id TEXT REFERENCES session (id) ON DELETE SET NULL;
ALTER TABLE session ADD COLUMN fork_context TEXT;

CREATE INDEX session_by_parent ON session (parent_session_id);
