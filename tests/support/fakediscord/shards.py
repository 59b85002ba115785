"""Sharding as Discord routes it (https://discord.com/developers/docs/events/gateway#sharding).

A session identified with ``shard: [shard_id, num_shards]`` receives the events of the guilds whose
``(guild_id >> 22) % num_shards`` is its ``shard_id``; events without a guild (DMs and their interactions) go to
shard 0 only. A session identified without ``shard`` is shard 0 of 1: it receives everything.

Discord lets several sessions share one ``[shard_id, num_shards]`` or use different ``num_shards`` ("num_shards
does not relate to (or limit) the total number of potential sessions. It is only used for routing traffic"), e.g.
to hand traffic over to a new deployment. The fake gives each event to one session: the newest (last identified
or resumed) of the sessions the event routes to, like a restarted process or a new deployment taking over.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

ShardKey = tuple[int, int]  # (shard_id, num_shards), as IDENTIFY's ``shard`` field
UNSHARDED: ShardKey = (0, 1)
# Events naming their guild in ``id`` rather than ``guild_id`` (the guild object itself).
_GUILD_OBJECT_EVENTS = ("GUILD_CREATE", "GUILD_UPDATE", "GUILD_DELETE")


def shard_of(guild_id: int | None, num_shards: int) -> int:
    """The shard Discord sends a guild's events to; events without a guild go to shard 0."""
    return 0 if guild_id is None else (guild_id >> 22) % num_shards


def routes_to(shard: ShardKey, guild_id: int | None) -> bool:
    """Whether a session identified as ``shard`` receives the events of ``guild_id`` (None: a DM)."""
    shard_id, num_shards = shard
    return shard_of(guild_id, num_shards) == shard_id


def parse_shard(value: Any) -> ShardKey | None:
    """IDENTIFY's ``shard`` field as a key (absent: shard 0 of 1), or None when Discord would refuse it (4010)."""
    if value is None:
        return UNSHARDED
    if not isinstance(value, list) or len(value) != 2 or not all(type(n) is int for n in value):
        return None
    shard_id, num_shards = value
    if num_shards < 1 or not 0 <= shard_id < num_shards:
        return None
    return shard_id, num_shards


def guild_of(event: str, data: Mapping[str, Any]) -> int | None:
    """The guild an event belongs to, which decides its shard (None: no guild, so shard 0)."""
    raw = data.get("guild_id")
    if raw is None and event in _GUILD_OBJECT_EVENTS:
        raw = data.get("id")
    return None if raw is None else int(raw)
