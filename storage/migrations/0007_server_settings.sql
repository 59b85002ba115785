-- Per-server settings chosen with /settings (NULL: the bot's default).
CREATE TABLE server_settings (
    guild_id       INTEGER PRIMARY KEY,
    turn_timeout   REAL,              -- seconds per move for new games
    images         INTEGER,           -- board pictures on (1) or off (0)
    threads        INTEGER,           -- a thread per game where a game uses one (1) or not (0)
    disabled_games TEXT NOT NULL DEFAULT '[]',  -- JSON list of game kinds switched off here
    channel_id     INTEGER            -- when set, new games start only in this channel
);
