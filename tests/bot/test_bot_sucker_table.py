"""So Long Sucker at the table, as its players read it through the offline Discord: who did what (people named as
people, with their colour; computer seats as Bot 1, Bot 2), the thread that reaches every player, prisoners
given to computer seats, resigning, and what the table is told when time runs out.

Seats follow join order: alice red, bob blue, carol green, then the computer seats."""

from __future__ import annotations

from bot.client import TabletopBot
from bot.games.sucker import board
from bot.i18n import Say
from bot.service.model import Game, present
from games.sucker import SuckerState
from storage import GameRecord, Seat
from tests.support.codes import Callback
from tests.support.fakediscord import FakeChannel, FakeMessage, FakeUser, InteractionResult
from tests.support.fakediscord.limits import check_message
from tests.support.interactions import bot_idle
from tests.support.sucker import open_table, put_position, stored, thread_opened
from tests.support.world import TabletopRunner, World, stored_rows

R, B, G = 0, 1, 2
THREAD_MEMBERS = "/channels/{channel_id}/thread-members/{user_id}"


def last(status: FakeMessage) -> str:
    """The status message's "Last:" line: what the latest action did."""
    return next((line for line in status.text().splitlines() if line.startswith("Last: ")), "")


def said(res: InteractionResult) -> str:
    assert res.message is not None, res.errors
    return res.message.content


def thread_says(world: World, thread: FakeChannel, words: str) -> bool:
    return any(words in m.content for m in world.fake.channel_messages(thread))


async def table(world: World, bots: TabletopRunner, users: list[FakeUser], computers: int = 0,
                position: SuckerState | None = None) -> tuple[TabletopBot, FakeMessage, FakeChannel]:
    """A table started through its lobby, its thread open, set to `position` if one is given."""
    bot = await bots.start()
    status = await open_table(world, users, bots=computers)
    await thread_opened(world, status)
    if position is not None:
        await put_position(world, bot, bots.target, position)
    return bot, status, world.guild.threads[-1]


async def click(world: World, user: FakeUser, message: FakeMessage, label: str) -> InteractionResult:
    res = await world.fake.click(user, message, message.button(label)["custom_id"])
    assert res.callback_type in (Callback.CHANNEL_MESSAGE, Callback.UPDATE_MESSAGE), res.errors
    return res


async def play(world: World, user: FakeUser, status: FakeMessage, label: str) -> InteractionResult:
    """Play a chip as a player does: the option "colour on pile" of the status message's chip menu, one step."""
    menu, value = next((c, o["value"]) for c in status.walk_components() if ":play" in str(c.get("custom_id", ""))
                       for o in c["options"] if o["label"] == label)
    res = await world.fake.select(user, status, str(menu["custom_id"]), values=[value])
    assert res.callback_type == Callback.UPDATE_MESSAGE and res.message is status, res.errors
    return res


# ----- the thread ---------------------------------------------------------------------------------------------------
async def test_every_person_at_the_table_is_added_to_its_thread(world: World, bots: TabletopRunner) -> None:
    people = [world.alice, world.bob, world.carol]
    _bot, _status, thread = await table(world, bots, people, computers=1)
    await world.fake.wait_until(lambda: {u.id for u in people} <= thread.member_ids)
    added = world.fake.calls("PUT", THREAD_MEMBERS)
    assert sorted(int(r.path.rsplit("/", 1)[1]) for r in added) == sorted(u.id for u in people)
    assert all(r.status == 204 for r in added)
    greeting = next(m for m in world.fake.channel_messages(thread) if m.content.startswith("The table of"))
    assert "`/sucker resign`" in greeting.content


# ----- narration --------------------------------------------------------------------------------------------------
async def test_plays_namings_captures_and_kills_are_told_as_they_happened(world: World, bots: TabletopRunner) -> None:
    alice, bob, carol = world.alice, world.bob, world.carol
    # Alice (red) to play, holding two red chips and a blue prisoner; pile 2 is blue under red.
    position = SuckerState.from_table(3, holdings=["RRB", "BB", "GG"], piles=["G", "BR"], chain=(R,))
    _bot, status, _thread = await table(world, bots, [alice, bob, carol], position=position)
    text = status.text()
    assert f"▶ 🟥 {alice.mention} (red): 🟥 2 🟦 1 (1 prisoner)" in text
    assert f"🟦 {bob.mention} (blue): 🟦 2" in text and f"**{alice.mention} (red) plays a chip**" in text

    await play(world, alice, status, "blue on pile 2 (2 chips, top red)")
    assert last(status) == f"Last: {alice.mention} (red) plays a blue chip on pile 2."  # no capture: red is on top

    await click(world, alice, status, "Green moves next")
    assert last(status) == f"Last: {alice.mention} (red) names {carol.mention} (green) to move next."

    await play(world, carol, status, "green on pile 1 (1 chip, top green)")
    assert last(status) == f"Last: {carol.mention} (green) plays a green chip on pile 1: {carol.mention} (green) " \
                           "captures it."
    assert f"**{carol.mention} (green) captured pile 1** and chooses one chip to kill." in status.text()

    await click(world, carol, status, "Kill a green chip")
    assert last(status) == f"Last: {carol.mention} (green) kills a green chip from pile 1 and takes the rest."


async def test_a_declined_rescue_and_a_rescue_name_who_was_stuck(world: World, bots: TabletopRunner) -> None:
    alice, bob, carol = world.alice, world.bob, world.carol
    # Alice (red) holds the move and no chip; bob and carol each hold a red prisoner.
    position = SuckerState.from_table(3, holdings=["", "BR", "GR"], chain=(G, R))
    _bot, status, _thread = await table(world, bots, [alice, bob, carol], position=position)
    assert f"{alice.mention} (red) has the move but no chips. **{bob.mention} (blue), rescue them" in status.text()
    styles = {b["label"]: b["style"] for b in status.buttons()}
    assert styles["Decline to rescue"] == 2 and styles["Rescue with a red chip"] == 1  # declining looks apart (grey)
    await click(world, bob, status, "Decline to rescue")
    assert last(status) == f"Last: {bob.mention} (blue) declines to rescue {alice.mention} (red)."
    await click(world, carol, status, "Rescue with a red chip")
    assert last(status) == f"Last: {carol.mention} (green) rescues {alice.mention} (red) with a red chip."
    assert f"**{alice.mention} (red) plays a chip**" in status.text()


async def test_gifts_and_kills_of_prisoners_are_announced_with_names(world: World, bots: TabletopRunner) -> None:
    alice, bob, carol = world.alice, world.bob, world.carol
    position = SuckerState.from_table(3, holdings=["R", "BG", "GR"], chain=(R,))
    _bot, status, thread = await table(world, bots, [alice, bob, carol], position=position)
    gift = await world.fake.slash(bob, thread, "sucker", "give", options={"chip": "green", "to": alice})
    assert not gift.ephemeral and said(gift) == f"{bob.mention} (blue) gives a green chip to {alice.mention} (red)."
    kill = await world.fake.slash(carol, thread, "sucker", "kill", options={"chip": "red"})
    assert not kill.ephemeral and said(kill) == f"{carol.mention} (green) kills a red prisoner."
    await world.fake.wait_until(lambda: "kills a red prisoner" in last(status))


# ----- computer seats -------------------------------------------------------------------------------------------------
async def test_computer_seats_are_told_apart_and_can_be_given_prisoners(world: World, bots: TabletopRunner) -> None:
    alice = world.alice
    # Alice (red) to play, holding a blue and a green prisoner; Bot 1 is blue, Bot 2 green.
    position = SuckerState.from_table(3, holdings=["RBG", "B", "G"], chain=(R,))
    _bot, status, thread = await table(world, bots, [alice], computers=2, position=position)
    text = status.text()
    assert "🟦 Bot 1 (blue): 🟦 1" in text and "🟩 Bot 2 (green): 🟩 1" in text

    choices = await world.fake.autocomplete(alice, thread, "sucker", "give", options={"chip": "blue", "to_colour": ""},
                                            focused="to_colour")
    assert [(c["name"], c["value"]) for c in choices] == [("blue: Bot 1", "blue"), ("green: Bot 2", "green")]
    me = await world.fake.slash(alice, thread, "sucker", "give", options={"chip": "blue", "to": world.fake.bot_user})
    assert me.ephemeral and "`to_colour`" in said(me) and "`green` for Bot 2 (green)" in said(me)
    nobody = await world.fake.slash(alice, thread, "sucker", "give", options={"chip": "blue"})
    assert nobody.ephemeral and "Say who gets them" in said(nobody)
    both = await world.fake.slash(alice, thread, "sucker", "give", options={"chip": "blue", "to": alice,
                                                                            "to_colour": "green"})
    assert both.ephemeral and "give only one of them" in said(both)

    gift = await world.fake.slash(alice, thread, "sucker", "give", options={"chip": "blue", "to_colour": "green"})
    assert said(gift) == f"{alice.mention} (red) gives a blue chip to Bot 2 (green)."
    await world.fake.wait_until(lambda: "🟩 Bot 2 (green): 🟩 1 🟦 1 (1 prisoner)" in status.text())


async def test_picking_me_gives_to_my_only_computer_seat(world: World, bots: TabletopRunner) -> None:
    position = SuckerState.from_table(3, holdings=["RB", "B", "G"], chain=(R,))
    _bot, _status, thread = await table(world, bots, [world.alice, world.bob], computers=1, position=position)
    gift = await world.fake.slash(world.alice, thread, "sucker", "give",
                                  options={"chip": "blue", "to": world.fake.bot_user})
    assert said(gift) == f"{world.alice.mention} (red) gives a blue chip to Bot 1 (green)."


# ----- resigning ----------------------------------------------------------------------------------------------------
async def test_a_person_resigns_after_confirming_and_the_table_is_told(world: World, bots: TabletopRunner) -> None:
    alice, bob, carol = world.alice, world.bob, world.carol
    _bot, status, thread = await table(world, bots, [alice, bob, carol])
    outsider = await world.fake.click(world.fake.add_user("dave"), status, status.button("Resign")["custom_id"])
    assert outsider.ephemeral and "not playing" in said(outsider)

    ask = await click(world, bob, status, "Resign")
    assert ask.ephemeral and said(ask).startswith("Resign from So Long Sucker #1?") and ask.message is not None
    _s, _state, log = await stored(bots.target)
    assert len(log) == 0, "asking changes nothing"
    await click(world, bob, ask.message, "Yes, resign")
    assert ask.message.content == "You resigned from So Long Sucker #1." and ask.message.components == []
    told = f"{bob.mention} (blue) resigns; the 7 chips they held leave the game"
    await world.fake.wait_until(lambda: thread_says(world, thread, f"So Long Sucker #1: {told}."))
    assert last(status) == f"Last: {told}." and f"💀 🟦 {bob.mention} (blue): defeated" in status.text()
    again = await click(world, bob, status, "Resign")
    assert again.ephemeral and said(again) == "You are already out of So Long Sucker #1."

    command = await world.fake.slash(carol, thread, "sucker", "resign")
    assert command.ephemeral and command.message is not None and "Resign from So Long Sucker #1?" in said(command)
    await click(world, carol, command.message, "Yes, resign")
    await world.fake.wait_until(lambda: "wins" in status.text())
    assert status.components == [] and (await stored(bots.target))[0] == "finished"


# ----- time ---------------------------------------------------------------------------------------------------------
async def test_running_out_of_time_is_told_with_names(world: World, bots: TabletopRunner) -> None:
    alice, bob, carol = world.alice, world.bob, world.carol
    bot = await bots.start_with(turn_timeout=2.0)
    status = await open_table(world, [alice, bob, carol])
    await thread_opened(world, status)
    thread = world.guild.threads[0]
    # Put before the first decision's time runs out: alice is stuck; bob, then carol, are asked to rescue her.
    await put_position(world, bot, bots.target, SuckerState.from_table(3, holdings=["", "BR", "GR"], chain=(G, R)))
    first = f"time ran out for a rescue, so {bob.mention} (blue) declines to rescue {alice.mention} (red)."
    await world.fake.wait_until(lambda: thread_says(world, thread, first), timeout=6)
    second = (f"time ran out for a rescue, so {carol.mention} (green) declines to rescue {alice.mention} (red); "
              f"{alice.mention} (red) is defeated.")
    await world.fake.wait_until(lambda: thread_says(world, thread, second), timeout=6)
    # Carol's time runs out too, which ends the game: the one ending message (in the thread, replying to the
    # status message) says so, to everyone at once.
    out = f"{bob.mention} (blue) wins: the last opponent ran out of time."
    await world.fake.wait_until(
        lambda: any(out in m.text() and "is over" in m.text() for m in world.fake.channel_messages(thread)),
        timeout=6)
    assert await bot_idle(world.fake)
    assert (await stored(bots.target))[0] == "finished"
    places = await stored_rows(bots.target, "SELECT seat, place FROM game_players WHERE game_id = 1 ORDER BY seat")
    assert places == [(R, 3), (B, 1), (G, 2)]


# ----- the status message while a computer seat decides --------------------------------------------------------------
def test_while_a_computer_seat_decides_the_status_offers_only_resign() -> None:
    state = SuckerState.from_table(6, holdings=["RB", "B", "G", "Y", "P", "O"], chain=(R, B))
    seats = (Seat(0, 10**17), Seat(1, None, "basic"), Seat(2, 10**17 + 2), *(Seat(i, None, "basic") for i in (3, 4, 5)))
    record = GameRecord(
        id=7, kind="sucker", guild_id=1, channel_id=2, message_id=3, status="active", options={"chips": 7},
        initial_state={}, state=state.to_dict(), version=1, move_count=0, draw_offer=None, turn_timeout=86400.0,
        deadline=2e9, remind_at=None, created_at=0.0, updated_at=0.0, finished_at=None, seats=seats)
    result = present(Game(record, state))
    say = Say("en")
    embed, controls = board.status_embed(result.game, result.public, say), board.status_controls(result, say)
    assert controls is not None and [item.custom_id for item in controls.children] == ["skr:7:resign"]  # type: ignore[attr-defined]
    text = embed.description or ""
    assert "**Bot 1 (blue) plays a chip**" in text
    assert all(name in text for name in ("Bot 1 (blue)", "Bot 2 (yellow)", "Bot 3 (purple)", "Bot 4 (orange)"))
    for say in (Say("en"), Say("ru")):
        embed, controls = board.status_embed(result.game, result.public, say), board.status_controls(result, say)
        assert controls is not None
        assert check_message({"content": board.content(result.game, say), "embeds": [embed.to_dict()],
                              "components": controls.to_components()}, creating=True) == []
