-- Owed announcements, one per timer action rather than one per game: each is known by its game, its event and the
-- game's move count right after the timer acted (`ply`). When a process stops before announcing a player's forfeit
-- and the game's next timer fires before a live process took it over, both are still owed, and each is worded from
-- the position it happened in. A reminder still lapses on its own once its decision moved on (its seat and ply).
CREATE TABLE owed_announcements_new (
    game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    event      TEXT    NOT NULL,            -- bot.service.TimerEvent's value: reminder, forfeit, defaulted, ...
    ending     TEXT    NULL,                -- JSON of the game's ending (places, reason, rating changes) when the
                                            -- timer ended it: its ending message is re-sent with the same ratings
    seat       INTEGER NULL,                -- a reminder's seat: it is re-sent only while that seat decides at `ply`
    ply        INTEGER NOT NULL,            -- the game's move count right after the timer acted
    attempts   INTEGER NOT NULL DEFAULT 0,  -- failed sends: after a few it is given up (logged), never retried forever
    created_at REAL    NOT NULL,
    PRIMARY KEY (game_id, event, ply)
);
INSERT INTO owed_announcements_new (game_id, event, ending, seat, ply, attempts, created_at)
    SELECT o.game_id, o.event, o.ending, o.seat, COALESCE(o.ply, g.move_count), o.attempts, o.created_at
      FROM owed_announcements o JOIN games g ON g.id = o.game_id;
DROP TABLE owed_announcements;
ALTER TABLE owed_announcements_new RENAME TO owed_announcements;
