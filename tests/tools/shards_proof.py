"""Several bot processes on one database do every side effect once (issue 17, point 5).

    python -m tests.tools.shards_proof [--database both|postgresql|sqlite] [--games 500] [--kills 3] [--keep DIR]

Two `python -m bot` processes, shards 0 and 1 of 2 (SHARD_COUNT=2, SHARD_IDS=0 / 1), run on one database: a database
of a throwaway PostgreSQL server, or one SQLite file on this host. The offline Discord (tests/support/fakediscord)
routes each server's events to its shard, and DMs and their interactions to shard 0, as Discord does. Three parts:

1. **Started together** on an empty database: each migration is applied once (each process logs the ones it applied),
   the commands are synced once, both connect, and neither logs an ERROR.
2. **A bot thinking is killed**: Game of the Generals against the strong computer player in a server of shard 1, the
   person playing from their DMs (shard 0's) and from the channel (shard 1's) in turn. Right after a move of theirs,
   while a process holds the game's bot-turn lease and the bot's reply is not yet stored, that process is SIGKILLed
   and left dead until the other process, finding the lease expired, has made the bot's move; then it is restarted.
   Every game keeps one move per ply and replays from its move log.
3. **Turn times run out in many games at once**: `--games` Chopsticks challenges, accepted and then left alone, in
   servers of both shards whose admins set a turn time of a few seconds. Every game ends by forfeit, and each
   reminder and each ending appears exactly once in its channel, though both processes fire timers.

The crash test's mixed load of all three games under kills of either process is
`python -m tests.tools.crash --processes 2 [--database postgresql]`. Exit status 0 only when every check holds.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import re
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from storage.connection import open_database
from storage.database import Database
from storage.sql import select
from tests.support.codes import Callback
from tests.support.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from tests.support.fakediscord.payloads import PERM_MANAGE_GUILD
from tests.support.generals import BOARD_TITLE, to_move
from tests.support.postgres import PostgresServer, create_database, running_server
from tests.tools.bot_process import BotProcess
from tests.tools.crash_checks import read_games
from tests.tools.crash_load import wait_for
from tests.tools.peek import close_peeks

SHARDS = 2
TURN_TIME = 5  # seconds, the shortest a server's admin may set; the reminder comes a little before
_REMINDER = re.compile(r"it is your move in [^#]*#(\d+)\b")
_ENDING = re.compile(r"#(\d+) is over")
_TITLE = re.compile(r"#(\d+)")


@dataclass
class Part:
    """One part's verdict: what it measured, and each check that failed."""

    name: str
    figures: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def check(self, holds: bool, problem: str) -> None:
        if not holds:
            self.problems.append(problem)

    def report(self) -> str:
        verdict = "ok" if not self.problems else f"{len(self.problems)} PROBLEMS"
        lines = [f"  {self.name}: {verdict}"] + [f"    {f}" for f in self.figures]
        return "\n".join(lines + [f"    PROBLEM: {p}" for p in self.problems[:20]])


# ----- reading the database behind the bots' backs ------------------------------------------------------------------
async def rows(db: Database, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    return await db.query(select(sql, params))


async def move_count(db: Database, game_id: int) -> int:
    [(count,)] = await rows(db, "SELECT move_count FROM games WHERE id = ?", (game_id,))
    return int(count)


def replay_problems(target: str | Path) -> tuple[int, int, list[str]]:
    """Every game checked as the crash test checks it (tests/tools/crash_checks.py): its move log is plies 1..n and
    replays to its snapshot with chips, pieces and fingers accounted for. Returns games, moves and what is wrong."""
    games, _lobbies, _integrity = read_games(target)
    problems = [f"{game.kind} #{game_id}: {problem}" for game_id, game in games.items() for problem in game.problems]
    return len(games), sum(len(game.rows) for game in games.values()), problems


# ----- the two processes ------------------------------------------------------------------------------------------
@contextlib.contextmanager
def database_for(kind: str, workdir: Path) -> Iterator[tuple[PostgresServer | None, Path]]:
    """A throwaway PostgreSQL server (kind "postgresql"), or none (SQLite: the file is made in `workdir`)."""
    if kind == "postgresql":
        with running_server() as server:
            yield server, workdir
    else:
        yield None, workdir


async def new_target(server: PostgresServer | None, workdir: Path, name: str) -> str | Path:
    """An empty database for one part: a new PostgreSQL database, or a new SQLite file's path."""
    if server is not None:
        return await create_database(server, name)
    return workdir / f"{name}.sqlite3"


def processes(fake: FakeDiscord, workdir: Path, target: str | Path, part: str) -> list[BotProcess]:
    return [BotProcess(fake, workdir, target=target, shard=(shard, SHARDS), name=f"{part}-shard{shard}")
            for shard in range(SHARDS)]


async def start(procs: list[BotProcess]) -> None:
    """Spawn the processes at the same moment and wait until each is connected."""
    await asyncio.gather(*(p.spawn() for p in procs))
    await asyncio.gather(*(p.ready() for p in procs))


async def wait_until(predicate: Any, timeout: float, interval: float = 0.02) -> bool:
    deadline = time.monotonic() + timeout
    while not await predicate():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(interval)
    return True


# ----- part 1 -------------------------------------------------------------------------------------------------------
async def started_together(server: PostgresServer | None, workdir: Path) -> Part:
    part = Part("two processes started together on an empty database")
    fake = FakeDiscord(validator=None, check_responses=False)
    await fake.start()
    procs = processes(fake, workdir, await new_target(server, workdir, "together"), "together")
    try:
        await start(procs)
        registered = await wait_for(lambda: bool(fake.registered_commands()), 30)
        await asyncio.sleep(2.0)  # time for a second sync, were there one
        applied = [n for p in procs for n in p.migrations_applied()]
        syncs = [r for r in fake.requests if r.method == "PUT" and (r.route or "").endswith("/commands")]
        twice = sorted(n for n, times in Counter(applied).items() if times > 1)
        part.figures += [f"migrations applied: {len(applied)} ({len(set(applied))} distinct), "
                         f"by shard 0: {len(procs[0].migrations_applied())}, by shard 1: "
                         f"{len(procs[1].migrations_applied())}",
                         f"command syncs: {len(syncs)}"]
        part.check(bool(applied), "no process says it applied a migration")
        part.check(not twice, f"migrations applied more than once: {twice}")
        part.check(registered and len(syncs) == 1, f"{len(syncs)} command syncs, not 1")
    finally:
        await _stop(procs, fake, part)
    return part


async def _stop(procs: list[BotProcess], fake: FakeDiscord, part: Part) -> None:
    await asyncio.gather(*(p.stop() for p in procs))
    await fake.close()
    errors = [line for p in procs for line in p.error_lines()]
    part.figures.append(f"bot ERROR log lines: {len(errors)}")
    part.problems += [f"bot logged: {line}" for line in errors[:10]]


# ----- part 2 -------------------------------------------------------------------------------------------------------
@dataclass
class GeneralsVsBot:
    """A person playing Game of the Generals against the strong bot in a server of shard 1, by `/generals move`
    picked from autocomplete, in their DMs (shard 0) and in the channel (shard 1) in turn."""

    fake: FakeDiscord
    channel: FakeChannel
    person: FakeUser
    board: FakeMessage | None = None
    game_id: int = 0
    moves_made: int = 0

    async def new_game(self) -> None:
        res = await self.fake.slash(self.person, self.channel, "generals", "challenge", options={"level": "strong"})
        assert res.message is not None, res.errors
        self.board = res.message
        found = _TITLE.search(self.board.text())
        assert found is not None, self.board.text()
        self.game_id = int(found.group(1))
        dm_board = await self._dm_board()
        chose = await self.fake.select(self.person, dm_board, f"ggs:{self.game_id}:formation", ["f:balanced"])
        assert chose.callback_type == Callback.UPDATE_MESSAGE, chose.errors
        ready = await self.fake.click(self.person, dm_board, f"gg:{self.game_id}:ready")
        assert ready.callback_type == Callback.UPDATE_MESSAGE, ready.errors

    async def _dm_board(self) -> FakeMessage:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            boards = [m for m in self.fake.dm_messages(self.person)
                      if BOARD_TITLE in m.text() and f"#{self.game_id}" in m.text()]
            if boards:
                return boards[-1]
            await asyncio.sleep(0.05)
        raise TimeoutError(f"no DM board for Generals #{self.game_id}")

    def my_turn(self) -> bool:
        return self.board is not None and to_move(self.board) == self.person.id

    async def over(self, db: Database) -> bool:
        [(status,)] = await rows(db, "SELECT status FROM games WHERE id = ?", (self.game_id,))
        return str(status) != "active"

    async def move(self) -> bool:
        """One move from the DMs or the channel in turn; whether it was applied."""
        where = self.fake.dm_channel(self.person) if self.moves_made % 2 == 0 else self.channel
        choices = await self.fake.autocomplete(self.person, where, "generals", "move", {"move": ""}, focused="move")
        if not choices:
            return False
        res = await self.fake.slash(self.person, where, "generals", "move", options={"move": choices[0]["value"]},
                                    wait=False)
        await res.wait(30)
        if res.callback_type == Callback.DEFERRED_CHANNEL_MESSAGE:
            await res.wait_for_followups(1, 30)
        self.moves_made += 1
        return res.message is not None and "You " in res.message.text()


async def bot_killed_while_thinking(server: PostgresServer | None, workdir: Path, kills: int) -> Part:
    part = Part("a process killed while its bot thinks: the other finishes the turn")
    fake = FakeDiscord(validator=None, check_responses=False)
    await fake.start()
    guild = fake.add_guild("Shard one", shard=1, shard_count=SHARDS)
    target = await new_target(server, workdir, "thinking")
    procs = processes(fake, workdir, target, "thinking")
    game = GeneralsVsBot(fake, fake.add_channel(guild, "generals"), fake.add_user("player"))
    db: Database | None = None
    takeovers: list[float] = []
    missed = attempts = 0
    try:
        await start(procs)
        db = await open_database(target)
        await game.new_game()
        while len(takeovers) < kills and attempts < 40:
            if not await wait_until(lambda: _my_turn_or_over(game, db), 60):
                part.problems.append(f"Generals #{game.game_id}: the person is never asked to move: "
                                     f"{game.board.text()[-200:] if game.board else ''!r}")
                break
            if await game.over(db):
                await game.new_game()
                continue
            before = await move_count(db, game.game_id)
            attempts += 1
            if not await game.move():
                part.problems.append(f"Generals #{game.game_id}: a move from autocomplete was not applied")
                break
            stored = before + 1  # the person's move
            holder = await _thinking(db, game.game_id, stored)
            if holder is None:
                missed += 1  # the bot answered before its lease could be seen
                continue
            [victim] = [p for p in procs if p.holders()[-1:] == [holder]]
            await victim.kill()
            if await move_count(db, game.game_id) > stored:
                missed += 1  # its move was committed between the look and the kill
            else:
                killed_at = time.monotonic()
                took_over = await wait_until(lambda n=stored + 1: _moved(db, game.game_id, n), 45, 0.05)
                part.check(took_over, f"Generals #{game.game_id}: nobody made the bot's move after {victim.name} "
                                      "was killed while thinking")
                if not took_over:
                    break
                takeovers.append(time.monotonic() - killed_at)
            await victim.spawn()
            await victim.ready()
        await asyncio.sleep(1.0)
        games, moves, problems = replay_problems(target)
        part.problems += problems
        part.figures += [
            f"kills while the bot thought: {len(takeovers)} (by shard: "
            f"{', '.join(f'{p.name}: {p.kills}' for p in procs)}; {missed} moves answered before a kill could land)",
            "the other process made the bot's move after "
            + (", ".join(f"{t:.1f}" for t in takeovers) or "-")
            + " s (a dead process is seen once its heartbeat is 10 s old; looked for every 3 s)",
            f"games replayed: {games} ({moves} moves; one row per ply)",
        ]
        part.check(len(takeovers) >= kills, f"only {len(takeovers)} of {kills} kills landed while the bot thought "
                                            f"({attempts} moves tried)")
    finally:
        if db is not None:
            await db.close()
        await _stop(procs, fake, part)
    return part


async def _thinking(db: Database, game_id: int, stored: int) -> str | None:
    """The process holding the game's bot-turn lease while the bot's reply is not yet stored (None: it answered
    first, or no lease was seen within 10 s)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        held = await rows(db, "SELECT holder FROM leases WHERE key = ? AND expires_at > ?",
                          (f"bot-turn:{game_id}", time.time()))
        count = await move_count(db, game_id)
        if count > stored:
            return None
        if held and count == stored:
            return str(held[0][0])
        await asyncio.sleep(0.002)
    return None


async def _my_turn_or_over(game: GeneralsVsBot, db: Database) -> bool:
    return game.my_turn() or await game.over(db)


async def _moved(db: Database, game_id: int, count: int) -> bool:
    return await move_count(db, game_id) >= count


# ----- part 3 -------------------------------------------------------------------------------------------------------
async def turn_times_run_out(server: PostgresServer | None, workdir: Path, games: int) -> Part:
    part = Part(f"{games} games whose turn time runs out, on two processes")
    fake = FakeDiscord(validator=None, check_responses=False)
    await fake.start()
    target = await new_target(server, workdir, "timers")
    procs = processes(fake, workdir, target, "timers")
    guilds = [fake.add_guild(f"Timed {n}", shard=n % SHARDS, shard_count=SHARDS) for n in range(4)]
    channels = [fake.add_channel(guilds[n % len(guilds)], f"timed-{n}") for n in range(8)]
    db: Database | None = None
    try:
        await start(procs)
        admin = fake.add_user("admin")
        for guild in guilds:
            res = await fake.slash(admin, next(c for c in channels if c.guild_id == guild.id), "settings", "set",
                                   {"turn_time": f"{TURN_TIME}s"}, permissions=PERM_MANAGE_GUILD)
            assert res.message is not None and "Saved" in res.message.text(), res.errors
        began = time.monotonic()
        made: list[int] = []
        lanes = 16
        await asyncio.gather(*(_challenges(fake, channels, lane, range(lane, games, lanes), made)
                               for lane in range(lanes)))
        created = time.monotonic() - began
        db = await open_database(target)
        finished = await wait_until(lambda: _all_finished(db, made), 3 * TURN_TIME + 60, 0.5)
        await asyncio.sleep(TURN_TIME)  # a second reminder or ending would have come by now
        reminders, endings = Counter[int](), Counter[int]()
        for channel in channels:
            for message in fake.channel_messages(channel):
                if found := _REMINDER.search(message.content):
                    reminders[int(found.group(1))] += 1
                if message.embeds and (found := _ENDING.search(message.text())):
                    endings[int(found.group(1))] += 1
        forfeits = await rows(db, "SELECT COUNT(*) FROM games WHERE status = 'finished' AND state LIKE ?",
                              ('%"timeout"%',))
        not_once = [f"#{g}: {reminders[g]} reminders, {endings[g]} endings" for g in made
                    if reminders[g] != 1 or endings[g] != 1]
        part.figures += [
            f"games made: {len(made)} in {created:.1f} s, turn time {TURN_TIME} s, in {len(guilds)} servers "
            f"({len(guilds) // SHARDS} on each shard)",
            f"reminders: {sum(reminders.values())}, endings: {sum(endings.values())}, games ended by forfeit: "
            f"{forfeits[0][0]}",
            f"games whose reminder or ending did not appear exactly once: {len(not_once)}",
            "timers fired by " + "; ".join(f"{p.name}: {dict(p.timers_fired())}" for p in procs),
        ]
        part.check(len(made) == games, f"only {len(made)} of {games} games were made")
        part.check(finished, "not every game ended within the time")
        part.problems += not_once[:20]
        _games, _moves, problems = replay_problems(target)
        part.problems += problems
    finally:
        if db is not None:
            await db.close()
        await _stop(procs, fake, part)
    return part


async def _challenges(fake: FakeDiscord, channels: list[FakeChannel], lane: int, numbers: range,
                      made: list[int]) -> None:
    """Challenges made and accepted by two new players each, then left alone."""
    for n in numbers:
        channel = channels[n % len(channels)]
        challenger, opponent = fake.add_user(f"c{n}"), fake.add_user(f"o{n}")
        res = await fake.slash(challenger, channel, "chopsticks", "challenge", options={"opponent": opponent})
        assert res.message is not None, res.errors
        board = res.message
        accepted = await fake.click(opponent, board, board.button("Accept")["custom_id"])
        assert accepted.callback_type == Callback.UPDATE_MESSAGE, accepted.errors
        found = _TITLE.search(board.text())
        assert found is not None, board.text()
        made.append(int(found.group(1)))


async def _all_finished(db: Database, made: list[int]) -> bool:
    active = await rows(db, "SELECT COUNT(*) FROM games WHERE status IN ('pending', 'active')")
    return int(active[0][0]) == 0


# ----- the run ------------------------------------------------------------------------------------------------------
async def prove(database: str, games: int, kills: int, workdir: Path) -> list[Part]:
    parts: list[Part] = []
    with database_for(database, workdir) as (server, folder):
        try:
            parts.append(await started_together(server, folder))
            parts.append(await bot_killed_while_thinking(server, folder, kills))
            parts.append(await turn_times_run_out(server, folder, games))
        finally:
            close_peeks()  # the checks' connections, before the server stops
    return parts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.tools.shards_proof", description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", choices=("both", "postgresql", "sqlite"), default="both")
    parser.add_argument("--games", type=int, default=500, help="games whose turn time runs out (default 500)")
    parser.add_argument("--kills", type=int, default=3, help="kills while a bot thinks (default 3)")
    parser.add_argument("--keep", type=Path, default=None, help="keep the databases and bot logs in this directory")
    args = parser.parse_args(argv)
    logging.getLogger("aiohttp.server").setLevel(logging.CRITICAL)  # a killed bot's half-sent requests are the point
    ok = True
    for database in (("postgresql", "sqlite") if args.database == "both" else (args.database,)):
        with contextlib.ExitStack() as stack:
            workdir = args.keep / database if args.keep else Path(
                stack.enter_context(tempfile.TemporaryDirectory(prefix="shards-")))
            workdir.mkdir(parents=True, exist_ok=True)
            started = time.monotonic()
            parts = asyncio.run(prove(database, args.games, args.kills, workdir))
            print(f"{database}: two processes, shards 0 and 1 of 2, on one "
                  f"{'PostgreSQL database' if database == 'postgresql' else 'SQLite file'} "
                  f"({time.monotonic() - started:.0f} s)")
            for part in parts:
                print(part.report())
            ok = ok and all(not part.problems for part in parts)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
