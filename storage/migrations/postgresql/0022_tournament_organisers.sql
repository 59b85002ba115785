-- Issue 25 (as SQLite's 0022_tournament_organisers.sql): the role that may run the server's tournaments.
ALTER TABLE server_settings ADD COLUMN organiser_role BIGINT;
