"""Each person's record of finishing games: how many they finished and how many they abandoned, per server and global
(migration 0019). What counts as which is the service's to say (bot/service/finishing.py); here are the counts."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from storage.database import Database
from storage.ratings import GLOBAL
from storage.sql import Plan, Sql

TIMED_OUT = "timeout"  # the move-log action of a seat its turn timer forfeited (games.base.TIMEOUT)


@dataclass(frozen=True)
class FinishingRecord:
    """One person's counts on one server, or across every server (`guild_id` GLOBAL)."""

    guild_id: int
    user_id: int
    finished: int
    abandoned: int

    @property
    def games(self) -> int:
        return self.finished + self.abandoned

    @property
    def percent(self) -> int:
        """The share finished, as a whole percent rounded down (99.9% is not 100%); 100 with no games."""
        return 100 if self.games == 0 else self.finished * 100 // self.games


# An upsert that adds: two games of one person ending at once in two processes both count (each adds to the row as
# it is when its own statement runs, on either database), and nothing reads the row first.
_ADD = ("INSERT INTO finishing (guild_id, user_id, finished, abandoned) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (guild_id, user_id) DO UPDATE SET finished = finishing.finished + excluded.finished,"
        " abandoned = finishing.abandoned + excluded.abandoned")


def count_ending(game_id: int, guild_id: int | None, people: Iterable[tuple[int, int]]) -> Plan[None]:
    """Count one game that ends now for its `people` (seat, user id): a seat forfeited by its turn timer (a
    `timeout` in the game's move log, this transaction's final move included) abandoned it, every other finished it.
    Run inside the write of the final move, so the count commits with the ending or not at all."""
    done = yield Sql("SELECT DISTINCT seat FROM moves WHERE game_id = ? AND action = ?", (game_id, TIMED_OUT))
    timed_out = {int(r[0]) for r in done.rows}
    scopes = [GLOBAL] if guild_id is None else [guild_id, GLOBAL]
    rows = [(scope, user, int(seat not in timed_out), int(seat in timed_out))
            for scope in scopes for seat, user in people]
    if rows:
        yield Sql(_ADD, rows, many=True)


def read_finishing(guild_id: int, user_id: int) -> Plan[FinishingRecord | None]:
    done = yield Sql("SELECT finished, abandoned FROM finishing WHERE guild_id = ? AND user_id = ?",
                     (guild_id, user_id))
    r = done.one()
    return None if r is None else FinishingRecord(guild_id, user_id, int(r[0]), int(r[1]))


async def finishing_of(db: Database, user_id: int, guild_id: int = GLOBAL) -> FinishingRecord | None:
    """A person's counts on a server (or globally), None if they have none there: one read of the read-only side."""
    return await db.read(read_finishing(guild_id, user_id))
