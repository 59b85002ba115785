"""The persistent buttons, menus and forms of Game of the Generals: one class per thing a player can do.

Custom ids carry game numbers, public move counts and squares only, never a rank. Each id's template names what
its component does; the ids are those boards already posted in Discord carry, so they never change:
- `gg:<game>:accept`, `gg:<game>:decline`: a challenge's answer;
- `gg:<game>:board` (My board), `gg:<game>:dm` (the same board by DM), `gg:<game>:ranks` (the rank legend);
- `gg:<game>:draw`, `gg:<game>:resign` and its confirmation `gg:<game>:resign-yes`;
- `gg:<game>:ready`, `gg:<game>:export`, `gg:<game>:import`, `gg:<game>:save`, and `gg:<game>:swap`,
  `gg:<game>:delete` (only on older setup boards): the setup tools;
- `ggm:<game>:<ply>:<from>-<to>`: a direction button of a private board's chosen piece, drawn at move count `ply`;
- `ggs:<game>:formation`, `ggs:<game>:square:<rank>`, `ggs:<game>:piece:<ply>`, `ggs:<game>:forget`: the
  formation menu and the square menus (one per home rank) of the setup, the piece menu of play, and the
  saved-formation menu to delete from;
- `ggf:<game>:swap`, `ggf:<game>:import`, `ggf:<game>:save`: the forms, each answered by its `Form` class.

A use calls the one method of the presenter (or of its setup, play or private-board part) that does it. The presenter
builds these components, so they reach it the other way round: through `bot.components.presenter_for`, as what they
ask of it (`GeneralsUses` and its parts' protocols below), and this module imports nothing of the files above it. What
every use of a game's component checks first (the game is a Generals game, played where the click comes from) is
`bot.components.dispatch`'s.
"""

from __future__ import annotations

from typing import Any, ClassVar, Protocol, runtime_checkable

import discord

from bot.components import Button, CustomId, Select, dispatch, presenter_for
from bot.service import ServiceError
from bot.validation import storable
from games.text import Text

KIND = "generals"
MOVE = r"[a-i][1-8]-[a-i][1-8]"


class BoardUses(Protocol):
    """What the components ask of a player's own boards (bot/private_boards.py `PrivateBoards`)."""

    async def show(self, interaction: discord.Interaction[Any], game_id: int, *, edit: bool) -> int | None: ...

    async def send_by_dm(self, interaction: discord.Interaction[Any], game_id: int) -> None: ...


class SetupUses(Protocol):
    """What the components and forms ask of the setup tools (setup.py `SetupTools`)."""

    async def act(self, interaction: discord.Interaction[Any], game_id: int, text: str) -> None: ...

    async def export(self, interaction: discord.Interaction[Any], game_id: int) -> None: ...

    async def open_import_form(self, interaction: discord.Interaction[Any], game_id: int) -> None: ...

    async def open_save_form(self, interaction: discord.Interaction[Any], game_id: int) -> None: ...

    async def open_swap_form(self, interaction: discord.Interaction[Any], game_id: int) -> None: ...

    async def choose_to_delete(self, interaction: discord.Interaction[Any], game_id: int) -> None: ...

    async def deploy_choice(self, interaction: discord.Interaction[Any], game_id: int, value: str) -> None: ...

    async def square_choice(self, interaction: discord.Interaction[Any], game_id: int, value: str) -> None: ...

    async def forget(self, interaction: discord.Interaction[Any], game_id: int, name: str) -> None: ...

    async def swap_squares(self, interaction: discord.Interaction[Any], game_id: int, squares: str) -> None: ...

    async def import_grid(self, interaction: discord.Interaction[Any], game_id: int, grid: str) -> None: ...

    async def save(self, interaction: discord.Interaction[Any], game_id: int, name: str) -> None: ...


class PlayUses(Protocol):
    """What the components ask of play (play.py `Play`)."""

    async def choose_piece(self, interaction: discord.Interaction[Any], game_id: int, square: str,
                           ply: int) -> None: ...

    async def move(self, interaction: discord.Interaction[Any], game_id: int, move: str, ply: int | None,
                   *, from_command: bool) -> None: ...


@runtime_checkable
class GeneralsUses(Protocol):
    """What the components ask of the Generals presenter (presenter.py `GeneralsPresenter`), which builds them."""

    @property
    def private_boards(self) -> BoardUses: ...

    @property
    def setup_tools(self) -> SetupUses: ...

    @property
    def play(self) -> PlayUses: ...

    async def accept_challenge(self, interaction: discord.Interaction[Any], game_id: int) -> None: ...

    async def decline_challenge(self, interaction: discord.Interaction[Any], game_id: int) -> None: ...

    async def offer_draw(self, interaction: discord.Interaction[Any], game_id: int) -> None: ...

    async def ask_to_resign(self, interaction: discord.Interaction[Any], game_id: int) -> None: ...

    async def resign_now(self, interaction: discord.Interaction[Any], game_id: int) -> None: ...

    async def show_ranks(self, interaction: discord.Interaction[Any]) -> None: ...


def presenter_of(interaction: discord.Interaction[Any]) -> GeneralsUses:
    """The Generals presenter of the bot this interaction came to, as what its components ask of it."""
    return presenter_for(interaction, KIND, GeneralsUses)  # type: ignore[type-abstract]  # checked at run time


class GeneralsComponent:
    """What every button and menu of Game of the Generals shares: it acts on Generals games only."""

    game_kind: ClassVar[str | None] = KIND


class AcceptButton(GeneralsComponent, Button, custom_id=CustomId("gg:{game}:accept")):
    """The challenged player accepts: the game starts and each player's board goes to them."""

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        await presenter_of(interaction).accept_challenge(interaction, self.game_id)


class DeclineButton(GeneralsComponent, Button, custom_id=CustomId("gg:{game}:decline")):
    """A player of the challenge declines it (or the challenger withdraws it)."""

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        await presenter_of(interaction).decline_challenge(interaction, self.game_id)


class MyBoardButton(GeneralsComponent, Button, custom_id=CustomId("gg:{game}:board")):
    """My board: the player's own board, shown just to them."""

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        await presenter_of(interaction).private_boards.show(interaction, self.game_id, edit=False)


class SendByDmButton(GeneralsComponent, Button, custom_id=CustomId("gg:{game}:dm")):
    """On an ephemeral board: send the player's board to their DMs instead."""

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        await presenter_of(interaction).private_boards.send_by_dm(interaction, self.game_id)


class DrawButton(GeneralsComponent, Button, custom_id=CustomId("gg:{game}:draw")):
    """Offer a draw, or accept the opponent's offer."""

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        await presenter_of(interaction).offer_draw(interaction, self.game_id)


class ResignButton(GeneralsComponent, Button, custom_id=CustomId("gg:{game}:resign")):
    """Resign: first asks the player, privately, to confirm (ConfirmResignButton)."""

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        await presenter_of(interaction).ask_to_resign(interaction, self.game_id)


class ConfirmResignButton(GeneralsComponent, Button, custom_id=CustomId("gg:{game}:resign-yes")):
    """Yes, resign: the player loses the game."""

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        await presenter_of(interaction).resign_now(interaction, self.game_id)


class RanksButton(GeneralsComponent, Button, custom_id=CustomId("gg:{game}:ranks")):
    """The rank legend, privately, for anyone who sees a board of the game."""

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        await presenter_of(interaction).show_ranks(interaction)


class ReadyButton(GeneralsComponent, Button, custom_id=CustomId("gg:{game}:ready")):
    """The player's army is deployed: their setup is final."""

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        await presenter_of(interaction).setup_tools.act(interaction, self.game_id, "ready")


class ExportButton(GeneralsComponent, Button, custom_id=CustomId("gg:{game}:export")):
    """The player's current setup as a grid to copy, privately."""

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        await presenter_of(interaction).setup_tools.export(interaction, self.game_id)


class ImportFormButton(GeneralsComponent, Button, custom_id=CustomId("gg:{game}:import")):
    """Opens the form to paste a setup grid (ImportForm)."""

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        await presenter_of(interaction).setup_tools.open_import_form(interaction, self.game_id)


class SaveFormButton(GeneralsComponent, Button, custom_id=CustomId("gg:{game}:save")):
    """Opens the form to name the current setup and save it as a formation (SaveForm)."""

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        await presenter_of(interaction).setup_tools.open_save_form(interaction, self.game_id)


class SwapFormButton(GeneralsComponent, Button, custom_id=CustomId("gg:{game}:swap")):
    """Opens the form to swap two squares of the setup (SwapForm). Setup boards now swap with their square menus;
    older boards still carry this button."""

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        await presenter_of(interaction).setup_tools.open_swap_form(interaction, self.game_id)


class DeleteFormationButton(GeneralsComponent, Button, custom_id=CustomId("gg:{game}:delete")):
    """Asks which saved formation to delete (ForgetSelect). Setup boards now offer it in their formation menu;
    older boards still carry this button."""

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        await presenter_of(interaction).setup_tools.choose_to_delete(interaction, self.game_id)


class GeneralsMoveButton(GeneralsComponent, Button, custom_id=CustomId("ggm:{game}:{ply}:{move}", move=MOVE)):
    """A direction button: which game, the move count it was drawn at, and the move."""

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        await presenter_of(interaction).play.move(interaction, self.game_id, self.fields["move"], self.ply,
                                                  from_command=False)


class FormationSelect(GeneralsComponent, Select, custom_id=CustomId("ggs:{game}:formation")):
    """The setup's menu of formations and the player's saved setups (`f:<name>`, `s:<name>`)."""

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        await presenter_of(interaction).setup_tools.deploy_choice(interaction, self.game_id, self.choice())


class SquareSelect(GeneralsComponent, Select, custom_id=CustomId("ggs:{game}:square:{rank}", rank=r"[1-8]")):
    """A setup menu of the squares of one home rank: `pick:<sq>` picks a square (the board is redrawn with it
    marked), `swap:<a>-<b>` swaps the picked square with another, `drop:<sq>` puts the pick back."""

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        await presenter_of(interaction).setup_tools.square_choice(interaction, self.game_id, self.choice())


class PieceSelect(GeneralsComponent, Select, custom_id=CustomId("ggs:{game}:piece:{ply}")):
    """The piece menu of play, drawn at move count `ply`: the board is redrawn with the chosen square's direction
    buttons (never a move by itself)."""

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        await presenter_of(interaction).play.choose_piece(interaction, self.game_id, self.choice(), self.ply)


class ForgetSelect(GeneralsComponent, Select, custom_id=CustomId("ggs:{game}:forget")):
    """Which saved formation to delete (offered from a setup board of this game)."""

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        await presenter_of(interaction).setup_tools.forget(interaction, self.game_id, self.choice())


class Form:
    """A form (a modal) of the setup tools. Discord sends a submitted form to no component, so the presenter hands
    every submission to `answer_form`, which finds the form class whose custom id template matches; being answered
    from its id alone, a form opened before a restart still works."""

    custom_id_shape: ClassVar[CustomId]

    def __init_subclass__(cls, *, custom_id: CustomId, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.custom_id_shape = custom_id

    def __init__(self, custom_id: str) -> None:
        self.fields = self.custom_id_shape.parse(custom_id)

    @classmethod
    def custom_id(cls, game_id: int) -> str:
        """The id of this form for game `game_id`."""
        return cls.custom_id_shape.format(game=game_id)

    @property
    def game_id(self) -> int:
        return int(self.fields["game"])

    async def on_submit(self, interaction: discord.Interaction[Any], values: dict[str, str]) -> None:
        raise NotImplementedError  # every form defines what its answer does


class SwapForm(Form, custom_id=CustomId("ggf:{game}:swap")):
    """Two of the player's squares (`squares`) whose pieces swap places."""

    async def on_submit(self, interaction: discord.Interaction[Any], values: dict[str, str]) -> None:
        await presenter_of(interaction).setup_tools.swap_squares(interaction, self.game_id, values.get("squares", ""))


class ImportForm(Form, custom_id=CustomId("ggf:{game}:import")):
    """A whole setup as a grid (`grid`), deployed as the player's army."""

    async def on_submit(self, interaction: discord.Interaction[Any], values: dict[str, str]) -> None:
        await presenter_of(interaction).setup_tools.import_grid(interaction, self.game_id, values.get("grid", ""))


class SaveForm(Form, custom_id=CustomId("ggf:{game}:save")):
    """The name (`name`) to save the player's current setup under."""

    async def on_submit(self, interaction: discord.Interaction[Any], values: dict[str, str]) -> None:
        await presenter_of(interaction).setup_tools.save(interaction, self.game_id, values.get("name", ""))


async def answer_form(interaction: discord.Interaction[Any]) -> None:
    """A submitted form of ours, answered by its form class; it is checked like a button of the game it names.
    Anything else (another interaction, a form of no Generals template) is left alone."""
    if interaction.type is not discord.InteractionType.modal_submit or not isinstance(interaction.data, dict):
        return
    form = _form_of(str(interaction.data.get("custom_id", "")))
    if form is None:
        return
    values = modal_values(dict(interaction.data))

    async def answer(interaction: discord.Interaction[Any]) -> None:
        if not all(storable(value) for value in values.values()):
            raise ServiceError(Text("The form arrived garbled; please fill it in again."))
        await form.on_submit(interaction, values)

    await dispatch(interaction, answer, game_kind=KIND, game_id=form.game_id)


def _form_of(custom_id: str) -> Form | None:
    """The form whose template `custom_id` fits, or None."""
    for kind in FORMS:
        try:
            return kind(custom_id)
        except ValueError:
            continue
    return None


def modal_values(data: dict[str, Any]) -> dict[str, str]:
    """custom_id -> value of every text input in a submitted form (rows or labelled components)."""
    values: dict[str, str] = {}

    def walk(components: Any) -> None:
        for component in components or []:
            if not isinstance(component, dict):
                continue
            if "custom_id" in component and isinstance(component.get("value"), str):
                values[str(component["custom_id"])] = component["value"]
            walk(component.get("components"))
            if isinstance(component.get("component"), dict):
                walk([component["component"]])

    walk(data.get("components"))
    return values


COMPONENTS = (AcceptButton, DeclineButton, MyBoardButton, SendByDmButton, DrawButton, ResignButton,
              ConfirmResignButton, RanksButton, ReadyButton, ExportButton, ImportFormButton, SaveFormButton,
              SwapFormButton, DeleteFormationButton, GeneralsMoveButton, FormationSelect, SquareSelect, PieceSelect,
              ForgetSelect)
FORMS: tuple[type[Form], ...] = (SwapForm, ImportForm, SaveForm)
