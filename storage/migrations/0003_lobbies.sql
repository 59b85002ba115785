-- Lobbies gather players for a game whose number of seats is only known when the host starts it.
CREATE TABLE lobbies (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    kind         TEXT    NOT NULL,
    guild_id     INTEGER,
    channel_id   INTEGER NOT NULL,
    message_id   INTEGER,
    host_id      INTEGER NOT NULL,
    max_players  INTEGER NOT NULL,
    options      TEXT    NOT NULL DEFAULT '{}',
    turn_timeout REAL    NOT NULL,
    -- open: taking players; started: became game_id; cancelled / expired: closed without a game.
    status       TEXT    NOT NULL CHECK (status IN ('open', 'started', 'cancelled', 'expired')),
    game_id      INTEGER REFERENCES games (id),
    deadline     REAL,   -- when an open lobby expires
    version      INTEGER NOT NULL DEFAULT 0,
    created_at   REAL    NOT NULL
);
CREATE INDEX lobbies_by_deadline ON lobbies (deadline) WHERE deadline IS NOT NULL;

CREATE TABLE lobby_members (
    lobby_id INTEGER NOT NULL REFERENCES lobbies (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,  -- join order, which becomes seat order
    user_id  INTEGER,           -- NULL for a bot
    bot      TEXT,
    PRIMARY KEY (lobby_id, position),
    CHECK ((user_id IS NULL) <> (bot IS NULL))
) WITHOUT ROWID;
CREATE UNIQUE INDEX lobby_members_once ON lobby_members (lobby_id, user_id) WHERE user_id IS NOT NULL;
