"""Private boards: each player's own board of a game with hidden information, delivered only to that player.

Every game with private boards shares this delivery; the game itself only draws (`DrawsOwnBoards`: a player's own
view in, the message out, with the key it is drawn from). The bot DMs each player their board and keeps it up to
date; if the DM cannot be delivered, the player is told in the channel and uses **My board** (the same board and
controls, ephemerally) until they ask for the DM again with **Send my board by DM**. That notice is removed as soon
as the player has their board (they opened My board, or asked for the DM), or else when the game ends: it is there
to tell them where their board is, and once they know (or the game is over) it would only clutter the channel. A
board is drawn only from its owner's `OwnView` and sent only to `own.user_id`. Messages already showing what would
be drawn are not edited again (bot/drawn.py); a board drawn with the player's pick (a piece to move, a square to
swap) has its own key, so the next redraw of that message always replaces it.

An ephemeral board can be edited only through the token of the interaction whose response it is, for 15 minutes.
The latest one of each player is remembered with that token (`LiveBoard`, renewed by every click on it) and
redrawn with the DM board; it says until when it is kept current (a Discord timestamp, which reads "… ago" once
that has passed), so a board the bot can no longer edit never looks current. A player who plays without DMs and
whose board has lapsed is told to open it again by their turn notification (`needs_reopening`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

import discord
from discord.http import Route, handle_message_parameters

from bot.delivery import Delivery
from bot.drawn import Board, DrawnBoards
from bot.i18n import Languages, Say
from bot.service import GameService, OwnView, Result, ServiceError
from bot.service.tasks import background
from games.registry import describe
from games.text import Command, Text
from storage.private_boards import CLAIM_LEASE, LiveBoard, PrivateBoard, PrivateBoardStore

log = logging.getLogger(__name__)
OPEN_DMS = Text("in this server's menu open **Privacy Settings** and allow **Direct Messages** from server members "
                "(and do not block me)")
DM_HELP = Text("To get it by DM instead: {open_dms}, then press **My board** → **Send my board by DM**.",
               open_dms=OPEN_DMS)
TOKEN_LIFETIME = 15 * 60.0  # seconds Discord honours an interaction's token
TOKEN_MARGIN = 30.0  # stop editing a little early: an edit sent at the last second may arrive too late
# A board key's ending for the same board with the player's pick marked on it: what every process reads back from
# `drawn_boards` to know that a redraw of the plain board would only wipe the pick.
PICKED = "/picked:"
Inputs = TypeVar("Inputs")
PrivateT = TypeVar("PrivateT")


def live_line(until: float) -> Text:
    """What an ephemeral board says of itself (a game's drawing adds it): until when the bot keeps it current."""
    return Text("🔄 Kept up to date until <t:{until}:t>; after that, press **My board** on the game "
                "message for a fresh one.", until=int(until))


def own_seat(result: Result[Any, PrivateT], user_id: int) -> OwnView[PrivateT]:
    """The user's own seat and view in this game; refuses someone who does not play in it."""
    own = next((own for own in result.private if own.user_id == user_id), None)
    if own is None:
        raise ServiceError(Text("You are not playing in this game. Start your own with {command}.",
                                command=Command(describe(result.game.kind).start_command)))
    return own


def is_ephemeral(message: discord.Message | None) -> bool:
    return message is not None and message.flags.ephemeral


@dataclass(frozen=True)
class Where:
    """Where and for whom one player's own board is drawn."""

    say: Say  # its reader's language
    dm: bool = False  # their DM board (with its words above it), else an ephemeral board
    offer_dm: bool = False  # an ephemeral board of a player without the DM offers **Send my board by DM**
    live_until: float | None = None  # an ephemeral board kept current until then
    selected: str | None = None  # the player's pick (a piece to move, a square to swap), marked on it


@dataclass(frozen=True)
class OwnBoard:
    """One player's board as their game draws it: the key it is drawn from (known without drawing) and how to draw
    it (text, embed, controls, picture: `Board`, its key included)."""

    key: str
    draw: Callable[[], Awaitable[Board]]


class DrawsOwnBoards(Protocol[Inputs]):
    """How a game with hidden information draws its players' own boards (its presenter), and what the bot says of
    them in its words."""

    async def own_inputs(self, result: Result[Any, Any], own: OwnView[Any]) -> Inputs:
        """What else one player's board is drawn from (Generals: their saved formations, the server's picture
        setting), read once per drawing of it."""

    def own_board(self, result: Result[Any, Any], own: OwnView[Any], inputs: Inputs, where: Where) -> OwnBoard:
        """`own`'s board from their own view only, drawn `where` says (no I/O: the bot sends it)."""

    def dm_refused(self, result: Result[Any, Any], user_id: int) -> Text:
        """What the channel is told when the bot could not DM `user_id` their board (with `DM_HELP`)."""

    async def say_to(self, user_id: int) -> Say: ...

    async def public_say(self, result: Result[Any, Any]) -> Say: ...

    def channel(self, result: Result[Any, Any], *, talk: bool = False) -> discord.PartialMessageable: ...


class PrivateBoards(Generic[Inputs]):
    """Delivers the players' own boards of a game (DM, or the ephemeral My board), as its presenter draws them."""

    def __init__(self, store: PrivateBoardStore, *, host: DrawsOwnBoards[Inputs], client: discord.Client,
                 service: GameService, delivery: Delivery, drawn: DrawnBoards, languages: Languages) -> None:
        self.store = store
        self.host = host  # the game's presenter: draws each board, names the game's channel and languages
        self.client = client  # the bot's connection to Discord: DMs, and edits through a stored token
        self.service = service
        self.delivery = delivery  # the bot's drawing lock and redraw
        self.drawn = drawn  # the bot's, shared with the channel board and restarts
        self.languages = languages
        self._looking: dict[int, asyncio.Task[None]] = {}  # game -> a later look at a DM another sender claimed

    async def show(self, interaction: discord.Interaction[Any], game_id: int, *, edit: bool,
                   selected: str | None = None, in_hand: Result[Any, Any] | None = None) -> int | None:
        """The player's board as a new ephemeral message (My board), or the board they used (`edit`), from the
        latest state (`in_hand`, when it is the latest); returns the message's id. An ephemeral board shown this
        way is the one kept current from now on."""
        async with self.delivery.drawing(game_id, in_hand) as result:
            return await self.answer_from(interaction, result, edit=edit, selected=selected)

    async def answer_from(self, interaction: discord.Interaction[Any], result: Result[Any, Any], *, edit: bool,
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
        inputs = await self.host.own_inputs(result, own)
        board = await self.host.own_board(result, own, inputs, Where(
            say, dm=not ephemeral, offer_dm=offer_dm, live_until=live_until, selected=selected)).draw()
        if edit:  # a DM board's words are redrawn too (its reader's language may have changed)
            await interaction.response.edit_message(content=board.content, embed=board.embed, view=board.controls,
                                                    attachments=board.attachments())
            message_id = interaction.message.id if interaction.message is not None else None
        else:
            response = await interaction.response.send_message(
                embed=board.embed, view=board.controls or discord.utils.MISSING, files=board.attachments(),
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
                     in_hand: Result[Any, Any] | None = None) -> None:
        """After a setup action, a move or a chosen piece (`selected`): redraw the board the player used (their DM
        or their ephemeral board); a form sent from a board answers with a fresh ephemeral board."""
        await self.show(interaction, game_id, edit=interaction.message is not None, selected=selected,
                        in_hand=in_hand)

    async def answer_with(self, interaction: discord.Interaction[Any], result: Result[Any, Any]) -> int | None:
        """`answer`, from `result` (the latest position, under the game's drawing lock: bot/delivery.py); returns
        the id of the board message drawn."""
        return await self.answer_from(interaction, result, edit=interaction.message is not None)

    async def refresh_live(self, result: Result[Any, Any], own: OwnView[Any], inputs: Inputs, delivered: bool,
                           say: Say, live: LiveBoard | None) -> None:
        """Redraw `own`'s latest ephemeral board, `live` as read for this drawing, through its token (in their
        language, `say`), if Discord still honours it and it shows something else; a lapsed one is forgotten (the turn
        notification then says to open it again)."""
        if live is None:
            return
        if live.expires_at - TOKEN_MARGIN < time.time():
            await self.store.forget_live(result.id, own.seat, live.message_id)
            return
        offer_dm = result.game.guild_id is not None and not delivered
        drawing = self.host.own_board(result, own, inputs, Where(say, offer_dm=offer_dm, live_until=live.expires_at))
        if self.drawn.current(live.message_id, drawing.key, result.game) or self.shows_pick_of(live.message_id,
                                                                                               drawing.key):
            return
        board = await drawing.draw()
        try:
            await self._edit_through(live.token, embed=board.embed, view=board.controls,
                                     attachments=board.attachments())
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
            await self.draw_all(result, announce_failure=announce_failure)

    async def draw_all(self, result: Result[Any, Any], *, announce_failure: bool) -> None:
        """Bring every player's DM board and latest ephemeral board up to date; a board not yet delivered is sent
        by DM (while the game is on)."""
        stored_of, live_of = await self._rows(result.id)  # one read for every seat
        for own in result.private:
            stored = stored_of.get(own.seat)
            inputs = await self.host.own_inputs(result, own)
            say = await self.host.say_to(own.user_id)  # their language, as their latest interaction showed it
            # Not when the DM failed: the player uses My board (or asks for the DM again).
            if stored is None or stored.delivered or stored.sending:
                await self._draw_dm(result, own, stored, inputs, announce_failure, say)
            elif result.game.status != "active":  # the game is over: nobody needs to find their board any more
                await self._retire_notice(result, stored)
            await self.refresh_live(result, own, inputs, stored is not None and stored.delivered, say,
                                    live_of.get(own.seat))

    async def _draw_dm(self, result: Result[Any, Any], own: OwnView[Any], stored: PrivateBoard | None,
                       inputs: Inputs, announce_failure: bool, say: Say) -> None:
        drawing = self.host.own_board(result, own, inputs, Where(say, dm=True))
        board: Board | None = None
        replacing: int | None = None  # the DM board the player deleted, whose row a new one replaces
        if stored is not None and stored.message_id is not None and stored.channel_id is not None:
            if self.drawn.current(stored.message_id, drawing.key, result.game) or self.shows_pick_of(
                    stored.message_id, drawing.key):
                return
            board = await drawing.draw()
            dm = self.client.get_partial_messageable(stored.channel_id)
            try:
                await dm.get_partial_message(stored.message_id).edit(  # its words too: the language may have changed
                    content=board.content, embed=board.embed, view=board.controls,
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
        board = board or await drawing.draw()
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

    async def _send(self, result: Result[Any, Any], own: OwnView[Any], board: Board,
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
            sent = await dm.send(content=board.content,
                                 embed=board.embed, view=board.controls or discord.utils.MISSING,
                                 files=board.attachments())
        except discord.HTTPException as exc:
            log.info("could not DM user %s for game %s: %s", own.user_id, result.id, exc)
            await self.store.set(result.id, own.seat, None, None, now)
            if announce_failure:
                public = await self.host.public_say(result)
                notice = await self.host.channel(result).send(
                    public(self.host.dm_refused(result, own.user_id)),
                    allowed_mentions=discord.AllowedMentions(users=[discord.Object(own.user_id)]))
                await self.store.keep_notice(result.id, own.seat, notice.id)
            return
        await self.store.set(result.id, own.seat, dm.id, sent.id, now)
        self.drawn.remember(sent.id, board.key, result.game)

    async def _retire_notice(self, result: Result[Any, Any], stored: PrivateBoard) -> None:
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
