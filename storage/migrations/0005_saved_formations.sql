-- Formations players save for hidden-setup games (Game of the Generals): only ever shown to their owner.
CREATE TABLE saved_formations (
    user_id    INTEGER NOT NULL,
    kind       TEXT    NOT NULL,  -- the game kind, e.g. 'generals'
    name       TEXT    NOT NULL,
    setup      TEXT    NOT NULL,  -- the engine's own setup text (validated by the engine when used)
    created_at REAL    NOT NULL,
    PRIMARY KEY (user_id, kind, name)
) WITHOUT ROWID;
