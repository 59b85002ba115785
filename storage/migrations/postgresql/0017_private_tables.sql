-- So Long Sucker's table threads (as SQLite's 0017_private_tables.sql): private to the players, per server; a
-- started lobby's message (its game's summary in the channel) found by its game.
ALTER TABLE server_settings ADD COLUMN private_tables INTEGER;
CREATE INDEX lobbies_by_game ON lobbies (game_id) WHERE game_id IS NOT NULL;
