"""Counting the REST requests an applied move costs, by what each request is for (see requests_per_move.py).

Moves are made one at a time, each choice of a move in its own window that ends when the bot is idle again, so
every request the bot makes belongs to exactly one choice. The window in which the game's move log grew by one
is the move's; the windows before it (picking a piece, choosing a colour in two steps) are its steps.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.fakediscord import FakeDiscord, InteractionResult
from tests.support.fakediscord.models import RecordedRequest
from tests.support.fakediscord.routes import CALLBACK_ROUTE, WEBHOOK
from tests.support.interactions import bot_idle
from tests.support.world import stored_rows

MESSAGES = "/channels/{channel_id}/messages"
MESSAGE = "/channels/{channel_id}/messages/{message_id}"
CHANNEL = "/channels/{channel_id}"
BOARD_EDITS = {MESSAGE, f"{WEBHOOK}/messages/@original", f"{WEBHOOK}/messages/{{message_id}}"}


class CountError(AssertionError):
    """A choice applied more than one move, or the bot did not settle: the count would mean nothing."""


@dataclass
class Tally:
    """The requests of one game kind's applied moves, by kind; `notifications` and `endings` are apart."""

    game: str
    minimum: int
    minimum_why: str
    moves: int = 0
    steps: int = 0  # answers to the choices before a move (a piece picked, a colour chosen): apart
    kinds: Counter[str] = field(default_factory=Counter)
    routes: dict[str, Counter[str]] = field(default_factory=dict)  # kind -> "METHOD route" -> count
    failed: list[str] = field(default_factory=list)  # requests the fake refused (e.g. an edit through a lapsed token)
    over: list[str] = field(default_factory=list)  # the first moves that cost more than the minimum, and why

    @property
    def per_move(self) -> float:
        """The figure compared with the minimum: answers, board edits and any other request, per applied move."""
        if not self.moves:
            return float("nan")
        return (self.kinds["answers"] + self.kinds["boards"] + self.kinds["other"]) / self.moves

    @property
    def with_steps(self) -> float:
        """Every request of making a move, the answers to its earlier choices included (notifications aside)."""
        return self.per_move + self.steps / self.moves if self.moves else float("nan")


def _is_ping(body: Any) -> bool:
    """A turn notification as the bot posts it: text mentioning who decides now, nothing else."""
    if not isinstance(body, dict):
        return False
    return bool(body.get("content")) and not body.get("embeds") and not body.get("components") \
        and not body.get("attachments")


def kind_of(record: RecordedRequest, fake: FakeDiscord) -> str:
    """What a request is for: an interaction's answer, a board's edit, a turn notification (sent, or the one
    before deleted), the end-of-game announcement, or something else."""
    if record.route == CALLBACK_ROUTE:
        return "answers"
    body = record.json if isinstance(record.json, dict) else {}
    if record.method == "PATCH" and (_says_over(body) or (record.route == CHANNEL and body.get("archived"))):
        return "endings"  # So Long Sucker's summary in the channel showing the result, and its thread closed
    if record.method == "PATCH" and record.route in BOARD_EDITS:
        return "boards"
    if record.method == "POST" and record.route == MESSAGES:
        if _is_ping(record.json):
            return "notifications"
        if _says_over(body):
            return "endings"
    if record.method == "DELETE" and record.route == MESSAGE:
        deleted = fake.messages.get(int(record.path.rsplit("/", 1)[1]))
        if deleted is not None and not deleted.components and not deleted.embeds and not deleted.attachments:
            return "notifications"
    return "other"


def _says_over(body: dict[str, Any]) -> bool:
    return any("is over" in str(e.get("title", "")) for e in body.get("embeds") or [])


async def logged_moves(target: str | Path, game_id: int) -> int:
    [(count,)] = await stored_rows(target, "SELECT COUNT(*) FROM moves WHERE game_id = ?", (game_id,))
    return int(count)


class Meter:
    """Measures the choices players make in one game into `tally`."""

    def __init__(self, fake: FakeDiscord, database: str | Path, game_id: int, tally: Tally) -> None:
        self.fake, self.database, self.game_id, self.tally = fake, database, game_id, tally
        self._pending: list[tuple[str, RecordedRequest]] = []  # the steps of the move being chosen
        self._steps = 0

    async def settle(self) -> None:
        """Wait until the bot has done everything the interactions so far caused."""
        if not await bot_idle(self.fake, timeout=60):
            raise CountError(f"game {self.game_id}: the bot did not settle")

    async def choose(self, send: Callable[[], Awaitable[InteractionResult]]) -> InteractionResult:
        """One interaction of a player choosing their move; returns its answer once the bot is idle again."""
        await self.settle()
        before, since = await logged_moves(self.database, self.game_id), len(self.fake.requests)
        result = await send()
        await self.settle()
        window = [(kind_of(r, self.fake), r) for r in self.fake.requests[since:]]
        applied = await logged_moves(self.database, self.game_id) - before
        if applied > 1:
            raise CountError(f"game {self.game_id}: one interaction applied {applied} moves")
        if applied == 0:  # a step: its own answer is apart, anything else it caused counts for the move
            self._steps += sum(1 for kind, _ in window if kind == "answers")
            self._pending += [(kind, r) for kind, r in window if kind != "answers"]
            return result
        self._account(self._pending + window)
        self._pending = []
        return result

    def _account(self, window: list[tuple[str, RecordedRequest]]) -> None:
        tally = self.tally
        tally.moves += 1
        tally.steps += self._steps
        self._steps = 0
        for kind, record in window:
            tally.kinds[kind] += 1
            tally.routes.setdefault(kind, Counter())[f"{record.method} {record.route or record.path}"] += 1
            if not 200 <= record.status < 300:
                tally.failed.append(f"{record.method} {record.path} -> {record.status}")
        cost = sum(1 for kind, _ in window if kind in ("answers", "boards", "other"))
        if cost > tally.minimum and len(tally.over) < 5:
            tally.over.append(f"game {self.game_id}, move {tally.moves}: {cost} requests: " + ", ".join(
                f"{record.method} {record.route or record.path} ({kind})" for kind, record in window
                if kind in ("answers", "boards", "other")))


def table(tallies: list[Tally]) -> list[str]:
    """The figures, one line per game kind, and below them what the columns hold and what went over."""
    head = (f"  {'game':<40} {'moves':>6} {'requests/move':>14} {'minimum':>8} {'answers':>8} {'boards':>7} "
            f"{'other':>6} {'steps(apart)':>13} {'with steps':>11} {'notifications(apart)':>21} "
            f"{'endings(apart)':>15}")
    lines = ["REST requests per applied move, by game (one move at a time; the bot idle between choices)", head]
    for t in tallies:
        k = t.kinds
        lines.append(f"  {t.game:<40} {t.moves:>6} {t.per_move:>14.2f} {t.minimum:>8} {k['answers']:>8} "
                     f"{k['boards']:>7} {k['other']:>6} {t.steps:>13} {t.with_steps:>11.2f} {k['notifications']:>21} "
                     f"{k['endings']:>15}")
    lines += [
        "  requests/move = (answers + boards + other) / moves; answers: the applying interaction's callback; boards:",
        "  edits of channel, DM and ephemeral (@original) messages; steps: answers to choices made before the",
        "  applying one (a Generals piece picked before its direction, a chip's colour in two steps), and",
        "  with steps = requests/move + steps / moves (every request of making a move, notifications aside);",
        "  notifications: turn pings posted and the previous one deleted; endings: the end-of-game announcement.",
        "  minimum:",
        *(f"    {t.game}: {t.minimum} ({t.minimum_why})" for t in tallies),
    ]
    for t in tallies:
        if t.routes.get("other"):
            lines.append(f"  {t.game}: other requests: " + ", ".join(
                f"{n} x {route}" for route, n in t.routes["other"].most_common()))
        if t.failed:
            lines.append(f"  {t.game}: {len(t.failed)} failed requests: " + "; ".join(t.failed[:3]))
        for line in t.over:
            lines.append(f"  {t.game}: above the minimum: {line}")
    return lines
