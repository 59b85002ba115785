"""The rule set of one Chopsticks game: players, hands, rollover number and variant switches."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from games.base import GameError, InvalidStateError

MIN_PLAYERS, MAX_PLAYERS = 2, 6
MIN_HANDS, MAX_HANDS = 1, 4
MIN_ROLLOVER, MAX_ROLLOVER = 2, 10

# Variants from ../shared/rules/chopsticks.md arrive with the full-Chopsticks issue; until then a game with
# any variant is refused at creation rather than played by the wrong rules.
KNOWN_VARIANTS: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Rules:
    players: int = 2
    hands: int = 2
    rollover: int = 5
    variants: frozenset[str] = field(default_factory=frozenset)

    def __post_init__(self) -> None:
        problems = self.problems()
        if problems:
            raise GameError(problems[0])

    def problems(self) -> list[str]:
        """Why this rule set cannot be played (empty when it can)."""
        out = []
        if not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            out.append(f"Chopsticks needs {MIN_PLAYERS} to {MAX_PLAYERS} players, not {self.players}.")
        if not MIN_HANDS <= self.hands <= MAX_HANDS:
            out.append(f"Each player has {MIN_HANDS} to {MAX_HANDS} hands, not {self.hands}.")
        if not MIN_ROLLOVER <= self.rollover <= MAX_ROLLOVER:
            out.append(f"The rollover number must be {MIN_ROLLOVER} to {MAX_ROLLOVER}, not {self.rollover}.")
        unknown = sorted(self.variants - KNOWN_VARIANTS)
        if unknown:
            out.append(f"Variant(s) not available yet: {', '.join(unknown)}.")
        return out

    @property
    def is_standard(self) -> bool:
        return self == Rules()

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "hands": self.hands,
            "rollover": self.rollover,
            "variants": sorted(self.variants),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rules:
        try:
            return cls(
                players=int(data["players"]),
                hands=int(data["hands"]),
                rollover=int(data["rollover"]),
                variants=frozenset(str(v) for v in data.get("variants", ())),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidStateError(f"bad Chopsticks rules: {exc}") from exc
