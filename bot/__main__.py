"""`python -m bot`: read the settings, then run the bot until stopped."""

from __future__ import annotations

import asyncio
import faulthandler
import logging
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiohttp
import discord

from bot.config import ConfigError, Settings, dotenv_exposure, load_settings
from bot.gc_policy import tune_for_latency
from bot.logs import redact, setup_logging
from storage import StorageError
from storage.health import UnusableDatabaseError, check_database_file
from storage.postgres import PostgresUnavailableError, without_password

if TYPE_CHECKING:
    from bot.client import TabletopBot

log = logging.getLogger(__name__)
# What a network that cannot reach Discord raises (failed DNS look-ups and refused connections are aiohttp
# ClientConnectorErrors, timeouts TimeoutErrors), and what Discord answers while it is down.
_UNREACHABLE = (aiohttp.ClientError, TimeoutError, discord.DiscordServerError, discord.GatewayNotFound)
DOTENV = Path(".env")


class DiscordUnreachable(Exception):
    """Discord could not be reached at start; the message is one line for the admin."""


def main() -> int:
    try:
        settings = load_settings(dotenv=DOTENV)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    setup_logging(settings.log_level, secrets=settings.secrets)
    exposure = dotenv_exposure(DOTENV)
    if exposure:
        log.warning("%s", exposure)
    try:
        if settings.database_url is None:
            check_database_file(settings.database_path)  # before reaching Discord: a wrong path needs no network
        # SIGINT is the bot's clean stop (Ctrl-C, systemd's KillSignal=SIGINT). A shell that starts it in the
        # background passes SIGINT on as ignored, and asyncio.run then leaves it ignored: the stop would do nothing.
        signal.signal(signal.SIGINT, signal.default_int_handler)
        asyncio.run(_run(settings))
    except KeyboardInterrupt:
        pass
    except discord.LoginFailure:
        print("error: Discord refused the token in DISCORD_TOKEN; copy it again from the Developer Portal.",
              file=sys.stderr)
        return 1
    except discord.PrivilegedIntentsRequired:
        print("error: the bot asked for a privileged intent it should not need; please report this.",
              file=sys.stderr)
        return 1
    except (StorageError, UnusableDatabaseError, PostgresUnavailableError, DiscordUnreachable) as exc:
        print(f"error: {redact(str(exc), settings.secrets)}", file=sys.stderr)
        return 1
    return 0


async def _run(settings: Settings) -> None:
    from bot.client import TabletopBot

    _silence_voice_warnings()
    bot = TabletopBot(settings)
    async with bot:
        where = without_password(settings.database_url) if settings.database_url else settings.database_path.resolve()
        log.info("starting; database at %s", where)
        try:
            await bot.login(settings.token)  # REST: who we are, then setup_hook (database, command sync)
        except _UNREACHABLE as exc:
            where = f"Discord at {discord.http.Route.BASE}"
            raise DiscordUnreachable(_unreachable(where, exc, settings.api_base, "DISCORD_API_BASE")) from None
        tune_for_latency()  # after setup_hook: what it built lives as long as the process
        with _first_gateway_failure(bot) as first:
            connecting = asyncio.create_task(bot.connect())
            failing = asyncio.create_task(first.failed.wait())
            try:
                await asyncio.wait({connecting, failing}, return_when=asyncio.FIRST_COMPLETED)
            except asyncio.CancelledError:  # stopped (Ctrl-C): the connection goes with the wait
                # A stop should take a second or two; one still going after STOP_REPORT seconds prints every thread's
                # stack on stderr, so that whatever holds it up names itself (the process goes on stopping).
                faulthandler.dump_traceback_later(STOP_REPORT, exit=False)
                await cancel_until_done(connecting)
                raise
            finally:
                failing.cancel()
            if first.cause is None:
                await connecting  # connected and then stopped, or failed in another way: as discord.py says
                return
            # The first connection failed: sharded, discord.py would try again every 5 s for ever; unsharded, it
            # fails with an AttributeError. Either way the admin gets one line naming the cause.
            connecting.cancel()
            await asyncio.gather(connecting, return_exceptions=True)
            where = f"Discord's gateway at {discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY}"
            raise DiscordUnreachable(
                _unreachable(where, first.cause, settings.gateway_url, "DISCORD_GATEWAY_URL")
            ) from None


STOP_REPORT = 15.0  # seconds after Ctrl-C after which a stop still going prints every thread's stack


async def cancel_until_done(task: asyncio.Task[Any], every: float = 1.0) -> None:
    """Cancel `task` and wait until it has ended, cancelling it again every `every` seconds while it runs on. Python
    3.11's asyncio.wait_for loses a cancel that lands just as what it waits for completes: discord.py's `connect`
    waits so for the gateway's handshake, and a Ctrl-C at that moment left it connected and the bot's stop waiting
    for it for ever."""
    while not task.done():
        task.cancel()
        await asyncio.wait({task}, timeout=every)


def _silence_voice_warnings() -> None:
    """The bot never joins a voice channel: discord.py's start-up warnings that the voice libraries (PyNaCl,
    davey) are missing would only alarm admins. These two flags are all they hang on; other warnings stay."""
    discord.VoiceClient.warn_nacl = False
    discord.VoiceClient.warn_dave = False


class _FirstGatewayFailure(logging.Filter):
    """Holds back discord.py's traceback for a first gateway connection that failed, keeps its cause and says so.

    discord.py 2.7.1 logs that failure as "Attempting a reconnect" with a traceback and then fails with an
    AttributeError (it tries to resume a session it never had); with shards (SHARD_COUNT) it logs "Failed to connect
    for shard_id" and tries again every 5 s for ever. The admin gets one line naming the cause instead. Once the bot
    has reached the gateway (a shard connected), reconnects are logged as discord.py logs them.
    """

    def __init__(self, bot: TabletopBot) -> None:
        super().__init__()
        self._bot = bot
        self.cause: BaseException | None = None
        self.failed = asyncio.Event()

    def _connected(self) -> bool:
        if isinstance(self._bot, discord.AutoShardedClient):
            return bool(self._bot.shards)
        return self._bot.ws is not None

    def filter(self, record: logging.LogRecord) -> bool:
        first = self.cause is None and not self._connected()
        message = str(record.msg)
        if first and record.exc_info and message.startswith(("Attempting a reconnect", "Failed to connect for shard")):
            self.cause = record.exc_info[1]
            self.failed.set()
            return False
        return True


@contextmanager
def _first_gateway_failure(bot: TabletopBot) -> Iterator[_FirstGatewayFailure]:
    watcher = _FirstGatewayFailure(bot)
    loggers = [logging.getLogger("discord.client"), logging.getLogger("discord.shard")]
    for logger in loggers:
        logger.addFilter(watcher)
    try:
        yield watcher
    finally:
        for logger in loggers:
            logger.removeFilter(watcher)


def _unreachable(where: str, exc: BaseException, setting_value: str | None, setting: str) -> str:
    """One line: where the bot tried to go, why it failed, and what an admin can check."""
    if isinstance(exc, discord.HTTPException):
        reason = f"Discord answered {exc.status} {exc.response.reason}"  # its body may be a whole HTML page
    elif isinstance(exc, TimeoutError):
        reason = "timed out"
    else:
        reason = " ".join(str(exc).split()) or type(exc).__name__
    setting_hint = f"{setting} and " if setting_value else ""
    return (f"cannot reach {where} ({reason[:300]}); check {setting_hint}this machine's network connection, DNS "
            "and firewall, then start the bot again.")


if __name__ == "__main__":
    sys.exit(main())
