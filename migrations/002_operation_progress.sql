-- The latest progress line of a running operation (thinking, running a
-- command, editing a file), so a Grove process that is not running the turn
-- (a TUI watching a headless `grove run`) can show it too.
ALTER TABLE session_operation ADD COLUMN progress TEXT;
