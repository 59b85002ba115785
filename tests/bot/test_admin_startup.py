"""Issue 12, point 7: what an admin sees when starting `python -m bot`: one line when Discord cannot be reached, no
voice-support warnings, the database's absolute path, and `.env` read with python-dotenv's rules."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from bot.__main__ import _unreachable, cancel_until_done
from bot.config import ConfigError, load_settings
from tests.support.fakediscord import FakeDiscord
from tests.support.processes import stop_bot
from tests.support.world import VALIDATOR, World

ROOT = Path(__file__).resolve().parents[2]
_OUR_SETTINGS = ("DISCORD_", "DEV_GUILD", "TURN_", "LOG_", "CHALLENGE_", "DATABASE_", "SHARD_")


def _environment(settings: dict[str, str]) -> dict[str, str]:
    """The process environment without any of our settings, plus `settings`: as an admin's shell would be."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(_OUR_SETTINGS)}
    return clean | settings | {"PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}


def _closed_port() -> int:
    """A local port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _error_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("error:") or " ERROR " in line]


async def _start_bot(settings: dict[str, str], cwd: Path, log: Path) -> asyncio.subprocess.Process:
    with log.open("wb") as out:
        # As a shell starts a background job: SIGINT ignored. The bot must still stop on it (its documented stop).
        return await asyncio.create_subprocess_exec(sys.executable, "-m", "bot", cwd=cwd, env=_environment(settings),
                                                    stdout=out, stderr=asyncio.subprocess.STDOUT,
                                                    preexec_fn=_ignore_sigint)


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


# ----- Discord cannot be reached --------------------------------------------------------------------------------
def test_an_unreachable_discord_is_one_line_and_a_failure(tmp_path: Path) -> None:
    port = _closed_port()
    result = subprocess.run(
        [sys.executable, "-m", "bot"], cwd=tmp_path, capture_output=True, text=True, timeout=60,
        env=_environment({"DISCORD_TOKEN": "abc.def.ghi", "DATABASE_PATH": "bot.sqlite3",
                          "DISCORD_API_BASE": f"http://127.0.0.1:{port}/api/v10",
                          "DISCORD_GATEWAY_URL": f"ws://127.0.0.1:{port}/gw"}),
    )
    output = result.stdout + result.stderr
    assert result.returncode == 1
    assert "Traceback" not in output
    assert _error_lines(output) == [
        f"error: cannot reach Discord at http://127.0.0.1:{port}/api/v10 (Cannot connect to host 127.0.0.1:{port} "
        f"ssl:default [Connect call failed ('127.0.0.1', {port})]); check DISCORD_API_BASE and this machine's network "
        "connection, DNS and firewall, then start the bot again."
    ]
    assert "abc.def.ghi" not in output


@pytest.mark.parametrize("shards", [{}, {"SHARD_COUNT": "2", "SHARD_IDS": "1"}])
async def test_an_unreachable_gateway_is_one_line_and_a_failure(
    restore_discord_urls: None, tmp_path: Path, shards: dict[str, str]
) -> None:
    """Unsharded, and as a shard (where discord.py would otherwise try again every 5 s for ever)."""
    fake = FakeDiscord(validator=VALIDATOR)  # REST answers; the gateway is a closed port
    await fake.start()
    port = _closed_port()
    log = tmp_path / "bot.log"
    try:
        process = await _start_bot({"DISCORD_TOKEN": fake.token, "DATABASE_PATH": "bot.sqlite3",
                                    "DISCORD_API_BASE": fake.api_base,
                                    "DISCORD_GATEWAY_URL": f"ws://127.0.0.1:{port}/gw", **shards}, tmp_path, log)
        try:
            assert await asyncio.wait_for(process.wait(), 30) == 1
        finally:
            await stop_bot(process, 20)
        assert fake.violations == []
    finally:
        await fake.close()
    output = log.read_text(encoding="utf-8", errors="replace")
    assert "Traceback" not in output and "Attempting a reconnect" not in output and "Retrying" not in output
    [line] = _error_lines(output)
    assert line.startswith(f"error: cannot reach Discord's gateway at ws://127.0.0.1:{port}/gw (Cannot connect")
    assert "check DISCORD_GATEWAY_URL and this machine's network connection" in line
    assert fake.token not in output


def test_a_timeout_or_an_outage_is_said_in_words() -> None:
    # Timeouts take aiohttp's 30 s (REST) or discord.py's 60 s (gateway) to happen: their line is checked directly.
    line = _unreachable("Discord at https://discord.com/api/v10", TimeoutError(), None, "DISCORD_API_BASE")
    assert line == ("cannot reach Discord at https://discord.com/api/v10 (timed out); check this machine's network "
                    "connection, DNS and firewall, then start the bot again.")
    multiline = _unreachable("Discord's gateway at wss://gateway.discord.gg/", OSError("a\nb"), None, "X")
    assert "\n" not in multiline and "(a b)" in multiline


# ----- the start-up log -----------------------------------------------------------------------------------------
async def test_the_start_up_log_names_the_database_and_warns_of_no_voice(world: World, tmp_path: Path) -> None:
    fake = world.fake
    log = tmp_path / "bot.log"
    process = await _start_bot({"DISCORD_TOKEN": fake.token, "DATABASE_PATH": "data/bot.sqlite3",
                                "DISCORD_API_BASE": fake.api_base, "DISCORD_GATEWAY_URL": fake.gateway_url},
                               tmp_path, log)
    try:
        await fake.wait_until_ready(timeout=30)
    finally:
        await stop_bot(process, 20)
    output = log.read_text(encoding="utf-8", errors="replace")
    assert process.returncode == 0, output[-6000:]  # a stop held up prints every thread's stack there
    database = (tmp_path / "data" / "bot.sqlite3").resolve()
    assert database.is_file()
    assert [line.split(" ", 2)[2] for line in output.splitlines() if "database at" in line] == [
        f"INFO    __main__: starting; database at {database}"
    ]
    # The bot never joins a voice channel: no warning about voice libraries, and no warning at all on a clean start.
    assert "voice" not in output.lower() and "PyNaCl" not in output and "davey" not in output
    assert [line for line in output.splitlines() if " WARNING " in line or " ERROR " in line] == []


# ----- .env, read by python-dotenv ------------------------------------------------------------------------------
def test_dotenv_quoting_export_and_comments_follow_python_dotenv(tmp_path: Path) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text(
        "# the bot's settings\n"
        "export DISCORD_TOKEN='abc.def.ghi'   # single quotes: taken literally\n"
        'DATABASE_PATH="games/my bot.sqlite3"\n'
        "TURN_TIMEOUT=30m  # an inline comment after an unquoted value\n"
        "export CHALLENGE_TIMEOUT = \"5m\"\n"
        "DEV_GUILD_ID=\n"
        "LOG_LEVEL\n"  # a bare name sets nothing
        "HOURS=2\n"
        "DISCORD_API_BASE=http://127.0.0.1:${HOURS}000/api/v10\n"  # ${VAR} expands, as in python-dotenv
        "DISCORD_GATEWAY_URL='ws://127.0.0.1/gw#$HOURS'\n",  # quoted: the # is no comment; only ${...} expands
        encoding="utf-8",
    )
    settings = load_settings({}, dotenv)
    assert settings.token == "abc.def.ghi"
    assert settings.database_path == Path("games/my bot.sqlite3")
    assert settings.turn_timeout == 1800 and settings.challenge_timeout == 300
    assert settings.dev_guild_id is None and settings.log_level == "INFO"
    assert settings.api_base == "http://127.0.0.1:2000/api/v10"
    assert settings.gateway_url == "ws://127.0.0.1/gw#$HOURS"


def test_environment_variables_win_over_dotenv(tmp_path: Path) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text('export DISCORD_TOKEN="from.the.file"\nTURN_TIMEOUT=30m\nDEV_GUILD_ID=42\n', encoding="utf-8")
    settings = load_settings({"DISCORD_TOKEN": "from.the.environment", "DEV_GUILD_ID": ""}, dotenv)
    assert settings.token == "from.the.environment"
    assert settings.turn_timeout == 1800  # not set in the environment: the file's
    assert settings.dev_guild_id is None  # set, though empty, in the environment: it wins, as before


def test_a_dotenv_line_python_dotenv_cannot_read_is_named(tmp_path: Path) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text("DISCORD_TOKEN=abc.def.ghi\nthis is not a setting\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"\.env:2: expected KEY=VALUE"):
        load_settings({}, dotenv)
    dotenv.write_bytes(b"DISCORD_TOKEN=abc.def.ghi\nDATABASE_PATH=caf\xe9.sqlite3\n")
    with pytest.raises(ConfigError, match="is not UTF-8 text"):
        load_settings({}, dotenv)
    dotenv.write_bytes(b"\xef\xbb\xbfDISCORD_TOKEN=abc.def.ghi\n")  # a BOM, as some editors write
    assert load_settings({}, dotenv).token == "abc.def.ghi"


def test_python_m_bot_reads_dotenv_and_the_environment_wins(tmp_path: Path) -> None:
    port = _closed_port()
    (tmp_path / ".env").write_text(
        "export DISCORD_TOKEN='abc.def.ghi'\n"
        f'export DISCORD_API_BASE="http://127.0.0.1:{port}/api/v10"\n'
        "LOG_LEVEL=LOUD  # wrong\n",
        encoding="utf-8",
    )

    def run(settings: dict[str, str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "bot"], cwd=tmp_path, capture_output=True, text=True,
                              timeout=60, env=_environment({"DATABASE_PATH": "bot.sqlite3"} | settings))

    from_file = run({})
    assert from_file.returncode == 2
    assert from_file.stderr == "error: LOG_LEVEL must be one of DEBUG, INFO, WARNING, ERROR, CRITICAL, not 'LOUD'.\n"
    fixed_by_environment = run({"LOG_LEVEL": "warning"})  # the environment's value wins: the file's token is used
    assert fixed_by_environment.returncode == 1
    assert _error_lines(fixed_by_environment.stderr)[0].startswith(
        f"error: cannot reach Discord at http://127.0.0.1:{port}/api/v10 ")


# ----- Ctrl-C -----------------------------------------------------------------------------------------------------
async def test_a_stop_ends_a_connection_that_lost_the_first_cancel() -> None:
    # What Python 3.11's wait_for does to discord.py's connect when the cancel lands just as the gateway's handshake
    # completes: the cancel is lost and the connection goes on. One cancel and a wait (as the stop did) waits for ever.
    async def connect_that_loses_a_cancel() -> None:
        with contextlib.suppress(asyncio.CancelledError):  # lost
            await asyncio.sleep(60)
        await asyncio.sleep(60)  # connected, polling the gateway

    connecting = asyncio.create_task(connect_that_loses_a_cancel())
    await asyncio.sleep(0)
    await asyncio.wait_for(cancel_until_done(connecting, every=0.05), timeout=5)
    assert connecting.cancelled()
