"""Set-up promises: clear start-up errors, settings parsing, layering, and no token in logs."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.config import ConfigError, load_settings, parse_duration
from bot.logs import RedactSecrets

ROOT = Path(__file__).resolve().parents[2]


def _run_bot(env: dict[str, str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items()
             if not k.startswith(("DISCORD_", "DEV_GUILD", "TURN_", "LOG_", "DATABASE_", "SHARD_"))}
    return subprocess.run(
        [sys.executable, "-m", "bot"], cwd=tmp_path, env=clean | env | {"PYTHONPATH": str(ROOT)},
        capture_output=True, text=True, timeout=60,
    )


def test_without_a_token_the_bot_says_so_in_one_line(tmp_path: Path) -> None:
    result = _run_bot({}, tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0
    assert "DISCORD_TOKEN is not set" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(("name", "value"), [
    ("TURN_TIMEOUT", "soon"), ("DEV_GUILD_ID", "my-server"), ("LOG_LEVEL", "LOUD"),
    ("DISCORD_API_BASE", "ftp://x"), ("DISCORD_GATEWAY_URL", "http://x"),
])
def test_a_malformed_setting_is_named(tmp_path: Path, name: str, value: str) -> None:
    result = _run_bot({"DISCORD_TOKEN": "abc.def.ghi", name: value}, tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith(f"error: {name}") and "Traceback" not in result.stderr


def test_settings_come_from_dotenv_and_environment_wins(tmp_path: Path) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text("# comment\nDISCORD_TOKEN='from.file'\nTURN_TIMEOUT=30m\nDEV_GUILD_ID=42\n")
    settings = load_settings({"TURN_TIMEOUT": "2h"}, dotenv)
    assert settings.token == "from.file" and settings.turn_timeout == 7200 and settings.dev_guild_id == 42
    assert "from.file" not in repr(settings)
    with pytest.raises(ConfigError, match="malformed"):
        load_settings({"DISCORD_TOKEN": "Bot abc"}, None)
    assert parse_duration("90") == 90 and parse_duration("2d") == 172800


def test_layers_import_only_downwards() -> None:
    code = (
        "import sys, games, games.chopsticks, games.chopsticks.bots, storage, bot.service;"
        "bad = sorted(m for m in ('discord', 'aiohttp') if m in sys.modules); print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    engine = "import sys, games.chopsticks.bots; print(sorted(m for m in ('aiosqlite', 'asyncio') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", engine], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_token_is_redacted_from_log_lines_and_tracebacks(caplog: pytest.LogCaptureFixture) -> None:
    token = "MTIz.secret.token"
    logger = logging.getLogger("test.redaction")
    logger.addFilter(RedactSecrets([token]))
    try:
        with caplog.at_level(logging.INFO, logger="test.redaction"):
            logger.info("connecting with %s", token)
            try:
                raise RuntimeError(f"bad header Authorization: Bot {token}")
            except RuntimeError:
                logger.exception("failed")
    finally:
        logger.filters.clear()
    assert token not in caplog.text
    assert "[token hidden]" in caplog.text
