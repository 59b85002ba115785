-- As SQLite's 0025_owed_per_timer_action.sql: owed announcements, one per timer action (game, event and the game's
-- move count right after the timer acted) rather than one per game.
UPDATE owed_announcements o SET ply = g.move_count FROM games g WHERE g.id = o.game_id AND o.ply IS NULL;
ALTER TABLE owed_announcements DROP CONSTRAINT owed_announcements_pkey;
ALTER TABLE owed_announcements ALTER COLUMN ply SET NOT NULL;
ALTER TABLE owed_announcements ADD PRIMARY KEY (game_id, event, ply);
