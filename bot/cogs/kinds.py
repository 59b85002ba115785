"""The `game` option of /leaderboard, /settings game and the like: its choices come from the game registry."""

from __future__ import annotations

from typing import Any

from discord import app_commands

from games.registry import descriptions
from games.text import Text


def game_choices() -> list[app_commands.Choice[str | int | float]]:
    """Every registered game kind, as Discord lists choices (at most 25)."""
    choices: list[app_commands.Choice[str | int | float]] = [
        # locale_str: a choice's name reaches the tree's translator only as one.
        app_commands.Choice(name=app_commands.locale_str(str(d.title)), value=d.kind) for d in descriptions()]
    return choices[:25]


def offer_games(command: app_commands.Command[Any, ..., Any], option: str = "game") -> None:
    """Give `command`'s `option` the registered games as its choices.

    Done when the cog is made rather than when its module is imported, so a game registered later (a test's
    own game kind) is offered too. discord.py copies a parameter's choices when the command is decorated and
    offers no public way to change them afterwards, hence the private `_params`."""
    command._params[option].choices = game_choices()


def title_of(kind: str) -> Text | str:
    return next((d.title for d in descriptions() if d.kind == kind), kind)
