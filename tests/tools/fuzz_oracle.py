"""The engine's word on what the fuzzer's valid-by-chance interactions did to a game (see tests/tools/fuzz.py).

Before an interaction that may change a game, the fuzzer reads the game through the service's storage (its
record, its move log, its state) and again once the bot is idle. Whatever happened:

* the log only grew, and the stored state is the old state with the new moves replayed by the engine (so every
  applied move was legal, and was applied exactly once);
* one interaction applied at most one move of the person who sent it, first, and nobody else's but computer
  players' answers (the clock stands still during an interaction: no timer may act);
* when the interaction names an action (a move button, a menu of moves), the engine says whether it is legal
  for that person in the position they saw: a legal one is applied exactly once, an illegal one changes nothing
  (same version, same log) and is answered with an ephemeral explanation.

Tests may read engine states; only the Discord layer may not.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from games import GameError, GameState, game_class
from storage import GameNotFoundError, GameStore, Seat
from tests.support.codes import Callback
from tests.support.fakediscord import InteractionResult
from tests.support.interactions import BUTTON, SELECT

Move = tuple[int, int, int | None, str]  # ply, seat, user (None: a computer player or a timer), action text


@dataclass(frozen=True)
class Snapshot:
    """One game as stored at one moment."""

    game_id: int
    kind: str
    status: str
    version: int
    moves: tuple[Move, ...]
    state: GameState[Any, Any]
    seats: tuple[Seat, ...]

    def seat_of(self, user_id: int) -> int | None:
        return next((s.seat for s in self.seats if s.user_id == user_id), None)

    @property
    def token(self) -> int:
        """The turn token a drawn decision carries (the game's own, else the move count)."""
        token = self.state.turn_token()
        return len(self.moves) if token is None else token

    def is_computer(self, seat: int) -> bool:
        return self.seats[seat].computer is not None


async def snapshot(store: GameStore, game_id: int) -> Snapshot | None:
    """Game `game_id` as stored now (None: there is no such game). Call only while the bot is idle, so that the
    record and the log are of the same moment."""
    try:
        record = await store.get(game_id)
    except GameNotFoundError:
        return None
    moves = tuple((m.ply, m.seat, m.user_id, m.action) for m in await store.moves(game_id))
    state = game_class(record.kind).from_dict(record.state)
    return Snapshot(game_id, record.kind, record.status, record.version, moves, state, record.seats)


def seat_is_out(state: GameState[Any, Any], seat: int) -> bool:
    """Whether `seat` is out of a game still going on (defeated in So Long Sucker, knocked out of Chopsticks)."""
    is_live = getattr(state, "is_live", None)
    if callable(is_live):
        return not is_live(seat)
    is_out = getattr(state, "is_out", None)
    return bool(is_out(seat)) if callable(is_out) else False


def intent_of(match: re.Match[str], ctype: int, values: Sequence[str] | None, component: Mapping[str, Any] | None,
              state: GameState[Any, Any]) -> str | None:
    """The action an interaction names, if it names one: a button's `move` or `action` part, or the value chosen
    in a menu whose every option is an action (a menu of squares, colours or groups is a step, not an action)."""
    groups = match.groupdict()
    if ctype == BUTTON:
        return groups.get("move") or groups.get("action")
    if ctype != SELECT or not values or len(values) != 1 or component is None:
        return None
    options = [str(o.get("value")) for o in component.get("options", [])]
    return str(values[0]) if options and all(_parses(state, o) for o in options) else None


def _parses(state: GameState[Any, Any], text: str) -> bool:
    try:
        state.parse_action(text)
    except GameError:
        return False
    return True


def legal_text(before: Snapshot, user_id: int, intent: str, ply: int | None) -> str | None:
    """The logged text of `intent` if the engine lets `user_id` take it in the position they saw (turn `ply`), else
    None."""
    seat = before.seat_of(user_id)
    if seat is None or before.status != "active" or (ply is not None and ply != before.token):
        return None
    try:
        action = before.state.parse_action(intent)
        before.state.apply(seat, action)
    except GameError:
        return None
    return action.text()


def refusal_of(res: InteractionResult | None) -> str | None:
    """The explanation a refused interaction was answered with: an ephemeral message with words and no
    components (a question or a menu is no refusal). None when it was not answered that way."""
    if res is None or not res.answered:
        return None
    if res.callback_type == Callback.CHANNEL_MESSAGE:
        message = res.message
    elif res.callback_type in (Callback.DEFERRED_CHANNEL_MESSAGE, Callback.DEFERRED_UPDATE_MESSAGE):
        message = next((m for m in res.followups if m.ephemeral), None)
        if message is None and res.callback_type == Callback.DEFERRED_CHANNEL_MESSAGE:
            message = res.message
    else:
        return None
    if message is None or not message.ephemeral or not message.content.strip() or message.components:
        return None
    return message.content


def new_moves(before: Snapshot, after: Snapshot, *, timers: bool = False) -> tuple[tuple[Move, ...], list[str]]:
    """The moves added since `before`, and what breaks the log's rules: a rewritten log, a move the engine refuses,
    a state that is not the log replayed, a move by a person's seat without that person (a timer) unless `timers`
    may act."""
    problems: list[str] = []
    count = len(before.moves)
    if after.moves[:count] != before.moves:
        problems.append(f"game #{before.game_id}: the move log was rewritten: {before.moves[-3:]} -> "
                        f"{after.moves[:count][-3:]}")
        return (), problems
    added = after.moves[count:]
    state = before.state
    for ply, seat, user, text in added:
        try:
            state = state.apply_text(seat, text)
        except GameError as exc:
            problems.append(f"game #{before.game_id}: logged move {ply} {text!r} of seat {seat} is illegal: {exc}")
            return added, problems
        if user is None and not after.is_computer(seat) and not timers:
            problems.append(f"game #{before.game_id}: move {ply} {text!r} for seat {seat} with nobody's click "
                            "while the clock stood still")
    if state.to_dict() != after.state.to_dict():
        problems.append(f"game #{before.game_id}: the stored state is not its log replayed (new moves {added})")
    if added and after.version == before.version:
        problems.append(f"game #{before.game_id}: moves {added} were logged without a new version")
    return added, problems


def judge(before: Snapshot, after: Snapshot | None, user_id: int, intent: str | None, ply: int | None,
          res: InteractionResult | None) -> tuple[str, list[str]]:
    """What one interaction did to one game ("applied", "refused", "unchanged" or "changed") and what broke."""
    if after is None:
        return "changed", [f"game #{before.game_id} disappeared"]
    added, problems = new_moves(before, after)
    mine = [m for m in added if m[2] == user_id]
    others = [m for m in added if m[2] is not None and m[2] != user_id]
    if len(mine) > 1:
        problems.append(f"game #{before.game_id}: {len(mine)} moves from one interaction: {mine}")
    if others:
        problems.append(f"game #{before.game_id}: moves of other people during the interaction: {others}")
    if mine and added[0] != mine[0]:
        problems.append(f"game #{before.game_id}: the user's move {mine[0]} came after {added[0]}")
    if intent is None:
        return ("changed" if after.version != before.version else "unchanged"), problems
    legal = legal_text(before, user_id, intent, ply)
    if legal is not None:
        if [m[3] for m in mine] != [legal]:
            problems.append(f"game #{before.game_id}: the legal action {legal!r} was not applied exactly once "
                            f"(new moves {added})")
        elif refusal_of(res) is not None:
            problems.append(f"game #{before.game_id}: {legal!r} was applied but answered as refused: "
                            f"{refusal_of(res)!r}")
        return "applied", problems
    if added or after.version != before.version:
        problems.append(f"game #{before.game_id}: the illegal action {intent!r} changed the game "
                        f"(version {before.version} -> {after.version}, new moves {added})")
    if refusal_of(res) is None:
        problems.append(f"game #{before.game_id}: the illegal action {intent!r} was not refused with an ephemeral "
                        f"explanation (callback {res.callback_type if res else None})")
    return "refused", problems
