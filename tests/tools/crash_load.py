"""The crash test's scripted players (the run is tests/tools/crash.py): each driver plays table after table of every
game kind, looking only at what Discord shows them, and keeps every interaction it sent with what its answer
promises (crash_promises.py). What they do besides the main decision of a turn is in crash_extras.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from tests.support.codes import Callback
from tests.support.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser, InteractionResult
from tests.tools import crash_extras as extras
from tests.tools.crash_extras import GENERALS_ROTATION, GeneralsTable, Habits
from tests.tools.crash_promises import Promise, Reading, Sent, acknowledged, keeps, public
from tests.tools.peek import Target

_CS_TO_MOVE = re.compile(r"▶ <@(\d+)>")
_SK_TO_MOVE = re.compile(r"▶ (\S+) <@(\d+)>")
_CS_MOVE = re.compile(r"cs:(\d+):mv:(\d+):(.+)")
_SK_DECISION = re.compile(r"sk:(\d+):(\d+):(.+)")
_SK_CHIP = re.compile(r"sks:(\d+):(\d+):chip")
_SK_PLAY = re.compile(r"sks:(\d+):(\d+):play\d")
# A game's board or challenge ("Chopsticks #6", "Chopsticks #6: a challenge"), not its ending ("... #6 is over").
_GAME_TITLE = re.compile(r"(?:Chopsticks|So Long Sucker|Game of the Generals) #(\d+)(?:$|:)")
_GG_MOVE = re.compile(r"ggm:(\d+):(\d+):([a-i][1-8]-[a-i][1-8])")
_LOBBY_TITLE = re.compile(r"table #(\d+)")


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
    timed: bool = False  # played on the server whose turn time is a few seconds
    habits: Habits = field(default_factory=Habits)


@dataclass
class Load:
    """The scripted users: each driver plays table after table until told to stop.

    Players act only on what Discord shows them: the game's newest message in the channel (a restarted bot may
    post the board anew) and, for Game of the Generals, their own board in their DMs (or from My board when their
    DMs are closed)."""

    fake: FakeDiscord
    rng: random.Random
    kinds: tuple[str, ...]
    answer_timeout: float = 10.0
    running: bool = True
    sent: list[Sent] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    stalls: int = 0
    stalled: list[str] = field(default_factory=list)  # what each stalled table showed (not a failure: a hint)
    database: Target | None = None  # a file or a URL, read only to note what a draw offer found (crash_extras)
    timed_guild: int | None = None
    rotation: int = 0  # the next Generals table of GENERALS_ROTATION

    # --- sending -------------------------------------------------------------------------------------------------
    async def send(
        self,
        start: Callable[[], Awaitable[InteractionResult]],
        promise: Reading | None,
        *,
        final: bool = False,
    ) -> InteractionResult | None:
        """Dispatch one interaction once the bot is connected, wait for its answer (for a deferred one, its
        followup) or give up, and keep it."""
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
            if res.callback_type == Callback.DEFERRED_CHANNEL_MESSAGE:  # "thinking...": the answer is the followup
                await res.wait_for_followups(1, self.answer_timeout)
        if res.answered:
            sent.answered_in = time.monotonic() - res.created
        if promise is not None and res.answered and not res.errors:
            sent.read = promise(res)
        return res

    async def click(self, user: FakeUser, message: FakeMessage, custom_id: str,
                    promise: Reading | None, final: bool = False
                    ) -> InteractionResult | None:
        return await self.send(lambda: self.fake.click(user, message, custom_id, wait=False), promise, final=final)

    async def select(self, user: FakeUser, message: FakeMessage, custom_id: str, value: str,
                     promise: Reading | None = None, final: bool = False
                     ) -> InteractionResult | None:
        return await self.send(lambda: self.fake.select(user, message, custom_id, [value], wait=False), promise,
                               final=final)

    async def slash(self, user: FakeUser, channel: FakeChannel, command: str, sub: str, options: dict[str, Any],
                    promise: Reading | None) -> InteractionResult | None:
        return await self.send(lambda: self.fake.slash(user, channel, command, sub, options, wait=False), promise)

    # --- tables ----------------------------------------------------------------------------------------------------
    async def driver(self, slot: int, users: list[FakeUser], channel: FakeChannel) -> None:
        """Play tables one after another until the run stops, each slot starting with a different kind."""
        plans: list[Callable[[list[FakeUser], FakeChannel], Awaitable[None]]] = [
            self.chopsticks_challenge, self.sucker_table, self.chopsticks_vs_bot, self.chopsticks_lobby,
            self.sucker_with_bot]
        if "generals" in self.kinds:
            plans[2:2] = [self.generals_table, self.generals_table]
        turn = slot
        try:
            while self.running:
                if channel.guild_id == self.timed_guild and self.rng.random() < 0.25:
                    # Its admin changes the server's settings now and then: new games take them.
                    await extras.change_settings(self, users[0], channel, self.rng.choice([3, 4, 5]),
                                                 self.rng.random() < 0.7)
                await plans[turn % len(plans)](users, channel)
                turn += 1
        except Stop:
            pass

    def _new_table(self, kind: str, users: list[FakeUser], channel: FakeChannel) -> Table:
        table = Table(kind, list(users), channel, timed=channel.guild_id == self.timed_guild)
        self.tables.append(table)
        return table

    async def challenge(self, kind: str, users: list[FakeUser], channel: FakeChannel, options: dict[str, Any],
                        expect: tuple[tuple[str, Any], ...] = (), closed: FakeUser | None = None) -> None:
        """`/<kind> challenge`: against `users[1]` (who accepts) when there are two, else against the bot. The
        game's stored facts must be `expect`; `closed` has their DMs closed and plays from My board."""
        host = users[0]
        table = self._new_table(kind, users, channel)
        if options.get("turn_minutes"):
            table.timed = False  # its own turn time, in minutes: nobody walks away from it
        if closed is not None:
            table.habits.closed[closed.id] = self.rng.randint(2, 8)

        def created(res: InteractionResult) -> Promise | None:
            game = game_id_of(res.message)
            return None if game is None else Promise("game", host.id, game_id=game, expect=expect)

        if len(users) > 1:
            options = {**options, "opponent": users[1]}
        res = await self.slash(host, channel, kind, "challenge", options, public(created))
        if res is None or not acknowledged(res) or res.message is None:
            return
        table.board, table.game_id = res.message, game_id_of(res.message)
        if len(users) > 1 and not await self.accept(table):
            self.stall(table)
            return
        await self.play(table)

    async def chopsticks_challenge(self, users: list[FakeUser], channel: FakeChannel) -> None:
        await self.challenge("chopsticks", users[:2], channel, {})

    async def chopsticks_vs_bot(self, users: list[FakeUser], channel: FakeChannel) -> None:
        await self.challenge("chopsticks", users[:1], channel, {"level": "easy"})

    async def generals_table(self, users: list[FakeUser], channel: FakeChannel) -> None:
        """The next table of the Generals rotation (crash_extras.GENERALS_ROTATION)."""
        config: GeneralsTable = GENERALS_ROTATION[self.rotation % len(GENERALS_ROTATION)]
        self.rotation += 1
        seated = users[:1] if config.level else users[:2]
        options: dict[str, Any] = {"settings": config.settings}
        expect: list[tuple[str, Any]] = [("variants", sorted(config.settings.split()))]
        if config.level:
            options["level"] = config.level
            expect.append(("bot", config.level))
        if config.turn_minutes:
            options["turn_minutes"] = config.turn_minutes
            expect.append(("turn_timeout", 60.0 * config.turn_minutes))
        closed = seated[-1] if config.closed_dms else None
        if closed is not None:
            self.fake.fail_dm_for(closed)
        try:
            await self.challenge("generals", seated, channel, options, tuple(expect), closed)
        finally:
            if closed is not None:
                self.fake.fail_dm_for(closed, False)

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
            redrawn = changed(lambda: board.edits)
            res = await self.click(rival, board, ids[0], keeps(Promise("accept", rival.id, game_id=game)),
                                   final=final)
            if res is not None and acknowledged(res):
                return True
            await wait_for(redrawn, 5)  # refused or lost: the restarted bot redraws it
        return not [c for c in board.custom_ids() if c.endswith(":accept")]

    async def lobby(self, table: Table, command: str, options: dict[str, Any], joiners: list[FakeUser],
                    bots: int) -> bool:
        """Open a lobby, fill it, start it; True once the lobby message shows the game."""
        host = table.users[0]

        def opened(res: InteractionResult) -> Promise | None:
            lobby = lobby_id_of(res.message)
            return None if lobby is None else Promise("lobby", host.id, lobby_id=lobby)

        res = await self.slash(host, table.channel, command, "new", options, public(opened))
        if res is None or not acknowledged(res) or res.message is None:
            return False
        board = table.board = res.message
        lobby_id = table.lobby_id = lobby_id_of(board)
        assert lobby_id is not None
        steps = [(u, "join", Promise("join", u.id, lobby_id=lobby_id)) for u in joiners]
        steps += [(host, "bot", Promise("bot", host.id, lobby_id=lobby_id))] * bots
        steps.append((host, "start", Promise("start", host.id, lobby_id=lobby_id)))
        for user, verb, promise in steps:
            for _attempt in range(3):
                if game_id_of(board) is not None:
                    break  # the message already shows the game (the start got through before a kill)
                custom_id = f"cl:{lobby_id}:{verb}"
                if custom_id not in board.custom_ids():
                    return False
                res = await self.click(user, board, custom_id, keeps(promise))
                if res is not None and res.answered:
                    break  # done, or refused because it was done before a kill ("already in", "full")
        if game_id_of(board) is None:  # a start whose answer was lost: the restarted bot draws the game
            await wait_for(lambda: game_id_of(board) is not None, 20)
        table.game_id = game_id_of(board)
        if table.game_id is None:
            self.stall(table)
            return False
        return True

    def stall(self, table: Table) -> None:
        self.stalls += 1
        table.stalled = True
        shown = table.board.text()[-160:] if table.board is not None else "nothing"
        self.stalled.append(f"{table.kind} #{table.game_id or '?'} (lobby {table.lobby_id}): {shown!r}")

    # --- playing ---------------------------------------------------------------------------------------------------
    async def play(self, table: Table) -> None:
        """Decide whenever the game asks one of the table's players, until it is over or nothing moves for 30 s."""
        quiet_since = looked = time.monotonic()
        last = self.seen(table)
        extras.choose_habits(self, table)
        while True:
            if not self.running:
                raise Stop
            if self.seen(table) != last:
                last, quiet_since = self.seen(table), time.monotonic()
            if self.over(table):
                return
            if table.kind == "generals":
                await self.generals_boards(table)
            if self.available(table):
                await self.aside(table)
                # A decision made on a private reply shows on the boards only once the bot has redrawn them;
                # a refused or lost one is looked at again shortly.
                moved = changed(lambda: self.seen(table))
                if await self.decide(table):
                    table.habits.decisions += 1
                await wait_for(moved, 2)
                continue
            if time.monotonic() - looked > 1:  # scroll down: a restarted bot may have posted the board anew
                self.look(table)
                looked = time.monotonic()
            if time.monotonic() - quiet_since > 30:
                self.stall(table)
                return
            await asyncio.sleep(0.05)

    async def aside(self, table: Table) -> None:
        """Now and then, before a decision: a So Long Sucker transfer, kill or deal, a draw offer, a resignation."""
        roll = self.rng.random()
        if table.kind == "sucker" and roll < 0.3:  # when someone holds prisoners
            await extras.sucker_free_action(self, table)
        elif table.kind == "sucker" and roll < 0.35:
            await extras.sucker_deal(self, table)
        elif table.kind != "sucker" and roll < 0.015:
            await extras.offer_draw(self, table)
        elif roll > 0.996:
            await extras.resign(self, table)

    async def generals_boards(self, table: Table) -> None:
        """Players whose DMs are closed look at My board, and after a few decisions open their DMs."""
        habits = table.habits
        await extras.refresh_my_boards(self, table)
        for user in table.users:
            if user.id in habits.closed and habits.decisions >= habits.closed[user.id] and self.running:
                await extras.open_dms(self, table, user)

    def look(self, table: Table) -> None:
        """The newest message in the channel that shows the table's game."""
        if table.game_id is None:
            return
        # In the channel, or in a thread of it (a So Long Sucker table plays in its thread).
        where = {table.channel.id} | {c.id for c in self.fake.channels.values() if c.parent_id == table.channel.id}
        shown = [m for m in self.fake.messages.values()
                 if m.channel_id in where and not m.ephemeral and not m.deleted
                 and game_id_of(m) == table.game_id]
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
        return finished(board)

    def mover(self, table: Table) -> FakeUser | None:
        """The table's player the channel message says is to decide (None: a bot, nobody, or not shown)."""
        board = table.board
        assert board is not None
        pattern = _SK_TO_MOVE if table.kind == "sucker" else _CS_TO_MOVE
        match = pattern.search(board.text())
        if match is None:
            return None
        user = {u.id: u for u in table.users}.get(int(match.group(match.lastindex or 1)))
        return None if user is None or extras.idle(self, table, user.id) else user

    def dm_boards(self, table: Table) -> dict[int, FakeMessage]:
        """Generals: each player's newest private board for this game (My board when their DMs are closed), by
        user id."""
        if table.kind != "generals" or table.game_id is None:
            return {}
        title = f"Your army · Game of the Generals #{table.game_id}"
        boards: dict[int, FakeMessage] = {}
        for user in table.users:
            if user.id in table.habits.closed:
                if user.id in table.habits.my_boards:
                    boards[user.id] = table.habits.my_boards[user.id]
                continue
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
            res = await self.click(mover, board, choice, keeps(promise), final=final)
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
            res = await self.select(mover, status, str(menu["custom_id"]), action, keeps(promise), final=final)
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
        res = await self.click(user, message, custom_id, keeps(promise), final=final)
        return res is not None and acknowledged(res)

    def _generals_choices(self, table: Table) -> list[tuple[FakeUser, FakeMessage, str]]:
        """(player, their board, what they can do there): deploy, ready, or move."""
        gid = table.game_id
        users = {u.id: u for u in table.users}
        choices = []
        for user_id, dm in self.dm_boards(table).items():
            if extras.idle(self, table, user_id):
                continue
            ids = dm.custom_ids()
            if f"ggs:{gid}:formation" in ids:
                deployed = "press **Ready**" in dm.text()
                choices.append((users[user_id], dm, "ready" if deployed and self.rng.random() < 0.6 else "deploy"))
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
                                   keeps(Promise("move", user.id, game_id=gid, action="ready")), final=final)
            return res is not None and acknowledged(res)
        if what == "deploy":
            if "press **Ready**" in dm.text() and self.rng.random() < 0.6 and not final:  # swap, import, save
                return await extras.setup_form(self, table, user, dm)
            menu = next(c for c in dm.walk_components() if c.get("custom_id") == f"ggs:{gid}:formation")
            # A formation (f:) or one of the player's saved setups (s:), which a game of another army size refuses:
            # not for the one decision that must be taken at the end.
            sources = ("f:",) if final else ("f:", "s:")
            value = self.rng.choice([o["value"] for o in menu["options"] if str(o["value"])[:2] in sources])
            # The formation's squares are drawn at random by the bot: the stored text is only known to start so.
            promise = Promise("move", user.id, game_id=gid, action="setup:", prefix=True)
            res = await self.select(user, dm, f"ggs:{gid}:formation", value, keeps(promise), final=final)
            return res is not None and acknowledged(res)
        # The piece menu, then a direction on the same board (the pick alone never moves a piece, even one with a
        # single move).
        menu = next(c for c in dm.walk_components() if str(c.get("custom_id", "")).startswith(f"ggs:{gid}:piece:"))
        option = self.rng.choice(list(menu["options"]))
        square, targets = str(option["value"]), str(option.get("description", "")).removeprefix("to ")
        if self.rng.random() < 0.3:  # typed instead: `/generals move`, answered privately
            move = f"{square}-{self.rng.choice(targets.split(', '))}"
            return await extras.generals_move_command(self, table, user, move, final)
        picked = await self.select(user, dm, str(menu["custom_id"]), square, None, final=final)
        if picked is None or not acknowledged(picked):
            return picked is not None and acknowledged(picked)
        steps = [c for c in dm.custom_ids() if _GG_MOVE.fullmatch(c) and f":{square}-" in c]
        if not steps:
            return False
        choice = self.rng.choice(steps)
        parsed = _GG_MOVE.fullmatch(choice)
        assert parsed is not None
        promise = Promise("move", user.id, game_id=gid, action=parsed[3], token=int(parsed[2]))
        res = await self.click(user, dm, choice, keeps(promise), final=final)
        return res is not None and acknowledged(res)


def game_id_of(message: FakeMessage | None) -> int | None:
    if message is None:
        return None
    for embed in message.embeds:
        match = _GAME_TITLE.match(str(embed.get("title", "")))
        if match:
            return int(match.group(1))
    return None


def lobby_id_of(message: FakeMessage | None) -> int | None:
    if message is None:
        return None
    for embed in message.embeds:
        match = _LOBBY_TITLE.search(str(embed.get("title", "")))
        if match:
            return int(match.group(1))
    return None


def finished(board: FakeMessage) -> bool:
    """The message shows a result (a win, a shared win, a draw) and no more decisions."""
    text = board.text()
    return not board.components and ("🏆" in text or "Drawn" in text or "🤝" in text)


async def wait_for(predicate: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.02)
    return True


def changed(value: Callable[[], object]) -> Callable[[], bool]:
    """A predicate that holds once `value()` differs from what it is now."""
    seen = value()
    return lambda: value() != seen


