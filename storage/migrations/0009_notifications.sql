-- How each person wants to be told that a decision is theirs (/notifications): a mention in the game's channel
-- or thread (the default, when there is no row), a direct message, or nothing.
CREATE TABLE user_settings (
    user_id    INTEGER PRIMARY KEY,
    notify     TEXT    NOT NULL DEFAULT 'mention' CHECK (notify IN ('mention', 'dm', 'off')),
    updated_at REAL    NOT NULL
);

-- The one live turn notification of each game (deleted when the next one is sent, or when the game ends), so
-- channels do not fill up with stale pings.
CREATE TABLE turn_pings (
    game_id    INTEGER PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
    user_id    INTEGER NOT NULL,
    channel_id INTEGER NOT NULL,
    message_id INTEGER NOT NULL,
    created_at REAL    NOT NULL
);
