"""Chopsticks' buttons and menus, and the controls of its messages: exactly the legal moves of the player to move.

Discord allows 5 rows of 5 buttons. Up to 20 legal moves get a button each (the fifth row holds Hint /
Draw / Resign); beyond that the board shows one select of move groups (each tapping hand, splits, other
moves) and the chosen group's moves are offered privately to the player, as buttons or in selects of at
most 25 options each. Custom ids carry the game, the move count they were drawn at and public move texts:
Chopsticks has no secrets. The board's controls are in the server's language (it is a channel message); the private
second step and every answer to a click are in the language of whoever clicked.
"""

from __future__ import annotations

from collections.abc import Sequence
from string import ascii_uppercase
from typing import Any, ClassVar

import discord

from bot import workers
from bot.components import (
    Button,
    CustomId,
    Select,
    ask_to_confirm_resignation,
    persistent_controls,
    presenter_for,
    step_aside,
)
from bot.games.chopsticks import board
from bot.i18n import Say
from bot.presenter import GamePresenter, seat_names
from bot.service import Result, ServiceError
from games.chopsticks.analysis import hint_text
from games.chopsticks.views import ChopsticksView, MoveChoice
from games.text import Plural, Text, TextIn

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
        raise ServiceError(Text("Game #{number} is not a Chopsticks game.", number=result.id))
    return view


def _presenter(interaction: discord.Interaction[Any]) -> GamePresenter:
    """Chopsticks' presenter: what every game's presenter does (answering, drawing, the service) is all these
    components ask of it."""
    return presenter_for(interaction, KIND, GamePresenter)  # type: ignore[type-abstract]  # checked at run time


async def play(interaction: discord.Interaction[Any], game_id: int, move: str, ply: int) -> None:
    """Play `move`: on the board, redraw it; from the private second step, confirm there and redraw the board."""
    presenter = _presenter(interaction)
    result = await presenter.service.act(game_id, interaction.user.id, move, expected_ply=ply)
    if presenter.clicked_on_a_board(interaction, result):
        await presenter.show_board(interaction, result)
        return
    say = Say.to(interaction)  # the private second step: the clicker's own message
    await presenter.answer_privately(interaction, result, say(Text("You played `{move}`.", move=move)))


# ----- the components -----------------------------------------------------------------------------------------
class ChopsticksComponent:
    """What every button and menu of Chopsticks shares: it acts on Chopsticks games only."""

    game_kind: ClassVar[str | None] = KIND


class MoveButton(ChopsticksComponent, Button, custom_id=CustomId("cs:{game}:mv:{ply}:{move}", move=MOVE_TEXT)):
    """One legal move, on the board or in the player's private second step."""

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        await play(interaction, self.game_id, self.fields["move"], self.ply)


class HintButton(ChopsticksComponent, Button, custom_id=CustomId("cs:{game}:hint:{ply}")):
    """Ask for a hint (when the table has hints on): the player to move only, in the position they saw."""

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        presenter = _presenter(interaction)
        result = await presenter.service.require_turn(self.game_id, interaction.user.id, self.ply)
        if not result.game.options.get("hints"):
            raise ServiceError(Text("Hints are off in this game."))
        # The solver (or the search), never on the event loop: in the advice workers, in this player's turn. Refused
        # there before the answer is deferred: no "thinking..." that ends in a refusal.
        with workers.ADVISING.admit(workers.user(interaction.user.id)) as place:
            await interaction.response.defer(ephemeral=True, thinking=True)
            step_aside()  # from now on it only waits for a worker: its click slot is for the next click meanwhile
            hint = await place.run(hint_text, public_view(result))
        await interaction.followup.send(Say.to(interaction)(hint), ephemeral=True)


class AcceptButton(ChopsticksComponent, Button, custom_id=CustomId("cs:{game}:accept")):
    """Accept a challenge: its message becomes the board."""

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        presenter = _presenter(interaction)
        shown_on = interaction.message.id if interaction.message is not None else None
        await presenter.show_board(interaction,
                                   await presenter.service.accept(self.game_id, interaction.user.id, shown_on))


class DeclineButton(ChopsticksComponent, Button, custom_id=CustomId("cs:{game}:decline")):
    """Decline a challenge: its message says who declined, without controls."""

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        presenter, user = _presenter(interaction), interaction.user.id
        result = await presenter.service.decline(self.game_id, user)
        embed = board.challenge_embed(result.game, public_view(result), seat_names(presenter, result),
                                      await presenter.public_say(result), declined_by=result.game.seat_of(user))
        await interaction.response.edit_message(content=None, embed=embed, view=None)


class DrawButton(ChopsticksComponent, Button, custom_id=CustomId("cs:{game}:draw")):
    """Offer a draw, or accept the one offered."""

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        presenter = _presenter(interaction)
        result, _drawn = await presenter.service.offer_draw(self.game_id, interaction.user.id)
        await presenter.show_board(interaction, result)


class ResignButton(ChopsticksComponent, Button, custom_id=CustomId("cs:{game}:resign")):
    """Resign's first step: a private confirmation (a misclick must not put anyone out)."""

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        presenter, game_id, user = _presenter(interaction), self.game_id, interaction.user.id
        result = await presenter.service.require_player(game_id, user)
        seat, view = result.game.seat_of(user), public_view(result)
        if seat in view.out and seat not in view.zombies:  # out already (a zombie may still leave the game)
            raise ServiceError(Text("You are already out of Chopsticks #{number}.", number=game_id))
        await ask_to_confirm_resignation(
            interaction, game_id, Text("Resign Chopsticks #{number}? You will be out.", number=game_id),
            ConfirmResignButton)


class ConfirmResignButton(ChopsticksComponent, Button, custom_id=CustomId("cs:{game}:resign-yes")):
    """Resign, confirmed privately: the player is out."""

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        presenter = _presenter(interaction)
        result = await presenter.service.resign(self.game_id, interaction.user.id)
        await presenter.answer_privately(interaction, result, Say.to(interaction)(Text("You resigned.")))


class GroupSelect(ChopsticksComponent, Select, custom_id=CustomId("cs:{game}:group:{ply}")):
    """On a board with too many moves for buttons: choose a tapping hand (or splits), then the move, privately."""

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        choice = self.choice()
        result = await _presenter(interaction).service.require_turn(self.game_id, interaction.user.id, self.ply)
        group = move_groups(public_view(result).moves).get(choice)
        if not group:
            raise ServiceError(Text("There is no such group of moves now; look at the board again."))
        say = Say.to(interaction)  # a private answer: in the clicker's language, whatever the board's
        await interaction.response.send_message(say(Text("Choose your move:")), view=group_controls(result, group, say),
                                                ephemeral=True)


class PickSelect(ChopsticksComponent, Select, custom_id=CustomId("cs:{game}:pick:{ply}:{index}", index=r"[0-4]")):
    """One of the private second step's move menus (a group too big for buttons)."""

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        await play(interaction, self.game_id, self.choice(), self.ply)


COMPONENTS = (MoveButton, HintButton, AcceptButton, DeclineButton, DrawButton, ResignButton, ConfirmResignButton,
              GroupSelect, PickSelect)


# ----- the controls of a message ------------------------------------------------------------------------------
def move_groups(moves: Sequence[MoveChoice]) -> dict[str, list[MoveChoice]]:
    """Moves by the hand that taps ("A", "B", ...) and everything else under "split"."""
    groups: dict[str, list[MoveChoice]] = {}
    for move in moves:
        key = ascii_uppercase[move.hand] if move.hand is not None else SPLIT_GROUP
        groups.setdefault(key, []).append(move)
    return groups


def _move_button(game_id: int, ply: int, move: MoveChoice, view: ChopsticksView, row: int, say: Say) -> MoveButton:
    return MoveButton.of(game=game_id, ply=ply, move=move.text, label=board.move_label(move, view, say),
                         style=discord.ButtonStyle.primary, row=row)


def board_controls(result: Result[Any, Any], say: Say) -> discord.ui.View | None:
    """Components for the player to move, plus Hint / Draw / Resign (labelled in `say`'s language: the server's);
    None when the game is over."""
    game, view = result.game, public_view(result)
    seat = view.to_move
    if seat is None or game.status != "active":
        return None
    # While a bot thinks nobody has a move to click, but Resign stays (it works at any time).
    moves = [] if game.is_computer(seat) else list(view.moves)
    ply = game.turn_token
    controls = discord.ui.View(timeout=None)
    if not moves:
        pass
    elif len(moves) <= MAX_BUTTON_MOVES:
        for i, move in enumerate(moves):
            controls.add_item(_move_button(game.id, ply, move, view, i // PER_ROW, say))
    else:
        options = [discord.SelectOption(label=board.group_label(view, group[0].hand, len(group), say), value=key)
                   for key, group in move_groups(moves).items()]
        placeholder = say(Plural("{count} move: choose a hand or split", "{count} moves: choose a hand or split",
                                 len(moves)))
        controls.add_item(GroupSelect.of(game=game.id, ply=ply, options=options, placeholder=placeholder, row=0))
    if moves and game.options.get("hints"):
        controls.add_item(HintButton.of(game=game.id, ply=ply, label=say(TextIn("button", "Hint")),
                                        style=discord.ButtonStyle.secondary, row=MOVE_ROWS))
    if game.draws_allowed:
        draw_label = board.ACCEPT_DRAW if game.draw_offer is not None else TextIn("button", "Offer draw")
        controls.add_item(DrawButton.of(game=game.id, label=say(draw_label), style=discord.ButtonStyle.secondary,
                                        row=MOVE_ROWS))
    controls.add_item(ResignButton.of(game=game.id, label=say(TextIn("button", "Resign")),
                                      style=discord.ButtonStyle.danger, row=MOVE_ROWS))
    return controls


def group_controls(result: Result[Any, Any], group: Sequence[MoveChoice], say: Say) -> discord.ui.View:
    """The moves of one group, for the player's private second step (in that player's language: `say`)."""
    game_id, ply, view = result.id, result.game.turn_token, public_view(result)
    controls = discord.ui.View(timeout=None)
    if len(group) <= PER_ROW * 5:
        for i, move in enumerate(group):
            controls.add_item(_move_button(game_id, ply, move, view, i // PER_ROW, say))
        return controls
    chunks = [group[i:i + SELECT_OPTIONS] for i in range(0, len(group), SELECT_OPTIONS)]
    if len(chunks) > 5:
        raise ValueError(f"{len(group)} moves in one group do not fit in a message")
    for row, chunk in enumerate(chunks):
        options = [discord.SelectOption(label=board.move_label(m, view, say), value=m.text) for m in chunk]
        # Custom ids in one message must differ, so each select carries its index where moves go.
        placeholder = say(Text("Moves {first} to {last}", first=row * SELECT_OPTIONS + 1,
                               last=row * SELECT_OPTIONS + len(chunk)))
        controls.add_item(PickSelect.of(game=game_id, ply=ply, index=row, options=options, row=row,
                                        placeholder=placeholder))
    return controls


def challenge_controls(result: Result[Any, Any], say: Say) -> discord.ui.View:
    """Accept and Decline, in the server's language (`say`): the challenge is a channel message."""
    return persistent_controls(
        AcceptButton.of(game=result.id, label=say(TextIn("button", "Accept")), style=discord.ButtonStyle.success),
        DeclineButton.of(game=result.id, label=say(TextIn("button", "Decline")), style=discord.ButtonStyle.secondary))
