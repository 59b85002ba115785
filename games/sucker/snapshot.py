"""The JSON snapshot of a So Long Sucker state, and its validation."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.base import InvalidStateError, Outcome
from games.sucker import narration
from games.sucker.piles import Chip, Pile, captures
from games.sucker.position import SuckerPosition
from games.sucker.rules import MAX_CHIPS, MAX_PLAYERS, MIN_CHIPS, MIN_PLAYERS, Phase


def to_dict(state: SuckerPosition) -> dict[str, Any]:
    """A JSON-able snapshot; colours and seats are indices."""
    return {
        "format": state.FORMAT_VERSION,
        "players": state.players,
        "chips": state.chips,
        "holdings": [list(row) for row in state.holdings],
        "piles": [[[chip.colour, chip.by] for chip in pile] for pile in state.piles],
        "dead": list(state.dead),
        "chain": list(state.chain),
        "phase": state.phase.value,
        "pile": state.pile,
        "declined": list(state.declined),
        "defeated": list(state.defeated),
        "gifts": [list(row) for row in state.gifts],
        "ply": state.ply,
        "played": state.played,
        "turn": state.turn,
        "decisions": state.decisions,
        "decision_limit": state.decision_limit,
        "last": list(state.last) if state.last else None,
        "narration": None if state.said is None else narration.to_dict(state.said),
        "recent": [narration.to_dict(said) for said in state.recent],
        "result": state.result.to_dict() if state.result else None,
    }


def fields_from_dict(data: Mapping[str, Any], version: int) -> dict[str, Any]:
    """The state's fields from a snapshot, with every shape and range checked."""
    if not isinstance(data, Mapping) or data.get("format") != version:
        found = data.get("format") if isinstance(data, Mapping) else None
        raise InvalidStateError(f"unknown So Long Sucker format {found!r}")
    try:
        players = int(data["players"])
        chips = int(data["chips"])
        _require(MIN_PLAYERS <= players <= MAX_PLAYERS, f"{players} players")
        _require(MIN_CHIPS <= chips <= MAX_CHIPS, f"{chips} chips each")
        pile_raw = data["pile"]
        last_raw = data["last"]
        last = None if last_raw is None else (int(last_raw[0]), str(last_raw[1]))
        said_raw = data.get("narration")
        said: narration.Narration | None
        if said_raw is not None:
            said = narration.from_dict(said_raw, players)
        else:  # a snapshot from before narrations were kept (its "last_said" words, if any, named no people)
            said = None if last is None else narration.recorded(*last, players)
        recent_raw = data.get("recent")
        # A snapshot from before the recent narrations were kept: its latest one is all there is.
        recent = (tuple(narration.from_dict(raw, players) for raw in recent_raw) if recent_raw is not None
                  else () if said is None else (said,))
        result_raw = data["result"]
        fields: dict[str, Any] = {
            "players": players,
            "chips": chips,
            "holdings": _table(data["holdings"], players),
            "piles": tuple(_pile(raw, players) for raw in data["piles"]),
            "dead": _row(data["dead"], players),
            "chain": _seats(data["chain"], players),
            "phase": Phase(data["phase"]),
            "pile": None if pile_raw is None else int(pile_raw),
            "declined": _seats(data["declined"], players),
            "defeated": _seats(data["defeated"], players),
            "gifts": _table(data["gifts"], players),
            "ply": int(data["ply"]),
            # A snapshot from before moves of play were counted apart: its ply counted every action.
            "played": int(data.get("played", data["ply"])),
            "turn": int(data["turn"]),
            # Both absent from snapshots stored before games had a length limit: those keep none, and count their
            # decisions by the turn counter (which also counts a few free actions: a bound, never a rule of play).
            "decisions": int(data.get("decisions", data["turn"])),
            "decision_limit": None if data.get("decision_limit") is None else int(data["decision_limit"]),
            "last": last,
            "said": said,
            "recent": recent,
            "result": None if result_raw is None else Outcome.from_dict(result_raw),
        }
    except InvalidStateError:
        raise
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        raise InvalidStateError(f"bad So Long Sucker state: {exc}") from exc
    return fields


def check(state: SuckerPosition) -> None:
    """Refuse a state that breaks the game's invariants (InvalidStateError)."""
    problems = _problems(state)
    if problems:
        raise InvalidStateError(f"bad So Long Sucker state: {problems[0]}")


def _problems(state: SuckerPosition) -> list[str]:
    if not state.chain:
        return ["nobody holds the move"]
    if len(set(state.defeated)) != len(state.defeated):
        return ["a player was defeated twice"]
    if state.phase in (Phase.KILL, Phase.NAME) and (state.pile is None or not 0 <= state.pile < len(state.piles)):
        return ["the phase names no pile"]
    if state.phase not in (Phase.KILL, Phase.NAME) and state.pile is not None:
        return ["a pile is recorded outside the kill and name phases"]
    out = []
    if any(total != state.chips for total in state.chip_totals()):
        out.append("chips were created or lost")
    if any(state.held(seat) for seat in state.defeated):
        out.append("a defeated player holds chips")
    if state.ply < 0:
        out.append("negative move count")
    if not 0 <= state.played <= state.ply:
        out.append("more moves of play than actions")
    over = state.phase is Phase.OVER
    if over != (state.result is not None):
        out.append("the phase and the result disagree")
    if state.result is not None and len(state.result.places) != state.players:
        out.append("the result does not place every player")
    # Only in the kill phase may the mover be out: they resigned while the capturing owner chooses.
    if state.phase in (Phase.PLAY, Phase.NAME, Phase.RESCUE) and not state.is_live(state.mover):
        out.append("a defeated player holds the move")
    if state.phase is Phase.KILL and state.pile is not None:
        pile = state.piles[state.pile]
        if not (captures(pile) and state.is_live(pile[-1].colour)):
            out.append("the pile to kill from was not captured by a player still in")
    if state.phase is Phase.NAME and not state.name_candidates():
        out.append("nobody may be named")
    if not over and state.current_player() is None:
        out.append("nobody is to decide")
    return out


def _require(condition: bool, what: str) -> None:
    if not condition:
        raise InvalidStateError(f"bad So Long Sucker state: {what} is out of range")


def _index(raw: Any, n: int) -> int:
    value = int(raw)
    _require(0 <= value < n, f"index {value}")
    return value


def _row(raw: Any, n: int) -> tuple[int, ...]:
    values = tuple(int(v) for v in raw)
    _require(len(values) == n and all(v >= 0 for v in values), "a row of counts")
    return values


def _table(raw: Any, n: int) -> tuple[tuple[int, ...], ...]:
    rows = tuple(_row(r, n) for r in raw)
    _require(len(rows) == n, "a table of counts")
    return rows


def _seats(raw: Any, n: int) -> tuple[int, ...]:
    return tuple(_index(s, n) for s in raw)


def _pile(raw: Any, n: int) -> Pile:
    pile = tuple(Chip(_index(colour, n), _index(by, n)) for colour, by in raw)
    _require(len(pile) > 0, "an empty pile")
    return pile
