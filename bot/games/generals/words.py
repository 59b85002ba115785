"""The words Game of the Generals boards share, in the embeds (board.py) and on the pictures (pictures.py): the
names of the sides, how a game ends, the arbiter's rulings and the short labels of what a player has deduced.

Each is a `Text`, rendered in the reader's language where it is shown; the notation (squares, rank abbreviations
such as `MAJ`) stays as the game writes it in every language.
"""

from __future__ import annotations

from bot.i18n import SOURCE, render
from games.base import EndReason
from games.generals.pieces import ABBREVIATIONS, Rank, Result
from games.generals.rules import Settings
from games.text import Text, TextIn

__all__ = ["REASONS", "RULING", "SIDE_NAMES", "knowledge_label"]

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


def knowledge_label(possible: frozenset[Rank], settings: Settings, ascii_only: bool = False,
                    language: str = SOURCE) -> str:
    """A short text for what a viewer has deduced about an enemy piece ('' when nothing beyond the army), in
    `language` (only "not FLG" has a word in it; the rest is notation).

    The ranks an army has are ordered by value (Flag, Spy, Private, ... 5★ General); a run of consecutive
    ranks reads `≥MAJ`, `≤CPT` or `SGT-MAJ`, several runs are joined by `/`.
    """
    army = sorted(set(settings.army))
    known = sorted(r for r in possible if r in army)
    if not known or len(known) == len(army):
        return ""
    if set(army) - set(known) == {Rank.FLAG}:
        # Under show-flag every other piece is known not to be the Flag from the start: no news.
        if settings.show_flag:
            return ""
        return render(TextIn("deduction", "not {rank}", rank=ABBREVIATIONS[Rank.FLAG]), language) if ascii_only \
            else "≠" + ABBREVIATIONS[Rank.FLAG]
    ge, le = (">=", "<=") if ascii_only else ("≥", "≤")
    runs: list[list[Rank]] = []
    for rank in known:
        if runs and army.index(rank) == army.index(runs[-1][-1]) + 1:
            runs[-1].append(rank)
        else:
            runs.append([rank])
    parts = []
    for run in reversed(runs):  # high ranks first
        low, high = run[0], run[-1]
        if low == high:
            parts.append(ABBREVIATIONS[low])
        elif high == army[-1]:
            parts.append(ge + ABBREVIATIONS[low])
        elif low == army[0]:
            parts.append(le + ABBREVIATIONS[high])
        else:
            parts.append(f"{ABBREVIATIONS[low]}-{ABBREVIATIONS[high]}")
    return "/".join(parts)
