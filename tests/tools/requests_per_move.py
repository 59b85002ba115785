"""REST requests per applied move, per game kind, through the real bot and the offline Discord.

    python -m tests.tools.requests_per_move [--generals 3] [--sucker 2] [--chopsticks 3] [--no-validate]

(also run by `python -m tests.tools.bench --discord-load`, after the Chopsticks load). People play whole games,
one choice at a time, clicking what the bot drew, as they would:

* Game of the Generals between two people, each on their DM board (a piece in the piece menu, then a direction,
  even for a piece with one move: the pick never moves it), and one game in which one player's DMs are closed and
  they play on the ephemeral My board, which the bot keeps current through the interaction's token;
* So Long Sucker between four people, every decision on the table's status message (a chip in one step where
  the plays fit its menus, colour then pile otherwise);
* Chopsticks between two people, on the board's move buttons.

The moves are the games' own computer players' choices (the greedy Generals player, the basic So Long Sucker
player; random Chopsticks moves), read from the stored game: the point is the bot's requests, not the play.
Every request is counted against the choice that caused it (see move_requests.py) and printed beside the
minimum: per applied Generals move 3 (the mover's answer, the opponent's board, the public board);
per So Long Sucker decision 1 (the decider's answer); Chopsticks 1. Turn notifications are counted apart.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import random
import re
import tempfile
from collections.abc import AsyncIterator, Callable, Iterable
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from games.base import GameState
from games.generals.computer import bot_action as generals_action
from games.generals.engine import GeneralsState
from games.sucker import SuckerState
from games.sucker.bots import choose_action as sucker_action
from tests.support.codes import Callback
from tests.support.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser, SpecValidator
from tests.support.generals import A_GRID, B_GRID, BOARD_TITLE
from tests.support.world import TabletopRunner, stored_rows
from tests.tools.move_requests import CountError, Meter, Tally, table

GENERALS = "Game of the Generals (DM boards)"
GENERALS_MY_BOARD = "Game of the Generals (one on My board)"
SUCKER = "So Long Sucker (4 people)"
CHOPSTICKS = "Chopsticks"
GAME_ID = re.compile(r"^[a-z]+:(\d+):")
S = TypeVar("S", bound=GameState[Any, Any])
MeterFactory = Callable[[FakeDiscord, "str | Path", int, Tally], Meter]


def new_tallies() -> dict[str, Tally]:
    return {
        GENERALS: Tally(GENERALS, 3, "the mover's answer, the opponent's board, the public board"),
        GENERALS_MY_BOARD: Tally(GENERALS_MY_BOARD, 3, "the same; the opponent's board by its token"),
        SUCKER: Tally(SUCKER, 1, "the decider's answer"),
        CHOPSTICKS: Tally(CHOPSTICKS, 1, "the mover's answer"),
    }


async def stored(target: str | Path, game_id: int) -> tuple[str, dict[str, Any], dict[int, int]]:
    """A game as stored: its status, its state and its seats' user ids (`target`: the bot's file or URL)."""
    [(status, state)] = await stored_rows(target, "SELECT status, state FROM games WHERE id = ?", (game_id,))
    seats = await stored_rows(target, "SELECT seat, user_id FROM game_players WHERE game_id = ?", (game_id,))
    return str(status), json.loads(state), {int(s): int(u) for s, u in seats if u is not None}


async def _turns(meter: Meter, database: str | Path, game: int, load: Callable[[dict[str, Any]], S], *, limit: int,
                 what: str) -> AsyncIterator[tuple[S, int, int]]:
    """Before each turn of a stored game, once `meter` settled the last: its state (read with `load`), the seat to
    play and that seat's user id, until the game is over; a CountError after `limit` turns (`what`: "Generals game
    {game} did not end in {limit} moves")."""
    for _ in range(limit):
        await meter.settle()
        status, data, seats = await stored(database, game)
        state = load(data)
        seat = state.current_player()
        if status != "active" or seat is None:
            return
        yield state, seat, seats[seat]
    raise CountError(what.format(game=game, limit=limit))


def game_of(message: FakeMessage) -> int:
    match = next(m for c in message.custom_ids() if (m := GAME_ID.match(c)))
    return int(match.group(1))


def _with(components: Iterable[dict[str, Any]], prefix: str) -> list[dict[str, Any]]:
    return [c for c in components if str(c.get("custom_id", "")).startswith(prefix)]


# ----- Game of the Generals ----------------------------------------------------------------------------------------
async def generals_game(fake: FakeDiscord, database: str | Path, channel: FakeChannel, tally: Tally, rng: random.Random,
                        *, my_board: bool = False, plan: tuple[list[str], list[str]] | None = None,
                        max_moves: int = 400, meter: MeterFactory = Meter) -> None:
    """Two new people set up (grids imported) and play to the end; with `my_board` the second one's DMs are closed.
    The moves are the greedy computer player's, or each side's `plan` (the challenger's first), which must end
    the game; `meter` measures them (tests/tools/bench_per_move.py counts more than requests)."""
    a, b = fake.add_user(f"general{rng.randrange(10**6)}"), fake.add_user(f"general{rng.randrange(10**6)}")
    if my_board:
        fake.fail_dm_for(b)
    res = await fake.slash(a, channel, "generals", "challenge", options={"opponent": b}, timeout=30)
    assert res.message is not None, res.errors
    channel_board = res.message
    game = game_of(channel_board)
    accepted = await fake.click(b, channel_board, f"gg:{game}:accept", timeout=30)
    assert accepted.callback_type == Callback.UPDATE_MESSAGE, accepted.errors
    boards: dict[int, FakeMessage] = {}
    for user in (a, b):
        if my_board and user is b:
            mine = await fake.click(b, channel_board, f"gg:{game}:board", timeout=30)
            assert mine.ephemeral and mine.message is not None, mine.errors
            boards[b.id] = mine.message
        else:
            boards[user.id] = await _dm_board(fake, user)
    for user, grid in ((a, A_GRID), (b, B_GRID)):
        shown = await fake.click(user, boards[user.id], f"gg:{game}:import", timeout=30)
        assert shown.modal is not None, shown.errors
        assert ((await fake.submit_modal(user, shown, {"grid": grid}, timeout=30)).callback_type
                == Callback.UPDATE_MESSAGE)
        assert ((await fake.click(user, boards[user.id], f"gg:{game}:ready", timeout=30)).callback_type
                == Callback.UPDATE_MESSAGE)
    users = {a.id: a, b.id: b}
    plans = {a.id: list(plan[0]), b.id: list(plan[1])} if plan is not None else None
    moves = meter(fake, database, game, tally)
    async for state, seat, user_id in _turns(moves, database, game, GeneralsState.from_dict, limit=max_moves,
                                               what="Generals game {game} did not end in {limit} moves"):
        text = plans[user_id].pop(0) if plans is not None else generals_action(state, seat, "greedy", rng).text()
        await generals_move(fake, moves, users[user_id], boards[user_id], game, text)


async def _dm_board(fake: FakeDiscord, user: FakeUser) -> FakeMessage:
    def found() -> FakeMessage | None:
        return next((m for m in fake.dm_messages(user) if BOARD_TITLE in m.text()), None)

    await fake.wait_until(lambda: found() is not None, timeout=30)
    board = found()
    assert board is not None
    return board


async def generals_move(fake: FakeDiscord, meter: Meter, user: FakeUser, board: FakeMessage, game: int,
                        text: str) -> None:
    """`text` as a player makes it on their board: the piece in the menu, then the direction that picking it added
    to the same message (a pick is a step apart, answered by its one interaction response)."""
    src = text.split("-")[0]
    [menu] = _with(board.selects(), f"ggs:{game}:piece:")
    assert src in [o["value"] for o in menu["options"]], board.text()
    picked = await meter.choose(lambda: fake.select(user, board, str(menu["custom_id"]), [src], timeout=30))
    assert picked.callback_type == Callback.UPDATE_MESSAGE and picked.message is board, picked.errors
    button = next(b for b in _with(board.buttons(), f"ggm:{game}:") if str(b["custom_id"]).endswith(f":{text}"))
    done = await meter.choose(lambda: fake.click(user, board, str(button["custom_id"]), timeout=30))
    assert done.callback_type == Callback.UPDATE_MESSAGE and done.message is board, done.errors


# ----- So Long Sucker -----------------------------------------------------------------------------------------------
async def sucker_game(fake: FakeDiscord, database: str | Path, channel: FakeChannel, tally: Tally, rng: random.Random,
                      *, max_decisions: int = 2000) -> None:
    """Four new people open a table and play it to the end by the status message's menus and buttons."""
    people = [fake.add_user(f"sucker{rng.randrange(10**6)}") for _ in range(4)]
    res = await fake.slash(people[0], channel, "sucker", "new", options={"players": 4}, timeout=30)
    status_message = res.message
    assert status_message is not None, res.errors
    for user in people[1:]:
        await fake.click(user, status_message, status_message.button("Join")["custom_id"], timeout=30)
    started = await fake.click(people[0], status_message, status_message.button("Start")["custom_id"], timeout=30)
    assert started.callback_type == Callback.UPDATE_MESSAGE, started.errors
    lobby = status_message
    await fake.wait_until(lambda: _table_status(fake, lobby) is not None, timeout=30)
    status_message = _table_status(fake, lobby) or lobby
    game = game_of(status_message)
    users = {u.id: u for u in people}
    meter = Meter(fake, database, game, tally)
    async for state, seat, user_id in _turns(meter, database, game, SuckerState.from_dict, limit=max_decisions,
                                               what="So Long Sucker game {game} did not end in {limit} decisions"):
        text = sucker_action(state, seat, rng).text()
        await sucker_decision(fake, meter, users[user_id], status_message, game, state.turn, text)


def _table_status(fake: FakeDiscord, lobby: FakeMessage) -> FakeMessage | None:
    """The status message of the table `lobby` started: in the public thread opened from the lobby message (it has the
    message's id), or the lobby message itself when the table has no thread."""
    if any(c.startswith("skr:") for c in lobby.custom_ids()):
        return lobby
    thread = fake.channels.get(lobby.id)
    if thread is None:
        return None
    return next((m for m in fake.channel_messages(thread) if any(c.startswith("skr:") for c in m.custom_ids())), None)


async def sucker_decision(fake: FakeDiscord, meter: Meter, user: FakeUser, status: FakeMessage, game: int, turn: int,
                          text: str) -> None:
    """Decision `text` as the decider makes it on the status message (a button, or an option of a chip menu)."""
    prefix = f"sk:{game}:{turn}:"
    one_step = _offering(status, f"sks:{game}:{turn}:play", text)
    if prefix + text in status.custom_ids():
        res = await meter.choose(partial(fake.click, user, status, prefix + text, timeout=30))
    elif one_step is not None:  # colour and pile in one choice
        res = await meter.choose(partial(fake.select, user, status, one_step, [text], timeout=30))
    else:  # two steps: the colour on the status message, then the pile in a private reply
        [chip] = _with(status.walk_components(), f"sks:{game}:{turn}:chip")
        private = await meter.choose(partial(fake.select, user, status, str(chip["custom_id"]),
                                             [text.split(":")[1]], timeout=30))
        assert private.message is not None, private.errors
        menu = _offering(private.message, f"sks:{game}:{turn}:pile", text)
        res = await meter.choose(partial(fake.click, user, private.message, prefix + text, timeout=30)
                                 if menu is None else
                                 partial(fake.select, user, private.message, menu, [text], timeout=30))
    assert res.callback_type == Callback.UPDATE_MESSAGE, res.errors


def _offering(message: FakeMessage, prefix: str, value: str) -> str | None:
    """The custom id of the menu on `message` (its id starting with `prefix`) that offers `value`, if any."""
    return next((str(m["custom_id"]) for m in _with(message.walk_components(), prefix)
                 if value in [o["value"] for o in m.get("options", [])]), None)


# ----- Chopsticks ----------------------------------------------------------------------------------------------------
async def chopsticks_game(fake: FakeDiscord, database: str | Path, channel: FakeChannel, tally: Tally,
                          rng: random.Random, *, max_moves: int = 60) -> None:
    """Two new people play random moves on the board's buttons until the game ends (or `max_moves`)."""
    a, b = fake.add_user(f"hand{rng.randrange(10**6)}"), fake.add_user(f"hand{rng.randrange(10**6)}")
    res = await fake.slash(a, channel, "chopsticks", "challenge", options={"opponent": b}, timeout=30)
    board = res.message
    assert board is not None, res.errors
    game = game_of(board)
    assert ((await fake.click(b, board, board.button("Accept")["custom_id"], timeout=30)).callback_type
            == Callback.UPDATE_MESSAGE)
    users = {a.id: a, b.id: b}
    meter = Meter(fake, database, game, tally)
    for _ in range(max_moves):
        await meter.settle()
        found = re.search(r"▶ <@(\d+)>", board.text())
        moves = _with(board.buttons(), f"cs:{game}:mv:")
        if found is None or not moves:
            return
        played = await meter.choose(partial(fake.click, users[int(found.group(1))], board,
                                            str(rng.choice(moves)["custom_id"]), timeout=30))
        assert played.callback_type == Callback.UPDATE_MESSAGE, played.errors


# ----- running -------------------------------------------------------------------------------------------------------
async def measure(fake: FakeDiscord, database: str | Path, channel: FakeChannel, *, generals: int = 3, sucker: int = 2,
                  chopsticks: int = 3, seed: int = 1) -> list[Tally]:
    """Play the games one after another (the bot must be running) and return one tally per row of the table."""
    rng = random.Random(seed)
    tallies = new_tallies()
    for _ in range(generals):
        await generals_game(fake, database, channel, tallies[GENERALS], rng)
    await generals_game(fake, database, channel, tallies[GENERALS_MY_BOARD], rng, my_board=True)
    for _ in range(sucker):
        await sucker_game(fake, database, channel, tallies[SUCKER], rng)
    for _ in range(chopsticks):
        await chopsticks_game(fake, database, channel, tallies[CHOPSTICKS], rng)
    if fake.violations:
        raise CountError(f"{len(fake.violations)} requests broke Discord's rules: {fake.violations[:3]}")
    return list(tallies.values())


async def figures(validator: SpecValidator | None, *, generals: int = 3, sucker: int = 2, chopsticks: int = 3,
                  seed: int = 1) -> list[str]:
    """The table, from a fresh offline Discord and the bot in this process on a new database."""
    fake = FakeDiscord(validator=validator, check_responses=False)
    await fake.start()
    guild = fake.add_guild("Requests")
    channel = fake.add_channel(guild, "games")
    errors = _ErrorLines()
    logging.getLogger().addHandler(errors)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            runner = TabletopRunner(fake, Path(tmp) / "bot.sqlite3")
            await runner.start()
            try:
                tallies = await measure(fake, runner.database, channel, generals=generals, sucker=sucker,
                                        chopsticks=chopsticks, seed=seed)
            finally:
                await runner.stop_all()
    finally:
        logging.getLogger().removeHandler(errors)
        await fake.close()
    if errors.lines:  # an ERROR is a bug of the bot: the figures of a run that hit one are not worth printing
        raise CountError("the bot logged errors:\n" + "\n".join(errors.lines[:20]))
    return table(tallies)


class _ErrorLines(logging.Handler):
    """Collects the ERROR lines the bot (in this process) logs."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.name}: {record.getMessage()}")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--generals", type=int, default=3, help="Generals games on DM boards (one more on My board)")
    parser.add_argument("--sucker", type=int, default=2, help="So Long Sucker tables of four")
    parser.add_argument("--chopsticks", type=int, default=3, help="Chopsticks games")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-validate", action="store_true", help="skip the OpenAPI validation of each request")
    args = parser.parse_args()
    from tests.support.fakediscord import load_spec_validator

    validator = None if args.no_validate else load_spec_validator()
    for line in await figures(validator, generals=args.generals, sucker=args.sucker, chopsticks=args.chopsticks,
                              seed=args.seed):
        print(line)


if __name__ == "__main__":
    asyncio.run(main())
