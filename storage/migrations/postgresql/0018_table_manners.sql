-- Issue 23 (as SQLite's 0018_table_manners.sql): a declined draw offer, one rematch per finished game,
-- turn notifications held back while their person is at the table.
ALTER TABLE games ADD COLUMN draw_declined INTEGER;
CREATE TABLE rematches (
    game_id    BIGINT PRIMARY KEY,
    rematch_id BIGINT,
    lobby_id   BIGINT,
    created_at DOUBLE PRECISION NOT NULL
);
CREATE TABLE held_pings (
    game_id BIGINT PRIMARY KEY,
    user_id BIGINT NOT NULL,
    seat    INTEGER NOT NULL,
    turn    BIGINT NOT NULL,
    due_at  DOUBLE PRECISION NOT NULL
);
CREATE INDEX held_pings_due ON held_pings (due_at);
