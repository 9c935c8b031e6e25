-- Sessions from GitHub issues (issue 28, item 1): the issue a session was
-- started from or linked to afterwards, so its pull request says
-- `Closes #N` and the session view shows it. The title is GitHub's text,
-- stored sanitized; all three are NULL when the session has no issue.
ALTER TABLE session ADD COLUMN issue_number INTEGER;
ALTER TABLE session ADD COLUMN issue_title TEXT;
ALTER TABLE session ADD COLUMN issue_url TEXT;
