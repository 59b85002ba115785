-- So Long Sucker's table threads (issue 23): a server may keep each table's thread private to its players
-- (/settings set private_tables; NULL: public, everyone reads and anyone may talk).
ALTER TABLE server_settings ADD COLUMN private_tables INTEGER;
-- A started lobby's message becomes its game's summary in the channel; it is found by the game it started.
CREATE INDEX lobbies_by_game ON lobbies (game_id) WHERE game_id IS NOT NULL;
