"""The rule set of one Chopsticks game: players, hands, rollover number, variant switches and their options.

Every decision the rules page (../shared/rules/chopsticks.md) leaves open is settled here or in `moves.py`
and listed in `Rules.problems` (which combinations are refused, and why).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from games.base import GameError, InvalidStateError
from games.text import Joined, Plural, Text

MIN_PLAYERS, MAX_PLAYERS = 2, 6
MIN_HANDS, MAX_HANDS = 1, 4
MIN_ROLLOVER, MAX_ROLLOVER = 2, 10
MAX_LIVES = 9
# Every game is drawn after this many moves in all (plies), whatever the variant: in big tables (many players, hands
# or a high rollover number) positions rarely come up three times, and a game must end (rules: "No game without end").
MAX_PLIES = 300

# name -> one sentence for players (shown by `/chopsticks rules`); "5" is the standard rollover number. The names are
# what players type (`variants:cutoff suicide`), in every language.
VARIANTS: dict[str, Text] = {
    "cutoff": Text("A hand that reaches the rollover number (5) or more dies, instead of rolling over."),
    "self-attack": Text("A hand may also tap your own other hand."),
    "suicide": Text("A split may kill one of your own hands (12 → 03), never all of them."),
    "meta": Text("If your fingers add up to more than 5 you may combine them, take 5 away and split the rest "
                 "(44 → 12)."),
    "misere": Text("Misère: the first player to lose every hand wins."),
    "swap": Text("With two different live hands you may swap them, spending your turn."),
    "logan": Text("Logan's clause: you may swap a dead hand with a live one, spending your turn."),
    "sudden-death": Text("A player left with a single finger is out; with lives, each drop to one finger costs a "
                         "life."),
    "zombie": Text("A player who goes out stays on as a one-finger zombie that taps but can't split or be tapped."),
    "transfers-only": Text("Splits only move fingers between live hands: a dead hand can't be revived."),
    "divisions-only": Text("A split is allowed only to revive a dead hand."),
    "halves": Text("A split must share your fingers equally (with the odd option: as evenly as possible)."),
    "stumps": Text("A player on a single finger (01) may split it into two half fingers (½ ½)."),
    "sans": Text("Every hand starts one finger short of dying (44 instead of 11)."),
    "cherry": Text("Rearranging your own hands counts as a move, spending your turn."),
    "integers": Text("You may flip a hand to 5 minus its fingers (4 → 1), spending your turn."),
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
    # The game is drawn after this many moves in all. None only in games stored before there was a limit: they replay
    # as they were played, and the service ends them once past MAX_PLIES (`ChopsticksState.past_limit`).
    max_plies: int | None = MAX_PLIES
    _hash: int = field(default=0, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Accept any iterable of names in any spelling, so callers can pass lists straight from options.
        raw: Iterable[Any] = self.variants
        if isinstance(raw, str):
            raw = [raw]
        object.__setattr__(self, "variants", frozenset(variant_name(str(v)) for v in raw))
        problems = self.problems()
        if problems:
            raise GameError(problems[0] if len(problems) == 1 else Joined(problems, " "))
        # Rules key the move caches, which look them up millions of times in a solve or a count.
        fields = (self.players, self.hands, self.rollover, self.variants, self.lives, self.odd, self.max_plies)
        object.__setattr__(self, "_hash", hash(fields))

    def __hash__(self) -> int:
        return self._hash

    def problems(self) -> list[Text]:
        """Why this rule set cannot be played (empty when it can)."""
        out = []
        v = self.variants
        if not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            out.append(Text("Chopsticks needs {fewest} to {most} players, not {players}.", fewest=MIN_PLAYERS,
                            most=MAX_PLAYERS, players=self.players))
        if not MIN_HANDS <= self.hands <= MAX_HANDS:
            out.append(Text("Each player has {fewest} to {most} hands, not {hands}.", fewest=MIN_HANDS,
                            most=MAX_HANDS, hands=self.hands))
        if not MIN_ROLLOVER <= self.rollover <= MAX_ROLLOVER:
            out.append(Text("The rollover number must be {lowest} to {highest}, not {rollover}.",
                            lowest=MIN_ROLLOVER, highest=MAX_ROLLOVER, rollover=self.rollover))
        if "wet-jackson" in v:
            out.append(Text("Wet Jackson needs a physical gesture, so it can't be played here."))
        unknown = sorted(v - VARIANTS.keys() - {"wet-jackson"})
        if unknown:
            out.append(Text("Unknown variant(s): {unknown}. Choose from {names}.", unknown=", ".join(unknown),
                            names=", ".join(VARIANTS)))
        if not 1 <= self.lives <= MAX_LIVES:
            out.append(Text("Lives must be 1 to {most}, not {lives}.", most=MAX_LIVES, lives=self.lives))
        elif self.lives > 1 and "sudden-death" not in v:
            out.append(Text("Lives only count with the sudden-death variant: add it, or drop the lives."))
        if self.odd and "halves" not in v:
            out.append(Text("The odd option only applies to the halves variant: add it, or drop the option."))
        if "zombie" in v and self.players < 3:
            out.append(Text("Zombie needs at least 3 players: with 2, the first knockout ends the game."))
        if {"zombie", "misere"} <= v:
            out.append(Text("Zombie and misère don't mix: in misère the first knockout ends the game, so nobody "
                            "would ever become a zombie."))
        if {"transfers-only", "divisions-only"} <= v:
            out.append(Text("Transfers-only and divisions-only together would forbid every split: choose one."))
        if {"suicide", "divisions-only"} <= v:
            out.append(Text("Suicide does nothing with divisions-only (every split must revive a hand): choose one."))
        for other in ("swap", "suicide", "cherry"):
            if {"logan", other} <= v:
                out.append(Text("Logan's clause allows swapping and suicide only together, so it can't be combined "
                                "with {variant}.", variant=other))
        if {"stumps", "sudden-death"} <= v and self.lives == 1:
            out.append(Text("Stumps needs a player to survive on one finger, which sudden-death forbids unless "
                            "players have 2 or more lives."))
        if self.hands < 2:
            single = [name for name in _NEEDS_TWO_HANDS if name in v]
            if single:
                out.append(Text("{variants} need(s) at least 2 hands per player.", variants=", ".join(single)))
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

    def describe(self) -> list[Text]:
        """Plain lines describing the active rules, for players."""
        r, v = self.rollover, self.variants
        lines: list[Text] = [Text(
            "{players}, {hands} each; every hand starts with {fingers}.",
            players=Plural("{count} player", "{count} players", self.players),
            hands=Plural("{count} hand", "{count} hands", self.hands),
            fingers=Plural("{count} finger", "{count} fingers", self.start_value // self.unit))]
        if "cutoff" in v:
            lines.append(Text("A hand that reaches {rollover} or more fingers dies.", rollover=r))
        else:
            lines.append(Text("A hand that reaches exactly {rollover} fingers dies; above {rollover}, {rollover} is "
                              "taken away.", rollover=r))
        if "suicide" in v:
            lines.append(Text("On your turn tap an opponent's hand with one of yours, or split your fingers between "
                              "your hands (never just swapping them)."))
        else:
            lines.append(Text("On your turn tap an opponent's hand with one of yours, or split your fingers between "
                              "your hands (never just swapping them, never killing your own hand)."))
        for name in VARIANTS:
            if name not in v:
                continue
            parts: list[Text | str] = [f"{name}: ", self._variant_text(name)]
            if name == "sudden-death" and self.lives > 1:
                parts += [" ", Plural("Each player has {count} life.", "Each player has {count} lives.", self.lives)]
            lines.append(Joined(parts, ""))
        if "misere" in v:
            lines.append(Text("The first player with every hand dead wins."))
        else:
            lines.append(Text("You win when every opponent is out."))
        lines.append(Text("The third time the same position comes up, the game is drawn."))
        if self.max_plies is not None:
            lines.append(Plural("After {count} move in all, the game is drawn.",
                                "After {count} moves in all, the game is drawn.", self.max_plies))
        return lines

    def _variant_text(self, name: str) -> Text:
        """VARIANTS[name] with this game's rollover number in place of the standard 5."""
        r = self.rollover
        if name == "halves":
            return Text("A split must share your fingers as evenly as possible.") if self.odd else \
                Text("A split must share your fingers equally.")
        if name == "sans":
            return Plural("Every hand starts with {count} finger, one short of dying.",
                          "Every hand starts with {count} fingers, one short of dying.", r - 1)
        if r == 5:
            return VARIANTS[name]
        own = {
            "cutoff": Text("A hand that reaches {rollover} or more fingers dies, instead of rolling over.",
                           rollover=r),
            "meta": Text("If your fingers add up to more than {rollover} you may combine them, take {rollover} away "
                         "and split the rest.", rollover=r),
            "integers": Text("You may flip a hand to {rollover} minus its fingers, spending your turn.", rollover=r),
        }
        return own.get(name, VARIANTS[name])

    # ----- options and serialisation -----------------------------------------------------------------------
    @classmethod
    def from_options(cls, players: int, options: Mapping[str, Any]) -> Rules:
        """The rules described by `new()`'s options (a preset, then explicit keys on top of it)."""
        unknown = sorted(set(options) - OPTION_KEYS)
        if unknown:
            raise GameError(Text("Unknown Chopsticks option(s): {options}.", options=", ".join(unknown)))
        merged: dict[str, Any] = {}
        preset = options.get("preset")
        if preset is not None:
            if preset not in PRESETS:
                raise GameError(Text("There is no preset {preset}; choose from {presets}.", preset=repr(preset),
                                     presets=", ".join(PRESETS)))
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
            raise GameError(Text("Bad Chopsticks option: {reason}", reason=str(exc))) from None

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "hands": self.hands,
            "rollover": self.rollover,
            "variants": sorted(self.variants),
            "lives": self.lives,
            "odd": self.odd,
            "max_plies": self.max_plies,
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
                # Absent from snapshots stored before games had a length limit: those keep none (see `max_plies`).
                max_plies=None if data.get("max_plies") is None else int(data["max_plies"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidStateError(f"bad Chopsticks rules: {exc}") from exc


def _names(value: Any) -> list[str]:
    """Variant names from a list, or from one string separated by spaces or commas."""
    if isinstance(value, str):
        return value.replace(",", " ").split()
    if isinstance(value, Iterable):
        return [str(v) for v in value]
    raise GameError(Text("Variants must be a list of names."))


def _flag(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "yes", "on")
    return bool(value)
