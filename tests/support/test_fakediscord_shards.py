"""The fake Discord's sharding, spoken to over raw websockets: READY per shard, routing by `(guild_id >> 22) %
num_shards`, DMs to shard 0, an invalid shard refused with 4010, and the newest session of a shard taking over."""

from __future__ import annotations

import json
from typing import Any

import aiohttp

from tests.support.fakediscord import FakeDiscord
from tests.support.fakediscord.gateway import CLOSE_INVALID_SHARD


class _Session:
    """One raw gateway connection, identified as a shard."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws

    async def next_event(self, timeout: float = 2.0) -> dict[str, Any]:
        while True:
            message = await self.ws.receive(timeout=timeout)
            if message.type is not aiohttp.WSMsgType.TEXT:
                raise AssertionError(f"no event but {message.type} {self.ws.close_code}")
            payload: dict[str, Any] = json.loads(message.data)
            if payload.get("op") == 0:
                return payload

    async def nothing(self) -> bool:
        try:
            await self.ws.receive(timeout=0.2)
        except TimeoutError:
            return True
        return False


async def _identify(http: aiohttp.ClientSession, fake: FakeDiscord, shard: list[int] | None) -> _Session:
    ws = await http.ws_connect(fake.gateway_url + "?v=10&encoding=json")
    hello = json.loads((await ws.receive(timeout=2)).data)
    assert hello["op"] == 10
    data: dict[str, Any] = {"token": fake.token, "intents": 1, "properties": {}}
    if shard is not None:
        data["shard"] = shard
    await ws.send_str(json.dumps({"op": 2, "d": data}))
    return _Session(ws)


async def test_each_shard_gets_its_guilds_and_dms_go_to_shard_0() -> None:
    async with FakeDiscord() as fake, aiohttp.ClientSession() as http:
        zero, one = fake.add_guild("zero", shard=0, shard_count=2), fake.add_guild("one", shard=1, shard_count=2)
        assert (zero.id >> 22) % 2 == 0 and (one.id >> 22) % 2 == 1
        first = await _identify(http, fake, [0, 2])
        second = await _identify(http, fake, [1, 2])
        for session, guild, shard in ((first, zero, [0, 2]), (second, one, [1, 2])):
            ready = await session.next_event()
            assert ready["t"] == "READY" and ready["d"]["shard"] == shard
            assert [g["id"] for g in ready["d"]["guilds"]] == [str(guild.id)]
            created = await session.next_event()
            assert created["t"] == "GUILD_CREATE" and created["d"]["id"] == str(guild.id)
        assert fake.hub.shard_ready((0, 2)) and fake.hub.shard_ready((1, 2))

        fake.add_channel(one, "games")  # CHANNEL_CREATE of shard 1's guild
        assert (await second.next_event())["d"]["guild_id"] == str(one.id)
        later = fake.add_guild("later", shard=1, shard_count=2)  # its GUILD_CREATE goes to its shard only
        assert (await second.next_event())["d"]["id"] == str(later.id)
        assert await fake.hub.dispatch("DM_EVENT", {"channel_id": "1"})  # no guild: shard 0
        assert (await first.next_event())["t"] == "DM_EVENT"
        assert await second.nothing()


async def test_an_invalid_shard_is_refused_with_4010() -> None:
    async with FakeDiscord() as fake, aiohttp.ClientSession() as http:
        for shard in ([2, 2], [0, 0], [-1, 2], [0], "0,1"):
            session = await _identify(http, fake, shard)  # type: ignore[arg-type]  # malformed on purpose
            message = await session.ws.receive(timeout=2)
            assert message.type is aiohttp.WSMsgType.CLOSE and session.ws.close_code == CLOSE_INVALID_SHARD, shard
        assert fake.hub.identify_count == 0


async def test_the_newest_session_of_a_shard_takes_its_events_over() -> None:
    # Discord allows several sessions of one [shard_id, num_shards] and sessions of different num_shards ("only used
    # for routing"): the fake gives each event to the newest session it routes to, as in a hand-over.
    async with FakeDiscord() as fake, aiohttp.ClientSession() as http:
        zero, one = fake.add_guild("zero", shard=0, shard_count=2), fake.add_guild("one", shard=1, shard_count=2)
        unsharded = await _identify(http, fake, None)
        assert [e["t"] for e in [await unsharded.next_event() for _ in range(3)]] == ["READY"] + ["GUILD_CREATE"] * 2
        one_of_two = await _identify(http, fake, [1, 2])
        assert (await one_of_two.next_event())["t"] == "READY"
        assert (await one_of_two.next_event())["d"]["id"] == str(one.id)
        fake.add_channel(one, "a")  # shard 1 of 2 is newer than shard 0 of 1 for this guild
        assert (await one_of_two.next_event())["t"] == "CHANNEL_CREATE"
        fake.add_channel(zero, "b")  # only the unsharded session routes this guild
        assert (await unsharded.next_event())["d"]["guild_id"] == str(zero.id)
        again = await _identify(http, fake, [1, 2])  # the same shard identified twice: the newest wins
        assert [e["t"] for e in [await again.next_event() for _ in range(2)]] == ["READY", "GUILD_CREATE"]
        fake.add_channel(one, "c")
        assert (await again.next_event())["t"] == "CHANNEL_CREATE"
        assert await one_of_two.nothing() and await unsharded.nothing()
        assert fake.hub.identify_count == 3


async def test_gateway_bot_recommends_the_configured_shard_count() -> None:
    async with FakeDiscord() as fake, aiohttp.ClientSession() as http:
        fake.shard_count = 3
        async with http.get(fake.api_base + "/gateway/bot", headers={"Authorization": f"Bot {fake.token}"}) as reply:
            assert reply.status == 200
            assert (await reply.json())["shards"] == 3
        guild = fake.add_guild("third", shard=2)
        assert (guild.id >> 22) % 3 == 2
