"""/sucker: So Long Sucker tables. Players negotiate in the game's thread (or the channel) in plain words;
the bot keeps the table, asks for each decision on the status message, and takes transfers, kills and
deal proposals by slash command at any moment."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.games.sucker import board, people
from bot.games.sucker.components import KIND, DealButton, ResignButton, SuckerButton, SuckerSelect
from bot.lobby import post_lobby
from bot.presenter import Board, GamePresenter
from bot.service import GameInfo, ReplayFrame, Result, ServiceError, TimerEvent
from games.base import EndReason
from games.sucker.actions import COLOURS, Give, KillPrisoner, colour_index
from games.sucker.rules import DEFAULT_CHIPS, DEFAULT_PLAYERS
from games.sucker.views import SuckerView
from storage.deals import DealStore
from storage.lobbies import LobbyRecord

log = logging.getLogger(__name__)
# Colours are typed freely with autocomplete (Discord forbids fixed choices on an autocompleted option);
# the engine refuses a colour that is not in the game with a clear reason.
Colour = app_commands.Range[str, 1, 12]
SuckerResult = Result[SuckerView, SuckerView]
THREAD_GREETING = ("Table talk for this game: negotiate, promise and betray here. Decisions are made on the "
                   "status message; `/sucker give`, `/sucker kill`, `/sucker deal` and `/sucker resign` work here "
                   "at any time.")
# How the last opponent went out, when that ended the game (the winner is named before it).
_HOW_IT_ENDED = {
    EndReason.RESIGN: "wins: the last opponent resigned.",
    EndReason.TIMEOUT: "wins: the last opponent ran out of time.",
}


class SuckerPresenter(GamePresenter, commands.GroupCog, group_name="sucker", group_description="Play So Long Sucker"):
    kind = KIND
    components = (SuckerButton, SuckerSelect, DealButton, ResignButton)

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
    @app_commands.describe(chip="The colour of the prisoners to give", to="Who gets them: a person at the table",
                           to_colour="Or the colour of who gets them: any seat, computer players too",
                           count="How many (default 1)", game="Game number, if you play several here")
    async def give(self, interaction: discord.Interaction[Any], chip: Colour, to: discord.User | None = None,
                   to_colour: Colour | None = None, count: app_commands.Range[int, 1, 60] = 1,
                   game: int | None = None) -> None:
        found = await self._my_game(interaction, game)
        receiver = self._receiver(found, to, to_colour)
        action = Give(colour_index(chip.strip().lower(), found.public.players), receiver, count)
        await self._free_action(interaction, found, action.text())

    def _receiver(self, found: SuckerResult, to: discord.User | None, to_colour: str | None) -> int:
        """The seat `/sucker give` names: a person (`to`; picking me means my computer seat, when I have one
        here) or any seat by its colour (`to_colour`), since a computer seat has no Discord user to pick."""
        game, view = found.game, found.public
        by_colour = colour_index(to_colour.strip().lower(), view.players) if to_colour is not None else None
        by_user: int | None = None
        if to is not None and to.id == self.bot_user_id:
            bots = people.computer_seats(game, view)
            if len(bots) != 1:
                listed = ", ".join(f"`{COLOURS[seat]}` for {who}" for seat, who in bots)
                raise ServiceError(f"I play {len(bots)} seats at this table: say which with `to_colour` ({listed})."
                                   if bots else f"I have no seat still in So Long Sucker #{found.id}.")
            by_user = bots[0][0]
        elif to is not None:
            by_user = game.seat_of(to.id)
            if by_user is None:
                raise ServiceError(f"{to.mention} is not playing in So Long Sucker #{found.id}.")
        if by_user is None and by_colour is None:
            raise ServiceError("Say who gets them: `to` for a person at the table, or `to_colour` for any seat "
                               "(computer players too).")
        if by_user is not None and by_colour is not None and by_user != by_colour:
            raise ServiceError(f"`to` is {people.name(game, view, by_user)} but `to_colour` is "
                               f"{people.name(game, view, by_colour)}: give only one of them.")
        receiver = by_user if by_user is not None else by_colour
        assert receiver is not None
        return receiver

    @app_commands.command(name="kill", description="Kill prisoners you hold (they leave the game), at any time")
    @app_commands.describe(chip="The colour of the prisoners to kill", count="How many (default 1)",
                           game="Game number, if you play several here")
    async def kill(self, interaction: discord.Interaction[Any], chip: Colour,
                   count: app_commands.Range[int, 1, 60] = 1, game: int | None = None) -> None:
        found = await self._my_game(interaction, game)
        action = KillPrisoner(colour_index(chip.strip().lower(), found.public.players), count)
        await self._free_action(interaction, found, action.text())

    @give.autocomplete("chip")
    @kill.autocomplete("chip")
    async def _complete_prisoners(self, interaction: discord.Interaction[Any],
                                  current: str) -> list[app_commands.Choice[str]]:
        """Only the colours of prisoners the user holds, from their own view (nothing if they play no game here)."""
        try:
            found = await self._my_game(interaction, None)
        except ServiceError:
            return []
        own = found.own(interaction.user.id)
        if own is None or own.viewer is None:
            return []
        return [app_commands.Choice(name=f"{colour} ({n} held)", value=colour)
                for colour, n in board.prisoners(own, own.viewer) if colour.startswith(current.lower())][:25]

    @give.autocomplete("to_colour")
    async def _complete_receivers(self, interaction: discord.Interaction[Any],
                                  current: str) -> list[app_commands.Choice[str]]:
        """The other seats still in the user's game: each colour with who sits there."""
        try:
            found = await self._my_game(interaction, None)
        except ServiceError:
            return []
        game, view, typed = found.game, found.public, current.strip().lower()
        choices = []
        for seat in view.seats:
            if seat.defeated or game.user_at(seat.seat) == interaction.user.id:
                continue
            label = f"{seat.colour}: {self._display_name(game, seat.seat)}"
            if typed in label.lower():
                choices.append(app_commands.Choice(name=label, value=seat.colour))
        return choices[:25]

    def _display_name(self, game: GameInfo, seat: int) -> str:
        """A seat's name as plain text (choices show no mentions): `Bot 1`, or the person's name when I know it."""
        user_id = game.user_at(seat)
        if user_id is None:
            return people.who(game, seat)
        user = self.bot.get_user(user_id)
        return str(user.display_name) if user is not None else "a player"

    @app_commands.command(name="resign", description="Leave your So Long Sucker game: you are out, your chips too")
    @app_commands.describe(game="Game number, if you play several here")
    async def resign(self, interaction: discord.Interaction[Any], game: int | None = None) -> None:
        found = await self._my_game(interaction, game)
        await self.ask_to_resign(interaction, found.id)

    @app_commands.command(name="deal", description="Propose a deal to the table (numbered, not binding)")
    @app_commands.describe(text="What you propose, in your own words", game="Game number, if you play several here")
    async def deal(self, interaction: discord.Interaction[Any], text: app_commands.Range[str, 1, 1000],
                   game: int | None = None) -> None:
        found = await self._my_game(interaction, game)
        deal = await self.deals.propose(found.id, interaction.user.id, text.strip(), self.service.clock())
        response = await interaction.response.send_message(
            embed=board.deal_embed(found.id, deal), view=board.deal_view(found.id, deal),
            allowed_mentions=discord.AllowedMentions.none(),
        )
        if response.message_id is not None:
            await self.deals.set_message(found.id, deal.number, response.message_id)

    @app_commands.command(name="status", description="Show the table of your So Long Sucker game, just to you")
    @app_commands.describe(game="Game number, if you play several here")
    async def status(self, interaction: discord.Interaction[Any], game: int | None = None) -> None:
        found = await self._my_game(interaction, game)
        await interaction.response.send_message(embed=board.status_embed(found.game, found.public), ephemeral=True)

    @app_commands.command(name="rules", description="How So Long Sucker is played: captures, prisoners, rescues")
    async def rules(self, interaction: discord.Interaction[Any]) -> None:
        # The text lives in the game's description (games/sucker/description.py), the one place that knows it.
        await interaction.response.send_message(
            embed=discord.Embed(title="So Long Sucker rules", description=self.game_description.rules,
                                colour=board.COLOUR),
            ephemeral=True)

    async def _my_game(self, interaction: discord.Interaction[Any], game_id: int | None) -> SuckerResult:
        if game_id is not None:
            await self.own_game(interaction, game_id)
        found: SuckerResult = await self.service.find_game(KIND, interaction.user.id, interaction.channel_id or 0,
                                                           game_id)
        return found

    async def _free_action(self, interaction: discord.Interaction[Any], game: SuckerResult, text: str) -> None:
        """A transfer or kill: legal at any moment, announced to the table, then the status is redrawn."""
        after: SuckerResult = await self.service.act(game.id, interaction.user.id, text)
        await interaction.response.send_message(f"{people.last_said(after.game, after.public)}.",
                                                allowed_mentions=discord.AllowedMentions.none())
        await self.bot.redraw(after.id)
        self.schedule_bots(after)

    # ----- components (see components.py) ------------------------------------------------------------------
    async def decide(self, interaction: discord.Interaction[Any], game_id: int, action: str, ply: int) -> None:
        """A decision clicked or chosen on the status message (answered by redrawing it: the one request), or a
        pile chosen in the private step of a two-step chip play."""
        result: SuckerResult = await self.service.act(game_id, interaction.user.id, action, expected_ply=ply)
        message = interaction.message
        if message is not None and message.id == result.game.message_id:
            await self.show_board(interaction, result)
            return
        # The private pile choice: confirm it there, and redraw the status in the channel.
        await interaction.response.edit_message(content=f"Done: {people.last_said(result.game, result.public)}.",
                                                view=None)
        await self.bot.redraw(result.id)
        self.schedule_bots(result)

    async def choose_chip(self, interaction: discord.Interaction[Any], game_id: int, colour: str, ply: int) -> None:
        """The first step of a two-step chip play (plays that do not fit the status message's menus, or a menu
        drawn before plays took one step): its colour was chosen; ask privately on which pile."""
        result: SuckerResult = await self.service.require_turn(game_id, interaction.user.id, ply)
        if colour not in result.public.colours:
            raise ServiceError("There is no chip of that colour in this game; choose one from the menu.")
        await interaction.response.send_message(f"Play {board.chip(colour)} {colour} where?",
                                                view=board.pile_view(result, colour), ephemeral=True)

    async def ask_to_resign(self, interaction: discord.Interaction[Any], game_id: int) -> None:
        """Resign's first step: a private confirmation (a misclick must not end anyone's game)."""
        result: SuckerResult = await self.service.require_player(game_id, interaction.user.id)
        seat = result.game.seat_of(interaction.user.id)
        if seat is not None and result.public.seats[seat].defeated:
            raise ServiceError(f"You are already out of So Long Sucker #{game_id}.")
        confirm = discord.ui.View(timeout=None)
        confirm.add_item(ResignButton.of(game=game_id, verb="resign-yes", label="Yes, resign",
                                         style=discord.ButtonStyle.danger))
        await interaction.response.send_message(
            f"Resign from So Long Sucker #{game_id}? You are out of the game, and the chips you hold leave it "
            "with you.", view=confirm, ephemeral=True)

    async def resign_now(self, interaction: discord.Interaction[Any], game_id: int) -> None:
        """Resign, confirmed: the table is told (unless that ended the game, which its ending message tells)."""
        result: SuckerResult = await self.service.resign(game_id, interaction.user.id)
        await interaction.response.edit_message(content=f"You resigned from So Long Sucker #{game_id}.", view=None)
        await self.bot.redraw(game_id)
        if result.ended() is None:
            await self.channel(result, talk=True).send(
                f"So Long Sucker #{game_id}: {people.last_said(result.game, result.public)}.",
                allowed_mentions=discord.AllowedMentions.none())
        self.schedule_bots(result)

    async def mark_deal(self, interaction: discord.Interaction[Any], game_id: int, number: int) -> None:
        result = await self.service.view(game_id)
        if result.game.seat_of(interaction.user.id) is None:
            raise ServiceError("Only the players of this game can accept its deals.")
        deal = await self.deals.toggle_acceptance(game_id, number, interaction.user.id, self.service.clock())
        if deal is None:
            raise ServiceError(f"There is no deal #{number} in this game.")
        await interaction.response.edit_message(embed=board.deal_embed(game_id, deal),
                                                view=board.deal_view(game_id, deal),
                                                allowed_mentions=discord.AllowedMentions.none())

    # ----- the presenter contract ------------------------------------------------------------------------
    async def channel_board(self, result: Result[Any, Any]) -> Board:
        return Board(content=board.content(result.game), embed=board.status_embed(result.game, result.public),
                     view=board.status_view(result))

    def replay_embed(self, frame: ReplayFrame[Any]) -> discord.Embed:
        return board.status_embed(frame.game, frame.view)

    def seat_name(self, result: Result[Any, Any], seat: int) -> str:
        """A seat as the table talks about it: `<@1234> (blue)`, or `Bot 1 (green)` for a computer seat."""
        return people.name(result.game, result.public, seat)

    def rules_lines(self, options: Mapping[str, Any], players: int) -> list[str]:
        chips = options.get("chips", DEFAULT_CHIPS)
        return [f"So Long Sucker for up to {players} players, {chips} chips each.",
                "Negotiate openly; deals are not binding. The last player not defeated wins."]

    def ending_line(self, result: Result[Any, Any]) -> str:
        view: SuckerView = result.public
        if view.outcome is None:
            return "the game is over."
        winners = ", ".join(people.name(result.game, view, s) for s in view.outcome.winners)
        if view.outcome.reason is EndReason.DRAW_AGREED:
            return f"{winners} share the win (agreed)."
        return f"{winners} " + _HOW_IT_ENDED.get(view.outcome.reason, "wins as the last player not defeated.")

    async def show_started(self, interaction: discord.Interaction[Any], lobby: LobbyRecord,
                           result: Result[Any, Any]) -> None:
        """The lobby message becomes the status message; a thread opens for the table talk if allowed."""
        await super().show_started(interaction, lobby, result)
        message = interaction.message
        perms = interaction.app_permissions
        wanted = lobby.guild_id is None or (await self.bot.server_settings.get(lobby.guild_id)).threads
        if not (wanted and message is not None and perms.create_public_threads and perms.send_messages_in_threads):
            return
        try:
            thread = await message.create_thread(name=f"So Long Sucker #{result.id}", auto_archive_duration=1440)
            await self._seat_players(thread, result)
            await thread.send(THREAD_GREETING)
            await self.service.set_thread(result.id, thread.id)
            await self.bot.redraw(result.id)
        except discord.HTTPException:
            log.info("could not open a thread for game %s; table talk stays in the channel", result.id)

    async def _seat_players(self, thread: discord.Thread, result: Result[Any, Any]) -> None:
        """Add the table's people to its thread, so the table talk reaches them (a thread made from a message has
        only me in it); one who cannot be added still has the channel, which names the thread."""
        for seat in result.game.seats:
            if seat.user_id is None:
                continue
            try:
                await thread.add_user(discord.Object(seat.user_id))
            except discord.HTTPException as exc:
                log.info("could not add user %s to the thread of game %s: %s", seat.user_id, result.id, exc)

    def turn_text(self, result: Result[Any, Any], seat: int) -> str:
        """Which decision is theirs: every kind of So Long Sucker decision is told as what it asks."""
        view: SuckerView = result.public
        title = f"So Long Sucker #{result.id}"
        if view.decision == "kill" and view.capture is not None:
            return f"you captured pile {view.capture[0]} in {title}: choose a chip to kill"
        if view.decision == "name":
            return f"name who moves next in {title}"
        if view.decision == "rescue" and view.stuck is not None:
            return f"{people.name(result.game, view, view.stuck)} has no chips in {title}: rescue them or decline"
        return f"it is your move in {title}"

    def reminder_text(self, result: Result[Any, Any], user_id: int, deadline: float) -> str:
        return (f"<@{user_id}>, So Long Sucker #{result.id} waits for your decision; you are out "
                f"<t:{int(deadline)}:R> if you do not make it.")

    def timeout_text(self, result: Result[Any, Any], event: TimerEvent) -> str:
        said = people.last_said(result.game, result.public)
        if event is TimerEvent.DEFAULTED:
            return f"So Long Sucker #{result.id}: time ran out for a rescue, so {said}."
        return f"So Long Sucker #{result.id}: {said}."
