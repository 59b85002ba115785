"""Every text right (issue 12, point 6), read the way players read it: through the real bot and the offline Discord.

Counted words in /stats and /leaderboard, what a closed challenge says in each game, the turn time in the game's
own word, the import-grid hint shown whole, the Generals sides named alike everywhere, no Offer draw against a
computer player, and Chopsticks moves that say whose hands they name.
"""

from __future__ import annotations

import re

from bot.games.chopsticks.board import last_move_line
from bot.i18n import render
from bot.service import Player
from bot.words import closed_challenge_line
from games.chopsticks.engine import ChopsticksState
from games.chopsticks.rules import Rules
from storage.ratings import GLOBAL, RatingRow
from tests.support.boards import move_buttons, player_to_move
from tests.support.codes import Callback
from tests.support.fakediscord import FakeMessage
from tests.support.fakediscord.payloads import PERM_MANAGE_GUILD
from tests.support.generals import A_GRID, pictures_off, to_move
from tests.support.world import TabletopRunner, World, seed_ratings

FRESH_MU, FRESH_SIGMA = 25.0, 25.0 / 3  # a newcomer's rating: shown as 1000
RATING_FOOTER = "rating: a cautious estimate of skill; it settles after 10 games (provisional until then)"
IMPORT_HINT_A = ("Three lines, ranks 3, 2, 1 (a label like `3 |` is optional), nine cells each for files "
                 "a b c d e f g h i: 5G, 4G, 3G, 2G, 1G, COL, LTC, MAJ, CPT, 1LT, 2LT, SGT, PVT, SPY, FLG, "
                 "or `.` for empty.")
LEGEND = "A (white) in CAPITALS, B (black) in lower case; `A?`/`B?`: rank hidden; `*`: last move"


def test_closed_challenge_lines() -> None:
    assert [str(closed_challenge_line(status, "@a", "@b", by)) for status, by in (
        ("expired", None), ("declined", 0), ("declined", 1), ("declined", None), ("active", None))] == [
        "This challenge has expired: @b did not answer in time.", "@a withdrew this challenge.",
        "@b declined this challenge.", "This challenge was called off.", "@b accepted this challenge."]


def _lines(message: FakeMessage | None) -> list[str]:
    assert message is not None
    return message.text().splitlines()


# ----- /stats and /leaderboard ----------------------------------------------------------------------------------
async def test_stats_and_ladders_count_in_words(world: World, bots: TabletopRunner) -> None:
    alice, bob = world.alice.id, world.bob.id
    rows = []
    for scope in (world.guild.id, GLOBAL):
        rows += [RatingRow("chopsticks", scope, alice, FRESH_MU, FRESH_SIGMA, games=1, wins=1, streak=1,
                           best_streak=1),
                 RatingRow("chopsticks", scope, bob, FRESH_MU, FRESH_SIGMA, games=2, wins=1, losses=1, streak=-1,
                           best_streak=1),
                 RatingRow("generals", scope, alice, FRESH_MU, FRESH_SIGMA, games=3, losses=3, streak=-3)]
    await seed_ratings(bots.target, rows)
    await bots.start()
    fake = world.fake

    mine = _lines((await fake.slash(world.alice, world.channel, "stats")).message)
    # On a server the record is that server's; the global rating stands beside it without the record elsewhere.
    assert "This server: 1000 (provisional) · 1 game: 1W 0D 0L" in mine
    assert "Streak: 1 win in a row (best: 1 win in a row)" in mine
    assert "This server: 1000 (provisional) · 3 games: 0W 0D 3L" in mine
    assert "Streak: 3 losses in a row" in mine  # no best winning streak to tell
    assert mine.count("Global rating: 1000 (provisional)") == 2
    his = _lines((await fake.slash(world.alice, world.channel, "stats", options={"user": world.bob})).message)
    assert "This server: 1000 (provisional) · 2 games: 1W 0D 1L" in his
    assert "Streak: 1 loss in a row (best: 1 win in a row)" in his

    two = _lines((await fake.slash(world.alice, world.channel, "leaderboard", options={"game": "chopsticks"})).message)
    assert two[-1] == f"Page 1 of 1 · 2 rated players · {RATING_FOOTER}"
    one = _lines((await fake.slash(world.alice, world.channel, "leaderboard", options={"game": "generals"})).message)
    assert one[-1] == f"Page 1 of 1 · 1 rated player · {RATING_FOOTER}"
    assert not any("mu" in line or "sigma" in line for line in two + one)


# ----- challenges -------------------------------------------------------------------------------------------------
async def _challenge(world: World, game: str) -> FakeMessage:
    res = await world.fake.slash(world.alice, world.channel, game, "challenge", options={"opponent": world.bob})
    assert res.callback_type == Callback.CHANNEL_MESSAGE and res.message is not None, res.errors
    return res.message


async def test_an_unanswered_challenge_has_expired_in_every_game(world: World, bots: TabletopRunner) -> None:
    await bots.start_with(challenge_timeout=0.5)
    chopsticks, generals = await _challenge(world, "chopsticks"), await _challenge(world, "generals")
    expired = f"This challenge has expired: <@{world.bob.id}> did not answer in time."
    await world.fake.wait_until(lambda: expired in chopsticks.text() and expired in generals.text(), timeout=5)
    assert _lines(chopsticks) == ["Chopsticks #1: a challenge", expired]
    assert _lines(generals) == ["Game of the Generals #2",
                                f"<@{world.alice.id}> challenged <@{world.bob.id}> to Game of the Generals.", expired]
    assert chopsticks.components == [] and generals.components == []


async def test_a_closed_challenge_says_who_called_it_off(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    fake, alice, bob = world.fake, world.alice.id, world.bob.id
    chopsticks = await _challenge(world, "chopsticks")
    assert ((await fake.click(world.alice, chopsticks, "cs:1:decline")).callback_type
            == Callback.UPDATE_MESSAGE)  # the challenger withdraws
    assert _lines(chopsticks) == ["Chopsticks #1: a challenge", f"<@{alice}> withdrew this challenge."]
    generals = await _challenge(world, "generals")
    assert (await fake.click(world.bob, generals, "gg:2:decline")).callback_type == Callback.UPDATE_MESSAGE
    assert _lines(generals) == ["Game of the Generals #2",
                                f"<@{alice}> challenged <@{bob}> to Game of the Generals.",
                                f"<@{bob}> declined this challenge."]


# ----- the turn time, in the game's word ---------------------------------------------------------------------------
async def test_lobbies_and_games_count_time_in_the_games_own_word(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    fake = world.fake
    chopsticks_lobby = await fake.slash(world.alice, world.channel, "chopsticks", "new", options={"players": 3})
    assert "24 h per move." in _lines(chopsticks_lobby.message)
    sucker_lobby = await fake.slash(world.alice, world.channel, "sucker", "new")
    assert "24 h per decision." in _lines(sucker_lobby.message)
    chopsticks = await _challenge(world, "chopsticks")
    assert (f"<@{world.alice.id}> challenges <@{world.bob.id}> to Chopsticks (standard rules, 24 h per move)."
            in _lines(chopsticks))
    generals = await _challenge(world, "generals")
    assert (f"<@{world.alice.id}> challenges <@{world.bob.id}> to Game of the Generals (24 h per move)."
            in _lines(generals))


# ----- Game of the Generals ----------------------------------------------------------------------------------------
async def test_the_import_grid_hint_is_shown_whole(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    fake = world.fake
    await fake.slash(world.alice, world.channel, "generals", "challenge", options={"level": "random"})
    await fake.wait_until(lambda: len(fake.dm_messages(world.alice)) == 1)
    board = fake.dm_messages(world.alice)[0]
    shown = await fake.click(world.alice, board, "gg:1:import")
    assert shown.callback_type == Callback.MODAL and shown.modal is not None and not shown.errors, shown.errors
    hint, field = shown.modal["components"]
    assert hint["type"] == 10 and hint["content"] == IMPORT_HINT_A
    assert field["type"] == 18 and field["label"] == "Your grid (3 rows of 9 cells)"
    assert field["component"]["custom_id"] == "grid" and "placeholder" not in field["component"]
    done = await fake.submit_modal(world.alice, shown, {"grid": A_GRID})
    assert done.callback_type == Callback.UPDATE_MESSAGE and not done.errors, done.errors


async def test_against_the_bot_no_draw_offer_and_the_sides_are_named_alike(world: World, bots: TabletopRunner) -> None:
    bot = await bots.start()
    assert bot.user is not None
    fake = world.fake
    await pictures_off(world)  # text boards: what the pictures say, readable here
    res = await fake.slash(world.alice, world.channel, "generals", "challenge", options={"level": "random"})
    channel_board = res.message
    assert channel_board is not None
    await fake.wait_until(lambda: len(fake.dm_messages(world.alice)) == 1)
    own = fake.dm_messages(world.alice)[0]
    assert ((await fake.select(world.alice, own, "ggs:1:formation", ["f:balanced"])).callback_type
            == Callback.UPDATE_MESSAGE)
    assert (await fake.click(world.alice, own, "gg:1:ready")).callback_type == Callback.UPDATE_MESSAGE
    await fake.wait_until(lambda: to_move(channel_board) == world.alice.id and own.selects() != [], timeout=10)

    assert [b["label"] for b in channel_board.buttons()] == ["My board", "Resign", "Ranks"]
    assert [b["label"] for b in own.buttons()] == ["Resign", "Ranks"]

    public = _lines(channel_board)
    assert f"⚪ Side A (white): <@{world.alice.id}>" in public
    assert f"⚫ Side B (black): <@{bot.user.id}> (bot)" in public
    assert LEGEND in public and re.search(r"^Move \d+: Side A \(white\) to move$", "\n".join(public), re.M)
    assert re.search(r"^Lost: A \(white\) \d+, B \(black\) \d+$", "\n".join(public), re.M)
    assert re.search(r"^standard rules · pieces lost: A \(white\) \d+, B \(black\) \d+ · 24 h per move$",
                     "\n".join(public), re.M)
    private = _lines(own)
    assert f"You are ⚪ side A (white) against <@{bot.user.id}> (bot)." in private
    assert "Game of the Generals - you are side A (white)" in private and LEGEND in private


# ----- Chopsticks ---------------------------------------------------------------------------------------------------
def _move(board: FakeMessage, text: str) -> str:
    return str(next(b["custom_id"] for b in move_buttons(board) if str(b["custom_id"]).endswith(f":{text}")))


async def test_the_last_move_says_whose_hands_it_named(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    board = await _challenge(world, "chopsticks")
    assert (await world.fake.click(world.bob, board, "cs:1:accept")).callback_type == Callback.UPDATE_MESSAGE
    users = {u.id: u for u in (world.alice, world.bob)}
    mover = player_to_move(board)
    assert mover is not None
    other = next(u for u in users if u != mover)
    assert [b["label"] for b in move_buttons(board)] == ["AC · your 1 taps their 1"]  # two players: no tags
    assert (await world.fake.click(users[mover], board, _move(board, "AC"))).callback_type == Callback.UPDATE_MESSAGE
    # Issue 23, defect 15: not by the mover's letters `AC` (the board is lettered from the next player now, with each
    # player's hands sorted again), but by the fingers the hands had, as the mover's button said it.
    lines = _lines(board)
    assert f"▶ <@{other}>: A **1**  B **2**" in lines and f"• <@{mover}>: C **1**  D **1**" in lines, lines
    assert f"Last move: <@{mover}>'s 1 tapped <@{other}>'s 1" in lines
    assert not any("AC" in line for line in lines if line.startswith("Last move"))


async def test_at_three_players_buttons_name_whose_hand_they_tap(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    fake = world.fake
    lobby = (await fake.slash(world.alice, world.channel, "chopsticks", "new", options={"players": 3})).message
    assert lobby is not None
    for user in (world.bob, world.carol):
        await fake.click(user, lobby, next(b["custom_id"] for b in lobby.buttons() if b["label"] == "Join"))
    await fake.click(world.alice, lobby, next(b["custom_id"] for b in lobby.buttons() if b["label"] == "Start"))
    # The board lists the players from the one to move on, each with the tag the buttons use.
    order = re.findall(r"^[▶•] <@(\d+)> \((P\d)\): ", lobby.text(), re.M)
    assert len(order) == 3 and int(order[0][0]) == player_to_move(lobby), lobby.text()
    (mover, _), (second, second_tag), (third, third_tag) = order
    assert {b["label"] for b in move_buttons(lobby)} == {
        f"AC · your 1 taps their 1 ({second_tag})", f"AE · your 1 taps their 1 ({third_tag})"}
    users = {str(u.id): u for u in (world.alice, world.bob, world.carol)}
    assert (await fake.click(users[mover], lobby, _move(lobby, "AE"))).callback_type == Callback.UPDATE_MESSAGE
    assert f"Last move: <@{mover}>'s 1 tapped <@{third}>'s 1" in _lines(lobby)
    assert re.search(rf"^▶ <@{second}> \({second_tag}\): ", lobby.text(), re.M)


def test_the_last_move_names_hands_by_their_fingers_in_every_case() -> None:
    """Own hands, a tap that puts a player out, a split, a game saved before the fingers were kept; in Russian."""
    names = ["<@1>", "<@2>", "<@3>"]
    own = ChopsticksState.from_code("1213", Rules.from_options(2, {"variants": ["self-attack"]}))
    own = own.apply(0, own.parse_action("AB"))  # seat 0's 1 taps its own 2
    assert str(last_move_line(own.public_view(), names)) == "Last move: <@1>'s 1 tapped their own 2"
    assert render(last_move_line(own.public_view(), names), "ru") == \
        "Последний ход — <@1>: рука 1 ударила свою же руку 2"

    out = ChopsticksState.from_code("121104", Rules(players=3))  # seat 0 (1, 2) to move; seat 2 has one hand: 4
    out = out.apply(0, out.parse_action("AF"))  # 1 + 4: that hand dies
    assert 2 in out.public_view().out
    assert str(last_move_line(out.public_view(), names)) == "Last move: <@1>'s 1 tapped <@3>'s 4"
    assert render(last_move_line(out.public_view(), names), "ru") == \
        "Последний ход — <@1>: рука 1 ударила руку 4 игрока <@3>"
    # The fingers are kept with the game: a restarted bot says the same.
    again = ChopsticksState.from_dict(out.to_dict())
    assert str(last_move_line(again.public_view(), names)) == "Last move: <@1>'s 1 tapped <@3>'s 4"
    saved_before = {key: value for key, value in out.to_dict().items() if key != "last_values"}
    assert str(last_move_line(ChopsticksState.from_dict(saved_before).public_view(), names)) == \
        "Last move: <@1> played `AF`"

    split = ChopsticksState.from_code("0413")
    split = split.apply(0, split.parse_action("04-13"))
    assert str(last_move_line(split.public_view(), names)) == "Last move: <@1> played `04-13`"


# ----- /settings and /replay (issue 23, defect 16) -------------------------------------------------------------------
async def test_settings_name_switched_off_games_in_the_readers_language(world: World, bots: TabletopRunner) -> None:
    """Not "Games switched off: **generals**" (an internal name): the games' own names, in the admin's language."""
    await bots.start()
    fake = world.fake
    for kind in ("generals", "sucker"):
        off = await fake.slash(world.alice, world.channel, "settings", "game", permissions=PERM_MANAGE_GUILD,
                               options={"game": kind, "enabled": False})
        assert off.ephemeral and off.message is not None, off.errors
    assert "Games switched off: **Game of the Generals, So Long Sucker**" in _lines(off.message)
    world.bob.locale = "ru"
    shown = await fake.slash(world.bob, world.channel, "settings", "show", permissions=PERM_MANAGE_GUILD)
    assert shown.message is not None
    line = next(line for line in _lines(shown.message) if line.startswith("Выключенные игры: "))
    assert "generals" not in line and "sucker" not in line and "Sucker" not in line, line


async def test_post_publicly_is_offered_only_to_the_players(world: World, bots: TabletopRunner) -> None:
    """Someone who did not play was offered Post publicly, then refused: now only the players see the button (and a
    click forged by anyone else is still refused)."""
    bot = await bots.start()
    fake = world.fake
    game = await bot.service.create("chopsticks", guild_id=world.guild.id, channel_id=world.channel.id,
                                    players=[Player(world.alice.id), Player(world.bob.id)], options={"first": 0})
    await bot.service.act(game.id, world.alice.id, "AC")
    await bot.service.resign(game.id, world.bob.id)

    watcher = await fake.slash(world.carol, world.channel, "replay", options={"game": game.id})
    assert watcher.ephemeral and watcher.message is not None, watcher.errors
    assert "Post publicly" not in [b["label"] for b in watcher.message.buttons()]
    player = await fake.slash(world.bob, world.channel, "replay", options={"game": game.id})
    assert player.message is not None and "Post publicly" in [b["label"] for b in player.message.buttons()]

    forged = watcher.message
    for component in forged.walk_components():
        if component.get("label") == "⏮":
            component["custom_id"] = f"rpp:{game.id}:0"
    refused = await fake.click(world.carol, forged, f"rpp:{game.id}:0")
    assert refused.ephemeral and refused.message is not None and "Only the players" in refused.message.text()
