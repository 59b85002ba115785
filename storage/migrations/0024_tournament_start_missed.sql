-- Issue 25: when a tournament's start time came with too few players (it stays open for its organiser, and that is said
-- once), on the tournament's own row, changed under its version like its status. It was a key of bot_state
-- ('tournament:<id>:start-missed'): those are moved here.
ALTER TABLE tournaments ADD COLUMN start_missed REAL;
UPDATE tournaments SET start_missed = (
    SELECT CAST(b.value AS REAL) FROM bot_state b WHERE b.key = 'tournament:' || CAST(tournaments.id AS TEXT) || ':start-missed');
DELETE FROM bot_state WHERE key LIKE 'tournament:%:start-missed';
