"""Crash safety: the real bot process under load, killed with SIGKILL at random moments, restarted, checked.

    python -m tests.tools.crash [--kills 50] [--seed 1] [--tables 6] [--keep DIR]

The offline Discord (tests/support/fakediscord) runs in this process; `python -m bot` runs as a child process pointed
at it through DISCORD_API_BASE / DISCORD_GATEWAY_URL, on one SQLite file for the whole run. Tables of every
game kind the bot offers are played at once by scripted users who only look at what Discord shows them
(the board message and its components), while a killer SIGKILLs the bot: at random times, right after an
interaction reached it, right after it answered one, or while it is still starting. Each kill is followed
by a restart.

An action is *acknowledged* when the bot's interaction callback reached Discord and was not a refusal (an
ephemeral reply): an update of the clicked message (type 7) or a public reply (type 4). Each acknowledged
interaction promises something about the database, checked at the end:

- a move click (Chopsticks `cs:G:mv:P:M`, So Long Sucker `sk:G:T:A`, a So Long Sucker one-step chip menu
  `sks:G:T:playN` with value A, or the pile step after a chip select) by user U: a row of G's move log with
  user U and action text A, played when the game's turn token (the move count for Chopsticks, the sucker turn
  counter) was P / T. Rows are matched one to one;
- `/sucker give` by U: a row with U and the canonical `give:...` text;
- a new challenge or game vs the bot: the game exists with U in seat 0; Accept: the challenge is no longer
  pending; a lobby, Join, Add bot, Start: the lobby exists, holds U, holds a bot, has started its game.

Then, for every game in the file: the move log is plies 1..n, replaying it from the initial snapshot gives
exactly the stored snapshot, and the status agrees with the replayed outcome. Finally, with no more kills,
every game that was shown to its players and is not over must continue: the board shows a decision to a
player, who clicks one of its components; the click must be acknowledged and stored.

Exit status 0 only with 0 lost acknowledged actions, 0 corrupt games and 0 games that could not continue.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import random
import re
import signal
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from games.engines import game_class
from tests.support.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser, InteractionResult
from tests.support.fakediscord.routes import CALLBACK_ROUTE

REPO = Path(__file__).resolve().parents[2]
EMOJI_COLOUR = {"🟥": "red", "🟦": "blue", "🟩": "green", "🟨": "yellow", "🟪": "purple", "🟧": "orange"}
_CS_TO_MOVE = re.compile(r"▶ <@(\d+)>")
_SK_TO_MOVE = re.compile(r"▶ (\S+) <@(\d+)>")
_SK_PLAYER = re.compile(r"^(?:▶ )?(\S+) <@(\d+)>(?: \(\w+\))?: (.*)$", re.MULTILINE)
_CS_MOVE = re.compile(r"cs:(\d+):mv:(\d+):(.+)")
_SK_DECISION = re.compile(r"sk:(\d+):(\d+):(.+)")
_SK_CHIP = re.compile(r"sks:(\d+):(\d+):chip")
_SK_PLAY = re.compile(r"sks:(\d+):(\d+):play\d")
# A game's board or challenge ("Chopsticks #6", "Chopsticks #6: a challenge"), not its ending ("... #6 is over").
_GAME_TITLE = re.compile(r"(?:Chopsticks|So Long Sucker|Game of the Generals) #(\d+)(?:$|:)")
_GG_MOVE = re.compile(r"ggm:(\d+):(\d+):([a-i][1-8]-[a-i][1-8])")
_LOBBY_TITLE = re.compile(r"lobby #(\d+)")


# ----- what an acknowledged interaction promises ------------------------------------------------------------
@dataclass(frozen=True)
class Promise:
    """What the database must show if the interaction was acknowledged."""

    what: str  # move | game | accept | lobby | join | bot | start
    user_id: int
    game_id: int | None = None
    lobby_id: int | None = None
    action: str | None = None
    token: int | None = None  # the turn token the clicked component carried (None: a free action)
    prefix: bool = False  # `action` is only the start of the stored text

    def __str__(self) -> str:
        where = f"game {self.game_id}" if self.game_id is not None else f"lobby {self.lobby_id}"
        extra = f" {self.action!r} at token {self.token}" if self.action is not None else ""
        return f"{self.what} by {self.user_id} in {where}{extra}"


@dataclass
class Sent:
    result: InteractionResult
    promise: Callable[[InteractionResult], Promise | None] | None
    read: Promise | None = None  # the promise as read from the answer when it came (messages change later)

    def kept(self) -> Promise | None:
        """What this interaction promises, if it was acknowledged."""
        if self.promise is None or not acknowledged(self.result):
            return None
        return self.read or self.promise(self.result)


def _keeps(promise: Promise) -> Callable[[InteractionResult], Promise | None]:
    return lambda _res: promise


def acknowledged(res: InteractionResult) -> bool:
    """The callback arrived and is not a refusal (refusals are ephemeral replies)."""
    if not res.answered or res.errors:
        return False
    return res.callback_type == 7 or (res.callback_type == 4 and not res.ephemeral)


# ----- the bot process --------------------------------------------------------------------------------------
class BotProcess:
    """`python -m bot` as a child process against the fake, on one database file; killed and restarted."""

    def __init__(self, fake: FakeDiscord, workdir: Path) -> None:
        self.fake = fake
        self.workdir = workdir
        self.database = workdir / "bot.sqlite3"
        self.proc: asyncio.subprocess.Process | None = None
        self.starts = 0
        self.kills = 0
        self._identifies_at_start = 0
        self.logs: list[Path] = []

    def env(self) -> dict[str, str]:
        keep = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT")}
        keep.update(
            PYTHONPATH=str(REPO),
            PYTHONUNBUFFERED="1",
            DISCORD_TOKEN=self.fake.token,
            DATABASE_PATH=str(self.database),
            DISCORD_API_BASE=self.fake.api_base,
            DISCORD_GATEWAY_URL=self.fake.gateway_url,
            LOG_LEVEL="INFO",
        )
        return keep

    async def spawn(self) -> None:
        self.starts += 1
        self._identifies_at_start = self.fake.hub.identify_count
        log = self.workdir / f"bot-{self.starts:03d}.log"
        self.logs.append(log)
        with log.open("wb") as out:  # the child keeps its own descriptor
            # cwd is the work directory: no stray .env is read.
            self.proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot", cwd=self.workdir, env=self.env(), stdout=out, stderr=out,
            )

    async def ready(self, timeout: float = 60.0) -> None:
        """Wait until this process has identified on the gateway and received its guilds."""
        proc = self.proc
        assert proc is not None
        deadline = time.monotonic() + timeout
        while self.fake.hub.identify_count <= self._identifies_at_start or not self.fake.hub.is_ready:
            if proc.returncode is not None:
                raise RuntimeError(f"the bot exited with status {proc.returncode}; see {self.logs[-1]}")
            if time.monotonic() > deadline:
                raise TimeoutError(f"the bot did not connect within {timeout} s; see {self.logs[-1]}")
            await asyncio.sleep(0.01)

    async def kill(self) -> None:
        proc = self.proc
        assert proc is not None
        if proc.returncode is None:
            proc.send_signal(signal.SIGKILL)
        await proc.wait()
        self.kills += 1
        # Wait until the fake has seen the socket close, so nothing more is dispatched into it.
        deadline = time.monotonic() + 5
        while self.fake.hub.is_ready and time.monotonic() < deadline:
            await asyncio.sleep(0.005)
        # A dead process answers nothing more: wake whoever still waits (callbacks it sent before dying
        # have been read by now; anything that still lands is counted, as the figures are taken at the end).
        await asyncio.sleep(0.05)
        for res in list(self.fake.interactions.values()):
            if not res.answered:
                res.settle()

    async def stop(self) -> None:
        """A polite stop (Ctrl-C) at the end; SIGKILL if it hangs."""
        proc = self.proc
        if proc is None or proc.returncode is not None:
            return
        proc.send_signal(signal.SIGINT)
        try:
            await asyncio.wait_for(proc.wait(), 15)
        except TimeoutError:
            proc.send_signal(signal.SIGKILL)
            await proc.wait()

    def error_lines(self) -> list[str]:
        """ERROR / CRITICAL log lines and tracebacks of every process (kills show up only as missing lines)."""
        found = []
        for log in self.logs:
            for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
                if " ERROR " in line or " CRITICAL " in line or line.startswith("Traceback"):
                    found.append(f"{log.name}: {line}")
        return found


# ----- scripted players --------------------------------------------------------------------------------------
class Stop(Exception):
    """The run is over: a player stops what they were doing."""


@dataclass
class Table:
    """One table a driver plays: the message its players look at, and the game behind it once known."""

    kind: str
    users: list[FakeUser]
    channel: FakeChannel
    board: FakeMessage | None = None
    game_id: int | None = None
    lobby_id: int | None = None
    stalled: bool = False


@dataclass
class Load:
    """The scripted users: each driver plays table after table until told to stop.

    Players act only on what Discord shows them: the game's newest message in the channel (a restarted bot may
    post the board anew) and, for Game of the Generals, their own board in their DMs."""

    fake: FakeDiscord
    rng: random.Random
    kinds: tuple[str, ...]
    answer_timeout: float = 10.0
    running: bool = True
    sent: list[Sent] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    stalls: int = 0

    # --- sending -------------------------------------------------------------------------------------------------
    async def send(
        self,
        start: Callable[[], Awaitable[InteractionResult]],
        promise: Callable[[InteractionResult], Promise | None] | None,
        *,
        final: bool = False,
    ) -> InteractionResult | None:
        """Dispatch one interaction once the bot is connected, wait for its answer (or give up), keep it."""
        if not self.running and not final:
            raise Stop
        try:
            await self.fake.hub.wait_ready(90)
            res = await start()
        except (LookupError, PermissionError, ValueError, TypeError):
            return None  # the component vanished between looking and clicking (a redraw): look again
        except (ConnectionError, RuntimeError, TimeoutError):
            return None  # the bot's socket closed under the dispatch: nothing reached it
        sent = Sent(res, promise)
        self.sent.append(sent)
        with contextlib.suppress(TimeoutError):
            await res.wait(self.answer_timeout)
        if promise is not None and acknowledged(res):
            sent.read = promise(res)
        return res

    async def click(self, user: FakeUser, message: FakeMessage, custom_id: str,
                    promise: Callable[[InteractionResult], Promise | None] | None, final: bool = False
                    ) -> InteractionResult | None:
        return await self.send(lambda: self.fake.click(user, message, custom_id, wait=False), promise, final=final)

    async def select(self, user: FakeUser, message: FakeMessage, custom_id: str, value: str,
                     promise: Callable[[InteractionResult], Promise | None] | None = None, final: bool = False
                     ) -> InteractionResult | None:
        return await self.send(lambda: self.fake.select(user, message, custom_id, [value], wait=False), promise,
                               final=final)

    async def slash(self, user: FakeUser, channel: FakeChannel, command: str, sub: str, options: dict[str, Any],
                    promise: Callable[[InteractionResult], Promise | None] | None) -> InteractionResult | None:
        return await self.send(lambda: self.fake.slash(user, channel, command, sub, options, wait=False), promise)

    # --- tables ----------------------------------------------------------------------------------------------------
    async def driver(self, slot: int, users: list[FakeUser], channel: FakeChannel) -> None:
        """Play tables one after another until the run stops, each slot starting with a different kind."""
        plans: list[Callable[[list[FakeUser], FakeChannel], Awaitable[None]]] = [
            self.chopsticks_challenge, self.sucker_table, self.chopsticks_vs_bot, self.chopsticks_lobby,
            self.sucker_with_bot]
        if "generals" in self.kinds:
            plans[2:2] = [self.generals_challenge, self.generals_vs_bot]
        turn = slot
        try:
            while self.running:
                await plans[turn % len(plans)](users, channel)
                turn += 1
        except Stop:
            pass

    def _new_table(self, kind: str, users: list[FakeUser], channel: FakeChannel) -> Table:
        table = Table(kind, list(users), channel)
        self.tables.append(table)
        return table

    async def challenge(self, kind: str, users: list[FakeUser], channel: FakeChannel, options: dict[str, Any]
                        ) -> None:
        """`/<kind> challenge`: against `users[1]` (who accepts) when there are two, else against the bot."""
        host = users[0]
        table = self._new_table(kind, users, channel)

        def created(res: InteractionResult) -> Promise | None:
            game = _game_id(res.message)
            return None if game is None else Promise("game", host.id, game_id=game)

        if len(users) > 1:
            options = {**options, "opponent": users[1]}
        res = await self.slash(host, channel, kind, "challenge", options, created)
        if res is None or not acknowledged(res) or res.message is None:
            return
        table.board, table.game_id = res.message, _game_id(res.message)
        if len(users) > 1 and not await self.accept(table):
            self.stall(table)
            return
        await self.play(table)

    async def chopsticks_challenge(self, users: list[FakeUser], channel: FakeChannel) -> None:
        await self.challenge("chopsticks", users[:2], channel, {})

    async def chopsticks_vs_bot(self, users: list[FakeUser], channel: FakeChannel) -> None:
        await self.challenge("chopsticks", users[:1], channel, {"level": "easy"})

    async def generals_challenge(self, users: list[FakeUser], channel: FakeChannel) -> None:
        await self.challenge("generals", users[:2], channel, {"settings": "small-army"})

    async def generals_vs_bot(self, users: list[FakeUser], channel: FakeChannel) -> None:
        await self.challenge("generals", users[:1], channel, {"level": "random", "settings": "small-army"})

    async def chopsticks_lobby(self, users: list[FakeUser], channel: FakeChannel) -> None:
        table = self._new_table("chopsticks", users[:2], channel)
        if await self.lobby(table, "chopsticks", {"players": 3}, joiners=users[1:2], bots=1):
            await self.play(table)

    async def sucker_table(self, users: list[FakeUser], channel: FakeChannel) -> None:
        table = self._new_table("sucker", users[:3], channel)
        if await self.lobby(table, "sucker", {"players": 3, "chips": 3}, joiners=users[1:3], bots=0):
            await self.play(table)

    async def sucker_with_bot(self, users: list[FakeUser], channel: FakeChannel) -> None:
        table = self._new_table("sucker", users[:2], channel)
        if await self.lobby(table, "sucker", {"players": 3, "chips": 3}, joiners=users[1:2], bots=1):
            await self.play(table)

    async def accept(self, table: Table, final: bool = False) -> bool:
        """The challenged player presses Accept until the message shows the game."""
        board, game, rival = table.board, table.game_id, table.users[1]
        assert board is not None and game is not None
        for _ in range(3):
            ids = [c for c in board.custom_ids() if c.endswith(":accept")]
            if not ids:
                return True
            redrawn = _changed(lambda: board.edits)
            res = await self.click(rival, board, ids[0], _keeps(Promise("accept", rival.id, game_id=game)),
                                   final=final)
            if res is not None and acknowledged(res):
                return True
            await _wait_for(redrawn, 5)  # refused or lost: the restarted bot redraws it
        return not [c for c in board.custom_ids() if c.endswith(":accept")]

    async def lobby(self, table: Table, command: str, options: dict[str, Any], joiners: list[FakeUser],
                    bots: int) -> bool:
        """Open a lobby, fill it, start it; True once the lobby message shows the game."""
        host = table.users[0]

        def opened(res: InteractionResult) -> Promise | None:
            lobby = _lobby_id(res.message)
            return None if lobby is None else Promise("lobby", host.id, lobby_id=lobby)

        res = await self.slash(host, table.channel, command, "new", options, opened)
        if res is None or not acknowledged(res) or res.message is None:
            return False
        board = table.board = res.message
        lobby_id = table.lobby_id = _lobby_id(board)
        assert lobby_id is not None
        steps = [(u, "join", Promise("join", u.id, lobby_id=lobby_id)) for u in joiners]
        steps += [(host, "bot", Promise("bot", host.id, lobby_id=lobby_id))] * bots
        steps.append((host, "start", Promise("start", host.id, lobby_id=lobby_id)))
        for user, verb, promise in steps:
            for _attempt in range(3):
                if _game_id(board) is not None:
                    break  # the message already shows the game (the start got through before a kill)
                custom_id = f"cl:{lobby_id}:{verb}"
                if custom_id not in board.custom_ids():
                    return False
                res = await self.click(user, board, custom_id, _keeps(promise))
                if res is not None and res.answered:
                    break  # done, or refused because it was done before a kill ("already in", "full")
        if _game_id(board) is None:  # a start whose answer was lost: the restarted bot draws the game
            await _wait_for(lambda: _game_id(board) is not None, 20)
        table.game_id = _game_id(board)
        if table.game_id is None:
            self.stall(table)
            return False
        return True

    def stall(self, table: Table) -> None:
        self.stalls += 1
        table.stalled = True

    # --- playing ---------------------------------------------------------------------------------------------------
    async def play(self, table: Table) -> None:
        """Decide whenever the game asks one of the table's players, until it is over or nothing moves for 30 s."""
        quiet_since = looked = time.monotonic()
        last = self.seen(table)
        while True:
            if not self.running:
                raise Stop
            if self.seen(table) != last:
                last, quiet_since = self.seen(table), time.monotonic()
            if self.over(table):
                return
            if table.kind == "sucker" and self.rng.random() < 0.08:
                await self.give(table)
            if self.available(table):
                # A decision made on a private reply shows on the boards only once the bot has redrawn them;
                # a refused or lost one is looked at again shortly.
                moved = _changed(lambda: self.seen(table))
                await self.decide(table)
                await _wait_for(moved, 2)
                continue
            if time.monotonic() - looked > 1:  # scroll down: a restarted bot may have posted the board anew
                self.look(table)
                looked = time.monotonic()
            if time.monotonic() - quiet_since > 30:
                self.stall(table)
                return
            await asyncio.sleep(0.05)

    def look(self, table: Table) -> None:
        """The newest message in the channel that shows the table's game."""
        if table.game_id is None:
            return
        shown = [m for m in self.fake.messages.values()
                 if m.channel_id == table.channel.id and not m.ephemeral and not m.deleted
                 and _game_id(m) == table.game_id]
        if shown:
            table.board = max(shown, key=lambda m: m.id)

    def seen(self, table: Table) -> tuple[Any, ...]:
        board = table.board
        assert board is not None
        dms = tuple((m.id, m.edits) for m in self.dm_boards(table).values())
        return board.id, board.edits, dms

    def over(self, table: Table) -> bool:
        board = table.board
        assert board is not None
        return _finished(board)

    def mover(self, table: Table) -> FakeUser | None:
        """The table's player the channel message says is to decide (None: a bot, nobody, or not shown)."""
        board = table.board
        assert board is not None
        pattern = _SK_TO_MOVE if table.kind == "sucker" else _CS_TO_MOVE
        match = pattern.search(board.text())
        if match is None:
            return None
        return {u.id: u for u in table.users}.get(int(match.group(match.lastindex or 1)))

    def dm_boards(self, table: Table) -> dict[int, FakeMessage]:
        """Generals: each player's newest private board for this game, by user id."""
        if table.kind != "generals" or table.game_id is None:
            return {}
        title = f"Your army · Game of the Generals #{table.game_id}"
        boards: dict[int, FakeMessage] = {}
        for user in table.users:
            mine = [m for m in self.fake.dm_messages(user) if any(e.get("title") == title for e in m.embeds)]
            if mine:
                boards[user.id] = max(mine, key=lambda m: m.id)
        return boards

    def available(self, table: Table) -> bool:
        """Whether the messages show one of the table's players a decision they can click."""
        board = table.board
        assert board is not None
        if table.kind == "generals":
            return bool(self._generals_choices(table))
        if self.mover(table) is None:
            return False
        if table.kind == "chopsticks":
            return any(":mv:" in c for c in board.custom_ids())
        return bool(board.components)

    async def decide(self, table: Table, final: bool = False) -> bool:
        """Make one decision the messages offer; True if it was acknowledged."""
        board = table.board
        assert board is not None
        if table.kind == "generals":
            return await self._generals_decision(table, final)
        mover = self.mover(table)
        if mover is None:
            return False
        if table.kind == "chopsticks":
            moves = [c for c in board.custom_ids() if ":mv:" in c]
            if not moves:
                return False
            choice = self.rng.choice(moves)
            parsed = _CS_MOVE.fullmatch(choice)
            assert parsed is not None
            promise = Promise("move", mover.id, game_id=int(parsed[1]), action=parsed[3], token=int(parsed[2]))
            res = await self.click(mover, board, choice, _keeps(promise), final=final)
            return res is not None and acknowledged(res)
        return await self._sucker_decision(table, mover, final)

    async def _sucker_decision(self, table: Table, mover: FakeUser, final: bool) -> bool:
        status = table.board
        assert status is not None
        menus = [c for c in status.walk_components() if _SK_PLAY.fullmatch(str(c.get("custom_id", "")))]
        if menus:  # one step: "colour on pile" in a menu of the status message, the value is the action text
            menu = self.rng.choice(menus)
            parsed = _SK_PLAY.fullmatch(str(menu["custom_id"]))
            assert parsed is not None
            action = self.rng.choice([str(o["value"]) for o in menu["options"]])
            promise = Promise("move", mover.id, game_id=int(parsed[1]), action=action, token=int(parsed[2]))
            res = await self.select(mover, status, str(menu["custom_id"]), action, _keeps(promise), final=final)
            return res is not None and acknowledged(res)
        chip = next((c for c in status.walk_components() if _SK_CHIP.fullmatch(str(c.get("custom_id", "")))), None)
        if chip is not None:  # two steps: the colour on the status message, the pile in a private reply
            colour = self.rng.choice([o["value"] for o in chip["options"]])
            private = await self.select(mover, status, str(chip["custom_id"]), colour, final=final)
            if private is None or not private.answered or private.message is None or not private.ephemeral:
                return False
            piles = [c for c in private.message.custom_ids() if _SK_DECISION.fullmatch(c)]
            if not piles:
                return False
            return await self._click_decision(mover, private.message, self.rng.choice(piles), final)
        buttons = [c for c in status.custom_ids() if _SK_DECISION.fullmatch(c)]
        if not buttons:
            return False
        declines = [b for b in buttons if b.endswith(":decline")]
        choice = self.rng.choice(declines if declines and self.rng.random() < 0.7 else buttons)
        return await self._click_decision(mover, status, choice, final)

    async def _click_decision(self, user: FakeUser, message: FakeMessage, custom_id: str, final: bool) -> bool:
        parsed = _SK_DECISION.fullmatch(custom_id)
        assert parsed is not None
        promise = Promise("move", user.id, game_id=int(parsed[1]), action=parsed[3], token=int(parsed[2]))
        res = await self.click(user, message, custom_id, _keeps(promise), final=final)
        return res is not None and acknowledged(res)

    def _generals_choices(self, table: Table) -> list[tuple[FakeUser, FakeMessage, str]]:
        """(player, their DM board, what they can do there): deploy, ready, or move."""
        gid = table.game_id
        users = {u.id: u for u in table.users}
        choices = []
        for user_id, dm in self.dm_boards(table).items():
            ids = dm.custom_ids()
            if f"ggs:{gid}:formation" in ids:
                deployed = "press **Ready**" in dm.text()
                choices.append((users[user_id], dm, "ready" if deployed and self.rng.random() < 0.8 else "deploy"))
            elif any(c.startswith(f"ggs:{gid}:piece:") for c in ids):
                choices.append((users[user_id], dm, "move"))
        return choices

    async def _generals_decision(self, table: Table, final: bool) -> bool:
        choices = self._generals_choices(table)
        if not choices:
            return False
        user, dm, what = self.rng.choice(choices)
        gid = table.game_id
        assert gid is not None
        if what == "ready":
            res = await self.click(user, dm, f"gg:{gid}:ready",
                                   _keeps(Promise("move", user.id, game_id=gid, action="ready")), final=final)
            return res is not None and acknowledged(res)
        if what == "deploy":
            menu = next(c for c in dm.walk_components() if c.get("custom_id") == f"ggs:{gid}:formation")
            value = self.rng.choice([o["value"] for o in menu["options"] if str(o["value"]).startswith("f:")])
            # The formation's squares are drawn at random by the bot: the stored text is only known to start so.
            promise = Promise("move", user.id, game_id=gid, action="setup:", prefix=True)
            res = await self.select(user, dm, f"ggs:{gid}:formation", value, _keeps(promise), final=final)
            return res is not None and acknowledged(res)
        # The piece menu, then a direction on the same board; a piece with one move (its option reads "to <sq>")
        # moves on the pick itself.
        menu = next(c for c in dm.walk_components() if str(c.get("custom_id", "")).startswith(f"ggs:{gid}:piece:"))
        option = self.rng.choice(list(menu["options"]))
        square, targets = str(option["value"]), str(option.get("description", "")).removeprefix("to ")
        ply = int(str(menu["custom_id"]).rsplit(":", 1)[1])
        lone = None if "," in targets else Promise("move", user.id, game_id=gid, action=f"{square}-{targets}",
                                                    token=ply)
        picked = await self.select(user, dm, str(menu["custom_id"]), square,
                                   None if lone is None else _keeps(lone), final=final)
        if picked is None or not acknowledged(picked) or lone is not None:
            return picked is not None and acknowledged(picked)
        steps = [c for c in dm.custom_ids() if _GG_MOVE.fullmatch(c) and f":{square}-" in c]
        if not steps:
            return False
        choice = self.rng.choice(steps)
        parsed = _GG_MOVE.fullmatch(choice)
        assert parsed is not None
        promise = Promise("move", user.id, game_id=gid, action=parsed[3], token=int(parsed[2]))
        res = await self.click(user, dm, choice, _keeps(promise), final=final)
        return res is not None and acknowledged(res)

    async def give(self, table: Table) -> None:
        """A player holding prisoners gives one to another player, out of turn (`/sucker give`)."""
        status, game = table.board, table.game_id
        assert status is not None and game is not None
        seats = _sucker_seats(status.text())
        mine = {u.id: u for u in table.users}
        holders = [(uid, own, held) for uid, (own, held) in seats.items()
                   if uid in mine and any(c != own for c in held)]
        if not holders:
            return
        giver, own, held = self.rng.choice(holders)
        others = [(uid, colour) for uid, (colour, _h) in seats.items() if uid != giver and uid in mine]
        if not others:
            return
        chip = self.rng.choice([c for c in held if c != own])
        receiver, receiver_colour = self.rng.choice(others)
        promise = Promise("move", giver, game_id=game, action=f"give:{chip}:{receiver_colour}")
        await self.slash(mine[giver], table.channel, "sucker", "give",
                         {"chip": chip, "to": mine[receiver], "game": game}, _keeps(promise))


def _sucker_seats(text: str) -> dict[int, tuple[str, list[str]]]:
    """user id -> (own colour, colours held) of the players still in, from the status message's player lines."""
    seats: dict[int, tuple[str, list[str]]] = {}
    for match in _SK_PLAYER.finditer(text):
        own = EMOJI_COLOUR.get(match.group(1))
        if own is None:
            continue
        held = [EMOJI_COLOUR[e] for e, n in re.findall(r"(\S+) (\d+)", match.group(3))
                if e in EMOJI_COLOUR and int(n) > 0]
        seats[int(match.group(2))] = (own, held)
    return seats


def _game_id(message: FakeMessage | None) -> int | None:
    if message is None:
        return None
    for embed in message.embeds:
        match = _GAME_TITLE.match(str(embed.get("title", "")))
        if match:
            return int(match.group(1))
    return None


def _lobby_id(message: FakeMessage | None) -> int | None:
    if message is None:
        return None
    for embed in message.embeds:
        match = _LOBBY_TITLE.search(str(embed.get("title", "")))
        if match:
            return int(match.group(1))
    return None


def _finished(board: FakeMessage) -> bool:
    """The message shows a result (a win, a shared win, a draw) and no more decisions."""
    text = board.text()
    return not board.components and ("🏆" in text or "Drawn" in text or "🤝" in text)


async def _wait_for(predicate: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.02)
    return True


def _changed(value: Callable[[], object]) -> Callable[[], bool]:
    """A predicate that holds once `value()` differs from what it is now."""
    seen = value()
    return lambda: value() != seen


# ----- the killer -------------------------------------------------------------------------------------------
async def killer(bot: BotProcess, fake: FakeDiscord, kills: int, rng: random.Random, on_kill: Callable[[str], None]
                 ) -> None:
    """Kill the bot `kills` times at random moments, restarting it after each kill."""
    for _ in range(kills):
        mode = rng.random()
        if mode < 0.1:  # while it starts: migrations, command sync, resuming bot turns, connecting
            await asyncio.sleep(rng.uniform(0.0, 1.2))
            label = "starting"
        else:
            await bot.ready()
            if mode < 0.4:  # just after an interaction reached it
                await _wait_for(_changed(lambda: len(fake.interactions)), 5)
                await asyncio.sleep(rng.uniform(0.0, 0.03))
                label = "after dispatch"
            elif mode < 0.7:  # just after it answered one (set_message, redraws, bot turns follow)
                await _wait_for(_changed(lambda: len(fake.calls("POST", CALLBACK_ROUTE))), 5)
                await asyncio.sleep(rng.uniform(0.0, 0.02))
                label = "after callback"
            else:
                await asyncio.sleep(rng.uniform(0.05, 2.0))
                label = "random"
        await bot.kill()
        on_kill(label)
        await bot.spawn()
    await bot.ready()


# ----- checking the database --------------------------------------------------------------------------------
@dataclass
class GameCheck:
    kind: str
    status: str
    message_id: int | None
    state: dict[str, Any]
    rows: list[tuple[int, int | None, str, int]]  # (ply, user, action, turn token before the move)
    problems: list[str]


def read_games(database: Path) -> tuple[dict[int, GameCheck], dict[int, dict[str, Any]], str]:
    """Every game replayed from its move log, every lobby, and SQLite's integrity check, in one read."""
    conn = sqlite3.connect(database, timeout=30, isolation_level=None)
    try:
        conn.execute("BEGIN")
        integrity = str(conn.execute("PRAGMA integrity_check").fetchone()[0])
        games: dict[int, GameCheck] = {}
        for gid, kind, status, message_id, initial, state, move_count in conn.execute(
            "SELECT id, kind, status, message_id, initial_state, state, move_count FROM games ORDER BY id"
        ).fetchall():
            moves = conn.execute("SELECT ply, seat, user_id, action FROM moves WHERE game_id = ? ORDER BY ply",
                                 (gid,)).fetchall()
            seats = conn.execute("SELECT COUNT(*) FROM game_players WHERE game_id = ?", (gid,)).fetchone()[0]
            games[int(gid)] = _check_game(kind, status, message_id, json.loads(initial), json.loads(state),
                                          int(move_count), moves, int(seats))
        lobbies: dict[int, dict[str, Any]] = {}
        for lid, host, status, game_id in conn.execute("SELECT id, host_id, status, game_id FROM lobbies"):
            members = conn.execute("SELECT user_id, bot FROM lobby_members WHERE lobby_id = ?", (lid,)).fetchall()
            lobbies[int(lid)] = {"host": host, "status": status, "game_id": game_id,
                                 "users": {m[0] for m in members if m[0] is not None},
                                 "bots": sum(1 for m in members if m[1] is not None)}
        conn.execute("COMMIT")
    finally:
        conn.close()
    return games, lobbies, integrity


def _check_game(kind: str, status: str, message_id: int | None, initial: dict[str, Any], stored: dict[str, Any],
                move_count: int, moves: list[tuple[int, int, int | None, str]], seats: int) -> GameCheck:
    problems: list[str] = []
    rows: list[tuple[int, int | None, str, int]] = []
    if [m[0] for m in moves] != list(range(1, len(moves) + 1)):
        problems.append(f"move log plies are {[m[0] for m in moves]}, not 1..{len(moves)}")
    if move_count != len(moves):
        problems.append(f"move_count {move_count} but {len(moves)} moves logged")
    try:
        state = game_class(kind).from_dict(initial)
        if state.num_players != seats:
            problems.append(f"{seats} seats for a {state.num_players}-player game")
        for ply, seat, user, action in moves:
            token = state.turn_token()
            rows.append((int(ply), user, str(action), ply - 1 if token is None else token))
            state = state.apply_text(int(seat), str(action))
        if _canonical(state.to_dict()) != _canonical(stored):
            problems.append("the stored snapshot differs from the replay of the move log")
        over = state.outcome() is not None
        if over != (status == "finished"):
            problems.append(f"status {status!r} but the replayed game is {'over' if over else 'not over'}")
    except Exception as exc:  # a log that does not replay at all
        problems.append(f"the move log does not replay: {type(exc).__name__}: {exc}")
    return GameCheck(kind, status, message_id, stored, rows, problems)


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def lost_promises(promises: list[Promise], games: dict[int, GameCheck], lobbies: dict[int, dict[str, Any]]
                  ) -> list[str]:
    """Each acknowledged promise that the database does not keep; move rows are matched one to one."""
    lost: list[str] = []
    unused = {gid: list(game.rows) for gid, game in games.items()}
    # Turn decisions first (they name their token), then free actions from whatever rows are left.
    for p in sorted(promises, key=lambda p: p.token is None):
        gid = p.game_id
        game = games.get(gid) if gid is not None else None
        lobby = lobbies.get(p.lobby_id) if p.lobby_id is not None else None
        if p.what == "move":
            assert gid is not None and p.action is not None
            rows = unused.get(gid, [])
            found = next((r for r in rows if r[1] == p.user_id and (p.token is None or r[3] == p.token)
                          and (r[2].startswith(p.action) if p.prefix else r[2] == p.action)), None)
            ok = found is not None
            if found is not None:
                rows.remove(found)
        elif p.what == "game":
            ok = game is not None
        elif p.what == "accept":
            ok = game is not None and game.status != "pending"
        elif p.what == "lobby":
            ok = lobby is not None and lobby["host"] == p.user_id
        elif p.what == "join":
            ok = lobby is not None and p.user_id in lobby["users"]
        elif p.what == "bot":
            ok = lobby is not None and lobby["bots"] > 0
        elif p.what == "start":
            ok = lobby is not None and lobby["status"] == "started" and lobby["game_id"] in games
        else:
            raise AssertionError(p.what)
        if not ok:
            lost.append(str(p))
    return lost


# ----- continuing every game -----------------------------------------------------------------------------------
async def continue_all(load: Load, fake: FakeDiscord, database: Path) -> tuple[list[str], int, int]:
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
            shown = [m for m in fake.messages.values() if _game_id(m) == gid and not m.ephemeral and not m.deleted
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
        if problem is None:
            continued += 1
        else:
            failures.append(f"{game.kind} #{gid}: {problem}")
    return failures, continued, orphans


async def _continue_one(load: Load, table: Table, database: Path) -> str | None:
    """A player the messages ask clicks one of their decisions: it is acknowledged and stored, and the messages
    then show the next decision (or the result)."""
    load.look(table)
    board = table.board
    assert board is not None
    if any(c.endswith(":accept") for c in board.custom_ids()) and (
            len(table.users) < 2 or not await load.accept(table, final=True)):
        return f"the challenge could not be accepted: {board.text()[-200:]!r}"

    def ready() -> bool:
        load.look(table)
        return load.available(table) or load.over(table)

    if not await _wait_for(ready, 30):  # bots may still be thinking after the last restart
        return f"no player is shown a decision: {_shown(table)}"
    if load.over(table):
        return None
    before = _move_count(database, table.game_id)
    if not await load.decide(table, final=True):
        return f"the player's decision was refused or not answered: {_shown(table)}"
    if _move_count(database, table.game_id) <= before:
        return "an acknowledged decision was not stored"
    if not await _wait_for(ready, 30):
        return f"after the decision no player is shown the next one: {_shown(table)}"
    return None


def _shown(table: Table) -> str:
    assert table.board is not None
    return repr(table.board.text()[-300:])


def _seated_users(database: Path) -> dict[int, list[int]]:
    conn = sqlite3.connect(database, timeout=30)
    try:
        rows = conn.execute("SELECT game_id, user_id FROM game_players WHERE user_id IS NOT NULL ORDER BY seat")
        seated: dict[int, list[int]] = {}
        for game_id, user_id in rows:
            seated.setdefault(int(game_id), []).append(int(user_id))
        return seated
    finally:
        conn.close()


def _move_count(database: Path, game_id: int | None) -> int:
    conn = sqlite3.connect(database, timeout=30)
    try:
        return int(conn.execute("SELECT move_count FROM games WHERE id = ?", (game_id,)).fetchone()[0])
    finally:
        conn.close()


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
    lost: list[str] = field(default_factory=list)
    corrupt: list[str] = field(default_factory=list)
    stuck: list[str] = field(default_factory=list)
    games: Counter[str] = field(default_factory=Counter)
    moves_stored: int = 0
    continued: int = 0
    orphans: int = 0
    stalls: int = 0
    kill_moments: Counter[str] = field(default_factory=Counter)
    bot_errors: list[str] = field(default_factory=list)
    kinds: str = ""
    integrity: str = ""
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.lost and not self.corrupt and not self.stuck and self.integrity == "ok"

    def report(self) -> str:
        moments = ", ".join(f"{k}: {v}" for k, v in sorted(self.kill_moments.items()))
        lines = [
            f"kills                        {self.kills}  ({moments})",
            f"restarts                     {self.restarts}",
            f"interactions sent            {self.interactions}  ({self.unanswered} unanswered: the bot was killed; "
            f"{self.refused} actions refused; {self.steps} menus answered)",
            f"acknowledged actions         {self.acknowledged}  ({self.acknowledged_moves} moves)",
            f"lost acknowledged actions    {len(self.lost)}",
            f"corrupt games                {len(self.corrupt)}",
            f"games that could not continue {len(self.stuck)}  ({self.continued} continued, "
            f"{self.orphans} never shown: creation not acknowledged)",
            f"games                        {sum(self.games.values())}  "
            f"({', '.join(f'{k}: {v}' for k, v in sorted(self.games.items()))}); {self.moves_stored} moves stored",
            f"tables stalled during load   {self.stalls}",
            f"database integrity           {self.integrity}",
            f"bot ERROR log lines          {len(self.bot_errors)}",
            f"game kinds played            {self.kinds}",
            f"time taken                   {self.seconds:.1f} s",
        ]
        for title, items in (("LOST", self.lost), ("CORRUPT", self.corrupt), ("CANNOT CONTINUE", self.stuck),
                             ("BOT ERROR", self.bot_errors)):
            lines += [f"  {title}: {item}" for item in items[:15]]
        return "\n".join(lines)


async def run(kills: int, seed: int, tables: int = 6, workdir: Path | None = None,
              answer_timeout: float = 10.0) -> Figures:
    """The whole experiment; returns its figures."""
    started = time.monotonic()
    rng = random.Random(seed)
    figures = Figures()
    with contextlib.ExitStack() as stack:
        if workdir is None:
            workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="crash-")))
        workdir.mkdir(parents=True, exist_ok=True)
        fake = FakeDiscord(validator=None, check_responses=False)
        await fake.start()
        bot = BotProcess(fake, workdir)
        try:
            guild = fake.add_guild("Crash Test")
            channels = [fake.add_channel(guild, f"games-{i}") for i in range(3)]
            await bot.spawn()
            await bot.ready()
            await _wait_for(lambda: bool(fake.registered_commands()), 30)
            names = {c["name"] for c in fake.registered_commands()}
            kinds = tuple(k for k in ("chopsticks", "generals", "sucker") if k in names)
            figures.kinds = ", ".join(kinds)
            load = Load(fake, random.Random(rng.random()), kinds, answer_timeout=answer_timeout)
            drivers = [
                asyncio.create_task(load.driver(
                    slot, [fake.add_user(f"p{slot}-{i}") for i in range(3)], channels[slot % len(channels)]))
                for slot in range(tables)
            ]
            await asyncio.sleep(1.0)  # let the tables open before the first kill
            await killer(bot, fake, kills, rng, lambda label: figures.kill_moments.update([label]))
            load.running = False
            await asyncio.gather(*drivers, return_exceptions=False)
            await asyncio.sleep(1.0)  # bot turns and redraws the last start-up scheduled
            figures.kills, figures.restarts = bot.kills, bot.starts - 1

            games, lobbies, figures.integrity = read_games(bot.database)
            figures.corrupt = [f"{g.kind} #{gid}: {p}" for gid, g in games.items() for p in g.problems]
            promises = [p for s in load.sent if (p := s.kept()) is not None]
            figures.lost = lost_promises(promises, games, lobbies)

            figures.stuck, figures.continued, figures.orphans = await continue_all(load, fake, bot.database)
            await asyncio.sleep(0.5)
            games, lobbies, integrity = read_games(bot.database)  # the continuations replay too
            figures.corrupt += [f"{g.kind} #{gid} (after continuing): {p}" for gid, g in games.items()
                                for p in g.problems]
            if integrity != "ok":
                figures.integrity = integrity
            promises = [p for s in load.sent if (p := s.kept()) is not None]
            figures.lost = lost_promises(promises, games, lobbies)
            figures.interactions = len(load.sent)
            figures.unanswered = sum(1 for s in load.sent if not s.result.answered)
            figures.refused = sum(1 for s in load.sent
                                  if s.promise is not None and s.result.answered and not acknowledged(s.result))
            figures.steps = sum(1 for s in load.sent if s.promise is None and s.result.answered)
            figures.acknowledged = len(promises)
            figures.acknowledged_moves = sum(1 for p in promises if p.what == "move")
            figures.games = Counter(g.kind for g in games.values())
            figures.moves_stored = sum(len(g.rows) for g in games.values())
            figures.stalls = load.stalls
        finally:
            await bot.stop()
            await fake.close()
        figures.bot_errors = bot.error_lines()
    figures.seconds = time.monotonic() - started
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.tools.crash", description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=50, help="SIGKILLs to deliver (default 50)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the load and of the kill moments")
    parser.add_argument("--tables", type=int, default=6, help="tables played at once (default 6)")
    parser.add_argument("--keep", type=Path, default=None, help="keep the database and bot logs in this directory")
    args = parser.parse_args(argv)
    # The fake logs every request a killed bot left half-sent; that is the point here, not news.
    logging.getLogger("aiohttp.server").setLevel(logging.CRITICAL)
    figures = asyncio.run(run(args.kills, args.seed, args.tables, args.keep))
    print(figures.report())
    return 0 if figures.ok else 1


if __name__ == "__main__":
    sys.exit(main())
