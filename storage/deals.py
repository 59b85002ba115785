"""Deals: numbered, non-binding proposals made during a game, kept with its record."""

from __future__ import annotations

import json
from dataclasses import dataclass

from storage.database import Connection, Store
from storage.sql import READ_FIRST, Dialect, Plan, Sql


@dataclass(frozen=True)
class Deal:
    game_id: int
    number: int
    author_id: int
    text: str
    message_id: int | None
    created_at: float
    accepted_by: tuple[int, ...]  # users who marked it accepted, in the order they did


def _propose(game_id: int, author_id: int, text: str, now: float) -> Plan[Deal]:
    # The number is the game's next one: read first, so that two proposals, even from two processes, take turns.
    yield READ_FIRST
    done = yield Sql(
        "INSERT INTO deals (game_id, number, author_id, text, created_at)"
        " VALUES (?, (SELECT COALESCE(MAX(number), 0) + 1 FROM deals WHERE game_id = ?), ?, ?, ?)"
        " RETURNING number",
        (game_id, game_id, author_id, text, now),
    )
    return Deal(game_id, int(done.value()), author_id, text, None, now, ())


def _toggle(dialect: Dialect, game_id: int, number: int, user_id: int, now: float) -> Plan[Deal | None]:
    done = yield Sql("DELETE FROM deal_acceptances WHERE game_id = ? AND number = ? AND user_id = ?",
                     (game_id, number, user_id))
    if done.rowcount == 0:
        yield Sql("INSERT INTO deal_acceptances (game_id, number, user_id, created_at)"
                  " SELECT game_id, number, ?, ? FROM deals WHERE game_id = ? AND number = ?",
                  (user_id, now, game_id, number))
    deals = yield from _load(dialect, game_id, number)
    return deals[0] if deals else None


def _load(dialect: Dialect, game_id: int, number: int | None = None) -> Plan[list[Deal]]:
    accepted = dialect.json_values("user_id", "deal_acceptances a WHERE a.game_id = deals.game_id"
                                   " AND a.number = deals.number", "created_at, user_id")
    which = "" if number is None else " AND number = ?"
    done = yield Sql(f"SELECT number, author_id, text, message_id, created_at, {accepted}"
                     f" FROM deals WHERE game_id = ?{which} ORDER BY number",
                     (game_id, *(() if number is None else (number,))))
    return [Deal(game_id, int(r[0]), int(r[1]), str(r[2]), r[3], float(r[4]), tuple(json.loads(r[5])))
            for r in done.rows]


async def propose_deal(conn: Connection, game_id: int, author_id: int, text: str, now: float) -> Deal:
    """Add the game's next deal, inside the caller's write transaction."""
    return await conn.run(_propose(game_id, author_id, text, now))


async def toggle_acceptance(conn: Connection, game_id: int, number: int, user_id: int, now: float) -> Deal | None:
    """Mark the deal accepted by `user_id`, or take that back; None if there is no such deal."""
    return await conn.run(_toggle(conn.dialect, game_id, number, user_id, now))


async def load_deals(conn: Connection, game_id: int, number: int | None = None) -> list[Deal]:
    """The game's deals in order (only deal `number`, if given)."""
    return await conn.run(_load(conn.dialect, game_id, number))


class DealStore(Store):
    """Deals on their own. Who may propose or accept one is the service's to check (bot/service/deals.py), inside
    the same transaction as the write, with the functions above."""

    async def propose(self, game_id: int, author_id: int, text: str, now: float) -> Deal:
        async with self._db.transaction() as conn:
            return await propose_deal(conn, game_id, author_id, text, now)

    async def set_message(self, game_id: int, number: int, message_id: int) -> None:
        async with self._db.transaction() as conn:
            await conn.run(_set_message(game_id, number, message_id))

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


def _set_message(game_id: int, number: int, message_id: int) -> Plan[None]:
    yield Sql("UPDATE deals SET message_id = ? WHERE game_id = ? AND number = ?", (message_id, game_id, number))
