"""A restart redraws only what changed (issue 15, point 3): boards that show their game's current position are not
edited at all, whatever the game; boards left stale by a stop between storing an action and redrawing (a crash,
made here by committing actions through the service while the bot is stopped) are redrawn, exactly those, and
a private board that was never delivered is sent."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field

import pytest

from bot.client import TabletopBot
from bot.service import GameService
from bot.service.starts import StartPace
from storage.connection import open_database
from tests.support.boards import player_to_move
from tests.support.codes import Callback
from tests.support.fakediscord import FakeMessage, FakeUser
from tests.support.generals import BOARD_TITLE
from tests.support.interactions import bot_idle
from tests.support.sucker import open_table
from tests.support.world import TabletopRunner, World, change_stored

ORIGINAL = "/webhooks/{webhook_id}/{webhook_token}/messages/@original"


@dataclass
class Tables:
    """The games opened for the test: each game's channel message, and each Generals player's own board."""

    channel: dict[int, FakeMessage] = field(default_factory=dict)  # game id -> its channel message
    kinds: dict[int, str] = field(default_factory=dict)
    private: dict[tuple[int, int], FakeMessage] = field(default_factory=dict)  # (game id, user id) -> own board

    def boards(self) -> list[FakeMessage]:
        return [*self.channel.values(), *self.private.values()]


def _game_id(message: FakeMessage) -> int:
    return int(str(message.custom_ids()[0]).split(":")[1])


def _own_boards(world: World, user: FakeUser, game_id: int) -> list[FakeMessage]:
    return [m for m in world.fake.dm_messages(user) if BOARD_TITLE in m.text() and f"#{game_id}" in m.text()]


async def _chopsticks(world: World, tables: Tables, vs_bot: bool) -> None:
    fake = world.fake
    options = {"level": "easy"} if vs_bot else {"opponent": world.bob}
    res = await fake.slash(world.alice, world.channel, "chopsticks", "challenge", options=options)
    board = res.message
    assert board is not None and res.callback_type == Callback.CHANNEL_MESSAGE, res.errors
    game = _game_id(board)
    if not vs_bot:
        accepted = await fake.click(world.bob, board, board.button("Accept")["custom_id"])
        assert accepted.callback_type == Callback.UPDATE_MESSAGE, accepted.errors
    tables.channel[game], tables.kinds[game] = board, "chopsticks"


async def _generals(world: World, tables: Tables, my_board: bool) -> None:
    """Alice challenges Bob (or Carol, whose DMs are closed: she opens My board, an ephemeral board the bot keeps
    current through its token)."""
    fake = world.fake
    opponent = world.carol if my_board else world.bob
    res = await fake.slash(world.alice, world.channel, "generals", "challenge", options={"opponent": opponent})
    board = res.message
    assert board is not None and res.callback_type == Callback.CHANNEL_MESSAGE, res.errors
    game = _game_id(board)
    accepted = await fake.click(opponent, board, f"gg:{game}:accept")
    assert accepted.callback_type == Callback.UPDATE_MESSAGE, accepted.errors
    await fake.wait_until(lambda: len(_own_boards(world, world.alice, game)) == 1, timeout=20)
    tables.private[game, world.alice.id] = _own_boards(world, world.alice, game)[0]
    if my_board:
        mine = await fake.click(world.carol, board, f"gg:{game}:board")
        assert mine.ephemeral and mine.message is not None, mine.errors
        tables.private[game, world.carol.id] = mine.message
    else:
        await fake.wait_until(lambda: len(_own_boards(world, world.bob, game)) == 1, timeout=20)
        tables.private[game, world.bob.id] = _own_boards(world, world.bob, game)[0]
    tables.channel[game], tables.kinds[game] = board, "generals"


async def _open_games(world: World, bot: TabletopBot) -> Tables:
    # Alice opens 17 games at once, more than one person may start so quickly (bot/service/starts.py): that pace is
    # not what these tests are about.
    bot.service.pace = StartPace(burst=20)
    tables = Tables()
    world.fake.fail_dm_for(world.carol)
    for _ in range(6):
        await _chopsticks(world, tables, vs_bot=False)
    for _ in range(3):
        await _chopsticks(world, tables, vs_bot=True)
    for _ in range(4):
        await _generals(world, tables, my_board=False)
    await _generals(world, tables, my_board=True)
    for _ in range(3):
        status = await open_table(world, [world.alice, world.bob, world.carol])
        tables.channel[_game_id(status)], tables.kinds[_game_id(status)] = status, "sucker"
    # A move in the first game, so that versions differ from game to game.
    first = next(iter(tables.channel.values()))
    mover = {u.id: u for u in (world.alice, world.bob)}[player_to_move(first) or 0]
    played = await world.fake.click(mover, first, next(c for c in first.custom_ids() if ":mv:" in c))
    assert played.callback_type == Callback.UPDATE_MESSAGE, played.errors
    assert await bot_idle(world.fake)
    return tables


async def _restart(bots: TabletopRunner, bot: TabletopBot) -> tuple[TabletopBot, int]:
    """Stop the bot, start it again and wait until it restored its boards; returns the new bot and the index of the
    first request the new process made."""
    await bots.stop(bot)
    since = len(bots.fake.requests)
    bot = await bots.start()
    await bots.fake.wait_until(lambda: bot._restoring is not None and bot._restoring.done(), timeout=30)
    assert await bot_idle(bots.fake)
    return bot, since


async def _act_while_stopped(bots: TabletopRunner, actions: list[tuple[int, int | None]]) -> None:
    """Store the first legal action of a (game, user) while the bot is stopped, as a bot killed right after
    committing it would leave the game: stored, never drawn. User None: whoever is to decide."""
    db = await open_database(bots.target)
    try:
        service = GameService(db)
        for game_id, user_id in actions:
            game = await service.load(game_id)
            seat = game.seat_of(user_id) if user_id is not None else game.state.current_player()
            assert seat is not None
            user = game.user_at(seat)
            assert user is not None
            await service.act(game_id, user, game.state.legal_actions(seat)[0].text())
    finally:
        await db.close()


def _patched(bots: TabletopRunner, since: int) -> list[str]:
    return [r.path for r in bots.fake.requests[since:] if r.method == "PATCH"]


def _errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


async def test_a_restart_edits_no_current_board_and_redraws_exactly_the_stale_ones(
    world: World, bots: TabletopRunner, caplog: pytest.LogCaptureFixture
) -> None:
    fake = world.fake
    bot = await bots.start()
    tables = await _open_games(world, bot)
    assert set(tables.kinds.values()) == {"chopsticks", "generals", "sucker"} and len(tables.channel) == 17

    # Every board shows its game's current position: a restart edits nothing and sends nothing.
    edits = {id(m): m.edits for m in tables.boards()}
    bot, since = await _restart(bots, bot)
    assert _patched(bots, since) == []
    assert {id(m): m.edits for m in tables.boards()} == edits
    assert not [r for r in fake.requests[since:] if r.method == "POST" and "/messages" in r.path]

    # While the bot is stopped, actions are stored without any redraw: a Chopsticks move, a So Long Sucker play, the
    # deployment of Alice's army in one Generals game and of Carol's (on My board) in another.
    await bots.stop(bot)
    chopsticks = next(g for g, k in tables.kinds.items() if k == "chopsticks" and player_to_move(tables.channel[g]))
    sucker = next(g for g, k in tables.kinds.items() if k == "sucker")
    generals = [g for g, k in tables.kinds.items() if k == "generals"]
    on_my_board = next(g for g in generals if (g, world.carol.id) in tables.private)
    mover = player_to_move(tables.channel[chopsticks])
    await _act_while_stopped(bots, [(chopsticks, None), (sucker, None), (generals[0], world.alice.id),
                                    (on_my_board, world.carol.id)])
    # And in another Generals game, Bob's board is as if it had never been delivered (a stop right after the
    # challenge was accepted, before the boards went out).
    undelivered = generals[1]
    await change_stored(bots.target, "DELETE FROM private_boards WHERE game_id = ? AND seat = 1", (undelivered,))

    before = {id(m): (m.edits, m.text()) for m in tables.boards()}
    bot, since = await _restart(bots, bot)
    stale = {id(tables.channel[chopsticks]), id(tables.channel[sucker]),
             id(tables.private[generals[0], world.alice.id]), id(tables.private[on_my_board, world.carol.id])}
    edited = {id(m) for m in tables.boards() if m.edits != before[id(m)][0]}
    assert edited == stale
    assert all(tables_text != before[key][1] for key, tables_text in
               ((id(m), m.text()) for m in tables.boards() if id(m) in stale))
    assert player_to_move(tables.channel[chopsticks]) != mover
    assert len(_patched(bots, since)) == len(stale)  # one edit per stale board, and nothing else
    assert len([p for p in _patched(bots, since) if p.endswith("/messages/@original")]) == 1  # Carol's, by token
    assert len(_own_boards(world, world.bob, undelivered)) == 2  # the board that was never delivered, sent now

    # Each of those is now recorded as current: the next restart edits nothing again.
    bot, since = await _restart(bots, bot)
    assert _patched(bots, since) == []
    await asyncio.sleep(0)
    assert _errors(caplog) == []


@pytest.mark.parametrize("processes", [1, 2])
async def test_a_board_whose_message_was_lost_is_posted_anew_once(
    world: World, bots: TabletopRunner, processes: int
) -> None:
    """A stop between posting a game's message and storing its id leaves a game no message shows: the next start
    posts its board anew, once, though two processes start together (issue 17), and play goes on from it."""
    bot = await bots.start()
    tables = Tables()
    await _chopsticks(world, tables, vs_bot=False)
    [game_id] = tables.channel
    lost = tables.channel[game_id]  # its message, which the bot no longer knows
    await bots.stop(bot)
    await change_stored(bots.target, "UPDATE games SET message_id = NULL, version = version + 1 WHERE id = ?",
                        (game_id,))
    runners = [bots, *(TabletopRunner(world.fake, bots.database, url=bots.url) for _ in range(processes - 1))]
    try:
        started = await asyncio.gather(*(runner.start() for runner in runners))
        for each in started:
            await each.wait_until_ready()
        def boards() -> list[FakeMessage]:  # the messages that show the game with its buttons
            return [m for m in world.fake.channel_messages(world.channel) if m is not lost and
                    any(str(c).startswith(f"cs:{game_id}:mv:") for c in m.custom_ids())]

        await world.fake.wait_until(lambda: bool(boards()), timeout=10)
        await asyncio.sleep(0.5)  # a second post, were there one, would be out by now
        posts = boards()
        assert len(posts) == 1, [m.text()[:80] for m in posts]
        board = posts[0]
        mover = world.alice if player_to_move(board) == world.alice.id else world.bob
        moved = await world.fake.click(mover, board, board.buttons()[0]["custom_id"])
        assert moved.callback_type == Callback.UPDATE_MESSAGE, moved.errors
    finally:
        for runner in runners[1:]:
            await runner.stop_all()
