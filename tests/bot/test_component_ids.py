"""Custom ids and the component classes that answer them.

discord.py hands a click to every dynamic item whose template matches the custom id in full, so no two registered
templates may be able to match one id. Game of the Generals' buttons and forms and the lobby's buttons are one class
per behaviour, and their ids are those messages already posted in Discord carry: each is still answered, by exactly
one class, and the class formats the very same id.
"""

from __future__ import annotations

import re
from itertools import combinations
from typing import Any

from bot.client import TabletopBot
from bot.components import Button
from bot.games.generals.components import FORMS
from bot.lobby import LobbyButton
from tests.support.fakediscord import FakeMessage
from tests.support.generals import A_GRID
from tests.support.interactions import carrier
from tests.support.regex_overlap import common_match
from tests.support.world import TabletopRunner, World

# Every `gg:<game>:<verb>` the bot has produced (setup boards no longer offer swap and delete; older ones do).
GENERALS_VERBS = ("accept", "decline", "board", "dm", "resign", "resign-yes", "draw", "ready", "swap", "import",
                  "export", "save", "delete", "ranks")
GENERALS_FORMS = ("swap", "import", "save")  # `ggf:<game>:<what>`
LOBBY_VERBS = ("join", "leave", "bot", "unbot", "start")  # `cl:<lobby>:<verb>`
GAMES = (1, 42, 2**63 - 1)
BUTTON, MODAL = 2, 9  # a component's type; the callback that shows a form


def registered(bot: TabletopBot) -> dict[re.Pattern[str], type[Any]]:
    """Every dynamic item class the bot dispatches clicks to, by its template."""
    return dict(bot._connection._view_store._dynamic_items)


def only_class(items: dict[re.Pattern[str], type[Any]], custom_id: str) -> type[Any]:
    """The one registered class whose template matches `custom_id` (discord.py would run each that does)."""
    matching = [cls for pattern, cls in items.items() if pattern.fullmatch(custom_id)]
    assert len(matching) == 1, (custom_id, matching)
    return matching[0]


def test_the_overlap_check_finds_a_common_id_and_only_a_real_one() -> None:
    """One template answering every verb next to one answering a single verb: both would take that verb's clicks."""
    old = r"gg:(?P<game>[0-9]{1,19}):(?P<verb>accept|decline|resign|resign\-yes)"
    witness = common_match(old, r"gg:(?P<game>[0-9]{1,19}):resign\-yes")
    assert witness is not None and re.fullmatch(old, witness) and witness.endswith(":resign-yes")
    assert common_match(r"gg:[0-9]{1,19}:resign", r"gg:[0-9]{1,19}:resign\-yes") is None
    assert common_match(r"sk:[0-9]{1,19}:[0-9]{1,7}:[a-z0-9:._-]{1,60}", r"skr:[0-9]{1,19}:resign") is None
    assert common_match(r"a(b|c)*d{2,}", r"a[^b]+d") == "add"  # the shortest: the walk is breadth first
    assert common_match(r"a(b|c)+d{2,}", r"a[^b]+d") == "acdd"


async def test_no_two_registered_templates_match_one_custom_id(world: World, bots: TabletopRunner) -> None:
    bot = await bots.start()
    items = registered(bot)
    assert len(items) > 20, items
    for (first, one), (second, other) in combinations(items.items(), 2):
        witness = common_match(first.pattern, second.pattern)
        assert witness is None, f"{one.__name__} and {other.__name__} both match {witness!r}"


async def test_every_generals_button_id_ever_posted_reaches_one_class_of_its_own(
        world: World, bots: TabletopRunner) -> None:
    """Each verb's ids are matched by exactly one registered class, a Generals one whose template names that verb
    and no other field than the game, and which formats the same id back; no two verbs share a class."""
    bot = await bots.start()
    items = registered(bot)
    generals = bot.presenters["generals"].components
    answered_by: dict[str, type[Any]] = {}
    for verb in GENERALS_VERBS:
        for game in GAMES:
            custom_id = f"gg:{game}:{verb}"
            cls = only_class(items, custom_id)
            assert cls in generals and issubclass(cls, Button), (custom_id, cls)
            assert cls.custom_id_shape.template == f"gg:{{game}}:{verb}", (custom_id, cls.custom_id_shape.template)
            button = cls.of(game=game)
            assert button.item.custom_id == custom_id and button.game_id == game
            assert answered_by.setdefault(verb, cls) is cls
    assert len(set(answered_by.values())) == len(GENERALS_VERBS), answered_by
    for what in GENERALS_FORMS:
        for game in GAMES:
            custom_id = f"ggf:{game}:{what}"
            forms = [form for form in FORMS if re.fullmatch(form.custom_id_shape.pattern, custom_id)]
            assert len(forms) == 1 and forms[0].custom_id(game) == custom_id, (custom_id, forms)
            assert forms[0](custom_id).game_id == game
            assert sum(bool(re.fullmatch(t, custom_id)) for t in bot.presenters["generals"].form_templates) == 1


async def test_every_lobby_button_id_ever_posted_reaches_one_class_of_its_own(world: World,
                                                                             bots: TabletopRunner) -> None:
    bot = await bots.start()
    items = registered(bot)
    answered_by: dict[str, type[Any]] = {}
    for verb in LOBBY_VERBS:
        for lobby in (1, 42, 10**18 - 1):
            custom_id = f"cl:{lobby}:{verb}"
            cls = only_class(items, custom_id)
            assert issubclass(cls, LobbyButton), (custom_id, cls)
            assert cls.custom_id_shape.template == f"cl:{{lobby}}:{verb}", (custom_id, cls.custom_id_shape.template)
            button = cls.of(lobby=lobby)
            assert button.item.custom_id == custom_id and button.lobby_id == lobby
            assert answered_by.setdefault(verb, cls) is cls
    assert len(set(answered_by.values())) == len(LOBBY_VERBS), answered_by


async def test_the_swap_and_delete_buttons_of_older_setup_boards_still_work(world: World,
                                                                           bots: TabletopRunner) -> None:
    """Setup boards no longer carry them, but a board posted before does: Swap opens its form, which swaps the two
    squares; Delete asks which saved formation (here: none to delete). Someone else's click is refused."""
    await bots.start()
    fake = world.fake
    challenge = await fake.slash(world.alice, world.channel, "generals", "challenge", options={"opponent": world.bob})
    assert challenge.message is not None, challenge.errors
    assert (await fake.click(world.bob, challenge.message, "gg:1:accept")).callback_type == 7
    await fake.wait_until(lambda: any("Your army" in m.text() for m in fake.dm_messages(world.alice)))
    dm = fake.dm_channel(world.alice)
    board = next(m for m in fake.dm_messages(world.alice) if "Your army" in m.text())
    shown = await fake.click(world.alice, board, "gg:1:import")
    assert shown.callback_type == MODAL, shown.errors
    assert (await fake.submit_modal(world.alice, shown, {"grid": A_GRID})).callback_type == 7

    older: FakeMessage = carrier(fake, dm, "gg:1:swap")
    form = await fake.click(world.alice, older, "gg:1:swap")
    assert form.callback_type == MODAL and form.modal is not None, form.errors
    assert form.modal["custom_id"] == "ggf:1:swap" and form.modal["title"] == "Swap two squares"
    swapped = await fake.submit_modal(world.alice, form, {"squares": "e3 a1"})
    assert swapped.callback_type == 7 and not swapped.errors, swapped.errors
    exported = await fake.click(world.alice, board, "gg:1:export")
    assert exported.message is not None, exported.errors
    assert "`PVT,PVT,PVT,PVT,1LT,PVT,PVT,SPY,SPY/5G,4G,3G,2G,1G,COL,LTC,MAJ,CPT/FLG,2LT," in exported.message.text()

    delete = await fake.click(world.alice, carrier(fake, dm, "gg:1:delete"), "gg:1:delete")
    assert delete.ephemeral and delete.message is not None
    assert "You have no saved formations." in delete.message.text()
    stranger = await fake.click(world.carol, carrier(fake, world.channel, "gg:1:swap"), "gg:1:swap")
    assert stranger.ephemeral and stranger.message is not None and stranger.callback_type != MODAL
