"""/replay: step through a stored game, position by position, rebuilt from its move log by the service.

What a frame may show is the service's decision (a hidden-information game shows ranks only once it is over; a
secret setup is one step, frame 0, before the moves of play); how it looks is the game's presenter's (`replay_board`;
by default its `replay_embed`). A replay is private; a player of a finished
game may post it to the channel, where its step buttons work for anyone.

Who may see which game: on a server, anyone there may replay that server's games played in a channel they may view
(a thread: its parent; bot/cogs/past_games.py); a player may also replay their own games from anywhere (a channel
they no longer see, another server, DMs), but those from elsewhere only privately, and such a replay is never posted
here. In DMs, only one's own games. Nothing shown names another server. A replay a player posted steps for anyone
in that channel, but only through that game.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.past_games import MAX_CHOICES, game_choices, sees_place
from bot.components import Button, CustomId
from bot.drawn import Board
from bot.i18n import Say
from bot.presenter import GamePresenter
from bot.service import GameInfo, ReplayFrame, Result, ServiceError
from games.base import DRAW_AGREED, MOVE_LIMIT, NO_PERSON_LEFT, RESIGN, TIMEOUT
from games.text import Text

# What a logged meta action (not a move of the game's own) reads as after the player's name.
_META_WORDS: dict[str, Callable[[Text, Text | str], Text]] = {
    RESIGN: lambda head, name: Text("{head}: {name} resigned.", head=head, name=name),
    TIMEOUT: lambda head, name: Text("{head}: {name} ran out of time.", head=head, name=name),
    DRAW_AGREED: lambda head, name: Text("{head}: {name} agreed to a draw.", head=head, name=name),
    NO_PERSON_LEFT: lambda head, name: Text("{head}: no person was left in the game, so it ended.", head=head),
    MOVE_LIMIT: lambda head, name: Text("{head}: the game reached its length limit, so it ended.", head=head),
}


def _played_here(game: GameInfo, interaction: discord.Interaction[Any], *, public: bool, posted: bool = False) -> bool:
    """Whether `game` was played on the server `interaction` comes from (whoever there may view its channel may replay
    it, and a player may post it), or else is the caller's own game from elsewhere, shown to them only (False).
    Refuses everyone else, and refuses to show a game from elsewhere in a server channel's public message. `posted`:
    the step is on a replay of this very game that a player posted in this channel, which anyone here may step."""
    if interaction.guild_id is not None and game.guild_id == interaction.guild_id:
        if not (posted or game.seat_of(interaction.user.id) is not None or sees_place(interaction, game.channel_id)):
            raise ServiceError(Text("Game #{number} was played in a channel you cannot see, so you cannot replay it. "
                                    "You can replay the games of the channels you can see, and your own games.",
                                    number=game.id))
        return True
    if interaction.guild_id is None:
        if game.seat_of(interaction.user.id) is None:
            raise ServiceError(Text("In DMs you can replay only your own games, and you did not play in game "
                                    "#{number}. Replay it in the server where it was played.", number=game.id))
        return False
    if game.seat_of(interaction.user.id) is None:
        raise ServiceError(Text("Game #{number} was not played in this server, so it cannot be replayed here. You "
                                "can replay this server's games, and your own games from anywhere (just for you).",
                                number=game.id))
    if public:
        raise ServiceError(Text("Game #{number} was not played in this server, so its replay is not shown in this "
                                "channel. Use `/replay game:{number}` to see it just for yourself.", number=game.id))
    return False


def _cog(interaction: discord.Interaction[Any]) -> ReplayCog:
    cog = interaction.client.get_cog(ReplayCog.__cog_name__)
    if not isinstance(cog, ReplayCog):
        raise ServiceError(Text("Replays are not available on this bot right now."))
    return cog


# The last part tells the four buttons apart: custom ids in one message must differ even when two buttons
# lead to the same move (first and previous, at move 1).
class ReplayButton(Button, custom_id=CustomId("rp:{game}:{ply}:{which}", game=r"[0-9]{1,18}", which=r"[fpnl]")):
    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        # A posted replay is a channel message: it steps for anyone, and offers no second posting.
        public = interaction.message is not None and not interaction.message.flags.ephemeral
        posted = public and _replay_of(interaction.message) == self.game_id
        board = await _cog(interaction).frame(interaction, self.game_id, self.ply, public=public, posted=posted)
        await interaction.response.edit_message(content=board.content, embed=board.embed, view=board.controls,
                                                attachments=board.attachments(),
                                                allowed_mentions=discord.AllowedMentions.none())


def _replay_of(message: discord.Message | None) -> int | None:
    """The game whose replay `message` shows: the one game every step button on it leads through (None if they
    disagree, as on a tampered message)."""
    games = set()
    for row in message.components if message is not None else ():
        for item in getattr(row, "children", ()):
            custom_id = getattr(item, "custom_id", None)
            if isinstance(custom_id, str) and custom_id.startswith("rp:"):
                try:
                    games.add(int(ReplayButton.custom_id_shape.parse(custom_id)["game"]))
                except ValueError:
                    return None
    return games.pop() if len(games) == 1 else None


class PostReplayButton(Button, custom_id=CustomId("rpp:{game}:{ply}", game=r"[0-9]{1,18}")):
    """Post this frame of a finished game's replay to the channel, for a player of that game."""

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        cog = _cog(interaction)
        game = await cog.bot.service.info(self.game_id)
        if interaction.guild_id is not None and game.guild_id != interaction.guild_id:
            raise ServiceError(Text("Game #{number} was not played in this server, so its replay cannot be posted "
                                    "here; post it from the server where it was played.", number=self.game_id))
        if game.finished_at is None:
            raise ServiceError(Text("Game #{number} is not over yet: its replay can be posted once it has ended.",
                                    number=self.game_id))
        if game.seat_of(interaction.user.id) is None:
            raise ServiceError(Text("Only the players of game #{number} can post its replay; you can still step "
                                    "through it here.", number=self.game_id))
        board = await cog.frame(interaction, self.game_id, self.ply, public=True)
        await interaction.response.send_message(content=board.content, embed=board.embed,
                                                view=board.controls or discord.utils.MISSING, files=board.attachments(),
                                                allowed_mentions=discord.AllowedMentions.none())


class ReplayCog(commands.Cog, name="Replay"):
    def __init__(self, bot: Any) -> None:
        self.bot = bot

    @app_commands.command(name="replay", description="Step through a game move by move")
    @app_commands.describe(game="The game's number (see /history; your own games are suggested)",
                           move="Start at this move (default: the end)")
    async def replay(self, interaction: discord.Interaction[Any], game: int,
                     move: app_commands.Range[int, 0, 100000] | None = None) -> None:
        await self.send_frame(interaction, game, move)

    @replay.autocomplete("game")
    async def _complete_game(self, interaction: discord.Interaction[Any],
                             current: str) -> list[app_commands.Choice[int]]:
        """Your own latest games (only yours: they may be from anywhere, and say so without naming the place)."""
        records = await self.bot.service.history(interaction.user.id, limit=MAX_CHOICES)
        return game_choices(records, interaction, str(current), Say.to(interaction))

    async def send_frame(self, interaction: discord.Interaction[Any], game_id: int, move: int | None) -> None:
        """Answer `interaction` with a private replay of game `game_id` right after `move` moves of play (the count
        players see; None: the end)."""
        board = await self.frame(interaction, game_id, None, move=move)
        await interaction.response.send_message(content=board.content, embed=board.embed,
                                                view=board.controls or discord.utils.MISSING, files=board.attachments(),
                                                ephemeral=True, allowed_mentions=discord.AllowedMentions.none())

    async def frame(self, interaction: discord.Interaction[Any], game_id: int, ply: int | None, *,
                    move: int | None = None, public: bool = False, posted: bool = False) -> Board:
        """Frame `ply` (None: the latest; with `move`, the frame right after that many moves of play), drawn by the
        game's presenter, with the step buttons (and, privately for a finished game played on this server, Post
        publicly); refuses a game that `interaction`'s user may not see there."""
        if not 0 < game_id < 2**63:
            raise ServiceError(Text("There is no game #{number}.", number=game_id))
        frame: ReplayFrame[Any] = await self.bot.service.replay_frame(game_id, ply, move=move)
        here = _played_here(frame.game, interaction, public=public, posted=posted)
        presenter: GamePresenter = self.bot.presenter(frame.game.kind)
        # A posted replay speaks to the channel (the server's language); a private one to its viewer.
        say = Say(await self.bot.languages.public(interaction.guild_id)) if public else Say.to(interaction)
        drawn = await presenter.replay_board(frame, say)
        embed = drawn.embed
        embed.title = say(Text("Replay · {board} · move {ply} of {total}", board=embed.title or "",
                               ply=frame.game.moves_of_play, total=frame.moves))
        controls = discord.ui.View(timeout=None)
        for which, label, target in (("f", "⏮", 0), ("p", "◀", max(frame.ply - 1, 0)),
                                     ("n", "▶", min(frame.ply + 1, frame.total)), ("l", "⏭", frame.total)):
            controls.add_item(ReplayButton.of(game=game_id, ply=target, which=which, label=label,
                                          disabled=target == frame.ply))
        # Post publicly: only to a player of the game (the only ones it is for), never offered and then refused.
        if (not public and here and frame.game.finished_at is not None
                and frame.game.seat_of(interaction.user.id) is not None):
            controls.add_item(PostReplayButton.of(game=game_id, ply=frame.ply, label=say(Text("Post publicly")),
                                              style=discord.ButtonStyle.primary))
        return Board(say(_step_line(presenter, frame)), embed, controls, drawn.image)


def _step_line(presenter: GamePresenter, frame: ReplayFrame[Any]) -> Text:
    """What this frame shows, in words: Move 5 of 23: <@alice> played `AC` (moves of play, as every count of moves
    says: a resignation after move 23 reads "Move 23 of 23: <@bob> resigned.")."""
    head = Text("Move {ply} of {total}", ply=frame.game.moves_of_play, total=frame.moves)
    if frame.last is None:
        if not frame.game.began:
            if frame.game.finished_at is not None:
                return Text("Play never began: the game ended during the setup.")
            return Text("Play has not begun yet: the players are still setting up.")
        if frame.setup_steps:
            return Text("{head}: the setup is done and play begins.", head=head)
        return Text("{head}: the starting position.", head=head)
    seat, action = frame.last
    name = presenter.seat_name(Result(frame.game, frame.view), seat)
    said = _META_WORDS.get(action)
    if said is not None:
        return said(head, name)
    told = presenter.replay_step(frame)
    if told is not None:
        return Text("{head}: {what}.", head=head, what=told)
    return Text("{head}: {name} played `{action}`", head=head, name=name, action=action)


async def setup(bot: Any) -> None:
    await bot.add_cog(ReplayCog(bot))
    bot.add_dynamic_items(ReplayButton, PostReplayButton)
