"""/replay: step through a stored game, position by position, rebuilt from its move log.

Only games whose presenter can draw a replay take part; a hidden-information game must only ever show ranks
after its end, so its presenter decides what a replay may show (Game of the Generals: the public board while the
game runs, every rank once it is over).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any, Protocol

import discord
from discord import app_commands
from discord.ext import commands

from bot.service import Game, ServiceError
from bot.ui.components import dispatch
from games import replay as replay_moves

# The last part tells the four buttons apart: custom ids in one message must differ even when two buttons
# lead to the same move (first and previous, at move 1).
REPLAY_TEMPLATE = r"rp:(?P<game>[0-9]{1,18}):(?P<ply>[0-9]{1,7}):(?P<which>[fpnl])"


class ReplayPresenter(Protocol):
    def replay_embed(self, game: Game) -> discord.Embed: ...


class ReplayButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=REPLAY_TEMPLATE):
    def __init__(self, custom_id: str, *, label: str = "·", disabled: bool = False) -> None:
        super().__init__(discord.ui.Button(label=label, custom_id=custom_id, disabled=disabled,
                                           style=discord.ButtonStyle.secondary))
        match = re.fullmatch(REPLAY_TEMPLATE, custom_id)
        assert match is not None, custom_id
        self.game_id, self.ply = int(match["game"]), int(match["ply"])

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> ReplayButton:
        assert isinstance(item, discord.ui.Button) and item.custom_id is not None
        return cls(item.custom_id, label=item.label or "·")

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        async def show(cog: ReplayCog) -> None:
            embed, view = await cog.frame(self.game_id, self.ply)
            await interaction.response.edit_message(embed=embed, view=view,
                                                    allowed_mentions=discord.AllowedMentions.none())

        await dispatch(interaction, ReplayCog, show)


class ReplayCog(commands.Cog):
    __cog_name__ = "Replay"
    DYNAMIC_ITEMS = (ReplayButton,)

    def __init__(self, bot: Any) -> None:
        self.bot = bot

    @app_commands.command(name="replay", description="Step through a game move by move")
    @app_commands.describe(game="The game's number (see /history)", move="Start at this move (default: the end)")
    async def replay(self, interaction: discord.Interaction[Any], game: int,
                     move: app_commands.Range[int, 0, 100000] | None = None) -> None:
        embed, view = await self.frame(game, move)
        await interaction.response.send_message(embed=embed, view=view, ephemeral=True,
                                                allowed_mentions=discord.AllowedMentions.none())

    async def frame(self, game_id: int, ply: int | None) -> tuple[discord.Embed, discord.ui.View]:
        """The position after `ply` moves (None: the latest), drawn by the game's presenter."""
        game = await self.bot.service.load(game_id)
        presenter: ReplayPresenter | None = self.bot.presenters.get(game.record.kind)
        if presenter is None or not hasattr(presenter, "replay_embed"):
            raise ServiceError("Replays of this game are not available yet.")
        moves = [(m.seat, m.action) for m in await self.bot.service.store.moves(game_id)]
        ply = len(moves) if ply is None else min(ply, len(moves))
        state = replay_moves(game.record.kind, game.record.initial_state, moves[:ply])
        # Shown as a finished picture: no clock and no pending offer belong to a past position.
        record = replace(game.record, deadline=None, draw_offer=None, status="replay")
        embed = presenter.replay_embed(Game(record, state))
        embed.title = f"Replay · {embed.title} · move {ply} of {len(moves)}"
        view = discord.ui.View(timeout=None)
        for which, label, target in (("f", "⏮", 0), ("p", "◀", max(ply - 1, 0)),
                                     ("n", "▶", min(ply + 1, len(moves))), ("l", "⏭", len(moves))):
            view.add_item(ReplayButton(f"rp:{game_id}:{target}:{which}", label=label, disabled=target == ply))
        return embed, view
