"""Game of the Generals through the offline Discord: challenges, hidden setup by DM (or the ephemeral
fallback), play by piece menu + direction buttons or by command, the public board, the end and restarts."""

from __future__ import annotations

import re
from typing import Any

from tests.support.codes import Callback, Component, InteractionType
from tests.support.fakediscord import FakeMessage
from tests.support.generals import (
    A_GRID,
    B_GRID,
    BOARD_TITLE,
    accepted,
    accepted_with_dm_boards,
    challenge,
    dm_board,
    import_grid,
    move,
    move_number,
    pictures_off,
    set_up,
    settled,
    to_move,
)
from tests.support.world import TabletopRunner, World, stored_rows


async def db_row(bots: TabletopRunner, sql: str) -> tuple[Any, ...]:
    """The first row `sql` reads from the bot's database (either one), on a connection of our own."""
    return (await stored_rows(bots.target, sql))[0]


def _past(board: FakeMessage, number: int) -> Any:
    """A condition: the board shows a move after `number`, or the game is over."""
    return lambda: (move_number(board) or 0) > number or "wins" in board.text()


async def test_two_players_set_up_by_dm_and_play_to_a_flag_capture(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    fake = world.fake
    channel_board, a, b = await set_up(world)
    assert channel_board.attachments and a.attachments and b.attachments  # pictures everywhere
    assert "Setup" not in channel_board.text()
    users = {world.alice.id: (world.alice, a), world.bob.id: (world.bob, b)}
    plans = {world.alice.id: ["a3-a4", "a4-a3", "a3-a4"], world.bob.id: ["e6-e5", "e5-e4", "e4-e3"]}
    while plans[world.bob.id]:
        mover = to_move(channel_board)
        assert mover is not None, channel_board.text()
        user, board = users[mover]
        before = move_number(channel_board) or 0
        await move(fake, user, board, plans[mover].pop(0))
        await settled(fake, channel_board, a, b, at_least=before + 1)
    await fake.wait_until(lambda: "wins" in channel_board.text())
    text = channel_board.text()
    assert f"<@{world.bob.id}> wins" in text and "Flag was captured" in text and "revealed" in text
    assert not channel_board.components
    await fake.wait_until(lambda: "Both armies are revealed" in a.text() and "Both armies are revealed" in b.text())
    assert await db_row(bots, "SELECT status FROM games WHERE id = 1") == ("finished",)


# Side B (rows 8, 7, 6) with the e-file open, so side A's Flag can walk from e3 to e8, where B's Major (d8)
# and Captain (f8) stand next to it.
B_OPEN_FILE = "1LT,2LT,SGT,MAJ,.,CPT,.,.,./FLG,4G,3G,2G,.,1G,COL,LTC,5G/PVT,PVT,PVT,PVT,.,PVT,PVT,SPY,SPY"


async def play_plans(world: World, boards: tuple[FakeMessage, FakeMessage, FakeMessage],
                     plans: dict[int, list[str]], until: Any) -> None:
    """Both players play their planned moves in turn until `until(channel_board)` holds."""
    channel_board, a, b = boards
    users = {world.alice.id: (world.alice, a), world.bob.id: (world.bob, b)}
    while not until(channel_board):
        mover = to_move(channel_board)
        assert mover is not None, channel_board.text()
        user, board = users[mover]
        before = move_number(channel_board) or 0
        await move(world.fake, user, board, plans[mover].pop(0))
        await settled(world.fake, channel_board, a, b, at_least=before + 1)


async def test_a_flag_on_the_far_side_next_to_an_enemy_wins_only_after_one_reply(
        world: World, bots: TabletopRunner) -> None:
    await bots.start()
    boards = await set_up(world, (A_GRID, B_OPEN_FILE))
    channel_board = boards[0]
    plans = {world.alice.id: ["e3-e4", "e4-e5", "e5-e6", "e6-e7", "e7-e8"],
             world.bob.id: ["a6-a5", "a5-a6", "a6-a5", "a5-a6", "a6-a5", "a5-a6", "a6-a5"]}
    await play_plans(world, boards, plans, lambda board: not plans[world.alice.id])
    text = channel_board.text()
    assert "wins" not in text and to_move(channel_board) == world.bob.id, text  # the Flag waits for B's reply
    assert f"Last: <@{world.alice.id}> moved e7-e8." in text
    await play_plans(world, boards, plans, lambda board: "wins" in board.text())
    text = channel_board.text()
    assert f"<@{world.alice.id}> wins" in text and "the Flag reached the far side" in text
    assert (await db_row(bots, "SELECT status, move_count FROM games WHERE id = 1"))[0] == "finished"


async def test_a_player_without_dms_sets_up_and_plays_from_my_board(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    fake = world.fake
    fake.fail_dm_for(world.bob)
    channel_board = await accepted(world)
    await fake.wait_until(lambda: any("could not send you a direct message" in m.text()
                                      for m in fake.channel_messages(world.channel)))
    notice = next(m for m in fake.channel_messages(world.channel) if "could not send you a direct message" in m.text())
    assert f"<@{world.bob.id}>" in notice.text() and "Privacy Settings" in notice.text()
    assert fake.dm_messages(world.bob) == [] and len(fake.dm_messages(world.alice)) == 1

    mine = await fake.click(world.bob, channel_board, "gg:1:board")
    assert mine.callback_type == Callback.CHANNEL_MESSAGE and mine.ephemeral and mine.message is not None, mine.errors
    panel = mine.message
    assert "Deploy your army" in panel.text() and "gg:1:dm" in panel.custom_ids()
    chose = await fake.select(world.bob, panel, "ggs:1:formation", ["f:blitz"])
    assert chose.callback_type == Callback.UPDATE_MESSAGE and chose.message is panel, chose.errors
    assert panel.attachments  # the board picture of the draft
    ready = await fake.click(world.bob, panel, "gg:1:ready")
    assert ready.callback_type == Callback.UPDATE_MESSAGE and "locked in" in panel.text(), ready.errors

    a = dm_board(fake, world.alice)
    assert (await import_grid(fake, world.alice, a, A_GRID)).callback_type == Callback.UPDATE_MESSAGE
    assert (await fake.click(world.alice, a, "gg:1:ready")).callback_type == Callback.UPDATE_MESSAGE
    await fake.wait_until(lambda: to_move(channel_board) is not None)
    if to_move(channel_board) == world.alice.id:
        await move(fake, world.alice, a, "a3-a4")
        await fake.wait_until(lambda: to_move(channel_board) == world.bob.id)
    fresh = await fake.click(world.bob, channel_board, "gg:1:board")  # a fresh board for the move
    assert fresh.message is not None and "Your move" in fresh.message.text()
    pieces = next(s for s in fresh.message.selects() if str(s["custom_id"]).startswith("ggs:1:piece:"))
    square = pieces["options"][0]["value"]
    before = move_number(channel_board)
    picked = await fake.select(world.bob, fresh.message, pieces["custom_id"], [square])
    assert (picked.callback_type == Callback.UPDATE_MESSAGE
            and picked.message is fresh.message and picked.ephemeral), picked.errors
    steps = [b for b in fresh.message.buttons() if str(b["custom_id"]).startswith("ggm:1:")]
    assert steps and "is chosen" in fresh.message.text()  # the chosen piece's directions, on the same board
    done = await fake.click(world.bob, fresh.message, steps[0]["custom_id"])
    assert done.callback_type == Callback.UPDATE_MESSAGE and done.message is fresh.message, done.errors
    assert "Last: You " in fresh.message.text()
    await fake.wait_until(lambda: move_number(channel_board) != before)

    fake.fail_dm_for(world.bob, failing=False)  # Bob opens his DMs and asks for the board there
    sent = await fake.click(world.bob, fresh.message, "gg:1:dm")
    assert sent.ephemeral and sent.message is not None, sent.errors
    await fake.wait_until(lambda: sent.message is not None and "Sent" in sent.message.text())
    assert len(fake.dm_messages(world.bob)) == 1 and BOARD_TITLE in fake.dm_messages(world.bob)[0].text()


async def test_setup_and_play_survive_restarts(world: World, bots: TabletopRunner) -> None:
    bot = await bots.start()
    fake = world.fake
    channel_board, a, b = await accepted_with_dm_boards(world)
    assert (await import_grid(fake, world.alice, a, A_GRID)).callback_type == Callback.UPDATE_MESSAGE
    await bots.stop(bot)  # mid-setup: Alice has a draft, Bob has nothing

    bot = await bots.start()
    assert "Deploy your army" in a.text() and "PVT" not in b.text()
    assert ((await fake.click(world.alice, a, "gg:1:ready")).callback_type
            == Callback.UPDATE_MESSAGE)  # old buttons still work
    assert (await import_grid(fake, world.bob, b, B_GRID)).callback_type == Callback.UPDATE_MESSAGE
    assert (await fake.click(world.bob, b, "gg:1:ready")).callback_type == Callback.UPDATE_MESSAGE
    await fake.wait_until(lambda: to_move(channel_board) is not None)
    await settled(fake, channel_board, a, b)
    first = to_move(channel_board)
    user, board, step = (world.alice, a, "a3-a4") if first == world.alice.id else (world.bob, b, "a6-a5")
    await move(fake, user, board, step)
    await settled(fake, channel_board, a, b, at_least=2)
    await bots.stop(bot)  # mid-play

    await bots.start()
    assert len(fake.dm_messages(world.alice)) == 1 and len(fake.dm_messages(world.bob)) == 1  # no second DM
    second = world.bob if first == world.alice.id else world.alice
    user, board, step = (second, b, "a6-a5") if second is world.bob else (second, a, "a3-a4")
    await move(fake, user, board, step)
    await settled(fake, channel_board, a, b, at_least=3)
    moves = [str(action) for action, in await stored_rows(
        bots.target, "SELECT action FROM moves WHERE game_id = 1 ORDER BY ply")]
    assert moves[-2:] == (["a3-a4", "a6-a5"] if first == world.alice.id else ["a6-a5", "a3-a4"])


async def test_playing_the_bot_by_command_with_autocomplete_then_replay(world: World, bots: TabletopRunner) -> None:
    bot = await bots.start()
    fake = world.fake
    channel_board = await challenge(world, world.alice, level="random")
    await fake.wait_until(lambda: len(fake.dm_messages(world.alice)) == 1)
    a = dm_board(fake, world.alice)
    chose = await fake.select(world.alice, a, "ggs:1:formation", ["f:balanced"])
    assert chose.callback_type == Callback.UPDATE_MESSAGE and "Ready" in str(a.buttons()), chose.errors
    exported = await fake.click(world.alice, a, "gg:1:export")
    assert exported.ephemeral and exported.message is not None and "FLG" in exported.message.text()
    assert (await fake.click(world.alice, a, "gg:1:ready")).callback_type == Callback.UPDATE_MESSAGE
    await fake.wait_until(lambda: to_move(channel_board) == world.alice.id, timeout=10)  # the bot deployed (and moved)

    for turn in range(3):  # three moves by command, each picked from autocomplete; the bot answers each
        await fake.wait_until(lambda: to_move(channel_board) == world.alice.id, timeout=10)
        await bot.computer_turns.idle()
        where = fake.dm_channel(world.alice) if turn == 1 else world.channel  # in the DM too
        choices = await fake.autocomplete(world.alice, where, "generals", "move", {"move": ""}, focused="move")
        assert choices and all(re.fullmatch(r"[a-i][1-8]-[a-i][1-8]", c["value"]) for c in choices)
        before = move_number(channel_board) or 0
        res = await fake.slash(world.alice, where, "generals", "move", options={"move": choices[0]["value"]})
        assert res.ephemeral and res.message is not None and "You " in res.message.text(), res.errors
        await fake.wait_until(_past(channel_board, before + 1), timeout=10)
        if "wins" in channel_board.text():
            break

    # Refusals are ephemeral and say why; nothing changes.
    count = (await db_row(bots, "SELECT move_count FROM games WHERE id = 1"))[0]
    nonsense = await fake.slash(world.alice, world.channel, "generals", "move", options={"move": "z9-z8"})
    assert nonsense.ephemeral and nonsense.message is not None and "not a square" in nonsense.message.text()
    setup_text = await fake.slash(world.alice, world.channel, "generals", "move", options={"move": "ready"})
    assert setup_text.ephemeral and setup_text.message is not None and "e3-e4" in setup_text.message.text()
    stranger = await fake.click(world.carol, channel_board, "gg:1:board")
    assert stranger.ephemeral and stranger.message is not None and "not playing" in stranger.message.text()
    assert (await db_row(bots, "SELECT move_count FROM games WHERE id = 1"))[0] == count

    # A replay of a game in progress shows no ranks; the bot's DM-less seat never got a DM.
    # The setups are one step (move 0); move 5 is the fifth move of play, drawn as a picture.
    replay = await fake.slash(world.carol, world.channel, "generals", "replay", options={"game": 1, "move": 5})
    assert replay.ephemeral and replay.message is not None, replay.errors
    text = replay.message.text()
    assert "Ranks are shown in replays once the game is over" in text and "```" not in text
    assert len(replay.message.attachments) == 1
    running = fake.attachment_bytes(replay.message.attachments[0])

    resigned = await fake.click(world.alice, channel_board, "gg:1:resign")
    assert resigned.message is not None
    assert (await fake.click(world.alice, resigned.message, "gg:1:resign-yes")).callback_type == Callback.UPDATE_MESSAGE
    await fake.wait_until(lambda: "wins" in channel_board.text())
    assert "Both armies are revealed" in channel_board.text() and "resignation" in channel_board.text()
    final = await fake.slash(world.carol, world.channel, "generals", "replay", options={"game": 1, "move": 5})
    assert final.message is not None and len(final.message.attachments) == 1
    assert fake.attachment_bytes(final.message.attachments[0]) != running  # the same position, ranks now shown


async def test_a_formation_name_with_a_character_no_database_keeps_is_refused(
    world: World, bots: TabletopRunner
) -> None:
    # PostgreSQL's text cannot hold NUL (SQLite's can): the form is refused on both, and nothing is saved.
    await bots.start()
    fake = world.fake
    await accepted(world)
    await fake.wait_until(lambda: len(fake.dm_messages(world.alice)) == 1, timeout=20)
    a = dm_board(fake, world.alice)
    assert (await import_grid(fake, world.alice, a, A_GRID)).callback_type == Callback.UPDATE_MESSAGE
    shown = await fake.click(world.alice, a, "gg:1:save")
    refused = await fake.submit_modal(world.alice, shown, {"name": "Flag\x00forward"})
    assert refused.ephemeral and refused.message is not None, refused.errors
    assert "The form arrived garbled; please fill it in again." in refused.message.text()
    assert await stored_rows(bots.target, "SELECT name FROM saved_formations") == []


async def test_saved_formations_are_per_user_and_load_on_either_side(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    fake = world.fake
    _channel_board, a, b = await accepted_with_dm_boards(world)
    assert (await import_grid(fake, world.alice, a, A_GRID)).callback_type == Callback.UPDATE_MESSAGE
    shown = await fake.click(world.alice, a, "gg:1:save")
    saved = await fake.submit_modal(world.alice, shown, {"name": "Flag forward"})
    assert saved.ephemeral and saved.message is not None and "Saved as **Flag forward**" in saved.message.text()
    await fake.wait_until(lambda: any(o["value"] == "s:Flag forward" for s in a.selects() for o in s["options"]))
    assert not any(o["value"].startswith("s:") for s in b.selects() for o in s["options"])  # Bob's list is his own

    bad = await import_grid(fake, world.bob, b, "PVT PVT\nFLG")
    assert bad.ephemeral and bad.message is not None and "setup" in bad.message.text().lower()

    # Alice loads her formation as side B in a second game: her Flag is again in the middle of her front row.
    res = await fake.slash(world.bob, world.channel, "generals", "challenge", options={"opponent": world.alice})
    assert res.message is not None
    assert (await fake.click(world.alice, res.message, "gg:2:accept")).callback_type == Callback.UPDATE_MESSAGE
    await fake.wait_until(lambda: len(fake.dm_messages(world.alice)) == 2)
    second = next(m for m in fake.dm_messages(world.alice) if "#2" in m.text())
    loaded = await fake.select(world.alice, second, "ggs:2:formation", ["s:Flag forward"])
    assert loaded.callback_type == Callback.UPDATE_MESSAGE, loaded.errors
    exported = await fake.click(world.alice, second, "gg:2:export")
    assert exported.message is not None
    grid = exported.message.text()
    assert re.search(r"6 \| .*FLG", grid) and re.search(r"8 \|", grid), grid  # front row of side B is rank 6

    deleting = await fake.select(world.alice, second, "ggs:2:formation", ["d:"])  # the menu's last option
    assert deleting.message is not None
    gone = await fake.select(world.alice, deleting.message, "ggs:2:forget", ["Flag forward"])
    assert gone.callback_type == Callback.UPDATE_MESSAGE and "Deleted" in deleting.message.text(), gone.errors
    await fake.wait_until(lambda: not any(o["value"].startswith("s:") for s in a.selects() for o in s["options"]))


async def test_with_pictures_off_the_boards_are_text(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    fake = world.fake
    await pictures_off(world)
    channel_board = await challenge(world, world.alice, level="random")
    await fake.wait_until(lambda: len(fake.dm_messages(world.alice)) == 1)
    a = dm_board(fake, world.alice)
    assert ((await fake.select(world.alice, a, "ggs:1:formation", ["f:flag-fortress"])).callback_type
            == Callback.UPDATE_MESSAGE)
    # The text board with her own ranks.
    assert not a.attachments and "```" in a.text() and "FL" in a.text().split("```")[1]
    assert (await fake.click(world.alice, a, "gg:1:ready")).callback_type == Callback.UPDATE_MESSAGE
    await fake.wait_until(lambda: to_move(channel_board) == world.alice.id, timeout=10)
    assert not channel_board.attachments and "```" in channel_board.text()
    board_text = channel_board.text().split("```")[1]
    assert "A?" in board_text and "B?" in board_text and "FL" not in board_text  # no ranks for the channel


async def test_a_draw_offered_on_one_board_is_accepted_on_the_other(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    fake = world.fake
    channel_board, a, b = await set_up(world, (A_GRID, B_GRID))
    offered = await fake.click(world.alice, a, "gg:1:draw")
    assert offered.ephemeral and offered.message is not None and "offered a draw" in offered.message.text()
    await fake.wait_until(lambda: "Your opponent offers a draw" in b.text() and "offers a draw" in channel_board.text())
    again = await fake.click(world.alice, a, "gg:1:draw")
    assert again.ephemeral and again.message is not None and "already offered" in again.message.text()
    accepted_draw = await fake.click(world.bob, b, "gg:1:draw")
    assert accepted_draw.message is not None and "drawn by agreement" in accepted_draw.message.text()
    await fake.wait_until(lambda: "Draw** by agreement" in channel_board.text() and "revealed" in channel_board.text())
    await fake.wait_until(lambda: "Both armies are revealed" in a.text() and not a.components)


async def test_forms_are_checked_like_buttons(world: World, bots: TabletopRunner) -> None:
    """A form submitted for a game the user does not play, or one no version of the bot ever showed, is
    refused with a reason and changes nothing."""
    from tests.support.interactions import raw_interaction

    await bots.start()
    fake = world.fake
    await accepted(world)
    count = (await db_row(bots, "SELECT move_count FROM games WHERE id = 1"))[0]
    for custom_id, user in (("ggf:1:import", world.carol), ("ggf:1:rename", world.alice), ("zz:1", world.alice)):
        data = {"custom_id": custom_id, "components": [
            {"type": Component.ACTION_ROW,
             "components": [{"type": Component.TEXT_INPUT, "custom_id": "grid", "value": A_GRID}]}]}
        res = await raw_interaction(fake, InteractionType.MODAL_SUBMIT, user, world.channel, data)
        assert res.ephemeral and res.message is not None and res.message.text(), (custom_id, res.errors)
    assert (await db_row(bots, "SELECT move_count FROM games WHERE id = 1"))[0] == count


async def test_resigning_right_after_both_setups_is_not_rated_and_the_ending_says_so(
        world: World, bots: TabletopRunner) -> None:
    """Issue 22, bug 8: the setups are no moves of play. Both ready, then the first mover resigns: nobody's rating
    moves, and the ending says why (its Russian words are in the catalogue, tests/bot/test_i18n.py)."""
    await bots.start()
    fake = world.fake
    channel_board = (await set_up(world))[0]
    mover = world.alice if to_move(channel_board) == world.alice.id else world.bob
    resigned = await fake.click(mover, channel_board, "gg:1:resign")
    assert resigned.message is not None, resigned.errors
    assert (await fake.click(mover, resigned.message, "gg:1:resign-yes")).callback_type == Callback.UPDATE_MESSAGE
    said = "Not rated: it ended before it really began."
    await fake.wait_until(lambda: any(said in m.text() for m in fake.channel_messages(world.channel)))
    ending = next(m for m in fake.channel_messages(world.channel) if said in m.text())
    assert "→" not in ending.text(), ending.text()  # no rating before → after
    assert await stored_rows(bots.target, "SELECT user_id FROM ratings") == []
    assert await stored_rows(bots.target, "SELECT rated FROM games WHERE id = 1") == [(0,)]
