-- Turn and challenge timers live in the database so that they survive restarts.
ALTER TABLE games ADD COLUMN turn_timeout REAL NOT NULL DEFAULT 86400;  -- seconds a player has per turn
ALTER TABLE games ADD COLUMN deadline REAL;   -- when the pending challenge expires or the player to move forfeits
ALTER TABLE games ADD COLUMN remind_at REAL;  -- when the player to move gets their one reminder
CREATE INDEX games_by_deadline ON games (deadline) WHERE deadline IS NOT NULL;
CREATE INDEX games_by_remind_at ON games (remind_at) WHERE remind_at IS NOT NULL;

-- Small facts the bot remembers between runs (e.g. the hash of the last synced command set).
CREATE TABLE bot_state (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;
