"""A public copy of a game's board that the game does not know (a stopped process posted it and never stored its id)
stays a board when clicked: the move is applied and the copy redrawn as the board, with the game's controls, as the
stored board is; it does not become a private answer ("You played ...") with no buttons, which left players in the
channel with a board they could no longer play from (seen in the crash run with a tournament round's board)."""

from __future__ import annotations

from tests.support.boards import move_buttons, player_to_move
from tests.support.codes import Callback
from tests.support.interactions import BUTTON, accepted_challenge, carrier
from tests.support.world import TabletopRunner, World


async def test_a_click_on_a_public_copy_of_the_board_redraws_it_as_the_board(
        world: World, bots: TabletopRunner) -> None:
    await bots.start()
    fake = world.fake
    board = await accepted_challenge(fake, world.channel, world.alice, world.bob, "chopsticks")
    mover = world.alice if player_to_move(board) == world.alice.id else world.bob
    move = str(move_buttons(board)[0]["custom_id"])
    copy = carrier(fake, world.channel, move, BUTTON)  # public, posted by the bot, not the game's stored board

    res = await fake.click(mover, copy, move)
    assert res.callback_type == Callback.UPDATE_MESSAGE, res.errors
    assert "You played" not in copy.text() and "Chopsticks #1" in copy.text(), copy.text()
    assert move_buttons(copy) and player_to_move(copy) not in (None, mover.id)  # the other player's turn, playable
    await fake.wait_until(lambda: board.text() == copy.text())  # the stored board shows the same position
