"""Lobbies and bigger tables through the real bot and the offline Discord."""

from __future__ import annotations

import random

from tests.support.boards import human_to_move, move_buttons, player_to_move
from tests.support.codes import Callback
from tests.support.fakediscord import FakeMessage, FakeUser
from tests.support.world import TabletopRunner, World, stored_rows


def _button(message: FakeMessage, label: str) -> str:
    return str(next(b["custom_id"] for b in message.buttons() if b["label"] == label))


def _labels(message: FakeMessage) -> set[str]:
    return {str(b["label"]) for b in message.buttons()}


def _group_select(message: FakeMessage) -> dict[str, object] | None:
    return next((c for c in message.walk_components() if ":group:" in str(c.get("custom_id", ""))), None)


def _spread(button: dict[str, object]) -> int:
    """How many different hand values a split button leads to (0 for an attack)."""
    text = str(button["custom_id"]).rsplit(":", 1)[1]
    return len(set(text.split("-")[1])) if "-" in text else 0


async def _play_turn(
    world: World, board: FakeMessage, user: FakeUser, rng: random.Random, spread: bool = False
) -> bool:
    """Play one random legal move for `user` the way the board offers it; True if it took two steps.

    With `spread`, prefer splits into many different values: that is what makes a big move list."""
    select = _group_select(board)
    if select is None:
        buttons = move_buttons(board)
        if spread and max(map(_spread, buttons)) > 1:
            buttons = [max(buttons, key=_spread)]
        res = await world.fake.click(user, board, rng.choice(buttons)["custom_id"])
        assert res.callback_type == Callback.UPDATE_MESSAGE, res.errors
        return False
    options = select["options"]
    assert isinstance(options, list)
    group = rng.choice(options)["value"]
    private = await world.fake.select(user, board, str(select["custom_id"]), values=[group])
    assert private.ephemeral and private.message is not None, private.errors
    assert private.message.content == "Choose your move:", private.message.content
    choices = private.message
    edits_before = board.edits
    buttons = move_buttons(choices)
    if buttons:
        res = await world.fake.click(user, choices, rng.choice(buttons)["custom_id"])
    else:
        pick = next(c for c in choices.walk_components() if ":pick:" in str(c.get("custom_id", "")))
        values = [o["value"] for o in pick["options"]]
        res = await world.fake.select(user, choices, str(pick["custom_id"]), values=[rng.choice(values)])
    assert (res.callback_type == Callback.UPDATE_MESSAGE
            and res.message is choices and "You played" in choices.content), res.errors
    await world.fake.wait_until(lambda: board.edits > edits_before)  # the bot then redraws the channel board
    return True


async def test_three_player_lobby_with_a_bot_seat_plays_to_the_end(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    fake, alice, bob, carol = world.fake, world.alice, world.bob, world.carol
    res = await fake.slash(alice, world.channel, "chopsticks", "new", options={"players": 3})
    lobby = res.message
    assert res.callback_type == Callback.CHANNEL_MESSAGE and lobby is not None and "Players (1/3)" in lobby.text()

    refused = await fake.click(bob, lobby, _button(lobby, "Start"))
    assert refused.ephemeral and refused.message is not None and "Only the host" in refused.message.content
    assert "Remove bot" not in _labels(lobby) and "Add bot" in _labels(lobby)  # no computer seat to free yet
    await fake.click(bob, lobby, _button(lobby, "Join"))
    await fake.click(carol, lobby, _button(lobby, "Join"))
    await fake.click(carol, lobby, _button(lobby, "Leave"))
    await fake.click(alice, lobby, _button(lobby, "Add bot"))
    assert "Players (3/3)" in lobby.text() and "(computer, level: medium)" in lobby.text()
    assert "Remove bot" in _labels(lobby) and "Add bot" not in _labels(lobby)  # full: no seat for another computer
    full = await fake.click(carol, lobby, _button(lobby, "Join"))
    assert full.ephemeral and full.message is not None and "full" in full.message.content

    started = await fake.click(alice, lobby, _button(lobby, "Start"))
    assert (started.callback_type == Callback.UPDATE_MESSAGE
            and "Position `" in lobby.text())  # the lobby message became the board
    users, rng = {alice.id: alice, bob.id: bob}, random.Random(3)
    for _ in range(400):
        mover = await human_to_move(fake, lobby, set(users))
        if mover is None:
            break
        await _play_turn(world, lobby, users[mover], rng)
    assert lobby.components == [] and ("wins" in lobby.text() or "Drawn" in lobby.text())
    [(status, seats), *_] = await stored_rows(
        bots.target, "SELECT status, (SELECT count(*) FROM game_players WHERE game_id = games.id) FROM games")
    [(bot_moves,)] = await stored_rows(bots.target, "SELECT count(*) FROM moves WHERE user_id IS NULL")
    assert status == "finished" and seats == 3 and bot_moves > 0


async def test_a_big_table_uses_two_steps_and_every_request_fits(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    rng, two_steps, tables = random.Random(8), 0, 0
    # The computer players draw on randomness nobody knows: a table may end (alice knocked out) before its move list
    # grows past one message. Another table then, a few at most.
    while two_steps == 0 and tables < 4:
        tables += 1
        res = await world.fake.slash(world.alice, world.channel, "chopsticks", "new",
                                     options={"players": 3, "hands": 4, "rollover": 10, "level": "easy"})
        lobby = res.message
        assert lobby is not None, res.errors
        await world.fake.click(world.alice, lobby, _button(lobby, "Add bot"))
        await world.fake.click(world.alice, lobby, _button(lobby, "Add bot"))
        await world.fake.click(world.alice, lobby, _button(lobby, "Start"))
        for _ in range(60):
            if await human_to_move(world.fake, lobby, {world.alice.id}) is None:
                break
            two_steps += await _play_turn(world, lobby, world.alice, rng, spread=True)
    assert two_steps > 0


async def test_lobby_refusals_and_expiry(world: World, bots: TabletopRunner) -> None:
    from bot.service.lobbies import LobbyService

    bot = await bots.start()
    bot.lobbies.lobby_timeout = 0.5
    assert isinstance(bot.lobbies, LobbyService)
    res = await world.fake.slash(world.alice, world.channel, "chopsticks", "new",
                                 options={"players": 2, "variants": "zombie"})
    assert res.ephemeral and res.message is not None and "Zombie needs at least 3 players" in res.message.content
    res = await world.fake.slash(world.alice, world.channel, "chopsticks", "new",
                                 options={"players": 3, "opponent": world.bob})
    assert res.ephemeral and res.message is not None and "2-player games" in res.message.content
    res = await world.fake.slash(world.alice, world.channel, "chopsticks", "new", options={"players": 4})
    lobby = res.message
    assert lobby is not None
    await world.fake.wait_until(lambda: "expired" in lobby.text(), timeout=5)
    assert lobby.components == []


async def test_a_two_player_table_with_variants_by_challenge(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    res = await world.fake.slash(world.alice, world.channel, "chopsticks", "new",
                                 options={"opponent": world.bob, "variants": "cutoff self-attack"})
    board = res.message
    assert board is not None and "cutoff" in board.text()
    await world.fake.click(world.bob, board, _button(board, "Accept"))
    assert "cutoff" in board.text() and "Position `1111`" in board.text()


async def _followup_text(res: object) -> str:
    from tests.support.fakediscord import InteractionResult

    assert isinstance(res, InteractionResult)
    await res.wait_for_original()
    assert res.ephemeral and res.message is not None, res.errors
    return res.message.text()


async def test_analyze_gives_the_solvers_verdict(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    standard = await _followup_text(await world.fake.slash(world.alice, world.channel, "chopsticks", "analyze",
                                                            options={"code": "1111"}))
    assert "draw for the player to move" in standard
    text = await _followup_text(await world.fake.slash(world.alice, world.channel, "chopsticks", "analyze",
                                                        options={"code": "1111", "variants": "cutoff self-attack"}))
    assert "win in" in text
    moves = await _followup_text(await world.fake.slash(world.alice, world.channel, "chopsticks", "analyze",
                                                         options={"code": "1312"}))
    for move in ("AC", "AD", "BC", "BD", "13-22"):
        assert f"`{move}`" in moves
    bad = await world.fake.slash(world.alice, world.channel, "chopsticks", "analyze", options={"code": "131"})
    assert "not one" in await _followup_text(bad)


async def test_rules_explain_the_variants(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    res = await world.fake.slash(world.alice, world.channel, "chopsticks", "rules")
    assert res.ephemeral and res.message is not None and "zombie" in res.message.text()
    res = await world.fake.slash(world.alice, world.channel, "chopsticks", "rules",
                                 options={"variants": "cutoff", "players": 3})
    assert res.message is not None
    assert "3 players" in res.message.text() and "or more fingers dies" in res.message.text()
    choices = await world.fake.autocomplete(world.alice, world.channel, "chopsticks", "new",
                                            options={"variants": "cutoff su"}, focused="variants")
    assert [c["value"] for c in choices] == ["cutoff suicide", "cutoff sudden-death"]


async def test_hints_for_the_player_to_move(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    res = await world.fake.slash(world.alice, world.channel, "chopsticks", "new",
                                 options={"opponent": world.bob, "hints": True})
    board = res.message
    assert board is not None
    await world.fake.click(world.bob, board, _button(board, "Accept"))
    mover = world.alice if player_to_move(board) == world.alice.id else world.bob
    other = world.bob if mover is world.alice else world.alice
    refused = await world.fake.click(other, board, _button(board, "Hint"))
    assert refused.ephemeral and refused.message is not None and "not your turn" in refused.message.content
    hint = await world.fake.click(mover, board, _button(board, "Hint"))
    assert "Hint: `AC`" in await _followup_text(hint) and "draws" in hint.message.text()  # type: ignore[union-attr]


async def test_random_play_never_beats_the_perfect_bot(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    for seed in range(3):
        res = await world.fake.slash(world.alice, world.channel, "chopsticks", "challenge",
                                     options={"level": "perfect"})
        board = res.message
        assert board is not None
        rng = random.Random(seed)
        for _ in range(200):
            if await human_to_move(world.fake, board, {world.alice.id}) is None:
                break
            await world.fake.click(world.alice, board, rng.choice(move_buttons(board))["custom_id"])
        text = board.text()
        assert f"<@{world.alice.id}> wins" not in text
        assert "wins" in text or "Drawn" in text


async def test_a_player_whose_time_runs_out_at_a_table_of_three_is_named_and_the_game_goes_on(
        world: World, bots: TabletopRunner) -> None:
    await bots.start_with(turn_timeout=1.2)  # the reminder after 0.9 s, the forfeit after 1.2 s
    fake = world.fake
    res = await fake.slash(world.alice, world.channel, "chopsticks", "new", options={"players": 3})
    lobby = res.message
    assert lobby is not None, res.errors
    for user in (world.bob, world.carol):
        await fake.click(user, lobby, _button(lobby, "Join"))
    await fake.click(world.alice, lobby, _button(lobby, "Start"))
    late = await human_to_move(fake, lobby, {world.alice.id, world.bob.id, world.carol.id})
    assert late is not None

    def told() -> list[FakeMessage]:
        return [m for m in fake.channel_messages(world.channel) if "ran out of time and is out" in m.content]

    await fake.wait_until(lambda: bool(told()), timeout=5)
    [said] = told()
    assert said.content == f"Chopsticks #1: <@{late}> ran out of time and is out." and not said.pinged
    await fake.wait_until(lambda: player_to_move(lobby) not in (None, late), timeout=5)  # the other two play on
