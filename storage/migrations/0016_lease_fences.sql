-- Fences for leases (issue 22): every claim of a lease gives it a new token, a number never given before, and the
-- holder checks that the lease still carries its token right before a side effect that must happen once (a process
-- paused past its lease finds that another took the work over). `expires_at` is now the database's clock (seconds
-- since the epoch, storage/sql.py Dialect.clock), not each process's: a process whose clock runs ahead takes no live
-- process for dead. Older rows were written with the processes' clocks, which are the same seconds.
ALTER TABLE leases ADD COLUMN token INTEGER NOT NULL DEFAULT 0;
-- The last token given (SQLite has no sequences): one row, raised by every claim.
CREATE TABLE lease_tokens (last INTEGER NOT NULL);
INSERT INTO lease_tokens (last) VALUES (0);
-- A private board's first DM is claimed with a token too (storage/private_boards.py), and its claim's age is the
-- database's clock.
ALTER TABLE private_boards ADD COLUMN token INTEGER;
