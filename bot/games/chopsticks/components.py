"""Chopsticks' buttons and menus, and the controls of its messages: exactly the legal moves of the player to move.

Discord allows 5 rows of 5 buttons. Up to 20 legal moves get a button each (the fifth row holds Hint /
Draw / Resign); beyond that the board shows one select of move groups (each tapping hand, splits, other
moves) and the chosen group's moves are offered privately to the player, as buttons or in selects of at
most 25 options each. Custom ids carry the game, the move count they were drawn at and public move texts:
Chopsticks has no secrets.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from string import ascii_uppercase
from typing import TYPE_CHECKING, Any

import discord

from bot.components import Button, CustomId, Select, presenter_for
from bot.games.chopsticks import board
from bot.presenter import seat_names
from bot.service import Result, ServiceError
from games.chopsticks.analysis import hint_text
from games.chopsticks.views import ChopsticksView, MoveChoice

if TYPE_CHECKING:
    from bot.games.chopsticks.presenter import ChopsticksPresenter

KIND = "chopsticks"
PER_ROW = 5
MOVE_ROWS = 4  # the fifth row holds Hint, Draw and Resign
MAX_BUTTON_MOVES = MOVE_ROWS * PER_ROW
SELECT_OPTIONS = 25
SPLIT_GROUP = "split"
MOVE_TEXT = r"[A-Za-z0-9-]{1,40}"


def public_view(result: Result[Any, Any]) -> ChopsticksView:
    view = result.public
    if not isinstance(view, ChopsticksView):
        raise ServiceError(f"Game #{result.id} is not a Chopsticks game.")
    return view


def _presenter(interaction: discord.Interaction[Any]) -> ChopsticksPresenter:
    from bot.games.chopsticks.presenter import ChopsticksPresenter  # it builds these components: imported on use

    return presenter_for(interaction, KIND, ChopsticksPresenter)


async def play(interaction: discord.Interaction[Any], game_id: int, move: str, ply: int) -> None:
    """Play `move`: on the board, redraw it; from the private second step, confirm there and redraw the board."""
    presenter = _presenter(interaction)
    result = await presenter.service.act(game_id, interaction.user.id, move, expected_ply=ply)
    message = interaction.message
    if message is not None and message.id == result.game.message_id:
        await presenter.show_board(interaction, result)
        return
    await interaction.response.edit_message(content=f"You played `{move}`.", view=None)
    await presenter.bot.redraw(game_id)
    presenter.schedule_bots(result)


# ----- the components -----------------------------------------------------------------------------------------
class MoveButton(Button, custom_id=CustomId("cs:{game}:mv:{ply}:{move}", move=MOVE_TEXT)):
    """One legal move, on the board or in the player's private second step."""

    game_kind = KIND

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        await play(interaction, self.game_id, self.fields["move"], self.ply)


class HintButton(Button, custom_id=CustomId("cs:{game}:hint:{ply}")):
    """Ask for a hint (when the table has hints on): the player to move only, in the position they saw."""

    game_kind = KIND

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        presenter = _presenter(interaction)
        result = await presenter.service.require_turn(self.game_id, interaction.user.id, self.ply)
        if not result.game.options.get("hints"):
            raise ServiceError("Hints are off in this game.")
        await interaction.response.defer(ephemeral=True, thinking=True)
        await interaction.followup.send(await asyncio.to_thread(hint_text, public_view(result)), ephemeral=True)


class GameButton(Button, custom_id=CustomId("cs:{game}:{verb}", verb=r"accept|decline|resign|resign-yes|draw")):
    """Accept or decline a challenge, offer or accept a draw, resign (after a private confirmation)."""

    game_kind = KIND

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        presenter, verb = _presenter(interaction), self.fields["verb"]
        game_id, user = self.game_id, interaction.user.id
        if verb == "accept":
            shown_on = interaction.message.id if interaction.message is not None else None
            await presenter.show_board(interaction, await presenter.service.accept(game_id, user, shown_on))
        elif verb == "decline":
            result = await presenter.service.decline(game_id, user)
            embed = board.challenge_embed(result.game, public_view(result), seat_names(presenter, result),
                                          declined_by=result.game.seat_of(user))
            await interaction.response.edit_message(content=None, embed=embed, view=None)
        elif verb == "draw":
            result, _drawn = await presenter.service.offer_draw(game_id, user)
            await presenter.show_board(interaction, result)
        elif verb == "resign":
            await presenter.service.require_player(game_id, user)
            confirm = discord.ui.View(timeout=None)
            confirm.add_item(GameButton.of(game=game_id, verb="resign-yes", label="Yes, resign",
                                           style=discord.ButtonStyle.danger))
            await interaction.response.send_message(f"Resign Chopsticks #{game_id}? You will be out.",
                                                    view=confirm, ephemeral=True)
        else:  # resign-yes
            result = await presenter.service.resign(game_id, user)
            await interaction.response.edit_message(content="You resigned.", view=None)
            await presenter.bot.redraw(game_id)
            presenter.schedule_bots(result)


class GroupSelect(Select, custom_id=CustomId("cs:{game}:group:{ply}")):
    """On a board with too many moves for buttons: choose a tapping hand (or splits), then the move, privately."""

    game_kind = KIND

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        choice = self.choice()
        result = await _presenter(interaction).service.require_turn(self.game_id, interaction.user.id, self.ply)
        group = move_groups(public_view(result).moves).get(choice)
        if not group:
            raise ServiceError("There is no such group of moves now; look at the board again.")
        await interaction.response.send_message("Choose your move:", view=group_view(result, group), ephemeral=True)


class PickSelect(Select, custom_id=CustomId("cs:{game}:pick:{ply}:{index}", index=r"[0-4]")):
    """One of the private second step's move menus (a group too big for buttons)."""

    game_kind = KIND

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        await play(interaction, self.game_id, self.choice(), self.ply)


COMPONENTS = (MoveButton, HintButton, GameButton, GroupSelect, PickSelect)


# ----- the controls of a message ------------------------------------------------------------------------------
def move_groups(moves: Sequence[MoveChoice]) -> dict[str, list[MoveChoice]]:
    """Moves by the hand that taps ("A", "B", ...) and everything else under "split"."""
    groups: dict[str, list[MoveChoice]] = {}
    for move in moves:
        key = ascii_uppercase[move.hand] if move.hand is not None else SPLIT_GROUP
        groups.setdefault(key, []).append(move)
    return groups


def _move_button(game_id: int, ply: int, move: MoveChoice, view: ChopsticksView, row: int) -> MoveButton:
    return MoveButton.of(game=game_id, ply=ply, move=move.text, label=board.move_label(move, view),
                         style=discord.ButtonStyle.primary, row=row)


def board_view(result: Result[Any, Any]) -> discord.ui.View | None:
    """Components for the player to move, plus Hint / Draw / Resign; None when the game is over."""
    game, view = result.game, public_view(result)
    seat = view.to_move
    if seat is None or game.status != "active":
        return None
    # While a bot thinks nobody has a move to click, but Resign stays (it works at any time).
    moves = [] if game.is_bot(seat) else list(view.moves)
    ply = game.turn_token
    controls = discord.ui.View(timeout=None)
    if not moves:
        pass
    elif len(moves) <= MAX_BUTTON_MOVES:
        for i, move in enumerate(moves):
            controls.add_item(_move_button(game.id, ply, move, view, i // PER_ROW))
    else:
        options = [discord.SelectOption(label=board.group_label(view, group[0].hand, len(group)), value=key)
                   for key, group in move_groups(moves).items()]
        controls.add_item(GroupSelect.of(game=game.id, ply=ply, options=options,
                                         placeholder=f"{len(moves)} moves: choose a hand or split", row=0))
    if moves and game.options.get("hints"):
        controls.add_item(HintButton.of(game=game.id, ply=ply, label="Hint", style=discord.ButtonStyle.secondary,
                                        row=MOVE_ROWS))
    if game.draws_allowed:
        draw_label = "Accept draw" if game.draw_offer is not None else "Offer draw"
        controls.add_item(GameButton.of(game=game.id, verb="draw", label=draw_label,
                                        style=discord.ButtonStyle.secondary, row=MOVE_ROWS))
    controls.add_item(GameButton.of(game=game.id, verb="resign", label="Resign", style=discord.ButtonStyle.danger,
                                    row=MOVE_ROWS))
    return controls


def group_view(result: Result[Any, Any], group: Sequence[MoveChoice]) -> discord.ui.View:
    """The moves of one group, for the player's private second step."""
    game_id, ply, view = result.id, result.game.turn_token, public_view(result)
    controls = discord.ui.View(timeout=None)
    if len(group) <= PER_ROW * 5:
        for i, move in enumerate(group):
            controls.add_item(_move_button(game_id, ply, move, view, i // PER_ROW))
        return controls
    chunks = [group[i:i + SELECT_OPTIONS] for i in range(0, len(group), SELECT_OPTIONS)]
    if len(chunks) > 5:
        raise ValueError(f"{len(group)} moves in one group do not fit in a message")
    for row, chunk in enumerate(chunks):
        options = [discord.SelectOption(label=board.move_label(m, view), value=m.text) for m in chunk]
        # Custom ids in one message must differ, so each select carries its index where moves go.
        controls.add_item(PickSelect.of(
            game=game_id, ply=ply, index=row, options=options, row=row,
            placeholder=f"Moves {row * SELECT_OPTIONS + 1} to {row * SELECT_OPTIONS + len(chunk)}"))
    return controls


def challenge_view(result: Result[Any, Any]) -> discord.ui.View:
    controls = discord.ui.View(timeout=None)
    controls.add_item(GameButton.of(game=result.id, verb="accept", label="Accept", style=discord.ButtonStyle.success))
    controls.add_item(GameButton.of(game=result.id, verb="decline", label="Decline",
                                    style=discord.ButtonStyle.secondary))
    return controls
