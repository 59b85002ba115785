"""/chopsticks: challenges, lobbies for up to six, and play by clicking the board."""

from __future__ import annotations

import asyncio
import logging
import random
import re
from typing import Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.base import GameCogBase
from bot.service import TABLE_OPTIONS, Game, Player, ServiceError, TimerEvent
from bot.ui import chopsticks as ui
from bot.ui.components import dispatch
from bot.ui.lobby import post_lobby, show_expired
from games import GameError
from games.chopsticks import ChopsticksState
from games.chopsticks.bots import choose_move
from games.chopsticks.rules import MAX_PLAYERS, PRESETS, VARIANTS, Rules
from games.chopsticks.solver import solve
from storage.lobbies import LobbyRecord

log = logging.getLogger(__name__)
KIND = "chopsticks"
BotLevel = Literal["easy", "medium", "perfect"]
DEFAULT_LEVEL: BotLevel = "medium"
PRESET_CHOICES = [app_commands.Choice(name=name, value=name) for name in PRESETS][:25]


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
        await dispatch(interaction, ChopsticksCog, lambda cog: cog.on_button(interaction, self), game_id=self.game_id)


class ChopsticksSelect(discord.ui.DynamicItem[discord.ui.Select[Any]], template=ui.SELECT_ID_TEMPLATE):
    """The move-group select on big boards and the move selects of the private second step."""

    def __init__(
        self,
        custom_id: str,
        *,
        options: list[discord.SelectOption] | None = None,
        placeholder: str | None = None,
        row: int | None = None,
    ) -> None:
        super().__init__(discord.ui.Select(custom_id=custom_id, options=options or [], placeholder=placeholder,
                                           row=row))
        match = re.fullmatch(ui.SELECT_ID_TEMPLATE, custom_id)
        assert match is not None, custom_id
        self.game_id = int(match["game"])
        self.verb: str = match["verb"]
        self.ply = int(match["ply"])

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ChopsticksSelect:
        assert isinstance(item, discord.ui.Select) and item.custom_id is not None
        return cls(item.custom_id, options=item.options, placeholder=item.placeholder)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        values = list(self.item.values)
        await dispatch(interaction, ChopsticksCog, lambda cog: cog.on_select(interaction, self, values),
                       game_id=self.game_id)


class ChopsticksCog(GameCogBase, commands.GroupCog, group_name="chopsticks", group_description="Play Chopsticks"):
    __cog_name__ = "Chopsticks"
    DYNAMIC_ITEMS = (ChopsticksButton, ChopsticksSelect)
    title = "Chopsticks"

    kind = KIND


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
    ) -> None:
        options = rule_options(preset, hands, rollover, variants, lives)
        options.update({"hints": hints, "bot_level": level})
        if opponent is not None:
            if players != 2:
                raise ServiceError("`opponent` is for 2-player games; for more players, others join the lobby.")
            await self._start_two_player(interaction, opponent, level, options, turn_minutes)
            return
        lobby = await self.lobbies.open(
            KIND, guild_id=interaction.guild_id, channel_id=interaction.channel_id or 0, host_id=interaction.user.id,
            max_players=players, options=options, turn_timeout=await self.new_game_timeout(interaction, turn_minutes),
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
        lines = rules_lines(options, players)
        if not options.get("variants") and preset is None:
            lines += ["", "**Variants** (combine them with `variants:` in /chopsticks new):"]
            lines += [f"`{name}`: {text}" for name, text in VARIANTS.items()]
            lines += ["", "**Presets**: " + ", ".join(f"`{name}`" for name in PRESETS)]
        await interaction.response.send_message(
            embed=discord.Embed(title="Chopsticks rules", description="\n".join(lines)[:4096], colour=ui.COLOUR),
            ephemeral=True,
        )


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
        await interaction.response.defer(ephemeral=True, thinking=True)
        text = await asyncio.to_thread(analysis_text, code.strip(), options)
        await interaction.followup.send(text, ephemeral=True)


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
        vs_bot = rival.bot is not None
        game = await self.service.create(
            KIND, guild_id=interaction.guild_id, channel_id=interaction.channel_id or 0,
            players=[Player(user_id=me.id), rival], options=options, challenge=not vs_bot,
            turn_timeout=await self.new_game_timeout(interaction, turn_minutes),
        )
        if vs_bot:
            response = await interaction.response.send_message(
                content=self._board_content(game), embed=ui.board_embed(game, self._bot_id),
                view=self._board_view(game) or discord.utils.MISSING,
                allowed_mentions=discord.AllowedMentions.none(),
            )
        else:
            assert opponent is not None
            response = await interaction.response.send_message(
                content=f"<@{opponent.id}>, you have been challenged!",
                embed=ui.challenge_embed(game, self._bot_id), view=ui.challenge_view(game, ChopsticksButton),
                allowed_mentions=discord.AllowedMentions(users=[discord.Object(opponent.id)]),
            )
        if response.message_id is not None:
            game = await self.service.set_message(game.id, response.message_id)
        self._bots_move(game)  # the bot may have the first move

    # ----- game components --------------------------------------------------------------------------------
    async def on_button(self, interaction: discord.Interaction[Any], button: ChopsticksButton) -> None:
        user, game_id = interaction.user.id, button.game_id
        # Only moves and hints carry the position they were drawn for (and moves the move): any other shape is
        # not a button this bot makes.
        with_ply, with_move = button.verb in ("mv", "hint"), button.verb == "mv"
        if (button.ply is not None) != with_ply or (button.move is not None) != with_move:
            raise ServiceError("This button is not one I make; use the buttons on the game's board.")
        if button.verb == "mv":
            assert button.move is not None and button.ply is not None
            await self._play(interaction, game_id, button.move, button.ply)
        elif button.verb == "accept":
            shown_on = interaction.message.id if interaction.message is not None else None
            await self._show_board(interaction, await self.service.accept(game_id, user, shown_on))
        elif button.verb == "decline":
            game = await self.service.decline(game_id, user)
            await interaction.response.edit_message(content=None, embed=ui.challenge_embed(game, self._bot_id),
                                                    view=None)
        elif button.verb == "draw":
            game, _drawn = await self.service.offer_draw(game_id, user)
            await self._show_board(interaction, game)
        elif button.verb == "resign":
            await self.service.require_player(game_id, user)
            confirm = discord.ui.View(timeout=None)
            confirm.add_item(ChopsticksButton(ui.custom_id(game_id, "resign-yes"), label="Yes, resign",
                                              style=discord.ButtonStyle.danger))
            await interaction.response.send_message(f"Resign Chopsticks #{game_id}? You will be out.",
                                                    view=confirm, ephemeral=True)
        elif button.verb == "resign-yes":
            game = await self.service.resign(game_id, user)
            await interaction.response.edit_message(content="You resigned.", view=None)
            await self.redraw(game)
            self._bots_move(game)
        elif button.verb == "hint":
            await self._hint(interaction, game_id, button.ply)

    async def on_select(self, interaction: discord.Interaction[Any], select: ChopsticksSelect,
                        values: list[str]) -> None:
        if not values:
            raise ServiceError("Choose one of the options.")
        if select.verb == "pick":
            await self._play(interaction, select.game_id, values[0], select.ply)
            return
        game = await self.service.require_turn(select.game_id, interaction.user.id, select.ply)
        state = ui._state(game)
        seat = state.current_player()
        assert seat is not None
        group = ui.move_groups(state, state.legal_actions(seat)).get(values[0])
        if not group:
            raise ServiceError("There is no such group of moves now; look at the board again.")
        await interaction.response.send_message(
            "Choose your move:", view=ui.group_view(game, group, ChopsticksButton, ChopsticksSelect), ephemeral=True
        )

    async def _play(self, interaction: discord.Interaction[Any], game_id: int, move: str, ply: int | None) -> None:
        game = await self.service.act(game_id, interaction.user.id, move, expected_ply=ply)
        message = interaction.message
        if message is not None and message.id == game.record.message_id:
            await self._show_board(interaction, game)
        else:  # the player's private second step: confirm there, redraw the board in the channel
            await interaction.response.edit_message(content=f"You played `{move}`.", view=None)
            await self.redraw(game)
            self._bots_move(game)

    async def _hint(self, interaction: discord.Interaction[Any], game_id: int, ply: int | None) -> None:
        game = await self.service.require_turn(game_id, interaction.user.id, ply)
        if not game.record.options.get("hints"):
            raise ServiceError("Hints are off in this game.")
        await interaction.response.defer(ephemeral=True, thinking=True)
        await interaction.followup.send(await asyncio.to_thread(hint_text, game), ephemeral=True)

    def _board_view(self, game: Game) -> discord.ui.View | None:
        return ui.board_view(game, ChopsticksButton, ChopsticksSelect)

    async def _show_board(self, interaction: discord.Interaction[Any], game: Game) -> None:
        """Answer a click on the game's own message by redrawing that message; then let bots move."""
        await interaction.response.edit_message(
            content=self._board_content(game), embed=ui.board_embed(game, self._bot_id),
            view=self._board_view(game), allowed_mentions=discord.AllowedMentions.none(),
        )
        self._bots_move(game)

    def _bots_move(self, game: Game) -> None:
        self.bot.bot_turns.schedule(game)

    def _board_content(self, game: Game) -> str:
        names = [ui.seat_name(game, s, self._bot_id).removesuffix(" (bot)") for s in range(len(game.record.seats))]
        return " vs ".join(names)

    async def redraw(self, game: Game) -> None:
        """Redraw the game's channel message from what is stored now (serialised per game by the bot)."""
        await self.bot.redraw(game.id)

    async def draw(self, game: Game) -> None:
        """Redraw the game's channel message outside an interaction on it (resign, timers, bots, private picks)."""
        if game.record.message_id is None:
            return
        channel = self.bot.get_partial_messageable(game.record.channel_id, guild_id=game.record.guild_id)
        message = channel.get_partial_message(game.record.message_id)
        if game.record.status in ("pending", "declined", "expired"):
            await message.edit(content=None, embed=ui.challenge_embed(game, self._bot_id), view=None)
        else:
            await message.edit(content=self._board_content(game), embed=ui.board_embed(game, self._bot_id),
                               view=self._board_view(game), allowed_mentions=discord.AllowedMentions.none())

    # ----- lobbies ----------------------------------------------------------------------------------------
    def replay_embed(self, game: Game) -> discord.Embed:
        return ui.board_embed(game, self._bot_id)

    def lobby_lines(self, lobby: LobbyRecord) -> list[str]:
        return rules_lines(lobby.options, lobby.max_players)

    def bot_level(self, lobby: LobbyRecord) -> str:
        return str(lobby.options.get("bot_level", DEFAULT_LEVEL))

    async def show_started(self, interaction: discord.Interaction[Any], lobby: LobbyRecord, game: Game) -> None:
        await self._show_board(interaction, game)  # the lobby message becomes the board

    async def announce_lobby_expired(self, lobby: LobbyRecord) -> None:
        await show_expired(self.bot, lobby, self)

    # ----- timers -----------------------------------------------------------------------------------------
    async def announce_timer(self, event: TimerEvent, game: Game) -> None:
        channel = self.bot.get_partial_messageable(game.record.channel_id, guild_id=game.record.guild_id)
        await self.redraw(game)
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
            over = game.state.outcome() is not None
            text = ui.result_line(game, self._bot_id) if over else "a player ran out of time and is out."
            await channel.send(f"Chopsticks #{game.id}: {text}", allowed_mentions=discord.AllowedMentions.none())


def rule_options(
    preset: str | None, hands: int | None, rollover: int | None, variants: str, lives: int | None
) -> dict[str, Any]:
    """The engine options for what a command was given (the engine checks them)."""
    options: dict[str, Any] = {}
    if preset is not None:
        options["preset"] = preset
    if hands is not None:
        options["hands"] = hands
    if rollover is not None:
        options["rollover"] = rollover
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


def _rules(options: dict[str, Any], players: int) -> Rules:
    try:
        return Rules.from_options(players, {k: v for k, v in options.items() if k not in TABLE_OPTIONS})
    except GameError as exc:
        raise ServiceError(str(exc)) from None


def rules_lines(options: dict[str, Any], players: int) -> list[str]:
    """The rules of a table in plain lines (the engine words them), plus the table's own settings."""
    lines = _rules(options, players).describe()
    if options.get("hints"):
        lines.append("Hints are on: the player to move may ask for one.")
    return lines


def analysis_text(code: str, options: dict[str, Any]) -> str:
    """The solver's verdict on a position code and the value of each move (runs in a worker thread)."""
    hands = _rules(options, MAX_PLAYERS).hands
    body = code.partition("/")[0]
    if not body or len(body) % hands:
        raise ServiceError(f"A position code has {hands} digits per player, so `{code}` is not one.")
    rules = _rules(options, len(body) // hands)
    try:
        state = ChopsticksState.from_code(code, rules)
        solution = solve(rules)
    except GameError as exc:
        raise ServiceError(str(exc)) from None
    lines = [f"**`{state.code()}`**: {solution.verdict(state).text()} for the player to move "
             f"(perfect play, {solution.size:,} positions solved)."]
    best = {a.text() for a in solution.best_actions(state)}
    for action, verdict in solution.move_verdicts(state)[:20]:
        star = " ⭐" if action.text() in best else ""
        lines.append(f"`{action.text()}` → `{state.apply(0, action).code()}`: {verdict.text()}{star}")
    return "\n".join(lines)[:2000]


def hint_text(game: Game) -> str:
    """A suggestion for the player to move: the solver's best move when it can solve the rules."""
    state = game.state
    assert isinstance(state, ChopsticksState)
    try:
        solution = solve(state.rules)
    except GameError:  # 3+ players or too many positions: ask the strongest search player instead
        move = choose_move(state, "perfect", random.Random(game.record.move_count))
        return f"Hint: try `{move.text()}` ({state.describe(move, mover_view=True)})."
    verdict = solution.verdict(state)
    best = solution.best_actions(state)[0]
    outlook = {"win": "you can force a win", "loss": "with best play you lose", "draw": "best play draws"}
    return (f"Hint: `{best.text()}` ({state.describe(best, mover_view=True)}); "
            f"{outlook[verdict.result]}" + (f" in {verdict.distance} plies." if verdict.distance else "."))
