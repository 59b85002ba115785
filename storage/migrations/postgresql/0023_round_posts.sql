-- Issue 25 (as SQLite's 0023_round_posts.sql): a tournament round's pairings message and its thread.
ALTER TABLE tournament_rounds ADD COLUMN message_id BIGINT;
ALTER TABLE tournament_rounds ADD COLUMN thread_id BIGINT;
UPDATE tournament_rounds SET message_id = 0;
CREATE INDEX tournament_rounds_unposted ON tournament_rounds (created_at) WHERE message_id IS NULL;
