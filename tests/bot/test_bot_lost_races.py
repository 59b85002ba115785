"""Losing a race through the offline Discord: another process (a second connection to the bot's database)
changes the game between the bot's read of it and its write. The player is told, only them, to look again, the way
a stale move is refused; nothing "went wrong" and nothing is logged as an ERROR. The bot's own write of the board's
message waits for nobody to look again: it is simply stored."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator

import pytest

from bot.service.games import GameService
from bot.service.model import STALE_TEXT
from storage.connection import open_database
from storage.database import Database
from tests.support.codes import Callback
from tests.support.fakediscord import FakeMessage
from tests.support.races import Interloper
from tests.support.world import TabletopRunner, World


@pytest.fixture
async def other_process(bots: TabletopRunner) -> AsyncIterator[Database]:
    db = await open_database(bots.target)  # the bot's own database, whichever it is
    yield db
    await db.close()


def _errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [f"{r.name}: {r.getMessage()}" for r in caplog.records if r.levelno >= logging.ERROR]


async def _message_stored(service: GameService, game_id: int) -> None:
    for _ in range(200):
        if (await service.info(game_id)).message_id is not None:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"game {game_id}'s message was never stored")


def _button(board: FakeMessage, label: str) -> str:
    return str(next(b["custom_id"] for b in board.buttons() if b["label"] == label))


async def test_accept_and_draw_offer_that_lose_a_race_ask_to_look_again(
    world: World, bots: TabletopRunner, other_process: Database, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    interloper = Interloper(other_process, monkeypatch)
    bot = await bots.start()
    res = await world.fake.slash(world.alice, world.channel, "chopsticks", "challenge", options={"opponent": world.bob})
    board = res.message
    assert board is not None
    await _message_stored(bot.service, 1)  # the bot's own write after the answer, not raced here

    interloper.arm(1)
    lost = await world.fake.click(world.bob, board, _button(board, "Accept"))
    assert interloper.landed == [True]
    assert lost.ephemeral and lost.message is not None and lost.message.content == str(STALE_TEXT)
    accepted = await world.fake.click(world.bob, board, _button(board, "Accept"))
    assert accepted.callback_type == Callback.UPDATE_MESSAGE and "▶" in board.text(), accepted.errors

    mover = world.alice if f"▶ <@{world.alice.id}>" in board.text() else world.bob
    await world.fake.click(mover, board, next(b["custom_id"] for b in board.buttons() if ":mv:" in b["custom_id"]))
    interloper.arm(1)
    offer = await world.fake.click(world.alice, board, _button(board, "Offer draw"))
    assert offer.ephemeral and offer.message is not None and offer.message.content == str(STALE_TEXT), offer.errors
    assert _errors(caplog) == []


async def test_the_boards_message_is_stored_even_when_another_process_writes_the_game(
    world: World, bots: TabletopRunner, other_process: Database, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    interloper = Interloper(other_process, monkeypatch)
    bot = await bots.start()
    # Game 1 is read once as it is created, then for storing its message's id: interfere with that write.
    interloper.arm(1, skip=1)
    res = await world.fake.slash(world.alice, world.channel, "chopsticks", "challenge", options={"opponent": world.bob})
    assert res.message is not None and not res.ephemeral, res.errors
    await world.fake.wait_until(lambda: bool(interloper.landed))  # the id is stored just after the answer
    await interloper.settle()
    assert interloper.landed == [False], "the other process waited for the bot's write"
    assert (await bot.service.view(1)).game.message_id == res.message.id
    assert _errors(caplog) == []
