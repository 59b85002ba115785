"""Telling people: a decision is theirs, a lobby's game began, a game ended — from the events the service publishes.

An edited message notifies nobody, so whoever must decide now gets one new message that mentions them (or a
direct message, as they chose with /notifications). Each game keeps at most one live turn notification: the
previous one is deleted when the next is sent and when the game ends, so channels stay clean. A person who keeps
the decision is not told again (the service publishes a decision only when it passes to another seat), a person who
moved in the game within the last minute is at its table and is told only if they leave (no move for a minute), and a
computer seat is never told. While players set up in secret (Generals), their private boards are what tells
them; the start of play is announced once, to the first mover.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.endings import announce_ending
from bot.i18n import Say
from bot.presenter import GamePresenter
from bot.service import DecisionPassed, GameStarted, PlayBegan, Result
from bot.service.locks import KeyedLocks
from bot.service.timers import Fence
from games.text import Text
from storage.notifications import HeldPing, NotificationStore, NotifyMode, TurnPing

log = logging.getLogger(__name__)
AT_TABLE = 60.0  # seconds after their move in a game that a person is taken to be at its table (no turn ping)
MODE_WORDS = {
    NotifyMode.MENTION: Text("a mention in the game's channel or thread"),
    NotifyMode.DM: Text("a direct message"),
    NotifyMode.OFF: Text("nothing (the reminder before a forfeit still comes)"),
}


class Notifier:
    """Listens to the service (`service.listeners`) and sends the notifications its events call for."""

    def __init__(self, bot: Any, store: NotificationStore) -> None:
        self.bot = bot
        self.store = store
        self._locks = KeyedLocks()  # one game's notifications are sent in the order of its changes

    async def on_result(self, result: Result[Any, Any]) -> None:
        try:
            async with self._locks.hold(result.id):
                await self._tell(result)
        except Exception:  # a notification is never worth losing the game over; say so in the log
            log.exception("could not notify the players of game %s", result.id)

    async def _tell(self, result: Result[Any, Any]) -> None:
        presenter: GamePresenter | None = self.bot.presenters.get(result.game.kind)
        if presenter is None:
            return
        ended = result.ended()
        if ended is not None:
            await self._retire(result.id)
            if not ended.by_timer:  # a timer's ending is the timer loop's to send, at least once
                await announce_ending(presenter, result, ended)
            return
        started = next((e for e in result.events if isinstance(e, GameStarted)), None)
        began = next((e for e in result.events if isinstance(e, PlayBegan)), None)
        decision = next((e for e in result.events if isinstance(e, DecisionPassed)), None)
        if started is not None:
            await self._announce_start(presenter, result, started, decision)
        elif began is not None:
            text = presenter.play_began_text(result, began.user_id)
            # Announced to the channel either way; its first mover is mentioned only if they are not at the table.
            quiet = began.user_id is not None and await self._held_back(result, DecisionPassed(began.seat,
                                                                                                began.user_id))
            await self._ping(presenter, result, began.user_id, text, announcement=True, quiet=quiet)
        elif decision is not None and decision.user_id is not None and result.game.began:
            live: list[TurnPing | None] = []
            if await self._held_back(result, decision, live):
                return
            await self._ping(presenter, result, decision.user_id, await presenter.turn_notice(result, decision.seat),
                             live=live)

    async def _held_back(self, result: Result[Any, Any], decision: DecisionPassed,
                         live: list[TurnPing | None] | None = None) -> bool:
        """Whether the decider moved in this game within `AT_TABLE` seconds: they are at the table, looking at the
        board, and a ping would only interrupt them (against the computer, after every one of its replies). Their
        notification is then held back until a minute after that move, and sent then by the timer loop if the decision
        is still theirs (they left), once, like the turn timers' announcements (bot/service/game_timers.py). The
        game's live notification, which names someone no longer deciding, is retired now. It is read with the
        decider's last move: when the notification is not held back, it is put in `live` for `_ping` to replace."""
        assert decision.user_id is not None
        service = self.bot.service
        moved_at, ping = await self.store.last_move_and_live_ping(result.id, decision.user_id)
        if moved_at is None or service.clock() - moved_at >= AT_TABLE:
            if live is not None:
                live.append(ping)
            return False
        await self._retire(result.id, [ping])
        await self.store.hold_ping(HeldPing(result.id, decision.user_id, decision.seat, result.game.turn_token,
                                                moved_at + AT_TABLE))
        service.timers_changed.at(moved_at + AT_TABLE)  # it replaced the game's held ping, if any: nothing else moved
        return True

    async def send_held(self, presenter: GamePresenter, result: Result[Any, Any], fence: Fence) -> None:
        """The turn notification held back while its person was at the table: they have not moved for a minute
        (sent only if `fence` still holds right before it: this process still holds the announcement)."""
        seat = result.game.to_decide
        user = result.game.user_at(seat) if seat is not None else None
        if seat is None or user is None:
            return
        async with self._locks.hold(result.id):
            await self._ping(presenter, result, user, await presenter.turn_notice(result, seat), fence=fence)

    async def _announce_start(self, presenter: GamePresenter, result: Result[Any, Any], started: GameStarted,
                              decision: DecisionPassed | None) -> None:
        """A lobby's game began: one message for the table, mentioning those who want mentions (it is also the
        first decider's turn notification); those who chose direct messages get one."""
        modes = {user: await self.store.mode(user) for user in started.user_ids}
        first = decision.user_id if decision is not None else None
        seat = decision.seat if decision is not None else result.game.to_decide
        people = ", ".join(f"<@{u}>" for u in started.user_ids)
        if seat is not None:
            text = Text("{game} #{number} has begun: {people}. {first} decides first.", game=presenter.title,
                        number=result.id, people=people, first=presenter.seat_name(result, seat))
        else:
            text = Text("{game} #{number} has begun: {people}.", game=presenter.title, number=result.id,
                        people=people)
        text = _linked(presenter, result, text)
        mentioned = [u for u in started.user_ids if modes[u] is NotifyMode.MENTION]
        await self._retire(result.id)
        say = await presenter.public_say(result)
        sent = await presenter.channel(result, talk=True).send(
            say(text), allowed_mentions=discord.AllowedMentions(users=[discord.Object(u) for u in mentioned]))
        if first is not None:
            await self.store.set_live_ping(TurnPing(result.id, first, sent.channel.id, sent.id), time.time())
        for user in started.user_ids:
            if modes[user] is NotifyMode.DM:
                await self._direct(presenter, user, text)

    async def _ping(self, presenter: GamePresenter, result: Result[Any, Any], user: int | None, text: Text, *,
                    announcement: bool = False, fence: Fence | None = None, quiet: bool = False,
                    live: list[TurnPing | None] | None = None) -> None:
        """Replace the game's live notification with `text` for `user` (None: a computer, told nothing), by the way
        they chose. An `announcement` is posted in the channel even when its person wants no mention (or is at the
        table: `quiet`). With `fence`, nothing is sent unless it holds right before. `live`: the live notification
        as just read (none: read here)."""
        mode = await self.store.mode(user) if user is not None and not quiet else NotifyMode.OFF
        if mode is NotifyMode.OFF and not announcement:
            return
        if fence is not None and not await fence():
            return
        await self._retire(result.id, live)
        text = _linked(presenter, result, text)
        if mode is NotifyMode.DM and user is not None and await self._direct(presenter, user, text) is not None:
            if not announcement:
                return
            mode = NotifyMode.OFF  # told by DM: the channel's announcement need not mention them again
        mentions = [discord.Object(user)] if user is not None and mode is NotifyMode.MENTION else []
        say = await presenter.public_say(result)
        sent = await presenter.channel(result, talk=True).send(
            say(text), allowed_mentions=discord.AllowedMentions(users=mentions))
        if user is not None:
            await self.store.set_live_ping(TurnPing(result.id, user, sent.channel.id, sent.id), time.time())

    async def _direct(self, presenter: GamePresenter, user: int, text: Text) -> discord.Message | None:
        """A direct message in the person's language, or None when it cannot be delivered (the caller falls back
        to the channel)."""
        try:
            say = await presenter.say_to(user)
            channel = await self.bot.create_dm(discord.Object(user))
            sent: discord.Message = await channel.send(say(text))
            return sent
        except discord.HTTPException as exc:
            log.info("could not DM user %s a notification: %s", user, exc)
            return None

    async def _retire(self, game_id: int, live: list[TurnPing | None] | None = None) -> None:
        """Delete the game's live turn notification, if any (it may already be gone); `live`: it as just read (none:
        read here)."""
        ping = live[0] if live else await self.store.live_ping(game_id)
        if ping is None:
            return
        await self.store.forget_live_ping(game_id)
        try:
            await self.bot.get_partial_messageable(ping.channel_id).get_partial_message(ping.message_id).delete()
        except discord.HTTPException as exc:
            log.info("could not delete the old turn notification of game %s: %s", game_id, exc)


def _linked(presenter: GamePresenter, result: Result[Any, Any], text: Text) -> Text:
    url = presenter.jump_url(result)
    return Text("{text} Board: {url}", text=text, url=url) if url else text


class NotificationsCog(commands.Cog, name="Notifications"):
    def __init__(self, bot: Any, store: NotificationStore) -> None:
        self.bot = bot
        self.store = store

    @app_commands.command(name="notifications", description="How I tell you that it is your move")
    @app_commands.describe(how="A mention in the game's channel (default), a direct message, or nothing")
    @app_commands.choices(how=[app_commands.Choice(name="mention me in the game's channel", value="mention"),
                               app_commands.Choice(name="send me a direct message", value="dm"),
                               app_commands.Choice(name="do not tell me", value="off")])
    async def notifications(self, interaction: discord.Interaction[Any], how: str | None = None) -> None:
        user = interaction.user.id
        if how is None:
            mode = await self.store.mode(user)
            text = Text("When it is your move I send you {what}. Change it with `/notifications how:`.",
                        what=MODE_WORDS[mode])
        else:
            mode = NotifyMode(how)
            await self.store.set_mode(user, mode, time.time())
            text = Text("Saved: when it is your move I send you {what}.", what=MODE_WORDS[mode])
        await interaction.response.send_message(Say.to(interaction)(text), ephemeral=True)
