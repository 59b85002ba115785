"""One of the two bot processes of the two-process rating test (tests/app/test_shared_file.py): on the shared
database (a SQLite file or a postgresql:// URL), it finishes `games` rated Chopsticks games, each won by the shared
player against this process's own opponent, starting at the same moment as the other process.

    python -m tests.support.rating_worker DATABASE OPPONENT GAMES START_AT
"""

from __future__ import annotations

import asyncio
import sys
import time

from bot.service import GameService, Player
from storage.connection import open_database

SHARED_PLAYER = 1
GUILD = 5


async def finish_games(target: str, opponent: int, games: int, start_at: float) -> None:
    db = await open_database(target)
    try:
        service = GameService(db)
        while time.time() < start_at:  # both processes begin together, so their writes interleave
            await asyncio.sleep(0.002)
        for _ in range(games):
            game = await service.create("chopsticks", guild_id=GUILD, channel_id=1,
                                        players=[Player(SHARED_PLAYER), Player(opponent)], options={"first": 0})
            await service.act(game.id, SHARED_PLAYER, "AC")
            await service.resign(game.id, opponent)  # after a move: a rated loss for the opponent
    finally:
        await db.close()


if __name__ == "__main__":
    asyncio.run(finish_games(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])))
