"""The omniscient records inside a state: each piece (with what its opponent knows of it) and the last event."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from games.generals.pieces import ABBREVIATIONS, Rank, Result, parse_rank
from games.generals.rules import Settings
from games.generals.squares import parse_square, square_name


@dataclass(frozen=True)
class Piece:
    rank: Rank
    square: int | None  # None once eliminated
    moves: int  # steps and challenges it has made (public)
    known_as: frozenset[Rank]  # the ranks the opponent still considers possible for this piece

    def to_json(self) -> list[Any]:
        return [ABBREVIATIONS[self.rank], _name(self.square), self.moves,
                [ABBREVIATIONS[r] for r in sorted(self.known_as, reverse=True)]]

    @classmethod
    def from_json(cls, raw: Any) -> Piece:
        rank, square, moves, known = raw
        return cls(_rank(rank), _square(square), int(moves), frozenset(_rank(r) for r in known))


@dataclass(frozen=True)
class Event:
    """The latest action with everything about it (views filter it per audience)."""

    seat: int
    kind: str  # setup, swap, ready, move, resign, timeout, draw-agreed
    src: int | None = None
    dst: int | None = None
    mover: Rank | None = None  # the rank of the piece that moved
    defender: Rank | None = None  # the rank of the piece it challenged
    result: Result | None = None

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "kind": self.kind, "src": _name(self.src), "dst": _name(self.dst),
                "mover": _abbr(self.mover), "defender": _abbr(self.defender),
                "result": None if self.result is None else self.result.value}

    @classmethod
    def from_json(cls, raw: Any) -> Event:
        seat = int(raw["seat"])
        if seat not in (0, 1):
            raise ValueError(f"no seat {seat}")
        return cls(seat=seat, kind=str(raw["kind"]), src=_square(raw["src"]), dst=_square(raw["dst"]),
                   mover=_maybe_rank(raw["mover"]), defender=_maybe_rank(raw["defender"]),
                   result=None if raw["result"] is None else Result(raw["result"]))


def initial_knowledge(rank: Rank, settings: Settings) -> frozenset[Rank]:
    """What the opponent knows of a piece before any challenge: its army, and the Flag under show-flag."""
    everything = frozenset(settings.army)
    if settings.show_flag:
        return frozenset({Rank.FLAG}) if rank == Rank.FLAG else everything - {Rank.FLAG}
    return everything


def _name(sq: int | None) -> str | None:
    return None if sq is None else square_name(sq)


def _abbr(rank: Rank | None) -> str | None:
    return None if rank is None else ABBREVIATIONS[rank]


def _rank(raw: Any) -> Rank:
    rank = parse_rank(str(raw))
    if rank is None:
        raise ValueError(f"unknown rank {raw!r}")
    return rank


def _maybe_rank(raw: Any) -> Rank | None:
    return None if raw is None else _rank(raw)


def _square(raw: Any) -> int | None:
    if raw is None:
        return None
    sq = parse_square(str(raw))
    if sq is None:
        raise ValueError(f"unknown square {raw!r}")
    return sq
