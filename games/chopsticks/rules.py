"""The rule set of one Chopsticks game: players, hands, rollover number, variant switches and their options.

Every decision the rules page (../shared/rules/chopsticks.md) leaves open is settled here or in `moves.py`
and listed in `Rules.problems` (which combinations are refused, and why).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from games.base import GameError, InvalidStateError

MIN_PLAYERS, MAX_PLAYERS = 2, 6
MIN_HANDS, MAX_HANDS = 1, 4
MIN_ROLLOVER, MAX_ROLLOVER = 2, 10
MAX_LIVES = 9

# name -> one sentence for players (shown by `/chopsticks rules`); "5" is the standard rollover number.
VARIANTS: dict[str, str] = {
    "cutoff": "A hand that reaches the rollover number (5) or more dies, instead of rolling over.",
    "self-attack": "A hand may also tap your own other hand.",
    "suicide": "A split may kill one of your own hands (12 → 03), never all of them.",
    "meta": "If your fingers add up to more than 5 you may combine them, take 5 away and split the rest (44 → 12).",
    "misere": "Misère: the first player to lose every hand wins.",
    "swap": "With two different live hands you may swap them, spending your turn.",
    "logan": "Logan's clause: you may swap a dead hand with a live one, spending your turn.",
    "sudden-death": "A player left with a single finger is out; with lives, each drop to one finger costs a life.",
    "zombie": "A player who goes out stays on as a one-finger zombie that taps but can't split or be tapped.",
    "transfers-only": "Splits only move fingers between live hands: a dead hand can't be revived.",
    "divisions-only": "A split is allowed only to revive a dead hand.",
    "halves": "A split must share your fingers equally (with the odd option: as evenly as possible).",
    "stumps": "A player on a single finger (01) may split it into two half fingers (½ ½).",
    "sans": "Every hand starts one finger short of dying (44 instead of 11).",
    "cherry": "Rearranging your own hands counts as a move, spending your turn.",
    "integers": "You may flip a hand to 5 minus its fingers (4 → 1), spending your turn.",
}

_ALIASES = {
    "misère": "misere",
    "self": "self-attack",
    "selfattack": "self-attack",
    "sudden": "sudden-death",
    "suddendeath": "sudden-death",
    "transfers": "transfers-only",
    "divisions": "divisions-only",
    "half": "halves",
    "stump": "stumps",
    "logans": "logan",
    "logan's": "logan",
    "logan's-clause": "logan",
}

# Variants that only mean something when a player has at least two hands.
_NEEDS_TWO_HANDS = ("self-attack", "suicide", "meta", "swap", "logan", "sudden-death", "transfers-only",
                    "divisions-only", "halves", "stumps", "cherry")

# Named rule sets for `/chopsticks new preset:` and the CLI's --preset; each is an options dict for `new()`.
PRESETS: dict[str, dict[str, Any]] = {
    "standard": {},
    "cutoff": {"variants": ["cutoff"]},
    "cutoff-self-attack": {"variants": ["cutoff", "self-attack"]},
    "cutoff-suicide": {"variants": ["cutoff", "suicide"]},
    "suicide": {"variants": ["suicide"]},
    "meta-suicide": {"variants": ["meta", "suicide"]},
    "misere": {"variants": ["misere"]},
    "sans": {"variants": ["sans"]},
    "sudden-death": {"variants": ["sudden-death"], "lives": 3},
    "halves": {"variants": ["halves"], "odd": True},
    "integers": {"variants": ["integers"]},
    "zombie-party": {"variants": ["zombie"]},
    "three-hands": {"hands": 3, "rollover": 7},
}

OPTION_KEYS = frozenset({"hands", "rollover", "variants", "lives", "odd", "first", "preset"})


def variant_name(name: str) -> str:
    """The canonical spelling of a variant name ("Misère" -> "misere", "self_attack" -> "self-attack")."""
    key = "-".join(name.strip().lower().replace("_", " ").split())
    return _ALIASES.get(key, _ALIASES.get(key.replace("-", ""), key))


@dataclass(frozen=True)
class Rules:
    """How one game is played. Invalid combinations raise GameError at construction, with a player-facing reason."""

    players: int = 2
    hands: int = 2
    rollover: int = 5
    variants: frozenset[str] = field(default_factory=frozenset)
    lives: int = 1  # with sudden-death: how many drops to one finger a player survives, minus one
    odd: bool = False  # with halves: an odd total may be split as evenly as possible
    _hash: int = field(default=0, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Accept any iterable of names in any spelling, so callers can pass lists straight from options.
        raw: Iterable[Any] = self.variants
        if isinstance(raw, str):
            raw = [raw]
        object.__setattr__(self, "variants", frozenset(variant_name(str(v)) for v in raw))
        problems = self.problems()
        if problems:
            raise GameError(" ".join(problems))
        # Rules key the move caches, which look them up millions of times in a solve or a count.
        fields = (self.players, self.hands, self.rollover, self.variants, self.lives, self.odd)
        object.__setattr__(self, "_hash", hash(fields))

    def __hash__(self) -> int:
        return self._hash

    def problems(self) -> list[str]:
        """Why this rule set cannot be played (empty when it can)."""
        out = []
        v = self.variants
        if not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            out.append(f"Chopsticks needs {MIN_PLAYERS} to {MAX_PLAYERS} players, not {self.players}.")
        if not MIN_HANDS <= self.hands <= MAX_HANDS:
            out.append(f"Each player has {MIN_HANDS} to {MAX_HANDS} hands, not {self.hands}.")
        if not MIN_ROLLOVER <= self.rollover <= MAX_ROLLOVER:
            out.append(f"The rollover number must be {MIN_ROLLOVER} to {MAX_ROLLOVER}, not {self.rollover}.")
        if "wet-jackson" in v:
            out.append("Wet Jackson needs a physical gesture, so it can't be played here.")
        unknown = sorted(v - VARIANTS.keys() - {"wet-jackson"})
        if unknown:
            out.append(f"Unknown variant(s): {', '.join(unknown)}. Choose from {', '.join(VARIANTS)}.")
        if not 1 <= self.lives <= MAX_LIVES:
            out.append(f"Lives must be 1 to {MAX_LIVES}, not {self.lives}.")
        elif self.lives > 1 and "sudden-death" not in v:
            out.append("Lives only count with the sudden-death variant: add it, or drop the lives.")
        if self.odd and "halves" not in v:
            out.append("The odd option only applies to the halves variant: add it, or drop the option.")
        if "zombie" in v and self.players < 3:
            out.append("Zombie needs at least 3 players: with 2, the first knockout ends the game.")
        if {"zombie", "misere"} <= v:
            out.append("Zombie and misère don't mix: in misère the first knockout ends the game, so nobody "
                       "would ever become a zombie.")
        if {"transfers-only", "divisions-only"} <= v:
            out.append("Transfers-only and divisions-only together would forbid every split: choose one.")
        if {"suicide", "divisions-only"} <= v:
            out.append("Suicide does nothing with divisions-only (every split must revive a hand): choose one.")
        for other in ("swap", "suicide", "cherry"):
            if {"logan", other} <= v:
                out.append(f"Logan's clause allows swapping and suicide only together, so it can't be combined "
                           f"with {other}.")
        if {"stumps", "sudden-death"} <= v and self.lives == 1:
            out.append("Stumps needs a player to survive on one finger, which sudden-death forbids unless "
                       "players have 2 or more lives.")
        if self.hands < 2:
            single = [name for name in _NEEDS_TWO_HANDS if name in v]
            if single:
                out.append(f"{', '.join(single)} need(s) at least 2 hands per player.")
        return out

    # ----- derived facts ----------------------------------------------------------------------------------
    @property
    def is_standard(self) -> bool:
        """The official rules: 2 hands, rollover 5, no variants (any number of players)."""
        return self.hands == 2 and self.rollover == 5 and not self.variants

    @property
    def unit(self) -> int:
        """Hand values are counted in 1/unit fingers: half fingers with stumps, whole fingers otherwise."""
        return 2 if "stumps" in self.variants else 1

    @property
    def limit(self) -> int:
        """The rollover number in units: a hand reaching it dies."""
        return self.rollover * self.unit

    @property
    def start_value(self) -> int:
        """Each hand's starting value in units (1 finger, or one short of dying with sans)."""
        return (self.rollover - 1 if "sans" in self.variants else 1) * self.unit

    @property
    def max_lives(self) -> int:
        """Lives each player starts with: 0 when sudden-death is off (lives are not tracked then)."""
        return self.lives if "sudden-death" in self.variants else 0

    def has(self, variant: str) -> bool:
        return variant in self.variants

    def describe(self) -> list[str]:
        """Plain lines describing the active rules, for players."""
        r, v = self.rollover, self.variants
        fingers = self.start_value // self.unit
        start = f"{fingers} finger{'s' * (fingers > 1)}"
        lines = [f"{self.players} players, {self.hands} hand{'s' * (self.hands > 1)} each; every hand starts "
                 f"with {start}."]
        if "cutoff" in v:
            lines.append(f"A hand that reaches {r} or more fingers dies.")
        else:
            lines.append(f"A hand that reaches exactly {r} fingers dies; above {r}, {r} is taken away.")
        limits = "never just swapping them" + ("" if "suicide" in v else ", never killing your own hand")
        lines.append(f"On your turn tap an opponent's hand with one of yours, or split your fingers between your "
                     f"hands ({limits}).")
        for name in VARIANTS:
            if name not in v:
                continue
            text = self._variant_text(name)
            if name == "sudden-death" and self.lives > 1:
                text += f" Each player has {self.lives} lives."
            lines.append(f"{name}: {text}")
        if "misere" in v:
            lines.append("The first player with every hand dead wins.")
        else:
            lines.append("You win when every opponent is out.")
        lines.append("The third time the same position comes up, the game is drawn.")
        return lines

    def _variant_text(self, name: str) -> str:
        """VARIANTS[name] with this game's rollover number in place of the standard 5."""
        r = self.rollover
        own = {
            "cutoff": f"A hand that reaches {r} or more fingers dies, instead of rolling over.",
            "meta": f"If your fingers add up to more than {r} you may combine them, take {r} away and split the rest.",
            "sans": f"Every hand starts with {r - 1} fingers, one short of dying.",
            "integers": f"You may flip a hand to {r} minus its fingers, spending your turn.",
        }
        if name == "halves":
            return "A split must share your fingers " + ("as evenly as possible." if self.odd else "equally.")
        return own.get(name, VARIANTS[name]) if r != 5 or name == "sans" else VARIANTS[name]

    # ----- options and serialisation -----------------------------------------------------------------------
    @classmethod
    def from_options(cls, players: int, options: Mapping[str, Any]) -> Rules:
        """The rules described by `new()`'s options (a preset, then explicit keys on top of it)."""
        unknown = sorted(set(options) - OPTION_KEYS)
        if unknown:
            raise GameError(f"Unknown Chopsticks option(s): {', '.join(unknown)}.")
        merged: dict[str, Any] = {}
        preset = options.get("preset")
        if preset is not None:
            if preset not in PRESETS:
                raise GameError(f"There is no preset {preset!r}; choose from {', '.join(PRESETS)}.")
            merged.update(PRESETS[preset])
        variants = [*merged.get("variants", ()), *_names(options.get("variants", ()))]
        merged.update({k: options[k] for k in ("hands", "rollover", "lives", "odd") if k in options})
        try:
            return cls(
                players=int(players),
                hands=int(merged.get("hands", 2)),
                rollover=int(merged.get("rollover", 5)),
                variants=frozenset(variants),
                lives=int(1 if merged.get("lives") is None else merged["lives"]),
                odd=_flag(merged.get("odd", False)),
            )
        except (TypeError, ValueError) as exc:
            if isinstance(exc, GameError):
                raise
            raise GameError(f"Bad Chopsticks option: {exc}") from None

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "hands": self.hands,
            "rollover": self.rollover,
            "variants": sorted(self.variants),
            "lives": self.lives,
            "odd": self.odd,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rules:
        try:
            return cls(
                players=int(data["players"]),
                hands=int(data["hands"]),
                rollover=int(data["rollover"]),
                variants=frozenset(str(v) for v in data.get("variants", ())),
                lives=int(data.get("lives", 1)),
                odd=bool(data.get("odd", False)),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidStateError(f"bad Chopsticks rules: {exc}") from exc


def _names(value: Any) -> list[str]:
    """Variant names from a list, or from one string separated by spaces or commas."""
    if isinstance(value, str):
        return value.replace(",", " ").split()
    if isinstance(value, Iterable):
        return [str(v) for v in value]
    raise GameError("Variants must be a list of names.")


def _flag(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "yes", "on")
    return bool(value)
