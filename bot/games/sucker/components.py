"""The persistent components of So Long Sucker: decision buttons and menus on the status message (and in the
private pile choice), and the Accept / withdraw button of a deal.

Custom ids carry the game, the turn they were drawn for and public action texts only (everything in this game
is public anyway): `sk:<game>:<turn>:<action text>`, `sks:<game>:<turn>:play0..4` (the one-step chip menus,
whose option values are action texts), `sks:<game>:<turn>:chip|pile0..4` (the two-step chip play, used when the
plays do not fit the menus; a `chip` menu posted before the one-step menus existed works the same way),
`sd:<game>:<deal>`, `skr:<game>:resign|resign-yes` (Resign on the status message, and its private confirmation).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord

from bot.components import Button, CustomId, Select, presenter_for

if TYPE_CHECKING:
    from bot.games.sucker.presenter import SuckerPresenter

KIND = "sucker"


def _presenter(interaction: discord.Interaction[Any]) -> SuckerPresenter:
    # Imported on use: the presenter module draws with these components, so it imports this one.
    from bot.games.sucker.presenter import SuckerPresenter

    return presenter_for(interaction, KIND, SuckerPresenter)


class SuckerButton(Button, custom_id=CustomId("sk:{game}:{ply}:{action}", action=r"[a-z0-9:._-]{1,60}")):
    """A decision: the custom id carries the game, the turn it was drawn for, and the action's text."""

    game_kind = KIND

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        await _presenter(interaction).decide(interaction, self.game_id, self.fields["action"], self.ply)


class SuckerSelect(Select, custom_id=CustomId("sks:{game}:{ply}:{what}", what=r"chip|pile[0-4]|play[0-4]")):
    """The chip menus on the status message: "colour on pile" in one step (`play*`, the value is the action
    text), or the colour of a two-step play (`chip`); and the pile menus of that private second step when there
    are more piles than buttons (`pile*`)."""

    game_kind = KIND

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        presenter, choice = _presenter(interaction), self.choice()
        if self.fields["what"] == "chip":
            await presenter.choose_chip(interaction, self.game_id, choice, self.ply)
        else:
            await presenter.decide(interaction, self.game_id, choice, self.ply)


class ResignButton(Button, custom_id=CustomId("skr:{game}:{verb}", verb=r"resign|resign-yes")):
    """Resign: works at any moment of the game, whoever's decision it is, after a private confirmation."""

    game_kind = KIND

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        presenter = _presenter(interaction)
        if self.fields["verb"] == "resign":
            await presenter.ask_to_resign(interaction, self.game_id)
        else:
            await presenter.resign_now(interaction, self.game_id)


class DealButton(Button, custom_id=CustomId("sd:{game}:{number}", number=r"[0-9]{1,6}")):
    """Marks (or unmarks) a deal as accepted by the player who clicks it."""

    game_kind = KIND

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        await _presenter(interaction).mark_deal(interaction, self.game_id, int(self.fields["number"]))
