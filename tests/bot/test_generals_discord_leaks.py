"""No leaks through Discord: the same Game of the Generals is played twice, the second time with only side B's
hidden ranks changed (so every ruling stays the same), and every byte the bot sent to side A and to the
channel must be identical: message contents, embeds, components and custom ids, uploaded pictures,
autocomplete choices and refusals. Then the same with the sides exchanged.

The two runs use fresh fakes, a pinned clock and a pinned random generator, so the only difference between
them is the hidden ranks; user and message ids are replaced by names before comparing.
"""

from __future__ import annotations

import json
import os
import random
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.codes import Callback
from tests.support.fakediscord import FakeDiscord, FakeMessage, FakeUser
from tests.support.generals import A_GRID, B_GRID, import_grid, move, move_number, settled, swap, to_move
from tests.support.interactions import bot_idle
from tests.support.postgres import PostgresServer, create_database
from tests.support.world import VALIDATOR, TabletopRunner

# Side B with its 5★ General (e6) and 4★ General (b7) exchanged: the walking General is a 4★ now, which wins
# and loses exactly the same challenges below.
B_VARIANT = "1LT,2LT,SGT,.,.,.,.,.,./FLG,5G,3G,2G,1G,COL,LTC,MAJ,CPT/PVT,PVT,PVT,PVT,4G,PVT,PVT,SPY,SPY"
# Side A with the Private on d3 and the Major on h2 exchanged: B's General beats either on d3.
A_VARIANT = "PVT,PVT,PVT,MAJ,FLG,PVT,PVT,SPY,SPY/5G,4G,3G,2G,1G,COL,LTC,PVT,CPT/1LT,2LT,SGT,.,.,.,.,.,."
CLOCK = 1_800_000_000.0
SNOWFLAKE = re.compile(r"\d{15,20}")
TOKEN = re.compile(r"aW50ZXJhY3Rpb24[A-Za-z0-9_-]+")
# An ephemeral board says until when it is kept current: 15 minutes from the click, by the wall clock of the run.
LIVE_UNTIL = re.compile(r"Kept up to date until <t:\d+:t>")


@dataclass
class Run:
    fake: FakeDiscord
    alice: FakeUser
    bob: FakeUser
    channel_id: int


async def play_scenario(tmp: Path, grids: tuple[str, str], url: str | None = None) -> Run:
    """Challenge, hidden setups (with swaps and a refused swap), a walk, two challenges, refusals and
    autocomplete; the game is left unfinished (the end reveals everything, by design). On a SQLite file in `tmp`, or
    on the PostgreSQL database `url`."""
    fake = FakeDiscord(validator=VALIDATOR)
    await fake.start()
    runner = TabletopRunner(fake, tmp / "bot.sqlite3", url=url)
    try:
        guild = fake.add_guild("Game Night")
        channel = fake.add_channel(guild, "games")
        alice, bob = fake.add_user("alice"), fake.add_user("bob")
        bot = await runner.start()
        bot.service.rng = random.Random(7)
        bot.service.clock = lambda: CLOCK
        res = await fake.slash(alice, channel, "generals", "challenge", options={"opponent": bob})
        assert res.message is not None
        channel_board = res.message
        assert (await fake.click(bob, channel_board, "gg:1:accept")).callback_type == Callback.UPDATE_MESSAGE
        await fake.wait_until(lambda: len(fake.dm_messages(alice)) == 1 and len(fake.dm_messages(bob)) == 1)
        a, b = fake.dm_messages(alice)[0], fake.dm_messages(bob)[0]
        # Each action waits for the bot to finish what the one before started (its redraws): the two runs must
        # differ in nothing but what the observer may not see, not in how their redraws happened to interleave.
        for user, board, grid, swaps in ((alice, a, grids[0], ("a2 b2", "h1 i1")), (bob, b, grids[1], ("a8 b8",))):
            assert (await import_grid(fake, user, board, grid)).callback_type == Callback.UPDATE_MESSAGE
            assert await bot_idle(fake)
            for squares in swaps:  # h1 i1 are both empty: refused, with the reason
                await swap(fake, user, board, *squares.split())
                assert await bot_idle(fake)
            await fake.click(user, board, "gg:1:export")
            assert (await fake.click(user, board, "gg:1:ready")).callback_type == Callback.UPDATE_MESSAGE
            assert await bot_idle(fake)
        await fake.wait_until(lambda: to_move(channel_board) is not None and move_number(a) == move_number(b) == 1)

        b_plan = ["e6-e5", "e5-e4", "e4-d4", "d4-d3"]  # B's General walks up and takes d3
        fillers = ["a3-a4", "a4-a3"]  # A's Private steps up and back while B walks
        challenged_back = False
        while not challenged_back:
            mover = to_move(channel_board)
            before = move_number(channel_board) or 0
            if mover == alice.id:
                await fake.autocomplete(alice, channel, "generals", "move", {"move": "c"}, focused="move")
                refused = await fake.slash(alice, channel, "generals", "move", options={"move": "e3-e5"})
                assert refused.ephemeral
                if b_plan:
                    await move(fake, alice, a, fillers[0])
                    fillers.reverse()
                else:  # A's Private on c3 challenges the General on d3 and loses
                    await move(fake, alice, a, "c3-d3")
                    challenged_back = True
            else:
                await fake.autocomplete(bob, channel, "generals", "move", {"move": ""}, focused="move")
                await move(fake, bob, b, b_plan.pop(0))
            await settled(fake, channel_board, a, b, at_least=before + 1)
            assert await bot_idle(fake)
        for user in (alice, bob):  # each player's ephemeral board, as My board shows it
            await fake.click(user, channel_board, "gg:1:board")
        await runner.stop_all()
        return Run(fake, alice, bob, channel.id)
    except BaseException:
        await runner.stop_all()
        await fake.close()
        raise


def seen_by(run: Run, observer: FakeUser) -> list[str]:
    """Every request the bot made whose bytes reach `observer` or the channel, with ids replaced by names."""
    fake = run.fake
    names = {str(run.alice.id): "alice", str(run.bob.id): "bob", str(fake.bot_user.id): "bot",
             str(run.channel_id): "channel"}
    dm = fake.dm_channel(observer)
    names[str(dm.id)] = "observer-dm"
    out = []
    for request in fake.requests:
        if not _reaches(fake, request.path, request.json, observer, dm.id, run.channel_id):
            continue
        body = json.dumps(request.json, sort_keys=True)
        text = f"{request.method} {request.path} {body} files={request.file_digests}"
        text = LIVE_UNTIL.sub("Kept up to date until <15 minutes after the click>", TOKEN.sub("<token>", text))
        out.append(SNOWFLAKE.sub(lambda m: names.get(m.group(0), "<id>"), text))
    return out


def _reaches(fake: FakeDiscord, path: str, body: Any, observer: FakeUser, dm_id: int, channel_id: int) -> bool:
    if path.startswith((f"/channels/{channel_id}/", f"/channels/{dm_id}/")):
        return True
    if path == "/users/@me/channels":
        return isinstance(body, dict) and str(body.get("recipient_id")) == str(observer.id)
    token = TOKEN.search(path)
    if token is not None:  # interaction callbacks and followups: only the observer's own interactions
        interaction = fake.interaction_by_token(token.group(0))
        return interaction is not None and interaction.user.id == observer.id
    return False


def sent_to(messages: list[FakeMessage]) -> list[str]:
    return [m.text() for m in messages]


@pytest.mark.parametrize(("observer", "first", "second"), [
    ("alice", (A_GRID, B_GRID), (A_GRID, B_VARIANT)),  # B's ranks change: nothing A or the channel sees does
    ("bob", (A_GRID, B_GRID), (A_VARIANT, B_GRID)),  # and the other way round
])
@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
async def test_changing_only_hidden_ranks_changes_nothing_sent_to_the_other_side_or_the_channel(
        restore_discord_urls: None, tmp_path: Path, observer: str, first: tuple[str, str],
        second: tuple[str, str], database: str, request: pytest.FixtureRequest) -> None:
    runs = []
    for index, grids in enumerate((first, second)):
        folder = tmp_path / str(index)
        folder.mkdir()
        url = None
        if database == "postgresql":  # a database of its own for each run, on the session's server
            server: PostgresServer = request.getfixturevalue("postgres_server")
            url = await create_database(server, f"leaks_{os.getpid()}_{observer}_{index}")
        runs.append(await play_scenario(folder, grids, url))
    try:
        seen = [seen_by(run, getattr(run, observer)) for run in runs]
        # The scenario really reached the observer: boards, pictures, refusals (about 40 requests; fewer turn pings
        # since a player who just moved is not pinged, issue 23).
        assert len(seen[0]) > 30
        assert any("files=['" in line for line in seen[0])  # pictures included
        # As multisets: concurrent redraws (the channel, two DMs) may reach Discord in either order from run to
        # run, which is timing, not information.
        assert Counter(seen[0]) == Counter(seen[1])
        # The hidden side's own DMs did change (the test would be empty otherwise).
        hidden = "bob" if observer == "alice" else "alice"
        hidden_seen = [Counter(seen_by(run, getattr(run, hidden))) for run in runs]
        assert hidden_seen[0] != hidden_seen[1]
        for run in runs:
            assert run.fake.violations == []
    finally:
        for run in runs:
            await run.fake.close()
