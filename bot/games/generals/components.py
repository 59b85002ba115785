"""The persistent buttons and menus of Game of the Generals, and the id of its forms.

Custom ids carry game numbers, public move counts and squares only, never a rank:
- `gg:<game>:<verb>`: every button except moves (challenge, channel board, setup tools, draw, resign, ranks);
- `ggm:<game>:<ply>:<from>-<to>`: a direction button of a private board's chosen piece, drawn at move count `ply`;
- `ggs:<game>:formation`, `ggs:<game>:square:<rank>`, `ggs:<game>:piece:<ply>`, `ggs:<game>:forget`: the
  formation menu and the square menus (one per home rank) of the setup, the piece menu of play, and the
  saved-formation menu to delete from;
- `ggf:<game>:<what>`: the forms (swap, import, save), answered by the presenter's `on_interaction`.

A use reaches the presenter, which holds the concerns (setup, play, private boards) that answer it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord

from bot.components import Button, CustomId, Select, presenter_for

if TYPE_CHECKING:
    from bot.games.generals.presenter import GeneralsPresenter

KIND = "generals"
BUTTON_VERBS = "accept|decline|board|dm|resign|resign-yes|draw|ready|swap|import|export|save|delete|ranks"
MOVE = r"[a-i][1-8]-[a-i][1-8]"
FORM = CustomId("ggf:{game}:{what}", what=r"swap|import|save")


def presenter_of(interaction: discord.Interaction[Any]) -> GeneralsPresenter:
    """The Generals presenter of the bot this interaction came to."""
    from bot.games.generals.presenter import GeneralsPresenter  # it builds these components: imported on use

    return presenter_for(interaction, KIND, GeneralsPresenter)


class GeneralsButton(Button, custom_id=CustomId("gg:{game}:{verb}", verb=BUTTON_VERBS)):
    """Every Generals button except moves: the custom id names the game and what to do."""

    game_kind = KIND

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        await presenter_of(interaction).on_button(interaction, self.game_id, self.fields["verb"])


class GeneralsMoveButton(Button, custom_id=CustomId("ggm:{game}:{ply}:{move}", move=MOVE)):
    """A direction button: which game, the move count it was drawn at, and the move."""

    game_kind = KIND

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        await presenter_of(interaction).play.move(interaction, self.game_id, self.fields["move"], self.ply,
                                                  from_command=False)


class FormationSelect(Select, custom_id=CustomId("ggs:{game}:formation")):
    """The setup's menu of formations and the player's saved setups (`f:<name>`, `s:<name>`)."""

    game_kind = KIND

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        await presenter_of(interaction).setup_tools.deploy_choice(interaction, self.game_id, self.choice())


class SquareSelect(Select, custom_id=CustomId("ggs:{game}:square:{rank}", rank=r"[1-8]")):
    """A setup menu of the squares of one home rank: `pick:<sq>` picks a square (the board is redrawn with it
    marked), `swap:<a>-<b>` swaps the picked square with another, `drop:<sq>` puts the pick back."""

    game_kind = KIND

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        await presenter_of(interaction).setup_tools.square_choice(interaction, self.game_id, self.choice())


class PieceSelect(Select, custom_id=CustomId("ggs:{game}:piece:{ply}")):
    """The piece menu of play, drawn at move count `ply`: the board is redrawn with the chosen square's direction
    buttons (never a move by itself)."""

    game_kind = KIND

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        await presenter_of(interaction).play.choose_piece(interaction, self.game_id, self.choice(), self.ply)


class ForgetSelect(Select, custom_id=CustomId("ggs:{game}:forget")):
    """Which saved formation to delete (offered from a setup board of this game)."""

    game_kind = KIND

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        await presenter_of(interaction).setup_tools.forget(interaction, self.game_id, self.choice())


COMPONENTS = (GeneralsButton, GeneralsMoveButton, FormationSelect, SquareSelect, PieceSelect, ForgetSelect)
