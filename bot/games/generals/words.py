"""The words Game of the Generals boards share, in the embeds (board.py) and on the pictures (pictures.py): the
names of the sides, how a game ends, the arbiter's rulings and what a player has deduced about a hidden piece.

Each is a `Text`, rendered in the reader's language where it is shown; squares stay as the game writes them.
"""

from __future__ import annotations

from itertools import groupby

from games.base import EndReason
from games.generals.pieces import Rank, Result
from games.generals.rules import Settings
from games.text import Text, TextIn

__all__ = ["REASONS", "RULING", "SHORT_TITLES", "SIDE_NAMES", "counted", "deduction_words", "rank_name"]

# How every board, picture and text names the two sides.
SIDE_NAMES: tuple[Text, Text] = (TextIn("side", "A (white)"), TextIn("side", "B (black)"))

# How a game of the Generals can end, in words: "🏆 **… wins** (the Flag was captured)", "Draw (agreement)".
REASONS: dict[EndReason, Text] = {
    EndReason.FLAG_CAPTURED: TextIn("end reason", "the Flag was captured"),
    EndReason.FLAG_HOME: TextIn("end reason", "the Flag reached the far side"),
    EndReason.NO_CHALLENGE_DRAW: TextIn("end reason", "too many moves without a challenge"),
    EndReason.RESIGN: TextIn("end reason", "resignation"),
    EndReason.TIMEOUT: TextIn("end reason", "time ran out"),
    EndReason.DRAW_AGREED: TextIn("end reason", "agreement"),
    EndReason.MOVE_LIMIT: TextIn("end reason", "the length limit of a game"),
}

# The arbiter's ruling on a challenge, as the channel hears it (never a rank).
RULING: dict[Result, Text] = {
    Result.ATTACKER: TextIn("ruling", "the attacker won"),
    Result.DEFENDER: TextIn("ruling", "the defender held"),
    Result.BOTH: TextIn("ruling", "both pieces were eliminated"),
}


def reason_words(reason: EndReason) -> Text | str:
    """An end reason in words (a reason this game does not know is shown by its name)."""
    return REASONS.get(reason, reason.value)


# The ranks' names where a picture lists several (the lost pieces, the key of what is known): the long ones shortened.
SHORT_TITLES: dict[Rank, Text] = {
    Rank.GENERAL_5: TextIn("rank, short", "5-star Gen."), Rank.GENERAL_4: TextIn("rank, short", "4-star Gen."),
    Rank.GENERAL_3: TextIn("rank, short", "3-star Gen."), Rank.GENERAL_2: TextIn("rank, short", "2-star Gen."),
    Rank.GENERAL_1: TextIn("rank, short", "1-star Gen."), Rank.LIEUTENANT_COLONEL: TextIn("rank, short", "Lt. Col."),
    Rank.FIRST_LIEUTENANT: TextIn("rank, short", "1st Lt."), Rank.SECOND_LIEUTENANT: TextIn("rank, short", "2nd Lt."),
}


def rank_name(rank: Rank, short: bool = False) -> Text:
    """A rank's name (`short`: as a picture's lists write it)."""
    return SHORT_TITLES.get(rank, rank.title) if short else rank.title


def deduction_words(possible: frozenset[Rank], settings: Settings, short: bool = False) -> Text | None:
    """What a viewer has deduced about an enemy piece, in words a newcomer reads ("Spy or Colonel or higher"), or
    None when that is nothing beyond the army; `short` for the picture ("Spy or Col.+").

    The ranks an army has are ordered by value (Flag, Spy, Private, ... 5★ General); a run of consecutive ranks
    reads "Major or higher", "Captain or lower" or "Sergeant to Major", several runs are joined by "or".
    """
    army = sorted(set(settings.army))
    known = sorted(r for r in possible if r in army)
    if not known or len(known) == len(army):
        return None
    if set(army) - set(known) == {Rank.FLAG}:
        # Under show-flag every other piece is known not to be the Flag from the start: no news.
        return None if settings.show_flag else TextIn("deduction", "not the Flag")
    runs: list[list[Rank]] = []
    for rank in known:
        if runs and army.index(rank) == army.index(runs[-1][-1]) + 1:
            runs[-1].append(rank)
        else:
            runs.append([rank])
    parts: list[Text] = []
    for run in runs:  # low ranks first: "Spy or Colonel or higher"
        low, high = rank_name(run[0], short), rank_name(run[-1], short)
        if run[0] == run[-1]:
            parts.append(low)
        elif run[-1] == army[-1]:
            parts.append(TextIn("deduction", "{rank}+", rank=low) if short
                         else TextIn("deduction", "{rank} or higher", rank=low))
        elif run[0] == army[0]:
            parts.append(TextIn("deduction", "{rank} or lower", rank=high))
        else:
            parts.append(TextIn("deduction", "{low} to {high}", low=low, high=high))
    words = parts[0]
    for part in parts[1:]:
        words = TextIn("deduction", "{first} or {second}", first=words, second=part)
    return words


def counted(names: list[Text]) -> list[Text]:
    """Names in order, each repeated run once with its count: "Private x3" (with a multiplication sign)."""
    out: list[Text] = []
    for name, group in groupby(names):
        count = len(list(group))
        out.append(name if count == 1 else TextIn("pieces", "{name} \N{MULTIPLICATION SIGN}{count}", name=name,
                                                          count=count))
    return out
