-- Session limits (issue 27, item 3): the memory and process-count limits a
-- session was started with (`grove run --memory-max 4G --tasks-max 512`),
-- as the person gave them ('none' turns the project's default off). NULL:
-- the project's settings capacity.memoryMax / capacity.tasksMax apply.
ALTER TABLE session ADD COLUMN memory_max TEXT;
ALTER TABLE session ADD COLUMN tasks_max TEXT;
