"""What anyone may see of a Chopsticks game (it has no hidden information): plain frozen values that the
engine builds and the Discord layer draws, without ever holding the engine's state."""

from __future__ import annotations

from dataclasses import dataclass

from games.base import Outcome
from games.chopsticks.notation import Hands
from games.chopsticks.rules import Rules
from games.text import Text


@dataclass(frozen=True)
class MoveChoice:
    """One legal move of the player to move: its stable text ("AC", "13-22"), the engine's words for it addressed
    to that player ("your 3 taps their 2", translated where shown), and which of their hands taps (0 = A; None for
    splits and the rest)."""

    text: str
    label: Text
    hand: int | None
    target_seat: int | None = None  # the seat whose hand an attack taps (at 3+ players, equal labels differ by it)


@dataclass(frozen=True)
class Tap:
    """The latest move, when it was an attack, told by whose hands it named. Hand letters are the mover's (the
    letters of the position it was played in: the mover's hands are A, B, ...), so they need their owners to be
    read on a board that has since been lettered from the next player."""

    hand: str  # the mover's tapping hand ("A")
    target_seat: int  # whose hand was tapped (the mover's own, with self-attacks)
    target: str  # the tapped hand's letter ("C")
    # The two hands' fingers as they were when it was played ("2", "1½"): hands are kept sorted, so after the move
    # the letters no longer point at the same hands, but these still say which ones they were. Empty when unknown
    # (a snapshot from before they were kept).
    values: tuple[str, str] | tuple[()] = ()


@dataclass(frozen=True)
class ChopsticksView:
    """Everything anyone may know about a Chopsticks position.

    `hands` are in the engine's units (half fingers with stumps); `labels` are the same values written for
    people ("1½"). `out` lists seats that went out (zombies included) in order; `zombies` the zombie seats;
    `lives` the lives left per seat (all 0 unless sudden-death is on). `first` is the seat whose hands open
    `code` (the seat to move, or the one that would be once the game is over). `moves` are the legal moves of
    the seat to move (`to_move`), in the engine's order; empty once the game is over.
    """

    rules: Rules
    code: str
    hands: tuple[Hands, ...]
    to_move: int | None
    out: tuple[int, ...]
    ply: int
    last: tuple[int, str] | None
    outcome: Outcome | None
    lives: tuple[int, ...] = ()
    zombies: tuple[int, ...] = ()
    labels: tuple[tuple[str, ...], ...] = ()
    first: int = 0
    moves: tuple[MoveChoice, ...] = ()
    last_tap: Tap | None = None  # `last` told by whose hands, when it was an attack
