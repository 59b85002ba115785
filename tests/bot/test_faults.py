"""Gateway and REST faults, through the real bot and the offline Discord (issue 7, point 2).

Gateway: the fake drops the socket, sends op 7 RECONNECT and op 9 INVALID SESSION (resumable or not); the
bot must RESUME or IDENTIFY anew and its games must go on. REST: the fake answers 429 (Discord's rate-limit
answer), 5xx, late callbacks and dropped connections on the routes a move goes through; every click must
be stored exactly once, nothing may be logged as an unhandled error, the board must end up showing what
was stored, and a player whose answer Discord lost must be told (or, when Discord itself forgot the
interaction, at least see the truth on the board).
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import logging
import random
import time
from collections.abc import Awaitable, Callable

import aiohttp
import pytest

from games.sucker.engine import SuckerState
from tests.support.boards import move_buttons, player_to_move
from tests.support.chopsticks import accepted_game
from tests.support.codes import Callback
from tests.support.fakediscord import FakeDiscord, FakeMessage, FakeUser, InteractionResult
from tests.support.fakediscord.routes import CALLBACK_ROUTE
from tests.support.interactions import bot_idle
from tests.support.sucker import decide, open_table, put_position, state_user, stored, thread_opened
from tests.support.world import TabletopRunner, World, stored_rows

CHANNEL_MESSAGE = "/channels/{channel_id}/messages/{message_id}"
CHANNEL_MESSAGES = "/channels/{channel_id}/messages"


# --------------------------------------------------------------------------- helpers


async def _moves(bots: TabletopRunner, game_id: int = 1) -> list[tuple[int, str]]:
    rows = await stored_rows(bots.target, "SELECT ply, action FROM moves WHERE game_id = ? ORDER BY ply", (game_id,))
    return [(int(p), str(a)) for p, a in rows]


async def _game_count(bots: TabletopRunner) -> int:
    [(count,)] = await stored_rows(bots.target, "SELECT COUNT(*) FROM games")
    return int(count)


async def _moves_reach(fake: FakeDiscord, bots: TabletopRunner, count: int, timeout: float) -> None:
    """Wait until `count` moves of game 1 are stored (the bot's own reply comes after the click's answer)."""
    deadline = time.monotonic() + timeout
    while len(await _moves(bots)) != count:
        if time.monotonic() > deadline:
            raise TimeoutError(f"{count} stored moves not reached within {timeout} s{fake.diagnose()}")
        await asyncio.sleep(0.01)


def _errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    """Everything logged at ERROR or above (an unhandled exception in discord.py, asyncio or the bot)."""
    return [f"{r.name}: {r.getMessage()}" for r in caplog.records if r.levelno >= logging.ERROR]


def _users(world: World) -> dict[int, FakeUser]:
    return {u.id: u for u in (world.alice, world.bob, world.carol)}


def _position(board: FakeMessage) -> str:
    return board.text().split("Position `")[1][:4]


async def _play_one(world: World, board: FakeMessage) -> InteractionResult:
    """The player the board names clicks its first move; the answer must be the redrawn board."""
    mover = _users(world)[player_to_move(board) or 0]
    res = await world.fake.click(mover, board, move_buttons(board)[0]["custom_id"])
    assert res.callback_type == Callback.UPDATE_MESSAGE and res.message is board, res.errors
    return res


async def _started(world: World, bots: TabletopRunner) -> FakeMessage:
    """The bot started, and a game of Chopsticks between Alice and Bob accepted: its board."""
    await bots.start()
    return await accepted_game(world)


async def _against_the_computer(world: World, bots: TabletopRunner) -> FakeMessage:
    """The bot started, and Alice playing Chopsticks against its easy computer player: the board."""
    await bots.start()
    res = await world.fake.slash(world.alice, world.channel, "chopsticks", "challenge", {"level": "easy"})
    assert res.message is not None
    return res.message


def _callbacks(fake: FakeDiscord, res: InteractionResult) -> list[int]:
    """Status of every callback POST the bot made for this interaction, in order."""
    return [r.status for r in fake.calls("POST", CALLBACK_ROUTE) if r.path.startswith(f"/interactions/{res.id}/")]


# --------------------------------------------------------------------------- the fake's faults themselves


async def test_a_planned_429_looks_like_discords(world: World) -> None:
    """What discord.py reads of a 429: JSON retry_after/global, Retry-After, X-RateLimit-*, and Via (without
    which it takes the 429 for a Cloudflare ban); after ``times`` hits the route answers normally again."""
    fake = world.fake
    with pytest.raises(ValueError, match="not a route"):
        fake.inject_rest_fault("PATCH", "/channels/{channel_id}/message/{message_id}", status=429)
    fault = fake.inject_rest_fault("GET", "/users/@me", status=429, retry_after=0.25, times=1)
    glob = fake.inject_rest_fault("GET", "/users/@me", status=429, retry_after=1.5, is_global=True)
    headers = {"Authorization": f"Bot {fake.token}"}
    async with aiohttp.ClientSession() as session:
        replies = []
        for _ in range(3):
            async with session.get(f"{fake.api_base}/users/@me", headers=headers) as reply:
                replies.append((reply.status, dict(reply.headers), await reply.json()))
    (s1, h1, b1), (s2, h2, b2), (s3, _h3, b3) = replies
    assert (s1, b1) == (429, {"message": "You are being rate limited.", "retry_after": 0.25, "global": False,
                              "code": 0})
    assert h1["Content-Type"] == "application/json" and h1["Via"] and h1["Retry-After"] == "1"
    assert h1["X-RateLimit-Remaining"] == "0" and h1["X-RateLimit-Reset-After"] == "0.250"
    assert h1["X-RateLimit-Scope"] == "user" and "X-RateLimit-Bucket" in h1 and "X-RateLimit-Reset" in h1
    assert s2 == 429 and b2["global"] is True and h2["X-RateLimit-Global"] == "true" and h2["Retry-After"] == "2"
    assert s3 == 200 and b3["id"] == str(fake.bot_user.id)
    assert fault.remaining == glob.remaining == 0 and fake.faults.pending() == []
    assert [r.fault for r in fake.requests] == ["429 retry_after=0.25", "429 retry_after=1.5 global", None]


# --------------------------------------------------------------------------- gateway faults

GatewayFault = Callable[[FakeDiscord], Awaitable[None]]
RESUMING: list[tuple[str, GatewayFault]] = [
    ("socket dropped", lambda fake: fake.disconnect_gateway()),
    ("op 7 RECONNECT", lambda fake: fake.gateway_reconnect()),
    ("op 9 INVALID SESSION, resumable", lambda fake: fake.gateway_invalid_session(resumable=True)),
]


async def test_chopsticks_goes_on_across_gateway_faults_that_resume(
    world: World, bots: TabletopRunner, caplog: pytest.LogCaptureFixture
) -> None:
    fake = world.fake
    bot = await bots.start()
    board = await accepted_game(world)
    await _play_one(world, board)
    for n, (name, fault) in enumerate(RESUMING, start=1):
        await fault(fake)
        # Something happens while the bot is away: Discord keeps the event for the session's RESUME.
        lounge = fake.add_channel(world.guild, f"lounge-{n}")

        def resumed(count: int = n) -> bool:
            return fake.hub.resume_count == count and fake.hub.is_ready

        await fake.wait_until(resumed)
        # The fake counts the RESUME once it has sent the replayed events; the bot reads them a moment later.
        def replayed(channel: int = lounge.id) -> bool:
            return bot.get_channel(channel) is not None

        with contextlib.suppress(TimeoutError):
            await fake.wait_until(replayed, timeout=5)
        assert bot.get_channel(lounge.id) is not None, f"{name}: the missed CHANNEL_CREATE was not replayed"
        before = _position(board)
        await _play_one(world, board)
        assert _position(board) != before, name
        assert len(await _moves(bots)) == n + 1, name
    assert fake.hub.identify_count == 1 and fake.hub.resume_count == len(RESUMING)
    assert fake.hub.replayed_count >= len(RESUMING)
    assert _errors(caplog) == []


async def test_chopsticks_goes_on_after_an_invalid_session_that_needs_identify(
    world: World, bots: TabletopRunner, caplog: pytest.LogCaptureFixture
) -> None:
    fake = world.fake
    board = await _started(world, bots)
    await _play_one(world, board)
    await fake.gateway_invalid_session(resumable=False)
    # discord.py waits 5 s before identifying again (Discord's identify rate limit).
    await fake.wait_until(lambda: fake.hub.identify_count == 2 and fake.hub.is_ready, timeout=10)
    assert fake.hub.resume_count == 0
    # The buttons drawn before the new session still work, and the bot still knows the server.
    await _play_one(world, board)
    res = await fake.slash(world.carol, world.channel, "chopsticks", "challenge", {"opponent": world.alice})
    assert res.callback_type == Callback.CHANNEL_MESSAGE and not res.ephemeral
    assert len(await _moves(bots)) == 2
    assert _errors(caplog) == []


async def test_so_long_sucker_goes_on_across_gateway_faults(
    world: World, bots: TabletopRunner, caplog: pytest.LogCaptureFixture
) -> None:
    fake = world.fake
    await bots.start()
    users = [world.alice, world.bob, world.carol]
    status = await open_table(world, users)
    rng = random.Random(3)
    faults: list[GatewayFault] = [
        lambda f: f.gateway_reconnect(),
        lambda f: f.gateway_invalid_session(resumable=False),
        lambda f: f.disconnect_gateway(),
    ]
    for fault in faults:
        _s, state, log = await stored(bots.target)
        await fault(fake)
        await fake.hub.wait_ready(10)  # an IDENTIFY after op 9 comes 5 s later
        decider = {u.id: u for u in users}[await state_user(bots, state.current_player() or 0)]
        await decide(world, status, decider, state, rng)
        assert len((await stored(bots.target))[2]) == len(log) + 1
    assert (fake.hub.identify_count, fake.hub.resume_count) == (2, 2)
    assert _errors(caplog) == []


# --------------------------------------------------------------------------- REST faults that discord.py retries


async def test_rate_limited_click_answer_is_retried_and_the_move_stored_once(
    world: World, bots: TabletopRunner, caplog: pytest.LogCaptureFixture
) -> None:
    fake = world.fake
    board = await _started(world, bots)
    fault = fake.inject_rest_fault("POST", CALLBACK_ROUTE, status=429, retry_after=0.1, times=2)
    res = await _play_one(world, board)
    assert len(fault.hits) == 2 and _callbacks(fake, res) == [429, 429, 200]
    assert len(await _moves(bots)) == 1
    await _play_one(world, board)  # and the game goes on
    assert len(await _moves(bots)) == 2
    assert _errors(caplog) == []


async def test_rate_limited_slash_answer_creates_one_game(
    world: World, bots: TabletopRunner, caplog: pytest.LogCaptureFixture
) -> None:
    fake = world.fake
    await bots.start()
    fake.inject_rest_fault("POST", CALLBACK_ROUTE, status=429, retry_after=0.1, is_global=True)
    res = await fake.slash(world.alice, world.channel, "chopsticks", "challenge", {"opponent": world.bob})
    assert res.callback_type == Callback.CHANNEL_MESSAGE and res.message is not None
    assert await _game_count(bots) == 1 and len(fake.channel_messages(world.channel)) == 1
    assert _errors(caplog) == []


async def test_server_error_on_the_click_answer_is_retried_and_the_move_stored_once(
    world: World, bots: TabletopRunner, caplog: pytest.LogCaptureFixture
) -> None:
    fake = world.fake
    board = await _started(world, bots)
    fault = fake.inject_rest_fault("POST", CALLBACK_ROUTE, status=500)
    res = await _play_one(world, board)  # discord.py waits 1 s, then sends the answer again
    assert len(fault.hits) == 1 and _callbacks(fake, res) == [500, 200]
    assert len(await _moves(bots)) == 1
    assert _errors(caplog) == []


async def test_bot_move_redraw_survives_rate_limits_and_server_errors(
    world: World, bots: TabletopRunner, caplog: pytest.LogCaptureFixture
) -> None:
    """After the bot's move its board edit (no interaction: a plain message edit) is rate limited, then
    answered 500: discord.py waits and edits again, and the board comes back to the human each time."""
    fake = world.fake
    board = await _against_the_computer(world, bots)
    for status in (429, 500):  # the first plies of Chopsticks cannot end the game
        await fake.wait_until(lambda: player_to_move(board) == world.alice.id, timeout=5)
        before = len(await _moves(bots))
        fault = fake.inject_rest_fault("PATCH", CHANNEL_MESSAGE, status=status, retry_after=0.1)
        await _play_one(world, board)

        await _moves_reach(fake, bots, before + 2, timeout=5)  # the human's move and the bot's reply
        await fake.wait_until(lambda: player_to_move(board) == world.alice.id, timeout=5)
        assert [r.path.rsplit("/", 1)[1] for r in fault.hits] == [str(board.id)]
    assert _errors(caplog) == []


# --------------------------------------------------------------------------- REST faults that lose the answer


async def test_click_answer_lost_after_discord_applied_it(
    world: World, bots: TabletopRunner, caplog: pytest.LogCaptureFixture
) -> None:
    """Discord showed the new board, then answered 500: the retry is refused (40060), nothing is doubled."""
    fake = world.fake
    board = await _started(world, bots)
    before = _position(board)
    fault = fake.inject_rest_fault("POST", CALLBACK_ROUTE, status=500, applied=True)
    res = await _play_one(world, board)
    await fake.wait_until(lambda: len(_callbacks(fake, res)) >= 2, timeout=5)
    assert len(fault.hits) == 1 and _callbacks(fake, res)[:2] == [500, 400]
    assert _position(board) != before and len(await _moves(bots)) == 1
    # The player is told (privately) that Discord had trouble, and that the board shows what happened.
    await res.wait_for_followups(1)
    assert res.followups[0].ephemeral and "board" in res.followups[0].content
    await _play_one(world, board)
    assert len(await _moves(bots)) == 2
    assert _errors(caplog) == []


@pytest.mark.parametrize("fault", ["late", "server errors"])
async def test_click_answered_too_late_still_shows_the_move(
    world: World, bots: TabletopRunner, caplog: pytest.LogCaptureFixture, fault: str
) -> None:
    """The answer reaches Discord after the interaction expired (Discord: 3 s; here 0.5 s): Discord tells
    the player the interaction failed, but the move was stored, so the board must show it and play goes on."""
    fake = world.fake
    board = await _started(world, bots)
    fake.interaction_deadline = 0.5
    before = _position(board)
    if fault == "late":
        fake.inject_rest_fault("POST", CALLBACK_ROUTE, status=None, delay=0.6)
    else:  # discord.py sends the answer again 1 s after a 500: too late
        fake.inject_rest_fault("POST", CALLBACK_ROUTE, status=500)
    mover = _users(world)[player_to_move(board) or 0]
    as_seen = copy.deepcopy(board)  # the player's screen until the redraw reaches it
    move = move_buttons(board)[0]["custom_id"]
    res = await fake.click(mover, board, move, wait=False)
    await res.wait(5)
    assert res.expired and res.callback_type is None  # Discord: "This interaction failed"
    fake.interaction_deadline = None  # a slow test machine must not fail the clicks below
    assert len(await _moves(bots)) == 1
    # Told that it failed, the player clicks the same button again: refused, not played twice.
    again = await fake.click(mover, as_seen, move)
    assert again.ephemeral and again.message is not None and "look at the board again" in again.message.content
    assert len(await _moves(bots)) == 1
    await fake.wait_until(lambda: _position(board) != before, timeout=5)
    assert player_to_move(board) != mover.id
    await _play_one(world, board)
    assert len(await _moves(bots)) == 2
    assert _errors(caplog) == []


@pytest.mark.parametrize("applied", [False, True], ids=["before Discord", "after Discord applied it"])
async def test_click_answer_connection_dropped(
    world: World, bots: TabletopRunner, caplog: pytest.LogCaptureFixture, applied: bool
) -> None:
    """The connection dies while the answer is on its way (a timeout somewhere between bot and Discord)."""
    fake = world.fake
    board = await _started(world, bots)
    before = _position(board)
    fake.inject_rest_fault("POST", CALLBACK_ROUTE, drop=True, applied=applied)
    mover = _users(world)[player_to_move(board) or 0]
    res = await fake.click(mover, board, move_buttons(board)[0]["custom_id"])
    assert len(await _moves(bots)) == 1
    await fake.wait_until(lambda: _position(board) != before, timeout=5)
    # The player hears that their answer went astray, privately.
    if applied:
        told = (await res.wait_for_followups(1))[0]
    else:
        assert res.callback_type == Callback.CHANNEL_MESSAGE and res.ephemeral and res.message is not None
        told = res.message
    assert told.ephemeral and "board" in told.content
    await _play_one(world, board)
    assert len(await _moves(bots)) == 2
    assert _errors(caplog) == []


async def test_bot_opponent_still_moves_when_the_click_answer_was_lost(
    world: World, bots: TabletopRunner, caplog: pytest.LogCaptureFixture
) -> None:
    """Against the bot: the human's move is stored but its answer is refused as too late; the bot must still
    take its turn (nothing else would wake it before a restart) and the board must come back to the human."""
    fake = world.fake
    board = await _against_the_computer(world, bots)
    await fake.wait_until(lambda: player_to_move(board) == world.alice.id, timeout=5)
    before = len(await _moves(bots))
    fake.interaction_deadline = 0.5
    fake.inject_rest_fault("POST", CALLBACK_ROUTE, status=None, delay=0.6)
    lost = await fake.click(world.alice, board, move_buttons(board)[0]["custom_id"], wait=False)
    await lost.wait(5)
    assert lost.expired
    fake.interaction_deadline = None
    assert len(await _moves(bots)) == before + 1
    # A first move cannot end a game of Chopsticks: the bot has a reply, and then the board is Alice's again.
    await _moves_reach(fake, bots, before + 2, timeout=5)
    await fake.wait_until(lambda: player_to_move(board) == world.alice.id, timeout=5)
    await _play_one(world, board)
    assert _errors(caplog) == []


async def test_so_long_sucker_status_edit_fails_after_the_decision_was_stored(
    world: World, bots: TabletopRunner, caplog: pytest.LogCaptureFixture
) -> None:
    """The pile choice is stored and confirmed privately, then the edit of the channel's status message fails
    (503, which discord.py does not retry): the player is told, and the status is redrawn. (The pile is chosen
    privately only when the plays do not fit in the status message's menus: a table of 25 piles.)"""
    fake = world.fake
    bot = await bots.start()
    users = [world.alice, world.bob, world.carol]
    status = await open_table(world, users)
    await thread_opened(world, status)  # the status names the table-talk thread: no edit is on its way
    position = SuckerState.from_table(3, 10, holdings=["RB", "B", "G"], piles=["R", "B", "G"] * 8 + ["G"], chain=(0,))
    await put_position(world, bot, bots.target, position)
    assert await bot_idle(fake)
    _s, state, log = await stored(bots.target)
    decider = {u.id: u for u in users}[await state_user(bots, state.current_player() or 0)]
    select = next(c for c in status.walk_components() if ":chip" in str(c.get("custom_id", "")))
    private = await fake.select(decider, status, str(select["custom_id"]), [select["options"][0]["value"]])
    assert private.message is not None and private.ephemeral
    fault = fake.inject_rest_fault("PATCH", CHANNEL_MESSAGE, status=503)
    shown = status.text()
    pile = next(c for c in private.message.walk_components() if ":pile" in str(c.get("custom_id", "")))
    res = await fake.select(decider, private.message, str(pile["custom_id"]), [pile["options"][0]["value"]])
    assert res.callback_type == Callback.UPDATE_MESSAGE and "Done:" in private.message.content
    told = (await res.wait_for_followups(1))[0]
    assert told.ephemeral and "board" in told.content
    assert len(fault.hits) == 1 and len((await stored(bots.target))[2]) == len(log) + 1
    await fake.wait_until(lambda: status.text() != shown, timeout=5)
    _s, after, _log = await stored(bots.target)
    next_decider = {u.id: u for u in users}[await state_user(bots, after.current_player() or 0)]
    await decide(world, status, next_decider, after, random.Random(1))
    assert len((await stored(bots.target))[2]) == len(log) + 2
    assert _errors(caplog) == []


async def test_bot_move_redraw_is_tried_again_when_discord_is_unavailable(
    world: World, bots: TabletopRunner, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 503 is not retried by discord.py, and no click answers for a bot's move: the bot redraws again a
    little later, so the board does not stay on the old position with all its buttons refused as stale."""
    import bot.service.computer_turns

    monkeypatch.setattr(bot.service.computer_turns, "REDRAW_RETRY_PAUSES", (0.05, 0.05))
    fake = world.fake
    board = await _against_the_computer(world, bots)
    await fake.wait_until(lambda: player_to_move(board) == world.alice.id, timeout=5)
    before = len(await _moves(bots))
    fault = fake.inject_rest_fault("PATCH", CHANNEL_MESSAGE, status=503, times=2)
    await _play_one(world, board)
    await _moves_reach(fake, bots, before + 2, timeout=5)
    await fake.wait_until(lambda: player_to_move(board) == world.alice.id, timeout=5)
    assert len(fault.hits) == 2
    assert _errors(caplog) == []
    assert any("trying again" in r.getMessage() for r in caplog.records if r.levelno == logging.WARNING)


async def test_command_answer_lost_after_discord_applied_it(
    world: World, bots: TabletopRunner, caplog: pytest.LogCaptureFixture
) -> None:
    """Discord posted the challenge, then answered 500; discord.py's retry is refused as already answered. The
    game exists once and the player is told, privately, that the answer was lost; nothing is logged as a fault."""
    fake = world.fake
    await bots.start()
    fake.inject_rest_fault("POST", CALLBACK_ROUTE, status=500, applied=True)
    res = await fake.slash(world.alice, world.channel, "chopsticks", "challenge", {"opponent": world.bob})
    await fake.wait_until(lambda: bool(res.followups), timeout=10)
    assert res.followups[0].ephemeral and "did not pass on my answer" in res.followups[0].text()
    assert await _game_count(bots) == 1
    assert _errors(caplog) == []
