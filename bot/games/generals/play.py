"""Play: the piece menu's direction buttons, the moves they make, and `/generals move` with its autocomplete.

Everything here reads the mover's own view (`Result.own`): their legal moves and their own ranks, never the
opponent's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.games.generals.board import movable_pieces, mover_result
from bot.games.generals.components import GeneralsMoveButton
from bot.service import ServiceError
from games.base import GameError
from games.generals.actions import Move, parse_action_text
from games.generals.board import WIDTH, parse_square, rank_of
from games.generals.views import PLAY, PlayerView

if TYPE_CHECKING:
    from bot.games.generals.presenter import GeneralsPresenter


class Play:
    """Moves of a game in play, from a private board's controls or by command."""

    def __init__(self, presenter: GeneralsPresenter) -> None:
        self.presenter = presenter

    async def choose_direction(self, interaction: discord.Interaction[Any], game_id: int, square: str,
                               ply: int) -> None:
        """The piece menu's answer: one button per legal step of the piece on `square`."""
        result = await self.presenter.service.require_turn(game_id, interaction.user.id, ply)
        view = self.presenter.own_view(result, interaction.user.id)
        if not any(text.startswith(f"{square}-") for text in view.legal):
            raise ServiceError(f"You have no piece on {square} that can move now; look at your board again.")
        rank = next(p.rank for p in view.own if p.square == square)
        await interaction.response.send_message(
            f"Move your {rank.title} on {square} (⬆ is towards the enemy):",
            view=direction_view(game_id, view, square), ephemeral=True)

    async def move(self, interaction: discord.Interaction[Any], game_id: int, move: str, ply: int | None,
                   *, from_command: bool) -> None:
        """Play `move` for the user; a direction button (drawn at move count `ply`) or `/generals move`."""
        try:
            action = parse_action_text(move)
        except GameError as exc:
            raise ServiceError(str(exc)) from None
        if not isinstance(action, Move):  # setup texts belong to the board's setup tools, not to moves
            raise ServiceError("`/generals move` takes a move like e3-e4; set up your army on your board.")
        result = await self.presenter.service.act(game_id, interaction.user.id, action.text(), expected_ply=ply)
        said = mover_result(self.presenter.own_view(result, interaction.user.id))
        if from_command:
            await interaction.response.send_message(said, ephemeral=True)
        else:
            await interaction.response.edit_message(content=said, view=None)
        await self.presenter.bot.redraw(result.id)
        self.presenter.schedule_bots(result)

    async def complete(self, interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[str]]:
        """The user's own legal moves, labelled with their own pieces (nothing if it is not their turn)."""
        try:
            found = await self.presenter.my_game(interaction, _int_or_none(interaction.namespace.game))
        except ServiceError:
            return []
        view: PlayerView | None = found.own(interaction.user.id)
        if view is None or view.phase != PLAY or view.to_move != view.seat:
            return []
        typed = current.strip().lower().replace(" ", "-")
        moves = [text for text in view.legal if text.startswith(typed) or typed in move_label(view, text).lower()]
        if len(moves) > 25 and "-" not in typed:  # too many: one choice per piece, then its moves
            pieces = [(square, rank, targets) for square, rank, targets in movable_pieces(view)
                      if square.startswith(typed)]
            return [app_commands.Choice(name=f"{square}: {rank.title} → {', '.join(targets)} "
                                             "(type the target)"[:100], value=f"{square}-{targets[0]}")
                    for square, rank, targets in pieces][:25]
        return [app_commands.Choice(name=move_label(view, text)[:100], value=text) for text in moves][:25]


def direction_view(game_id: int, view: PlayerView, square: str) -> discord.ui.View:
    """One button per legal step of the piece on `square`, labelled from the player's side of the board."""
    enemy = {piece.square for piece in view.enemy}
    controls = discord.ui.View(timeout=None)
    moves = [text for text in view.legal if text.startswith(f"{square}-")]
    for text in sorted(moves, key=lambda t: _arrow_order(view.seat, square, t.partition("-")[2])):
        dst = text.partition("-")[2]
        arrow = direction_arrow(view.seat, square, dst)
        label = f"{arrow} {dst}" + (" ⚔ challenge" if dst in enemy else "")
        controls.add_item(GeneralsMoveButton.of(
            game=game_id, ply=view.ply, move=text, label=label,
            style=discord.ButtonStyle.danger if dst in enemy else discord.ButtonStyle.primary))
    return controls


def direction_arrow(seat: int, src: str, dst: str) -> str:
    """↑ is always towards the enemy, as the player sees their board."""
    a, b = parse_square(src), parse_square(dst)
    assert a is not None and b is not None
    forward = rank_of(b) - rank_of(a)
    sideways = (b % WIDTH) - (a % WIDTH)
    if seat == 1:
        forward, sideways = -forward, -sideways
    if forward:
        return "⬆" if forward > 0 else "⬇"
    return "➡" if sideways > 0 else "⬅"


def _arrow_order(seat: int, src: str, dst: str) -> int:
    return "⬅⬆⬇➡".index(direction_arrow(seat, src, dst))


def move_label(view: PlayerView, text: str) -> str:
    """An autocomplete label for a legal move: the piece, where it goes, whether it challenges."""
    src, _, dst = text.partition("-")
    ranks = {piece.square: piece.rank for piece in view.own}
    enemy = {piece.square for piece in view.enemy}
    rank = ranks.get(src)
    piece = rank.title if rank is not None else "piece"
    arrow = direction_arrow(view.seat, src, dst)
    return f"{text}: {piece} {arrow} {dst}" + (" (challenge)" if dst in enemy else "")


def _int_or_none(value: Any) -> int | None:
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None
