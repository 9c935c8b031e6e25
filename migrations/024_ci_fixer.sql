-- The CI fixer's memory of a published session's current failure streak
-- (issue 28, item 3): a JSON object {startedAt, attempts, tried, stopped}
-- (domain/ci-fixer.ts), '{}' when it has done nothing. It says which
-- failures (head sha and failing checks, or a conflicted head) were tried, so
-- one is never tried twice, and why the fixer stopped (the inbox shows it).
ALTER TABLE session_review_request ADD COLUMN ci_fixer_json TEXT NOT NULL DEFAULT '{}';
