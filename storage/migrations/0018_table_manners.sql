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
-- A turn notification held back because its person made a move in the game within the last minute (they are at the
-- table): sent at `due_at` if the decision is still theirs at the same turn (`seat`, `turn`: the game's turn token),
-- by the timer loop, as an owed announcement. One per game: a newer one replaces it.
CREATE TABLE held_pings (
    game_id INTEGER PRIMARY KEY,
    user_id INTEGER NOT NULL,
    seat    INTEGER NOT NULL,
    turn    INTEGER NOT NULL,
    due_at  REAL NOT NULL
);
CREATE INDEX held_pings_due ON held_pings (due_at);
