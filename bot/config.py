"""Settings from the environment and an optional `.env` file; every mistake is reported by name."""

from __future__ import annotations

import io
import os
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

import yarl
from dotenv import dotenv_values
from dotenv.parser import parse_stream

from storage.postgres import url_passwords


class ConfigError(Exception):
    """A setting is missing or malformed; the message names it and says what is expected."""


_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*$", re.IGNORECASE)
_UNIT_SECONDS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}
_LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


@dataclass(frozen=True)
class Settings:
    token: str
    database_path: Path
    dev_guild_id: int | None = None
    log_level: str = "INFO"
    api_base: str | None = None  # e.g. http://127.0.0.1:8080/api/v10 for a proxy or the test Discord
    gateway_url: str | None = None  # e.g. ws://127.0.0.1:8080/gw
    turn_timeout: float = 24 * 3600.0
    challenge_timeout: float = 15 * 60.0
    # Sharding (rarely needed; Discord requires it from 2,500 servers): how many shards the bot's servers are split
    # into, and which of them this process runs (None: all of them). No shard_count: one unsharded connection.
    shard_count: int | None = None
    shard_ids: tuple[int, ...] | None = None
    # PostgreSQL instead of the SQLite file (postgresql://user:password@host/database): for several processes over one
    # database; None (the default) is SQLite at database_path.
    database_url: str | None = None

    @property
    def database(self) -> str | Path:
        """Where the bot's database is: the PostgreSQL URL if there is one, else the SQLite file."""
        return self.database_url or self.database_path

    @property
    def secrets(self) -> list[str]:
        """What no log line may show: the token, and the database's password in every form its URL gives it."""
        return [self.token, *(url_passwords(self.database_url) if self.database_url else [])]

    def __repr__(self) -> str:  # never show the token, even in a debugger or a traceback
        return f"Settings(database_path={self.database_path!s}, dev_guild_id={self.dev_guild_id}, ...)"


def read_dotenv(path: Path) -> dict[str, str]:
    """The settings in a `.env` file, read by python-dotenv: its quoting, `export` and `${VAR}` rules, the ones
    admins know from other tools. A missing file is no settings; a line it cannot read is a ConfigError."""
    try:
        text = path.read_text(encoding="utf-8-sig")  # -sig: a file saved by Notepad starts with a BOM
    except FileNotFoundError:
        return {}
    except UnicodeDecodeError:
        raise ConfigError(f"{path} is not UTF-8 text; save it as UTF-8.") from None
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}.") from None
    for binding in parse_stream(io.StringIO(text)):
        if binding.error:  # python-dotenv itself would only log a warning and skip the line
            raise ConfigError(f"{path}:{binding.original.line}: expected KEY=VALUE (quote values with spaces or #).")
    values = dotenv_values(stream=io.StringIO(text))
    return {key: value for key, value in values.items() if value is not None}  # a bare `KEY` sets nothing


def dotenv_exposure(path: Path) -> str | None:
    """A warning when the `.env` file, which holds the bot's token, can be read or changed by other users."""
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return None  # no file: nothing to protect
    if not mode & 0o077:
        return None
    return (f"{path} can be read or changed by other users of this machine (mode {mode:04o}); it is where the "
            f"bot's token belongs, so make it private: chmod 600 {path}")


def load_settings(environ: Mapping[str, str] | None = None, dotenv: Path | None = Path(".env")) -> Settings:
    """Settings from `environ` (default: the process environment), falling back to the `.env` file."""
    env = dict(read_dotenv(dotenv) if dotenv else {})
    env.update(os.environ if environ is None else environ)

    def get(name: str) -> str | None:
        value = env.get(name, "").strip()
        return value or None

    token = get("DISCORD_TOKEN")
    if token is None:
        raise ConfigError(
            "DISCORD_TOKEN is not set: put your bot's token in .env (see .env.example) or the environment."
        )
    if any(c.isspace() for c in token) or token.lower().startswith("bot "):
        raise ConfigError("DISCORD_TOKEN looks malformed: paste the token alone, without 'Bot ' or spaces.")

    dev_guild = get("DEV_GUILD_ID")
    if dev_guild is not None and not dev_guild.isdigit():
        raise ConfigError(f"DEV_GUILD_ID must be a server id (digits only), not {dev_guild!r}.")

    shard_count, shard_ids = _shards(get("SHARD_COUNT"), get("SHARD_IDS"))
    level = (get("LOG_LEVEL") or "INFO").upper()
    if level not in _LOG_LEVELS:
        raise ConfigError(f"LOG_LEVEL must be one of {', '.join(_LOG_LEVELS)}, not {level!r}.")

    return Settings(
        token=token,
        database_path=Path(get("DATABASE_PATH") or "data/bot.sqlite3"),
        dev_guild_id=int(dev_guild) if dev_guild else None,
        log_level=level,
        api_base=_url(get("DISCORD_API_BASE"), "DISCORD_API_BASE", ("http", "https")),
        gateway_url=_url(get("DISCORD_GATEWAY_URL"), "DISCORD_GATEWAY_URL", ("ws", "wss")),
        turn_timeout=_duration(get("TURN_TIMEOUT"), "TURN_TIMEOUT", 24 * 3600.0),
        challenge_timeout=_duration(get("CHALLENGE_TIMEOUT"), "CHALLENGE_TIMEOUT", 15 * 60.0),
        shard_count=shard_count,
        shard_ids=shard_ids,
        database_url=_database_url(get("DATABASE_URL"), get("DATABASE_PATH")),
    )


def _database_url(url: str | None, path: str | None) -> str | None:
    if not url:
        return None
    if not url.startswith(("postgresql://", "postgres://")):
        raise ConfigError("DATABASE_URL must be a PostgreSQL URL (postgresql://user:password@host/database); leave "
                          "it out to use the SQLite file at DATABASE_PATH.")
    if path:
        raise ConfigError("set DATABASE_URL (PostgreSQL) or DATABASE_PATH (SQLite), not both.")
    return url


def parse_duration(text: str) -> float:
    """Seconds in '90', '90s', '30m', '24h' or '2d'; ValueError otherwise."""
    match = _DURATION.match(text)
    if not match:
        raise ValueError(text)
    seconds = float(match.group(1)) * _UNIT_SECONDS[match.group(2).lower()]
    if seconds <= 0:
        raise ValueError(text)
    return seconds


def _duration(value: str | None, name: str, default: float) -> float:
    if value is None:
        return default
    try:
        return parse_duration(value)
    except ValueError:
        raise ConfigError(f"{name} must be a positive duration like 90s, 30m, 24h or 2d, not {value!r}.") from None


def _shards(count_text: str | None, ids_text: str | None) -> tuple[int | None, tuple[int, ...] | None]:
    """`shard_count` and `shard_ids` from SHARD_COUNT ("4") and SHARD_IDS ("0,1"); neither set: no sharding."""
    if count_text is None:
        if ids_text is not None:
            raise ConfigError("SHARD_IDS needs SHARD_COUNT: set SHARD_COUNT to the total number of shards too.")
        return None, None
    if not _whole(count_text) or int(count_text) < 1:
        raise ConfigError(f"SHARD_COUNT must be a whole number of shards, 1 or more, not {count_text!r}.")
    count = int(count_text)
    if ids_text is None:
        return count, None  # every shard in this process
    parts = [part.strip() for part in ids_text.split(",")]
    if not all(_whole(part) and int(part) < count for part in parts):
        raise ConfigError(f"SHARD_IDS must be shard numbers from 0 to {count - 1} (SHARD_COUNT - 1) separated by "
                          f"commas, like 0,1, not {ids_text!r}.")
    ids = tuple(int(part) for part in parts)
    if len(set(ids)) != len(ids):
        raise ConfigError(f"SHARD_IDS names a shard more than once: {ids_text!r}.")
    return count, ids


def _whole(text: str) -> bool:
    return text.isascii() and text.isdigit()


def _url(value: str | None, name: str, schemes: tuple[str, ...]) -> str | None:
    if value is None:
        return None
    parsed = urlparse(value)
    if parsed.scheme not in schemes or not parsed.netloc:
        raise ConfigError(f"{name} must be a {' or '.join(schemes)} URL, not {value!r}.")
    yarl.URL(value)  # the gateway URL is handed to discord.py as a yarl.URL
    return value.rstrip("/")
