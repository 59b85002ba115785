"""`python -m bot.backup`: back up the database while the bot runs, or restore a backup.

    python -m bot.backup save backups/bot-2026-11-21.sqlite3     # safe while the bot runs
    python -m bot.backup restore backups/bot-2026-11-21.sqlite3  # stop the bot first

The database is DATABASE_PATH from the environment or .env, as for the bot, or --database.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path

from bot.config import read_dotenv
from storage.backup import BackupError, restore, save

DEFAULT_DATABASE = "data/bot.sqlite3"


class OnPostgresqlError(Exception):
    """The bot's database is PostgreSQL (DATABASE_URL): these tools are for the SQLite file."""


def database_path(explicit: str | None) -> Path:
    if explicit:
        return Path(explicit)
    env = read_dotenv(Path(".env"))
    env.update(os.environ)
    if env.get("DATABASE_URL"):
        raise OnPostgresqlError(
            "this bot's database is PostgreSQL (DATABASE_URL); python -m bot.backup and python -m bot.archive are for "
            "its SQLite file. Back PostgreSQL up with its own tools: pg_dump (see the README).")
    return Path(env.get("DATABASE_PATH") or DEFAULT_DATABASE)


def sqlite_file(explicit: str | None) -> Path | None:
    """`database_path`, or None once the error is said (on stderr) when the bot's database is PostgreSQL."""
    try:
        return database_path(explicit)
    except OnPostgresqlError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot.backup", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database", help="the bot's database file (default: DATABASE_PATH)")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("save", help="write a backup while the bot runs").add_argument("file")
    sub.add_parser("restore", help="put a backup in place (stop the bot first)").add_argument("file")
    args = parser.parse_args(argv)
    database = sqlite_file(args.database)
    if database is None:
        return 2
    try:
        if args.command == "save":
            save(database, Path(args.file))
            print(f"backed up {database} to {args.file} (integrity ok)")
        else:
            restore(Path(args.file), database)
            print(f"restored {args.file} to {database}; the previous file is kept as {database}.before-restore")
    except (BackupError, sqlite3.Error, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
