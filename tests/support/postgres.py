"""A throwaway PostgreSQL server for the tests (issue 17): started once per test session in a temporary directory,
on a unix socket only, as a non-root user, and stopped at the end.

- `TEST_DATABASE_URL=postgresql://...` uses a server someone already runs instead (its databases named `tabletop_*`
  are created and dropped by the tests).
- Otherwise the server binaries are looked for on PATH and in Debian's /usr/lib/postgresql/<version>/bin. Without
  them the PostgreSQL half of the suite is skipped, saying why; `TEST_POSTGRES=require` (set by .ci/run) makes that a
  failure instead, so CI can never pass by skipping it.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import sqlite3
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import asyncpg

REQUIRE = "TEST_POSTGRES"  # "require": no server is a failure, not a skip
URL = "TEST_DATABASE_URL"
SERVER_USER_CANDIDATES = ("postgres", "nobody")  # who runs the server when the tests run as root (initdb refuses root)
DATABASE_USER = "bot"


# What a broken constraint raises on each database (asyncpg's class covers NOT NULL, foreign keys, checks, uniques and
# the move log's append-only trigger, which raises restrict_violation).
INTEGRITY_ERRORS: tuple[type[Exception], ...] = (sqlite3.IntegrityError, asyncpg.IntegrityConstraintViolationError)


class PostgresUnavailable(RuntimeError):
    """No PostgreSQL server can be started or reached here (the message says why)."""


@dataclass(frozen=True)
class PostgresServer:
    """A running server: `url(database)` is how to reach one of its databases."""

    host: str  # a socket directory, or a host name
    port: int
    user: str
    password: str | None = None

    def url(self, database: str = "postgres") -> str:
        auth = self.user if self.password is None else f"{self.user}:{self.password}"
        if self.host.startswith("/"):
            return f"postgresql://{auth}@/{database}?host={self.host}&port={self.port}"
        return f"postgresql://{auth}@{self.host}:{self.port}/{database}"


def binaries() -> Path | None:
    """The directory holding initdb and pg_ctl, or None."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(found).resolve().parent
    debian = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), reverse=True)
    return debian[0].parent if debian else None


def _server_user() -> str | None:
    """The user to run the server as: ourselves unless we are root, then an unprivileged system user."""
    if os.geteuid() != 0:
        return None
    for name in SERVER_USER_CANDIDATES:
        with contextlib.suppress(KeyError):
            pwd.getpwnam(name)
            return name
    raise PostgresUnavailable("the tests run as root and there is no unprivileged user to run PostgreSQL as "
                              f"(tried {', '.join(SERVER_USER_CANDIDATES)})")


def _as(user: str | None, command: list[str]) -> list[str]:
    return command if user is None else ["runuser", "-u", user, "--", *command]


@contextlib.contextmanager
def running_server() -> Iterator[PostgresServer]:
    """A server for this test session: the one `TEST_DATABASE_URL` names, or a new one in a temporary directory."""
    given = os.environ.get(URL)
    if given:
        yield _parse(given)
        return
    bin_dir = binaries()
    if bin_dir is None:
        raise PostgresUnavailable("PostgreSQL is not installed (no initdb on PATH or in /usr/lib/postgresql); "
                                  f"install it, or set {URL}")
    user = _server_user()
    base = Path(tempfile.mkdtemp(prefix="tabletop-pg-"))
    data, log = base / "data", base / "server.log"
    try:
        if user is not None:
            shutil.chown(base, user)
        _run(_as(user, [str(bin_dir / "initdb"), "-D", str(data), "-A", "trust", "-U", DATABASE_USER, "-E", "UTF8",
                        "--no-sync", "--locale=C"]), "initdb")
        # Unix socket only (nothing listens on the network); no fsync: the server outlives every test's bot
        # process, so what a test proves about commits does not rest on the disk.
        options = f"-k {base} -c listen_addresses='' -c fsync=off -c max_connections=200"
        _run(_as(user, [str(bin_dir / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(log), "-w", "-t", "60",
                        "start"]), "pg_ctl start", log)
        try:
            yield PostgresServer(host=str(base), port=5432, user=DATABASE_USER)
        finally:
            _run(_as(user, [str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"]), "pg_ctl stop")
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _run(command: list[str], what: str, log: Path | None = None) -> None:
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        tail = log.read_text(errors="replace")[-2000:] if log is not None and log.exists() else ""
        raise PostgresUnavailable(f"{what} failed ({done.returncode}): {done.stderr.strip()[-2000:]} {tail}".strip())


def _parse(url: str) -> PostgresServer:
    from urllib.parse import parse_qs, urlsplit

    parts = urlsplit(url)
    query = parse_qs(parts.query)
    host = query.get("host", [parts.hostname or "/var/run/postgresql"])[0]
    port = int(query.get("port", [parts.port or 5432])[0])
    return PostgresServer(host=host, port=port, user=parts.username or DATABASE_USER, password=parts.password)


async def create_database(server: PostgresServer, name: str) -> str:
    """A new, empty database `name` on `server` (an older one of that name is dropped first); returns its URL."""
    import asyncpg

    admin = await asyncpg.connect(server.url())
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    return server.url(name)
