-- Held for migration 0019 of issue 25's finishing record (branch finishing), so that 0020 (seasons) follows
-- without a gap on this branch. Empty: when the branches are merged, that branch's 0019 replaces this file.
SELECT 1;
