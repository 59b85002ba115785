-- Issue 25 (as SQLite's 0024_tournament_start_missed.sql): when a tournament's start time came with too few players.
ALTER TABLE tournaments ADD COLUMN start_missed DOUBLE PRECISION;
UPDATE tournaments SET start_missed = (
    SELECT CAST(b.value AS DOUBLE PRECISION) FROM bot_state b
    WHERE b.key = 'tournament:' || CAST(tournaments.id AS TEXT) || ':start-missed');
DELETE FROM bot_state WHERE key LIKE 'tournament:%:start-missed';
