-- Where each player's private board of a hidden-information game lives (Game of the Generals): the DM
-- message the bot keeps up to date, or a note that the DM could not be delivered (message_id NULL), in
-- which case the player uses the ephemeral "My board" instead.
CREATE TABLE private_boards (
    game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat       INTEGER NOT NULL,
    channel_id INTEGER,           -- the DM channel, when known
    message_id INTEGER,           -- NULL: the DM failed
    updated_at REAL    NOT NULL,
    PRIMARY KEY (game_id, seat)
) WITHOUT ROWID;
