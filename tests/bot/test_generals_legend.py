"""The **Ranks** button of Game of the Generals (issue 23, defect 4: no legend): on a player's own board (DM or My
board) and on the channel's, it shows privately, in the reader's language, every rank's insignia with its name and
what the board's colours and marks mean."""

from __future__ import annotations

import io

from PIL import Image

from bot.games.generals.legend import LEGEND_NAME, render_legend
from bot.games.generals.pictures import IMAGE_W
from tests.bot.test_generals_live_board import bob_on_my_board
from tests.support.fakediscord import FakeDiscord, FakeMessage, FakeUser
from tests.support.generals import accepted, dm_board, pictures_off
from tests.support.world import TabletopRunner, World


async def ranks(fake: FakeDiscord, user: FakeUser, message: FakeMessage, label: str) -> FakeMessage:
    """`user` presses the Ranks button (labelled `label`) of `message`: the private answer."""
    assert message.button(label)["custom_id"] == "gg:1:ranks"
    res = await fake.click(user, message, "gg:1:ranks")
    assert res.ephemeral, res.errors
    # Deferred while it draws ("thinking"): the followup fills the original answer in.
    await fake.wait_until(lambda: res.message is not None and not res.message.loading)
    answer = res.message
    assert answer is not None and answer.ephemeral
    return answer


async def test_ranks_shows_each_insignia_with_its_name_privately_in_the_readers_language(
        world: World, bots: TabletopRunner) -> None:
    await bots.start()
    fake = world.fake
    world.bob.locale = "ru"
    channel_board = await accepted(world)
    await fake.wait_until(lambda: len(fake.dm_messages(world.alice)) == 1 and len(fake.dm_messages(world.bob)) == 1)

    # Alice, in her DM (the setup board): the legend in English, drawn as the boards draw the insignia.
    answer = await ranks(fake, world.alice, dm_board(fake, world.alice), "Ranks")
    assert "Ranks · Game of the Generals" in answer.text()
    assert "The Spy eliminates every officer" in answer.text()
    assert [a["filename"] for a in answer.attachments] == [LEGEND_NAME]
    english = fake.attachment_bytes(answer.attachments[0])
    assert english == render_legend("en")
    assert Image.open(io.BytesIO(english)).width == IMAGE_W

    # Bob reads Russian: from the channel's board too, the legend is his, in his language.
    answer = await ranks(fake, world.bob, channel_board, "Ranks")
    assert "Звания · Игра генералов" in answer.text() and "Шпион" in answer.text()
    assert fake.attachment_bytes(answer.attachments[0]) == render_legend("ru") != english
    answer = await ranks(fake, world.bob, next(m for m in fake.dm_messages(world.bob) if m.buttons()), "Звания")
    assert fake.attachment_bytes(answer.attachments[0]) == render_legend("ru")


async def test_ranks_is_on_the_ephemeral_my_board_in_play(
        world: World, bots: TabletopRunner) -> None:
    await bots.start()
    fake = world.fake
    channel_board, _, panel = await bob_on_my_board(world)  # Bob plays from My board, his DMs closed
    answer = await ranks(fake, world.bob, panel, "Ranks")
    assert fake.attachment_bytes(answer.attachments[0]) == render_legend("en")
    assert "gg:1:ranks" in channel_board.custom_ids() and "gg:1:dm" in panel.custom_ids()


async def test_with_pictures_off_ranks_names_them_as_text(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    fake = world.fake
    await pictures_off(world)
    answer = await ranks(fake, world.bob, await accepted(world), "Ranks")
    assert answer.attachments == []
    assert "Strongest first: 5★ General (`5G`), 4★ General (`4G`)" in answer.text()
    assert "Spy (`SPY`), Flag (`FLG`)" in answer.text()
