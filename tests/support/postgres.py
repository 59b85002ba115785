"""A throwaway PostgreSQL server for the tests (issue 17): started once per test session in a temporary directory,
on a unix socket only, as a non-root user, and stopped at the end.

- `TEST_DATABASE_URL=postgresql://...` uses a server someone already runs instead (its databases named `tabletop_*`
  are created and dropped by the tests).
- Otherwise the server binaries are looked for on PATH and in Debian's /usr/lib/postgresql/<version>/bin. Without
  them the PostgreSQL half of the suite is skipped, saying why; `TEST_POSTGRES=require` (set by .ci/run) makes that a
  failure instead, so CI can never pass by skipping it.
- A run killed part-way (a timeout, SIGKILL) never leaves its server running: a guard process, in a session of its
  own, waits on a pipe from the process that started the server and stops the server and removes its directory when
  that process is gone, however it went (issue 22, point 12). Should the guard be killed as well, the next start
  stops the server it left: each server's directory names the process that owns it (`owner`: its pid and start time),
  and a server whose owner is gone is stopped and removed (`stop_stale_servers`).
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import asyncpg

REQUIRE = "TEST_POSTGRES"  # "require": no server is a failure, not a skip
URL = "TEST_DATABASE_URL"
PREFIX = "tabletop-pg-"  # the temporary directories of the servers this module starts
OWNER = "owner"  # in such a directory: "<pid> <start time>" of the process that owns the server, and its guard's pid
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
    stop_stale_servers()
    base = Path(tempfile.mkdtemp(prefix=PREFIX))
    data, log = base / "data", base / "server.log"
    stop = _as(user, [str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"])
    guard = _start_guard(base, stop)
    try:
        (base / OWNER).write_text(f"{os.getpid()} {_started(os.getpid())} {guard.pid}\n", encoding="ascii")
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
            _run(stop, "pg_ctl stop")
    finally:
        shutil.rmtree(base, ignore_errors=True)
        _release(guard)


# The guard: reads its stdin, a pipe nobody writes to, until the end, which comes when the process holding the pipe's
# other end is gone (or closes it after stopping the server itself); then it stops the server if it still runs, and
# removes its directory. Its own session: a signal to the test run's process group does not reach it.
_GUARD = """
import shutil, subprocess, sys, json, pathlib
base, stop = pathlib.Path(sys.argv[1]), json.loads(sys.argv[2])
sys.stdin.buffer.read()
if (base / "data" / "postmaster.pid").exists():
    subprocess.run(stop, capture_output=True, check=False)
shutil.rmtree(base, ignore_errors=True)
"""


def _start_guard(base: Path, stop: list[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", _GUARD, str(base), json.dumps(stop)], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def _release(guard: subprocess.Popen[bytes]) -> None:
    """Let the guard go: the server is stopped and its directory removed, so it finds nothing left to do."""
    assert guard.stdin is not None
    guard.stdin.close()
    try:
        guard.wait(timeout=30)
    except subprocess.TimeoutExpired:
        guard.kill()


def _started(pid: int) -> str | None:
    """When process `pid` started (clock ticks since boot), which tells it from a later process given the same pid;
    None when there is no such process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    return stat.rpartition(")")[2].split()[19]  # field 22, counted after the command's name


def stop_stale_servers() -> list[Path]:
    """Stop and remove the servers this module started for a process that is gone (killed with its guard); a server
    whose owner still runs (another test run) is left alone, and so is a directory with no owner recorded."""
    stopped = []
    for base in Path(tempfile.gettempdir()).glob(f"{PREFIX}*"):
        try:
            pid, started, *_guard = (base / OWNER).read_text(encoding="ascii").split()
        except (OSError, ValueError):
            continue
        if _started(int(pid)) == started:
            continue
        data = base / "data"
        bin_dir = binaries()
        if (data / "postmaster.pid").exists() and bin_dir is not None:
            owner = data.stat().st_uid
            user = None if owner == os.geteuid() else pwd.getpwuid(owner).pw_name
            if user is None or os.geteuid() == 0:
                subprocess.run(_as(user, [str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"]),
                               capture_output=True, check=False)
        shutil.rmtree(base, ignore_errors=True)
        stopped.append(base)
    return stopped


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
