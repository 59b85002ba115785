-- Issue 25 (seasons): a server's ladders by season, beside its all-time ones.
-- `season_settings`: a server's choice in /settings season (no row: no seasons); `since` is when seasons of that
-- length were turned on, so the season current then starts at that moment rather than at its month's first.
CREATE TABLE season_settings (
    guild_id INTEGER PRIMARY KEY,
    length   TEXT    NOT NULL,  -- 'monthly' or 'quarterly'
    since    REAL    NOT NULL
);
-- One row per season of a server that was started (turned on, or a rated game ended in it): calendar months or
-- quarters in UTC, `period` naming which ('2026-11', '2026-Q4'). Its ratings are rows of `ratings` whose guild_id is
-- minus the season's id (real servers have positive ids, the global ladder 0), so a season's ladder is kept by the
-- same triggers (0012) and pages exactly as cheaply as the all-time one. `channel_id`: where its latest rated game
-- was played (its end is announced in the server's games channel if it has one, else there); `announced`: 1 once
-- its top three were posted.
CREATE TABLE seasons (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id   INTEGER NOT NULL,
    length     TEXT    NOT NULL,
    period     TEXT    NOT NULL,
    starts_at  REAL    NOT NULL,
    ends_at    REAL    NOT NULL,
    channel_id INTEGER,
    announced  INTEGER NOT NULL DEFAULT 0,
    UNIQUE (guild_id, length, period)
);
-- Seasons whose end is still to be announced, by when they end: one short read finds those due.
CREATE INDEX seasons_unannounced ON seasons (ends_at) WHERE announced = 0;
