-- Ratings per game kind, per server (guild_id) and global (guild_id 0: no real server has id 0).
-- Raw openskill mu and sigma are stored; the displayed number is derived from them.
CREATE TABLE ratings (
    kind        TEXT    NOT NULL,
    guild_id    INTEGER NOT NULL,
    user_id     INTEGER NOT NULL,
    mu          REAL    NOT NULL,
    sigma       REAL    NOT NULL,
    games       INTEGER NOT NULL DEFAULT 0,
    wins        INTEGER NOT NULL DEFAULT 0,
    draws       INTEGER NOT NULL DEFAULT 0,
    losses      INTEGER NOT NULL DEFAULT 0,
    streak      INTEGER NOT NULL DEFAULT 0,  -- > 0: wins in a row; < 0: losses in a row
    best_streak INTEGER NOT NULL DEFAULT 0,
    updated_at  REAL    NOT NULL,
    PRIMARY KEY (kind, guild_id, user_id)
) WITHOUT ROWID;
CREATE INDEX ratings_ladder ON ratings (kind, guild_id, (mu - 3 * sigma) DESC);

-- 1 once a finished game's result has changed the ratings (it happens in the same transaction as the final
-- move, so exactly once).
ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 0;
