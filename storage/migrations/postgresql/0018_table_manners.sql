-- Issue 23 (as SQLite's 0018_table_manners.sql): a declined draw offer, one rematch per finished game.
ALTER TABLE games ADD COLUMN draw_declined INTEGER;
CREATE TABLE rematches (
    game_id    BIGINT PRIMARY KEY,
    rematch_id BIGINT,
    lobby_id   BIGINT,
    created_at DOUBLE PRECISION NOT NULL
);
