"""The persistent components of So Long Sucker: decision buttons and menus on the status message (and in the
private pile choice), and the Accept / withdraw button of a deal.

Custom ids carry the game, the turn they were drawn for and public action texts only (everything in this game
is public anyway): `sk:<game>:<turn>:<action text>`, `sks:<game>:<turn>:play0..4` (the one-step chip menus,
whose option values are action texts), `sks:<game>:<turn>:chip|pile0..4` (the two-step chip play, used when the
plays do not fit the menus; a `chip` menu posted before the one-step menus existed works the same way),
`sd:<game>:<deal>`, `skr:<game>:resign` (Resign on the status message) and `skr:<game>:resign-yes` (its private
confirmation).
"""

from __future__ import annotations

from typing import Any, ClassVar, Protocol, runtime_checkable

import discord

from bot.components import Button, CustomId, Select, presenter_for

KIND = "sucker"
ACTION = r"[a-z0-9:._-]{1,60}"  # an action's text
MENU = r"chip|pile[0-4]|play[0-4]"  # which chip menu


@runtime_checkable
class SuckerTable(Protocol):
    """What these components ask of So Long Sucker's presenter: the decisions they stand for."""

    async def decide(self, interaction: discord.Interaction[Any], game_id: int, action: str, ply: int) -> None: ...

    async def choose_chip(self, interaction: discord.Interaction[Any], game_id: int, colour: str,
                          ply: int) -> None: ...

    async def ask_to_resign(self, interaction: discord.Interaction[Any], game_id: int) -> None: ...

    async def resign_now(self, interaction: discord.Interaction[Any], game_id: int) -> None: ...

    async def mark_deal(self, interaction: discord.Interaction[Any], game_id: int, number: int) -> None: ...


def _presenter(interaction: discord.Interaction[Any]) -> SuckerTable:
    return presenter_for(interaction, KIND, SuckerTable)  # type: ignore[type-abstract]  # checked at run time


class SuckerComponent:
    """What every button and menu of So Long Sucker shares: it acts on So Long Sucker games only."""

    game_kind: ClassVar[str | None] = KIND


class SuckerButton(SuckerComponent, Button, custom_id=CustomId("sk:{game}:{ply}:{action}", action=ACTION)):
    """A decision: the custom id carries the game, the turn it was drawn for, and the action's text."""

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        await _presenter(interaction).decide(interaction, self.game_id, self.fields["action"], self.ply)


class SuckerSelect(SuckerComponent, Select, custom_id=CustomId("sks:{game}:{ply}:{what}", what=MENU)):
    """The chip menus on the status message: "colour on pile" in one step (`play*`, the value is the action
    text), or the colour of a two-step play (`chip`); and the pile menus of that private second step when there
    are more piles than buttons (`pile*`)."""

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        presenter, choice = _presenter(interaction), self.choice()
        if self.fields["what"] == "chip":
            await presenter.choose_chip(interaction, self.game_id, choice, self.ply)
        else:
            await presenter.decide(interaction, self.game_id, choice, self.ply)


class ResignButton(SuckerComponent, Button, custom_id=CustomId("skr:{game}:resign")):
    """Resign: works at any moment of the game, whoever's decision it is; first a private confirmation."""

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        await _presenter(interaction).ask_to_resign(interaction, self.game_id)


class ConfirmResignButton(SuckerComponent, Button, custom_id=CustomId("skr:{game}:resign-yes")):
    """Resign, confirmed privately: the player is out."""

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        await _presenter(interaction).resign_now(interaction, self.game_id)


class DealButton(SuckerComponent, Button, custom_id=CustomId("sd:{game}:{number}", number=r"[0-9]{1,6}")):
    """Marks (or unmarks) a deal as accepted by the player who clicks it."""

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        await _presenter(interaction).mark_deal(interaction, self.game_id, int(self.fields["number"]))
