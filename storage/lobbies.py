"""Lobbies: players gathering for a game, stored like games so that they survive restarts."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from storage.database import Connection
from storage.records import StaleVersionError
from storage.sql import Dialect, Plan, Sql


class LobbyNotFoundError(LookupError):
    """No lobby has this id."""


@dataclass(frozen=True)
class Member:
    user_id: int | None
    bot: str | None = None


@dataclass(frozen=True)
class LobbyRecord:
    id: int
    kind: str
    guild_id: int | None
    channel_id: int
    message_id: int | None
    host_id: int
    max_players: int
    options: dict[str, Any]
    turn_timeout: float
    status: str
    game_id: int | None
    deadline: float | None
    version: int
    created_at: float
    members: tuple[Member, ...]
    min_finished: int | None = None  # the share of games (percent) a person must have finished to join, if any

    def has_user(self, user_id: int) -> bool:
        return any(m.user_id == user_id for m in self.members)


_UPDATABLE = frozenset({"status", "game_id", "deadline", "message_id"})


async def create_lobby(
    conn: Connection,
    *,
    kind: str,
    guild_id: int | None,
    channel_id: int,
    host_id: int,
    max_players: int,
    options: Mapping[str, Any],
    turn_timeout: float,
    deadline: float,
    now: float,
    min_finished: int | None = None,
) -> LobbyRecord:
    return await conn.run(_create(conn.dialect, kind, guild_id, channel_id, host_id, max_players,
                                   json.dumps(options, sort_keys=True), turn_timeout, deadline, now, min_finished))


async def load_lobby(conn: Connection, lobby_id: int) -> LobbyRecord:
    return await conn.run(_load(conn.dialect, lobby_id))


async def update_lobby(conn: Connection, lobby: LobbyRecord, **changes: Any) -> LobbyRecord:
    """Change status / game / deadline / message, guarded by the lobby's version."""
    bad = set(changes) - _UPDATABLE
    if bad:
        raise ValueError(f"cannot update {sorted(bad)}")
    return await conn.run(_update(lobby, changes))


async def set_members(conn: Connection, lobby: LobbyRecord, members: Sequence[Member]) -> LobbyRecord:
    """Replace the member list (join order = seat order), guarded by the lobby's version."""
    return await conn.run(_set_members(lobby, members))


def _create(dialect: Dialect, kind: str, guild_id: int | None, channel_id: int, host_id: int, max_players: int,
            options_json: str, turn_timeout: float, deadline: float, now: float,
            min_finished: int | None) -> Plan[LobbyRecord]:
    done = yield Sql(
        "INSERT INTO lobbies (kind, guild_id, channel_id, host_id, max_players, options, turn_timeout, status,"
        " deadline, created_at, min_finished) VALUES (?, ?, ?, ?, ?, ?, ?, 'open', ?, ?, ?) RETURNING id",
        (kind, guild_id, channel_id, host_id, max_players, options_json, turn_timeout, deadline, now, min_finished),
    )
    lobby_id = int(done.value())
    yield Sql("INSERT INTO lobby_members (lobby_id, position, user_id) VALUES (?, 0, ?)", (lobby_id, host_id))
    return (yield from _load(dialect, lobby_id))


def _load(dialect: Dialect, lobby_id: int) -> Plan[LobbyRecord]:
    members = dialect.json_rows("user_id, bot", "lobby_members WHERE lobby_id = lobbies.id", "position")
    done = yield Sql(
        "SELECT id, kind, guild_id, channel_id, message_id, host_id, max_players, options, turn_timeout, status,"
        f" game_id, deadline, version, created_at, {members}, min_finished FROM lobbies WHERE id = ?",
        (lobby_id,),
    )
    for r in done.rows:
        return LobbyRecord(
            id=int(r[0]), kind=str(r[1]), guild_id=r[2], channel_id=int(r[3]), message_id=r[4], host_id=int(r[5]),
            max_players=int(r[6]), options=json.loads(r[7]), turn_timeout=float(r[8]), status=str(r[9]),
            game_id=r[10], deadline=r[11], version=int(r[12]), created_at=float(r[13]),
            members=tuple(Member(m[0], m[1]) for m in json.loads(r[14])),
            min_finished=None if r[15] is None else int(r[15]),
        )
    raise LobbyNotFoundError(lobby_id)


def message_of_game(game_id: int) -> Plan[int | None]:
    """The message of the lobby that started game `game_id` (None: no lobby started it, or it had no message)."""
    done = yield Sql("SELECT message_id FROM lobbies WHERE game_id = ?", (game_id,))
    r = done.one()
    return None if r is None or r[0] is None else int(r[0])


def min_finished_of_game(game_id: int) -> Plan[int | None]:
    """The share of games finished that the lobby which started game `game_id` asked of its players (None: no lobby
    started it, or it asked none)."""
    done = yield Sql("SELECT min_finished FROM lobbies WHERE game_id = ?", (game_id,))
    r = done.one()
    return None if r is None or r[0] is None else int(r[0])


def _update(lobby: LobbyRecord, changes: dict[str, Any]) -> Plan[LobbyRecord]:
    sets = "".join(f"{c} = ?, " for c in changes)
    done = yield Sql(f"UPDATE lobbies SET {sets}version = version + 1 WHERE id = ? AND version = ?",
                     (*changes.values(), lobby.id, lobby.version))
    if done.rowcount != 1:
        raise StaleVersionError(lobby.id, lobby.version)
    return replace(lobby, version=lobby.version + 1, **changes)


def _set_members(lobby: LobbyRecord, members: Sequence[Member]) -> Plan[LobbyRecord]:
    done = yield Sql("UPDATE lobbies SET version = version + 1 WHERE id = ? AND version = ?", (lobby.id, lobby.version))
    if done.rowcount != 1:
        raise StaleVersionError(lobby.id, lobby.version)
    yield Sql("DELETE FROM lobby_members WHERE lobby_id = ?", (lobby.id,))
    yield Sql("INSERT INTO lobby_members (lobby_id, position, user_id, bot) VALUES (?, ?, ?, ?)",
              [(lobby.id, i, m.user_id, m.bot) for i, m in enumerate(members)], many=True)
    return replace(lobby, version=lobby.version + 1, members=tuple(members))
