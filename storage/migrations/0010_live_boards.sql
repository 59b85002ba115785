-- A player's latest ephemeral "My board" (Generals), which the bot keeps current through the token of the
-- interaction that showed it. Discord honours such a token for 15 minutes, so the row says until when; after
-- that the board cannot be edited and the player is told to open it again. The token lets only that one
-- message be edited (and follow-ups be sent) for those minutes; the row is removed when it expires.
CREATE TABLE live_boards (
    game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat       INTEGER NOT NULL,
    message_id INTEGER NOT NULL,
    token      TEXT    NOT NULL,
    expires_at REAL    NOT NULL,
    PRIMARY KEY (game_id, seat)
) WITHOUT ROWID;
