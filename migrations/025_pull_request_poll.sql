-- What the pull request poller keeps between looks (issue 28: idle polling
-- costs no 200): a JSON object {info, pullEtag, reviewsEtag, threadsReadAt}
-- (domain/review-request.ts PullRequestPoll), NULL before the first look.
-- The pull request and its reviews are asked with If-None-Match on these
-- ETags (GitHub answers 304, which costs no rate limit, and nothing is
-- written); the review threads (GraphQL, no ETags) are read again only when
-- one of the two ETags moved since they were last read ({key, at}), or after
-- 15 minutes (a resolve on GitHub changes neither ETag).
ALTER TABLE session_review_request ADD COLUMN pr_poll_json TEXT;
