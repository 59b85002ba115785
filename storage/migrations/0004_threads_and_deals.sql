-- A game may get its own thread for table talk; slash commands used inside it find the game by it.
ALTER TABLE games ADD COLUMN thread_id INTEGER;
CREATE INDEX games_by_place ON games (channel_id, status);
CREATE INDEX games_by_thread ON games (thread_id) WHERE thread_id IS NOT NULL;

-- Non-binding proposals made during a game (So Long Sucker's deals), kept with the game's record.
CREATE TABLE deals (
    game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    number     INTEGER NOT NULL,  -- 1, 2, 3, ... within the game
    author_id  INTEGER NOT NULL,
    text       TEXT    NOT NULL,
    message_id INTEGER,
    created_at REAL    NOT NULL,
    PRIMARY KEY (game_id, number)
) WITHOUT ROWID;

CREATE TABLE deal_acceptances (
    game_id    INTEGER NOT NULL,
    number     INTEGER NOT NULL,
    user_id    INTEGER NOT NULL,
    created_at REAL    NOT NULL,
    PRIMARY KEY (game_id, number, user_id),
    FOREIGN KEY (game_id, number) REFERENCES deals (game_id, number) ON DELETE CASCADE
) WITHOUT ROWID;
