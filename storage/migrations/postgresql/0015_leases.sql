-- Leases (as SQLite's 0015_leases.sql): work done by one process at a time, until the lease expires.
CREATE TABLE leases (
    key        TEXT COLLATE "C" PRIMARY KEY,
    holder     TEXT COLLATE "C" NOT NULL,  -- a random id each process makes when it starts
    expires_at DOUBLE PRECISION NOT NULL
);
CREATE INDEX leases_by_expiry ON leases (expires_at);
CREATE INDEX games_without_deadline ON games (status, id) WHERE deadline IS NULL;
