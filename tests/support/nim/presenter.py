"""Nim in Discord: `/nim challenge`, Accept, and a button per legal take; drawn only from Nim's public view."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.components import Button, CustomId, presenter_for
from bot.drawn import Board
from bot.i18n import Say
from bot.presenter import GamePresenter
from bot.service import Player, ReplayFrame, Result
from games.text import Text
from tests.support.nim.engine import NimView

KIND = "nim"


def _presenter(interaction: discord.Interaction[Any]) -> NimPresenter:
    return presenter_for(interaction, KIND, NimPresenter)


class AcceptButton(Button, custom_id=CustomId("nim:{game}:accept")):
    game_kind = KIND

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        presenter = _presenter(interaction)
        message = interaction.message.id if interaction.message else None
        await presenter.show_board(interaction, await presenter.service.accept(self.game_id, interaction.user.id,
                                                                                message))


class TakeButton(Button, custom_id=CustomId("nim:{game}:{ply}:take-{count}", count=r"[1-3]")):
    game_kind = KIND

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        presenter = _presenter(interaction)
        result = await presenter.service.act(self.game_id, interaction.user.id, f"take-{self.fields['count']}",
                                             expected_ply=self.ply)
        await presenter.show_board(interaction, result)


class NimPresenter(GamePresenter, commands.GroupCog, group_name="nim", group_description="Play Nim"):
    kind = KIND
    components = (AcceptButton, TakeButton)

    @app_commands.command(name="challenge", description="Challenge someone to Nim, or play me")
    @app_commands.describe(opponent="Who to play; leave empty to play against me")
    @app_commands.guild_only()
    async def challenge(self, interaction: discord.Interaction[Any], opponent: discord.User | None = None) -> None:
        rival = self.rival(interaction.user.id, opponent, "perfect")
        result = await self.service.create(
            KIND, guild_id=interaction.guild_id, channel_id=interaction.channel_id or 0,
            players=[Player(user_id=interaction.user.id), rival], challenge=rival.computer is None,
            turn_timeout=await self.new_game_timeout(interaction, None),
        )
        board = await self.channel_board(result)
        response = await interaction.response.send_message(content=board.content, embed=board.embed,
                                                           view=board.controls or discord.utils.MISSING)
        if response.message_id is not None:
            result = await self.service.set_message(result.id, response.message_id)
        self.schedule_computers(result)

    async def channel_board(self, result: Result[Any, Any]) -> Board:
        view: NimView = result.public
        game = result.game
        if game.status == "pending":
            buttons = discord.ui.View(timeout=None)
            buttons.add_item(AcceptButton.of(game=game.id, label="Accept", style=discord.ButtonStyle.success))
            return Board(f"{self.seat_name(result, 1)}, you have been challenged to Nim!",
                         discord.Embed(title=f"Nim #{game.id}: a challenge", description="Take 1-3 stones."), buttons)
        return Board(None, self._embed(result, view), self._buttons(result, view))

    def _embed(self, result: Result[Any, Any], view: NimView) -> discord.Embed:
        lines = [f"Stones left: **{view.stones}**"]
        if view.outcome is not None:
            lines.append(self.ending_line(result))
        elif view.to_move is not None:
            lines.append(f"▶ {self.seat_name(result, view.to_move)} to move")
        return discord.Embed(title=f"Nim #{result.id}", description="\n".join(lines))

    def _buttons(self, result: Result[Any, Any], view: NimView) -> discord.ui.View | None:
        if view.to_move is None or result.game.status != "active" or result.game.is_computer(view.to_move):
            return None
        buttons = discord.ui.View(timeout=None)
        for count in view.choices:
            buttons.add_item(TakeButton.of(game=result.id, ply=result.game.turn_token, count=count,
                                           label=f"Take {count}", style=discord.ButtonStyle.primary))
        return buttons

    def replay_embed(self, frame: ReplayFrame[Any], say: Say) -> discord.Embed:
        view: NimView = frame.view
        return discord.Embed(title=f"Nim #{frame.game.id}", description=f"Stones left: **{view.stones}**")

    def rules_lines(self, options: Mapping[str, Any], players: int) -> list[Text | str]:
        return [f"Nim with {options.get('stones', 7)} stones: take 1 to 3, the last stone wins."]

    def ending_line(self, result: Result[Any, Any]) -> str:
        view: NimView = result.public
        assert view.outcome is not None
        winner = view.outcome.winners[0]
        return f"🏆 {self.seat_name(result, winner)} took the last stone and wins."


async def setup(bot: Any) -> None:
    await bot.add_presenter(NimPresenter(bot))
