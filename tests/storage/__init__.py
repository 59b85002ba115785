"""Storage tests against real SQLite files: migrations, repositories, backup, archive, formations."""
