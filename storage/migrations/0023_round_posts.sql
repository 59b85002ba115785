-- Issue 25: where a tournament round is shown. `message_id`: its pairings message in the tournament's channel, stored
-- once posted (a round without one is posted by whichever process starts next: never lost, posted once); 0 for the
-- rounds made before this column, posted when they started. `thread_id`: the round's thread, opened from that message,
-- where its games are played (stored once: every process reuses it); the tournament's channel itself when no thread
-- could be opened there; NULL while none was opened (or for a game kind whose tables open their own threads).
ALTER TABLE tournament_rounds ADD COLUMN message_id INTEGER;
ALTER TABLE tournament_rounds ADD COLUMN thread_id INTEGER;
UPDATE tournament_rounds SET message_id = 0;
CREATE INDEX tournament_rounds_unposted ON tournament_rounds (created_at) WHERE message_id IS NULL;
