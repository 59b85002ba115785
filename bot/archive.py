"""`python -m bot.archive`: move old finished games out of the live database, keeping their results.

    python -m bot.archive --older-than 180 --dry-run   # what would move
    python -m bot.archive --older-than 180             # safe while the bot runs
    python -m bot.archive --bring-back 1234 1240       # put archived games back

Games over (finished, declined or expired) for more than the given number of days lose their move logs and
snapshots to the archive file (default: next to the database, `bot.archive.sqlite3` for `bot.sqlite3`); their
results, seats and ratings stay, so /stats, /history and /leaderboard still count them. /replay of an archived
game says that it was archived. See storage/archive.py.

The database is DATABASE_PATH from the environment or .env, as for the bot, or --database.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from bot.backup import sqlite_file
from storage.archive import ArchiveError, archive, bring_back, default_archive_path


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot.archive", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database", help="the bot's database file (default: DATABASE_PATH)")
    parser.add_argument("--archive", help="the archive file (default: <database>.archive.sqlite3 beside it)")
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--older-than", type=float, metavar="DAYS", help="archive games over for more than DAYS days")
    what.add_argument("--bring-back", type=int, nargs="+", metavar="GAME", help="put these archived games back")
    parser.add_argument("--dry-run", action="store_true", help="only say what --older-than would archive")
    args = parser.parse_args(argv)
    database = sqlite_file(args.database)
    if database is None:
        return 2
    target = Path(args.archive) if args.archive else default_archive_path(database)
    try:
        if args.bring_back:
            ids = bring_back(database, target, args.bring_back)
            print(f"brought back {len(ids)} games from {target}: " + ", ".join(f"#{i}" for i in ids))
            return 0
        result = archive(database, target, older_than_days=args.older_than, dry_run=args.dry_run)
    except (ArchiveError, sqlite3.Error, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    cutoff = datetime.fromtimestamp(result.cutoff, UTC).strftime("%Y-%m-%d %H:%M UTC")
    other = ", ".join(f"{n} {table} rows" for table, n in sorted(result.rows.items()) if table != "moves" and n)
    summary = f"{result.games} games over before {cutoff} ({result.moves} moves{', ' + other if other else ''})"
    if args.dry_run:
        print(f"would archive {summary} into {target}")
    else:
        print(f"archived {summary} into {target}; their results stay for /stats, /history and the ladders")
        if result.skipped:
            print(f"left {len(result.skipped)} games that changed meanwhile (run again to archive them): "
                  + ", ".join(f"#{i}" for i in result.skipped[:20]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
