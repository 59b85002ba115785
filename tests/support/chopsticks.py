"""Chopsticks through the offline Discord: a game started as players start one."""

from __future__ import annotations

from tests.support.codes import Callback
from tests.support.fakediscord import FakeMessage
from tests.support.world import World


async def accepted_game(world: World) -> FakeMessage:
    """The board of game 1: Alice challenges Bob in the world's channel, and Bob accepts."""
    res = await world.fake.slash(world.alice, world.channel, "chopsticks", "challenge", {"opponent": world.bob})
    board = res.message
    assert res.callback_type == Callback.CHANNEL_MESSAGE and not res.ephemeral and board is not None, res.errors
    accept = next(b["custom_id"] for b in board.buttons() if b["label"] == "Accept")
    accepted = await world.fake.click(world.bob, board, accept)
    assert accepted.callback_type == Callback.UPDATE_MESSAGE and accepted.message is board, accepted.errors
    return board
