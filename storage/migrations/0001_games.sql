-- Games, their seats, and the append-only move log.
CREATE TABLE games (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    kind          TEXT    NOT NULL,
    guild_id      INTEGER,
    channel_id    INTEGER NOT NULL,
    message_id    INTEGER,
    -- pending: challenge sent; active: being played; finished / declined / expired: over for good.
    status        TEXT    NOT NULL CHECK (status IN ('pending', 'active', 'finished', 'declined', 'expired')),
    options       TEXT    NOT NULL DEFAULT '{}',
    initial_state TEXT    NOT NULL,          -- JSON snapshot before the first move: the root of every replay
    state         TEXT    NOT NULL,          -- JSON snapshot after the last move
    version       INTEGER NOT NULL DEFAULT 0, -- bumped by every write; writes are guarded by it
    move_count    INTEGER NOT NULL DEFAULT 0,
    draw_offer    INTEGER,                   -- seat offering a draw; cleared by the next move
    created_at    REAL    NOT NULL,
    updated_at    REAL    NOT NULL,
    finished_at   REAL
);
CREATE INDEX games_by_status ON games (status, kind);

CREATE TABLE game_players (
    game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat    INTEGER NOT NULL,
    user_id INTEGER,            -- NULL for a bot seat
    bot     TEXT,               -- the bot's level for a bot seat
    place   INTEGER,            -- final place (1 = first) once the game is over
    PRIMARY KEY (game_id, seat),
    CHECK ((user_id IS NULL) <> (bot IS NULL))
) WITHOUT ROWID;
CREATE INDEX game_players_by_user ON game_players (user_id);

CREATE TABLE moves (
    game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    ply        INTEGER NOT NULL,  -- 1, 2, 3, ... in the order the moves were accepted
    seat       INTEGER NOT NULL,
    user_id    INTEGER,           -- who clicked (NULL for a bot or the turn timer)
    action     TEXT    NOT NULL,  -- the action's stable text form, or resign / timeout / draw-agreed
    created_at REAL    NOT NULL,
    PRIMARY KEY (game_id, ply)
) WITHOUT ROWID;

-- The move log is the game's history: rows are only ever added (deleting a whole game is still possible).
CREATE TRIGGER moves_are_append_only BEFORE UPDATE ON moves
BEGIN
    SELECT RAISE(ABORT, 'the move log is append-only');
END;
