"""Wordings more than one part of the bot uses: counted nouns, and how a closed challenge reads.

Kept in one place so that every game says the same thing the same way (a challenge of any game "has expired").
"""

from __future__ import annotations


def plural(count: int, noun: str, plural_noun: str | None = None) -> str:
    """The count with its noun: "1 game", "2 games", "0 games"; irregular plurals are given ("loss", "losses")."""
    word = noun if count == 1 else (plural_noun if plural_noun is not None else noun + "s")
    return f"{count} {word}"


def closed_challenge_line(status: str, challenger: str, opponent: str, declined_by: int | None = None) -> str:
    """Why a two-player challenge is no longer open, in words. `declined_by` is the seat that called it off
    when it is known (0: the challenger withdrew it, 1: the opponent declined it)."""
    if status == "expired":
        return f"This challenge has expired: {opponent} did not answer in time."
    if status == "declined":
        if declined_by == 0:
            return f"{challenger} withdrew this challenge."
        if declined_by == 1:
            return f"{opponent} declined this challenge."
        return "This challenge was called off."
    # Accepted: the message shows the game itself from then on, so this only words a status read too late.
    return f"{opponent} accepted this challenge."
