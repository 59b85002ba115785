-- The language of each server's public messages, chosen with /settings (NULL: the server's preferred locale),
-- and of each person's direct messages (their Discord language, as their latest interaction showed it).
ALTER TABLE server_settings ADD COLUMN language TEXT;
ALTER TABLE user_settings ADD COLUMN language TEXT;
