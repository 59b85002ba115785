"""/generals: Game of the Generals with the bot as the neutral arbiter.

The channel sees the public board (squares, rulings, no ranks). Each player gets their own board by DM, which
the bot edits after every move; if a DM cannot be delivered, the same board and controls come ephemerally from
the **My board** button (own_board.py draws them; bot/private_boards.py delivers them, as for any game). Setup
(setup.py: formations, saved formations, swaps, grid import and export) and play (play.py: piece menu + direction
buttons, or `/generals move` with autocomplete) work from either.

Everything drawn for a player comes from that player's own view (`Result.private`), and everything drawn for
the channel from the public view (`Result.public`), so nothing here can show a hidden rank.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping
from functools import partial
from typing import Any, Literal, Protocol, runtime_checkable

import discord
from discord import app_commands
from discord.ext import commands

from bot import workers
from bot.components import ask_to_confirm_resignation
from bot.drawn import Board
from bot.errors import reason
from bot.games.generals.board import (
    COLOUR,
    GeneralsResult,
    challenge_controls,
    challenge_embed,
    channel_content,
    channel_controls,
    channel_embed,
    channel_key,
    outcome_line,
    settings_lines,
)
from bot.games.generals.components import COMPONENTS, FORMS, KIND, ConfirmResignButton, answer_form
from bot.games.generals.legend import LEGEND_NAME, legend_lines, render_legend
from bot.games.generals.own_board import OwnInputs, own_board
from bot.games.generals.pictures import picture, text_board
from bot.games.generals.play import Play
from bot.games.generals.setup import SetupTools, saved_names
from bot.i18n import Say
from bot.presenter import GamePresenter, seat_names
from bot.private_boards import DM_HELP, OwnBoard, PrivateBoards, Where
from bot.service import OwnView, Player, ReplayFrame, Result, ServiceError, TimerEvent
from games.base import GameError
from games.generals.pieces import Rank
from games.generals.rules import SETTING_NAMES, Settings
from games.generals.views import SETUP, PlayerView, PublicView
from games.text import Text
from storage.formations import FormationStore
from storage.private_boards import PrivateBoardStore

BotLevel = Literal["random", "greedy", "strong"]
DEFAULT_LEVEL: BotLevel = "strong"
CLOSED_CHALLENGE = ("pending", "declined", "expired")  # the message shows the challenge, not a board


@runtime_checkable
class ReplayFrames(Protocol):
    """The replay cog (bot/cogs/replay.py), as /generals replay uses it."""

    async def send_frame(self, interaction: discord.Interaction[Any], game_id: int, move: int | None) -> None: ...


class GeneralsPresenter(GamePresenter, commands.GroupCog, group_name="generals",
                        group_description="Play Game of the Generals (Salpakan)"):
    kind = KIND
    components = COMPONENTS
    form_templates = tuple(form.custom_id_shape.pattern for form in FORMS)  # answered by on_interaction below
    components_in_dms = True  # private boards live in the players' DMs

    def __init__(self, bot: Any) -> None:
        super().__init__(bot)
        formations = FormationStore(bot.db)
        self.saved_names = partial(saved_names, formations)
        self.private_boards: PrivateBoards[OwnInputs] = PrivateBoards(
            PrivateBoardStore(bot.db), host=self, client=bot, service=bot.service, delivery=bot.delivery,
            drawn=bot.drawn, languages=bot.languages)
        self.setup_tools = SetupTools(formations, service=bot.service, delivery=bot.delivery,
                                      boards=self.private_boards)
        self.play = Play(service=bot.service, delivery=bot.delivery, boards=self.private_boards,
                         find_game=self.my_game)

    # ----- commands ---------------------------------------------------------------------------------------
    @app_commands.command(name="challenge", description="Challenge someone to Game of the Generals, or play me")
    @app_commands.describe(
        opponent="Who to play; leave empty to play against me",
        level="How well I play when you play me (default: strong)",
        settings="Rule settings separated by spaces, e.g. 'reveal-winner small-army' (see the rules)",
        turn_minutes="Minutes per move, and for the whole setup, before a forfeit (default: the bot's TURN_TIMEOUT)",
    )
    @app_commands.guild_only()
    async def challenge(
        self,
        interaction: discord.Interaction[Any],
        opponent: discord.User | None = None,
        level: BotLevel = DEFAULT_LEVEL,
        settings: app_commands.Range[str, 0, 200] = "",
        turn_minutes: app_commands.Range[int, 1, 20160] | None = None,
    ) -> None:
        me = interaction.user
        rival = self.rival(me.id, opponent, level)
        vs_bot = rival.computer is not None
        names = [n for n in re.split(r"[\s,]+", settings.strip().lower()) if n]
        options: dict[str, Any] = {"variants": names} if names else {}
        result: GeneralsResult = await self.service.create(
            KIND, guild_id=interaction.guild_id, channel_id=interaction.channel_id or 0,
            players=[Player(user_id=me.id), rival], options=options, challenge=not vs_bot,
            turn_timeout=await self.new_game_timeout(interaction, turn_minutes), asked_by=me.id,
        )
        board: Board | None = None
        if vs_bot:
            board = await self.channel_board(result)
            response = await interaction.response.send_message(
                content=board.content, embed=board.embed, view=board.controls or discord.utils.MISSING,
                files=board.attachments(), allowed_mentions=discord.AllowedMentions.none(),
            )
        else:
            assert opponent is not None
            say = await self.public_say(result)
            response = await interaction.response.send_message(
                content=say(Text("<@{user}>, you have been challenged to Game of the Generals!", user=opponent.id)),
                embed=challenge_embed(result.game, seat_names(self, result), result.public.settings.names(), say),
                view=challenge_controls(result.id, say),
                allowed_mentions=await self.pings([opponent.id]),
            )
        if response.message_id is not None:
            if board is not None:  # as drawn from the game before its message was stored
                self.private_boards.drawn.remember(response.message_id, board.key, result.game)
            result = await self.service.set_message(result.id, response.message_id)
        if vs_bot:
            await self.bot.languages.saw(interaction)  # the board DMed now is in the language of this command
            await self.bot.delivery.deliver(result)  # the board just sent is not edited again; the DMs go out

    @challenge.autocomplete("settings")
    async def _complete_settings(self, interaction: discord.Interaction[Any],
                                 current: str) -> list[app_commands.Choice[str]]:
        words = current.lower().split()
        done, partial = (words, "") if current.endswith(" ") or not words else (words[:-1], words[-1])
        prefix = " ".join(done)
        names = [n if n != "no-challenge-draw" else "no-challenge-draw=50" for n in SETTING_NAMES]
        texts = [f"{prefix} {n}".strip() for n in names if n.startswith(partial) and n not in done]
        # Discord refuses a suggestion over 100 characters: past that, the user types on unaided.
        return [app_commands.Choice(name=t, value=t) for t in texts if len(t) <= 100][:25]

    @app_commands.command(name="board", description="Show your own board (setup or play), just to you")
    @app_commands.describe(game="Game number, if you play several")
    async def board(self, interaction: discord.Interaction[Any], game: int | None = None) -> None:
        found = await self.my_game(interaction, game)
        await self.private_boards.show(interaction, found.id, edit=False)

    @app_commands.command(name="move", description="Move one of your pieces, e.g. e3-e4 (a step onto an enemy "
                                                   "piece challenges it)")
    @app_commands.describe(move="From-to, like e3-e4: start typing a square to see your moves",
                           game="Game number, if you play several")
    async def move(self, interaction: discord.Interaction[Any], move: app_commands.Range[str, 1, 100],
                   game: int | None = None) -> None:
        found = await self.my_game(interaction, game)
        await self.play.move(interaction, found.id, move, None, from_command=True)

    @move.autocomplete("move")
    async def _complete_move(self, interaction: discord.Interaction[Any],
                             current: str) -> list[app_commands.Choice[str]]:
        return await self.play.complete(interaction, current)

    @app_commands.command(name="replay", description="Step through a Game of the Generals game; ranks show once "
                                                     "it is over")
    @app_commands.describe(game="The game's number (see /history)", move="Start at this move (default: the end)")
    async def replay(self, interaction: discord.Interaction[Any], game: int,
                     move: app_commands.Range[int, 0, 100000] | None = None) -> None:
        found = await self.service.view(game)
        if found.game.kind != KIND:
            raise ServiceError(Text("Game #{number} is not a Game of the Generals game; use /replay.", number=game))
        replays = self.bot.get_cog("Replay")
        if not isinstance(replays, ReplayFrames):
            raise ServiceError(Text("Replays are not available on this bot right now."))
        await replays.send_frame(interaction, game, move)

    @app_commands.command(name="rules", description="How Game of the Generals is played here, and its settings")
    async def rules(self, interaction: discord.Interaction[Any]) -> None:
        # The text lives in the game's description (games/generals/description.py), the one place that knows it.
        say = Say.to(interaction)
        await interaction.response.send_message(
            embed=discord.Embed(title=say(self.title), description=say(self.game_description.rules), colour=COLOUR),
            ephemeral=True)

    async def my_game(self, interaction: discord.Interaction[Any], game_id: int | None) -> GeneralsResult:
        """The user's game: by number, or the one they play in this channel (in a DM: anywhere)."""
        place = interaction.channel_id if interaction.guild_id is not None else None
        result: GeneralsResult = await self.service.find_game(KIND, interaction.user.id, place, game_id)
        if interaction.guild_id is not None and result.game.guild_id != interaction.guild_id:
            raise ServiceError(Text("Game #{number} is played in another server; use its channel or our DMs.",
                                    number=result.id))
        return result

    # ----- components and forms ---------------------------------------------------------------------------
    async def accept_challenge(self, interaction: discord.Interaction[Any], game_id: int) -> None:
        """The challenged player accepts: the challenge becomes the game's board, and each player's board is sent."""
        shown_on = interaction.message.id if interaction.message else None
        result = await self.service.accept(game_id, interaction.user.id, shown_on)
        await self.bot.languages.saw(interaction)  # the board DMed now is in the language of this click
        await self.show_board(interaction, result)

    async def decline_challenge(self, interaction: discord.Interaction[Any], game_id: int) -> None:
        """A player of the challenge declines (or withdraws) it: the challenge message says so, without buttons."""
        user = interaction.user.id
        result = await self.service.decline(game_id, user)
        embed = self._challenge_embed(result, await self.public_say(result), declined_by=result.game.seat_of(user))
        await interaction.response.edit_message(content=None, embed=embed, view=None)

    async def offer_draw(self, interaction: discord.Interaction[Any], game_id: int) -> None:
        """Offer a draw, or accept the opponent's offer; the player is told privately which it was."""
        result, drawn = await self.service.offer_draw(game_id, interaction.user.id)
        said = Say.to(interaction)(Text("The game is drawn by agreement.") if drawn
                                   else Text("You offered a draw; your opponent can accept it."))

        async def answer(latest: Result[Any, Any]) -> None:
            await interaction.response.send_message(said, ephemeral=True)
            return None

        await self.bot.delivery.deliver(result, answer)

    async def ask_to_resign(self, interaction: discord.Interaction[Any], game_id: int) -> None:
        """Resigning loses the game: a player is first asked, privately, to confirm."""
        await self.service.require_player(game_id, interaction.user.id)
        await ask_to_confirm_resignation(
            interaction, game_id, Text("Resign Game of the Generals #{number}? You lose the game.", number=game_id),
            ConfirmResignButton)

    async def resign_now(self, interaction: discord.Interaction[Any], game_id: int) -> None:
        """The confirmed resignation: the player loses, and the confirmation says so."""
        result = await self.service.resign(game_id, interaction.user.id)
        await self.answer_privately(interaction, result, Say.to(interaction)(Text("You resigned.")))

    async def show_ranks(self, interaction: discord.Interaction[Any]) -> None:
        """The legend, privately, in the reader's language: every rank's insignia and name, the board's colours."""
        say = Say.to(interaction)
        images = interaction.guild_id is None or (await self.bot.server_settings.get(interaction.guild_id)).images
        lines = [say(line) for line in legend_lines()]
        embed = discord.Embed(title=say(Text("Ranks · Game of the Generals")), colour=COLOUR)
        if not images:  # pictures are off here: the names, strongest first, with the notation a move or grid uses
            lines += ["", say(Text("Strongest first: {ranks}", ranks=", ".join(
                f"{say(rank.title)} (`{rank.abbreviation}`)" for rank in sorted(Rank, reverse=True))))]
            embed.description = "\n".join(lines)
            await interaction.response.send_message(embed=embed, ephemeral=True)
            return
        await interaction.response.defer(ephemeral=True, thinking=True)
        image = await workers.draw(render_legend, say.language)
        embed.description = "\n".join(lines)
        embed.set_image(url=f"attachment://{LEGEND_NAME}")
        await interaction.followup.send(embed=embed, file=discord.File(io.BytesIO(image), filename=LEGEND_NAME),
                                        ephemeral=True)

    @commands.Cog.listener()
    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        """Our forms (swap, import, save) are answered here from their custom id, so they work after a restart."""
        await answer_form(interaction)

    # ----- the channel ------------------------------------------------------------------------------------
    async def images_on(self, result: GeneralsResult) -> bool:
        if result.game.guild_id is None:
            return True
        images: bool = (await self.bot.server_settings.get(result.game.guild_id)).images
        return images

    def _challenge_embed(self, result: GeneralsResult, say: Say, declined_by: int | None = None) -> discord.Embed:
        return challenge_embed(result.game, seat_names(self, result), result.public.settings.names(), say,
                               declined_by)

    async def channel_board(self, result: GeneralsResult) -> Board:
        say = await self.public_say(result)
        if result.game.status in CLOSED_CHALLENGE:
            controls = challenge_controls(result.id, say) if result.game.status == "pending" else None
            return Board(None, self._challenge_embed(result, say), controls)
        return await self._board(result, await self.images_on(result), say)

    async def _board(self, result: GeneralsResult, images: bool, say: Say) -> Board:
        """The public board in the server's language (`say`), as a picture when `images` (else the text board)."""
        game, view, names = result.game, result.public, seat_names(self, result)
        image, text = await picture(view, images, language=say.language)
        return Board(channel_content(game.id, names, say), channel_embed(game, view, names, text, say),
                     channel_controls(game, view, say), image, channel_key(game, view, images, language=say.language))

    async def draw_channel(self, result: GeneralsResult, *, answered: int | None = None) -> None:
        """The channel message from `result`, the latest position (under the game's drawing lock: bot/delivery.py):
        not edited again if its key did not change, nor if it is `answered`, just drawn from `result`; the text
        board where pictures may not be attached."""
        game = result.game
        images = await self.images_on(result)
        say = await self.public_say(result)
        if game.message_id is not None and game.message_id != answered:
            message = self.channel(result).get_partial_message(game.message_id)
            if game.status in CLOSED_CHALLENGE:
                await message.edit(content=None, embed=self._challenge_embed(result, say), view=None)
            elif not self.private_boards.drawn.current(
                    message.id, channel_key(game, result.public, images, language=say.language), game):
                board = await self._board(result, images, say)
                try:
                    await message.edit(content=board.content, embed=board.embed, view=board.controls,
                                       attachments=board.attachments(),
                                       allowed_mentions=discord.AllowedMentions.none())
                except discord.Forbidden:
                    if board.image is None:
                        raise
                    # No Attach Files permission in this channel: the text board says the same.
                    board = await self._board(result, False, say)
                    await message.edit(content=board.content, embed=board.embed, view=board.controls, attachments=[],
                                       allowed_mentions=discord.AllowedMentions.none())
                self.private_boards.drawn.remember(message.id, board.key, game)

    # ----- the players' own boards (bot/private_boards.py delivers them) ----------------------------------------
    async def own_inputs(self, result: GeneralsResult, own: OwnView[PlayerView]) -> OwnInputs:
        return OwnInputs(await self.saved_names(own.user_id, own.view), await self.images_on(result),
                         seat_names(self, result))

    def own_board(self, result: GeneralsResult, own: OwnView[PlayerView], inputs: OwnInputs,
                  where: Where) -> OwnBoard:
        return own_board(result, own, inputs, where)

    def dm_refused(self, result: GeneralsResult, user_id: int) -> Text:
        return Text("<@{user}>, I could not send you a direct message, so your board for Game of the Generals "
                    "#{number} is not in your DMs. Press **My board** on the game message to set up and play here; "
                    "only you will see it. {dm_help}", user=user_id, number=result.id, dm_help=DM_HELP)

    async def game_opened(self, result: Result[Any, Any]) -> None:
        """A rematch's message was just posted: once the game is on, its private boards are dealt with the rest of
        its drawing (a challenge's message shows words of its own, which a drawing would replace)."""
        if result.game.status == "active":
            await self.bot.delivery.deliver(result)
        else:
            await super().game_opened(result)

    async def turn_notice(self, result: Result[Any, Any], seat: int) -> Text:
        notice = await super().turn_notice(result, seat)
        if not await self.private_boards.needs_reopening(result.id, seat):
            return notice
        return Text("{notice} Press **My board** on the game message to see your board.", notice=notice)

    def play_began_text(self, result: Result[Any, Any], first: int | None) -> Text:
        if first is None:
            return Text("Game of the Generals #{number}: both armies are deployed. I move first.", number=result.id)
        return Text("Game of the Generals #{number}: both armies are deployed. <@{first}> moves first.",
                    number=result.id, first=first)

    # ----- replays, rules, endings, timers ----------------------------------------------------------------
    def replay_embed(self, frame: ReplayFrame[PublicView], say: Say) -> discord.Embed:
        """A replay frame: the public board, or every rank once the game is over (the service chose the view)."""
        return self._replay_embed(frame, text_board(frame.view, say.language), say)

    async def replay_board(self, frame: ReplayFrame[PublicView], say: Say) -> Board:
        """A replay frame as a picture of that position (drawn off the event loop), or the text board when the
        server switched pictures off."""
        image, text = await picture(frame.view, await self.images_on(Result(frame.game, frame.view)),
                                    language=say.language)
        return Board(None, self._replay_embed(frame, text, say), None, image)

    def _replay_embed(self, frame: ReplayFrame[PublicView], text: str | None, say: Say) -> discord.Embed:
        shown: GeneralsResult = Result(frame.game, frame.view)
        # A past position: how to set up and play now does not belong to it.
        embed = channel_embed(frame.game, frame.view, seat_names(self, shown), text, say, how_to_play=False)
        if frame.game.finished_at is None:
            embed.description = "\n".join([embed.description or "",
                                           say(Text("Ranks are shown in replays once the game is over."))])
        return embed

    def rules_lines(self, options: Mapping[str, Any], players: int) -> list[Text | str]:
        """The settings the game plays by (Generals has no lobby: its challenges show them)."""
        try:
            return settings_lines(Settings.from_options(options).names())
        except GameError as exc:
            return [reason(exc)]

    def ending_line(self, result: GeneralsResult) -> Text | str:
        outcome = result.public.outcome
        if outcome is not None:
            return outcome_line(outcome.places, outcome.reason, seat_names(self, result))
        ended = result.ended()
        if ended is not None:
            return outcome_line(ended.places, ended.reason, seat_names(self, result))
        return Text("time ran out.")

    def reminder_text(self, result: GeneralsResult, user_id: int, deadline: float) -> Text:
        if result.public.phase == SETUP:
            return Text("<@{user}>, please finish your setup in Game of the Generals #{number}: you forfeit "
                        "<t:{deadline}:R> otherwise.", user=user_id, number=result.id, deadline=int(deadline))
        return Text("<@{user}>, please move in Game of the Generals #{number}: you forfeit <t:{deadline}:R> "
                    "otherwise.", user=user_id, number=result.id, deadline=int(deadline))

    def timeout_text(self, result: GeneralsResult, event: TimerEvent) -> Text:
        return Text("Game of the Generals #{number}: {ending}", number=result.id, ending=self.ending_line(result))
