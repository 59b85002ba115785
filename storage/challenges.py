"""Challenges waiting for an answer, as a new challenge looks for one between the same two people."""

from __future__ import annotations

from storage.database import Connection
from storage.sql import Plan, Sql


async def pending_between(conn: Connection, kind: str, first: int, second: int, now: float) -> int | None:
    """The id of a challenge of `kind` seating both people that still waits for an answer at `now` (unexpired), or
    None. Read inside the transaction that would create another, begun before this read (`read_first`), so two
    challenges sent at the same moment, by one process or two, cannot both find none."""
    def find() -> Plan[int | None]:
        # games_by_status (status, kind) finds the few pending challenges of the kind; each one's seats by its key.
        done = yield Sql(
            "SELECT id FROM games WHERE status = 'pending' AND kind = ? AND deadline > ?"
            " AND EXISTS (SELECT 1 FROM game_players WHERE game_id = games.id AND user_id = ?)"
            " AND EXISTS (SELECT 1 FROM game_players WHERE game_id = games.id AND user_id = ?)"
            " ORDER BY id LIMIT 1", (kind, now, first, second))
        value = done.value()
        return int(value) if value is not None else None

    return await conn.run(find())
