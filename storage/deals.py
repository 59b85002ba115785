"""Deals: numbered, non-binding proposals made during a game, kept with its record."""

from __future__ import annotations

import json
from dataclasses import dataclass

import aiosqlite

from storage.db import Database


@dataclass(frozen=True)
class Deal:
    game_id: int
    number: int
    author_id: int
    text: str
    message_id: int | None
    created_at: float
    accepted_by: tuple[int, ...]  # users who marked it accepted, in the order they did


async def propose_deal(conn: aiosqlite.Connection, game_id: int, author_id: int, text: str, now: float) -> Deal:
    """Add the game's next deal. Its number is taken in the INSERT itself, which runs inside the write transaction
    (sqlite3 begins it before any INSERT), so two proposals, even from two processes, never get the same one."""
    rows = list(await conn.execute_fetchall(
        "INSERT INTO deals (game_id, number, author_id, text, created_at)"
        " VALUES (?, (SELECT COALESCE(MAX(number), 0) + 1 FROM deals WHERE game_id = ?), ?, ?, ?)"
        " RETURNING number",
        (game_id, game_id, author_id, text, now),
    ))
    return Deal(game_id, int(rows[0][0]), author_id, text, None, now, ())


async def toggle_acceptance(
    conn: aiosqlite.Connection, game_id: int, number: int, user_id: int, now: float
) -> Deal | None:
    """Mark the deal accepted by `user_id`, or take that back; None if there is no such deal."""
    cur = await conn.execute(
        "DELETE FROM deal_acceptances WHERE game_id = ? AND number = ? AND user_id = ?",
        (game_id, number, user_id),
    )
    if cur.rowcount == 0:
        await conn.execute(
            "INSERT INTO deal_acceptances (game_id, number, user_id, created_at)"
            " SELECT game_id, number, ?, ? FROM deals WHERE game_id = ? AND number = ?",
            (user_id, now, game_id, number),
        )
    deals = await load_deals(conn, game_id, number)
    return deals[0] if deals else None


async def load_deals(conn: aiosqlite.Connection, game_id: int, number: int | None = None) -> list[Deal]:
    """The game's deals in order (only deal `number`, if given)."""
    rows = await conn.execute_fetchall(
        "SELECT number, author_id, text, message_id, created_at,"
        " (SELECT json_group_array(user_id) FROM (SELECT user_id FROM deal_acceptances a"
        "  WHERE a.game_id = deals.game_id AND a.number = deals.number ORDER BY created_at, user_id))"
        " FROM deals WHERE game_id = ? AND (? IS NULL OR number = ?) ORDER BY number",
        (game_id, number, number),
    )
    return [Deal(game_id, int(r[0]), int(r[1]), str(r[2]), r[3], float(r[4]), tuple(json.loads(r[5])))
            for r in rows]


class DealStore:
    """Deals on their own. Who may propose or accept one is the service's to check (bot/service/deals.py), inside
    the same transaction as the write, with the functions above."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def propose(self, game_id: int, author_id: int, text: str, now: float) -> Deal:
        async with self._db.transaction() as conn:
            return await propose_deal(conn, game_id, author_id, text, now)

    async def set_message(self, game_id: int, number: int, message_id: int) -> None:
        async with self._db.transaction() as conn:
            await conn.execute("UPDATE deals SET message_id = ? WHERE game_id = ? AND number = ?",
                               (message_id, game_id, number))

    async def toggle_acceptance(self, game_id: int, number: int, user_id: int, now: float) -> Deal | None:
        """Mark the deal accepted by `user_id`, or take that back; None if there is no such deal."""
        async with self._db.transaction() as conn:
            return await toggle_acceptance(conn, game_id, number, user_id, now)

    async def get(self, game_id: int, number: int) -> Deal | None:
        async with self._db.reading() as conn:
            deals = await load_deals(conn, game_id, number)
        return deals[0] if deals else None

    async def of_game(self, game_id: int) -> list[Deal]:
        async with self._db.reading() as conn:
            return await load_deals(conn, game_id)
