"""The bot: opens storage, loads the game cogs, registers persistent buttons and syncs commands."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import time
from contextlib import AbstractAsyncContextManager
from typing import Any, TypeVar

import discord
import yarl
from discord import app_commands
from discord.ext import commands

from bot import workers
from bot.components import ClickSlots
from bot.config import Settings
from bot.delivery import Delivery
from bot.drawn import DrawnBoards
from bot.endings import RematchButton, ReplayFromStartButton, announce_ending
from bot.errors import reply_with_error
from bot.i18n import Languages, Say
from bot.lobby import LOBBY_BUTTONS, show_closed
from bot.nonces import post_nonce
from bot.notifications import NotificationsCog, Notifier
from bot.presenter import GamePresenter
from bot.rest_watch import InvalidRequests
from bot.seasons import SeasonEnds
from bot.service import GameService, Result, ServiceError, TimerEvent
from bot.service.computer_turns import ComputerTurns
from bot.service.heartbeat import Heartbeat
from bot.service.lobbies import LobbyService
from bot.service.rematch import Rematch
from bot.service.seasons import Seasons
from bot.service.tasks import background
from bot.service.timers import Fence, TimerLoop, Undeliverable
from bot.settings_memory import RememberedSettings
from bot.translator import CommandTranslator
from bot.validation import TabletopTree, answer_unhandled_component
from games.registry import descriptions
from games.text import Text
from storage import BotStateStore
from storage.connection import open_database
from storage.database import Database
from storage.deals import DealStore
from storage.drawn_boards import DrawnBoardStore
from storage.health import integrity_report
from storage.leases import SYNC_COMMANDS, board_post_key
from storage.lobbies import LobbyRecord
from storage.notifications import NotificationStore
from storage.ratings import RatingStore

log = logging.getLogger(__name__)
# The cogs every bot has besides the games' presenters (which come from the game registry).
EXTENSIONS = ("bot.cogs.ladder", "bot.cogs.settings", "bot.cogs.replay", "bot.cogs.help", "bot.cogs.tournament")
SYNC_LEASE = 60.0  # seconds a process may take to sync the commands before another may do it instead
SYNC_POLL = 0.25  # seconds between looks for the ids another process synced
T = TypeVar("T")


def point_discord_at(api_base: str | None, gateway_url: str | None) -> None:
    """Send REST and gateway traffic to another host (a proxy, or the offline Discord in tests).

    discord.py keeps both as class attributes, so this applies to every client in the process.
    """
    if api_base:
        discord.http.Route.BASE = api_base
    if gateway_url:
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)


def _started(part: T | None) -> T:
    """A part the bot makes as it starts (in setup_hook), or a RuntimeError before that."""
    if part is None:
        raise RuntimeError("the bot has not finished starting")
    return part


class TabletopBot(commands.Bot):
    def __new__(cls, settings: Settings, **options: Any) -> TabletopBot:
        # With SHARD_COUNT the bot is a ShardedTabletopBot (discord.py's AutoShardedBot: one gateway connection per
        # shard); without it, a plain commands.Bot with discord.py's single connection (`bot.ws`, a first
        # failed connection that ends the start with one line in bot/__main__.py). Always sharding with a count of 1
        # would change that: an AutoShardedClient has no `ws` and retries a failed connection forever. Chosen here so
        # that `TabletopBot(settings)` stays the one way to make the bot, for `python -m bot`, the tests and tools.
        chosen = ShardedTabletopBot if settings.shard_count is not None and cls is TabletopBot else cls
        return super().__new__(chosen)

    def __init__(self, settings: Settings, **options: Any) -> None:
        # Only the guilds intent: slash commands and components need no privileged intents at all.
        intents = discord.Intents.none()
        intents.guilds = True
        # What Discord refuses (401, 403, 429), counted on discord.py's own HTTP session and logged (bot/rest_watch.py).
        rest_watch = InvalidRequests()
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents,
            help_command=None,
            tree_cls=TabletopTree,
            allowed_mentions=discord.AllowedMentions(everyone=False, roles=False, users=True),
            http_trace=rest_watch.trace_config(),
            **options,
        )
        self.settings = settings
        self.rest_watch = rest_watch
        point_discord_at(settings.api_base, settings.gateway_url)
        self.presenters: dict[str, GamePresenter] = {}
        # Top-level command name -> Discord's id for it, so /help can show clickable `</name sub:id>` mentions.
        self.command_ids: dict[str, int] = {}
        self._db: Database | None = None
        self._service: GameService | None = None
        self._lobbies: LobbyService | None = None
        self._computer_turns: ComputerTurns | None = None
        self._heartbeat: Heartbeat | None = None
        self._delivery: Delivery | None = None
        self.click_slots = ClickSlots()  # at most so many clicks at once, and a few of one person's
        self._timers: TimerLoop | None = None
        self.season_ends: SeasonEnds | None = None  # posts each season's top three once it is over
        self._restoring: asyncio.Task[None] | None = None
        self._checking: asyncio.Task[None] | None = None
        self._reading_command_ids: asyncio.Task[None] | None = None
        self._workers_started = False

    @property
    def db(self) -> Database:
        return _started(self._db)

    @property
    def computer_turns(self) -> ComputerTurns:
        return _started(self._computer_turns)

    @property
    def lobbies(self) -> LobbyService:
        return _started(self._lobbies)

    @property
    def service(self) -> GameService:
        return _started(self._service)

    async def setup_hook(self) -> None:
        # Bots' thinking and board pictures run in worker processes, so the event loop never waits on them.
        workers.start()
        self._workers_started = True
        self._db = await open_database(self.settings.database)
        # What each board shows, known before anything is drawn: unchanged boards are not edited again.
        self.drawn = DrawnBoards(DrawnBoardStore(self._db))
        await self.drawn.load()
        # A full check reads every page (about half a second for 100,000 games): after start, while serving.
        self._checking = background(self._check_database(self._db), name="integrity-check")
        started = time.time()  # everything written before this moment was written by an earlier process
        self._service = GameService(
            self._db,
            turn_timeout=self.settings.turn_timeout,
            challenge_timeout=self.settings.challenge_timeout,
        )
        # Names this process in the leases table (storage/leases.py): which process holds a bot turn or an announcement.
        log.info("started as %s in the database's leases", self._service.holder)
        self.tree.error(self._on_app_command_error)

        self._lobbies = LobbyService(self._service)
        self.rematch = Rematch(self._service, self._lobbies)
        self.notifier = Notifier(self, NotificationStore(self._db))
        self._service.listeners.append(self.notifier.on_result)
        self.deals = DealStore(self._db)
        self.ratings = RatingStore(self._db)
        # The service's clock, read at each use: a test that moves it moves the seasons too.
        self.seasons = Seasons(self._db, lambda: self.service.clock(), self._service.holder)
        self.server_settings = RememberedSettings(self._db)
        self.languages = Languages(self, self.server_settings, self.notifier.store)
        await self.tree.set_translator(CommandTranslator())
        # Before the presenters, whose parts are given it: the presenters and computer turns it reaches are the bot's.
        self._delivery = Delivery(self.service, self.drawn, self.presenters,
                                  lambda game: self.computer_turns.schedule(game))
        for description in descriptions():  # one presenter per game kind, as the registry says
            await self.load_extension(description.presenter)
        for extension in EXTENSIONS:
            await self.load_extension(extension)
        await self.add_cog(NotificationsCog(self, self.notifier.store))
        self.add_dynamic_items(*LOBBY_BUTTONS, RematchButton, ReplayFromStartButton)
        self._heartbeat = Heartbeat(self.service)  # before any claim: this process's leases are those of a live one
        await self._heartbeat.start()
        self._computer_turns = ComputerTurns(self.service, self.redraw)
        await self.computer_turns.resume_all()  # bot turns that a stop interrupted
        await self.service.tournaments.catch_up()  # tournament games that ended while no process was listening
        self.computer_turns.watch()  # and those of another process that dies (several processes on one database)
        self._restoring = background(self._restore_boards(started), name="restore-boards")
        await self.sync_commands()
        self._timers = TimerLoop(self.service, self._announce_timer, self.lobbies, self._announce_lobby)
        self._timers.start()
        self.season_ends = SeasonEnds(self)
        self.season_ends.start()

    def timers_resting(self) -> bool:
        """Whether the timer loop sleeps between passes (or is not running): nothing it fired is still being told."""
        return self._timers is None or self._timers.resting

    async def close(self) -> None:
        started = [task for task in (self._restoring, self._checking, self._reading_command_ids) if task is not None]
        for task in started:
            task.cancel()
        await asyncio.gather(*started, return_exceptions=True)  # a failure was logged when it happened
        if self._timers is not None:
            await self._timers.stop()
        if self.season_ends is not None:
            await self.season_ends.stop()
        if self._computer_turns is not None:
            await self._computer_turns.stop()
        if self._heartbeat is not None:
            await self._heartbeat.stop()
            self._heartbeat = None
        if self._service is not None:
            try:  # what this process was doing is free for the next start at once, not after its leases run out
                await self._service.let_go()
            except Exception:  # a stop goes on whatever the database says; the leases then run out by themselves
                log.warning("could not free this process's leases at stop", exc_info=True)
        if self._service is not None:  # the notifications of what was done before the stop, within reason
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(10):  # not wait_for, which can swallow a cancellation (Python 3.11)
                    await self._service.told()
        await super().close()
        if self._db is not None:
            await self.drawn.flush()  # boards remembered outside a drawing (a new game's first message)
            await self._db.close()
            self._db = None
        if self._workers_started:
            self._workers_started = False
            await workers.stop()

    async def sync_commands(self) -> None:
        """Sync to the development guild when set; otherwise globally, only if the commands changed."""
        guild = discord.Object(self.settings.dev_guild_id) if self.settings.dev_guild_id else None
        if guild is not None:
            self.tree.copy_global_to(guild=guild)
        translator = self.tree.translator
        payload = [await command.get_translated_payload(self.tree, translator) if translator is not None
                   else command.to_dict(self.tree) for command in self.tree.get_commands(guild=guild)]
        digest = hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()
        assert self._db is not None
        memory = BotStateStore(self._db)
        key = f"commands:{self.application_id}:{guild.id if guild else 'global'}"
        if await memory.get(key) == digest:
            log.info("application commands unchanged; not syncing")
            self.command_ids = json.loads(await memory.get(f"{key}:ids") or "{}")  # {} when synced by an older bot
            return
        # Processes starting together (shards) sync once: the one holding the lease; the others read its ids.
        token = await self.service.hold(SYNC_COMMANDS, SYNC_LEASE)
        if token is None:
            log.info("another process is syncing the application commands; not syncing")
            self._reading_command_ids = background(self._read_command_ids(memory, key, digest), name="command-ids")
            return
        try:
            if await memory.get(key) == digest:  # synced by the process that held the lease a moment ago
                self.command_ids = json.loads(await memory.get(f"{key}:ids") or "{}")
                return
            if not await self.service.still_holds(SYNC_COMMANDS, token):  # the fence: paused past the lease
                log.info("another process took the command sync over; not syncing")
                self._reading_command_ids = background(self._read_command_ids(memory, key, digest),
                                                       name="command-ids")
                return
            synced = await self.tree.sync(guild=guild)
            self.command_ids = {command.name: command.id for command in synced}
            await memory.set(f"{key}:ids", json.dumps(self.command_ids))  # before the digest: a crash between resyncs
            await memory.set(key, digest)
        finally:
            await self.service.let_go_of(SYNC_COMMANDS)
        log.info("synced %d application commands %s", len(synced), f"to guild {guild.id}" if guild else "globally")

    async def _read_command_ids(self, memory: BotStateStore, key: str, digest: str) -> None:
        """The command ids another process is syncing, once it has stored them (for /help's mentions)."""
        for _ in range(int(SYNC_LEASE / SYNC_POLL)):
            if await memory.get(key) == digest:
                self.command_ids = json.loads(await memory.get(f"{key}:ids") or "{}")
                return
            await asyncio.sleep(SYNC_POLL)
        log.warning("the process syncing the application commands did not finish; /help shows their names only")

    async def add_presenter(self, presenter: GamePresenter) -> None:
        """Add a game's presenter (from its extension's `setup`): its commands, components and drawing."""
        await self.add_cog(presenter)
        self.presenters[presenter.kind] = presenter
        self.add_dynamic_items(*presenter.components)

    async def remove_presenter(self, kind: str) -> None:
        presenter = self.presenters.pop(kind, None)
        if presenter is not None:
            self.remove_dynamic_items(*presenter.components)
            await self.remove_cog(presenter.qualified_name)

    def presenter(self, kind: str) -> GamePresenter:
        presenter = self.presenters.get(kind)
        if presenter is None:
            raise ServiceError(Text("This game is not available on this bot right now."))
        return presenter

    async def check_game(self, interaction: discord.Interaction[Any], kind: str, game_id: int) -> None:
        """What every component of a game checks first: the game is of its kind and played here."""
        presenter = self.presenter(kind)
        await presenter.own_game(interaction, game_id, in_dms=presenter.components_in_dms)

    async def _announce_timer(self, event: TimerEvent, result: Result[Any, Any], fence: Fence) -> None:
        presenter = self.presenters.get(result.game.kind)
        if presenter is None:
            log.warning("no presenter for %s game %s", result.game.kind, result.id)
            return
        try:
            if event is TimerEvent.TURN_PING:  # the person left the table: the turn notification held back for them
                await self.notifier.send_held(presenter, result, fence)
                return
            await presenter.announce_timer(event, result, fence)
            ended = result.ended()
            if ended is not None and ended.by_timer:  # the timer loop's to send, at least once (bot/service/owed.py)
                await announce_ending(presenter, result, ended, fence=fence)
        except (discord.NotFound, discord.Forbidden) as exc:  # the channel is gone or closed to me: never sendable
            raise Undeliverable(str(exc)) from exc
        self.computer_turns.schedule(result.game)  # a forfeit can hand the turn to a bot

    @property
    def delivery(self) -> Delivery:
        return _started(self._delivery)

    def drawing(self, game_id: int) -> AbstractAsyncContextManager[Result[Any, Any]]:
        """The game as stored now, while no other drawing of it in this process can happen (bot/delivery.py)."""
        return self.delivery.drawing(game_id)

    async def redraw(self, game_id: int) -> None:
        """Draw a game's boards from what is stored now (bot/delivery.py)."""
        await self.delivery.redraw(game_id)

    async def _restore_boards(self, started: float) -> None:
        """Redraw, after a start, the active games with a board not recorded as showing their current version. A
        process that stops between storing an action and redrawing its game (a crash, a kill) leaves the message
        showing an older position, whose buttons are then refused as stale and which nothing else would ever
        redraw. Boards recorded at the current version are not even read; of the others, a board that would look
        the same (its key) is not edited (see bot/drawn.py)."""
        clock = time.perf_counter()
        private_kinds = [d.kind for d in descriptions() if d.hidden_information]  # a private board per player
        stale = await self.drawn.store.stale_games(started, time.time(), private_kinds)
        # The boards players see are redrawn first: posting a round a stopped process left unposted may wait for
        # that process's lease to lapse (its heartbeat, about 10 s), and what is on the screen should not wait for it.
        unshown = await self._restore_each(stale, post_missing=False)
        tournaments: Any = self.get_cog("Tournament")
        if tournaments is not None:  # then the rounds a stopped process never posted: their boards go in their thread
            await tournaments.post_rounds_left_unposted(started)
        await self._restore_each(unshown, post_missing=True)  # last, a game's board lost otherwise: posted anew
        log.info("boards restored: %d active games to look at again, in %.3f s", len(stale),
                 time.perf_counter() - clock)

    async def _restore_each(self, game_ids: list[int], *, post_missing: bool) -> list[int]:
        """`_restore_board` for each game, a failure logged and the next tried; the games left without a board."""
        unshown = []
        for game_id in game_ids:
            try:
                if not await self._restore_board(game_id, post_missing=post_missing):
                    unshown.append(game_id)
            except discord.HTTPException as exc:  # e.g. the message or channel was deleted meanwhile
                log.warning("could not restore the message of game %s: %s", game_id, exc)
            except Exception:
                log.exception("could not restore the message of game %s", game_id)
        return unshown

    async def _restore_board(self, game_id: int, *, post_missing: bool = True) -> bool:
        """Redraw a game's boards; a game whose message was lost gets its board posted anew if `post_missing`.
        False when it still has no board (not posted: `post_missing` was off, or another process posts it)."""
        async with self.drawing(game_id) as result:
            presenter = self.presenters.get(result.game.kind)
            if presenter is None or result.game.status != "active":
                return True
            if result.game.message_id is None:
                if not post_missing:
                    return False
                # The process stopped after posting the game's message but before storing its id: that message
                # can never be found again, so post the board anew; one process does (several may start together).
                key = board_post_key(game_id)
                token = await self.service.hold(key)
                if token is None:
                    return False  # another process is posting it
                try:
                    result = await self.service.view(game_id, fresh=True)  # it may have posted it a moment ago
                    if result.game.message_id is None:
                        if not await self.service.still_holds(key, token):  # the fence: paused past the lease
                            log.info("another process took over posting the board of game %s anew", game_id)
                            return False
                        channel = self.get_partial_messageable(result.game.channel_id, guild_id=result.game.guild_id)
                        say = Say(await self.languages.public(result.game.guild_id))
                        game = result.game
                        sent = await channel.send(say(Text("Game #{number}: its board again, after a restart of the "
                                                           "bot.", number=result.id)),
                                                  nonce=post_nonce("board again", game.id, game.channel_id,
                                                                   game.created_at))
                        result = await self.service.set_message(result.id, sent.id)
                finally:
                    await self.service.let_go_of(key)
            await presenter.draw(result)
            return True

    async def _announce_lobby(self, lobby: LobbyRecord) -> None:
        presenter = self.presenters.get(lobby.kind)
        if presenter is not None:
            await show_closed(self, lobby, presenter)

    async def _on_app_command_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        await reply_with_error(interaction, error)

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        await answer_unhandled_component(interaction)
        try:
            await self.languages.saw(interaction)  # for the direct messages we send them later
        except Exception:
            log.warning("could not remember the language of user %s", interaction.user.id, exc_info=True)

    def dispatch(self, event_name: str, /, *args: Any, **kwargs: Any) -> None:
        # discord.py's ready task (ConnectionState._delay_ready) dispatches `ready` guild_ready_timeout after the last
        # GUILD_CREATE. A bot stopped within that window has had its `loop` set to MISSING by Client.close, and that
        # dispatch then fails with an AttributeError nobody catches, logged as "Task exception was never retrieved".
        # After a close there is nobody to serve an event for, so none is dispatched.
        if self.is_closed():
            log.debug("closed: not dispatching %s", event_name)
            return
        super().dispatch(event_name, *args, **kwargs)

    async def _check_database(self, db: Database) -> None:
        """A check of every stored page (SQLite's quick_check of the file); damage is an ERROR naming the file and
        what to do. A database whose server checks its own pages (PostgreSQL) leaves the bot nothing to check."""
        started = time.perf_counter()
        problems = await db.integrity_problems()
        if problems is None:
            return
        if problems:
            log.error("%s", integrity_report(db.path, problems))
        else:
            log.info("database integrity check: ok (%.1f s)", time.perf_counter() - started)

    async def on_ready(self) -> None:
        assert self.user is not None
        log.info("logged in as %s (%s) in %d servers", self.user, self.user.id, len(self.guilds))


class ShardedTabletopBot(TabletopBot, commands.AutoShardedBot):
    """The bot for the shards SHARD_IDS of SHARD_COUNT (all of them without SHARD_IDS), one connection each.

    discord.py identifies each with `shard: [id, count]`, so Discord sends it the events of the servers whose
    `(guild_id >> 22) % count` is one of its ids and, on shard 0, direct messages and their interactions. A game's
    state is in the database, so any process serves any click on it (a DM's click reaches shard 0's process).
    `ready` comes once every shard has had its READY and servers; `shard_ready` once per shard."""

    def __init__(self, settings: Settings, **options: Any) -> None:
        options.setdefault("shard_count", settings.shard_count)
        if settings.shard_ids is not None:
            options.setdefault("shard_ids", list(settings.shard_ids))
        super().__init__(settings, **options)

    async def on_shard_ready(self, shard_id: int) -> None:
        log.info("shard %d of %s ready", shard_id, self.shard_count)
