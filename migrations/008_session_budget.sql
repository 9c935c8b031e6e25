-- A session's own budget, set when the person raised its limit at the
-- limit popup (null columns: the project's budget settings apply).
CREATE TABLE session_budget (
  session_id TEXT PRIMARY KEY REFERENCES session (id) ON DELETE CASCADE,
  token_limit INTEGER,
  usd_limit REAL
);
