-- Placement (issue 24, item 6). A host's most turns at once (`grove host add
-- --max N`, `grove host set NAME max N`; NULL: auto, from its cores and
-- memory as for this machine), and its last reading of free memory and load
-- (JSON of {cores, totalBytes, availableBytes, load1, readAt}; NULL: never
-- read), which `grove host ls --json` shows.
ALTER TABLE host ADD COLUMN max_sessions INTEGER;
ALTER TABLE host ADD COLUMN load_reading TEXT;

-- Sessions started with the host `auto` that are not placed yet: their first
-- turn chooses this machine or a host with room, writes it to session.host
-- and removes the row in the same transaction.
CREATE TABLE session_placement (
  session_id TEXT PRIMARY KEY NOT NULL REFERENCES session (id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL
);
