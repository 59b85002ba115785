"""Private boards: each player's own board, delivered only to that player.

The bot DMs each player their board and keeps it up to date; if the DM cannot be delivered, the player is told
in the channel and uses **My board** (the same board and controls, ephemerally) until they ask for the DM again
with **Send my board by DM**. That notice is removed as soon as the player has their board (they opened My board,
or asked for the DM), or else when the game ends: it is there to tell them where their board is, and once they know
(or the game is over) it would only clutter the channel. A board is drawn only from its owner's `OwnView` and sent
only to `own.user_id`. Messages already showing what would be drawn are not edited again (bot/drawn.py); a board
drawn with a chosen piece (see play.py) has its own key, so the next redraw of that message always replaces it.

An ephemeral board can be edited only through the token of the interaction whose response it is, for 15 minutes.
The latest one of each player is remembered with that token (`LiveBoard`, renewed by every click on it) and
redrawn with the DM board; it says until when it is kept current (a Discord timestamp, which reads "… ago" once
that has passed), so a board the bot can no longer edit never looks current. A player who plays without DMs and
whose board has lapsed is told to open it again by their turn notification (`board_hint`).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import discord
from discord.http import Route, handle_message_parameters

from bot.delivery import Delivery
from bot.drawn import Board, DrawnBoards
from bot.games.generals.board import GeneralsResult, own_seat
from bot.games.generals.components import SendByDmButton
from bot.games.generals.own_board import private_controls, private_embed, selectable_piece
from bot.games.generals.pictures import picture
from bot.i18n import Languages, Say
from bot.presenter import NamesSeats, seat_names
from bot.service import GameInfo, GameService, OwnView, ServiceError
from bot.service.tasks import background
from games.generals.views import PlayerView, PublicView
from games.text import Text, TextIn
from storage.private_boards import CLAIM_LEASE, LiveBoard, PrivateBoard, PrivateBoardStore

log = logging.getLogger(__name__)
OPEN_DMS = Text("in this server's menu open **Privacy Settings** and allow **Direct Messages** from server members "
                "(and do not block me)")
DM_HELP = Text("To get it by DM instead: {open_dms}, then press **My board** → **Send my board by DM**.",
               open_dms=OPEN_DMS)
TOKEN_LIFETIME = 15 * 60.0  # seconds Discord honours an interaction's token
TOKEN_MARGIN = 30.0  # stop editing a little early: an edit sent at the last second may arrive too late


def _key(*parts: Any) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


def channel_key(game: GameInfo, view: PublicView, images: bool, *, language: str) -> str:
    """What the channel board is drawn from (in the server's `language`): the same key means the same message."""
    return _key(view.to_dict(), game.status, game.deadline, game.draw_offer, game.draw_declined, images, language)


def private_key(game: GameInfo, view: PlayerView, saved: list[str], images: bool, offer_dm: bool,
                live_until: float | None = None, *, language: str) -> str:
    """What a private board without a pick is drawn from (in its reader's `language`): the same key means the same
    message. (With a pick: this key and `PICKED`.)"""
    return _key(view.to_dict(), game.status, game.deadline, game.draw_offer, game.draw_declined, saved, images,
                offer_dm, live_until, language)


# A board key's ending for the same board with the player's pick (a piece to move, a square to swap) marked on it:
# what every process reads back from `drawn_boards` to know that a redraw of the plain board would only wipe the pick.
PICKED = "/picked:"


def live_line(until: float) -> Text:
    """What an ephemeral board says of itself: until when the bot keeps it current."""
    return Text("🔄 Kept up to date until <t:{until}:t>; after that, press **My board** on the game "
                "message for a fresh one.", until=int(until))


def dm_line(game_id: int) -> Text:
    """The words above a DM board."""
    return Text("Game of the Generals #{number}: your board. I keep it up to date here.", number=game_id)


def is_ephemeral(message: discord.Message | None) -> bool:
    return message is not None and message.flags.ephemeral


# The player's saved formations offered on their board (setup.py `saved_names`).
SavedNames = Callable[[int, PlayerView], Awaitable[list[str]]]


class BoardsHost(NamesSeats, Protocol):
    """What private boards ask of their game's presenter (presenter.py `GeneralsPresenter`): its languages, channel and
    picture setting."""

    async def images_on(self, result: GeneralsResult) -> bool: ...

    async def say_to(self, user_id: int) -> Say: ...

    async def public_say(self, result: GeneralsResult) -> Say: ...

    def channel(self, result: GeneralsResult, *, talk: bool = False) -> discord.PartialMessageable: ...


class PrivateBoards:
    """Draws and delivers the players' own boards (DM, or the ephemeral My board)."""

    def __init__(self, store: PrivateBoardStore, *, host: BoardsHost, client: discord.Client, service: GameService,
                 delivery: Delivery, drawn: DrawnBoards, languages: Languages, saved_names: SavedNames) -> None:
        self.store = store
        self.host = host
        self.client = client  # the bot's connection to Discord: DMs, and edits through a stored token
        self.service = service
        self.delivery = delivery  # the bot's drawing lock and redraw
        self.drawn = drawn  # the bot's, shared with the channel board and restarts
        self.languages = languages
        self.saved_names = saved_names
        self._looking: dict[int, asyncio.Task[None]] = {}  # game -> a later look at a DM another sender claimed

    async def drawing(self, result: GeneralsResult, own: OwnView[PlayerView], saved: list[str], images: bool,
                      say: Say, *, offer_dm: bool = False, selected: str | None = None,
                      live_until: float | None = None) -> Board:
        """`own`'s board in their language (`say`): their embed, their controls and their picture; `selected` is
        the square of the piece they chose to move (dropped if it can no longer move); `live_until`: an ephemeral
        board kept current until then."""
        game, view = result.game, own.view
        selected = selectable_piece(view, selected)
        image, text = await picture(view, images, selected=selected, language=say.language)
        controls = private_controls(game, view, saved, say, selected, room_for_dm=offer_dm)
        if offer_dm and game.status == "active" and view.outcome is None:
            controls = controls or discord.ui.View(timeout=None)
            controls.add_item(SendByDmButton.of(game=game.id,
                                                label=say(TextIn("button", "Send my board by DM")),
                                                style=discord.ButtonStyle.secondary, row=4))
        embed = private_embed(game, view, seat_names(self.host, result), text, say, selected)
        if live_until is not None and game.status == "active" and view.outcome is None:
            embed.description = f"{embed.description or ''}\n{say(live_line(live_until))}".strip()
        key = private_key(game, view, saved, images, offer_dm, live_until, language=say.language)
        return Board(None, embed, controls, image, key if selected is None else f"{key}{PICKED}{selected}")

    async def show(self, interaction: discord.Interaction[Any], game_id: int, *, edit: bool,
                   selected: str | None = None, in_hand: GeneralsResult | None = None) -> int | None:
        """The player's board as a new ephemeral message (My board), or the board they used (`edit`), from the
        latest state (`in_hand`, when it is the latest); returns the message's id. An ephemeral board shown this
        way is the one kept current from now on."""
        async with self.delivery.drawing(game_id, in_hand) as result:
            return await self.answer_from(interaction, result, edit=edit, selected=selected)

    async def answer_from(self, interaction: discord.Interaction[Any], result: GeneralsResult, *, edit: bool,
                          selected: str | None = None) -> int | None:
        """`show`, from `result` (the latest position, under the game's drawing lock)."""
        game_id = result.id
        ephemeral = not edit or is_ephemeral(interaction.message)
        live_until = interaction.created_at.timestamp() + TOKEN_LIFETIME if ephemeral else None
        say = Say.to(interaction)
        own = own_seat(result, interaction.user.id)
        if result.game.status == "pending":
            raise ServiceError(Text("This game starts once the challenge is accepted."))
        if result.game.status != "active" and not edit:  # nothing to keep current: its replay shows it all
            raise ServiceError(Text("Game #{number} is over: step through it with `/replay game:{number}`.",
                                    number=game_id))
        stored_of, live_of = await self._rows(game_id)
        stored = stored_of.get(own.seat)
        offer_dm = interaction.guild_id is not None and (stored is None or not stored.delivered)
        saved = await self.saved_names(own.user_id, own.view)
        board = await self.drawing(result, own, saved, await self.host.images_on(result), say,
                                   offer_dm=offer_dm, selected=selected, live_until=live_until)
        if edit:  # a DM board's words are redrawn too (its reader's language may have changed)
            await interaction.response.edit_message(content=None if ephemeral else say(dm_line(game_id)),
                                                    embed=board.embed, view=board.view,
                                                    attachments=board.attachments())
            message_id = interaction.message.id if interaction.message is not None else None
        else:
            response = await interaction.response.send_message(
                embed=board.embed, view=board.view or discord.utils.MISSING, files=board.attachments(),
                ephemeral=True)
            message_id = response.message_id
        if message_id is not None:  # the redraw that follows can skip the board just drawn (or its pick: below)
            self.drawn.remember(message_id, board.key, result.game)
        if live_until is not None and message_id is not None:
            live = LiveBoard(game_id, own.seat, message_id, interaction.token, live_until)
            replaced = await self.store.set_live(live)
            live_of[own.seat] = live  # the drawing that follows keeps this one current
            if replaced is not None:
                await self._retire_live(replaced, say)
        if stored is not None:  # they have their board now: the notice that their DM failed has done its job
            await self._retire_notice(result, stored)
        return message_id

    def shows_pick_of(self, message_id: int, key: str) -> bool:
        """Whether `message_id` shows the board `key` would draw, with the player's pick (a piece to move, a square
        to swap) marked on it: a redraw would only wipe the pick, so none is made. A redraw that finishes after the
        player's next click (they race for the drawing lock) must not undo that click. Read from what is recorded of
        the message (`drawn_boards`, taken in at every drawing), so it holds for a redraw by another process too."""
        shown = self.drawn.get(message_id)
        return shown is not None and shown.startswith(key + PICKED)

    async def answer(self, interaction: discord.Interaction[Any], game_id: int, *, selected: str | None = None,
                     in_hand: GeneralsResult | None = None) -> None:
        """After a setup action, a move or a chosen piece (`selected`): redraw the board the player used (their DM
        or their ephemeral board); a form sent from a board answers with a fresh ephemeral board."""
        await self.show(interaction, game_id, edit=interaction.message is not None, selected=selected,
                        in_hand=in_hand)

    async def answer_with(self, interaction: discord.Interaction[Any], result: GeneralsResult) -> int | None:
        """`answer`, from `result` (the latest position, under the game's drawing lock: bot/delivery.py); returns
        the id of the board message drawn."""
        return await self.answer_from(interaction, result, edit=interaction.message is not None)

    async def refresh_live(self, result: GeneralsResult, own: OwnView[PlayerView], saved: list[str],
                           images: bool, delivered: bool, say: Say, live: LiveBoard | None) -> None:
        """Redraw `own`'s latest ephemeral board, `live` as read for this drawing, through its token (in their
        language, `say`), if Discord still honours it and it shows something else; a lapsed one is forgotten (the turn
        notification then says to open it again)."""
        if live is None:
            return
        if live.expires_at - TOKEN_MARGIN < time.time():
            await self.store.forget_live(result.id, own.seat, live.message_id)
            return
        offer_dm = result.game.guild_id is not None and not delivered
        key = private_key(result.game, own.view, saved, images, offer_dm, live_until=live.expires_at,
                          language=say.language)
        if self.drawn.current(live.message_id, key, result.game) or self.shows_pick_of(live.message_id, key):
            return
        board = await self.drawing(result, own, saved, images, say, offer_dm=offer_dm, live_until=live.expires_at)
        try:
            await self._edit_through(live.token, embed=board.embed, view=board.view, attachments=board.attachments())
        except discord.HTTPException as exc:  # the token lapsed early, or the player dismissed the message
            log.info("could not refresh the ephemeral board of game %s seat %s: %s", result.id, own.seat, exc)
            await self.store.forget_live(result.id, own.seat, live.message_id)
            return
        self.drawn.remember(live.message_id, board.key, result.game)

    async def _rows(self, game_id: int) -> tuple[dict[int, PrivateBoard], dict[int, LiveBoard]]:
        """Every seat's board row and latest ephemeral board, by seat: as read when this drawing of the game began
        (bot/drawn.py `seats`, under its drawing lock), else read now."""
        rows = self.drawn.seats(game_id)
        return rows if rows is not None else await self.store.of_game(game_id)

    async def needs_reopening(self, game_id: int, seat: int) -> bool:
        """For a turn notification: whether the player at `seat` must open My board again to see the new position
        (neither their DM board nor an ephemeral board the bot can still edit shows it)."""
        stored = await self.store.get(game_id, seat)
        if stored is None or stored.delivered:
            return False
        live = await self.store.live(game_id, seat)
        return live is None or live.expires_at - TOKEN_MARGIN < time.time()

    async def _retire_live(self, old: LiveBoard, say: Say) -> None:
        """A newer ephemeral board replaced `old`: say so on `old`, so it does not look current (if still possible)."""
        if old.expires_at - TOKEN_MARGIN < time.time():
            return
        try:
            await self._edit_through(old.token,
                                     content=say(Text("This board is out of date: use the newer one below.")),
                                     embed=None, view=None, attachments=[])
        except discord.HTTPException as exc:
            log.info("could not retire the old ephemeral board of game %s seat %s: %s", old.game_id, old.seat, exc)

    async def _edit_through(self, token: str, **fields: Any) -> None:
        """Edit the response of the interaction whose token this is (`@original`; the edit-message endpoint does
        not reach ephemeral messages). discord.py offers this only on the live Interaction object, which is gone
        after a restart or in another process, so the request is made here from the stored token."""
        bot = self.client
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
        result = await self.service.require_player(game_id, user)
        seat = result.game.seat_of(user)
        assert seat is not None
        stored = await self.store.get(game_id, seat)
        if stored is not None:  # asked from their board: they know where it is, whatever the DM does now
            await self._retire_notice(result, stored)
        await self.store.forget(game_id, seat)
        await interaction.response.defer(ephemeral=True, thinking=True)
        await self.languages.saw(interaction)  # the DM is written in the language of this click
        await self.open(game_id, announce_failure=False)
        stored = await self.store.get(game_id, seat)
        text = (Text("Sent: your board is in our DMs now, and I keep it up to date there.")
                if stored and stored.delivered
                else Text("I still cannot DM you. To fix it: {open_dms}, then try again.", open_dms=OPEN_DMS))
        await interaction.followup.send(Say.to(interaction)(text), ephemeral=True)

    async def open(self, game_id: int, *, announce_failure: bool = True) -> None:
        """Deliver the private boards of a game that just started (or whose player asked for the DM again)."""
        async with self.delivery.drawing(game_id) as result:
            await self.draw_all(result, await self.host.images_on(result), announce_failure=announce_failure)

    async def draw_all(self, result: GeneralsResult, images: bool, *, announce_failure: bool) -> None:
        """Bring every player's DM board and latest ephemeral board up to date; a board not yet delivered is sent
        by DM (while the game is on)."""
        stored_of, live_of = await self._rows(result.id)  # one read for every seat
        for own in result.private:
            stored = stored_of.get(own.seat)
            saved = await self.saved_names(own.user_id, own.view)
            say = await self.host.say_to(own.user_id)  # their language, as their latest interaction showed it
            # Not when the DM failed: the player uses My board (or asks for the DM again).
            if stored is None or stored.delivered or stored.sending:
                await self._draw_dm(result, own, stored, saved, images, announce_failure, say)
            elif result.game.status != "active":  # the game is over: nobody needs to find their board any more
                await self._retire_notice(result, stored)
            await self.refresh_live(result, own, saved, images, stored is not None and stored.delivered, say,
                                    live_of.get(own.seat))

    async def _draw_dm(self, result: GeneralsResult, own: OwnView[PlayerView], stored: PrivateBoard | None,
                       saved: list[str], images: bool, announce_failure: bool, say: Say) -> None:
        board: Board | None = None
        replacing: int | None = None  # the DM board the player deleted, whose row a new one replaces
        if stored is not None and stored.message_id is not None and stored.channel_id is not None:
            key = private_key(result.game, own.view, saved, images, False, language=say.language)
            if self.drawn.current(stored.message_id, key, result.game) or self.shows_pick_of(stored.message_id, key):
                return
            board = await self.drawing(result, own, saved, images, say)
            dm = self.client.get_partial_messageable(stored.channel_id)
            try:
                await dm.get_partial_message(stored.message_id).edit(  # its words too: the language may have changed
                    content=say(dm_line(result.id)), embed=board.embed, view=board.view,
                    attachments=board.attachments())
                self.drawn.remember(stored.message_id, board.key, result.game)
                return
            except discord.NotFound:  # the player deleted it: send a new one
                replacing = stored.message_id
            except discord.HTTPException as exc:
                log.info("could not update the DM board of game %s seat %s: %s", result.id, own.seat, exc)
                return
        if result.game.status != "active":
            return  # no new DMs for a finished game
        token = await self.store.claim(result.id, own.seat, replacing=replacing)
        if token is None:
            self._look_again(result.id)  # another process is sending it: see that it did (or stopped first)
            return
        board = board or await self.drawing(result, own, saved, images, say)
        await self._send(result, own, board, announce_failure, say, token)

    def _look_again(self, game_id: int) -> None:
        """Draw the game again once a claim on its DM would have lapsed: by then its sender stored the DM (nothing to
        do), or stopped before (the claim is taken over and the DM sent)."""
        if game_id in self._looking:
            return
        self._looking[game_id] = background(self._later(game_id), name=f"dm-claim-{game_id}")

    async def _later(self, game_id: int) -> None:
        try:
            await asyncio.sleep(CLAIM_LEASE + 1.0)
        finally:
            self._looking.pop(game_id, None)
        await self.delivery.redraw(game_id)

    async def stop(self) -> None:
        """Stop waiting to look at claimed DMs again (the bot is stopping)."""
        waiting = list(self._looking.values())
        for task in waiting:
            task.cancel()
        await asyncio.gather(*waiting, return_exceptions=True)

    async def _send(self, result: GeneralsResult, own: OwnView[PlayerView], board: Board,
                    announce_failure: bool, say: Say, token: int) -> None:
        """DM `own`'s board to its owner (in their language, `say`), while this process's claim (`token`) still holds;
        if Discord refuses, remember that and tell them in the channel (in the server's language) how to play
        instead."""
        now = self.service.clock()
        try:
            dm = await self.client.create_dm(discord.Object(own.user_id))
            # The fence, right before the DM: a process paused past its claim finds it taken over, and sends nothing.
            if not await self.store.still_sending(result.id, own.seat, token):
                log.info("the DM board of game %s seat %s is another process's to send now; not sending it",
                         result.id, own.seat)
                return
            sent = await dm.send(content=say(dm_line(result.id)),
                                 embed=board.embed, view=board.view or discord.utils.MISSING,
                                 files=board.attachments())
        except discord.HTTPException as exc:
            log.info("could not DM user %s for game %s: %s", own.user_id, result.id, exc)
            await self.store.set(result.id, own.seat, None, None, now)
            if announce_failure:
                public = await self.host.public_say(result)
                notice = await self.host.channel(result).send(
                    public(Text("<@{user}>, I could not send you a direct message, so your board for Game of the "
                                "Generals #{number} is not in your DMs. Press **My board** on the game message to set "
                                "up and play here; only you will see it. {dm_help}", user=own.user_id,
                                number=result.id, dm_help=DM_HELP)),
                    allowed_mentions=discord.AllowedMentions(users=[discord.Object(own.user_id)]))
                await self.store.keep_notice(result.id, own.seat, notice.id)
            return
        await self.store.set(result.id, own.seat, dm.id, sent.id, now)
        self.drawn.remember(sent.id, board.key, result.game)

    async def _retire_notice(self, result: GeneralsResult, stored: PrivateBoard) -> None:
        """Delete the channel's notice that `stored`'s DM failed, if it is still up (once: whoever forgets it in the
        database deletes it)."""
        notice = stored.notice_id
        if notice is None or not await self.store.clear_notice(result.id, stored.seat, notice):
            return
        rows = self.drawn.seats(result.id)
        if rows is not None:  # the rest of this drawing sees the notice gone
            rows[0][stored.seat] = PrivateBoard(result.id, stored.seat, None, None)
        try:
            await self.host.channel(result).get_partial_message(notice).delete()
        except discord.NotFound:
            pass  # someone (a moderator) deleted it already
        except discord.HTTPException as exc:
            log.info("could not delete the DM notice of game %s seat %s: %s", result.id, stored.seat, exc)
