"""`python -m bot` as a child process against the offline Discord: spawned, waited for, SIGKILLed, restarted.

Used by the crash test (tests/tools/crash.py) and the proof of several processes (tests/tools/shards_proof.py). A
process runs on a SQLite file or a PostgreSQL database (`target`), unsharded or as one shard of several: then it
identifies as `shard` on the fake gateway, which gives it the events of its guilds (and shard 0 the DMs), as Discord
does.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
import time
from collections import Counter
from pathlib import Path

from storage.postgres import is_postgres_url
from tests.support.fakediscord import FakeDiscord
from tests.support.fakediscord.shards import ShardKey, shard_of

REPO = Path(__file__).resolve().parents[2]
_HOLDER = re.compile(r"started as ([0-9a-f]+) in the database's leases")
_MIGRATION = re.compile(r"applied migration (\d{4})")
_TIMER = re.compile(r"turn timer of game \d+ fired: ([\w-]+)")


class BotProcess:
    """One bot process on `target` (a SQLite file's path or a PostgreSQL URL), as `shard` of several or alone."""

    def __init__(self, fake: FakeDiscord, workdir: Path, *, target: str | Path | None = None,
                 shard: ShardKey | None = None, name: str = "bot") -> None:
        self.fake = fake
        self.workdir = workdir
        self.target: str | Path = workdir / "bot.sqlite3" if target is None else target
        self.shard = shard
        self.name = name
        self.proc: asyncio.subprocess.Process | None = None
        self.starts = 0
        self.kills = 0
        self._identifies_at_start = 0
        self._session_at_start: object = None
        self.logs: list[Path] = []
        self.killed_at: list[float] = []  # wall-clock times of the SIGKILLs, to explain what a kill cut short
        self.killed_logs: set[Path] = set()  # the logs of the starts that were killed

    @property
    def database(self) -> Path:
        """The SQLite file (for what only a file has: the integrity check)."""
        assert not is_postgres_url(self.target), "a PostgreSQL database has no file"
        return Path(self.target)

    def env(self) -> dict[str, str]:
        keep = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT")}
        keep.update(
            PYTHONPATH=str(REPO),
            PYTHONUNBUFFERED="1",
            DISCORD_TOKEN=self.fake.token,
            DISCORD_API_BASE=self.fake.api_base,
            DISCORD_GATEWAY_URL=self.fake.gateway_url,
            LOG_LEVEL="INFO",
        )
        if is_postgres_url(self.target):
            keep["DATABASE_URL"] = str(self.target)
        else:
            keep["DATABASE_PATH"] = str(self.target)
        if self.shard is not None:
            keep.update(SHARD_COUNT=str(self.shard[1]), SHARD_IDS=str(self.shard[0]))
        return keep

    async def spawn(self) -> None:
        self.starts += 1
        self._identifies_at_start = self.fake.hub.identify_count
        slot = self.fake.hub.slots.get(self.shard) if self.shard is not None else None
        self._session_at_start = None if slot is None else slot.session
        log = self.workdir / f"{self.name}-{self.starts:03d}.log"
        self.logs.append(log)
        with log.open("wb") as out:  # the child keeps its own descriptor
            # cwd is the work directory: no stray .env is read.
            self.proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot", cwd=self.workdir, env=self.env(), stdout=out, stderr=out,
            )

    def connected(self) -> bool:
        """Whether this process (not an earlier one of its shard) is identified and receiving its events."""
        hub = self.fake.hub
        if self.shard is None:
            return hub.identify_count > self._identifies_at_start and hub.is_ready
        slot = hub.slots.get(self.shard)
        return slot is not None and slot.session is not self._session_at_start and slot.is_ready

    async def ready(self, timeout: float = 60.0) -> None:
        """Wait until this process has identified on the gateway and received its guilds."""
        proc = self.proc
        assert proc is not None
        deadline = time.monotonic() + timeout
        while not self.connected():
            if proc.returncode is not None:
                raise RuntimeError(f"{self.name} exited with status {proc.returncode}; see {self.logs[-1]}")
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.name} did not connect within {timeout} s; see {self.logs[-1]}")
            await asyncio.sleep(0.01)

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.returncode is None

    async def kill(self) -> None:
        proc = self.proc
        assert proc is not None
        if proc.returncode is None:
            proc.send_signal(signal.SIGKILL)
            self.killed_at.append(time.time())
            self.killed_logs.add(self.logs[-1])
        await proc.wait()
        self.kills += 1
        # Wait until the fake has seen the socket close, so nothing more is dispatched into it.
        deadline = time.monotonic() + 5
        while self._socket_open() and time.monotonic() < deadline:
            await asyncio.sleep(0.005)
        # A dead process answers nothing more: wake whoever still waits on it (callbacks it sent before dying have
        # been read by now; anything that still lands is counted, as the figures are taken at the end). Another
        # process's interactions are left alone: it is alive and answers them.
        await asyncio.sleep(0.05)
        for res in list(self.fake.interactions.values()):
            if not res.answered and self.receives(res.channel.guild_id):
                res.settle()

    def _socket_open(self) -> bool:
        hub = self.fake.hub
        return hub.is_ready if self.shard is None else hub.shard_ready(self.shard)

    def receives(self, guild_id: int | None) -> bool:
        """Whether the events of `guild_id` (None: DMs) come to this process."""
        return self.shard is None or shard_of(guild_id, self.shard[1]) == self.shard[0]

    async def stop(self) -> None:
        """A polite stop (Ctrl-C) at the end; SIGKILL if it hangs."""
        proc = self.proc
        if proc is None or proc.returncode is not None:
            return
        proc.send_signal(signal.SIGINT)
        try:
            await asyncio.wait_for(proc.wait(), 15)
        except TimeoutError:
            proc.send_signal(signal.SIGKILL)
            await proc.wait()

    def _lines(self) -> list[tuple[Path, str]]:
        return [(log, line) for log in self.logs if log.exists()
                for line in log.read_text(encoding="utf-8", errors="replace").splitlines()]

    def error_lines(self) -> list[str]:
        """ERROR / CRITICAL log lines and tracebacks of every start (kills show up only as missing lines).

        One traceback is the kill's, not the bot's: a worker process (bot/workers.py) that the killed bot was starting
        finds its parent gone before it could read what to run (multiprocessing's "EOFError: Ran out of input" in
        forkserver.py), in the log of a start that was killed."""
        found = []
        for log in self.logs:
            if not log.exists():
                continue
            lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
            for number, line in enumerate(lines):
                if line.startswith("Traceback") and log in self.killed_logs and _orphaned_worker(lines[number:]):
                    continue
                if " ERROR " in line or " CRITICAL " in line or line.startswith("Traceback"):
                    found.append(f"{log.name}: {line}")
        return found

    def holders(self) -> list[str]:
        """The lease holder id of each start so far (storage/leases.py), in order."""
        return [m.group(1) for _log, line in self._lines() if (m := _HOLDER.search(line))]

    def timers_fired(self) -> Counter[str]:
        """The turn timers this process's starts fired, by event (reminder, forfeit, ...)."""
        return Counter(m.group(1) for _log, line in self._lines() if (m := _TIMER.search(line)))

    def migrations_applied(self) -> list[int]:
        """The migrations this process's starts applied (each says so in its log)."""
        return [int(m.group(1)) for _log, line in self._lines() if (m := _MIGRATION.search(line))]


def _orphaned_worker(traceback: list[str]) -> bool:
    """Whether the traceback starting `traceback` is a worker process's whose parent died while starting it."""
    block = []
    for line in traceback[1:]:
        if not line.startswith(" "):
            block.append(line)
            break
        block.append(line)
    return any("multiprocessing/forkserver.py" in line for line in block) and block[-1:] == [
        "EOFError: Ran out of input"]
