-- Issue 25 (a record of finishing games): how many games each person finished and how many they abandoned, per
-- server and global (guild_id 0, as the ladders), counted in the transaction that ends a game (bot/service/
-- finishing.py says what counts as which). A row is only ever added to, never recomputed.
CREATE TABLE finishing (
    guild_id  INTEGER NOT NULL,
    user_id   INTEGER NOT NULL,
    finished  INTEGER NOT NULL DEFAULT 0,
    abandoned INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (guild_id, user_id)
) WITHOUT ROWID;
-- The share of games a person must have finished to join an open table (a whole percent), or NULL: anyone may.
ALTER TABLE lobbies ADD COLUMN min_finished INTEGER;
-- Back-fill from the games already stored: every seat of a person in a finished game counts, abandoned when that seat
-- was forfeited by its turn timer (a `timeout` in its move log), else finished. A game whose moves went to the archive
-- file (bot/archive.py) keeps no log here: its people count as having finished it.
INSERT INTO finishing (guild_id, user_id, finished, abandoned)
    SELECT scope, user_id, sum(1 - timed_out), sum(timed_out) FROM (
        SELECT s.scope AS scope, p.user_id AS user_id,
               CASE WHEN EXISTS (SELECT 1 FROM moves m WHERE m.game_id = p.game_id AND m.seat = p.seat
                                                          AND m.action = 'timeout') THEN 1 ELSE 0 END AS timed_out
          FROM games g
          JOIN game_players p ON p.game_id = g.id AND p.user_id IS NOT NULL
          JOIN (SELECT id, guild_id AS scope FROM games WHERE guild_id IS NOT NULL
                UNION ALL SELECT id, 0 FROM games) AS s ON s.id = g.id
         WHERE g.status = 'finished'
    ) AS seats GROUP BY scope, user_id;
