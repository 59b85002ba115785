"""Private boards: each player's own board, delivered only to that player.

The bot DMs each player their board and keeps it up to date; if the DM cannot be delivered, the player is told
in the channel and uses **My board** (the same board and controls, ephemerally) until they ask for the DM again
with **Send my board by DM**. A board is drawn only from its owner's `OwnView` and sent only to `own.user_id`.
Messages already showing what would be drawn are not edited again (`Drawn`); a board drawn with a chosen piece
(see play.py) has its own key, so the next redraw of that message always replaces it.

An ephemeral board can be edited only through the token of the interaction whose response it is, for 15 minutes.
The latest one of each player is remembered with that token (`LiveBoard`, renewed by every click on it) and
redrawn with the DM board; it says until when it is kept current (a Discord timestamp, which reads "… ago" once
that has passed), so a board the bot can no longer edit never looks current. A player who plays without DMs and
whose board has lapsed is told to open it again by their turn notification (`board_hint`).
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from typing import TYPE_CHECKING, Any

import discord
from discord.http import Route, handle_message_parameters

from bot.games.generals.board import private_embed, private_view, selectable_piece
from bot.games.generals.components import GeneralsButton
from bot.games.generals.pictures import picture
from bot.presenter import Board, seat_names
from bot.service import GameInfo, OwnView, ServiceError
from games.generals.views import PlayerView, PublicView
from storage.private_boards import LiveBoard, PrivateBoard, PrivateBoardStore

if TYPE_CHECKING:
    from bot.games.generals.presenter import GeneralsPresenter, GeneralsResult

log = logging.getLogger(__name__)
OPEN_DMS = ("in this server's menu open **Privacy Settings** and allow **Direct Messages** from server members "
            "(and do not block me)")
DM_HELP = f"To get it by DM instead: {OPEN_DMS}, then press **My board** → **Send my board by DM**."
TOKEN_LIFETIME = 15 * 60.0  # seconds Discord honours an interaction's token
TOKEN_MARGIN = 30.0  # stop editing a little early: an edit sent at the last second may arrive too late


class Drawn:
    """Which key each message was last drawn from: an unchanged key means an edit would change nothing."""

    LIMIT = 10_000

    def __init__(self) -> None:
        self._keys: dict[int, str] = {}

    def get(self, message_id: int) -> str | None:
        return self._keys.get(message_id)

    def remember(self, message_id: int, key: str) -> None:
        if len(self._keys) > self.LIMIT:  # only a cache: forgetting costs one redundant edit
            self._keys.clear()
        self._keys[message_id] = key


def _key(*parts: Any) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


def channel_key(game: GameInfo, view: PublicView, images: bool) -> str:
    """What the channel board is drawn from: the same key means the same message."""
    return _key(view.to_dict(), game.status, game.deadline, game.draw_offer, images)


def private_key(game: GameInfo, view: PlayerView, saved: list[str], images: bool, offer_dm: bool,
                selected: str | None = None, live_until: float | None = None) -> str:
    """What a private board is drawn from: the same key means the same message."""
    return _key(view.to_dict(), game.status, game.deadline, game.draw_offer, saved, images, offer_dm, selected,
                live_until)


def live_line(until: float) -> str:
    """What an ephemeral board says of itself: until when the bot keeps it current."""
    return (f"🔄 Kept up to date until <t:{int(until)}:t> (<t:{int(until)}:R>); after that, press **My board** "
            "on the game message for a fresh one.")


def is_ephemeral(message: discord.Message | None) -> bool:
    return message is not None and message.flags.ephemeral


class PrivateBoards:
    """Draws and delivers the players' own boards (DM, or the ephemeral My board)."""

    def __init__(self, presenter: GeneralsPresenter, store: PrivateBoardStore) -> None:
        self.presenter = presenter
        self.store = store
        self.drawn = Drawn()

    async def drawing(self, result: GeneralsResult, own: OwnView[PlayerView], saved: list[str], images: bool, *,
                      offer_dm: bool = False, selected: str | None = None, live_until: float | None = None) -> Board:
        """`own`'s board: their embed, their controls and their picture; `selected` is the square of the piece
        they chose to move (dropped if it can no longer move); `live_until`: an ephemeral board kept current until
        then."""
        game, view = result.game, own.view
        selected = selectable_piece(view, selected)
        image, text = await picture(view, images, selected=selected)
        controls = private_view(game, view, saved, selected)
        if offer_dm and game.status == "active" and view.outcome is None:
            controls = controls or discord.ui.View(timeout=None)
            controls.add_item(GeneralsButton.of(game=game.id, verb="dm", label="Send my board by DM",
                                                style=discord.ButtonStyle.secondary, row=4))
        embed = private_embed(game, view, seat_names(self.presenter, result), text, selected)
        if live_until is not None and game.status == "active" and view.outcome is None:
            embed.description = f"{embed.description or ''}\n{live_line(live_until)}".strip()
        return Board(None, embed, controls, image,
                     private_key(game, view, saved, images, offer_dm, selected, live_until))

    async def show(self, interaction: discord.Interaction[Any], game_id: int, *, edit: bool,
                   selected: str | None = None) -> Board:
        """The player's board as a new ephemeral message (My board), or the board they used (`edit`), from the
        latest state. An ephemeral board shown this way is the one kept current from now on."""
        ephemeral = not edit or is_ephemeral(interaction.message)
        live_until = interaction.created_at.timestamp() + TOKEN_LIFETIME if ephemeral else None
        async with self.presenter.bot.drawing(game_id) as result:
            own = self.presenter.own_seat(result, interaction.user.id)
            if result.game.status == "pending":
                raise ServiceError("This game starts once the challenge is accepted.")
            stored = await self.store.get(game_id, own.seat)
            offer_dm = interaction.guild_id is not None and (stored is None or not stored.delivered)
            saved = await self.presenter.setup_tools.saved_names(own.user_id, own.view)
            board = await self.drawing(result, own, saved, await self.presenter.images_on(result), offer_dm=offer_dm,
                                       selected=selected, live_until=live_until)
            if edit:
                await interaction.response.edit_message(embed=board.embed, view=board.view,
                                                        attachments=board.attachments())
                message_id = interaction.message.id if interaction.message is not None else None
            else:
                response = await interaction.response.send_message(
                    embed=board.embed, view=board.view or discord.utils.MISSING, files=board.attachments(),
                    ephemeral=True)
                message_id = response.message_id
            if live_until is not None and message_id is not None:
                self.drawn.remember(message_id, board.key)
                replaced = await self.store.set_live(LiveBoard(game_id, own.seat, message_id, interaction.token,
                                                               live_until))
                if replaced is not None:
                    await self._retire_live(replaced)
        return board

    async def answer(self, interaction: discord.Interaction[Any], game_id: int, *, selected: str | None = None) -> None:
        """After a setup action, a move or a chosen piece (`selected`): redraw the board the player used (their DM
        or their ephemeral board); a form sent from a board answers with a fresh ephemeral board."""
        message = interaction.message  # set for a click on a board, and for a form opened from one
        if message is None:
            await self.show(interaction, game_id, edit=False, selected=selected)
            return
        board = await self.show(interaction, game_id, edit=True, selected=selected)
        self.drawn.remember(message.id, board.key)  # the redraw that follows can skip the board just drawn

    async def refresh_live(self, result: GeneralsResult, own: OwnView[PlayerView], saved: list[str],
                           images: bool, delivered: bool) -> None:
        """Redraw `own`'s latest ephemeral board through its token, if Discord still honours it and it shows
        something else; a lapsed one is forgotten (the turn notification then says to open it again)."""
        live = await self.store.live(result.id, own.seat)
        if live is None:
            return
        if live.expires_at - TOKEN_MARGIN < time.time():
            await self.store.forget_live(result.id, own.seat, live.message_id)
            return
        offer_dm = result.game.guild_id is not None and not delivered
        if self.drawn.get(live.message_id) == private_key(result.game, own.view, saved, images, offer_dm,
                                                          live_until=live.expires_at):
            return
        board = await self.drawing(result, own, saved, images, offer_dm=offer_dm, live_until=live.expires_at)
        try:
            await self._edit_through(live.token, embed=board.embed, view=board.view, attachments=board.attachments())
        except discord.HTTPException as exc:  # the token lapsed early, or the player dismissed the message
            log.info("could not refresh the ephemeral board of game %s seat %s: %s", result.id, own.seat, exc)
            await self.store.forget_live(result.id, own.seat, live.message_id)
            return
        self.drawn.remember(live.message_id, board.key)

    async def board_hint(self, game_id: int, seat: int) -> str:
        """For a turn notification: how the player at `seat` sees the new position — nothing when their DM board
        or their ephemeral board shows it already, else a word to open My board again."""
        stored = await self.store.get(game_id, seat)
        if stored is None or stored.delivered:
            return ""
        live = await self.store.live(game_id, seat)
        if live is not None and live.expires_at - TOKEN_MARGIN >= time.time():
            return ""
        return " Press **My board** on the game message to see your board."

    async def _retire_live(self, old: LiveBoard) -> None:
        """A newer ephemeral board replaced `old`: say so on `old`, so it does not look current (if still possible)."""
        if old.expires_at - TOKEN_MARGIN < time.time():
            return
        try:
            await self._edit_through(old.token, content="This board is out of date: use the newer one below.",
                                     embed=None, view=None, attachments=[])
        except discord.HTTPException as exc:
            log.info("could not retire the old ephemeral board of game %s seat %s: %s", old.game_id, old.seat, exc)

    async def _edit_through(self, token: str, **fields: Any) -> None:
        """Edit the response of the interaction whose token this is (`@original`; the edit-message endpoint does
        not reach ephemeral messages). discord.py offers this only on the live Interaction object, which is gone
        after a restart or in another process, so the request is made here from the stored token."""
        bot = self.presenter.bot
        route = Route("PATCH", "/webhooks/{webhook_id}/{webhook_token}/messages/@original",
                      webhook_id=bot.application_id, webhook_token=token)
        with handle_message_parameters(**fields) as params:
            if params.files:
                await bot.http.request(route, files=params.files, form=params.multipart)
            else:
                await bot.http.request(route, json=params.payload)

    async def send_by_dm(self, interaction: discord.Interaction[Any], game_id: int) -> None:
        """Send my board by DM: try the DM again (the player may have opened their DMs) and say how it went."""
        user = interaction.user.id
        result = await self.presenter.service.require_player(game_id, user)
        seat = result.game.seat_of(user)
        assert seat is not None
        await self.store.forget(game_id, seat)
        await interaction.response.defer(ephemeral=True, thinking=True)
        await self.open(game_id, announce_failure=False)
        stored = await self.store.get(game_id, seat)
        text = ("Sent: your board is in our DMs now, and I keep it up to date there." if stored and stored.delivered
                else f"I still cannot DM you. To fix it: {OPEN_DMS}, then try again.")
        await interaction.followup.send(text, ephemeral=True)

    async def open(self, game_id: int, *, announce_failure: bool = True) -> None:
        """Deliver the private boards of a game that just started (or whose player asked for the DM again)."""
        async with self.presenter.bot.drawing(game_id) as result:
            await self.draw_all(result, await self.presenter.images_on(result), announce_failure=announce_failure)

    async def draw_all(self, result: GeneralsResult, images: bool, *, announce_failure: bool) -> None:
        """Bring every player's DM board and latest ephemeral board up to date; a board not yet delivered is sent
        by DM (while the game is on)."""
        for own in result.private:
            stored = await self.store.get(result.id, own.seat)
            saved = await self.presenter.setup_tools.saved_names(own.user_id, own.view)
            if stored is None or stored.delivered:  # not: the player uses My board (or asks for the DM again)
                await self._draw_dm(result, own, stored, saved, images, announce_failure)
            await self.refresh_live(result, own, saved, images, delivered=stored is not None and stored.delivered)

    async def _draw_dm(self, result: GeneralsResult, own: OwnView[PlayerView], stored: PrivateBoard | None,
                       saved: list[str], images: bool, announce_failure: bool) -> None:
        board: Board | None = None
        if stored is not None and stored.message_id is not None and stored.channel_id is not None:
            if self.drawn.get(stored.message_id) == private_key(result.game, own.view, saved, images, False):
                return
            board = await self.drawing(result, own, saved, images)
            dm = self.presenter.bot.get_partial_messageable(stored.channel_id)
            try:
                await dm.get_partial_message(stored.message_id).edit(
                    embed=board.embed, view=board.view, attachments=board.attachments())
                self.drawn.remember(stored.message_id, board.key)
                return
            except discord.NotFound:  # the player deleted it: send a new one
                pass
            except discord.HTTPException as exc:
                log.info("could not update the DM board of game %s seat %s: %s", result.id, own.seat, exc)
                return
        if result.game.status != "active":
            return  # no new DMs for a finished game
        board = board or await self.drawing(result, own, saved, images)
        await self._send(result, own, board, announce_failure)

    async def _send(self, result: GeneralsResult, own: OwnView[PlayerView], board: Board,
                    announce_failure: bool) -> None:
        """DM `own`'s board to its owner; if Discord refuses, remember that and tell them how to play instead."""
        now = self.presenter.service.clock()
        try:
            dm = await self.presenter.bot.create_dm(discord.Object(own.user_id))
            sent = await dm.send(content=f"Game of the Generals #{result.id}: your board. I keep it up to date here.",
                                 embed=board.embed, view=board.view or discord.utils.MISSING,
                                 files=board.attachments())
        except discord.HTTPException as exc:
            log.info("could not DM user %s for game %s: %s", own.user_id, result.id, exc)
            await self.store.set(result.id, own.seat, None, None, now)
            if announce_failure:
                await self.presenter.channel(result).send(
                    f"<@{own.user_id}>, I could not send you a direct message, so your board for Game of the "
                    f"Generals #{result.id} is not in your DMs. Press **My board** on the game message to set up "
                    f"and play here; only you will see it. {DM_HELP}",
                    allowed_mentions=discord.AllowedMentions(users=[discord.Object(own.user_id)]))
            return
        await self.store.set(result.id, own.seat, dm.id, sent.id, now)
        self.drawn.remember(sent.id, board.key)
