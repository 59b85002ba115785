"""`python -m bot`: read the settings, then run the bot until stopped."""

from __future__ import annotations

import asyncio
import logging
import sys

import discord

from bot.config import ConfigError, Settings, load_settings
from bot.logs import setup_logging
from storage import StorageError


def main() -> int:
    try:
        settings = load_settings()
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    setup_logging(settings.log_level, secrets=[settings.token])
    try:
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
    except StorageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


async def _run(settings: Settings) -> None:
    from bot.client import TabletopBot

    bot = TabletopBot(settings)
    async with bot:
        logging.getLogger(__name__).info("starting; database at %s", settings.database_path)
        await bot.start(settings.token)


if __name__ == "__main__":
    sys.exit(main())
