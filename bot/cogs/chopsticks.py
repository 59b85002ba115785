"""/chopsticks: challenge a player or the bot, then play by clicking the board's buttons."""

from __future__ import annotations

import logging
import re
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.errors import reply_with_error
from bot.service import Game, GameService, Player, ServiceError, TimerEvent
from bot.ui import chopsticks as ui

log = logging.getLogger(__name__)
KIND = "chopsticks"
BOT_LEVEL = "medium"


class ChopsticksButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=ui.CUSTOM_ID_TEMPLATE):
    """Every Chopsticks button: the custom id says which game and what to do, so clicks survive restarts."""

    def __init__(
        self,
        custom_id: str,
        *,
        label: str = "·",
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
        row: int | None = None,
    ) -> None:
        super().__init__(discord.ui.Button(label=label, style=style, custom_id=custom_id, row=row))
        match = re.fullmatch(ui.CUSTOM_ID_TEMPLATE, custom_id)
        assert match is not None, custom_id
        self.game_id = int(match["game"])
        self.verb: str = match["verb"]
        self.ply = int(match["ply"]) if match["ply"] else None
        self.move: str | None = match["move"]

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ChopsticksButton:
        assert isinstance(item, discord.ui.Button) and item.custom_id is not None
        return cls(item.custom_id, label=item.label or "·", style=item.style)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        cog = interaction.client.get_cog(ChopsticksCog.__cog_name__)
        try:
            if not isinstance(cog, ChopsticksCog):
                raise ServiceError("Chopsticks is not available on this bot right now.")
            await cog.on_button(interaction, self)
        except Exception as exc:
            await reply_with_error(interaction, exc)


class ChopsticksCog(commands.GroupCog, group_name="chopsticks", group_description="Play Chopsticks"):
    __cog_name__ = "Chopsticks"

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        bot.presenters[KIND] = self

    @property
    def service(self) -> GameService:
        service: GameService = self.bot.service
        return service

    @property
    def _bot_id(self) -> int | None:
        user = self.bot.user
        return user.id if user else None

    # ----- commands ---------------------------------------------------------------------------------------
    @app_commands.command(name="challenge", description="Challenge someone to Chopsticks, or play me")
    @app_commands.describe(
        opponent="Who to play; leave empty to play against me",
        turn_minutes="Minutes per move before a forfeit (default: the bot's TURN_TIMEOUT setting, 24 h)",
    )
    @app_commands.guild_only()
    async def challenge(
        self,
        interaction: discord.Interaction[Any],
        opponent: discord.User | None = None,
        turn_minutes: app_commands.Range[int, 1, 20160] | None = None,
    ) -> None:
        me = interaction.user
        if opponent is not None and opponent.id == me.id:
            raise ServiceError("You cannot challenge yourself. Leave `opponent` empty to play against me.")
        if opponent is not None and opponent.bot and opponent.id != self._bot_id:
            raise ServiceError("Other bots cannot play. Leave `opponent` empty to play against me.")
        vs_bot = opponent is None or opponent.id == self._bot_id
        rival = Player(bot=BOT_LEVEL) if opponent is None or vs_bot else Player(user_id=opponent.id)
        players = [Player(user_id=me.id), rival]
        game = await self.service.create(
            KIND,
            guild_id=interaction.guild_id,
            channel_id=interaction.channel_id or 0,
            players=players,
            challenge=not vs_bot,
            turn_timeout=turn_minutes * 60.0 if turn_minutes else None,
        )
        if vs_bot:
            response = await interaction.response.send_message(
                content=f"<@{me.id}> vs <@{self._bot_id}>",
                embed=ui.board_embed(game, self._bot_id),
                view=ui.board_view(game, ChopsticksButton) or discord.utils.MISSING,
                allowed_mentions=discord.AllowedMentions.none(),
            )
        else:
            assert opponent is not None
            response = await interaction.response.send_message(
                content=f"<@{opponent.id}>, you have been challenged!",
                embed=ui.challenge_embed(game, self._bot_id),
                view=ui.challenge_view(game, ChopsticksButton),
                allowed_mentions=discord.AllowedMentions(users=[discord.Object(opponent.id)]),
            )
        if response.message_id is not None:
            await self.service.set_message(game.id, response.message_id)

    # ----- buttons ----------------------------------------------------------------------------------------
    async def on_button(self, interaction: discord.Interaction[Any], button: ChopsticksButton) -> None:
        user, game_id = interaction.user.id, button.game_id
        if button.verb == "mv":
            assert button.move is not None
            game = await self.service.act(game_id, user, button.move, expected_ply=button.ply)
            await self._show_board(interaction, game)
        elif button.verb == "accept":
            game = await self.service.accept(game_id, user)
            await self._show_board(interaction, game)
        elif button.verb == "decline":
            game = await self.service.decline(game_id, user)
            await interaction.response.edit_message(
                content=None, embed=ui.challenge_embed(game, self._bot_id), view=None
            )
        elif button.verb == "draw":
            game, _drawn = await self.service.offer_draw(game_id, user)
            await self._show_board(interaction, game)
        elif button.verb == "resign":
            await self.service.require_player(game_id, user)
            confirm = discord.ui.View(timeout=None)
            confirm.add_item(ChopsticksButton(ui.custom_id(game_id, "resign-yes"), label="Yes, resign",
                                              style=discord.ButtonStyle.danger))
            await interaction.response.send_message(
                f"Resign Chopsticks #{game_id}? Your opponent wins.", view=confirm, ephemeral=True
            )
        elif button.verb == "resign-yes":
            game = await self.service.resign(game_id, user)
            await interaction.response.edit_message(content="You resigned.", view=None)
            await self._edit_board_message(game)

    async def _show_board(self, interaction: discord.Interaction[Any], game: Game) -> None:
        """Answer a click on the game's own message by redrawing that message."""
        await interaction.response.edit_message(
            content=self._board_content(game),
            embed=ui.board_embed(game, self._bot_id),
            view=ui.board_view(game, ChopsticksButton),
            allowed_mentions=discord.AllowedMentions.none(),
        )

    def _board_content(self, game: Game) -> str:
        names = [ui.seat_name(game, s, self._bot_id).removesuffix(" (bot)") for s in range(len(game.record.seats))]
        return " vs ".join(names)

    async def _edit_board_message(self, game: Game) -> None:
        """Redraw the game's channel message outside an interaction on it (resign, timers)."""
        if game.record.message_id is None:
            return
        channel = self.bot.get_partial_messageable(game.record.channel_id, guild_id=game.record.guild_id)
        message = channel.get_partial_message(game.record.message_id)
        if game.record.status in ("pending", "declined", "expired"):
            await message.edit(content=None, embed=ui.challenge_embed(game, self._bot_id), view=None)
        else:
            await message.edit(
                content=self._board_content(game),
                embed=ui.board_embed(game, self._bot_id),
                view=ui.board_view(game, ChopsticksButton),
                allowed_mentions=discord.AllowedMentions.none(),
            )

    # ----- timers -----------------------------------------------------------------------------------------
    async def announce_timer(self, event: TimerEvent, game: Game) -> None:
        channel = self.bot.get_partial_messageable(game.record.channel_id, guild_id=game.record.guild_id)
        await self._edit_board_message(game)
        if event is TimerEvent.REMINDER:
            seat = game.state.current_player()
            user = game.user_at(seat) if seat is not None else None
            if user is None or game.record.deadline is None:
                return
            await channel.send(
                f"<@{user}>, it is your move in Chopsticks #{game.id} ({ui.jump_url(game)}). "
                f"You forfeit <t:{int(game.record.deadline)}:R> if you do not move.",
                allowed_mentions=discord.AllowedMentions(users=[discord.Object(user)]),
            )
        elif event is TimerEvent.FORFEIT:
            assert game.state.outcome() is not None
            await channel.send(
                f"Chopsticks #{game.id}: {ui.result_line(game, game.state, self._bot_id)}",  # type: ignore[arg-type]
                allowed_mentions=discord.AllowedMentions.none(),
            )
