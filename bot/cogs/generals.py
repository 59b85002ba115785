"""/generals: Game of the Generals with the bot as the neutral arbiter.

The channel sees the public board (squares, rulings, no ranks). Each player gets their own board by DM,
which the bot edits after every move; if a DM cannot be delivered, the same board and controls come
ephemerally from the **My board** button. Setup (formations, saved formations, swaps, grid import and
export) and play (piece menu + direction buttons, or `/generals move` with autocomplete) work from either.

Everything drawn for a player comes from that player's view, and everything drawn for the channel from the
public view (bot/ui/generals.py), so nothing here can show a hidden rank.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import json
import logging
import random
import re
from dataclasses import dataclass
from typing import Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.base import GameCogBase
from bot.render.generals import render_player_board, render_public_board, text_board
from bot.service import Game, Player, ServiceError, TimerEvent
from bot.ui import generals as ui
from bot.ui.components import dispatch
from games import GameError
from games.generals import GeneralsState, Move
from games.generals.actions import parse_action_text
from games.generals.rules import SETTING_NAMES, Settings
from games.generals.setup import (
    FORMATIONS,
    Grid,
    as_owner_sees_it,
    compact,
    format_grid,
    formation,
    grid_from_squares,
    parse_grid,
)
from games.generals.views import PLAY, SETUP, PlayerView, PublicView
from storage.formations import FormationError, FormationStore
from storage.lobbies import LobbyRecord
from storage.private_boards import PrivateBoardStore

log = logging.getLogger(__name__)
KIND = ui.KIND
BotLevel = Literal["random", "greedy", "strong"]
DEFAULT_LEVEL: BotLevel = "strong"
OPEN_DMS = ("in this server's menu open **Privacy Settings** and allow **Direct Messages** from server members "
            "(and do not block me)")
DM_HELP = f"To get it by DM instead: {OPEN_DMS}, then press **My board** → **Send my board by DM**."


class GeneralsButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=ui.BUTTON_TEMPLATE):
    """Every Generals button except moves: the custom id names the game and what to do."""

    def __init__(self, custom_id: str, *, label: str = "·",
                 style: discord.ButtonStyle = discord.ButtonStyle.secondary, row: int | None = None) -> None:
        super().__init__(discord.ui.Button(label=label, style=style, custom_id=custom_id, row=row))
        match = re.fullmatch(ui.BUTTON_TEMPLATE, custom_id)
        assert match is not None, custom_id
        self.game_id, self.verb = int(match["game"]), str(match["verb"])

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> GeneralsButton:
        assert isinstance(item, discord.ui.Button) and item.custom_id is not None
        return cls(item.custom_id, label=item.label or "·", style=item.style)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await dispatch(interaction, GeneralsCog, lambda cog: cog.on_button(interaction, self.game_id, self.verb),
                       game_id=self.game_id)


class GeneralsMoveButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=ui.MOVE_TEMPLATE):
    """A direction button: which game, the move count it was drawn at, and the move."""

    def __init__(self, custom_id: str, *, label: str = "·",
                 style: discord.ButtonStyle = discord.ButtonStyle.primary, row: int | None = None) -> None:
        super().__init__(discord.ui.Button(label=label, style=style, custom_id=custom_id, row=row))
        match = re.fullmatch(ui.MOVE_TEMPLATE, custom_id)
        assert match is not None, custom_id
        self.game_id, self.ply, self.move = int(match["game"]), int(match["ply"]), str(match["move"])

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> GeneralsMoveButton:
        assert isinstance(item, discord.ui.Button) and item.custom_id is not None
        return cls(item.custom_id, label=item.label or "·", style=item.style)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await dispatch(interaction, GeneralsCog,
                       lambda cog: cog.play(interaction, self.game_id, self.move, self.ply, from_command=False),
                       game_id=self.game_id)


class GeneralsSelect(discord.ui.DynamicItem[discord.ui.Select[Any]], template=ui.SELECT_TEMPLATE):
    """The formation menu of the setup, the piece menu of play, and the saved-formation menu to delete from."""

    def __init__(self, custom_id: str, *, options: list[discord.SelectOption] | None = None,
                 placeholder: str | None = None, row: int | None = None) -> None:
        super().__init__(discord.ui.Select(custom_id=custom_id, options=options or [], placeholder=placeholder,
                                           row=row))
        match = re.fullmatch(ui.SELECT_TEMPLATE, custom_id)
        assert match is not None, custom_id
        self.game_id, self.what = int(match["game"]), str(match["what"])
        self.ply = int(match["ply"]) if match["ply"] else None

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> GeneralsSelect:
        assert isinstance(item, discord.ui.Select) and item.custom_id is not None
        return cls(item.custom_id, options=item.options, placeholder=item.placeholder)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        values = list(self.item.values)
        await dispatch(interaction, GeneralsCog, lambda cog: cog.on_select(interaction, self, values),
                       game_id=self.game_id)


@dataclass(frozen=True)
class Drawing:
    """One board ready to send: the embed, its controls, and the picture (None: the text board is in the embed)."""

    embed: discord.Embed
    view: discord.ui.View | None
    image: bytes | None
    key: str  # what it was drawn from: an unchanged key means an unchanged message

    def file(self) -> discord.File | None:
        if self.image is None:
            return None
        return discord.File(io.BytesIO(self.image), filename=ui.IMAGE_NAME)

    def attachments(self) -> list[discord.File]:
        file = self.file()
        return [file] if file is not None else []


class GeneralsCog(GameCogBase, commands.GroupCog, group_name="generals",
                  group_description="Play Game of the Generals (Salpakan)"):
    __cog_name__ = "Game of the Generals"
    DYNAMIC_ITEMS = (GeneralsButton, GeneralsMoveButton, GeneralsSelect)
    FORM_TEMPLATES = (ui.MODAL_TEMPLATE,)  # answered by on_interaction below
    title = "Game of the Generals"
    components_in_dms = True  # private boards live in the players' DMs

    kind = KIND

    def __init__(self, bot: Any) -> None:
        super().__init__(bot)
        self.formations = FormationStore(bot.db)
        self.private_boards = PrivateBoardStore(bot.db)
        self._drawn: dict[int, str] = {}  # message id -> key of what it shows (skips edits that change nothing)
        self._started: set[int] = set()  # games whose start was announced (a restart may announce it again)

    # ----- commands ---------------------------------------------------------------------------------------
    @app_commands.command(name="challenge", description="Challenge someone to Game of the Generals, or play me")
    @app_commands.describe(
        opponent="Who to play; leave empty to play against me",
        level="How well I play when you play me (default: strong)",
        settings="Rule settings separated by spaces, e.g. 'reveal-winner small-army' (see the rules)",
        turn_minutes="Minutes per turn (and for the setup) before a forfeit (default: the bot's TURN_TIMEOUT)",
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
        vs_bot = rival.bot is not None
        names = [n for n in re.split(r"[\s,]+", settings.strip().lower()) if n]
        options: dict[str, Any] = {"variants": names} if names else {}
        game = await self.service.create(
            KIND, guild_id=interaction.guild_id, channel_id=interaction.channel_id or 0,
            players=[Player(user_id=me.id), rival], options=options, challenge=not vs_bot,
            turn_timeout=await self.new_game_timeout(interaction, turn_minutes),
        )
        if vs_bot:
            drawing = await self._channel_drawing(game, _state(game).public_view(), await self._images_on(game))
            response = await interaction.response.send_message(
                content=ui.channel_content(game, self._bot_id), embed=drawing.embed,
                view=drawing.view or discord.utils.MISSING, files=drawing.attachments(),
                allowed_mentions=discord.AllowedMentions.none(),
            )
        else:
            assert opponent is not None
            response = await interaction.response.send_message(
                content=f"<@{opponent.id}>, you have been challenged to Game of the Generals!",
                embed=ui.challenge_embed(game, self._bot_id, _settings(game).names()),
                view=ui.challenge_view(game, GeneralsButton),
                allowed_mentions=discord.AllowedMentions(users=[discord.Object(opponent.id)]),
            )
        if response.message_id is not None:
            game = await self.service.set_message(game.id, response.message_id)
            if vs_bot:
                self._remember(response.message_id, drawing.key)
        if vs_bot:
            await self._open_private_boards(game.id)

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
        found = await self._my_game(interaction, game)
        await self._show_private(interaction, found.id, edit=False)

    @app_commands.command(name="move", description="Move one of your pieces, e.g. e3-e4 (a step onto an enemy "
                                                   "piece challenges it)")
    @app_commands.describe(move="From-to, like e3-e4: start typing a square to see your moves",
                           game="Game number, if you play several")
    async def move(self, interaction: discord.Interaction[Any], move: app_commands.Range[str, 1, 100],
                   game: int | None = None) -> None:
        found = await self._my_game(interaction, game)
        await self.play(interaction, found.id, move, None, from_command=True)

    @move.autocomplete("move")
    async def _complete_move(self, interaction: discord.Interaction[Any],
                             current: str) -> list[app_commands.Choice[str]]:
        """The user's own legal moves, labelled with their own pieces (nothing if it is not their turn)."""
        try:
            found = await self._my_game(interaction, _int_or_none(interaction.namespace.game))
        except ServiceError:
            return []
        seat = found.seat_of(interaction.user.id)
        assert seat is not None
        view = _state(found).view_for(seat)
        if view.phase != PLAY or view.to_move != seat:
            return []
        typed = current.strip().lower().replace(" ", "-")
        moves = [text for text in view.legal if text.startswith(typed) or typed in ui.move_label(view, text).lower()]
        if len(moves) > 25 and "-" not in typed:  # too many: one choice per piece, then its moves
            pieces = [(square, rank, targets) for square, rank, targets in ui.movable_pieces(view)
                      if square.startswith(typed)]
            return [app_commands.Choice(name=f"{square}: {rank.title} → {', '.join(targets)} "
                                             "(type the target)"[:100], value=f"{square}-{targets[0]}")
                    for square, rank, targets in pieces][:25]
        return [app_commands.Choice(name=ui.move_label(view, text)[:100], value=text) for text in moves][:25]

    @app_commands.command(name="replay", description="Step through a Game of the Generals game; ranks show once "
                                                     "it is over")
    @app_commands.describe(game="The game's number (see /history)", move="Start at this move (default: the end)")
    async def replay(self, interaction: discord.Interaction[Any], game: int,
                     move: app_commands.Range[int, 0, 100000] | None = None) -> None:
        found = await self.service.load(game)
        if found.record.kind != KIND:
            raise ServiceError(f"Game #{game} is not a Game of the Generals game; use /replay.")
        from bot.cogs.replay import ReplayCog

        cog = self.bot.get_cog(ReplayCog.__cog_name__)
        if not isinstance(cog, ReplayCog):
            raise ServiceError("Replays are not available on this bot right now.")
        embed, view = await cog.frame(game, move)
        await interaction.response.send_message(embed=embed, view=view, ephemeral=True,
                                                allowed_mentions=discord.AllowedMentions.none())

    @app_commands.command(name="rules", description="How Game of the Generals is played here, and its settings")
    async def rules(self, interaction: discord.Interaction[Any]) -> None:
        lines = [
            "Two armies of 21 pieces, set up in secret on a 9 by 8 board. Pieces step one square forward, back or "
            "sideways; stepping onto an enemy piece is a **challenge**, which I judge without telling anyone the "
            "ranks: higher rank wins, equal ranks both go, the Spy beats every officer but loses to the Private, "
            "and any piece captures the Flag.",
            "**You win** by capturing the enemy Flag, or by bringing your own Flag to the far side (if an enemy "
            "piece stands next to it there, it must survive one more reply).",
            "", "**Settings** for `/generals challenge settings:`",
            "`flag-rush-immediate`: a Flag on the far side wins at once.",
            "`flag-rush-always-wait`: it always waits for one reply.",
            "`reveal-winner`: the loser of a challenge learns the winner's rank.",
            "`show-flag`: Flags are visible to both players.",
            "`small-army`: a smaller army for quicker games.",
            "`no-challenge-draw=N`: N moves in a row without a challenge draw the game.",
        ]
        await interaction.response.send_message(
            embed=discord.Embed(title="Game of the Generals", description="\n".join(lines), colour=ui.COLOUR),
            ephemeral=True)

    async def _my_game(self, interaction: discord.Interaction[Any], game_id: int | None) -> Game:
        """The user's game: by number, or the one they play in this channel (in a DM: anywhere)."""
        place = interaction.channel_id if interaction.guild_id is not None else None
        game = await self.service.find_game(KIND, interaction.user.id, place, game_id)
        if interaction.guild_id is not None and game.record.guild_id != interaction.guild_id:
            raise ServiceError(f"Game #{game.id} is played in another server; use its channel or our DMs.")
        return game

    # ----- components -------------------------------------------------------------------------------------
    async def on_button(self, interaction: discord.Interaction[Any], game_id: int, verb: str) -> None:
        user = interaction.user.id
        if verb == "accept":
            game = await self.service.accept(game_id, user, interaction.message.id if interaction.message else None)
            await self._edit_channel_message(interaction, game)
            await self._open_private_boards(game.id)
        elif verb == "decline":
            game = await self.service.decline(game_id, user)
            await interaction.response.edit_message(
                content=None, embed=ui.challenge_embed(game, self._bot_id, _settings(game).names()), view=None)
        elif verb == "board":
            await self._show_private(interaction, game_id, edit=False)
        elif verb == "dm":
            game = await self.service.require_player(game_id, user)
            seat = game.seat_of(user)
            assert seat is not None
            await self.private_boards.forget(game_id, seat)
            await interaction.response.defer(ephemeral=True, thinking=True)
            await self._open_private_boards(game_id, announce_failure=False)
            board = await self.private_boards.get(game_id, seat)
            text = ("Sent: your board is in our DMs now, and I keep it up to date there." if board and board.delivered
                    else f"I still cannot DM you. To fix it: {OPEN_DMS}, then try again.")
            await interaction.followup.send(text, ephemeral=True)
        elif verb == "draw":
            game, drawn = await self.service.offer_draw(game_id, user)
            text = "The game is drawn by agreement." if drawn else "You offered a draw; your opponent can accept it."
            await interaction.response.send_message(text, ephemeral=True)
            await self.bot.redraw(game.id)
        elif verb == "resign":
            await self.service.require_player(game_id, user)
            confirm = discord.ui.View(timeout=None)
            confirm.add_item(GeneralsButton(ui.button_id(game_id, "resign-yes"), label="Yes, resign",
                                            style=discord.ButtonStyle.danger))
            await interaction.response.send_message(f"Resign Game of the Generals #{game_id}? You lose the game.",
                                                    view=confirm, ephemeral=True)
        elif verb == "resign-yes":
            game = await self.service.resign(game_id, user)
            await interaction.response.edit_message(content="You resigned.", view=None)
            await self.bot.redraw(game.id)
        elif verb == "ready":
            await self._setup_action(interaction, game_id, "ready")
        elif verb == "export":
            await self._export(interaction, game_id)
        elif verb in ("swap", "import", "save"):
            await self._open_form(interaction, game_id, verb)
        elif verb == "delete":
            await self._choose_formation_to_delete(interaction, game_id)

    async def on_select(self, interaction: discord.Interaction[Any], select: GeneralsSelect, values: list[str]) -> None:
        if not values:
            raise ServiceError("Choose one of the options.")
        if select.what == "formation":
            await self._deploy_choice(interaction, select.game_id, values[0])
        elif select.what == "piece":
            await self._choose_direction(interaction, select.game_id, values[0], select.ply)
        else:
            await self.service.require_player(select.game_id, interaction.user.id)  # a menu of a player's board
            name = values[0]
            await self.formations.delete(interaction.user.id, KIND, name)
            await interaction.response.edit_message(content=f"Deleted your saved formation **{name}**.", view=None)
            await self._redraw_games_of(interaction.user.id)

    @commands.Cog.listener()
    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        """Our forms (swap, import, save) are answered here from their custom id, so they work after a restart."""
        if interaction.type is not discord.InteractionType.modal_submit or not isinstance(interaction.data, dict):
            return
        match = re.fullmatch(ui.MODAL_TEMPLATE, str(interaction.data.get("custom_id", "")))
        if match is None:
            return
        values = _modal_values(dict(interaction.data))
        game_id, what = int(match["game"]), str(match["what"])
        await dispatch(interaction, GeneralsCog, lambda cog: cog.on_form(interaction, game_id, what, values),
                       game_id=game_id)

    # ----- setup ------------------------------------------------------------------------------------------
    async def _setup_action(self, interaction: discord.Interaction[Any], game_id: int, text: str) -> None:
        """A setup action on the player's own draft; their board answers, then the others are redrawn."""
        game = await self.service.act(game_id, interaction.user.id, text)
        await self._answer_with_private(interaction, game.id)
        await self.bot.redraw(game.id)
        self.bot.bot_turns.schedule(game)

    async def _deploy_choice(self, interaction: discord.Interaction[Any], game_id: int, value: str) -> None:
        game = await self.service.require_player(game_id, interaction.user.id)
        seat = game.seat_of(interaction.user.id)
        assert seat is not None
        settings = _settings(game)
        source, _, name = value.partition(":")
        if source == "f" and name in FORMATIONS:
            grid = formation(name, random.Random(), seat, settings)
        elif source == "s":
            try:
                saved = await self.formations.load(interaction.user.id, KIND, name)
            except FormationError as exc:
                raise ServiceError(str(exc)) from None
            grid = as_owner_sees_it(parse_grid(saved.setup)[0], seat)
        else:
            raise ServiceError("That is not one of the formations on offer; open your board again.")
        await self._setup_action(interaction, game_id, "setup:" + compact(grid))

    async def _open_form(self, interaction: discord.Interaction[Any], game_id: int, what: str) -> None:
        game = await self.service.require_player(game_id, interaction.user.id)
        view = self._view_of(game, interaction.user.id)
        if view.phase != SETUP or view.ready[view.seat]:
            raise ServiceError("Setup tools are for your army before you are ready.")
        modal = discord.ui.Modal(title="Your setup", custom_id=f"ggf:{game_id}:{what}", timeout=900)
        if what == "swap":
            modal.title = "Swap two squares"
            modal.add_item(discord.ui.TextInput(label="Two of your squares, e.g. a1 b2", custom_id="squares",
                                                min_length=4, max_length=12, placeholder="a1 b2"))
        elif what == "import":
            modal.title = "Import a setup grid"
            current = _draft_grid(view)
            modal.add_item(discord.ui.TextInput(
                label="Your grid (3 rows of 9 cells)", custom_id="grid", style=discord.TextStyle.paragraph,
                default=format_grid(current, view.seat) if current else None, max_length=1000,
                placeholder=ui.board_rows_hint(view.seat)[:100]))
        else:
            if not view.own:
                raise ServiceError("Deploy a setup first; then you can save it.")
            modal.title = "Save this setup as a formation"
            modal.add_item(discord.ui.TextInput(label="Name", custom_id="name", min_length=1, max_length=40))
        await interaction.response.send_modal(modal)

    async def on_form(self, interaction: discord.Interaction[Any], game_id: int, what: str,
                      values: dict[str, str]) -> None:
        if what == "swap":
            squares = values.get("squares", "").replace(",", " ").replace("-", " ").split()
            if len(squares) != 2:
                raise ServiceError("Name two of your squares, like `a1 b2`.")
            await self._setup_action(interaction, game_id, f"swap:{squares[0]}-{squares[1]}")
        elif what == "import":
            await self._setup_action(interaction, game_id, "setup:" + values.get("grid", ""))
        else:
            game = await self.service.require_player(game_id, interaction.user.id)
            view = self._view_of(game, interaction.user.id)
            grid = _draft_grid(view)
            if grid is None:
                raise ServiceError("Deploy a setup first; then you can save it.")
            try:
                saved = await self.formations.save(interaction.user.id, KIND, values.get("name", ""),
                                                   compact(as_owner_sees_it(grid, view.seat)), self.service.clock())
            except FormationError as exc:
                raise ServiceError(str(exc)) from None
            await interaction.response.send_message(
                f"Saved as **{saved.name}**: load it from the formation menu in any game (on either side).",
                ephemeral=True)
            await self._redraw_games_of(interaction.user.id)

    async def _redraw_games_of(self, user_id: int) -> None:
        """Redraw every game the user plays: their saved formations are on each of their setup boards."""
        for game_id in await self.service.store.active_games_of(KIND, user_id, None):
            await self.bot.redraw(game_id)

    async def _export(self, interaction: discord.Interaction[Any], game_id: int) -> None:
        game = await self.service.require_player(game_id, interaction.user.id)
        view = self._view_of(game, interaction.user.id)
        grid = _draft_grid(view)
        if grid is None:
            raise ServiceError("There is nothing to export yet: deploy a formation first.")
        await interaction.response.send_message(ui.export_text(format_grid(grid, view.seat), compact(grid)),
                                                ephemeral=True)

    async def _choose_formation_to_delete(self, interaction: discord.Interaction[Any], game_id: int) -> None:
        saved = await self.formations.list(interaction.user.id, KIND)
        if not saved:
            raise ServiceError("You have no saved formations.")
        choose = discord.ui.View(timeout=None)
        choose.add_item(GeneralsSelect(f"ggs:{game_id}:forget", placeholder="Delete which formation?", options=[
            discord.SelectOption(label=f.name[:100], value=f.name[:100]) for f in saved[:25]]))
        await interaction.response.send_message("Which saved formation should I delete?", view=choose,
                                                ephemeral=True)

    # ----- play -------------------------------------------------------------------------------------------
    async def _choose_direction(self, interaction: discord.Interaction[Any], game_id: int, square: str,
                                ply: int | None) -> None:
        game = await self.service.require_turn(game_id, interaction.user.id, ply)
        view = self._view_of(game, interaction.user.id)
        if not any(text.startswith(f"{square}-") for text in view.legal):
            raise ServiceError(f"You have no piece on {square} that can move now; look at your board again.")
        rank = next(p.rank for p in view.own if p.square == square)
        await interaction.response.send_message(
            f"Move your {rank.title} on {square} (⬆ is towards the enemy):",
            view=ui.direction_view(game, view, square, GeneralsMoveButton), ephemeral=True)

    async def play(self, interaction: discord.Interaction[Any], game_id: int, move: str, ply: int | None,
                   *, from_command: bool) -> None:
        try:
            action = parse_action_text(move)
        except GameError as exc:
            raise ServiceError(str(exc)) from None
        if not isinstance(action, Move):  # setup texts belong to the board's setup tools, not to moves
            raise ServiceError("`/generals move` takes a move like e3-e4; set up your army on your board.")
        game = await self.service.act(game_id, interaction.user.id, action.text(), expected_ply=ply)
        said = ui.mover_result(self._view_of(game, interaction.user.id))
        if from_command:
            await interaction.response.send_message(said, ephemeral=True)
        else:
            await interaction.response.edit_message(content=said, view=None)
        await self.bot.redraw(game.id)
        self.bot.bot_turns.schedule(game)

    # ----- drawing ----------------------------------------------------------------------------------------
    def _remember(self, message_id: int, key: str) -> None:
        if len(self._drawn) > 10_000:  # only a cache: forgetting costs one redundant edit
            self._drawn.clear()
        self._drawn[message_id] = key

    def _view_of(self, game: Game, user_id: int) -> PlayerView:
        seat = game.seat_of(user_id)
        if seat is None:
            raise ServiceError("You are not playing in this game. Start your own with /generals challenge.")
        return _state(game).view_for(seat)

    async def _images_on(self, game: Game) -> bool:
        if game.record.guild_id is None:
            return True
        images: bool = (await self.bot.server_settings.get(game.record.guild_id)).images
        return images

    async def _picture(self, view: PlayerView | PublicView, images: bool) -> tuple[bytes | None, str | None]:
        """The PNG (drawn in a worker thread, off the event loop), or the text board when pictures are off."""
        if not images:
            return None, text_board(view)
        try:
            if isinstance(view, PlayerView):
                return await asyncio.to_thread(render_player_board, view), None
            return await asyncio.to_thread(render_public_board, view), None
        except Exception:  # a picture is a nicety: the text board carries the same information
            log.exception("could not draw a board picture; sending the text board")
            return None, text_board(view)

    async def _channel_drawing(self, game: Game, view: PublicView, images: bool) -> Drawing:
        image, text = await self._picture(view, images)
        return Drawing(ui.channel_embed(game, view, self._bot_id, text),
                       ui.channel_view(game, view, GeneralsButton), image, _channel_key(game, view, images))

    async def _saved_names(self, game: Game, view: PlayerView) -> list[str]:
        """The player's saved formations: only the setup controls offer them, so no query otherwise."""
        user = game.user_at(view.seat)
        if user is None or view.phase != SETUP or view.ready[view.seat]:
            return []
        return [f.name for f in await self.formations.list(user, KIND)]

    async def _private_drawing(self, game: Game, view: PlayerView, saved: list[str], images: bool, *,
                               offer_dm: bool = False) -> Drawing:
        image, text = await self._picture(view, images)
        controls = ui.private_view(game, view, saved, GeneralsButton, GeneralsSelect)
        if offer_dm and game.record.status == "active" and view.outcome is None:
            controls = controls or discord.ui.View(timeout=None)
            controls.add_item(GeneralsButton(ui.button_id(game.id, "dm"), label="Send my board by DM",
                                             style=discord.ButtonStyle.secondary, row=3))
        return Drawing(ui.private_embed(game, view, self._bot_id, text), controls, image,
                       _private_key(game, view, saved, images, offer_dm))

    async def _edit_channel_message(self, interaction: discord.Interaction[Any], game: Game) -> None:
        """Answer a click on the channel message by redrawing it from the latest state."""
        async with self.bot.drawing(game.id) as latest:
            drawing = await self._channel_drawing(latest, _state(latest).public_view(), await self._images_on(latest))
            await interaction.response.edit_message(
                content=ui.channel_content(latest, self._bot_id), embed=drawing.embed, view=drawing.view,
                attachments=drawing.attachments(), allowed_mentions=discord.AllowedMentions.none())
            if interaction.message is not None:
                self._remember(interaction.message.id, drawing.key)

    async def _show_private(self, interaction: discord.Interaction[Any], game_id: int, *, edit: bool) -> Drawing:
        """The player's board as an ephemeral message (My board), from the latest state."""
        async with self.bot.drawing(game_id) as game:
            seat = game.seat_of(interaction.user.id)
            if seat is None:
                raise ServiceError("You are not playing in this game. Start your own with /generals challenge.")
            if game.record.status == "pending":
                raise ServiceError("This game starts once the challenge is accepted.")
            board = await self.private_boards.get(game_id, seat)
            offer_dm = interaction.guild_id is not None and (board is None or not board.delivered)
            view = _state(game).view_for(seat)
            drawing = await self._private_drawing(game, view, await self._saved_names(game, view),
                                                  await self._images_on(game), offer_dm=offer_dm)
            if edit:
                await interaction.response.edit_message(embed=drawing.embed, view=drawing.view,
                                                        attachments=drawing.attachments())
            else:
                await interaction.response.send_message(embed=drawing.embed, view=drawing.view or discord.utils.MISSING,
                                                        files=drawing.attachments(), ephemeral=True)
        return drawing

    async def _answer_with_private(self, interaction: discord.Interaction[Any], game_id: int) -> None:
        """After a setup action: redraw the board the player used (their DM or their ephemeral board); a form
        sent from a board answers with a fresh ephemeral board."""
        message = interaction.message  # set for a click on a board, and for a form opened from one
        if message is None:
            await self._show_private(interaction, game_id, edit=False)
            return
        drawing = await self._show_private(interaction, game_id, edit=True)
        self._remember(message.id, drawing.key)  # when it is the DM board, the redraw that follows can skip it

    async def draw(self, game: Game) -> None:
        """Redraw the channel message and both private boards from what is stored now (under the bot's
        per-game drawing lock); a private board not yet delivered is sent by DM. Unchanged boards are not
        drawn again."""
        images = await self._images_on(game)
        if game.record.message_id is not None:
            channel = self.bot.get_partial_messageable(game.record.channel_id, guild_id=game.record.guild_id)
            message = channel.get_partial_message(game.record.message_id)
            if game.record.status in ("pending", "declined", "expired"):
                await message.edit(content=None, embed=ui.challenge_embed(game, self._bot_id, _settings(game).names()),
                                   view=None)
            else:
                view = _state(game).public_view()
                if self._drawn.get(message.id) != _channel_key(game, view, images):
                    drawing = await self._channel_drawing(game, view, images)
                    try:
                        await message.edit(content=ui.channel_content(game, self._bot_id), embed=drawing.embed,
                                           view=drawing.view, attachments=drawing.attachments(),
                                           allowed_mentions=discord.AllowedMentions.none())
                    except discord.Forbidden:
                        if drawing.image is None:
                            raise
                        # No Attach Files permission in this channel: the text board says the same.
                        drawing = await self._channel_drawing(game, view, images=False)
                        await message.edit(content=ui.channel_content(game, self._bot_id), embed=drawing.embed,
                                           view=drawing.view, attachments=[],
                                           allowed_mentions=discord.AllowedMentions.none())
                    self._remember(message.id, drawing.key)
        if game.record.status in ("active", "finished"):
            await self._draw_private_boards(game, images, announce_failure=True)
        await self._announce_start(game)

    async def _announce_start(self, game: Game) -> None:
        """When both armies are in, say so in the channel and ping the first mover (an edit pings nobody)."""
        state = _state(game)
        last = state.last
        if (state.phase != PLAY or state.ply != 0 or last is None or last.kind != "ready"
                or game.id in self._started or game.record.status != "active"):
            return
        self._started.add(game.id)
        seat = state.current_player()
        user = game.user_at(seat) if seat is not None else None
        who = f"<@{user}> moves first" if user is not None else "I move first"
        channel = self.bot.get_partial_messageable(game.record.channel_id, guild_id=game.record.guild_id)
        await channel.send(f"Game of the Generals #{game.id}: both armies are deployed. {who}.",
                           allowed_mentions=discord.AllowedMentions(users=[discord.Object(user)] if user else []))

    async def _open_private_boards(self, game_id: int, *, announce_failure: bool = True) -> None:
        async with self.bot.drawing(game_id) as game:
            await self._draw_private_boards(game, await self._images_on(game), announce_failure=announce_failure)

    async def _draw_private_boards(self, game: Game, images: bool, *, announce_failure: bool) -> None:
        for seat in (0, 1):
            user = game.user_at(seat)
            if user is None:
                continue
            board = await self.private_boards.get(game.id, seat)
            if board is not None and not board.delivered:
                continue  # the player uses My board (or asks for the DM again)
            view = _state(game).view_for(seat)
            saved = await self._saved_names(game, view)
            drawing: Drawing | None = None
            if board is not None and board.message_id is not None and board.channel_id is not None:
                if self._drawn.get(board.message_id) == _private_key(game, view, saved, images, False):
                    continue
                drawing = await self._private_drawing(game, view, saved, images)
                dm = self.bot.get_partial_messageable(board.channel_id)
                try:
                    await dm.get_partial_message(board.message_id).edit(
                        embed=drawing.embed, view=drawing.view, attachments=drawing.attachments())
                    self._remember(board.message_id, drawing.key)
                    continue
                except discord.NotFound:  # the player deleted it: send a new one
                    pass
                except discord.HTTPException as exc:
                    log.info("could not update the DM board of game %s seat %s: %s", game.id, seat, exc)
                    continue
            if game.record.status != "active":
                continue  # no new DMs for a finished game
            drawing = drawing or await self._private_drawing(game, view, saved, images)
            await self._send_private_board(game, seat, user, drawing, announce_failure)

    async def _send_private_board(self, game: Game, seat: int, user: int, drawing: Drawing,
                                  announce_failure: bool) -> None:
        now = self.service.clock()
        try:
            dm = await self.bot.create_dm(discord.Object(user))
            sent = await dm.send(content=f"Game of the Generals #{game.id}: your board. I keep it up to date here.",
                                 embed=drawing.embed, view=drawing.view or discord.utils.MISSING,
                                 files=drawing.attachments())
        except discord.HTTPException as exc:
            log.info("could not DM user %s for game %s: %s", user, game.id, exc)
            await self.private_boards.set(game.id, seat, None, None, now)
            if announce_failure:
                channel = self.bot.get_partial_messageable(game.record.channel_id, guild_id=game.record.guild_id)
                await channel.send(
                    f"<@{user}>, I could not send you a direct message, so your board for Game of the Generals "
                    f"#{game.id} is not in your DMs. Press **My board** on the game message to set up and play "
                    f"here; only you will see it. {DM_HELP}",
                    allowed_mentions=discord.AllowedMentions(users=[discord.Object(user)]))
            return
        await self.private_boards.set(game.id, seat, dm.id, sent.id, now)
        self._remember(sent.id, drawing.key)

    def replay_embed(self, game: Game) -> discord.Embed:
        """A replay frame: the public board, or every rank once the game is over (never before)."""
        state = _state(game)
        finished = game.record.finished_at is not None
        view = state.hindsight_view() if finished else state.public_view()
        embed = ui.channel_embed(game, view, self._bot_id, text_board(view))
        if not finished:
            embed.description = (embed.description or "") + "\nRanks are shown in replays once the game is over."
        return embed

    # ----- lobby (Generals has only challenges) ----------------------------------------------------------
    def lobby_lines(self, lobby: LobbyRecord) -> list[str]:
        return ["Game of the Generals is for two players: use /generals challenge."]

    def bot_level(self, lobby: LobbyRecord) -> str:
        return DEFAULT_LEVEL

    async def announce_lobby_expired(self, lobby: LobbyRecord) -> None:
        return None

    # ----- timers -----------------------------------------------------------------------------------------
    async def announce_timer(self, event: TimerEvent, game: Game) -> None:
        await self.bot.redraw(game.id)
        channel = self.bot.get_partial_messageable(game.record.channel_id, guild_id=game.record.guild_id)
        if event is TimerEvent.REMINDER:
            seat = game.state.current_player()
            user = game.user_at(seat) if seat is not None else None
            if user is None or game.record.deadline is None:
                return
            what = "finish your setup" if _state(game).phase == SETUP else "move"
            await channel.send(
                f"<@{user}>, please {what} in Game of the Generals #{game.id}: you forfeit "
                f"<t:{int(game.record.deadline)}:R> otherwise.",
                allowed_mentions=discord.AllowedMentions(users=[discord.Object(user)]))
        elif event is TimerEvent.FORFEIT:
            names = [ui.seat_name(game, s, self._bot_id) for s in (0, 1)]
            outcome = game.state.outcome()
            line = ui.outcome_line(outcome.places, outcome.reason, names) if outcome else "time ran out."
            await channel.send(f"Game of the Generals #{game.id}: {line}",
                               allowed_mentions=discord.AllowedMentions.none())


# ----- helpers ---------------------------------------------------------------------------------------------------
def _state(game: Game) -> GeneralsState:
    assert isinstance(game.state, GeneralsState)
    return game.state


def _settings(game: Game) -> Settings:
    return _state(game).settings


def _key(*parts: Any) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


def _channel_key(game: Game, view: PublicView, images: bool) -> str:
    """What the channel board is drawn from: the same key means the same message."""
    return _key(view.to_dict(), game.record.status, game.record.deadline, game.record.draw_offer, images)


def _private_key(game: Game, view: PlayerView, saved: list[str], images: bool, offer_dm: bool) -> str:
    """What a private board is drawn from: the same key means the same message."""
    return _key(view.to_dict(), game.record.status, game.record.deadline, game.record.draw_offer, saved, images,
                offer_dm)


def _int_or_none(value: Any) -> int | None:
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def _draft_grid(view: PlayerView) -> Grid | None:
    """The player's current setup as a grid (from their own view), or None before any deployment."""
    if not view.own:
        return None
    return grid_from_squares({piece.square: piece.rank for piece in view.own}, view.seat)


def _modal_values(data: dict[str, Any]) -> dict[str, str]:
    """custom_id -> value of every text input in a submitted form (rows or labelled components)."""
    values: dict[str, str] = {}

    def walk(components: Any) -> None:
        for component in components or []:
            if not isinstance(component, dict):
                continue
            if "custom_id" in component and isinstance(component.get("value"), str):
                values[str(component["custom_id"])] = component["value"]
            walk(component.get("components"))
            if isinstance(component.get("component"), dict):
                walk([component["component"]])

    walk(data.get("components"))
    return values
