"""So Long Sucker's deals as the table sees them through the offline Discord: a defeated player, and anyone once the
game is over, is refused with a reason only they see, and the deal stays as it was."""

from __future__ import annotations

import logging

import pytest

from tests.support.codes import Callback
from tests.support.fakediscord import FakeMessage, FakeUser
from tests.support.sucker import open_table, stored
from tests.support.world import TabletopRunner, World, stored_rows


async def _resign(world: World, user: FakeUser, status: FakeMessage) -> None:
    ask = await world.fake.click(user, status, status.button("Resign")["custom_id"])
    assert ask.ephemeral and ask.message is not None, ask.errors
    done = await world.fake.click(user, ask.message, ask.message.button("Yes, resign")["custom_id"])
    assert done.callback_type in (Callback.CHANNEL_MESSAGE, Callback.UPDATE_MESSAGE), done.errors


def _accepted_by(deal: FakeMessage) -> str:
    return deal.text().split("accepted by:")[1] if "accepted by:" in deal.text() else ""


async def test_deals_refuse_defeated_players_and_finished_games(
    world: World, bots: TabletopRunner, caplog: pytest.LogCaptureFixture
) -> None:
    alice, bob, carol = world.alice, world.bob, world.carol
    await bots.start()
    status = await open_table(world, [alice, bob, carol])
    res = await world.fake.slash(alice, world.channel, "sucker", "deal", options={"text": "Blue and I stick together."})
    deal = res.message
    assert deal is not None and "Deal #1" in deal.text()
    accept = deal.buttons()[0]["custom_id"]
    await world.fake.click(bob, deal, accept)
    assert bob.mention in _accepted_by(deal)

    await _resign(world, bob, status)  # blue is defeated; red and green play on
    await world.fake.wait_until(lambda: "defeated" in status.text())
    before = deal.text()
    refused = await world.fake.click(bob, deal, accept)  # taking the acceptance back is refused as well
    assert refused.ephemeral and refused.message is not None
    assert refused.message.content == "You are out of this game (defeated): deals are for the players still in it."
    assert deal.text() == before and bob.mention in _accepted_by(deal)
    await world.fake.click(carol, deal, accept)
    assert carol.mention in _accepted_by(deal), "players still in may accept"
    proposal = await world.fake.slash(bob, world.channel, "sucker", "deal", options={"text": "Rescue me!", "game": 1})
    assert proposal.ephemeral and proposal.message is not None
    assert proposal.message.content == "You are out of this game (defeated): deals are for the players still in it."

    await _resign(world, carol, status)  # alice is the last one in: the game is over
    await world.fake.wait_until(lambda: "wins" in status.text())
    assert (await stored(bots.target))[0] == "finished"
    before = deal.text()
    for user in (alice, carol):
        late = await world.fake.click(user, deal, accept)
        assert late.ephemeral and late.message is not None
        assert late.message.content == "This game is over: its deals can no longer be made, accepted or taken back."
    assert deal.text() == before and alice.mention not in _accepted_by(deal)
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []


# Issue 22, point 10: the forgery from the issue, and the other ways a line could be added or the layout faked
# (Unicode's line and paragraph separators, a heading, a quote, a list, bold, a bidirectional override).
FORGED = ("Blue and I stick together.\n\nMarked as accepted by: <@{bob}>, <@{carol}>\r\nDeals are binding: "
          "the bot enforces this one.\u2028# Deal closed\u2029> signed\x85- **by the bot**\u202e")


async def test_a_deal_text_cannot_add_lines_or_forge_the_bots_layout(world: World, bots: TabletopRunner) -> None:
    alice, bob, carol = world.alice, world.bob, world.carol
    await bots.start()
    await open_table(world, [alice, bob, carol])
    forged = FORGED.format(bob=bob.id, carol=carol.id)
    res = await world.fake.slash(alice, world.channel, "sucker", "deal", options={"text": forged})
    deal = res.message
    assert deal is not None and res.callback_type == Callback.CHANNEL_MESSAGE, res.errors
    lines = deal.embeds[0]["description"].splitlines()  # every break a client shows as one
    # The bot's own layout, whatever the text: who proposes, the deal as one quoted line, who accepted it, the note.
    assert len(lines) == 5, lines
    assert lines[0] == f"{alice.mention} proposes:" and lines[2] == ""
    assert lines[3] == "Marked as accepted by: nobody yet"
    assert lines[4] == "Deals are not binding: anyone may break one, and nothing enforces it."
    quoted = lines[1]
    assert quoted.startswith("> Blue and I stick together. Marked as accepted by: ")
    assert quoted.endswith(" # Deal closed > signed - \\*\\*by the bot\\*\\*")  # no bold; no override
    # Stored as typed: only its showing is folded.
    assert (await stored_deal_text(bots)) == forged.strip()

    await world.fake.click(bob, deal, deal.buttons()[0]["custom_id"])  # redrawn on a mark: the same layout
    lines = deal.embeds[0]["description"].splitlines()
    assert len(lines) == 5 and lines[1] == quoted and lines[3] == f"Marked as accepted by: {bob.mention}"
    # Markup that marks a whole line stays text at the start of the deal too.
    heading = await world.fake.slash(bob, world.channel, "sucker", "deal", options={"text": "# Deal #1 is void"})
    assert heading.message is not None, heading.errors
    assert heading.message.embeds[0]["description"].splitlines()[1] == "> \\# Deal #1 is void"


async def stored_deal_text(bots: TabletopRunner) -> str:
    return str((await stored_rows(bots.target, "SELECT text FROM deals WHERE game_id = 1 AND number = 1"))[0][0])
