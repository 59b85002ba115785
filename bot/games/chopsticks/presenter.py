"""/chopsticks: challenges, lobbies for up to six, rules and analysis; and how its games are presented.

What it says is in the reader's language: private answers (rules, analysis, refusals) in the user's, the channel's
board, challenge and announcements in the server's. The command's own names and descriptions are translated by the
bot's command translator (bot/i18n.py, contexts "command name" and "command text" of the catalogues)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot import workers
from bot.drawn import Board
from bot.errors import MAX_CONTENT, reason
from bot.games.chopsticks.board import COLOUR, board_embed, challenge_embed, jump_url, result_line
from bot.games.chopsticks.components import COMPONENTS, KIND, board_controls, challenge_controls, public_view
from bot.i18n import Say
from bot.lobby import post_lobby
from bot.presenter import GamePresenter, seat_names
from bot.service import TABLE_OPTIONS, Player, ReplayFrame, Result, ServiceError, TimerEvent
from bot.validation import given
from games.base import GameError
from games.chopsticks.analysis import analysis_text
from games.chopsticks.rules import PRESETS, VARIANTS, Rules
from games.chopsticks.views import ChopsticksView
from games.text import Text, versus

BotLevel = Literal["easy", "medium", "perfect"]  # as games/chopsticks/description.py lists them
DEFAULT_LEVEL: BotLevel = "medium"
PRESET_CHOICES = [app_commands.Choice(name=name, value=name) for name in PRESETS][:25]
CHALLENGE_STATUSES = ("pending", "declined", "expired")
MAX_EMBED_DESCRIPTION = 4096


class ChopsticksPresenter(GamePresenter, commands.GroupCog, group_name="chopsticks",
                          group_description="Play Chopsticks"):
    kind = KIND
    components = COMPONENTS

    # ----- commands ---------------------------------------------------------------------------------------
    @app_commands.command(name="challenge", description="Challenge someone to standard Chopsticks, or play me")
    @app_commands.describe(
        opponent="Who to play; leave empty to play against me",
        level="How well I play when you play me (default: medium)",
        turn_minutes="Minutes per move before a forfeit (default: the bot's TURN_TIMEOUT setting, 24 h)",
    )
    @app_commands.guild_only()
    async def challenge(
        self,
        interaction: discord.Interaction[Any],
        opponent: discord.User | None = None,
        level: BotLevel = DEFAULT_LEVEL,
        turn_minutes: app_commands.Range[int, 1, 20160] | None = None,
    ) -> None:
        await self._start_two_player(interaction, opponent, level, {}, turn_minutes)

    @app_commands.command(name="new", description="Open a Chopsticks table with your own rules, for 2 to 6 players")
    @app_commands.describe(
        players="How many seats (2-6); others join the lobby, or you add bots",
        opponent="For 2 players: challenge this person directly instead of opening a lobby",
        preset="A named rule set (see /chopsticks rules); the options below change it further",
        hands="Hands per player (default 2)",
        rollover="Fingers that kill a hand (default 5)",
        variants="Variant names separated by spaces, e.g. 'cutoff suicide' (see /chopsticks rules)",
        lives="Sudden death: lives per player",
        hints="Let players ask for a hint on their turn",
        level="Strength of bots added to this table (default: medium)",
        turn_minutes="Minutes per move before a forfeit (default: the bot's TURN_TIMEOUT setting, 24 h)",
        min_finished="Only players who finished at least this % of their games may join (default: anyone)",
    )
    @app_commands.choices(preset=PRESET_CHOICES)
    @app_commands.guild_only()
    async def new(
        self,
        interaction: discord.Interaction[Any],
        players: app_commands.Range[int, 2, 6] = 2,
        opponent: discord.User | None = None,
        preset: str | None = None,
        hands: app_commands.Range[int, 1, 4] | None = None,
        rollover: app_commands.Range[int, 2, 10] | None = None,
        variants: app_commands.Range[str, 0, 200] = "",
        lives: app_commands.Range[int, 1, 9] | None = None,
        hints: bool = False,
        level: BotLevel = DEFAULT_LEVEL,
        turn_minutes: app_commands.Range[int, 1, 20160] | None = None,
        min_finished: app_commands.Range[int, 1, 100] | None = None,
    ) -> None:
        options = rule_options(preset, hands, rollover, variants, lives)
        options.update({"hints": hints, "bot_level": level})
        if opponent is not None:
            if players != 2:
                raise ServiceError(Text("`opponent` is for 2-player games; for more players, others join the lobby."))
            if min_finished is not None:
                raise ServiceError(Text("`min_finished` is for tables others join: a challenge already names its "
                                        "opponent. Leave out `opponent` to open a table."))
            await self._start_two_player(interaction, opponent, level, options, turn_minutes)
            return
        lobby = await self.lobbies.open(
            self.kind, guild_id=interaction.guild_id, channel_id=interaction.channel_id or 0,
            host_id=interaction.user.id, max_players=players, options=options,
            turn_timeout=await self.new_game_timeout(interaction, turn_minutes), min_finished=min_finished,
        )
        await post_lobby(interaction, lobby, self)

    async def _complete_variants(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        return variant_choices(current)

    @app_commands.command(name="rules", description="How Chopsticks is played here, with any variants you name")
    @app_commands.describe(preset="A named rule set", variants="Variant names separated by spaces",
                           players="Players (2-6)", hands="Hands per player", rollover="Fingers that kill a hand")
    @app_commands.choices(preset=PRESET_CHOICES)
    async def rules(
        self,
        interaction: discord.Interaction[Any],
        preset: str | None = None,
        variants: app_commands.Range[str, 0, 200] = "",
        players: app_commands.Range[int, 2, 6] = 2,
        hands: app_commands.Range[int, 1, 4] | None = None,
        rollover: app_commands.Range[int, 2, 10] | None = None,
    ) -> None:
        options = rule_options(preset, hands, rollover, variants, None)
        say = Say.to(interaction)  # a private answer: in the user's language
        if options or players != 2:  # a rule set was named: those rules in plain words, as a table states them
            lines = [*self.rules_lines(options, players), "",
                     Text("Notation, every variant and preset: `/chopsticks rules` without options.")]
            text = "\n".join(say(line) for line in lines)
        else:  # the game's own text, from its description (games/chopsticks/description.py)
            text = say(self.game_description.rules)
        embed = discord.Embed(title=say(Text("Chopsticks rules")), description=text[:MAX_EMBED_DESCRIPTION],
                              colour=COLOUR)
        await interaction.response.send_message(embed=embed, ephemeral=True)

    @app_commands.command(name="analyze", description="The perfect-play verdict and best moves for a position code")
    @app_commands.describe(code="A position code such as 1312 (the player to move first)", preset="A named rule set",
                           variants="Variant names separated by spaces", hands="Hands per player",
                           rollover="Fingers that kill a hand")
    @app_commands.choices(preset=PRESET_CHOICES)
    async def analyze(
        self,
        interaction: discord.Interaction[Any],
        code: app_commands.Range[str, 1, 60],
        preset: str | None = None,
        variants: app_commands.Range[str, 0, 200] = "",
        hands: app_commands.Range[int, 1, 4] | None = None,
        rollover: app_commands.Range[int, 2, 10] | None = None,
    ) -> None:
        options = rule_options(preset, hands, rollover, variants, None)
        # The solver, in an advice worker (never the computer players'), in this person's turn. Refused at once, before
        # deferring, when this person has as many analyses (and hints) under way as one may or the line is full
        # (bot/workers.py ADVISING): no "thinking..." that ends in a refusal.
        try:
            with workers.ADVISING.admit(workers.user(interaction.user.id)) as place:
                await interaction.response.defer(ephemeral=True, thinking=True)
                text = await place.run(analysis_text, code.strip(), options)
        except GameError as exc:
            raise ServiceError(reason(exc)) from None
        await interaction.followup.send(Say.to(interaction)(text)[:MAX_CONTENT], ephemeral=True)

    # One completer for the `variants` option of all three commands.
    new.autocomplete("variants")(_complete_variants)
    rules.autocomplete("variants")(_complete_variants)
    analyze.autocomplete("variants")(_complete_variants)

    async def _start_two_player(
        self,
        interaction: discord.Interaction[Any],
        opponent: discord.User | None,
        level: str,
        options: dict[str, Any],
        turn_minutes: int | None,
    ) -> None:
        me = interaction.user
        rival = self.rival(me.id, opponent, level)
        vs_bot = rival.computer is not None
        result = await self.service.create(
            self.kind, guild_id=interaction.guild_id, channel_id=interaction.channel_id or 0,
            players=[Player(user_id=me.id), rival], options=options, challenge=not vs_bot,
            turn_timeout=await self.new_game_timeout(interaction, turn_minutes), asked_by=me.id,
        )
        if vs_bot:
            board = await self.channel_board(result)
            response = await interaction.response.send_message(
                content=board.content, embed=board.embed, view=board.controls or discord.utils.MISSING,
                allowed_mentions=discord.AllowedMentions.none(),
            )
            if response.message_id is not None:  # the board as posted: a restart need not draw it again
                self.remember_drawn(response.message_id, board, result.game)
        else:
            assert opponent is not None
            say = await self.public_say(result)  # the challenge is a channel message
            response = await interaction.response.send_message(
                content=say(Text("{opponent}, you have been challenged!", opponent=f"<@{opponent.id}>")),
                embed=challenge_embed(result.game, public_view(result), seat_names(self, result), say),
                view=challenge_controls(result, say),
                allowed_mentions=await self.pings([opponent.id]),
            )
        if response.message_id is not None:
            result = await self.service.set_message(result.id, response.message_id)
        self.schedule_computers(result)  # the bot may have the first move

    # ----- presenting -------------------------------------------------------------------------------------
    async def channel_board(self, result: Result[Any, Any]) -> Board:
        view, names = public_view(result), seat_names(self, result)
        say = await self.public_say(result)  # a channel message: in the server's language
        if result.game.status in CHALLENGE_STATUSES:
            controls = challenge_controls(result, say) if result.game.status == "pending" else None
            return Board(None, challenge_embed(result.game, view, names, say), controls)
        content = say(versus([say(name).removesuffix(" (bot)") for name in names]))
        return Board(content, board_embed(result.game, view, names, say), board_controls(result, say))

    def replay_embed(self, frame: ReplayFrame[Any], say: Say) -> discord.Embed:
        if not isinstance(frame.view, ChopsticksView):
            raise ServiceError(Text("Game #{number} is not a Chopsticks game.", number=frame.game.id))
        return board_embed(frame.game, frame.view, seat_names(self, Result(frame.game, frame.view)), say)

    def rules_lines(self, options: Mapping[str, Any], players: int) -> list[Text | str]:
        """The rules of a table in plain lines (the engine words them), plus the table's own settings."""
        try:
            rules = Rules.from_options(players, {k: v for k, v in options.items() if k not in TABLE_OPTIONS})
        except GameError as exc:
            raise ServiceError(reason(exc)) from None
        lines: list[Text | str] = [*rules.describe()]
        if options.get("hints"):
            lines.append(Text("Hints are on: the player to move may ask for one."))
        return lines

    def ending_line(self, result: Result[Any, Any]) -> Text:
        return result_line(public_view(result), seat_names(self, result))

    # ----- timers -----------------------------------------------------------------------------------------
    def reminder_text(self, result: Result[Any, Any], user_id: int, deadline: float) -> Text:
        return Text("<@{user}>, it is your move in Chopsticks #{number} ({link}). You forfeit {when} if you do not "
                    "move.", user=user_id, number=result.id, link=jump_url(result.game),
                    when=f"<t:{int(deadline)}:R>")

    def timeout_text(self, result: Result[Any, Any], event: TimerEvent) -> Text:
        """The table is told who ran out of time (the seat out last, in the position the timer acted in); named,
        not pinged: the message goes out without mentions."""
        view = public_view(result)
        if view.outcome is not None:
            return Text("Chopsticks #{number}: {ending}", number=result.id, ending=self.ending_line(result))
        if not view.out:
            return Text("Chopsticks #{number}: a player ran out of time and is out.", number=result.id)
        return Text("Chopsticks #{number}: {player} ran out of time and is out.", number=result.id,
                    player=seat_names(self, result)[view.out[-1]])


def rule_options(
    preset: str | None, hands: int | None, rollover: int | None, variants: str, lives: int | None
) -> dict[str, Any]:
    """The engine options for what a command was given (the engine checks them)."""
    options = given(preset=preset, hands=hands, rollover=rollover)
    names = [v for v in re.split(r"[\s,]+", variants.strip().lower()) if v]
    if names:
        options["variants"] = names
    if lives is not None:
        options["lives"] = lives
    return options


def variant_choices(current: str) -> list[app_commands.Choice[str]]:
    """Complete the last variant name being typed, keeping the ones before it."""
    words = current.lower().split()
    done, partial = (words, "") if current.endswith(" ") or not words else (words[:-1], words[-1])
    prefix = " ".join(done)
    names = [n for n in VARIANTS if n.startswith(partial) and n not in done]
    texts = [f"{prefix} {n}".strip() for n in names]
    # Discord refuses a suggestion over 100 characters: past that, the user types on unaided.
    return [app_commands.Choice(name=t, value=t) for t in texts if len(t) <= 100][:25]
