-- Start-up that does not read the archive (issue 26, item 2). The live
-- sessions of a project (not Merged, Done or Canceled) and a page of its
-- archive are each read through their own partial index, so a store with
-- thousands of finished sessions costs start-up nothing for them. The
-- statuses here are those of groupOf (src/domain/session-order.ts); queries
-- repeat the same terms literally so SQLite picks these indexes.
CREATE INDEX session_project_live_idx ON session (project_id, updated_at DESC, id)
  WHERE status NOT IN ('Merged', 'Done', 'Canceled');
CREATE INDEX session_project_archive_idx ON session (project_id, updated_at DESC, id)
  WHERE status IN ('Merged', 'Done', 'Canceled');

-- The last git figures of a session branch, with the tips they were read at
-- ("<branch tip> <base tip>"): a Grove that starts again reuses them while
-- the tips have not moved, instead of running git per session. `kind`:
-- 'base' (ahead/behind its base and whether it would conflict, as JSON),
-- 'paths' (the paths it changed against its base, as a JSON array).
CREATE TABLE session_git_probe (
  session_id TEXT NOT NULL REFERENCES session (id) ON DELETE CASCADE,
  kind TEXT NOT NULL CHECK (kind IN ('base', 'paths')),
  tips TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (session_id, kind)
);
