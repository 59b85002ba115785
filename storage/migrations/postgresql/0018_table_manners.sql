-- Issue 23 (as SQLite's 0018_table_manners.sql): a declined draw offer.
ALTER TABLE games ADD COLUMN draw_declined INTEGER;
