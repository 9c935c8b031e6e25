-- A session's own CI fixer switch (issue 28, item 3: "per project or per
-- session"): 'on' or 'off' over the project's github.ciFixer setting, set
-- with /ci-fixer in the composer or grove ci-fixer ID on|off|project. NULL:
-- the project's setting applies.
ALTER TABLE session ADD COLUMN ci_fixer TEXT CHECK (ci_fixer IS NULL OR ci_fixer IN ('on', 'off'));
