"""Setup: deploying a formation or a saved setup, swapping two squares (picked in the square menus, two
choices on the board itself), the import / save forms, export, and the player's saved formations (their own
data, in storage.formations). The swap form of earlier boards is still answered.

Each setup action is played through the service and answered by redrawing the board the player used (their DM
or their ephemeral board). A random formation is drawn by the engine (`formation:<name>`), not here.
"""

from __future__ import annotations

from typing import Any

import discord

from bot.delivery import Delivery
from bot.games.generals.board import GeneralsResult, own_view
from bot.games.generals.components import KIND, ForgetSelect, ImportForm, SaveForm, SwapForm
from bot.games.generals.own_board import OwnInputs, export_text, setup_rows_hint
from bot.i18n import Say
from bot.private_boards import PrivateBoards
from bot.service import GameService, ServiceError
from games.generals.setup import FORMATIONS, Grid, as_owner_sees_it, compact, format_grid, grid_from_squares, parse_grid
from games.generals.views import SETUP, PlayerView
from games.text import Text, TextIn, Typed, one_line
from storage.formations import MAX_NAME, MAX_PER_USER, FormationError, FormationStore


class SetupTools:
    """The setup controls of a private board, and the forms they open."""

    def __init__(self, formations: FormationStore, *, service: GameService, delivery: Delivery,
                 boards: PrivateBoards[OwnInputs]) -> None:
        self.formations = formations
        self.service = service
        self.delivery = delivery  # the bot's one way from a result (or from what is stored) to every board
        self.boards = boards

    async def act(self, interaction: discord.Interaction[Any], game_id: int, text: str) -> None:
        """A setup action on the player's own draft; their board answers, then the others are redrawn. (When it
        was the last Ready, the notifier tells the channel who moves first, from the result's PlayBegan.)"""
        result = await self.service.act(game_id, interaction.user.id, text)

        async def answer(latest: GeneralsResult) -> int | None:
            return await self.boards.answer_with(interaction, latest)

        await self.delivery.deliver(result, answer)

    async def deploy_choice(self, interaction: discord.Interaction[Any], game_id: int, value: str) -> None:
        """The formation menu: `f:<name>` deploys a formation (the engine draws a random one), `s:<name>` one of
        the player's saved setups, turned to their side; `d:` asks which saved one to delete."""
        source, _, name = value.partition(":")
        if source == "d":
            await self.choose_to_delete(interaction, game_id)
            return
        if source == "f" and name in FORMATIONS:
            await self.act(interaction, game_id, f"formation:{name}")
            return
        result = await self.service.require_player(game_id, interaction.user.id)
        if source != "s":
            raise ServiceError(Text("That is not one of the formations on offer; open your board again."))
        seat = result.game.seat_of(interaction.user.id)
        assert seat is not None
        try:
            saved = await self.formations.load(interaction.user.id, KIND, name)
        except FormationError:  # the one refusal of a load
            raise ServiceError(no_such_formation(name)) from None
        grid = as_owner_sees_it(parse_grid(saved.setup)[0], seat)
        await self.act(interaction, game_id, "setup:" + compact(grid))

    async def square_choice(self, interaction: discord.Interaction[Any], game_id: int, value: str) -> None:
        """A square menu of the setup: pick a square (the board is redrawn with it marked; nothing is stored), swap
        the picked square with the one chosen now, or let go of the pick."""
        verb, _, squares = value.partition(":")
        if verb == "swap":
            await self.act(interaction, game_id, f"swap:{squares}")
            return
        if verb not in ("pick", "drop"):
            raise ServiceError(Text("That is not one of the squares on offer; open your board again."))
        result = await self.service.require_player(game_id, interaction.user.id)
        view = own_view(result, interaction.user.id)
        if view.phase != SETUP or view.ready[view.seat]:
            raise ServiceError(Text("Setup tools are for your army before you are ready."))
        await self.boards.answer(interaction, game_id,
                                                   selected=squares if verb == "pick" else None)

    async def open_swap_form(self, interaction: discord.Interaction[Any], game_id: int) -> None:
        """The form naming two of the player's squares to swap (SwapForm)."""
        await self._setup_view(interaction, game_id)
        say = Say.to(interaction)
        modal = discord.ui.Modal(title=say(Text("Swap two squares")), custom_id=SwapForm.custom_id(game_id),
                                 timeout=900)
        modal.add_item(discord.ui.TextInput(label=say(Text("Two of your squares, e.g. a1 b2")), custom_id="squares",
                                            min_length=4, max_length=12, placeholder="a1 b2"))
        await interaction.response.send_modal(modal)

    async def open_import_form(self, interaction: discord.Interaction[Any], game_id: int) -> None:
        """The form to paste a setup grid into (ImportForm), holding the player's current setup if they have one."""
        view = await self._setup_view(interaction, game_id)
        say = Say.to(interaction)
        modal = discord.ui.Modal(title=say(Text("Import a setup grid")), custom_id=ImportForm.custom_id(game_id),
                                 timeout=900)
        current = draft_grid(view)
        # The hint is a text of its own above the field (a placeholder holds 100 characters and hides once
        # the field has the current grid in it), so it is always shown whole.
        modal.add_item(discord.ui.TextDisplay(say(setup_rows_hint(view.seat))))
        modal.add_item(discord.ui.Label(text=say(Text("Your grid (3 rows of 9 cells)")),
                                        component=discord.ui.TextInput(
            custom_id="grid", style=discord.TextStyle.paragraph,
            default=format_grid(current, view.seat) if current else None, max_length=1000)))
        await interaction.response.send_modal(modal)

    async def open_save_form(self, interaction: discord.Interaction[Any], game_id: int) -> None:
        """The form naming the player's current setup, to save it as a formation (SaveForm)."""
        view = await self._setup_view(interaction, game_id)
        if not view.own:
            raise ServiceError(Text("Deploy a setup first; then you can save it."))
        say = Say.to(interaction)
        modal = discord.ui.Modal(title=say(Text("Save this setup as a formation")),
                                 custom_id=SaveForm.custom_id(game_id), timeout=900)
        modal.add_item(discord.ui.TextInput(label=say(TextIn("form field", "Name")), custom_id="name",
                                            min_length=1, max_length=40))
        await interaction.response.send_modal(modal)

    async def _setup_view(self, interaction: discord.Interaction[Any], game_id: int) -> PlayerView:
        """The user's own view of a game whose setup they may still change; refuses anyone else, and a player who
        is ready or past the setup."""
        result = await self.service.require_player(game_id, interaction.user.id)
        view = own_view(result, interaction.user.id)
        if view.phase != SETUP or view.ready[view.seat]:
            raise ServiceError(Text("Setup tools are for your army before you are ready."))
        return view

    async def swap_squares(self, interaction: discord.Interaction[Any], game_id: int, squares: str) -> None:
        """Swap the pieces on the two squares named in `squares` (`a1 b2`, `a1,b2` or `a1-b2`)."""
        named = squares.replace(",", " ").replace("-", " ").split()
        if len(named) != 2:
            raise ServiceError(Text("Name two of your squares, like `a1 b2`."))
        await self.act(interaction, game_id, f"swap:{named[0]}-{named[1]}")

    async def import_grid(self, interaction: discord.Interaction[Any], game_id: int, grid: str) -> None:
        """Deploy the setup written as `grid` (the engine reads and checks it)."""
        await self.act(interaction, game_id, "setup:" + grid)

    async def save(self, interaction: discord.Interaction[Any], game_id: int, name: str) -> None:
        """Save the player's current setup under `name`, as its owner sees it (it loads on either side)."""
        result = await self.service.require_player(game_id, interaction.user.id)
        view = own_view(result, interaction.user.id)
        grid = draft_grid(view)
        if grid is None:
            raise ServiceError(Text("Deploy a setup first; then you can save it."))
        if not 1 <= len(" ".join(name.split())) <= MAX_NAME:  # the store checks it too; the words are ours
            raise ServiceError(Text("A formation name has 1 to {most} characters.", most=MAX_NAME))
        try:
            saved = await self.formations.save(interaction.user.id, KIND, name,
                                               compact(as_owner_sees_it(grid, view.seat)),
                                               self.service.clock())
        except FormationError:  # with a good name, the one refusal left: no room for another (checked atomically)
            raise ServiceError(Text("You have {count} saved formations; delete one to save another.",
                                    count=MAX_PER_USER)) from None
        await interaction.response.send_message(
            Say.to(interaction)(Text("Saved as **{name}**: load it from the formation menu in any game (on either "
                                     "side).", name=Typed(saved.name))),
            ephemeral=True)
        await self.redraw_games_of(interaction.user.id)

    async def export(self, interaction: discord.Interaction[Any], game_id: int) -> None:
        result = await self.service.require_player(game_id, interaction.user.id)
        view = own_view(result, interaction.user.id)
        grid = draft_grid(view)
        if grid is None:
            raise ServiceError(Text("There is nothing to export yet: deploy a formation first."))
        await interaction.response.send_message(
            Say.to(interaction)(export_text(format_grid(grid, view.seat), compact(grid))), ephemeral=True)

    async def choose_to_delete(self, interaction: discord.Interaction[Any], game_id: int) -> None:
        saved = await self.formations.list(interaction.user.id, KIND)
        if not saved:
            raise ServiceError(Text("You have no saved formations."))
        say = Say.to(interaction)
        choose = discord.ui.View(timeout=None)
        choose.add_item(ForgetSelect.of(game=game_id, placeholder=say(Text("Delete which formation?")), options=[
            discord.SelectOption(label=one_line(f.name)[:100], value=f.name[:100]) for f in saved[:25]]))
        await interaction.response.send_message(say(Text("Which saved formation should I delete?")), view=choose,
                                                ephemeral=True)

    async def forget(self, interaction: discord.Interaction[Any], game_id: int, name: str) -> None:
        await self.service.require_player(game_id, interaction.user.id)  # a menu of a player's board
        try:
            await self.formations.delete(interaction.user.id, KIND, name)
        except FormationError:  # deleted meanwhile (from another board): say so, it is no fault
            raise ServiceError(no_such_formation(name)) from None
        await interaction.response.edit_message(
            content=Say.to(interaction)(Text("Deleted your saved formation **{name}**.", name=Typed(name))), view=None)
        await self.redraw_games_of(interaction.user.id)

    async def redraw_games_of(self, user_id: int) -> None:
        """Redraw every game the user plays: their saved formations are on each of their setup boards."""
        for game_id in await self.service.active_games_of(KIND, user_id):
            await self.delivery.redraw(game_id)


async def saved_names(formations: FormationStore, user_id: int, view: PlayerView) -> list[str]:
    """The player's saved formations: only the setup controls offer them, so no query otherwise."""
    if view.phase != SETUP or view.ready[view.seat]:
        return []
    return [f.name for f in await formations.list(user_id, KIND)]


def no_such_formation(name: str) -> Text:
    """Why a saved formation could not be loaded or deleted (the store's refusal, in the player's words)."""
    return Text("You have no saved formation called {name}.", name=repr(" ".join(name.split())))


def draft_grid(view: PlayerView) -> Grid | None:
    """The player's current setup as a grid (from their own view), or None before any deployment."""
    if not view.own:
        return None
    return grid_from_squares({piece.square: piece.rank for piece in view.own}, view.seat)
