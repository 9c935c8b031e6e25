-- The checks of a published session's pull request (issue 28, item 2): the
-- head commit they were read at, GitHub's ETags of its check runs and its
-- combined status (so the next poll asks If-None-Match and a 304 costs no
-- rate limit), the checks themselves (JSON array of {kind, name, state,
-- conclusion, url, jobId, logTail, logError}: a failing job's log tail is
-- kept, sanitized and capped, so it is read once), the list badge they make
-- (pending, failing, passing; NULL: no checks or not read yet), the last
-- refresh's error in words, and when GitHub last answered.
ALTER TABLE session_review_request ADD COLUMN checks_head_sha TEXT;
ALTER TABLE session_review_request ADD COLUMN checks_runs_etag TEXT;
ALTER TABLE session_review_request ADD COLUMN checks_statuses_etag TEXT;
ALTER TABLE session_review_request ADD COLUMN checks_json TEXT NOT NULL DEFAULT '[]';
ALTER TABLE session_review_request ADD COLUMN checks_state TEXT
  CHECK (checks_state IS NULL OR checks_state IN ('pending', 'failing', 'passing'));
ALTER TABLE session_review_request ADD COLUMN checks_error TEXT;
ALTER TABLE session_review_request ADD COLUMN checks_fetched_at INTEGER;
