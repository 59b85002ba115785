"""Play: the piece menu and direction buttons of a private board, the moves they make, and `/generals move`
with its autocomplete.

A move is made on the board itself, in two clicks that edit the same message: choosing a piece redraws the board
with that piece highlighted and its direction buttons, and a direction makes the move and redraws the board after
it. The pick alone never moves a piece, even one with a single legal move: a mis-tap in the menu costs nothing.
The chosen piece is not stored anywhere: it is one player's state of their own message, carried by the redraw
itself.

Everything here reads the mover's own view (`Result.own`): their legal moves and their own ranks, never the
opponent's.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import discord
from discord import app_commands

from bot.delivery import Delivery
from bot.games.generals.board import GeneralsResult, own_view
from bot.games.generals.own_board import OwnInputs, direction_arrow, movable_pieces, mover_result
from bot.i18n import Say
from bot.private_boards import PrivateBoards
from bot.service import GameService, ServiceError
from games.base import Action
from games.generals.actions import Move
from games.generals.views import PLAY, PlayerView
from games.text import Text, TextIn

# The user's game: by number, or the one they play where they typed (presenter.py `my_game`).
FindGame = Callable[[discord.Interaction[Any], int | None], Awaitable[GeneralsResult]]


class Play:
    """Moves of a game in play, from a private board's controls or by command."""

    def __init__(self, *, service: GameService, delivery: Delivery, boards: PrivateBoards[OwnInputs],
                 find_game: FindGame) -> None:
        self.service = service
        self.delivery = delivery  # the bot's one way from a result to every board
        self.boards = boards
        self.find_game = find_game

    async def choose_piece(self, interaction: discord.Interaction[Any], game_id: int, square: str,
                           ply: int) -> None:
        """The piece menu's answer, on the board it was chosen on: the board is redrawn with the piece highlighted and
        one button per legal step (a piece with a single move too: the pick never moves it)."""
        result = await self.service.require_turn(game_id, interaction.user.id, ply)
        view = own_view(result, interaction.user.id)
        moves = [text for text in view.legal if text.startswith(f"{square}-")]
        if not moves:
            raise ServiceError(Text("You have no piece on {square} that can move now; look at your board again.",
                                    square=square))
        await self.boards.answer(interaction, game_id, selected=square, in_hand=result)

    async def move(self, interaction: discord.Interaction[Any], game_id: int, move: str, ply: int | None,
                   *, from_command: bool) -> None:
        """Play `move` for the user: a direction button (drawn at move count `ply`), or `/generals move`. The service
        reads the move's text, once; a typed text that is no move (a setup text) is refused in the command's words.
        A button's text is a move by its custom id's shape (components.py `MOVE`)."""
        result = await self.service.act(game_id, interaction.user.id, move, expected_ply=ply,
                                        refuse=_moves_only if from_command else None)
        if from_command:
            said = mover_result(own_view(result, interaction.user.id))

            async def answer(latest: GeneralsResult) -> int | None:
                await interaction.response.send_message(Say.to(interaction)(said), ephemeral=True)
                return None
        else:  # the board the move was made on shows the board after it (and the drawing after it skips it)
            async def answer(latest: GeneralsResult) -> int | None:
                return await self.boards.answer_with(interaction, latest)
        await self.delivery.deliver(result, answer)

    async def complete(self, interaction: discord.Interaction[Any], current: str) -> list[app_commands.Choice[str]]:
        """The user's own legal moves, labelled with their own pieces (nothing if it is not their turn)."""
        try:
            found = await self.find_game(interaction, _int_or_none(interaction.namespace.game))
        except ServiceError:
            return []
        view: PlayerView | None = found.own(interaction.user.id)
        if view is None or view.phase != PLAY or view.to_move != view.seat:
            return []
        say = Say.to(interaction)  # the labels are the user's to read: their language (a piece's name, not the move)
        typed = current.strip().lower().replace(" ", "-")
        moves = [text for text in view.legal
                 if text.startswith(typed) or typed in move_label(view, text, say).lower()]
        if len(moves) > 25 and "-" not in typed:  # too many: one choice per piece, then its moves
            pieces = [(square, rank, targets) for square, rank, targets in movable_pieces(view)
                      if square.startswith(typed)]
            return [app_commands.Choice(name=say(Text("{square}: {rank} → {targets} (type the target)", square=square,
                                                      rank=rank.title, targets=", ".join(targets)))[:100],
                                        value=f"{square}-{targets[0]}")
                    for square, rank, targets in pieces][:25]
        return [app_commands.Choice(name=move_label(view, text, say)[:100], value=text) for text in moves][:25]


def move_label(view: PlayerView, text: str, say: Say) -> str:
    """An autocomplete label for a legal move: the piece, where it goes, whether it challenges."""
    src, _, dst = text.partition("-")
    ranks = {piece.square: piece.rank for piece in view.own}
    enemy = {piece.square for piece in view.enemy}
    rank = ranks.get(src)
    piece = rank.title if rank is not None else TextIn("piece", "piece")
    arrow = direction_arrow(view.seat, src, dst)
    if dst in enemy:
        return say(Text("{move}: {rank} {arrow} {square} (challenge)", move=text, rank=piece, arrow=arrow, square=dst))
    return say(Text("{move}: {rank} {arrow} {square}", move=text, rank=piece, arrow=arrow, square=dst))


def _int_or_none(value: Any) -> int | None:
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def _moves_only(action: Action) -> Text | None:
    """`/generals move` takes moves: setup texts belong to the board's setup tools."""
    if isinstance(action, Move):
        return None
    return Text("`/generals move` takes a move like e3-e4; set up your army on your board.")
