-- Issue 25 (as SQLite's 0019_finishing.sql): each person's count of games finished and abandoned, per server and
-- global; the share an open table may require; back-filled from the games already stored.
CREATE TABLE finishing (
    guild_id  BIGINT  NOT NULL,
    user_id   BIGINT  NOT NULL,
    finished  INTEGER NOT NULL DEFAULT 0,
    abandoned INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (guild_id, user_id)
);
ALTER TABLE lobbies ADD COLUMN min_finished INTEGER;
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
