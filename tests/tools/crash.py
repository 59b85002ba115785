"""Crash safety: the real bot process under load, killed with SIGKILL at random moments, restarted, checked.

    python -m tests.tools.crash [--kills 50] [--seed 1] [--tables 6] [--keep DIR]
                                [--processes 2] [--database postgresql] [--swiss 6,3] [--sucker 8,2]

The offline Discord (tests/support/fakediscord) runs in this process; `python -m bot` runs as a child process pointed
at it through DISCORD_API_BASE / DISCORD_GATEWAY_URL, on one SQLite file for the whole run. With `--processes 2`, two
processes run as shards 0 and 1 of 2 on the one database, each server on its own shard (the Generals players' DM
clicks all go to shard 0, also for games of shard 1's server), and each kill hits one of them at random; with
`--database postgresql` the database is on a throwaway PostgreSQL server. Tables of every
game kind the bot offers are played at once by scripted users who only look at what Discord shows them
(the board message and its components), while a killer SIGKILLs the bot: at random times, right after an
interaction reached it, right after it answered one, or while it is still starting. Each kill is followed
by a restart.

The tables are Chopsticks (challenges, vs the bot, lobbies), So Long Sucker (people only, and with a bot) and
Game of the Generals in a rotation over every setting, bot level and turn time (crash_extras.GENERALS_ROTATION),
with players whose DMs are closed (they play from **My board** until they open their DMs and press **Send my
board by DM**). One of the two servers has a turn time of a few seconds, set by its admin with `/settings set`;
there players often walk away from a table, so reminders, forfeits and called-off setups fire across the kills.
Two tournaments run along (crash_tournaments.py): a Swiss of Chopsticks (`--swiss PLAYERS,ROUNDS`, 6 players and 3
rounds unless told) and So Long Sucker tables (`--sucker PLAYERS,ROUNDS`, 8 and 2), made through the service at the
start; the Swiss is started then, the tables start by their start time 3 s later (a bot process starts them, amid
the kills); their players play each round's games once Discord shows them, and the bot processes make the next
rounds.

An action is *acknowledged* when the answer the fake Discord recorded is not a refusal: an update of the clicked
message (type 7), a public reply (type 4), and also a private or deferred answer that says it was done (an
ephemeral "You moved ...", a followup "Sent: ...": refusals are ephemeral too, so these are read by their words;
see crash_promises.py). Each acknowledged interaction promises something about the database, checked at the end:

- a move click (Chopsticks `cs:G:mv:P:M`, So Long Sucker `sk:G:T:A`, a So Long Sucker one-step chip menu
  `sks:G:T:playN` with value A, the pile step after a chip select, a Generals piece or direction) by user U: a row
  of G's move log with user U and action text A, played when the game's turn token was P / T. Rows are matched
  one to one;
- `/generals move`, `/sucker give`, `/sucker kill`, a formation, a setup form (swap, import), Ready, Resign, a
  draw agreed: a row with U and that text (the deployed squares are drawn by the bot: only their `setup:` start);
- Offer draw: the offer was in the database when the answer came (or a move had already followed it); a Chopsticks
  board answered as drawn (the answer shows the latest position: the other player may have just accepted): the
  game ended by agreement;
- Send my board by DM: the player's board is delivered by DM; a deal and its Accept: the deal and the mark; Save
  formation: the saved formation; `/settings set`: the server's settings as its last change left them;
- a new challenge or game vs the bot: the game exists with U in seat 0 and the chosen settings, bot level and turn
  time; Accept: the challenge is no longer pending; a lobby, Join, Add bot, Start: the lobby exists, holds U,
  holds a bot, has started its game.

Then, for every game in the file (crash_checks.py): the move log is plies 1..n, replaying it from the initial
snapshot gives exactly the stored snapshot while invariants computed outside the engine hold after every move
(chips conserved, piece counts, fingers in range), and the status agrees with the replayed outcome. Each finished
game is rated exactly when it should be, and every ladder equals openskill run again over the rated games. Each
tournament's rounds are numbered 1..n once each, every pairing's game exists, no game of it is outside a pairing,
each ended game's result is in its pairing, its standings equal a recomputation from the games' outcomes, and a
round whose games all ended was followed by the next (or the tournament finished); a tournament whose start time
passed has started; a round's pairings message and each of its games' boards are in the server once. Each
turn timer acted once per turn and was announced, and each reminder seen firing was sent (crash_timers.py). With no
more kills, no deadline may stay overdue, and every game that was shown to its players and is not over must
continue: the board shows a decision to a player, who clicks one of its components; the click must be acknowledged
and stored.

Exit status 0 only with 0 lost acknowledged actions, 0 corrupt games, 0 games that could not continue, no timer
problem, ladders equal to their recomputation, no tournament problem, and no ERROR line in the bot's logs.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import faulthandler
import logging
import random
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bot.service.model import STALE_TEXT
from games.text import english
from tests.support.fakediscord import FakeDiscord
from tests.support.fakediscord.routes import CALLBACK_ROUTE
from tests.support.postgres import create_database, running_server
from tests.tools import crash_extras as extras
from tests.tools.bot_process import BotProcess
from tests.tools.crash_checks import (
    GameCheck,
    TournamentCheck,
    finishing_problems,
    rating_problems,
    read_games,
    read_results,
    tournament_problems,
)
from tests.tools.crash_load import Load, Table, changed, game_id_of, wait_for
from tests.tools.crash_promises import (
    Promise,
    acknowledged,
    lost_promises,
    promises_kept,
    read_facts,
)
from tests.tools.crash_timers import TimerFigures, TimerWatch, overdue_timers, owed_announcements, timer_checks
from tests.tools.crash_tournaments import (
    TournamentSizes,
    boards_posted_twice,
    open_tournaments,
    pairings_posted_twice,
    play_tournaments,
    tournament_of_games,
)
from tests.tools.peek import Target, close_peeks, peek_at

TIMED_TURN = 4  # seconds per turn on the timed server: its reminder comes after 3 s
OVERDUE_GRACE = 3.0  # a deadline may pass this long before its timer must have fired
KILL_TIMEOUT = 60.0
# A killed process's owed announcements are free once its heartbeat runs out (bot/service/heartbeat.py, 10 s), and the
# timer loop of a live process looks for them every 5 s: then they are sent.
OWED_WAIT = 30.0  # a SIGKILL and the socket closing take well under a second
TOURNAMENT_WAIT = 10.0  # for the round after a game's result (bot/service/tournaments.py writes them one after another)
HANG_DUMP = 900.0  # a run still going after this long prints every thread's stack (a hang explains itself)


# ----- the killer -------------------------------------------------------------------------------------------
async def killer(bots: list[BotProcess], fake: FakeDiscord, kills: int, rng: random.Random,
                 on_kill: Callable[[str], None]) -> None:
    """Kill a bot process (one of them at random) `kills` times at random moments, restarting it after each kill."""
    for _ in range(kills):
        bot = rng.choice(bots)
        mode = rng.random()
        if mode < 0.1:  # while it starts: migrations, command sync, resuming bot turns, connecting
            await asyncio.sleep(rng.uniform(0.0, 1.2))
            label = "starting"
        else:
            await bot.ready()
            if mode < 0.4:  # just after an interaction reached it
                await wait_for(changed(lambda: len(fake.interactions)), 5)
                await asyncio.sleep(rng.uniform(0.0, 0.03))
                label = "after dispatch"
            elif mode < 0.7:  # just after it answered one (set_message, redraws, bot turns follow)
                await wait_for(changed(lambda: len(fake.calls("POST", CALLBACK_ROUTE))), 5)
                await asyncio.sleep(rng.uniform(0.0, 0.02))
                label = "after callback"
            else:
                await asyncio.sleep(rng.uniform(0.05, 2.0))
                label = "random"
        try:
            await asyncio.wait_for(bot.kill(), KILL_TIMEOUT)
        except TimeoutError:
            raise RuntimeError(f"kill {bot.kills + 1} did not finish within {KILL_TIMEOUT} s") from None
        on_kill(label)
        await bot.spawn()
    await asyncio.gather(*(bot.ready() for bot in bots))


# ----- continuing every game -----------------------------------------------------------------------------------
async def continue_all(load: Load, fake: FakeDiscord, database: Target) -> tuple[list[str], int, int]:
    """Every game that was shown and is not over makes one more decision; returns failures, continued, orphans."""
    games, _lobbies, _ = read_games(database)
    seated = _seated_users(database)
    by_game = {t.game_id: t for t in load.tables if t.game_id is not None and t.board is not None}
    by_message = {t.board.id: t for t in load.tables if t.board is not None}
    failures: list[str] = []
    continued = orphans = 0
    for gid, game in games.items():
        if game.status not in ("active", "pending"):
            continue
        table = by_game.get(gid)
        if table is None and game.message_id is not None:
            table = by_message.get(game.message_id)  # a lobby whose start was not acknowledged
        if table is None:
            # A message shows the game, but its player stopped waiting for it (an answer after the timeout).
            shown = [m for m in fake.messages.values() if game_id_of(m) == gid and not m.ephemeral and not m.deleted
                     and fake.channels[m.channel_id].guild_id is not None]
            if shown:
                users = [fake.users[u] for u in seated.get(gid, []) if u in fake.users]
                table = Table(game.kind, users, fake.channels[shown[-1].channel_id], board=shown[-1])
        if table is None:
            # Never shown to anyone: its creation was not acknowledged, so no player knows of it. A challenge
            # expires on its own; an active game was posted by the restarted bot (then it was shown).
            orphans += 1
            continue
        table.game_id = gid
        problem = await _continue_one(load, table, database)
        if problem is not None and _status(database, gid) not in ("active", "pending"):
            problem = None  # it ended meanwhile by itself: its turn timer fired (a short turn time) or a bot won
        if problem is None:
            continued += 1
        else:
            failures.append(f"{game.kind} #{gid}: {problem}")
    return failures, continued, orphans


async def _continue_one(load: Load, table: Table, database: Target) -> str | None:
    """A player the messages ask clicks one of their decisions: it is acknowledged and stored, and the messages
    then show the next decision (or the result)."""
    load.look(table)
    board = table.board
    assert board is not None
    if any(c.endswith(":accept") for c in board.custom_ids()) and (
            len(table.users) < 2 or not await load.accept(table, final=True)):
        return f"the challenge could not be accepted: {board.text()[-200:]!r}"

    async def ready(timeout: float = 30) -> bool:
        """Whether the messages show a decision (or the end) within `timeout`; a player whose DMs are closed looks
        at My board whenever the channel changed."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            load.look(table)
            _to_the_stored_board(load, table, database)
            if table.kind == "generals":
                await extras.refresh_my_boards(load, table, final=True)
            if load.available(table) or load.over(table):
                return True
            await asyncio.sleep(0.05)
        return False

    if not await ready():  # bots may still be thinking after the last restart
        return f"no player is shown a decision: {_shown(table)}"
    if load.over(table):
        return None
    for attempt in range(3):
        before = _move_count(database, table.game_id)
        looked_at = _shown(table)
        if await load.decide(table, final=True):
            break
        # On the server with a turn time of a few seconds the timer may act between the look and the click, and on a
        # busy machine the player may have looked at a board a moment before its redraw (a restarted process redraws
        # the boards a killed one left behind, which took 8 s once under load): the click is then refused as made on
        # an older board (the game changed; a typed move: not their turn; a setup step: the setup is over), and the
        # player looks again once the board changed. Any other refusal is a failure.
        moved_on = _move_count(database, table.game_id) != before or _refused_as_stale(load)
        if attempt == 2 or not moved_on:
            return f"the player's decision was refused or not answered ({_last_answer(load)}): {_shown(table)}"
        await _redrawn(table, looked_at)
        if not await ready():
            return f"the player's decision was refused or not answered ({_last_answer(load)}): {_shown(table)}"
        if load.over(table):
            return None
    if _move_count(database, table.game_id) <= before:
        return "an acknowledged decision was not stored"
    if not await ready():
        return f"after the decision no player is shown the next one: {_shown(table)}"
    return None


async def _redrawn(table: Table, looked_at: str, timeout: float = 30) -> None:
    """Wait until the board the player looked at shows something else (its redraw came), `timeout` at most: a
    decision refused on a private board may leave the channel's as it was."""
    deadline = time.monotonic() + timeout
    while _shown(table) == looked_at and time.monotonic() < deadline:
        await asyncio.sleep(0.05)


# What the rules answer a decision its position no longer asks for: a typed move (`/generals move`) and a Generals
# setup step (a formation, Ready) carry no turn token, so one made from what an older board showed is told this
# (a move out of turn; a setup step once play began) rather than to look again.
NOT_YOUR_TURN = "It is not your turn"
SETUP_OVER = "The setup phase is over."


def _refused_as_stale(load: Load) -> bool:
    """Whether the last interaction was refused as made on an older board: the bot asks to look again, or, for a
    decision without a turn token, says it is not the player's turn or the setup is over."""
    res = load.sent[-1].result if load.sent else None
    said = res.message.text() if res is not None and res.message is not None else ""
    return english(STALE_TEXT) in said or said.startswith((NOT_YOUR_TURN, SETUP_OVER))


def _last_answer(load: Load) -> str:
    """What the last interaction sent was answered (a refusal's words), to explain a failure."""
    if not load.sent:
        return "nothing sent"
    res = load.sent[-1].result
    if not res.answered:
        return f"{res.label}: not answered"
    said = res.message.text()[:200] if res.message is not None else ""
    return f"{res.label}: callback {res.callback_type} {said!r} {res.errors}"


def _shown(table: Table) -> str:
    assert table.board is not None
    return repr(table.board.text()[-300:])


def _seated_users(target: Target) -> dict[int, list[int]]:
    seated: dict[int, list[int]] = {}
    for game_id, user_id in peek_at(target).rows(
            "SELECT game_id, user_id FROM game_players WHERE user_id IS NOT NULL ORDER BY seat"):
        seated.setdefault(int(game_id), []).append(int(user_id))
    return seated


def _status(target: Target, game_id: int) -> str:
    return str(peek_at(target).rows("SELECT status FROM games WHERE id = ?", (game_id,))[0][0])


def _to_the_stored_board(load: Load, table: Table, target: Target) -> None:
    """Look at the board the game knows (where its turn notices link), when the newest message showing the game is
    another: a copy a killed process posted and never stored, which nothing redraws (a person follows the link)."""
    rows = peek_at(target).rows("SELECT message_id FROM games WHERE id = ?", (table.game_id,))
    stored = load.fake.messages.get(int(rows[0][0])) if rows and rows[0][0] is not None else None
    if stored is not None and not stored.deleted:
        table.board = stored


def _move_count(target: Target, game_id: int | None) -> int:
    return int(peek_at(target).rows("SELECT move_count FROM games WHERE id = ?", (game_id,))[0][0])


# ----- the run ----------------------------------------------------------------------------------------------
@dataclass
class Figures:
    kills: int = 0
    restarts: int = 0
    interactions: int = 0
    refused: int = 0
    unanswered: int = 0
    steps: int = 0
    acknowledged: int = 0
    acknowledged_moves: int = 0
    acknowledged_private: int = 0  # answered only to the user, or after "thinking..."
    promised: Counter[str] = field(default_factory=Counter)  # acknowledged actions by what they promise
    lost: list[str] = field(default_factory=list)
    corrupt: list[str] = field(default_factory=list)
    stuck: list[str] = field(default_factory=list)
    games: Counter[str] = field(default_factory=Counter)
    moves_stored: int = 0
    continued: int = 0
    orphans: int = 0
    stalls: int = 0
    stalled: list[str] = field(default_factory=list)
    kill_moments: Counter[str] = field(default_factory=Counter)
    killed: Counter[str] = field(default_factory=Counter)  # kills by process
    bot_errors: list[str] = field(default_factory=list)
    kinds: str = ""
    integrity: str = ""
    seconds: float = 0.0
    timers: TimerFigures = field(default_factory=TimerFigures)
    overdue: list[str] = field(default_factory=list)
    rated_games: int = 0
    ratings: list[str] = field(default_factory=list)
    finished: Counter[str] = field(default_factory=Counter)  # how games ended: reason -> count
    generals: str = ""  # the Generals settings, bot levels and turn times the games were created with
    tournaments: list[TournamentCheck] = field(default_factory=list)

    @property
    def tournament_problems(self) -> list[str]:
        return [f"tournament #{t.id}: {p}" for t in self.tournaments for p in t.problems]

    @property
    def ok(self) -> bool:
        return (not self.lost and not self.corrupt and not self.stuck and self.integrity.startswith("ok")
                and not self.bot_errors and not self.timers.problems and not self.overdue and not self.ratings
                and not self.tournament_problems)

    def report(self) -> str:
        moments = ", ".join(f"{k}: {v}" for k, v in sorted(self.kill_moments.items()))
        lines = [
            f"kills                        {self.kills}  ({moments}; "
            f"{', '.join(f'{k}: {v}' for k, v in sorted(self.killed.items()))})",
            f"restarts                     {self.restarts}",
            f"interactions sent            {self.interactions}  ({self.unanswered} unanswered: the bot was killed; "
            f"{self.refused} actions refused; {self.steps} menus answered)",
            f"acknowledged actions         {self.acknowledged}  ({self.acknowledged_moves} moves, "
            f"{self.acknowledged_private} answered privately or deferred; "
            f"{', '.join(f'{k}: {v}' for k, v in sorted(self.promised.items()) if k != 'move')})",
            f"lost acknowledged actions    {len(self.lost)}",
            f"corrupt games                {len(self.corrupt)}  (replayed with chip, piece and finger invariants)",
            f"games that could not continue {len(self.stuck)}  ({self.continued} continued, "
            f"{self.orphans} never shown: creation not acknowledged)",
            f"games                        {sum(self.games.values())}  "
            f"({', '.join(f'{k}: {v}' for k, v in sorted(self.games.items()))}); {self.moves_stored} moves stored",
            f"games ended by               {', '.join(f'{k}: {v}' for k, v in sorted(self.finished.items()))}",
            f"Generals tables played with  {self.generals}",
            f"turn timers fired            {self.timers.forfeits} forfeits, {self.timers.defaults} default "
            f"decisions, {self.timers.reminders} reminders ({self.timers.reminders_moot} moot: killed as they "
            f"fired, then the game moved on), {self.timers.called_off} setups called off; "
            f"{len(self.timers.problems)} not once or not announced, {len(self.overdue)} left overdue",
            f"ratings                      {self.rated_games} rated games; {len(self.ratings)} ladder rows differ "
            "from openskill over the finished games",
            f"tournaments                  {'; '.join(t.summary() for t in self.tournaments) or 'none'}; "
            f"{len(self.tournament_problems)} problems",
            f"tables stalled during load   {self.stalls}",
            f"database integrity           {self.integrity}",
            f"bot ERROR log lines          {len(self.bot_errors)}",
            f"game kinds played            {self.kinds}",
            f"time taken                   {self.seconds:.1f} s",
        ]
        for title, items in (("LOST", self.lost), ("CORRUPT", self.corrupt), ("CANNOT CONTINUE", self.stuck),
                             ("TIMER", self.timers.problems), ("OVERDUE", self.overdue), ("RATING", self.ratings),
                             ("TOURNAMENT", self.tournament_problems),
                             ("BOT ERROR", self.bot_errors), ("stalled (not a failure)", self.stalled)):
            lines += [f"  {title}: {item}" for item in items[:15]]
        return "\n".join(lines)


async def run(kills: int, seed: int, tables: int = 6, workdir: Path | None = None,
              answer_timeout: float = 10.0, min_seconds: float = 0.0, processes: int = 1,
              database: str = "sqlite", tournaments: TournamentSizes | None = None) -> Figures:
    """The whole experiment; returns its figures. The load goes on for at least `min_seconds` (a short run with
    few kills still sees its turn timers fire). With several `processes`, each is one shard of that many, all on the
    one database (a SQLite file, or a throwaway PostgreSQL server's). `tournaments`: how big the two tournaments
    are (None: a Swiss of 6 players and 3 rounds, So Long Sucker tables of 8 players and 2 rounds)."""
    started = time.monotonic()
    rng = random.Random(seed)
    figures = Figures()
    with contextlib.ExitStack() as stack:
        if workdir is None:
            workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="crash-")))
        workdir.mkdir(parents=True, exist_ok=True)
        target: Target = workdir / "bot.sqlite3"
        if database == "postgresql":
            target = await create_database(stack.enter_context(running_server()), "crash")
        fake = FakeDiscord(validator=None, check_responses=False)
        await fake.start()
        bots = [BotProcess(fake, workdir, target=target, shard=(n, processes) if processes > 1 else None,
                           name=f"shard{n}" if processes > 1 else "bot") for n in range(processes)]
        watch = TimerWatch(target)
        try:
            # With shards, each server on its own shard: the Generals players' DM clicks (always shard 0's) act on
            # games of the other shard's server too.
            guild = fake.add_guild("Crash Test", shard=0, shard_count=processes)
            # A second server whose admin sets a turn time of a few seconds: its reminders and forfeits fire during
            # the run, across the kills.
            timed = fake.add_guild("Crash Timers", shard=1 % processes, shard_count=processes)
            channels = [fake.add_channel(guild, "games-0"), fake.add_channel(guild, "games-1"),
                        fake.add_channel(timed, "timed-0")]
            await asyncio.gather(*(bot.spawn() for bot in bots))  # started together on an empty database
            await asyncio.gather(*(bot.ready() for bot in bots))
            await wait_for(lambda: bool(fake.registered_commands()), 30)
            names = {c["name"] for c in fake.registered_commands()}
            kinds = tuple(k for k in ("chopsticks", "generals", "sucker") if k in names)
            figures.kinds = ", ".join(kinds)
            load = Load(fake, random.Random(rng.random()), kinds, answer_timeout=answer_timeout,
                        database=target, timed_guild=timed.id)
            await extras.change_settings(load, fake.add_user("admin"), channels[2], TIMED_TURN, True)
            # The Swiss on the first server (shard 0), the tables on the timed one (shard 1 with two processes): each
            # process makes rounds, and the short turn time there makes absences, forfeits and withdrawals.
            await open_tournaments(fake, target, tournaments or TournamentSizes(), channels[0], channels[2])
            watch.start()
            drivers = [asyncio.create_task(play_tournaments(load, fake, target))] + [
                asyncio.create_task(load.driver(
                    slot, [fake.add_user(f"p{slot}-{i}") for i in range(3)], channels[slot % len(channels)]))
                for slot in range(tables)
            ]
            await asyncio.sleep(1.0)  # let the tables open before the first kill
            await killer(bots, fake, kills, rng, lambda label: figures.kill_moments.update([label]))
            await asyncio.sleep(max(0.0, started + min_seconds - time.monotonic()))
            load.running = False
            await asyncio.gather(*drivers, return_exceptions=False)
            await asyncio.sleep(1.0)  # bot turns and redraws the last start-up scheduled
            figures.kills = sum(bot.kills for bot in bots)
            figures.killed = Counter({bot.name: bot.kills for bot in bots})
            figures.restarts = sum(bot.starts - 1 for bot in bots)

            games, lobbies, figures.integrity = read_games(target)
            figures.corrupt = [f"{g.kind} #{gid}: {p}" for gid, g in games.items() for p in g.problems]
            promises = promises_kept(load.sent)
            figures.lost = lost_promises(promises, games, lobbies, read_facts(target))

            figures.stuck, figures.continued, figures.orphans = await continue_all(load, fake, target)
            # Every deadline that passed fires (a timer due while the bot was down fires once it is back).
            await wait_for(lambda: not overdue_timers(target, OVERDUE_GRACE), TIMED_TURN + 2 * OVERDUE_GRACE)
            figures.overdue = overdue_timers(target, OVERDUE_GRACE)
            # What a killed process owed is sent by a live one once the dead one's heartbeat has run out.
            await wait_for(lambda: not owed_announcements(target), OWED_WAIT)
            await asyncio.sleep(0.5)
            await watch.stop()
            watch.look()
            games, lobbies, integrity = read_games(target)  # the continuations replay too
            figures.corrupt += [f"{g.kind} #{gid} (after continuing): {p}" for gid, g in games.items()
                                for p in g.problems]
            if integrity != "ok":
                figures.integrity = integrity
            promises = promises_kept(load.sent)
            figures.lost = lost_promises(promises, games, lobbies, read_facts(target))
            killed_at = sorted(t for bot in bots for t in bot.killed_at)
            figures.timers = timer_checks(games, fake.messages.values(), watch, killed_at)
            results = read_results(target)  # the bots still run: the games and their counts in one read
            figures.ratings, figures.rated_games = rating_problems(results)
            figures.ratings += finishing_problems(results)  # counted in the same write as the ratings
            figures.finished = Counter(g.ending or "?" for g in games.values() if g.status == "finished")
            figures.finished.update(g.status for g in games.values() if g.status in ("expired", "declined"))
            # A game's result and the next round are written one after the other: a moment apart, not together.
            await wait_for(lambda: not any(t.problems for t in tournament_problems(target)), TOURNAMENT_WAIT)
            figures.tournaments = tournament_problems(target)
            twice, boards = pairings_posted_twice(fake), boards_posted_twice(fake, tournament_of_games(target))
            for check in figures.tournaments:
                check.problems += twice.get(check.id, []) + boards.get(check.id, [])
            figures.generals = _generals_played([g for g in games.values() if g.kind == "generals"])
            figures.interactions = len(load.sent)
            figures.unanswered = sum(1 for s in load.sent if not s.result.answered)
            figures.refused = sum(1 for s in load.sent
                                  if s.promise is not None and s.result.answered and s.kept() is None)
            figures.steps = sum(1 for s in load.sent if s.promise is None and s.result.answered)
            figures.acknowledged = len(promises)
            figures.acknowledged_moves = sum(1 for p in promises if p.what == "move")
            figures.promised = Counter(_promise_kind(p) for p in promises)
            figures.acknowledged_private = sum(1 for s in load.sent
                                               if s.kept() is not None and not acknowledged(s.result))
            figures.games = Counter(g.kind for g in games.values())
            figures.moves_stored = sum(len(g.rows) for g in games.values())
            figures.stalls, figures.stalled = load.stalls, load.stalled
        finally:
            await watch.stop()
            await asyncio.gather(*(bot.stop() for bot in bots))
            await fake.close()
            close_peeks()  # before the PostgreSQL server stops
        figures.bot_errors = [line for bot in bots for line in bot.error_lines()]
    figures.seconds = time.monotonic() - started
    return figures


def _promise_kind(promise: Promise) -> str:
    """A promise by what it is about; moves without a turn token by their kind (a free action, a setup, a typed
    `/generals move`)."""
    action = promise.action or ""
    if promise.what == "game" and dict(promise.expect).get("ending") == "draw-agreed":
        return "draw-agreed"  # a Chopsticks board answered as drawn by agreement
    if promise.what != "move":
        return promise.what
    if action in ("resign", "draw-agreed", "ready"):
        return action
    if promise.token is not None:
        return "move"
    return action.split(":", 1)[0] if ":" in action else "typed move"


def _generals_played(games: list[GameCheck]) -> str:
    """Which settings, bot levels and turn times the Generals games were created with (the rotation's coverage)."""
    settings = sorted({str(v).split("=")[0] for g in games for v in g.options.get("variants", [])}
                      | ({"standard army"} if any("small-army" not in g.options.get("variants", []) for g in games)
                         else set()))
    levels = sorted({s.bot for g in games for s in g.seats if s.bot is not None})
    people = sum(1 for g in games if all(s.bot is None for s in g.seats))
    times = sorted({g.turn_timeout for g in games})
    return (f"{', '.join(settings)}; bots {', '.join(levels) or 'none'} and {people} games between people; "
            f"turn times {', '.join(f'{t:g} s' for t in times)}")



def _sizes(text: str) -> tuple[int, int]:
    players, rounds = (int(n) for n in text.split(","))
    return players, rounds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.tools.crash", description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=50, help="SIGKILLs to deliver (default 50)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the load and of the kill moments")
    parser.add_argument("--tables", type=int, default=6, help="tables played at once (default 6)")
    parser.add_argument("--keep", type=Path, default=None, help="keep the database and bot logs in this directory")
    parser.add_argument("--processes", type=int, default=1,
                        help="bot processes, each one shard of that many, on the one database (default 1: unsharded)")
    parser.add_argument("--database", choices=("sqlite", "postgresql"), default="sqlite",
                        help="a SQLite file (default) or a database on a throwaway PostgreSQL server")
    parser.add_argument("--swiss", type=_sizes, default=(6, 3), metavar="PLAYERS,ROUNDS",
                        help="the Swiss of Chopsticks (default 6,3; 0,0: none)")
    parser.add_argument("--sucker", type=_sizes, default=(8, 2), metavar="PLAYERS,ROUNDS",
                        help="the So Long Sucker tables tournament (default 8,2; 0,0: none)")
    args = parser.parse_args(argv)
    # The fake logs every request a killed bot left half-sent; that is the point here, not news.
    logging.getLogger("aiohttp.server").setLevel(logging.CRITICAL)
    faulthandler.dump_traceback_later(HANG_DUMP, repeat=True)
    figures = asyncio.run(run(args.kills, args.seed, args.tables, args.keep, processes=args.processes,
                              database=args.database, tournaments=TournamentSizes(*args.swiss, *args.sucker)))
    print(f"{args.processes} bot process{'es (shards)' if args.processes > 1 else ''} on "
          f"{'a PostgreSQL database' if args.database == 'postgresql' else 'a SQLite file'}")
    print(figures.report())
    return 0 if figures.ok else 1


if __name__ == "__main__":
    sys.exit(main())
