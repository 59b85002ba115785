"""The settings (variants) of one game, from the rules page's settings table."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from games.base import GameError, InvalidStateError
from games.generals.pieces import FULL_ARMY, SMALL_ARMY, Rank
from games.text import Text

FLAG_RUSH_STANDARD = "standard"
FLAG_RUSH_IMMEDIATE = "immediate"
FLAG_RUSH_ALWAYS_WAIT = "always-wait"
FLAG_RUSH_RULES = (FLAG_RUSH_STANDARD, FLAG_RUSH_IMMEDIATE, FLAG_RUSH_ALWAYS_WAIT)

SETTING_NAMES = ("flag-rush-immediate", "flag-rush-always-wait", "reveal-winner", "show-flag", "small-army",
                 "no-challenge-draw")
MAX_NO_CHALLENGE_DRAW = 1000
# Every game is drawn after this many moves of play in all (the setup is no move), and after this many consecutive
# moves of play without a challenge whatever the no-challenge-draw setting says (rules: "No game without end").
MOVE_LIMIT = 500
QUIET_LIMIT = 100


@dataclass(frozen=True)
class Settings:
    """Which variants are on; the default is the standard game."""

    flag_rush: str = FLAG_RUSH_STANDARD
    reveal_winner: bool = False
    show_flag: bool = False
    small_army: bool = False
    no_challenge_draw: int | None = None  # N consecutive moves without a challenge draw the game
    # The length limits. None only in games stored before there were limits: they replay as they were played, and the
    # service ends them once past MOVE_LIMIT or QUIET_LIMIT (`GeneralsState.past_limit`).
    move_limit: int | None = MOVE_LIMIT
    quiet_limit: int | None = QUIET_LIMIT

    def __post_init__(self) -> None:
        if self.flag_rush not in FLAG_RUSH_RULES:
            raise GameError(Text("Unknown flag-rush rule {rule}.", rule=repr(self.flag_rush)))
        n = self.no_challenge_draw
        if n is not None and not 1 <= n <= MAX_NO_CHALLENGE_DRAW:
            raise GameError(Text("no-challenge-draw needs a number of moves from 1 to {limit}, not {number}.",
                                 limit=MAX_NO_CHALLENGE_DRAW, number=n))

    @property
    def army(self) -> tuple[Rank, ...]:
        return SMALL_ARMY if self.small_army else FULL_ARMY

    def names(self) -> list[str]:
        """The settings that are on, by their rules-page names (`no-challenge-draw=N` carries its N)."""
        out = []
        if self.flag_rush != FLAG_RUSH_STANDARD:
            out.append(f"flag-rush-{self.flag_rush}")
        out += [name for name, on in (("reveal-winner", self.reveal_winner), ("show-flag", self.show_flag),
                                      ("small-army", self.small_army)) if on]
        if self.no_challenge_draw is not None:
            out.append(f"no-challenge-draw={self.no_challenge_draw}")
        return out

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> Settings:
        """Settings from game-creation options.

        Accepted: `variants` (names from the rules page; `no-challenge-draw=N` or `no-challenge-draw:N`)
        and/or a key per setting name (`{"reveal-winner": True, "no-challenge-draw": 60}`).
        """
        chosen: dict[str, Any] = {}
        for item in _as_names(options.get("variants", ())):
            name, sep, value = item.replace(":", "=").partition("=")
            chosen[name.strip()] = value.strip() if sep else True
        for name in SETTING_NAMES:
            if name in options and options[name] not in (None, False):
                chosen[name] = options[name]
        unknown = sorted(set(chosen) - set(SETTING_NAMES))
        if unknown:
            raise GameError(Text("Unknown setting(s): {names}. Known: {known}.", names=", ".join(unknown),
                                 known=", ".join(SETTING_NAMES)))
        if "flag-rush-immediate" in chosen and "flag-rush-always-wait" in chosen:
            raise GameError(Text("Choose at most one of flag-rush-immediate and flag-rush-always-wait."))
        rush = FLAG_RUSH_STANDARD
        if "flag-rush-immediate" in chosen:
            rush = FLAG_RUSH_IMMEDIATE
        elif "flag-rush-always-wait" in chosen:
            rush = FLAG_RUSH_ALWAYS_WAIT
        draw: int | None = None
        if "no-challenge-draw" in chosen:
            raw = chosen["no-challenge-draw"]
            if raw is True or not str(raw).strip().isdigit():
                raise GameError(Text("no-challenge-draw needs its number of moves, e.g. no-challenge-draw=50."))
            draw = int(str(raw).strip())
        return cls(flag_rush=rush, reveal_winner="reveal-winner" in chosen, show_flag="show-flag" in chosen,
                   small_army="small-army" in chosen, no_challenge_draw=draw)

    def to_dict(self) -> dict[str, Any]:
        return {"flag_rush": self.flag_rush, "reveal_winner": self.reveal_winner, "show_flag": self.show_flag,
                "small_army": self.small_army, "no_challenge_draw": self.no_challenge_draw,
                "move_limit": self.move_limit, "quiet_limit": self.quiet_limit}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Settings:
        try:
            draw = data["no_challenge_draw"]
            return cls(flag_rush=str(data["flag_rush"]), reveal_winner=_strict_bool(data["reveal_winner"]),
                       show_flag=_strict_bool(data["show_flag"]), small_army=_strict_bool(data["small_army"]),
                       no_challenge_draw=None if draw is None else int(draw),
                       # Absent from snapshots stored before games had length limits: those keep none.
                       move_limit=_count(data.get("move_limit")), quiet_limit=_count(data.get("quiet_limit")))
        except (KeyError, TypeError, ValueError, GameError) as exc:
            raise InvalidStateError(f"bad Generals settings: {exc}") from exc


def _count(raw: Any) -> int | None:
    return None if raw is None else int(raw)


def _as_names(raw: Any) -> Iterable[str]:
    if isinstance(raw, str):
        return [part for part in raw.replace(";", ",").split(",") if part.strip()]
    return [str(item) for item in raw]


def _strict_bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"expected true or false, not {value!r}")
    return value
