"""Issue 22, point 9: no interaction token, webhook token or password reaches the log, at any level (discord.py's and
aiohttp's DEBUG lines included), and a DATABASE_URL naming several hosts (a failover set-up) works.

At DEBUG discord.py logs every request's URL (an interaction's callback and followups carry its token in the path)
and every gateway event (INTERACTION_CREATE carries the token in its payload); whoever reads the journal could edit
the bot's answers for 15 minutes with one of them."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from urllib.parse import quote

import pytest

from bot.config import load_settings
from bot.logs import redact
from storage.postgres import url_passwords, without_password
from tests.bot.test_generals_live_board import bob_on_my_board
from tests.support import postgres
from tests.support.boards import player_to_move
from tests.support.codes import Callback
from tests.support.fakediscord import FakeDiscord
from tests.support.interactions import accepted_challenge
from tests.support.processes import stop_bot
from tests.support.world import World

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "Tr0ub4dor&3/x"  # characters a URL percent-encodes
INTERACTION_TOKEN = "aW50ZXJhY3Rpb246MTIzNDU2Nzg5MDEyMzQ1Njc4OTpTZWNyZXRTZWNyZXRTZWNyZXQ"
WEBHOOK_TOKEN = "Xq3_vB8kD2mN7pL0sR5tW9yZ1aC4eF6gH8jK0lM2nP4qS6uV8wX0yZ2aB4cD6eF8gH0j"


def test_tokens_and_url_passwords_are_hidden_wherever_a_line_carries_them() -> None:
    lines = [
        f"POST http://127.0.0.1/api/v10/interactions/1234567890/{INTERACTION_TOKEN}/callback?with_response=1 "
        "with {'type': 4} has returned 200",
        f"PATCH https://discord.com/api/v10/webhooks/987654321/{WEBHOOK_TOKEN}/messages/@original has returned 200",
        "For Shard ID None: WebSocket Event: {'t': 'INTERACTION_CREATE', 'd': {'id': '1', 'token': "
        f"'{INTERACTION_TOKEN}', 'version': 1}}}}",
        f'{{"type": 2, "token": "{INTERACTION_TOKEN}"}}',
        f"Interaction(id=1, token={WEBHOOK_TOKEN})",
        f"headers: {{'Authorization': 'Bot {WEBHOOK_TOKEN}'}}",
        f"postgresql://bot:{quote(PASSWORD, safe='')}@db1.example:5432,db2.example:5432/tabletop",
        "postgresql://bot:Tr0ub4dor&3@db.example/tabletop",
        f"postgresql://bot@db.example/tabletop?sslmode=require&password={quote(PASSWORD, safe='')}",
        f"host=db.example user=bot password={PASSWORD} dbname=tabletop",
    ]
    for line in lines:
        shown = redact(line)
        for secret in (INTERACTION_TOKEN, WEBHOOK_TOKEN, PASSWORD, quote(PASSWORD, safe=""), "Tr0ub4dor"):
            assert secret not in shown, (line, shown)
    # What says where the line is about stays readable.
    assert redact(lines[0]).startswith("POST http://127.0.0.1/api/v10/interactions/1234567890/[token hidden]/callback")
    assert redact(lines[6]) == "postgresql://bot:***@db1.example:5432,db2.example:5432/tabletop"
    # A fencing token or a game number is no secret.
    assert redact("lease of game 12 taken with token=7") == "lease of game 12 taken with token=7"


def test_a_database_url_is_named_without_its_password_in_any_form() -> None:
    for url, shown in (
        ("postgresql://bot:secret@db.example:5433/tabletop", "postgresql://bot:***@db.example:5433/tabletop"),
        ("postgresql://bot:s%40cret@h1:5432,h2:5432/tabletop", "postgresql://bot:***@h1:5432,h2:5432/tabletop"),
        ("postgresql://bot@db.example/tabletop?sslmode=require&password=secret",
         "postgresql://bot@db.example/tabletop?sslmode=require&password=***"),
        ("postgresql://bot@/tabletop?host=/run/postgresql", "postgresql://bot@/tabletop?host=/run/postgresql"),
    ):
        assert without_password(url) == shown
    both = "postgresql://bot:s%40cret@h1:5432,h2:5432/t?password=other"
    assert url_passwords(both) == ["other", "s%40cret", "s@cret"]
    settings = load_settings({"DISCORD_TOKEN": "x" * 60, "DATABASE_URL": "postgresql://bot@h/t?password=p%2Fw"},
                             dotenv=None)
    assert set(settings.secrets) == {"x" * 60, "p/w"}


async def test_at_debug_no_token_nor_password_reaches_the_log(
    world: World, postgres_url: str, postgres_server: postgres.PostgresServer, tmp_path: Path
) -> None:
    """`python -m bot` at DEBUG on PostgreSQL through a two-host DATABASE_URL (the first host refuses: asyncpg goes on
    to the second) with `?password=`: a Generals challenge with a My board, a Chopsticks challenge and moves; the log
    holds none of the tokens the offline Discord issued and not the password."""
    fake = world.fake
    if not postgres_server.host.startswith("/"):
        pytest.skip("the two-host URL is built for the throwaway server's unix socket")
    database = postgres_url.split("?")[0].rsplit("/", 1)[1]
    socket = quote(postgres_server.host, safe="")
    url = (f"postgresql://{postgres_server.user}@127.0.0.1:1,{socket}:{postgres_server.port}/{database}"
           f"?password={quote(PASSWORD, safe='')}")
    log = tmp_path / "bot.log"
    process = await _run_bot(fake, tmp_path, url, log)
    try:
        await fake.wait_until_ready(timeout=60)
        await fake.wait_until(lambda: bool(fake.registered_commands()), timeout=30)
        await bob_on_my_board(world)  # game 1: Generals, Bob's DMs closed: his board lives on My board's token
        board = await accepted_challenge(fake, world.channel, world.alice, world.bob, "chopsticks")
        mover = world.alice if player_to_move(board) == world.alice.id else world.bob
        moved = await fake.click(mover, board, board.buttons()[0]["custom_id"], timeout=15)
        assert moved.callback_type in (Callback.CHANNEL_MESSAGE, Callback.UPDATE_MESSAGE), moved.errors
    finally:
        await stop_bot(process, 30)
    text = log.read_text(encoding="utf-8", errors="replace")
    assert process.returncode == 0, text[-3000:]
    # As verbose as it gets: discord.py's request lines for the interactions' callbacks and webhooks are there.
    assert "/callback" in text and "/webhooks/" in text and "WebSocket Event" in text and "[token hidden]" in text
    tokens = {res.token for res in fake.interactions.values()}
    assert len(tokens) >= 8
    for secret in (*tokens, fake.token, PASSWORD, quote(PASSWORD, safe="")):
        assert secret not in text
    [start] = [line.split(" ", 2)[2] for line in text.splitlines() if "database at" in line]
    assert start == (f"INFO    __main__: starting; database at postgresql://{postgres_server.user}@127.0.0.1:1,"
                     f"{socket}:{postgres_server.port}/{database}?password=***")
    assert "Traceback" not in text


async def _run_bot(fake: FakeDiscord, tmp_path: Path, url: str, log: Path) -> asyncio.subprocess.Process:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "DATABASE_"))}
    env.update(DISCORD_TOKEN=fake.token, DATABASE_URL=url, LOG_LEVEL="DEBUG", DISCORD_API_BASE=fake.api_base,
               DISCORD_GATEWAY_URL=fake.gateway_url, PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""))
    with log.open("wb") as out:
        return await asyncio.create_subprocess_exec(sys.executable, "-m", "bot", cwd=tmp_path, env=env,
                                                    stdout=out, stderr=asyncio.subprocess.STDOUT)
