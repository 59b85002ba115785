"""Wordings more than one part of the bot uses: how a closed challenge reads, and durations.

Kept in one place so that every game says the same thing the same way (a challenge of any game "has expired").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.text import Text


def challenge_sides(options: Mapping[str, Any]) -> tuple[int, int]:
    """(the seat that sent a two-player challenge, the seat it was sent to), from the game's options: a rematch is
    sent by whoever asked for it, whatever seat they now sit in."""
    sender = int(options.get("challenger", 0))
    return sender, 1 - sender


def decliner(declined_by: int | None, sender: int) -> int | None:
    """`closed_challenge_line`'s `declined_by` (0: the challenger, 1: the opponent) for the seat that called a
    challenge off."""
    return None if declined_by is None else int(declined_by != sender)


def closed_challenge_line(status: str, challenger: Text | str, opponent: Text | str,
                          declined_by: int | None = None) -> Text:
    """Why a two-player challenge is no longer open, in words. `declined_by` is the seat that called it off
    when it is known (0: the challenger withdrew it, 1: the opponent declined it)."""
    if status == "expired":
        return Text("This challenge has expired: {opponent} did not answer in time.", opponent=opponent)
    if status == "declined":
        if declined_by == 0:
            return Text("{challenger} withdrew this challenge.", challenger=challenger)
        if declined_by == 1:
            return Text("{opponent} declined this challenge.", opponent=opponent)
        return Text("This challenge was called off.")
    # Accepted: the message shows the game itself from then on, so this only words a status read too late.
    return Text("{opponent} accepted this challenge.", opponent=opponent)


def duration(seconds: float) -> Text:
    """A turn time or a game's length, as people say it: "30 s", "15 min", "24 h", "1.5 days"."""
    if seconds < 60:
        return Text("{n} s", n=f"{seconds:g}")
    if seconds < 3600:
        return Text("{n} min", n=f"{seconds / 60:g}")
    if seconds < 3 * 86400:
        return Text("{n} h", n=f"{seconds / 3600:.1f}".removesuffix(".0"))
    return Text("{n} days", n=f"{seconds / 86400:.1f}".removesuffix(".0"))
