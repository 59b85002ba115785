"""Service-level tests without Discord: the use-cases, lobbies and ratings over a real SQLite file."""
