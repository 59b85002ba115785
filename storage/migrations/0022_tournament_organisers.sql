-- Issue 25: a role whose members may run the server's tournaments (make one, start, pause, cancel, remove players),
-- besides those with the Manage Server permission; None: Manage Server only.
ALTER TABLE server_settings ADD COLUMN organiser_role INTEGER;
