-- Leases: work that must be done by one process at a time when several share the database (issue 17): a computer
-- player's turn in a game (bot-turn:<game>), an owed announcement (owed:<game>:<event>), the command sync
-- (sync-commands). A process holds a key until `expires_at` and renews it while it works; one that dies lets it
-- expire, and another then takes the work over. Times are the service's clock (seconds since the epoch).
CREATE TABLE leases (
    key        TEXT NOT NULL PRIMARY KEY,
    holder     TEXT NOT NULL,  -- a random id each process makes when it starts
    expires_at REAL NOT NULL
);
CREATE INDEX leases_by_expiry ON leases (expires_at);
-- Games where nobody human is on the clock (no deadline): in an active one a computer player is to decide. The check for
-- bot turns nobody drives reads only these, however many games are being played.
CREATE INDEX games_without_deadline ON games (status, id) WHERE deadline IS NULL;
