"""Ranks, the two armies, and the arbiter's challenge table (rules: ../shared/rules/generals.md)."""

from __future__ import annotations

from collections import Counter
from enum import Enum, IntEnum
from functools import cache

from games.text import Text, TextIn


class Rank(IntEnum):
    """A piece's rank; the value orders the officers (the Spy and the Flag follow their own rules)."""

    # Values start at 1 so that no rank is falsy (`if rank:` must never mistake the Flag for nothing).
    FLAG = 1
    SPY = 2
    PRIVATE = 3
    SERGEANT = 4
    SECOND_LIEUTENANT = 5
    FIRST_LIEUTENANT = 6
    CAPTAIN = 7
    MAJOR = 8
    LIEUTENANT_COLONEL = 9
    COLONEL = 10
    GENERAL_1 = 11
    GENERAL_2 = 12
    GENERAL_3 = 13
    GENERAL_4 = 14
    GENERAL_5 = 15

    @property
    def abbreviation(self) -> str:
        return ABBREVIATIONS[self]

    @property
    def title(self) -> Text:
        """The rank's name, translated where it is shown (the abbreviation is notation: the same everywhere)."""
        return TITLES[self]

    @property
    def is_officer(self) -> bool:
        """Sergeant up to 5★ General: the pieces a Spy eliminates."""
        return self >= Rank.SERGEANT


ABBREVIATIONS: dict[Rank, str] = {
    Rank.GENERAL_5: "5G", Rank.GENERAL_4: "4G", Rank.GENERAL_3: "3G", Rank.GENERAL_2: "2G", Rank.GENERAL_1: "1G",
    Rank.COLONEL: "COL", Rank.LIEUTENANT_COLONEL: "LTC", Rank.MAJOR: "MAJ", Rank.CAPTAIN: "CPT",
    Rank.FIRST_LIEUTENANT: "1LT", Rank.SECOND_LIEUTENANT: "2LT", Rank.SERGEANT: "SGT", Rank.PRIVATE: "PVT",
    Rank.SPY: "SPY", Rank.FLAG: "FLG",
}
# In the context "rank": the same English words name other things elsewhere (a "Flag", a "Private" message).
TITLES: dict[Rank, Text] = {
    Rank.GENERAL_5: TextIn("rank", "5★ General"), Rank.GENERAL_4: TextIn("rank", "4★ General"),
    Rank.GENERAL_3: TextIn("rank", "3★ General"), Rank.GENERAL_2: TextIn("rank", "2★ General"),
    Rank.GENERAL_1: TextIn("rank", "1★ General"), Rank.COLONEL: TextIn("rank", "Colonel"),
    Rank.LIEUTENANT_COLONEL: TextIn("rank", "Lt. Colonel"), Rank.MAJOR: TextIn("rank", "Major"),
    Rank.CAPTAIN: TextIn("rank", "Captain"), Rank.FIRST_LIEUTENANT: TextIn("rank", "1st Lieutenant"),
    Rank.SECOND_LIEUTENANT: TextIn("rank", "2nd Lieutenant"), Rank.SERGEANT: TextIn("rank", "Sergeant"),
    Rank.PRIVATE: TextIn("rank", "Private"), Rank.SPY: TextIn("rank", "Spy"), Rank.FLAG: TextIn("rank", "Flag"),
}
_BY_ABBREVIATION = {abbr: rank for rank, abbr in ABBREVIATIONS.items()}
# Spellings people type for the same pieces; the canonical text form is always the abbreviation above.
_ALIASES = {"5*G": Rank.GENERAL_5, "4*G": Rank.GENERAL_4, "3*G": Rank.GENERAL_3, "2*G": Rank.GENERAL_2,
            "1*G": Rank.GENERAL_1, "G5": Rank.GENERAL_5, "G4": Rank.GENERAL_4, "G3": Rank.GENERAL_3,
            "G2": Rank.GENERAL_2, "G1": Rank.GENERAL_1, "FLAG": Rank.FLAG, "PRV": Rank.PRIVATE}

PIECE_LIST = " ".join(ABBREVIATIONS[r] for r in sorted(Rank, reverse=True))


def parse_rank(token: str) -> Rank | None:
    """The rank an abbreviation names (case-insensitive), or None."""
    key = token.strip().upper().replace("★", "*")
    return _BY_ABBREVIATION.get(key) or _ALIASES.get(key)


FULL_ARMY: tuple[Rank, ...] = (
    Rank.GENERAL_5, Rank.GENERAL_4, Rank.GENERAL_3, Rank.GENERAL_2, Rank.GENERAL_1, Rank.COLONEL,
    Rank.LIEUTENANT_COLONEL, Rank.MAJOR, Rank.CAPTAIN, Rank.FIRST_LIEUTENANT, Rank.SECOND_LIEUTENANT,
    Rank.SERGEANT, *[Rank.PRIVATE] * 6, Rank.SPY, Rank.SPY, Rank.FLAG,
)
SMALL_ARMY: tuple[Rank, ...] = (
    Rank.GENERAL_5, Rank.GENERAL_4, Rank.GENERAL_3, Rank.COLONEL, Rank.MAJOR, Rank.CAPTAIN, Rank.SERGEANT,
    Rank.PRIVATE, Rank.PRIVATE, Rank.SPY, Rank.FLAG,
)


def army_counts(army: tuple[Rank, ...]) -> Counter[Rank]:
    return Counter(army)


class Result(Enum):
    """What the arbiter announces after a challenge; the value is the public wording."""

    ATTACKER = "attacker won"
    DEFENDER = "defender won"
    BOTH = "both eliminated"


@cache
def challenge(attacker: Rank, defender: Rank) -> Result:
    """The arbiter's ruling when `attacker` moves onto `defender`."""
    if attacker == defender:
        # Equal ranks eliminate both, except that an attacking Flag takes the enemy Flag.
        return Result.ATTACKER if attacker == Rank.FLAG else Result.BOTH
    if defender == Rank.FLAG:
        return Result.ATTACKER
    if attacker == Rank.FLAG:
        return Result.DEFENDER
    if attacker == Rank.SPY:
        return Result.DEFENDER if defender == Rank.PRIVATE else Result.ATTACKER
    if defender == Rank.SPY:
        return Result.ATTACKER if attacker == Rank.PRIVATE else Result.DEFENDER
    return Result.ATTACKER if attacker > defender else Result.DEFENDER


@cache
def attackers_consistent(defender: Rank, result: Result) -> frozenset[Rank]:
    """Every attacker rank that would have produced `result` against `defender`."""
    return frozenset(r for r in Rank if challenge(r, defender) == result)


@cache
def defenders_consistent(attacker: Rank, result: Result) -> frozenset[Rank]:
    """Every defender rank that would have produced `result` against `attacker`."""
    return frozenset(r for r in Rank if challenge(attacker, r) == result)
