"""The scripts of the golden transcripts (tests/tools/transcript.py): what the players do in each scenario.

Controls are found by their custom ids (never by their words), so a script plays the same in every language; the
choices are scripted, or drawn from a seeded generator where any legal one would do."""

from __future__ import annotations

import json
import random
import re
from datetime import UTC, datetime
from typing import Any

from games.generals.engine import GeneralsState
from games.sucker import SuckerState
from tests.support.boards import move_buttons, player_to_move
from tests.support.fakediscord import FakeMessage, FakeUser
from tests.support.fakediscord.payloads import PERM_MANAGE_GUILD
from tests.support.generals import A_GRID, B_GRID, BOARD_TITLE, import_grid, move
from tests.support.sucker import decide, open_table, put_position, stored, thread_opened
from tests.support.world import stored_rows
from tests.tools.transcript import ScenarioError, Table, scenario

GAME = 1  # every scenario runs on a new database: its first game is #1


def _find(table: Table, pattern: str, messages: list[FakeMessage] | None = None) -> FakeMessage:
    """The latest message carrying a control whose custom id matches `pattern`."""
    where = messages if messages is not None else list(table.fake.messages.values())
    found = [m for m in where if not m.deleted and any(re.fullmatch(pattern, c) for c in m.custom_ids())]
    if not found:
        raise ScenarioError(f"no message offers {pattern!r}")
    return found[-1]


def _id(message: FakeMessage, pattern: str) -> str:
    return next(c for c in message.custom_ids() if re.fullmatch(pattern, c))


# ----- Chopsticks -----------------------------------------------------------------------------------------------------
async def chopsticks_challenge(table: Table, challenger: FakeUser, opponent: FakeUser) -> FakeMessage:
    res = await table.fake.slash(challenger, table.channel, "chopsticks", "challenge", options={"opponent": opponent})
    if res.message is None:
        raise ScenarioError(f"no challenge: {res.errors}")
    board = res.message
    game = int(_id(board, r"cs:[0-9]+:accept").split(":")[1])
    await table.fake.click(opponent, board, f"cs:{game}:accept")
    return board


async def play_chopsticks(table: Table, board: FakeMessage, people: list[FakeUser], rng: random.Random,
                          most: int = 60) -> None:
    """The people to move play (seeded) random moves on the board's buttons until the game ends."""
    by_id = {u.id: u for u in people}
    for _ in range(most):
        await table.quiet()
        mover = player_to_move(board)
        moves = move_buttons(board)
        if mover is None or mover not in by_id or not moves:
            return
        await table.fake.click(by_id[mover], board, str(rng.choice(moves)["custom_id"]))
    raise ScenarioError(f"the Chopsticks game did not end in {most} moves")


@scenario("chopsticks-people", "Chopsticks between two people, to the end")
async def chopsticks_people(table: Table) -> None:
    board = await chopsticks_challenge(table, table.alice, table.bob)
    await play_chopsticks(table, board, [table.alice, table.bob], random.Random(10))


@scenario("chopsticks-computer", "Chopsticks against the computer (easy), to the end")
async def chopsticks_computer(table: Table) -> None:
    res = await table.fake.slash(table.alice, table.channel, "chopsticks", "challenge", options={"level": "easy"})
    if res.message is None:
        raise ScenarioError(f"no game: {res.errors}")
    await play_chopsticks(table, res.message, [table.alice], random.Random(3))


async def finished_chopsticks(table: Table, first: FakeUser, second: FakeUser, seed: int = 10) -> FakeMessage:
    """A Chopsticks game between two people, played to the end without being written; its board."""
    async with table.muted():
        board = await chopsticks_challenge(table, first, second)
        await play_chopsticks(table, board, [first, second], random.Random(seed))
    return board


@scenario("rematch", "a finished Chopsticks game (not shown), then both players click Rematch")
async def rematch(table: Table) -> None:
    await finished_chopsticks(table, table.alice, table.bob)
    table.rec.note("a Chopsticks game between @alice and @bob has just ended (not shown)")
    ending = _find(table, rf"rm:{GAME}")
    await table.fake.click(table.bob, ending, f"rm:{GAME}")
    await table.fake.click(table.alice, ending, f"rm:{GAME}")


# ----- tournaments ----------------------------------------------------------------------------------------------------
async def resign_chopsticks(table: Table, game: int) -> None:
    """In Chopsticks game `game` the first to move plays a move, then the other resigns from the board (Resign, then
    the confirmation)."""
    board = _find(table, rf"cs:{game}:resign")
    first = next(u for u in table.people.values() if u.id == player_to_move(board))
    await table.fake.click(first, board, str(move_buttons(board)[0]["custom_id"]))
    await table.quiet()
    mover = player_to_move(board)
    user = next((u for u in table.people.values() if u.id == mover), None)
    if user is None:
        raise ScenarioError(f"nobody to move in game {game}")
    res = await table.fake.click(user, board, f"cs:{game}:resign")
    await table.quiet()
    confirm = res.message if res.message is not None else board
    await table.fake.click(user, confirm, f"cs:{game}:resign-yes")
    await table.quiet()


async def _tournament_of_four(table: Table, options: dict[str, Any]) -> FakeMessage:
    """Alice's /tournament new with `options` (at least 4 players), and its announcement once all four joined."""
    res = await table.fake.slash(table.alice, table.channel, "tournament", "new", permissions=PERM_MANAGE_GUILD,
                                 options={**options, "min_players": 4})
    if res.message is None:
        raise ScenarioError(f"no tournament: {res.errors}")
    for person in (table.alice, table.bob, table.carol, table.dave):
        await table.fake.click(person, res.message, "tn:1:join")
    return res.message


@scenario("tournament-swiss", "a Swiss of Chopsticks: 4 players, 3 rounds, from /tournament new to the podium")
async def tournament_swiss(table: Table) -> None:
    people = [table.alice, table.bob, table.carol, table.dave]
    announcement = await _tournament_of_four(table, {"game": "chopsticks", "format": "swiss", "rounds": 3})
    await table.fake.click(table.bob, announcement, "tn:1:start")  # not the organiser: refused
    await table.fake.click(table.alice, announcement, "tn:1:start")
    await table.quiet()
    # Round 1: games 1 and 2; round 2: 3 and 4; round 3: 5 and 6 (four players: no bye).
    await resign_chopsticks(table, 1)
    await resign_chopsticks(table, 2)
    async with table.muted():
        await play_chopsticks(table, _find(table, r"cs:3:resign"), people, random.Random(4))
    table.rec.note("Chopsticks #3 was played to its end (not shown)")
    await resign_chopsticks(table, 4)
    await resign_chopsticks(table, 5)
    await resign_chopsticks(table, 6)


# ----- Game of the Generals -------------------------------------------------------------------------------------------
async def dm_board(table: Table, user: FakeUser) -> FakeMessage:
    await table.quiet()
    boards = [m for m in table.fake.dm_messages(user) if f"gg:{GAME}:ready" in m.custom_ids()
              or BOARD_TITLE in m.text()]
    if not boards:
        raise ScenarioError(f"no board in {user.name}'s DMs")
    return boards[-1]


async def ready(table: Table, user: FakeUser, board: FakeMessage, grid: str) -> None:
    await import_grid(table.fake, user, board, grid)
    await table.fake.click(user, board, f"gg:{GAME}:ready")


async def resign(table: Table, user: FakeUser, board: FakeMessage) -> None:
    res = await table.fake.click(user, board, f"gg:{GAME}:resign")
    await table.quiet()
    confirm = res.message if res.message is not None else board
    yes = f"gg:{GAME}:resign-yes"
    if yes in confirm.custom_ids():
        await table.fake.click(user, confirm, yes)


async def generals_to_move(table: Table) -> int | None:
    """The person to move in game 1, as stored (None in setup, for the computer, or once it is over)."""
    [(status, data)] = await stored_rows(table.bot.settings.database, "SELECT status, state FROM games WHERE id = ?",
                                         (GAME,))
    seat = GeneralsState.from_dict(json.loads(data)).current_player()
    if status != "active" or seat is None:
        return None
    rows = await stored_rows(table.bot.settings.database,
                             "SELECT user_id FROM game_players WHERE game_id = ? AND seat = ?", (GAME, seat))
    return int(rows[0][0]) if rows and rows[0][0] is not None else None


async def generals_moves(table: Table, boards: dict[int, tuple[FakeUser, FakeMessage]],
                         plans: dict[int, list[str]]) -> None:
    """Each side plays its planned moves in turn while it has some and the game goes on."""
    while True:
        await table.quiet()
        mover = await generals_to_move(table)
        if mover is None or mover not in plans or not plans[mover]:
            return
        user, board = boards[mover]
        await move(table.fake, user, board, plans[mover].pop(0))


@scenario("generals-people", "Game of the Generals between two people: setup by DM and a quick capture of the Flag")
async def generals_people(table: Table) -> None:
    fake, alice, bob = table.fake, table.alice, table.bob
    res = await fake.slash(alice, table.channel, "generals", "challenge", options={"opponent": bob})
    if res.message is None:
        raise ScenarioError(f"no challenge: {res.errors}")
    channel_board = res.message
    await fake.click(bob, channel_board, f"gg:{GAME}:accept")
    a, b = await dm_board(table, alice), await dm_board(table, bob)
    await ready(table, alice, a, A_GRID)
    await ready(table, bob, b, B_GRID)
    plans = {alice.id: ["a3-a4", "a4-a3", "a3-a4"], bob.id: ["e6-e5", "e5-e4", "e4-e3"]}
    await generals_moves(table, {alice.id: (alice, a), bob.id: (bob, b)}, plans)


@scenario("generals-computer", "Game of the Generals against the computer: setup, two moves, then resigning")
async def generals_computer(table: Table) -> None:
    fake, alice = table.fake, table.alice
    res = await fake.slash(alice, table.channel, "generals", "challenge")
    if res.message is None:
        raise ScenarioError(f"no game: {res.errors}")
    a = await dm_board(table, alice)
    await ready(table, alice, a, A_GRID)
    await generals_moves(table, {alice.id: (alice, a)}, {alice.id: ["a3-a4", "a4-a5"]})
    await table.quiet()
    await resign(table, alice, a)


@scenario("generals-closed-dms", "Game of the Generals where @bob's DMs are closed: he plays from My board")
async def generals_closed_dms(table: Table) -> None:
    fake, alice, bob = table.fake, table.alice, table.bob
    fake.fail_dm_for(bob)
    res = await fake.slash(alice, table.channel, "generals", "challenge", options={"opponent": bob})
    if res.message is None:
        raise ScenarioError(f"no challenge: {res.errors}")
    channel_board = res.message
    await fake.click(bob, channel_board, f"gg:{GAME}:accept")
    mine = await fake.click(bob, channel_board, f"gg:{GAME}:board")
    if mine.message is None:
        raise ScenarioError(f"no My board: {mine.errors}")
    await ready(table, bob, mine.message, B_GRID)
    a = await dm_board(table, alice)
    await ready(table, alice, a, A_GRID)
    await table.quiet()
    fresh = await fake.click(bob, channel_board, f"gg:{GAME}:board")
    if fresh.message is None:
        raise ScenarioError(f"no My board: {fresh.errors}")
    plans = {alice.id: ["a3-a4"], bob.id: ["e6-e5"]}
    await generals_moves(table, {alice.id: (alice, a), bob.id: (bob, fresh.message)}, plans)
    await table.quiet()
    await resign(table, bob, channel_board if f"gg:{GAME}:resign" in channel_board.custom_ids() else fresh.message)


# ----- So Long Sucker -------------------------------------------------------------------------------------------------
async def sucker_until_end(table: Table, status: FakeMessage, seats: dict[int, FakeUser], rng: random.Random,
                           most: int = 80) -> None:
    """The people decide (scripted by a seeded generator, as tests/support/sucker.py decides) until the game ends."""
    for _ in range(most):
        await table.quiet()
        state_status, state, _moves = await stored(table.bot.settings.database, GAME)
        seat = state.current_player()
        if state_status != "active" or seat is None:
            return
        if seat not in seats:
            raise ScenarioError(f"seat {seat} is to decide but no person sits there")
        await decide(table, _decisions(table, state.turn) or status, seats[seat], state, rng)  # type: ignore[arg-type]
    raise ScenarioError(f"the So Long Sucker game did not end in {most} decisions")


def _decisions(table: Table, turn: int) -> FakeMessage | None:
    """The message that carries the decision controls of `turn` (the status message, or wherever they are drawn)."""
    return next((m for m in reversed(list(table.fake.messages.values())) if not m.deleted and not m.ephemeral
                 and any(re.match(rf"sks?:{GAME}:{turn}:", c) for c in m.custom_ids())), None)


# Four players late in a game (seats: alice red, bob blue, carol green, dave yellow): alice to play her last chip;
# carol holds nothing (naming her asks for a rescue), so defeats and rescues come soon.
LATE_FOUR = SuckerState.from_table(4, holdings=["R", "BG", "", "YR"], piles=["GB", "Y"], chain=(0,))
LATE_WITH_COMPUTERS = SuckerState.from_table(4, holdings=["RB", "B", "G", "YG"], piles=["R"], chain=(0,))


async def _late_sucker_table(table: Table, people: list[FakeUser], computers: int, position: SuckerState, said: str,
                             seed: int) -> None:
    """A So Long Sucker table of `people` and `computers` computer seats, set to `position` (as `said` in the
    transcript's note), played to its end by the people's choices drawn from `seed`."""
    status = await open_table(table, people, bots=computers)  # type: ignore[arg-type]
    await thread_opened(table, status)  # type: ignore[arg-type]
    await table.quiet()
    table.rec.note(f"the table is set to a late position ({said}); alice to play")
    await put_position(table, table.bot, table.bot.settings.database, position)  # type: ignore[arg-type]
    await sucker_until_end(table, status, dict(enumerate(people)), random.Random(seed))


@scenario("sucker-people", "So Long Sucker, a table of four people set late in a game: rescues, defeats, the end")
async def sucker_people(table: Table) -> None:
    await _late_sucker_table(table, [table.alice, table.bob, table.carol, table.dave], 0, LATE_FOUR,
                             "alice: 1 red chip; bob: blue and green; carol: none; dave: yellow and red; piles: green "
                             "under blue, yellow", seed=7)


@scenario("sucker-computers", "So Long Sucker, two people and two computer seats, set late in a game, to the end")
async def sucker_computers(table: Table) -> None:
    await _late_sucker_table(table, [table.alice, table.bob], 2, LATE_WITH_COMPUTERS,
                             "alice: red and blue; bob: blue; Bot 1: green; Bot 2: yellow and green; a red pile",
                             seed=3)


@scenario("tournament-sucker", "So Long Sucker tables: 4 players, 1 round, from /tournament new to the table's first "
                               "decisions; then the table set late, to its end and the podium")
async def tournament_sucker(table: Table) -> None:
    people = [table.alice, table.bob, table.carol, table.dave]
    announcement = await _tournament_of_four(table, {"game": "sucker", "format": "tables", "rounds": 1})
    await table.fake.click(table.alice, announcement, "tn:1:start")
    await table.quiet()
    rows = await stored_rows(table.bot.settings.database,
                             "SELECT seat, user_id FROM game_players WHERE game_id = ? ORDER BY seat", (GAME,))
    by_id = {u.id: u for u in people}
    seats = {int(seat): by_id[int(user_id)] for seat, user_id in rows}
    status = _decisions(table, 0)
    if status is None:
        raise ScenarioError("the table shows no decision")
    rng = random.Random(5)
    for _ in range(3):  # a few decisions as the table opens
        await table.quiet()
        _status, state, _moves = await stored(table.bot.settings.database, GAME)
        seat = state.current_player()
        if seat is None:
            raise ScenarioError("nobody to decide")
        await decide(table, _decisions(table, state.turn) or status, seats[seat], state, rng)  # type: ignore[arg-type]
    await table.quiet()
    said = ", ".join(f"{seats[s].name}: {what}" for s, what in
                     enumerate(["1 red chip", "blue and green", "none", "yellow and red"]))
    table.rec.note(f"the table is set to a late position ({said}; piles: green under blue, yellow); "
                   f"{seats[0].name} to play")
    await put_position(table, table.bot, table.bot.settings.database, LATE_FOUR)  # type: ignore[arg-type]
    await sucker_until_end(table, status, seats, random.Random(7))
    await table.quiet()


# ----- commands -------------------------------------------------------------------------------------------------------
@scenario("help", "/help, and its first button")
async def help_command(table: Table) -> None:
    res = await table.fake.slash(table.alice, table.channel, "help")
    if res.message is not None and res.message.buttons():
        await table.fake.click(table.alice, res.message, str(res.message.buttons()[0]["custom_id"]))


@scenario("stats", "/stats after a finished game: one's own, another's, and someone without games")
async def stats(table: Table) -> None:
    await finished_chopsticks(table, table.alice, table.bob)
    table.rec.note("a Chopsticks game between @alice and @bob has just ended (not shown)")
    await table.fake.slash(table.alice, table.channel, "stats")
    await table.fake.slash(table.carol, table.channel, "stats", options={"user": table.bob})
    await table.fake.slash(table.dave, table.channel, "stats")


@scenario("leaderboard", "/leaderboard of Chopsticks after two finished games")
async def leaderboard(table: Table) -> None:
    await finished_chopsticks(table, table.alice, table.bob)
    await finished_chopsticks(table, table.carol, table.bob, seed=5)
    table.rec.note("two Chopsticks games have just ended (not shown): @alice against @bob, @carol against @bob")
    await table.fake.slash(table.dave, table.channel, "leaderboard", options={"game": "chopsticks"})


@scenario("seasons", "/settings season monthly, two finished games, /leaderboard season:current, bob's /stats; then "
                     "the month ends and its top three are posted")
async def seasons(table: Table) -> None:
    await table.fake.slash(table.alice, table.channel, "settings", "season", options={"length": "monthly"},
                           permissions=PERM_MANAGE_GUILD)
    await finished_chopsticks(table, table.alice, table.bob)
    await finished_chopsticks(table, table.carol, table.bob, seed=5)
    table.rec.note("two Chopsticks games have just ended (not shown): @alice against @bob, @carol against @bob")
    await table.fake.slash(table.dave, table.channel, "leaderboard", options={"game": "chopsticks",
                                                                              "season": "current"})
    await table.fake.slash(table.bob, table.channel, "stats")
    await table.quiet()
    table.clock.now = datetime(2033, 6, 1, 0, 1, tzinfo=UTC).timestamp()
    table.rec.note("the bot's clock moves on to 1 June 2033, 00:01 UTC: May's season is over")
    if table.bot.season_ends is None or await table.bot.season_ends.announce_due() != 1:
        raise ScenarioError("the end of May's season was not posted")
    await table.quiet()


@scenario("settings", "/settings: an admin looks at the server's settings and changes the turn time")
async def settings(table: Table) -> None:
    await table.fake.slash(table.alice, table.channel, "settings", "show", permissions=PERM_MANAGE_GUILD)
    await table.fake.slash(table.alice, table.channel, "settings", "set", options={"turn_time": "2h"},
                           permissions=PERM_MANAGE_GUILD)
