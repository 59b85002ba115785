"""What a player or a spectator may know: frozen values built by the engine, read by renderers and the AI.

Nothing here holds a hidden rank except where its viewer may know it: a player's own pieces, what the
player has deduced about enemy pieces (`possible`), a rank revealed by the reveal-winner setting, and the
full `reveal` once the game is over.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, is_dataclass
from enum import Enum
from typing import Any

from games.base import Outcome
from games.generals.pieces import ABBREVIATIONS, Rank, Result
from games.generals.rules import Settings

SETUP, PLAY, OVER = "setup", "play", "over"


@dataclass(frozen=True)
class OwnPiece:
    square: str
    rank: Rank
    moves: int  # how often it has moved (public: everyone saw it move)


@dataclass(frozen=True)
class EnemyPiece:
    square: str
    possible: frozenset[Rank]  # every rank consistent with what the viewer has seen
    moves: int


@dataclass(frozen=True)
class PublicPiece:
    square: str
    seat: int
    moves: int


@dataclass(frozen=True)
class RevealedPiece:
    square: str
    seat: int
    rank: Rank


@dataclass(frozen=True)
class Reveal:
    """The whole board once the game is over."""

    pieces: tuple[RevealedPiece, ...]  # every piece still standing, by square
    lost: tuple[tuple[Rank, ...], tuple[Rank, ...]]  # eliminated ranks per seat, high to low


@dataclass(frozen=True)
class LastMove:
    """The latest action as the viewer may see it.

    `kind` is move, setup, swap, ready, resign, timeout or draw-agreed; an opponent's or a spectator's
    view shows a swap as setup and carries no squares for either. `challenge` is the arbiter's ruling;
    `your_rank` is the viewer's own piece that moved or was challenged; `their_rank` is only ever set by
    the reveal-winner setting, for the owner of the piece that lost.
    """

    seat: int
    kind: str
    src: str | None = None
    dst: str | None = None
    challenge: Result | None = None
    your_rank: Rank | None = None
    their_rank: Rank | None = None


@dataclass(frozen=True)
class PlayerView:
    """Everything one player may know."""

    seat: int
    settings: Settings
    phase: str  # setup, play or over
    to_move: int | None  # the seat that must act now (during setup: the first seat not yet ready)
    ready: tuple[bool, bool]
    ply: int  # moves played since the setups
    quiet: int  # consecutive moves without a challenge
    own: tuple[OwnPiece, ...]  # by square; during setup, the current draft
    enemy: tuple[EnemyPiece, ...]  # by square; empty until play starts
    own_lost: tuple[Rank, ...]  # high to low
    enemy_lost: tuple[frozenset[Rank], ...]  # what the viewer knows of each eliminated enemy piece
    lost: tuple[int, int]  # eliminated pieces per seat
    last: LastMove | None
    challenge: LastMove | None  # the latest challenge (it may be `last`), as the viewer may see it
    legal: tuple[str, ...]  # the viewer's legal action texts, as GeneralsState.legal_actions lists them
    outcome: Outcome | None
    reveal: Reveal | None

    def to_dict(self) -> dict[str, Any]:
        return jsonable(self)  # type: ignore[no-any-return]


@dataclass(frozen=True)
class PublicView:
    """What a spectator may know: positions without ranks, rulings, counts; everything once over."""

    settings: Settings
    phase: str
    to_move: int | None
    ready: tuple[bool, bool]
    ply: int
    quiet: int
    pieces: tuple[PublicPiece, ...]
    lost: tuple[int, int]
    last: LastMove | None
    challenge: LastMove | None  # the latest challenge (it may be `last`)
    outcome: Outcome | None
    reveal: Reveal | None

    def to_dict(self) -> dict[str, Any]:
        return jsonable(self)  # type: ignore[no-any-return]


def jsonable(value: Any) -> Any:
    """A JSON-able form of a view: ranks as abbreviations, sets as sorted lists."""
    if type(value) in _PLAIN:
        return value
    if isinstance(value, Rank):
        return ABBREVIATIONS[value]
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Outcome):
        return value.to_dict()
    if isinstance(value, Settings):
        return value.to_dict()
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, frozenset):
        return [ABBREVIATIONS[r] for r in sorted(value, reverse=True)]
    if isinstance(value, tuple | list):
        return [jsonable(v) for v in value]
    return value


_PLAIN = frozenset({str, int, bool, float, type(None)})
