"""Which rematch each finished game made (rematches): at most one waits or is played at a time, whoever asks.
Plain functions of the connection, to run inside the transaction that makes the rematch (like storage/owed.py)."""

from __future__ import annotations

from dataclasses import dataclass

from storage.database import Connection
from storage.sql import statement


@dataclass(frozen=True)
class MadeRematch:
    """What a finished game's Rematch made: a game (a challenge, or a game against the computer) or a lobby."""

    game_id: int | None
    lobby_id: int | None


async def rematch_of(conn: Connection, game_id: int) -> MadeRematch | None:
    """The latest rematch finished game `game_id` made, or None."""
    done = await conn.run(statement("SELECT rematch_id, lobby_id FROM rematches WHERE game_id = ?", (game_id,)))
    row = done.one()
    return MadeRematch(row[0], row[1]) if row is not None else None


async def record_rematch(conn: Connection, game_id: int, made: MadeRematch, now: float) -> None:
    """Record the rematch `game_id` just made (it replaces one that no longer waits nor is played)."""
    await conn.run(statement(
        "INSERT INTO rematches (game_id, rematch_id, lobby_id, created_at) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (game_id) DO UPDATE SET rematch_id = excluded.rematch_id, lobby_id = excluded.lobby_id,"
        " created_at = excluded.created_at", (game_id, made.game_id, made.lobby_id, now)))
