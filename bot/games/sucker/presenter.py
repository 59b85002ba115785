"""/sucker: So Long Sucker tables. Players negotiate in the game's thread (or the channel) in plain words;
the bot keeps the table, asks for each decision on the status message, and takes transfers, kills and
deal proposals by slash command at any moment."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.components import ask_to_confirm_resignation
from bot.drawn import Board
from bot.endings import ending_controls
from bot.games.sucker import board, people
from bot.games.sucker.components import (
    KIND,
    ConfirmResignButton,
    DealButton,
    ResignButton,
    SuckerButton,
    SuckerSelect,
)
from bot.i18n import Say
from bot.lobby import post_lobby
from bot.nonces import post_nonce
from bot.presenter import GamePresenter
from bot.service import GameInfo, ReplayFrame, Result, ServiceError, TimerEvent
from bot.service.deals import DealService
from games.base import EndReason
from games.sucker.actions import Give, KillPrisoner, colour_index
from games.sucker.narration import Deed
from games.sucker.rules import DECISION_LIMIT, DEFAULT_CHIPS, DEFAULT_PLAYERS
from games.sucker.texts import chip_colour, chip_colour_object, colour_name
from games.sucker.views import SuckerView
from games.text import Joined, Plural, Text
from storage.deals import DealStore
from storage.lobbies import LobbyRecord

log = logging.getLogger(__name__)
# Colours are typed freely with autocomplete (Discord forbids fixed choices on an autocompleted option);
# the engine refuses a colour that is not in the game with a clear reason.
Colour = app_commands.Range[str, 1, 12]
SuckerResult = Result[SuckerView, SuckerView]


def greeting(number: int) -> Text:
    """The first words of a table's public thread."""
    return Text("The table of So Long Sucker #{number}: negotiate, promise and betray here, and make your decisions "
                "on the table's message below. `/sucker give`, `/sucker kill`, `/sucker deal` and `/sucker resign` "
                "work here at any time. Everyone can read along and talk.", number=number)


def private_greeting(number: int) -> Text:
    """The first words of a table's private thread."""
    return Text("The table of So Long Sucker #{number}, private to its players: negotiate, promise and betray here, "
                "and make your decisions on the table's message below. `/sucker give`, `/sucker kill`, `/sucker "
                "deal` and `/sucker resign` work here at any time. The channel's summary keeps everyone else "
                "informed.", number=number)


def private_table(options: Mapping[str, Any]) -> bool:
    """Whether a table's thread is private to its players, as chosen when it opened (`/sucker new private:`, by
    default the server's /settings)."""
    return bool(options.get("private", False))


class SuckerPresenter(GamePresenter, commands.GroupCog, group_name="sucker", group_description="Play So Long Sucker"):
    kind = KIND
    components = (SuckerButton, SuckerSelect, DealButton, ResignButton, ConfirmResignButton)
    round_thread = False  # a tournament's table opens a thread of its own (`post_in_channel`)

    @property
    def deals(self) -> DealStore:
        deals: DealStore = self.bot.deals
        return deals

    # ----- commands ---------------------------------------------------------------------------------------
    @app_commands.command(name="new", description="Open a So Long Sucker table (3-6 players); others join it")
    @app_commands.describe(players="Seats at the table (default 4)", chips="Chips each player starts with (default 7)",
                           turn_minutes="Minutes per decision before a forfeit (default: the bot's TURN_TIMEOUT)",
                           private="The table's thread private to its players (default: as the server's settings say)",
                           min_finished="Only players who finished at least this % of their games may join (default: "
                                        "anyone)")
    @app_commands.guild_only()
    async def new(
        self,
        interaction: discord.Interaction[Any],
        players: app_commands.Range[int, 3, 6] = DEFAULT_PLAYERS,
        chips: app_commands.Range[int, 3, 10] = DEFAULT_CHIPS,
        turn_minutes: app_commands.Range[int, 1, 20160] | None = None,
        private: bool | None = None,
        min_finished: app_commands.Range[int, 1, 100] | None = None,
    ) -> None:
        settings = await self.bot.server_settings.get(interaction.guild_id) if interaction.guild_id else None
        if private is None:
            private = settings is not None and settings.private_tables
        if private and settings is not None and settings.threads and not (
                interaction.app_permissions.create_private_threads
                and interaction.app_permissions.send_messages_in_threads):
            raise ServiceError(Text("I cannot open a private thread for the table here: I need the Create Private "
                                    "Threads and Send Messages in Threads permissions in this channel. Ask an admin "
                                    "for them, or open the table with `private: False` for a public thread."))
        lobby = await self.lobbies.open(
            KIND, guild_id=interaction.guild_id, channel_id=interaction.channel_id or 0, host_id=interaction.user.id,
            max_players=players, options={"chips": chips, "bot_level": "basic", "private": private},
            turn_timeout=await self.new_game_timeout(interaction, turn_minutes), min_finished=min_finished,
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
        action = Give(colour_index(people.typed_colour(chip), found.public.players), receiver, count)
        await self._free_action(interaction, found, action.text())

    def _receiver(self, found: SuckerResult, to: discord.User | None, to_colour: str | None) -> int:
        """The seat `/sucker give` names: a person (`to`; picking me means my computer seat, when I have one
        here) or any seat by its colour (`to_colour`), since a computer seat has no Discord user to pick."""
        game, view = found.game, found.public
        by_colour = colour_index(people.typed_colour(to_colour), view.players) if to_colour is not None else None
        by_user: int | None = None
        if to is not None and to.id == self.bot_user_id:
            bots = people.computer_seats(game, view)
            if not bots:
                raise ServiceError(Text("I have no seat still in So Long Sucker #{number}.", number=found.id))
            if len(bots) != 1:
                listed = Joined([Text("`{colour}` for {who}", colour=colour_name(view.colours[seat]), who=who)
                                 for seat, who in bots], ", ")
                raise ServiceError(Plural("I play {count} seat at this table: say which with `to_colour` ({listed}).",
                                          "I play {count} seats at this table: say which with `to_colour` "
                                          "({listed}).", len(bots), listed=listed))
            by_user = bots[0][0]
        elif to is not None:
            by_user = game.seat_of(to.id)
            if by_user is None:
                raise ServiceError(Text("{person} is not playing in So Long Sucker #{number}.", person=to.mention,
                                        number=found.id))
        if by_user is None and by_colour is None:
            raise ServiceError(Text("Say who gets them: `to` for a person at the table, or `to_colour` for any seat "
                                    "(computer players too)."))
        if by_user is not None and by_colour is not None and by_user != by_colour:
            raise ServiceError(Text("`to` is {person} but `to_colour` is {seat}: give only one of them.",
                                    person=people.name(game, view, by_user), seat=people.name(game, view, by_colour)))
        receiver = by_user if by_user is not None else by_colour
        assert receiver is not None
        return receiver

    @app_commands.command(name="kill", description="Kill prisoners you hold (they leave the game), at any time")
    @app_commands.describe(chip="The colour of the prisoners to kill", count="How many (default 1)",
                           game="Game number, if you play several here")
    async def kill(self, interaction: discord.Interaction[Any], chip: Colour,
                   count: app_commands.Range[int, 1, 60] = 1, game: int | None = None) -> None:
        found = await self._my_game(interaction, game)
        action = KillPrisoner(colour_index(people.typed_colour(chip), found.public.players), count)
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
        say, typed = Say.to(interaction), people.folded(current)
        choices = []
        for colour, n in board.prisoners(own, own.viewer):
            label = say(Text("{colour} ({count} held)", colour=chip_colour(colour), count=n))
            if colour.startswith(typed) or people.folded(label).startswith(typed):
                choices.append(app_commands.Choice(name=label, value=colour))
        return choices[:25]

    @give.autocomplete("to_colour")
    async def _complete_receivers(self, interaction: discord.Interaction[Any],
                                  current: str) -> list[app_commands.Choice[str]]:
        """The other seats still in the user's game: each colour with who sits there."""
        try:
            found = await self._my_game(interaction, None)
        except ServiceError:
            return []
        game, view, typed = found.game, found.public, people.folded(current)
        say = Say.to(interaction)
        choices = []
        for seat in view.seats:
            if seat.defeated or game.user_at(seat.seat) == interaction.user.id:
                continue
            label = say(Text("{colour}: {who}", colour=colour_name(seat.colour),
                             who=self._display_name(game, seat.seat)))[:100]
            if typed in people.folded(label) or seat.colour.startswith(typed):
                choices.append(app_commands.Choice(name=label, value=seat.colour))
        return choices[:25]

    def _display_name(self, game: GameInfo, seat: int) -> Text | str:
        """A seat's name as plain text (choices show no mentions): `Bot 1`, or the person's name when I know it."""
        user_id = game.user_at(seat)
        if user_id is None:
            return people.who(game, seat)
        user = self.bot.get_user(user_id)
        return str(user.display_name) if user is not None else Text("a player")

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
        # A defeated player proposes nothing: the service refuses, with the reason.
        deal = await DealService(self.service, self.deals).propose(found.id, interaction.user.id, text.strip())
        say = await self.public_say(found)  # the table's message, in the server's language
        response = await interaction.response.send_message(
            embed=board.deal_embed(found.id, deal, say), view=board.deal_controls(found.id, deal, say),
            allowed_mentions=discord.AllowedMentions.none(),
        )
        if response.message_id is not None:
            await self.deals.set_message(found.id, deal.number, response.message_id)

    @app_commands.command(name="status", description="Show the table of your So Long Sucker game, just to you")
    @app_commands.describe(game="Game number, if you play several here")
    async def status(self, interaction: discord.Interaction[Any], game: int | None = None) -> None:
        found = await self._my_game(interaction, game)
        say = Say.to(interaction)  # shown only to them: in their language
        await interaction.response.send_message(embed=board.status_embed(found.game, found.public, say), ephemeral=True)

    @app_commands.command(name="rules", description="How So Long Sucker is played: captures, prisoners, rescues")
    async def rules(self, interaction: discord.Interaction[Any]) -> None:
        # The text lives in the game's description (games/sucker/description.py), the one place that knows it.
        say = Say.to(interaction)
        await interaction.response.send_message(
            embed=discord.Embed(title=say(Text("So Long Sucker rules")),
                                description=say(self.game_description.rules)[:4096], colour=board.COLOUR),
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
        say = await self.public_say(after)  # the table is told: in the server's language
        said = say(Text("{what}.", what=self._said(after)))

        async def answer(latest: Result[Any, Any]) -> None:
            await interaction.response.send_message(said, allowed_mentions=discord.AllowedMentions.none())
            return None

        await self.bot.delivery.deliver(after, answer)

    # ----- components (see components.py) ------------------------------------------------------------------
    async def decide(self, interaction: discord.Interaction[Any], game_id: int, action: str, ply: int) -> None:
        """A decision clicked or chosen on the status message (answered by redrawing it: the one request), or a
        pile chosen in the private step of a two-step chip play."""
        result: SuckerResult = await self.service.act(game_id, interaction.user.id, action, expected_ply=ply)
        if self.clicked_on_a_board(interaction, result):
            await self.show_board(interaction, result)
            return
        # The private pile choice: confirm it there (in the player's language), and redraw the status in the channel.
        say = Say.to(interaction)
        await self.answer_privately(interaction, result, say(Text("Done: {what}.", what=self._said(result))))

    async def choose_chip(self, interaction: discord.Interaction[Any], game_id: int, colour: str, ply: int) -> None:
        """The first step of a two-step chip play (plays that do not fit the status message's menus, or a menu
        drawn before plays took one step): its colour was chosen; ask privately on which pile."""
        result: SuckerResult = await self.service.require_turn(game_id, interaction.user.id, ply)
        if colour not in result.public.colours:
            raise ServiceError(Text("There is no chip of that colour in this game; choose one from the menu."))
        say = Say.to(interaction)
        await interaction.response.send_message(
            say(Text("Play {chip} {colour} where?", chip=board.chip(colour), colour=chip_colour_object(colour))),
            view=board.pile_controls(result, colour, say), ephemeral=True)

    async def ask_to_resign(self, interaction: discord.Interaction[Any], game_id: int) -> None:
        """Resign's first step: a private confirmation (a misclick must not end anyone's game)."""
        result: SuckerResult = await self.service.require_player(game_id, interaction.user.id)
        seat = result.game.seat_of(interaction.user.id)
        if seat is not None and result.public.seats[seat].defeated:
            raise ServiceError(Text("You are already out of So Long Sucker #{number}.", number=game_id))
        await ask_to_confirm_resignation(interaction, game_id, Text(
            "Resign from So Long Sucker #{number}? You are out of the game, and the chips you hold leave it with you.",
            number=game_id), ConfirmResignButton)

    async def resign_now(self, interaction: discord.Interaction[Any], game_id: int) -> None:
        """Resign, confirmed: the table is told (unless that ended the game, which its ending message tells)."""
        result: SuckerResult = await self.service.resign(game_id, interaction.user.id)
        said = Say.to(interaction)(Text("You resigned from So Long Sucker #{number}.", number=game_id))

        async def answer(latest: Result[Any, Any]) -> None:
            await interaction.response.edit_message(content=said, view=None)
            return None

        async def tell() -> None:
            say = await self.public_say(result)
            await self.channel(result, talk=True).send(
                say(Text("So Long Sucker #{number}: {what}.", number=game_id, what=self._said(result))),
                allowed_mentions=discord.AllowedMentions.none())

        await self.bot.delivery.deliver(result, answer, tell=tell if result.ended() is None else None)

    async def mark_deal(self, interaction: discord.Interaction[Any], game_id: int, number: int) -> None:
        # Who may still accept a deal (a player still in a game still being played) is the service's to say; its
        # refusal reaches the player as an ephemeral reason.
        deal = await DealService(self.service, self.deals).toggle(game_id, number, interaction.user.id)
        say = Say(await self.bot.languages.public(interaction.guild_id))  # the deal is the table's: the server's
        await interaction.response.edit_message(embed=board.deal_embed(game_id, deal, say),
                                                view=board.deal_controls(game_id, deal, say),
                                                allowed_mentions=discord.AllowedMentions.none())

    # ----- the presenter contract ------------------------------------------------------------------------
    async def channel_board(self, result: Result[Any, Any]) -> Board:
        say = await self.public_say(result)  # the status message is the table's: in the server's language
        return Board(content=board.content(result.game, say), embed=board.status_embed(result.game, result.public, say),
                     controls=board.status_controls(result, say))

    def replay_embed(self, frame: ReplayFrame[Any], say: Say) -> discord.Embed:
        return board.status_embed(frame.game, frame.view, say)

    def replay_step(self, frame: ReplayFrame[Any]) -> Text | None:
        """A replay tells each step as the table was told it ("@bob (blue) declines to rescue @alice (red)"), never
        by its action text (`decline`)."""
        return people.last_said(frame.game, frame.view)

    def seat_name(self, result: Result[Any, Any], seat: int) -> Text | str:
        """A seat as the table talks about it: `<@1234> (blue)`, or `Bot 1 (green)` for a computer seat (a text:
        the colour is a word of the reader's language)."""
        return people.name(result.game, result.public, seat)

    def rules_lines(self, options: Mapping[str, Any], players: int) -> list[Text | str]:
        chips = int(options.get("chips", DEFAULT_CHIPS))
        lines: list[Text | str] = [
            Text("So Long Sucker for up to {players} players, {chips}.", players=players,
                 chips=Plural("{count} chip each", "{count} chips each", chips)),
            Text("Negotiate openly; deals are not binding. The last player not defeated wins.")]
        if private_table(options):
            lines.append(Text("The table talks in a thread private to its players."))
        return lines

    def ending_line(self, result: Result[Any, Any]) -> Text | str:
        view: SuckerView = result.public
        if view.outcome is None:
            return Text("the game is over.")
        winners = Joined([people.name(result.game, view, s) for s in view.outcome.winners], ", ")
        if view.outcome.reason is EndReason.DRAW_AGREED:
            return Text("{winners} share the win (agreed).", winners=winners)
        if view.outcome.reason is EndReason.NO_PERSON_LEFT:
            return Text("No person is left in the game, so it ends here: {winners} share the win.", winners=winners)
        if view.outcome.reason is EndReason.MOVE_LIMIT:
            return Plural("A game lasts {count} decision at most: {winners} share the win.",
                          "A game lasts {count} decisions at most: {winners} share the win.", DECISION_LIMIT,
                          winners=winners)
        if view.outcome.reason is EndReason.RESIGN:  # how the last opponent went out, when that ended the game
            return Text("{winners} wins: the last opponent resigned.", winners=winners)
        if view.outcome.reason is EndReason.TIMEOUT:
            return Text("{winners} wins: the last opponent ran out of time.", winners=winners)
        return Text("{winners} wins as the last player not defeated.", winners=winners)

    @staticmethod
    def _said(result: Result[Any, Any]) -> Text | str:
        """The latest action in words, for the messages that tell it (a game that had an action always has one)."""
        return people.last_said(result.game, result.public) or ""

    async def show_started(self, interaction: discord.Interaction[Any], lobby: LobbyRecord,
                           result: Result[Any, Any]) -> None:
        """The table moves to a thread, public or private to its players as the table (or the server) chose: the
        status message with the decision controls is posted there, beside the talk, and the lobby message becomes
        the game's summary in the channel, with a link. Without a thread (switched off, or not allowed to me) the
        lobby message becomes the status message and the table talks in the channel."""
        message, perms = interaction.message, interaction.app_permissions
        settings = await self.bot.server_settings.get(lobby.guild_id) if lobby.guild_id is not None else None
        private = private_table(lobby.options)
        allowed = perms.create_private_threads if private else perms.create_public_threads
        channel = interaction.channel
        if not (settings is not None and settings.threads and message is not None and allowed
                and perms.send_messages_in_threads and isinstance(channel, discord.TextChannel)):
            await super().show_started(interaction, lobby, result)
            return
        say = await self.public_say(result)  # the table's messages: in the server's language
        # The answer: the lobby message becomes the summary at once (the thread takes several requests to open).
        await interaction.response.edit_message(content=None, embed=board.summary_embed(result, say, private, lobby.id),
                                                view=None, allowed_mentions=discord.AllowedMentions.none())
        try:
            result = await self._open_thread(message, channel, private, result, say)
            await message.edit(embed=board.summary_embed(result, say, private, lobby.id),
                               allowed_mentions=discord.AllowedMentions.none())
        except discord.HTTPException:
            log.info("could not open a thread for game %s; the table stays in the channel", result.id, exc_info=True)
        # Every board of the game as stored now (the status in its thread, or the lobby message, still the game's),
        # then the computer players: the same delivery as after any action.
        await self.bot.delivery.deliver(result)

    async def _open_thread(self, message: discord.Message, channel: discord.TextChannel, private: bool,
                           result: SuckerResult, say: Say) -> SuckerResult:
        """Open the table's thread, seat its players, greet them and post the status message there, stored as the
        game's (its controls come with the drawing that follows: a click on it is then always known for one)."""
        name = say(board.title(result.id))
        if private:
            thread = await channel.create_thread(name=name, type=discord.ChannelType.private_thread,
                                                 invitable=False, auto_archive_duration=1440)
        else:
            thread = await message.create_thread(name=name, auto_archive_duration=1440)
        await self._seat_players(thread, result)
        await thread.send(say(private_greeting(result.id) if private else greeting(result.id)),
                          allowed_mentions=discord.AllowedMentions.none())
        # Drawn as it will be stored: in its thread (the message's id is known once it is sent, and stored with the
        # thread's, at once, so the game is never looked for where it is not).
        drawn = await self.channel_board(replace(result, game=replace(result.game, thread_id=thread.id, message_id=0)))
        sent = await thread.send(content=drawn.content, embed=drawn.embed,
                                 allowed_mentions=discord.AllowedMentions.none())
        opened: SuckerResult = await self.service.set_thread(result.id, thread.id, message_id=sent.id)
        return opened

    async def post_in_channel(self, result: Result[Any, Any]) -> Result[Any, Any]:
        """A tournament round's table (bot/cogs/tournament.py), whose round message in the channel lists the tables:
        as a lobby's table, it plays in a public thread of its own, opened in that channel (and stored at once), where
        its players are added and greeted and its status message is posted. Posting it again (a process stopped half
        way) uses the stored thread, and Discord returns the messages already posted there (their nonces). Without a
        thread (switched off in /settings, or not allowed to me) its status message is posted in the channel."""
        game = result.game
        say = await self.public_say(result)
        thread_id = game.thread_id  # opened already by a process that stopped before it posted the status there
        if thread_id is None:
            settings = await self.bot.server_settings.get(game.guild_id) if game.guild_id is not None else None
            if settings is None or not settings.threads:
                return await super().post_in_channel(result)
            try:
                data = await self.bot.http.start_thread_without_message(
                    game.channel_id, name=say(board.title(game.id)), auto_archive_duration=1440,
                    type=discord.ChannelType.public_thread.value)
            except discord.HTTPException as exc:
                log.info("could not open a thread for tournament game %s; the table stays in the channel: %s",
                         game.id, exc)
                return await super().post_in_channel(result)
            # Stored at once: whoever posts the table again (a restart, another process) posts into this thread.
            thread_id = int(data["id"])
            game = (await self.service.set_thread(result.id, thread_id)).game
        thread = self.bot.get_partial_messageable(thread_id, guild_id=game.guild_id)
        for seat in game.seats:  # a thread opened by me has only me in it: the table talk must reach its players
            if seat.user_id is not None:
                try:
                    await self.bot.http.add_user_to_thread(thread_id, seat.user_id)  # adding one twice changes nothing
                except discord.HTTPException as exc:
                    log.info("could not add user %s to the thread of game %s: %s", seat.user_id, game.id, exc)
        # Posted again by whoever posts the table again: Discord then returns these messages (their nonces).
        await thread.send(say(greeting(game.id)), allowed_mentions=discord.AllowedMentions.none(),
                          nonce=post_nonce("table greeting", game.id, thread_id, game.created_at))
        drawn = await self.channel_board(replace(result, game=replace(game, message_id=0)))
        sent = await thread.send(content=drawn.content, embed=drawn.embed,
                                 allowed_mentions=discord.AllowedMentions.none(),
                                 nonce=post_nonce("table status", game.id, thread_id, game.created_at))
        opened: Result[Any, Any] = await self.service.set_thread(result.id, thread_id, message_id=sent.id)
        # Its controls come with the drawing, then the computer players: the same delivery as after any action.
        await self.bot.delivery.deliver(opened)
        return opened

    def channel(self, result: Result[Any, Any], *, talk: bool = False) -> discord.PartialMessageable:
        """The game's status message and its talk are in its thread once the status was posted there."""
        game = result.game
        where = (game.thread_id or game.channel_id) if talk else board.status_channel(game)
        partial: discord.PartialMessageable = self.bot.get_partial_messageable(where, guild_id=game.guild_id)
        return partial

    def jump_url(self, result: Result[Any, Any]) -> str | None:
        game = result.game
        if game.message_id is None:
            return None
        return f"https://discord.com/channels/{game.guild_id or '@me'}/{board.status_channel(game)}/{game.message_id}"

    async def cog_load(self) -> None:
        self.service.listeners.append(self._table_events)

    async def cog_unload(self) -> None:
        if self._table_events in self.service.listeners:
            self.service.listeners.remove(self._table_events)

    async def _table_events(self, result: Result[Any, Any]) -> None:
        """What the table is told besides whose decision it is (bot/notifications.py): a defeat, in its thread, with
        the defeated person pinged; and the person stuck without chips, pinged as their rescue is decided, so they
        can plead. Every change of every game passes here; only So Long Sucker's play does something."""
        if result.game.kind != KIND or result.game.message_id is None:
            return
        try:
            await self._tell_table(result)
        except Exception:  # telling is never worth losing the game over; say so in the log
            log.exception("could not tell the table of game %s what happened", result.id)

    async def _tell_table(self, result: SuckerResult) -> None:
        game, view = result.game, result.public
        said = view.narration
        if said is None:
            return
        out = [seat for seat in said.defeated if game.user_at(seat) is not None]
        if said.defeated and result.ended() is None:
            people_out = [u for seat in out if (u := game.user_at(seat)) is not None]
            say = await self.public_say(result)
            await self.channel(result, talk=True).send(
                say(Text("💀 So Long Sucker #{number}: {what}.", number=game.id, what=self._said(result))),
                allowed_mentions=await self.pings(people_out))
        stuck = view.stuck
        if (stuck is not None and not view.declined and view.to_decide is not None
                and said.deed not in (Deed.GIVE, Deed.KILL_PRISONER)):
            user = game.user_at(stuck)
            if user is None:
                return
            say = await self.public_say(result)
            await self.channel(result, talk=True).send(
                say(Text("{stuck}, you have the move in So Long Sucker #{number} but no chips. {rescuer} is asked "
                         "first whether to rescue you: plead your case here.", stuck=people.name(game, view, stuck),
                         number=game.id, rescuer=people.name(game, view, view.to_decide))),
                allowed_mentions=await self.pings([user]))

    async def _summary(self, result: Result[Any, Any]) -> discord.PartialMessage | None:
        """The game's summary message in the channel, when its table moved to a thread."""
        game = result.game
        if board.status_channel(game) == game.channel_id or game.thread_id is None:
            return None
        message_id = await self.lobbies.message_of_game(game.id)
        if message_id is None:
            return None
        channel: discord.PartialMessageable = self.bot.get_partial_messageable(game.channel_id, guild_id=game.guild_id)
        return channel.get_partial_message(message_id)

    async def _update_summary(self, result: Result[Any, Any], *, over: bool = False) -> None:
        summary = await self._summary(result)
        if summary is None:
            return
        say = await self.public_say(result)
        private = private_table(result.game.options)
        await summary.edit(embed=board.summary_embed(result, say, private),
                           view=ending_controls(result.id, say, result.game.options) if over else discord.utils.MISSING,
                           allowed_mentions=discord.AllowedMentions.none())

    async def ending_sent(self, result: Result[Any, Any]) -> None:
        """The game's ending went to its thread: the channel's summary shows the result (and Rematch, which is
        asked for in the channel), and the thread is locked and archived."""
        game = result.game
        if game.thread_id is None or board.status_channel(game) == game.channel_id:
            await super().ending_sent(result)  # a table played in another table's thread may close that one
            return
        try:
            await self._update_summary(result, over=True)
        except discord.HTTPException as exc:  # deleted by a moderator: the thread still closes
            log.info("could not show the end of game %s in its summary: %s", game.id, exc)
        if await self.service.place_still_used(game.thread_id, but=game.id):
            # Someone started another game (or a lobby) in this table's thread: closing it would leave that game
            # unable to post a word (Discord refuses messages in an archived thread). The last of them to end closes
            # it (`GamePresenter.ending_sent`).
            log.info("the thread of game %s stays open: another game or a lobby lives in it", game.id)
            return
        await self.close_thread(game.thread_id, game.id)

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

    def turn_text(self, result: Result[Any, Any], seat: int) -> Text:
        """Which decision is theirs: every kind of So Long Sucker decision is told as what it asks."""
        view: SuckerView = result.public
        person, number = f"<@{result.game.user_at(seat)}>", result.id
        if view.decision == "kill" and view.capture is not None:
            return Text("{person}, you captured pile {pile} in So Long Sucker #{number}: choose a chip to kill.",
                        person=person, pile=view.capture[0], number=number)
        if view.decision == "name":
            return Text("{person}, name who moves next in So Long Sucker #{number}.", person=person, number=number)
        if view.decision == "rescue" and view.stuck is not None:
            return Text("{person}, {stuck} has no chips in So Long Sucker #{number}: rescue them or decline.",
                        person=person, stuck=people.name(result.game, view, view.stuck), number=number)
        return Text("{person}, it is your move in So Long Sucker #{number}.", person=person, number=number)

    def reminder_text(self, result: Result[Any, Any], user_id: int, deadline: float) -> Text:
        return Text("<@{user}>, So Long Sucker #{number} waits for your decision; you are out <t:{deadline}:R> if you "
                    "do not make it.", user=user_id, number=result.id, deadline=int(deadline))

    def timeout_text(self, result: Result[Any, Any], event: TimerEvent) -> Text:
        said = self._said(result)
        if event is TimerEvent.DEFAULTED:
            return Text("So Long Sucker #{number}: time ran out for a rescue, so {what}.", number=result.id,
                        what=said)
        return Text("So Long Sucker #{number}: {what}.", number=result.id, what=said)
