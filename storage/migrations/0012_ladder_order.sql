-- The ladders' order kept in tables of their own, so that a leaderboard page, a player's place and the number of
-- rated players cost about the same with 100,000 players as with 10 (the OFFSET and count(*) over `ratings`
-- they replace walked every row above the page: 38-74 ms for page 5,000 of 100,000 players).
--
-- `ladder` holds every rating row's place: the ladder order is `mu - 3 * sigma` DESC, then user_id (exactly the
-- ORDER BY of the queries it replaces), led by a coarse bucket of that number. `ladder_buckets` counts the
-- players of each bucket. A bucket is a quarter of a point of mu - 3 sigma (10 points of the displayed rating),
-- so a ladder has a few hundred: the players above someone are the sum of the buckets above theirs plus a count
-- inside their own, and page n starts inside the bucket where the running sum passes 10 n.
-- The bucket is CAST((mu - 3 * sigma) * 4 + 1000000 AS INTEGER): every step of it is monotonic, so ordering by
-- (bucket DESC, ordinal DESC, user_id) is ordering by (ordinal DESC, user_id); the offset makes truncation the same
-- as flooring for any rating a game can produce. storage/ratings.py uses the same two expressions.
CREATE TABLE ladder (
    kind     TEXT    NOT NULL,
    guild_id INTEGER NOT NULL,
    bucket   INTEGER NOT NULL,
    ordinal  REAL    NOT NULL,  -- mu - 3 * sigma, computed by SQLite as the ladder queries always did
    user_id  INTEGER NOT NULL,
    PRIMARY KEY (kind, guild_id, bucket DESC, ordinal DESC, user_id)
) WITHOUT ROWID;

CREATE TABLE ladder_buckets (
    kind     TEXT    NOT NULL,
    guild_id INTEGER NOT NULL,
    bucket   INTEGER NOT NULL,
    players  INTEGER NOT NULL,
    PRIMARY KEY (kind, guild_id, bucket DESC)
) WITHOUT ROWID;

INSERT INTO ladder (kind, guild_id, bucket, ordinal, user_id)
    SELECT kind, guild_id, CAST((mu - 3 * sigma) * 4 + 1000000 AS INTEGER), mu - 3 * sigma, user_id FROM ratings;
INSERT INTO ladder_buckets (kind, guild_id, bucket, players)
    SELECT kind, guild_id, bucket, count(*) FROM ladder GROUP BY kind, guild_id, bucket;

-- Triggers keep both tables exact whatever form a write to `ratings` takes: INSERT, UPDATE, DELETE, an upsert, or
-- INSERT OR REPLACE (whose implicit delete fires no DELETE trigger: the BEFORE INSERT trigger takes the replaced
-- row off the ladder instead). A bucket is counted down only for a ladder row that is there, so an upsert's
-- BEFORE INSERT and its UPDATE never take the same player off twice.
CREATE TRIGGER ratings_ladder_replace BEFORE INSERT ON ratings BEGIN
    UPDATE ladder_buckets SET players = players - 1
     WHERE (kind, guild_id, bucket) IN (
           SELECT kind, guild_id, bucket FROM ladder
            WHERE (kind, guild_id, bucket, ordinal, user_id) IN (
                  SELECT kind, guild_id, CAST((mu - 3 * sigma) * 4 + 1000000 AS INTEGER), mu - 3 * sigma, user_id
                    FROM ratings WHERE kind = NEW.kind AND guild_id = NEW.guild_id AND user_id = NEW.user_id));
    DELETE FROM ladder
     WHERE (kind, guild_id, bucket, ordinal, user_id) IN (
           SELECT kind, guild_id, CAST((mu - 3 * sigma) * 4 + 1000000 AS INTEGER), mu - 3 * sigma, user_id
             FROM ratings WHERE kind = NEW.kind AND guild_id = NEW.guild_id AND user_id = NEW.user_id);
    DELETE FROM ladder_buckets
     WHERE (kind, guild_id, bucket) IN (
           SELECT kind, guild_id, CAST((mu - 3 * sigma) * 4 + 1000000 AS INTEGER)
             FROM ratings WHERE kind = NEW.kind AND guild_id = NEW.guild_id AND user_id = NEW.user_id)
       AND players <= 0;
END;

CREATE TRIGGER ratings_ladder_insert AFTER INSERT ON ratings BEGIN
    INSERT INTO ladder (kind, guild_id, bucket, ordinal, user_id)
        VALUES (NEW.kind, NEW.guild_id, CAST((NEW.mu - 3 * NEW.sigma) * 4 + 1000000 AS INTEGER),
                NEW.mu - 3 * NEW.sigma, NEW.user_id);
    INSERT INTO ladder_buckets (kind, guild_id, bucket, players)
        VALUES (NEW.kind, NEW.guild_id, CAST((NEW.mu - 3 * NEW.sigma) * 4 + 1000000 AS INTEGER), 1)
        ON CONFLICT (kind, guild_id, bucket) DO UPDATE SET players = players + 1;
END;

CREATE TRIGGER ratings_ladder_update AFTER UPDATE OF kind, guild_id, user_id, mu, sigma ON ratings BEGIN
    UPDATE ladder_buckets SET players = players - 1
     WHERE (kind, guild_id, bucket) IN (
           SELECT kind, guild_id, bucket FROM ladder
            WHERE (kind, guild_id, bucket, ordinal, user_id) = (OLD.kind, OLD.guild_id,
                  CAST((OLD.mu - 3 * OLD.sigma) * 4 + 1000000 AS INTEGER), OLD.mu - 3 * OLD.sigma, OLD.user_id));
    DELETE FROM ladder
     WHERE (kind, guild_id, bucket, ordinal, user_id) = (OLD.kind, OLD.guild_id,
           CAST((OLD.mu - 3 * OLD.sigma) * 4 + 1000000 AS INTEGER), OLD.mu - 3 * OLD.sigma, OLD.user_id);
    DELETE FROM ladder_buckets WHERE kind = OLD.kind AND guild_id = OLD.guild_id
       AND bucket = CAST((OLD.mu - 3 * OLD.sigma) * 4 + 1000000 AS INTEGER) AND players <= 0;
    INSERT INTO ladder (kind, guild_id, bucket, ordinal, user_id)
        VALUES (NEW.kind, NEW.guild_id, CAST((NEW.mu - 3 * NEW.sigma) * 4 + 1000000 AS INTEGER),
                NEW.mu - 3 * NEW.sigma, NEW.user_id);
    INSERT INTO ladder_buckets (kind, guild_id, bucket, players)
        VALUES (NEW.kind, NEW.guild_id, CAST((NEW.mu - 3 * NEW.sigma) * 4 + 1000000 AS INTEGER), 1)
        ON CONFLICT (kind, guild_id, bucket) DO UPDATE SET players = players + 1;
END;

CREATE TRIGGER ratings_ladder_delete AFTER DELETE ON ratings BEGIN
    UPDATE ladder_buckets SET players = players - 1
     WHERE (kind, guild_id, bucket) IN (
           SELECT kind, guild_id, bucket FROM ladder
            WHERE (kind, guild_id, bucket, ordinal, user_id) = (OLD.kind, OLD.guild_id,
                  CAST((OLD.mu - 3 * OLD.sigma) * 4 + 1000000 AS INTEGER), OLD.mu - 3 * OLD.sigma, OLD.user_id));
    DELETE FROM ladder
     WHERE (kind, guild_id, bucket, ordinal, user_id) = (OLD.kind, OLD.guild_id,
           CAST((OLD.mu - 3 * OLD.sigma) * 4 + 1000000 AS INTEGER), OLD.mu - 3 * OLD.sigma, OLD.user_id);
    DELETE FROM ladder_buckets WHERE kind = OLD.kind AND guild_id = OLD.guild_id
       AND bucket = CAST((OLD.mu - 3 * OLD.sigma) * 4 + 1000000 AS INTEGER) AND players <= 0;
END;

-- Nothing orders `ratings` itself any more; its rows are found by their primary key.
DROP INDEX ratings_ladder;
