-- A turn timer's announcement that is owed: written in the same transaction as the timer's change (a reminder's
-- remind_at cleared, a forfeit's move, an expired challenge) and deleted only once the announcement was sent, so a
-- process that stops in between sends it after its restart (at least once), while the change itself was made once.
-- One per game: a newer timer's announcement replaces an older one still owed (the older no longer applies).
CREATE TABLE owed_announcements (
    game_id    INTEGER PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
    event      TEXT    NOT NULL,            -- bot.service.TimerEvent's value: reminder, forfeit, defaulted, ...
    ending     TEXT    NULL,                -- JSON of the game's ending (places, reason, rating changes) when the
                                            -- timer ended it: its ending message is re-sent with the same ratings
    seat       INTEGER NULL,                -- a reminder's seat and the game's move count then: it is re-sent only
    ply        INTEGER NULL,                -- while it is still that seat's decision in that position
    attempts   INTEGER NOT NULL DEFAULT 0,  -- failed sends: after a few it is given up (logged), never retried forever
    created_at REAL    NOT NULL
);
