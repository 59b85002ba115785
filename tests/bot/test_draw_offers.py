"""A draw offer lasts until the opponent answers it (issue 23, defect 1), in Chopsticks and Game of the Generals alike:
an offer made on one's own turn survives one's own move, the opponent sees it on every board they look at and
accepts with **Accept draw**, and when they play on instead the one who offered reads that it was declined (a line on
the boards that move redraws anyway: no request more per move)."""

from __future__ import annotations

from tests.support.boards import move_buttons, player_to_move
from tests.support.codes import Callback
from tests.support.fakediscord import FakeMessage, FakeUser
from tests.support.generals import A_GRID, B_GRID, move, move_number, set_up, settled, to_move
from tests.support.interactions import bot_idle
from tests.support.world import TabletopRunner, World


async def _chopsticks(world: World) -> FakeMessage:
    res = await world.fake.slash(world.alice, world.channel, "chopsticks", "challenge", options={"opponent": world.bob})
    assert res.message is not None, res.errors
    board = res.message
    accepted = await world.fake.click(world.bob, board, board.button("Accept")["custom_id"])
    assert accepted.callback_type == Callback.UPDATE_MESSAGE, accepted.errors
    return board


def _labels(board: FakeMessage) -> list[str]:
    return [str(b["label"]) for b in board.buttons()]


async def test_a_chopsticks_offer_made_on_ones_turn_survives_ones_move_and_is_accepted(
        world: World, bots: TabletopRunner) -> None:
    await bots.start()
    board = await _chopsticks(world)
    users = {world.alice.id: world.alice, world.bob.id: world.bob}
    offerer = users[player_to_move(board) or 0]
    other = world.bob if offerer is world.alice else world.alice
    offered = await world.fake.click(offerer, board, board.button("Offer draw")["custom_id"])
    assert offered.callback_type == Callback.UPDATE_MESSAGE, offered.errors
    assert f"<@{offerer.id}> offers a draw" in board.text()

    played = await world.fake.click(offerer, board, move_buttons(board)[0]["custom_id"])
    assert played.callback_type == Callback.UPDATE_MESSAGE, played.errors
    assert player_to_move(board) == other.id
    # Still there for the opponent, on their turn, with the button that accepts it.
    assert f"<@{offerer.id}> offers a draw" in board.text() and "**Accept draw**" in board.text(), board.text()
    assert "Accept draw" in _labels(board) and "Offer draw" not in _labels(board)
    accepted = await world.fake.click(other, board, board.button("Accept draw")["custom_id"])
    assert accepted.callback_type == Callback.UPDATE_MESSAGE, accepted.errors
    assert "Drawn by agreement" in board.text() and board.components == []


async def test_a_chopsticks_offer_is_declined_by_the_opponents_move_and_the_offerer_reads_so(
        world: World, bots: TabletopRunner) -> None:
    bot = await bots.start()
    board = await _chopsticks(world)
    users = {world.alice.id: world.alice, world.bob.id: world.bob}
    mover = users[player_to_move(board) or 0]
    offerer = world.bob if mover is world.alice else world.alice  # offered while waiting for the opponent's move
    await world.fake.click(offerer, board, board.button("Offer draw")["custom_id"])
    assert f"<@{offerer.id}> offers a draw" in board.text()
    await bot_idle(world.fake)  # whatever the offer set going is done
    await bot.service.told()
    requests = len(world.fake.requests)

    played = await world.fake.click(mover, board, move_buttons(board)[0]["custom_id"])
    assert played.callback_type == Callback.UPDATE_MESSAGE, played.errors
    await bot_idle(world.fake)
    await bot.service.told()
    text = board.text()
    assert "offers a draw" not in text
    assert f"<@{mover.id}> played on: the draw <@{offerer.id}> offered is declined." in text, text
    assert "Offer draw" in _labels(board) and "Accept draw" not in _labels(board)
    # Told on the board the move edits anyway: the move's one answer, and nothing else but turn notifications.
    made = world.fake.requests[requests:]
    assert len([r for r in made if "/callback" in r.path]) == 1
    others = [r for r in made if "/callback" not in r.path and r.method != "DELETE"
              and "your move" not in str((r.json or {}).get("content"))]
    assert others == [], others
    # The next move clears the line.
    await world.fake.click(offerer, board, move_buttons(board)[0]["custom_id"])
    assert "declined" not in board.text()


async def _generals_move(world: World, boards: tuple[FakeMessage, FakeMessage, FakeMessage], user: FakeUser,
                         text: str) -> None:
    channel_board, a, b = boards
    before = move_number(channel_board) or 0
    await move(world.fake, user, a if user is world.alice else b, text)
    await settled(world.fake, channel_board, a, b, at_least=before + 1)


async def test_a_generals_offer_lasts_until_the_opponent_answers_and_every_board_says_so(
        world: World, bots: TabletopRunner) -> None:
    await bots.start()
    fake = world.fake
    boards = await set_up(world, (A_GRID, B_GRID))
    channel_board, a, b = boards
    plans = {world.alice.id: ["a3-a4", "a4-a3", "a3-a4"], world.bob.id: ["a6-a5", "a5-a6", "a6-a5"]}
    first = world.alice if to_move(channel_board) == world.alice.id else world.bob
    second = world.bob if first is world.alice else world.alice
    boards_of = {world.alice.id: a, world.bob.id: b}

    # The first mover offers a draw on their turn, then moves: the offer stays for the opponent to answer.
    offered = await fake.click(first, boards_of[first.id], "gg:1:draw")
    assert offered.ephemeral and offered.message is not None and "offered a draw" in offered.message.text()
    await _generals_move(world, boards, first, plans[first.id].pop(0))
    theirs = boards_of[second.id]
    await fake.wait_until(lambda: "Your opponent offers a draw" in theirs.text())
    assert "**Accept draw**" in theirs.text() and "Offer draw" not in theirs.text(), theirs.text()
    assert "Accept draw" in _labels(theirs), _labels(theirs)
    assert "You offered a draw" in boards_of[first.id].text()
    assert f"<@{first.id}> offers a draw" in channel_board.text() and "**Accept draw**" in channel_board.text()
    assert "Accept draw" in _labels(channel_board)
    my_board = await fake.click(second, channel_board, "gg:1:board")  # the ephemeral My board says it too
    assert my_board.message is not None and "Your opponent offers a draw" in my_board.message.text()

    # The opponent plays on instead: declined, and the one who offered reads it on their own board and the channel's.
    await _generals_move(world, boards, second, plans[second.id].pop(0))
    mine = boards_of[first.id]
    await fake.wait_until(lambda: "your draw offer is declined" in mine.text())
    assert "offers a draw" not in channel_board.text()
    assert f"<@{second.id}> played on: the draw <@{first.id}> offered is declined." in channel_board.text()
    assert "Offer draw" in _labels(channel_board) and "Accept draw" not in _labels(channel_board)

    # A new offer is accepted with Accept draw on the opponent's board.
    await fake.click(first, mine, "gg:1:draw")
    await fake.wait_until(lambda: "Your opponent offers a draw" in theirs.text())
    accepted = await fake.click(second, theirs, theirs.button("Accept draw")["custom_id"])
    assert accepted.message is not None and "drawn by agreement" in accepted.message.text(), accepted.errors
    await fake.wait_until(lambda: "Draw** by agreement" in channel_board.text())
