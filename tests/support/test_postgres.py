"""tests/support/postgres.py: a test run killed part-way (a timeout, SIGKILL) leaves no PostgreSQL server running
(issue 22, point 12). Each test starts the support's server in a child process, as a test session does, and kills it."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import postgres

ROOT = Path(__file__).resolve().parents[2]
# A test session in miniature: start the server, say where it is, and wait to be killed.
SESSION = ("import sys, time\nfrom tests.support.postgres import running_server\nwith running_server() as server:\n"
           "    print(server.host, flush=True)\n    time.sleep(600)\n")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _wait_until(condition: object, timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if callable(condition) and condition():
            return True
        time.sleep(0.05)
    return False


@contextlib.contextmanager
def _session() -> Iterator[tuple[subprocess.Popen[str], Path, int]]:
    """A child process running the support's server: (the child, the server's directory, the server's pid). Whatever
    the test finds, no server of its is left behind."""
    if postgres.binaries() is None or os.environ.get(postgres.URL):
        if os.environ.get(postgres.REQUIRE) == "require":
            pytest.fail("PostgreSQL is required here but not installed")
        pytest.skip("no PostgreSQL binaries to start a server with (or TEST_DATABASE_URL names one)")
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop(postgres.URL, None)
    child = subprocess.Popen([sys.executable, "-c", SESSION], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    base: Path | None = None
    try:
        assert child.stdout is not None
        base = Path(child.stdout.readline().strip())
        server = int((base / "data" / "postmaster.pid").read_text().split()[0])
        assert _alive(server)
        yield child, base, server
    finally:
        child.kill()
        child.wait()
        if base is not None and base.name.startswith(postgres.PREFIX):  # the test failed: clean up what it left
            with contextlib.suppress(Exception):
                postgres.stop_stale_servers()


def test_the_server_stops_at_once_when_the_run_that_started_it_is_killed() -> None:
    with _session() as (child, base, server):
        child.send_signal(signal.SIGKILL)
        child.wait()
        assert _wait_until(lambda: not _alive(server)), "the server outlived the killed run"
        assert _wait_until(lambda: not base.exists()), "its directory was left behind"


def test_a_server_whose_run_and_guard_were_both_killed_is_stopped_at_the_next_start() -> None:
    with _session() as (child, base, server):
        guard = int((base / postgres.OWNER).read_text().split()[2])
        os.kill(guard, signal.SIGKILL)  # say the whole machine's processes were killed, the guard first
        child.send_signal(signal.SIGKILL)
        child.wait()
        time.sleep(0.5)
        assert _alive(server)
        assert base in postgres.stop_stale_servers()  # what the next start does first
        assert _wait_until(lambda: not _alive(server)) and not base.exists()
