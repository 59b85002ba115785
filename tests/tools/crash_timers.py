"""The crash test's checks of the turn timers (the run is tests/tools/crash.py): a forfeit or default taken by
the timer is in the move log once per turn and was announced; every reminder seen firing (its deadline stayed,
`remind_at` was cleared) was announced; a setup called off was announced; no deadline is left overdue.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import sqlite3
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from games.base import TIMEOUT
from games.registry import describe
from tests.support.fakediscord import FakeMessage
from tests.tools.crash_checks import GameCheck
from tests.tools.peek import Target, peek_at


class TimerWatch:
    """Looks at the database while the run goes on and notes each reminder that fired: an active game whose
    deadline stays while its `remind_at` was cleared (the service clears it only when it sends the reminder), and
    each game seen in play (one that ends `expired` after that was called off, not a challenge left to expire)."""

    def __init__(self, target: Target, interval: float = 0.05) -> None:
        self.target = target
        self.interval = interval
        # (game, the deadline it reminded of) -> when it was first seen fired
        self.reminders: dict[tuple[int, float], float] = {}
        self.active: set[int] = set()
        # game -> when its owed reminder (storage/owed.py) was last seen waiting for a live process to send or settle it
        self.owed_reminders: dict[int, float] = {}
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="timer-watch")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    def look(self) -> None:
        peek = peek_at(self.target)
        if not peek.exists():
            return
        for gid, deadline, remind_at in peek.rows("SELECT id, deadline, remind_at FROM games WHERE status = 'active'"):
            self.active.add(int(gid))
            if deadline is not None and remind_at is None:
                self.reminders.setdefault((int(gid), float(deadline)), time.time())
        for (gid,) in peek.rows("SELECT game_id FROM owed_announcements WHERE event = 'reminder'"):
            self.owed_reminders[int(gid)] = time.time()

    async def _run(self) -> None:
        while True:
            with contextlib.suppress(sqlite3.Error):
                self.look()
            await asyncio.sleep(self.interval)


def overdue_timers(target: Target, grace: float) -> list[str]:
    """Games whose deadline passed more than `grace` seconds ago and whose timer has not fired."""
    now = time.time()
    return [f"{kind} #{gid}: its {'challenge' if status == 'pending' else 'turn'} deadline passed"
            f" {now - float(deadline):.1f} s ago and nothing fired"
            for gid, kind, status, deadline in peek_at(target).rows(
                "SELECT id, kind, status, deadline FROM games WHERE deadline IS NOT NULL AND deadline < ?"
                " AND status IN ('active', 'pending')", (now - grace,))]


def owed_announcements(target: Target) -> list[tuple[int, str]]:
    """Timer announcements stored as owed and not yet sent (storage/owed.py): (game, event)."""
    return [(int(game_id), str(event)) for game_id, event in peek_at(target).rows(
        "SELECT game_id, event FROM owed_announcements ORDER BY game_id")]


@dataclass
class TimerFigures:
    forfeits: int = 0  # timer rows that ended a player's game (timeouts)
    defaults: int = 0  # timer rows that took a default decision (So Long Sucker: decline a rescue)
    reminders: int = 0
    reminders_moot: int = 0  # fired as the bot was killed, then the game moved on before another could send them
    called_off: int = 0
    problems: list[str] = field(default_factory=list)


def timer_checks(games: dict[int, GameCheck], messages: Iterable[FakeMessage], watch: TimerWatch,
                 kills: Sequence[float] = ()) -> TimerFigures:
    """Each timer action in the logs once per turn and announced; each reminder seen firing announced. `kills`
    (when the bot was SIGKILLed) only explain a miss."""
    figures = TimerFigures()
    said: dict[int, list[str]] = {}  # game -> contents of the messages that name it (deleted ones count: sent)
    endings: set[int] = set()
    called_off: set[int] = set()
    for message in messages:
        for embed in message.embeds:
            title = str(embed.get("title", ""))
            if title.endswith(" is over") and "#" in title:
                with contextlib.suppress(ValueError):
                    endings.add(int(title.rsplit("#", 1)[1].split()[0]))
        content = message.content
        for number in {int(n) for n in re.findall(r"#(\d+)", content)}:
            said.setdefault(number, []).append(content)
            if "is called off" in content:
                called_off.add(number)
    for gid, game in games.items():
        name = str(describe(game.kind).title)  # in English, as the fake Discord's messages are
        timed = game.timer_rows()
        seen: Counter[tuple[int, int, str]] = Counter()
        for row in timed:
            seen[(row.seat, row.token, row.action)] += 1
            if row.action == TIMEOUT:
                figures.forfeits += 1
            else:
                figures.defaults += 1
        doubled = [key for key, n in seen.items() if n > 1]
        if doubled:
            figures.problems.append(f"{game.kind} #{gid}: the timer acted twice on one turn: {doubled}")
        outs = Counter(r.seat for r in timed if r.action == TIMEOUT)
        if any(n > 1 for n in outs.values()):
            figures.problems.append(f"{game.kind} #{gid}: a seat ran out of time twice: {dict(outs)}")
        ended_by_timer = game.status == "finished" and bool(timed) and game.rows[-1] == timed[-1]
        if ended_by_timer and gid not in endings:
            figures.problems.append(f"{game.kind} #{gid}: ended by the turn timer, but no ending was announced"
                                    + _kill_after(timed[-1].at, kills))
        going_on = len(timed) - (1 if ended_by_timer else 0)
        told = [c for c in said.get(gid, []) if c.startswith(f"{name} #{gid}:") and "time" in c.lower()]
        if len(told) < going_on:
            figures.problems.append(f"{game.kind} #{gid}: the timer acted {_times(going_on)} while the game went on,"
                                    f" announced {_times(len(told))}"
                                    + "".join(_kill_after(r.at, kills) for r in timed[:going_on]))
        if game.status == "expired" and gid in watch.active:
            figures.called_off += 1
            if gid not in called_off:
                figures.problems.append(f"{game.kind} #{gid}: called off by its timer, but nobody was told"
                                        + _kill_after(game.updated_at, kills))
    for (gid, deadline), first_seen in sorted(watch.reminders.items()):
        figures.reminders += 1
        stamp = f"<t:{int(deadline)}:R>"
        if not any(stamp in c and "<@" in c for c in said.get(gid, [])):
            fired_at = first_seen - watch.interval
            if gid in games and _decided_by_a_computer(games[gid], fired_at):
                continue  # a computer seat's turn ran late (a restart): there is no person to remind
            settled = watch.owed_reminders.get(gid, fired_at) + watch.interval  # when a live process took it over
            if _kill_after(fired_at, kills) and gid in games and _moved_on(games[gid], fired_at, settled):
                # Killed as it fired: the reminder stays owed by the dead process until its heartbeat runs out, and
                # the game moved on before then (its forfeit, a move), so the reminder no longer applies and is
                # rightly never sent (bot/service/owed.py owed_result).
                figures.reminders_moot += 1
                continue
            kind = games[gid].kind if gid in games else "game"
            figures.problems.append(f"{kind} #{gid}: the reminder for the deadline {stamp} fired but was not sent"
                                    + _kill_after(first_seen - watch.interval, kills))
    return figures


def _times(n: int) -> str:
    return {0: "never", 1: "once", 2: "twice"}.get(n, f"{n} times")


# How long a killed process's owed announcement waits for another process: its heartbeat running out
# (bot/service/heartbeat.py PROCESS_TTL) and the timer loop's next look for owed work.
OWED_TAKEOVER = 10.0 + 5.0


def _decided_by_a_computer(game: GameCheck, since: float) -> bool:
    """Whether the game's next logged action after `since` was a computer seat running out of time: the reminder
    that fired before it was that seat's."""
    computers = {s.seat for s in game.seats if s.user_id is None}
    after = [r for r in game.rows if r.at > since]
    return bool(after) and after[0].seat in computers and after[0].action == TIMEOUT


def _moved_on(game: GameCheck, since: float, settled: float) -> bool:
    """Whether the game's decision moved on (a move or a timer's action was logged, or its timer called off its setup)
    after `since` and before its owed reminder was taken over: within OWED_TAKEOVER of `since`, or later while it was
    still seen owed (`settled`: a restart under load can leave it to wait longer for a live process)."""
    until = max(since + OWED_TAKEOVER, settled)
    called_off = game.status == "expired" and since < game.updated_at <= until  # no move: the game is over
    return called_off or any(since < r.at <= until for r in game.rows)


def _kill_after(when: float, kills: Sequence[float]) -> str:
    """"(the bot was killed 0.01 s after)" when a SIGKILL came within a second of `when`."""
    after = [k - when for k in kills if 0 <= k - when < 1.0]
    return f" (the bot was SIGKILLed {after[0]:.3f} s after)" if after else ""
