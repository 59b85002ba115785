"""Time in a fuzz run (tests/tools/fuzz.py): the bot's clock moves, so reminders, forfeits and expiries fire and
games end while hostile input goes on; and new games are started whenever too few are left to play.

The bot's clock is the service's `clock` (bot/service/games.py): the fuzzer replaces it with a `VirtualClock`
that stands still during an interaction (so each one is judged against one position) and jumps between them.
After a jump the timer loop is woken as a write would wake it, and the fuzzer waits until it has fired
everything due and the bot is idle again; then it checks from the database that every due timer did fire.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tests.support.codes import Callback
from tests.support.fakediscord import FakeChannel, FakeMessage, FakeUser
from tests.support.fakediscord.interactions import InteractionTimeout
from tests.support.fakediscord.payloads import PERM_MANAGE_GUILD

if TYPE_CHECKING:
    from tests.tools.fuzz import Fuzzer

# Turn times of the run (the bot's settings): short against the jumps of the clock, so that games time out.
TURN_SECONDS = 600.0
CHALLENGE_SECONDS = 900.0
BOT_SETTINGS: dict[str, Any] = {"turn_timeout": TURN_SECONDS, "challenge_timeout": CHALLENGE_SECONDS}
# A jump of the clock, as a share of the turn time: within a turn, past the reminder, past the deadline; and now
# and then weeks (every lobby, challenge and game with its own long turn time runs out).
JUMPS = ((0.3, 40), (0.8, 25), (1.2, 15), (40 * 24 * 6.0, 2))
LIVE_GAMES = 4  # fewer games waiting for a person than this: start new ones


class VirtualClock:
    """The bot's clock in a fuzz run: it moves only when the fuzzer moves it."""

    def __init__(self, start: float) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now


@dataclass
class TimeFigures:
    """What time did in a run, and what went wrong with it."""

    jumps: int = 0
    seconds: float = 0.0
    fired: Counter[str] = field(default_factory=Counter)  # reminder, forfeit, default, called off, expired, ...
    games_finished: int = 0  # during the run, by play or by time
    games_ended_by_time: int = 0
    games_started: int = 0
    problems: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        return [
            f"clock jumps: {self.jumps} ({self.seconds / 3600:.1f} h of bot time); timers fired: "
            + (", ".join(f"{k} {v}" for k, v in sorted(self.fired.items())) or "none"),
            f"games started during the run: {self.games_started}; finished: {self.games_finished} "
            f"({self.games_ended_by_time} by a timer)",
            f"timer problems: {len(self.problems)}",
        ]


@dataclass(frozen=True)
class _Due:
    """A game or lobby with a timer due at the new time, as stored before the jump."""

    game_id: int | None
    lobby_id: int | None
    status: str
    deadline_due: bool
    move_count: int


class Timekeeper:
    def __init__(self, fuzzer: Fuzzer, clock: VirtualClock) -> None:
        self.fz = fuzzer
        self.clock = clock
        self.figures = fuzzer.figures.time

    # ----- the clock ------------------------------------------------------------------------------------------
    async def jump(self, seconds: float | None = None) -> None:
        """Move the clock on (by a random jump unless given), let every due timer fire, and check that it did."""
        fz = self.fz
        if seconds is None:
            seconds = self._to_a_reminder()
        if seconds is None:
            share = fz.rng.choices([j for j, _ in JUMPS], [w for _, w in JUMPS])[0]
            seconds = TURN_SECONDS * share * fz.rng.uniform(0.8, 1.2)
        await self.quiet()
        fz.current[0] = f"clock +{seconds:.0f} s (after #{fz.figures.interactions})"
        await self.settled_jump(self.start_jump(seconds))

    def _to_a_reminder(self) -> float | None:
        """Until a reminder has fired, every other jump lands between a game's reminder and its deadline, when one is
        waiting: random jumps alone sometimes passed both in a short run (then no reminder was ever tried)."""
        if self.figures.fired["reminder"] or self.figures.jumps % 2:
            return None
        row = self.fz.db.first(
            "SELECT MIN(remind_at) FROM games WHERE status = 'active' AND remind_at > ? AND deadline > remind_at + 1",
            (self.clock.now,))
        return None if row is None or row[0] is None else float(row[0]) - self.clock.now + 0.5

    def start_jump(self, seconds: float) -> tuple[list[_Due], int]:
        """Move the clock on and wake the timer loop (as any write does); what was due, and how many games were
        finished, before (for `settled_jump`)."""
        due = self._due(self.clock.now + seconds)
        finished = self.finished()
        self.clock.now += seconds
        self.figures.jumps += 1
        self.figures.seconds += seconds
        self.fz.bot.service.timers_changed.set()
        return due, finished

    async def settled_jump(self, started: tuple[list[_Due], int]) -> None:
        """Wait for the timers of a jump to fire, and check that every due one did."""
        due, finished = started
        await self.quiet()
        self._check_fired(due)
        self.figures.games_ended_by_time += self.finished() - finished

    async def quiet(self, timeout: float = 30.0) -> None:
        """Wait until the bot is idle and the timer loop has fired everything due (a pass of the loop ends by
        clearing `timers_changed`, which every write sets)."""
        fz = self.fz
        service = fz.bot.service
        deadline = time.monotonic() + timeout
        while True:
            await fz.settle()
            due = await service.due_timers() or await fz.bot.lobbies.due()
            # Resting, not woken and nothing due: every timer it fired has been told (a pass awaits its announcements,
            # whose drawing may run for a while without a request: the idle check alone cannot see them).
            if fz.bot.timers_resting() and not service.timers_changed.is_set() and not due:
                return
            if due and not service.timers_changed.is_set():
                service.timers_changed.set()  # the loop slept since before the jump: wake it
            if time.monotonic() > deadline:
                self.figures.problems.append(f"{fz.current[0]}: timers still due after {timeout} s: {due}")
                return
            await asyncio.sleep(0.01)

    def _due(self, now: float) -> list[_Due]:
        db = self.fz.db
        games = [_Due(row[0], None, row[1], row[2] is not None and row[2] <= now, row[3]) for row in db.rows(
            "SELECT id, status, deadline, move_count FROM games WHERE deadline <= ? OR remind_at <= ?", (now, now))]
        lobbies = [_Due(None, row[0], row[1], True, 0) for row in db.rows(
            "SELECT id, status FROM lobbies WHERE deadline <= ?", (now,))]
        return games + lobbies

    def finished(self) -> int:
        return int(self.fz.db.rows("SELECT COUNT(*) FROM games WHERE status = 'finished'")[0][0])

    def _check_fired(self, due: list[_Due]) -> None:
        """Every timer that was due fired: a challenge or lobby expired, a late player forfeited or had their
        default decision taken, or a reminder went out (its time cleared)."""
        db, fired, label = self.fz.db, self.figures.fired, self.fz.current[0]
        for item in due:
            if item.lobby_id is not None:
                [(status, deadline)] = db.rows("SELECT status, deadline FROM lobbies WHERE id = ?", (item.lobby_id,))
                if deadline is not None and deadline <= self.clock.now:
                    self.figures.problems.append(f"{label}: lobby {item.lobby_id} did not expire")
                elif item.status == "open":
                    fired["lobby expired"] += 1
                continue
            [(status, deadline, remind_at, moves)] = db.rows(
                "SELECT status, deadline, remind_at, move_count FROM games WHERE id = ?", (item.game_id,))
            now = self.clock.now
            if (deadline is not None and deadline <= now) or (remind_at is not None and remind_at <= now):
                self.figures.problems.append(f"{label}: game #{item.game_id} ({status}) still has a timer due")
            elif item.status == "pending":
                fired["challenge expired"] += status == "expired"
            elif item.status != "active":
                continue
            elif item.deadline_due and status == "expired":
                fired["setup called off"] += 1
            elif item.deadline_due:
                last = db.first("SELECT action FROM moves WHERE game_id = ? AND ply = ?",
                                (item.game_id, item.move_count + 1))
                if moves <= item.move_count or last is None:
                    self.figures.problems.append(f"{label}: game #{item.game_id} passed its deadline with no move")
                else:
                    fired["forfeit" if last[0] == "timeout" else "default decision"] += 1
            else:
                fired["reminder"] += 1

    # ----- keeping games to play ------------------------------------------------------------------------------
    def live_games(self) -> int:
        """Active games waiting for a person (a game waiting only for computer players moves by itself)."""
        return int(self.fz.db.rows(
            "SELECT COUNT(*) FROM games g WHERE status = 'active' AND EXISTS (SELECT 1 FROM game_players p"
            " WHERE p.game_id = g.id AND p.user_id IS NOT NULL)")[0][0])

    async def replenish(self) -> None:
        """Start games (as players would) until enough wait for a person: Chopsticks for two, a Chopsticks or So
        Long Sucker table with a computer player, now and then Game of the Generals against the bot."""
        fz = self.fz
        for _attempt in range(6):
            if self.live_games() >= LIVE_GAMES:
                return
            humans = [u for u in fz.users if not u.bot]
            channel = fz.rng.choice(fz.channels)
            how = fz.rng.choices(["chopsticks", "sucker", "table", "generals"], [4, 4, 2, 1])[0]
            fz.current[0] = f"replenish {how} in {channel.name} (after #{fz.figures.interactions})"
            try:
                self.figures.games_started += await self._start(how, channel, humans)
            except (InteractionTimeout, TimeoutError) as exc:  # what players do must be answered too
                fz.figures.unanswered.append(f"{fz.current[0]}: {str(exc)[:300]}")
            await fz.settle()

    async def _start(self, how: str, channel: FakeChannel, humans: list[FakeUser]) -> int:
        fz = self.fz
        await self._reopen(channel, humans[0])
        players = fz.rng.sample(humans, 4)
        if how == "chopsticks":
            return await self._challenge(channel, players[0], players[1])
        if how == "generals":
            return await self._generals(channel, players[0])
        kind = "sucker" if how == "sucker" else "chopsticks"
        return await self._table(channel, kind, players, bots=1 if fz.rng.random() < 0.7 else 0)

    async def _reopen(self, channel: FakeChannel, admin: FakeUser) -> None:
        """Undo what fuzzed /settings may have done to this server: every game on, in any channel."""
        fake = self.fz.fake
        await fake.slash(admin, channel, "settings", "set", {"any_channel": True}, permissions=PERM_MANAGE_GUILD)
        for kind in self.fz.bot.presenters:
            await fake.slash(admin, channel, "settings", "game", {"game": kind, "enabled": True},
                             permissions=PERM_MANAGE_GUILD)

    async def _slash(self, user: FakeUser, channel: FakeChannel, command: str, sub: str,
                     options: dict[str, Any]) -> FakeMessage | None:
        res = await self.fz.fake.slash(user, channel, command, sub, options=options, timeout=15)
        if res.callback_type == Callback.DEFERRED_CHANNEL_MESSAGE:
            await res.wait_for_original(15)
        return None if res.message is None or res.message.ephemeral else res.message

    async def _press(self, user: FakeUser, message: FakeMessage, label: str) -> bool:
        found = [b for b in message.buttons() if str(b.get("label", "")).startswith(label) and not b.get("disabled")]
        if not found:
            return False
        res = await self.fz.fake.click(user, message, str(found[0]["custom_id"]), timeout=15)
        return res.answered and not res.ephemeral

    async def _challenge(self, channel: FakeChannel, one: FakeUser, two: FakeUser) -> int:
        board = await self._slash(one, channel, "chopsticks", "challenge", {"opponent": two})
        return int(board is not None and await self._press(two, board, "Accept"))

    async def _table(self, channel: FakeChannel, kind: str, players: list[FakeUser], bots: int) -> int:
        size = 4 if kind == "sucker" else 3  # room for someone to be out while the others play on
        host, *joiners = players[: size - bots]
        lobby = await self._slash(host, channel, kind, "new", {"players": size})
        if lobby is None:
            return 0
        for user in joiners:
            await self._press(user, lobby, "Join")
        for _ in range(bots):
            await self._press(host, lobby, "Add bot")
        return int(await self._press(host, lobby, "Start"))

    async def _generals(self, channel: FakeChannel, player: FakeUser) -> int:
        """Against the bot, set up and ready, so that boards with move buttons exist."""
        fake = self.fz.fake
        if await self._slash(player, channel, "generals", "challenge", {"level": "random"}) is None:
            return 0
        await self.fz.settle()
        board = next((m for m in reversed(fake.dm_messages(player))
                      if any(c.endswith(":formation") for c in m.custom_ids())), None)
        if board is None:  # DMs closed, or the command refused: not this time
            return 0
        formation = next(c for c in board.custom_ids() if c.endswith(":formation"))
        await fake.select(player, board, formation, ["f:balanced"], timeout=15)
        ready = next((c for c in board.custom_ids() if c.endswith(":ready")), None)
        if ready is None:
            return 0
        res = await fake.click(player, board, ready, timeout=15)
        return int(res.answered and not res.ephemeral)
