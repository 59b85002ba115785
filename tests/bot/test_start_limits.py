"""Nothing one person does makes the bot ping another without limit (issue 22, point 3), and every way a game starts
passes the server's settings (point 4): through the real bot and the offline Discord, on both databases.

- One challenge between two people per game kind waits for an answer at a time: another, or a Rematch, points to it.
- One person may start a few games or tables at once, then a steady few a minute; beyond that they are told when.
- `/notifications how:off` holds for challenges: the challenge names the person but does not ping them.
- A command, a Rematch, a lobby's Start and a challenge's Accept all meet the same refusal when the admins have
  switched the game off or chosen another channel for games, even when the lobby or challenge is older than that.
"""

from __future__ import annotations

import re
import time

from bot.client import TabletopBot
from bot.service.starts import START_BURST, START_EVERY
from tests.support.fakediscord import FakeMessage, FakeUser
from tests.support.fakediscord.payloads import PERM_MANAGE_GUILD
from tests.support.interactions import bot_idle
from tests.support.world import TabletopRunner, World, stored_rows

_WHEN = re.compile(r"<t:(\d+):R>")


def _link(world: World, message: FakeMessage) -> str:
    return f"https://discord.com/channels/{world.guild.id}/{message.channel_id}/{message.id}"


async def _count(bots: TabletopRunner, sql: str) -> int:
    [(count,)] = await stored_rows(bots.target, sql)
    return int(count)


async def _challenge(world: World, challenger: FakeUser, opponent: FakeUser, kind: str = "chopsticks") -> FakeMessage:
    res = await world.fake.slash(challenger, world.channel, kind, "challenge", options={"opponent": opponent})
    assert res.message is not None and not res.ephemeral, res.errors
    await bot_idle(world.fake)  # its message is stored with it, for a link to it
    return res.message


async def _resign(world: World, bot: TabletopBot, board: FakeMessage, resigner: FakeUser) -> None:
    await world.fake.click(resigner, board, board.button("Resign")["custom_id"])
    confirm = next(m for m in reversed(list(world.fake.messages.values())) if m.ephemeral and "Resign" in m.content)
    await world.fake.click(resigner, confirm, confirm.button("Yes, resign")["custom_id"])
    await bot.service.told()


async def _resigned(world: World, bot: TabletopBot, board: FakeMessage, resigner: FakeUser) -> FakeMessage:
    """Resign the game on `board`, which ends it; its ending message (with Rematch)."""
    before = {m.id for m in world.fake.channel_messages(world.channel)}
    await _resign(world, bot, board, resigner)
    return next(m for m in world.fake.channel_messages(world.channel)
                if m.id not in before and m.embeds and "is over" in m.text())


async def _finished_between(world: World, bot: TabletopBot, one: FakeUser, two: FakeUser) -> FakeMessage:
    """A Chopsticks game `one` challenged `two` to, accepted and resigned at once; its ending message."""
    board = await _challenge(world, one, two)
    await world.fake.click(two, board, board.button("Accept")["custom_id"])
    return await _resigned(world, bot, board, one)


async def _admin(world: World, sub: str, **options: object) -> None:
    res = await world.fake.slash(world.alice, world.channel, "settings", sub, permissions=PERM_MANAGE_GUILD,
                                 options=options)
    assert res.message is not None and "Saved." in res.message.content, res.errors


# ----- point 3: one pending challenge per pair and kind -------------------------------------------------------------
async def test_a_second_challenge_to_the_same_person_points_to_the_first(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    first = await _challenge(world, world.alice, world.bob)
    pings = len(world.fake.notifications(world.bob))
    messages = len(world.fake.messages)

    again = await world.fake.slash(world.alice, world.channel, "chopsticks", "challenge",
                                   options={"opponent": world.bob})
    assert again.ephemeral and again.message is not None
    assert _link(world, first) in again.message.content and "already challenged" in again.message.content
    # The other way round: the one challenged is pointed to the challenge waiting for them.
    back = await world.fake.slash(world.bob, world.channel, "chopsticks", "new", options={"opponent": world.alice})
    assert back.ephemeral and back.message is not None
    assert _link(world, first) in back.message.content and f"<@{world.alice.id}> has already" in back.message.content
    world.alice.locale = "ru"
    russian = await world.fake.slash(world.alice, world.channel, "chopsticks", "challenge",
                                     options={"opponent": world.bob})
    assert russian.ephemeral and russian.message is not None
    assert _link(world, first) in russian.message.content and "уже вызвали" in russian.message.content
    world.alice.locale = "en-US"

    assert len(world.fake.messages) == messages + 3, "only the three refusals"
    assert len(world.fake.notifications(world.bob)) == pings, "Bob was not pinged again"
    assert await _count(bots, "SELECT count(*) FROM games WHERE status = 'pending'") == 1
    # Another game, or another person, is another challenge; once the first is answered, a new one may follow.
    await _challenge(world, world.alice, world.bob, "generals")
    await _challenge(world, world.alice, world.carol)
    await world.fake.click(world.bob, first, first.button("Decline")["custom_id"])
    await _challenge(world, world.alice, world.bob)


async def test_a_rematch_while_a_challenge_waits_points_to_it(world: World, bots: TabletopRunner) -> None:
    bot = await bots.start()
    ending = await _finished_between(world, bot, world.alice, world.bob)
    asked = await world.fake.click(world.alice, ending, ending.button("Rematch")["custom_id"])
    assert asked.message is not None and not asked.ephemeral
    rematch = asked.message
    await bot_idle(world.fake)
    pings = len(world.fake.notifications(world.bob))
    for user in (world.alice, world.bob):  # the one who asked again, and the other asking for their own
        res = await world.fake.click(user, ending, ending.button("Rematch")["custom_id"])
        assert res.ephemeral and res.message is not None and _link(world, rematch) in res.message.content, res.errors
    res = await world.fake.slash(world.alice, world.channel, "chopsticks", "challenge", options={"opponent": world.bob})
    assert res.ephemeral and res.message is not None and _link(world, rematch) in res.message.content
    assert await _count(bots, "SELECT count(*) FROM games WHERE status = 'pending'") == 1
    assert len(world.fake.notifications(world.bob)) == pings
    await world.fake.click(world.bob, rematch, rematch.button("Accept")["custom_id"])
    assert await _count(bots, "SELECT count(*) FROM games WHERE status = 'active'") == 1


# ----- point 3: how fast one person may start games -----------------------------------------------------------------
async def test_starting_games_too_fast_is_refused_saying_when_and_nothing_is_made(
    world: World, bots: TabletopRunner
) -> None:
    bot = await bots.start()
    ending = await _finished_between(world, bot, world.alice, world.bob)  # Alice's first start
    others = [world.fake.add_user(f"friend{i}") for i in range(START_BURST)]
    for other in others[:START_BURST - 2]:
        await _challenge(world, world.alice, other)
    lobby = await world.fake.slash(world.alice, world.channel, "sucker", "new")  # a table counts too
    assert lobby.message is not None and not lobby.ephemeral
    games = await _count(bots, "SELECT count(*) FROM games")
    lobbies = await _count(bots, "SELECT count(*) FROM lobbies")
    messages = len(world.fake.messages)

    refusals = [
        await world.fake.slash(world.alice, world.channel, "chopsticks", "challenge",
                               options={"opponent": others[-1]}),
        await world.fake.click(world.alice, ending, ending.button("Rematch")["custom_id"]),
        await world.fake.slash(world.alice, world.channel, "chopsticks", "new", options={"players": 3}),
        await world.fake.slash(world.alice, world.channel, "generals", "challenge"),
    ]
    for res in refusals:
        assert res.ephemeral and res.message is not None and "too fast" in res.message.content, res.errors
        when = _WHEN.search(res.message.content)
        assert when is not None and 0 < int(when.group(1)) - time.time() <= START_EVERY + 1
    world.alice.locale = "ru"
    russian = await world.fake.slash(world.alice, world.channel, "sucker", "new")
    assert russian.ephemeral and russian.message is not None and _WHEN.search(russian.message.content)
    assert "слишком часто" in russian.message.content
    assert await _count(bots, "SELECT count(*) FROM games") == games
    assert await _count(bots, "SELECT count(*) FROM lobbies") == lobbies
    assert len(world.fake.messages) == messages + len(refusals) + 1, "only the refusals"
    assert world.fake.notifications(others[-1]) == [], "nobody was pinged"
    # Per person: Bob starts as usual.
    await _challenge(world, world.bob, world.carol)


# ----- point 3: /notifications how:off holds for challenges ----------------------------------------------------------
async def test_a_challenge_names_someone_who_wants_no_notifications_without_pinging_them(
    world: World, bots: TabletopRunner
) -> None:
    bot = await bots.start()
    res = await world.fake.slash(world.bob, world.channel, "notifications", options={"how": "off"})
    assert res.message is not None and "nothing" in res.message.content
    for kind in ("chopsticks", "generals"):
        res = await world.fake.slash(world.alice, world.channel, kind, "challenge", options={"opponent": world.bob})
        assert res.message is not None and not res.ephemeral
        assert f"<@{world.bob.id}>" in res.message.content and res.message.pinged == frozenset()
        assert res.callback_data is not None and res.callback_data["allowed_mentions"]["users"] == []
    # Carol keeps the default: her challenge pings her.
    res = await world.fake.slash(world.alice, world.channel, "chopsticks", "challenge",
                                 options={"opponent": world.carol})
    assert res.message is not None and res.message.pinged == {world.carol.id}

    # A rematch asks Bob to play again the same way: named, not pinged.
    ending = await _finished_between(world, bot, world.carol, world.bob)
    asked = await world.fake.click(world.carol, ending, ending.button("Rematch")["custom_id"])
    assert asked.message is not None and not asked.ephemeral
    assert f"<@{world.bob.id}>" in asked.message.content and asked.message.pinged == frozenset()
    pinged = [m for m in world.fake.notifications(world.bob) if "is over" not in m.text()]
    assert pinged == [], "no challenge pinged Bob (only the game's ending did)"


# ----- point 4: every way a game starts passes the server's settings -------------------------------------------------
async def test_every_way_a_game_starts_meets_a_game_switched_off(world: World, bots: TabletopRunner) -> None:
    bot = await bots.start()
    ending = await _finished_between(world, bot, world.alice, world.bob)
    waiting = await _challenge(world, world.carol, world.bob)  # sent before the game was switched off
    opened = await world.fake.slash(world.alice, world.channel, "chopsticks", "new", options={"players": 3})
    assert opened.message is not None
    lobby = opened.message
    await world.fake.click(world.carol, lobby, lobby.button("Join")["custom_id"])
    games = await _count(bots, "SELECT count(*) FROM games WHERE status IN ('active', 'pending')")

    await _admin(world, "game", game="chopsticks", enabled=False)
    refused = [
        await world.fake.slash(world.bob, world.channel, "chopsticks", "challenge"),
        await world.fake.slash(world.bob, world.channel, "chopsticks", "new", options={"players": 3}),
        await world.fake.click(world.alice, ending, ending.button("Rematch")["custom_id"]),
        await world.fake.click(world.alice, lobby, lobby.button("Start")["custom_id"]),
        await world.fake.click(world.bob, waiting, waiting.button("Accept")["custom_id"]),
    ]
    for res in refused:
        assert res.ephemeral and res.message is not None, res.errors
        assert res.message.content == ("Chopsticks is switched off on this server: an admin can switch it back on with "
                                       "/settings game."), res.message.content
    world.bob.locale = "ru"
    russian = await world.fake.click(world.bob, ending, ending.button("Rematch")["custom_id"])
    assert russian.ephemeral and russian.message is not None
    assert russian.message.content.startswith("Игра «Палочки» выключена"), russian.message.content
    assert await _count(bots, "SELECT count(*) FROM games WHERE status IN ('active', 'pending')") == games
    assert await _count(bots, "SELECT count(*) FROM games WHERE status = 'active'") == 0
    # Another game is not switched off.
    await _challenge(world, world.alice, world.bob, "generals")


async def test_every_way_a_game_starts_meets_the_one_channel_for_games(world: World, bots: TabletopRunner) -> None:
    bot = await bots.start()
    ending = await _finished_between(world, bot, world.alice, world.bob)
    waiting = await _challenge(world, world.carol, world.bob)
    opened = await world.fake.slash(world.alice, world.channel, "sucker", "new", options={"players": 3})
    assert opened.message is not None
    lobby = opened.message
    await world.fake.click(world.alice, lobby, lobby.button("Add bot")["custom_id"])
    await world.fake.click(world.alice, lobby, lobby.button("Add bot")["custom_id"])

    tables = world.fake.add_channel(world.guild, "tables")
    await _admin(world, "set", channel=tables)
    refused = [
        await world.fake.slash(world.bob, world.channel, "generals", "challenge", options={"opponent": world.carol}),
        await world.fake.slash(world.bob, world.channel, "sucker", "new"),
        await world.fake.click(world.bob, ending, ending.button("Rematch")["custom_id"]),
        await world.fake.click(world.alice, lobby, lobby.button("Start")["custom_id"]),
        await world.fake.click(world.bob, waiting, waiting.button("Accept")["custom_id"]),
    ]
    for res in refused:
        assert res.ephemeral and res.message is not None, res.errors
        assert res.message.content == f"New games start in <#{tables.id}> on this server.", res.message.content
    assert await _count(bots, "SELECT count(*) FROM games WHERE status = 'active'") == 0
    res = await world.fake.slash(world.bob, tables, "generals", "challenge", options={"opponent": world.carol})
    assert res.message is not None and not res.ephemeral, res.errors


async def test_a_rematch_table_invites_someone_who_wants_no_notifications_without_pinging_them(
    world: World, bots: TabletopRunner
) -> None:
    bot = await bots.start()
    await world.fake.slash(world.bob, world.channel, "notifications", options={"how": "off"})
    opened = await world.fake.slash(world.alice, world.channel, "chopsticks", "new", options={"players": 3})
    assert opened.message is not None
    table = opened.message
    for user in (world.bob, world.carol):
        await world.fake.click(user, table, table.button("Join")["custom_id"])
    await world.fake.click(world.alice, table, table.button("Start")["custom_id"])
    await _resign(world, bot, table, world.alice)
    ending = await _resigned(world, bot, table, world.bob)
    asked = await world.fake.click(world.alice, ending, ending.button("Rematch")["custom_id"])
    assert asked.message is not None and not asked.ephemeral and "rematch" in asked.message.content, asked.errors
    assert f"<@{world.bob.id}>" in asked.message.content and f"<@{world.carol.id}>" in asked.message.content
    assert asked.message.pinged == {world.carol.id}, "Bob is named, not pinged"
