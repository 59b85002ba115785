"""Playing a So Long Sucker chip, as its player reads the status message: every legal "colour on pile" in its
menus, one choice and one request (the status message redrawn in answer); two steps (colour, then pile in a
private reply) only when the plays do not fit the message; and a chip menu posted before plays took one step
still works.

Seats follow join order: alice red, bob blue, carol green."""

from __future__ import annotations

from typing import Any

from games.sucker import SuckerState
from tests.support.codes import Callback, Component
from tests.support.fakediscord import FakeMessage
from tests.support.fakediscord.routes import CALLBACK_ROUTE
from tests.support.interactions import bot_idle
from tests.support.sucker import open_table, put_position, stored, thread_opened
from tests.support.world import TabletopRunner, World

R, B, G = 0, 1, 2


def menus(status: FakeMessage, what: str = "play") -> list[dict[str, Any]]:
    """The status message's chip menus of one kind (`play`: one step; `chip`: the colour of two steps)."""
    return [c for c in status.walk_components() if f":{what}" in str(c.get("custom_id", ""))]


def labels(menu: dict[str, Any]) -> list[str]:
    return [str(o["label"]) for o in menu["options"]]


async def table_at(world: World, bots: TabletopRunner, position: SuckerState) -> FakeMessage:
    bot = await bots.start()
    status = await open_table(world, [world.alice, world.bob, world.carol])
    await thread_opened(world, status)
    await put_position(world, bot, bots.target, position)
    assert await bot_idle(world.fake)
    return status


async def test_a_chip_is_played_in_one_choice_on_the_status_message(world: World, bots: TabletopRunner) -> None:
    # Alice (red) to play, holding two red chips and a blue prisoner; pile 1 is green, pile 2 blue under red.
    position = SuckerState.from_table(3, holdings=["RRB", "BB", "GG"], piles=["G", "BR"], chain=(R,))
    status = await table_at(world, bots, position)
    [menu] = menus(status)
    assert menu["placeholder"] == "Play a chip: which colour on which pile?" and not menus(status, "chip")
    assert labels(menu) == ["red on pile 1 (1 chip, top green)", "red on pile 2 (2 chips, top red)",
                            "red on a new pile", "blue on pile 1 (1 chip, top green)",
                            "blue on pile 2 (2 chips, top red)", "blue on a new pile"]
    assert [o["emoji"]["name"] for o in menu["options"]] == ["🟥"] * 3 + ["🟦"] * 3
    assert all(len(str(o["value"])) <= 100 for o in menu["options"])

    before, edits = len(world.fake.requests), status.edits
    chosen = next(o["value"] for o in menu["options"] if o["label"] == "blue on pile 2 (2 chips, top red)")
    res = await world.fake.select(world.alice, status, str(menu["custom_id"]), values=[chosen])
    assert await bot_idle(world.fake)
    assert res.callback_type == Callback.UPDATE_MESSAGE and res.message is status and not res.errors
    assert f"Last: {world.alice.mention} (red) plays a blue chip on pile 2." in status.text()
    assert f"**{world.alice.mention} (red) names who moves next.**" in status.text()
    assert (await stored(bots.target))[2][-1][2] == chosen
    # One request: the interaction's answer, which redraws the status message; nothing else touches it.
    after = world.fake.requests[before:]
    assert [r.path for r in after if r.route == CALLBACK_ROUTE] == [f"/interactions/{res.id}/{res.token}/callback"]
    assert not [r for r in after if r.method == "PATCH" and (str(status.id) in r.path or "@original" in r.path)]
    assert status.edits == edits + 1


async def test_plays_too_many_for_one_menu_are_split_by_colour(world: World, bots: TabletopRunner) -> None:
    # Nine piles: ten plays for each of alice's three colours, thirty in all (a menu holds 25).
    position = SuckerState.from_table(3, 10, holdings=["RBG", "BB", "GG"], piles=["R", "B", "G"] * 3, chain=(R,))
    status = await table_at(world, bots, position)
    first, second = menus(status)
    assert first["placeholder"] == "Play red or blue: on which pile?" and len(first["options"]) == 20
    assert second["placeholder"] == "Play green: on which pile?" and len(second["options"]) == 10
    assert labels(second)[-1] == "green on a new pile"
    value = next(o["value"] for o in second["options"] if o["label"] == "green on pile 9 (1 chip, top green)")
    before = len(world.fake.requests)
    res = await world.fake.select(world.alice, status, str(second["custom_id"]), values=[value])
    assert await bot_idle(world.fake)
    assert res.callback_type == Callback.UPDATE_MESSAGE and res.message is status, res.errors
    # Green on green: green's player (carol) captures the pile and is asked which chip to kill.
    assert f"**{world.carol.mention} (green) captured pile 9**" in status.text()
    assert len([r for r in world.fake.requests[before:] if r.route == CALLBACK_ROUTE]) == 1


async def test_plays_that_do_not_fit_take_two_steps(world: World, bots: TabletopRunner) -> None:
    # 25 piles: 26 plays of each colour, more than a menu holds, so the colour comes first and the pile in private.
    piles = ["R", "B", "G"] * 8 + ["G"]
    position = SuckerState.from_table(3, 10, holdings=["RB", "B", "G"], piles=piles, chain=(R,))
    status = await table_at(world, bots, position)
    assert not menus(status)
    [chip] = menus(status, "chip")
    assert [o["value"] for o in chip["options"]] == ["red", "blue"]
    private = await world.fake.select(world.alice, status, str(chip["custom_id"]), values=["blue"])
    assert private.ephemeral and private.message is not None and "where?" in private.message.content
    first, second = [c for c in private.message.walk_components() if ":pile" in str(c.get("custom_id", ""))]
    assert len(first["options"]) == 25 and [o["label"] for o in second["options"]] == ["New pile"]
    done = await world.fake.select(world.alice, private.message, str(second["custom_id"]),
                                   values=[second["options"][0]["value"]])
    assert (done.callback_type == Callback.UPDATE_MESSAGE
            and done.message is not None and "Done:" in done.message.content), done.errors
    assert await bot_idle(world.fake)
    assert (await stored(bots.target))[2][-1][2] == "play:blue:new"
    assert f"Last: {world.alice.mention} (red) starts a new pile with a blue chip." in status.text()


async def test_a_chip_menu_posted_before_one_step_plays_still_works(world: World, bots: TabletopRunner) -> None:
    position = SuckerState.from_table(3, holdings=["RRB", "BB", "GG"], piles=["G", "BR"], chain=(R,))
    status = await table_at(world, bots, position)
    # The status message as it was drawn before this change: the colour menu of two steps.
    status.components = [{"type": Component.ACTION_ROW, "components": [{
        "type": Component.STRING_SELECT, "id": 99, "custom_id": f"sks:1:{position.turn}:chip",
        "min_values": 1, "max_values": 1,
        "options": [{"label": "red (2)", "value": "red"}, {"label": "blue (1)", "value": "blue"}]}]}]
    private = await world.fake.select(world.alice, status, f"sks:1:{position.turn}:chip", values=["red"])
    assert private.ephemeral and private.message is not None and "where?" in private.message.content
    done = await world.fake.click(world.alice, private.message, private.message.button("New pile")["custom_id"])
    assert done.callback_type == Callback.UPDATE_MESSAGE, done.errors
    assert (await stored(bots.target))[2][-1][2] == "play:red:new"
    await world.fake.wait_until(lambda: bool(menus(status)) is False and "names who moves next" in status.text())
