-- Issue 23 (draw offers, rematches, turn pings at the table).
-- A draw offer lasts until the opponent answers: the offerer's own move keeps it (draw_offer stays), the opponent's
-- move declines it; `draw_declined` is then the seat whose offer that move declined, until the next move, so that
-- the boards drawn after it say so to the one who offered.
ALTER TABLE games ADD COLUMN draw_declined INTEGER;
-- At most one rematch per finished game: `game_id` is the finished game, `rematch_id` the game its Rematch made (a
-- challenge, or a game against the computer) or `lobby_id` the table it opened. A later Rematch points to it while
-- it waits or is played.
CREATE TABLE rematches (
    game_id    INTEGER PRIMARY KEY,
    rematch_id INTEGER,
    lobby_id   INTEGER,
    created_at REAL NOT NULL
);
