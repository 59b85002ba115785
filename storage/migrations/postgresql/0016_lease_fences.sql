-- Fences for leases (as SQLite's 0016_lease_fences.sql): a new token at every claim, checked before a side effect;
-- `expires_at` is the database's clock.
ALTER TABLE leases ADD COLUMN token BIGINT NOT NULL DEFAULT 0;
CREATE SEQUENCE lease_tokens;
ALTER TABLE private_boards ADD COLUMN token BIGINT;
