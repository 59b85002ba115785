"""/sucker: So Long Sucker tables. Players negotiate in the game's thread (or the channel) in plain words;
the bot keeps the table, asks for each decision on the status message, and takes transfers, kills and
deal proposals by slash command at any moment."""

from __future__ import annotations

import logging
import re
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.base import GameCogBase
from bot.service import Game, ServiceError, TimerEvent
from bot.ui import sucker as ui
from bot.ui.components import dispatch
from bot.ui.lobby import post_lobby, show_expired
from games.sucker.rules import DEFAULT_CHIPS, DEFAULT_PLAYERS
from storage.deals import DealStore
from storage.lobbies import LobbyRecord

log = logging.getLogger(__name__)
KIND = "sucker"
# Colours are typed freely with autocomplete (Discord forbids fixed choices on an autocompleted option);
# the engine refuses a colour that is not in the game with a clear reason.
Colour = app_commands.Range[str, 1, 12]


class SuckerButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=ui.BUTTON_TEMPLATE):
    """A decision button: the custom id carries the game, the position it was drawn for, and the action."""

    def __init__(self, custom_id: str, *, label: str = "·",
                 style: discord.ButtonStyle = discord.ButtonStyle.primary, row: int | None = None) -> None:
        super().__init__(discord.ui.Button(label=label, style=style, custom_id=custom_id, row=row))
        match = re.fullmatch(ui.BUTTON_TEMPLATE, custom_id)
        assert match is not None, custom_id
        self.game_id, self.ply, self.action = int(match["game"]), int(match["ply"]), str(match["action"])

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> SuckerButton:
        assert isinstance(item, discord.ui.Button) and item.custom_id is not None
        return cls(item.custom_id, label=item.label or "·", style=item.style)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await dispatch(interaction, SuckerCog, lambda cog: cog.decide(interaction, self.game_id, self.action, self.ply),
                       game_id=self.game_id)


class SuckerSelect(discord.ui.DynamicItem[discord.ui.Select[Any]], template=ui.SELECT_TEMPLATE):
    """The chip-colour select on the status message, and pile selects when there are many piles."""

    def __init__(self, custom_id: str, *, options: list[discord.SelectOption] | None = None,
                 placeholder: str | None = None, row: int | None = None) -> None:
        super().__init__(discord.ui.Select(custom_id=custom_id, options=options or [], placeholder=placeholder,
                                           row=row))
        match = re.fullmatch(ui.SELECT_TEMPLATE, custom_id)
        assert match is not None, custom_id
        self.game_id, self.ply, self.what = int(match["game"]), int(match["ply"]), str(match["what"])

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> SuckerSelect:
        assert isinstance(item, discord.ui.Select) and item.custom_id is not None
        return cls(item.custom_id, options=item.options, placeholder=item.placeholder)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        values = list(self.item.values)
        await dispatch(interaction, SuckerCog, lambda cog: cog.on_select(interaction, self, values),
                       game_id=self.game_id)


class DealButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=ui.DEAL_TEMPLATE):
    def __init__(self, custom_id: str, *, label: str = "Accept / withdraw",
                 style: discord.ButtonStyle = discord.ButtonStyle.success, row: int | None = None) -> None:
        super().__init__(discord.ui.Button(label=label, style=style, custom_id=custom_id, row=row))
        match = re.fullmatch(ui.DEAL_TEMPLATE, custom_id)
        assert match is not None, custom_id
        self.game_id, self.number = int(match["game"]), int(match["number"])

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> DealButton:
        assert isinstance(item, discord.ui.Button) and item.custom_id is not None
        return cls(item.custom_id, label=item.label or "Accept / withdraw", style=item.style)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await dispatch(interaction, SuckerCog, lambda cog: cog.mark_deal(interaction, self.game_id, self.number),
                       game_id=self.game_id)


class SuckerCog(GameCogBase, commands.GroupCog, group_name="sucker", group_description="Play So Long Sucker"):
    __cog_name__ = "So Long Sucker"
    DYNAMIC_ITEMS = (SuckerButton, SuckerSelect, DealButton)
    title = "So Long Sucker"

    kind = KIND

    @property
    def deals(self) -> DealStore:
        deals: DealStore = self.bot.deals
        return deals


    # ----- commands ---------------------------------------------------------------------------------------
    @app_commands.command(name="new", description="Open a So Long Sucker table (3-6 players); others join it")
    @app_commands.describe(players="Seats at the table (default 4)", chips="Chips each player starts with (default 7)",
                           turn_minutes="Minutes per decision before a forfeit (default: the bot's TURN_TIMEOUT)")
    @app_commands.guild_only()
    async def new(
        self,
        interaction: discord.Interaction[Any],
        players: app_commands.Range[int, 3, 6] = DEFAULT_PLAYERS,
        chips: app_commands.Range[int, 3, 10] = DEFAULT_CHIPS,
        turn_minutes: app_commands.Range[int, 1, 20160] | None = None,
    ) -> None:
        lobby = await self.lobbies.open(
            KIND, guild_id=interaction.guild_id, channel_id=interaction.channel_id or 0, host_id=interaction.user.id,
            max_players=players, options={"chips": chips, "bot_level": "basic"},
            turn_timeout=await self.new_game_timeout(interaction, turn_minutes),
        )
        await post_lobby(interaction, lobby, self)

    @app_commands.command(name="give", description="Give prisoners you hold to another player, at any time")
    @app_commands.describe(chip="The colour of the prisoners to give", to="Who gets them",
                           count="How many (default 1)", game="Game number, if you play several here")
    async def give(self, interaction: discord.Interaction[Any], chip: Colour, to: discord.User,
                   count: app_commands.Range[int, 1, 60] = 1, game: int | None = None) -> None:
        found = await self._my_game(interaction, game)
        receiver = found.seat_of(to.id)
        if receiver is None:
            raise ServiceError(f"{to.mention} is not playing in So Long Sucker #{found.id}.")
        colour = ui.state_of(found).colours[receiver]
        await self._free_action(interaction, found, f"give:{chip.strip().lower()}:{colour}:{count}")

    @app_commands.command(name="kill", description="Kill prisoners you hold (they leave the game), at any time")
    @app_commands.describe(chip="The colour of the prisoners to kill", count="How many (default 1)",
                           game="Game number, if you play several here")
    async def kill(self, interaction: discord.Interaction[Any], chip: Colour,
                   count: app_commands.Range[int, 1, 60] = 1, game: int | None = None) -> None:
        found = await self._my_game(interaction, game)
        await self._free_action(interaction, found, f"kill-prisoner:{chip.strip().lower()}:{count}")

    @give.autocomplete("chip")
    @kill.autocomplete("chip")
    async def _complete_prisoners(self, interaction: discord.Interaction[Any],
                                  current: str) -> list[app_commands.Choice[str]]:
        """Only the colours of prisoners the user holds (nothing if they play no game here)."""
        try:
            found = await self._my_game(interaction, None)
        except ServiceError:
            return []
        seat = found.seat_of(interaction.user.id)
        assert seat is not None
        held = ui.held_colours(ui.state_of(found), seat, prisoners_only=True)
        return [app_commands.Choice(name=f"{colour} ({n} held)", value=colour)
                for colour, n in held if colour.startswith(current.lower())][:25]

    @app_commands.command(name="deal", description="Propose a deal to the table (numbered, not binding)")
    @app_commands.describe(text="What you propose, in your own words", game="Game number, if you play several here")
    async def deal(self, interaction: discord.Interaction[Any], text: app_commands.Range[str, 1, 1000],
                   game: int | None = None) -> None:
        found = await self._my_game(interaction, game)
        deal = await self.deals.propose(found.id, interaction.user.id, text.strip(), self.service.clock())
        response = await interaction.response.send_message(
            embed=ui.deal_embed(found, deal), view=ui.deal_view(found.id, deal, DealButton),
            allowed_mentions=discord.AllowedMentions.none(),
        )
        if response.message_id is not None:
            await self.deals.set_message(found.id, deal.number, response.message_id)

    @app_commands.command(name="status", description="Show the table of your So Long Sucker game, just to you")
    @app_commands.describe(game="Game number, if you play several here")
    async def status(self, interaction: discord.Interaction[Any], game: int | None = None) -> None:
        found = await self._my_game(interaction, game)
        await interaction.response.send_message(embed=ui.status_embed(found, self._bot_id), ephemeral=True)

    async def _my_game(self, interaction: discord.Interaction[Any], game_id: int | None) -> Game:
        if game_id is not None:
            await self.own_game(interaction, game_id)
        return await self.service.find_game(KIND, interaction.user.id, interaction.channel_id or 0, game_id)

    async def _free_action(self, interaction: discord.Interaction[Any], game: Game, text: str) -> None:
        """A transfer or kill: legal at any moment, announced to the table, then the status is redrawn."""
        seat = game.seat_of(interaction.user.id)
        assert seat is not None
        state = ui.state_of(game)
        action = state.parse_action(text)
        said = state.describe(action, seat)
        after = await self.service.act(game.id, interaction.user.id, text)
        await interaction.response.send_message(f"<@{interaction.user.id}>: {said}.",
                                                allowed_mentions=discord.AllowedMentions.none())
        await self.redraw(after)
        self.bot.bot_turns.schedule(after)

    # ----- components -------------------------------------------------------------------------------------
    async def decide(self, interaction: discord.Interaction[Any], game_id: int, action: str, ply: int) -> None:
        game = await self.service.act(game_id, interaction.user.id, action, expected_ply=ply)
        message = interaction.message
        if message is not None and message.id == game.record.message_id:
            await self._show_status(interaction, game)
        else:  # the private pile choice: confirm there, redraw the status in the channel
            seat = game.seat_of(interaction.user.id)
            said = ui.state_of(game).describe(ui.state_of(game).parse_action(action), seat)
            await interaction.response.edit_message(content=f"Done: {said}.", view=None)
            await self.redraw(game)
        self.bot.bot_turns.schedule(game)

    async def on_select(self, interaction: discord.Interaction[Any], select: SuckerSelect, values: list[str]) -> None:
        if not values:
            raise ServiceError("Choose one of the options.")
        if select.what.startswith("pile"):
            await self.decide(interaction, select.game_id, values[0], select.ply)
            return
        game = await self.service.require_turn(select.game_id, interaction.user.id, select.ply)
        if values[0] not in ui.state_of(game).colours:
            raise ServiceError("There is no chip of that colour in this game; choose one from the menu.")
        await interaction.response.send_message(
            f"Play {ui.chip(values[0])} {values[0]} where?",
            view=ui.pile_view(game, values[0], SuckerButton, SuckerSelect), ephemeral=True,
        )

    async def mark_deal(self, interaction: discord.Interaction[Any], game_id: int, number: int) -> None:
        game = await self.service.load(game_id)
        if game.seat_of(interaction.user.id) is None:
            raise ServiceError("Only the players of this game can accept its deals.")
        deal = await self.deals.toggle_acceptance(game_id, number, interaction.user.id, self.service.clock())
        if deal is None:
            raise ServiceError(f"There is no deal #{number} in this game.")
        await interaction.response.edit_message(embed=ui.deal_embed(game, deal),
                                                view=ui.deal_view(game_id, deal, DealButton),
                                                allowed_mentions=discord.AllowedMentions.none())

    async def _show_status(self, interaction: discord.Interaction[Any], game: Game) -> None:
        """Answer a click on the status message by redrawing it, from the latest state: a transfer may have
        landed since this click's own action."""
        async with self.bot.drawing(game.id) as latest:
            await interaction.response.edit_message(
                content=self._content(latest), embed=ui.status_embed(latest, self._bot_id),
                view=ui.status_view(latest, SuckerButton, SuckerSelect),
                allowed_mentions=discord.AllowedMentions.none(),
            )

    def _content(self, game: Game) -> str:
        thread = f" · table talk in <#{game.record.thread_id}>" if game.record.thread_id else ""
        return f"So Long Sucker #{game.id}{thread}"

    async def redraw(self, game: Game) -> None:
        """Redraw the game's channel message from what is stored now (serialised per game by the bot)."""
        await self.bot.redraw(game.id)

    async def draw(self, game: Game) -> None:
        if game.record.message_id is None:
            return
        channel = self.bot.get_partial_messageable(game.record.channel_id, guild_id=game.record.guild_id)
        await channel.get_partial_message(game.record.message_id).edit(
            content=self._content(game), embed=ui.status_embed(game, self._bot_id),
            view=ui.status_view(game, SuckerButton, SuckerSelect), allowed_mentions=discord.AllowedMentions.none(),
        )

    def replay_embed(self, game: Game) -> discord.Embed:
        return ui.status_embed(game, self._bot_id)

    # ----- lobby ------------------------------------------------------------------------------------------
    def lobby_lines(self, lobby: LobbyRecord) -> list[str]:
        chips = lobby.options.get("chips", DEFAULT_CHIPS)
        return [f"So Long Sucker for up to {lobby.max_players} players, {chips} chips each.",
                "Negotiate openly; deals are not binding. The last player not defeated wins."]

    def bot_level(self, lobby: LobbyRecord) -> str:
        return str(lobby.options.get("bot_level", "basic"))

    async def show_started(self, interaction: discord.Interaction[Any], lobby: LobbyRecord, game: Game) -> None:
        """The lobby message becomes the status message; a thread opens for the table talk if allowed."""
        await self._show_status(interaction, game)
        message = interaction.message
        perms = interaction.app_permissions
        wanted = lobby.guild_id is None or (await self.bot.server_settings.get(lobby.guild_id)).threads
        if wanted and message is not None and perms.create_public_threads and perms.send_messages_in_threads:
            try:
                thread = await message.create_thread(name=f"So Long Sucker #{game.id}", auto_archive_duration=1440)
                await thread.send(
                    "Table talk for this game: negotiate, promise and betray here. Decisions are made on the "
                    "status message; `/sucker give`, `/sucker kill` and `/sucker deal` work here at any time.")
                game = await self.service.set_thread(game.id, thread.id)
                await self.redraw(game)
            except discord.HTTPException:
                log.info("could not open a thread for game %s; table talk stays in the channel", game.id)
        self.bot.bot_turns.schedule(game)

    async def announce_lobby_expired(self, lobby: LobbyRecord) -> None:
        await show_expired(self.bot, lobby, self)

    # ----- timers -----------------------------------------------------------------------------------------
    async def announce_timer(self, event: TimerEvent, game: Game) -> None:
        await self.redraw(game)
        channel_id = game.record.thread_id or game.record.channel_id
        channel = self.bot.get_partial_messageable(channel_id, guild_id=game.record.guild_id)
        if event is TimerEvent.REMINDER:
            seat = game.state.current_player()
            user = game.user_at(seat) if seat is not None else None
            if user is not None and game.record.deadline is not None:
                await channel.send(
                    f"<@{user}>, So Long Sucker #{game.id} waits for your decision; you are out "
                    f"<t:{int(game.record.deadline)}:R> if you do not make it.",
                    allowed_mentions=discord.AllowedMentions(users=[discord.Object(user)]),
                )
        elif event is TimerEvent.FORFEIT:
            await channel.send(f"So Long Sucker #{game.id}: a player ran out of time and is defeated.",
                               allowed_mentions=discord.AllowedMentions.none())
        elif event is TimerEvent.DEFAULTED:
            await channel.send(f"So Long Sucker #{game.id}: time ran out for a rescue, so it was declined.",
                               allowed_mentions=discord.AllowedMentions.none())
