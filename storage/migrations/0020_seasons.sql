-- Held for migration 0020 of issue 25's seasons (branch seasons), so that 0021 (tournaments) follows without a gap
-- on this branch. Empty: when the branches are merged, that branch's 0020 replaces this file.
SELECT 1;
