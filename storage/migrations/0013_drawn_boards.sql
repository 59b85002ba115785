-- What each board message of an active game was last drawn from: the game's version then, and the key of what
-- was drawn (a hash of the views and settings behind it). Written only after Discord accepted the edit (or the
-- message), so a process that stops between storing an action and redrawing leaves an older version here, and
-- the next start redraws exactly the boards whose version differs from their game's. Rows of games that are over
-- are removed: only active games are restored.
CREATE TABLE drawn_boards (
    message_id INTEGER PRIMARY KEY,  -- the channel message, a DM board, or an ephemeral board (its response id)
    game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    version    INTEGER NOT NULL,     -- games.version of the state it shows
    key        TEXT    NOT NULL      -- what it was drawn from: the same key means an edit would change nothing
);
CREATE INDEX drawn_boards_by_game ON drawn_boards (game_id);
