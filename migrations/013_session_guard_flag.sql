-- What Grove put back after an agent changed the shared git folder outside
-- its own worktree and branch (a ref, the main index, info/), in words; the
-- session cannot be merged or published until the person acknowledges it
-- (the column is cleared then). NULL: nothing to acknowledge.
ALTER TABLE session ADD COLUMN guard_flag TEXT;
