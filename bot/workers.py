"""Worker processes for the bot's CPU-heavy work: computer players' thinking and board pictures.

A Python process runs one thread at a time (the GIL). A bot thinking in a thread of the bot's process made the event
loop wake 5-10 ms late and run at half speed for as long as it thought, and every board picture did the same for its
few milliseconds. Here that work runs in other processes, so the loop only waits for the answer.

- Two pools, so that a picture a player is waiting for never queues behind a bot's quarter-second of thought:
  `think` (computer players) and `draw` (pictures).
- Processes come from a fork server ('forkserver' start method): a small process started once, with the rules and the
  renderer imported, that forks each worker. Forking the bot itself (threads, an event loop, open sockets) is unsafe,
  and 'spawn' would re-import the whole bot in every worker.
- Work goes in and out as plain data: a function named by its module, views or stored snapshots, bytes or an action's
  text back. Workers hold no state that matters: one that dies (killed, out of memory) breaks its pool, which is
  replaced, and the work is tried again, so a bot's move or a picture is never lost to it.
- Workers run at a lower priority (nice) than the bot, so on a busy machine the event loop gets a core first, and they
  exit on their own when the bot is gone (even killed with SIGKILL).
- Where no process can be started (no /dev/shm, a sandbox), the work runs in a thread as before, with a warning.

The pools are per process, shared by every bot in it (tests run several): `start()` and `stop()` count their users.
Without `start()`, `think` and `draw` run their work in a thread (the service's own tests, tools).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from typing import Any, TypeVar

log = logging.getLogger(__name__)
T = TypeVar("T")

# What every worker needs, imported once in the fork server: the rules (and their computer players) and the renderer.
PRELOAD = ["games.engines", "bot.games.generals.pictures"]
NICENESS = 10  # how much less CPU priority than the bot a worker has: the event loop's turn comes first
RETRIES = 2  # fresh pools a piece of work is tried in after the worker doing it died
PARENT_CHECK = 1.0  # seconds between a worker's checks that the bot still runs


class WorkerError(RuntimeError):
    """The work kept killing the worker processes doing it."""


def _worker_started(parent: int) -> None:
    """In each new worker: lower its priority, leave Ctrl-C to the bot, and exit once the bot is gone."""
    # A terminal's Ctrl-C, and systemd's stop (KillSignal=SIGINT to the whole service), reach every process: the bot
    # shuts its pools down in order; a worker interrupted on its own would only break its pool during that stop.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(OSError):  # not allowed here: the work still gets done, at the bot's priority
        os.nice(NICENESS)
    threading.Thread(target=_exit_without, args=(parent, os.getppid()), name="watch-bot", daemon=True).start()


def _exit_without(bot: int, forkserver: int) -> None:
    """Exit when the bot has gone (a worker's parent is the fork server, which exits with the bot)."""
    while True:
        time.sleep(PARENT_CHECK)
        if os.getppid() != forkserver or not _alive(bot):
            os._exit(0)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # a process we may not signal: not ours any more
        return False
    return True


def _ready() -> int:
    """A no-op job: running it spawns a worker ahead of real work."""
    return os.getpid()


def _call(module: str, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """In a worker: the function `name` of `module`, called.

    Functions travel by name rather than pickled: pickle insists that the module in sys.modules still holds that very
    function, and discord.py drops a game's modules from sys.modules when the bot stops (it unloads its extensions)
    while a picture may still be on its way."""
    target: Any = importlib.import_module(module)
    for part in name.split("."):
        target = getattr(target, part)
    return target(*args, **kwargs)


class WorkerPool:
    """A few worker processes for one kind of work, replaced when one dies; a thread where there can be none."""

    def __init__(self, name: str, workers: int) -> None:
        self.name = name
        self.workers = workers
        self._executor: ProcessPoolExecutor | None = None
        self._warming: Future[None] | None = None  # a plain future: the pools outlive any one event loop (tests)
        self._in_threads = False  # no process could be started: run in threads from now on
        self._stopped = False
        self.replaced = 0  # pools replaced after a worker died (for tests and logs)
        self.done_in_processes = 0  # pieces of work a worker process did (for tests)

    def start(self) -> None:
        self._stopped = self._in_threads = False
        self._executor = self._new_executor()

    @property
    def in_processes(self) -> bool:
        """Whether work runs in worker processes (False: in threads of the bot's process)."""
        return self._executor is not None and not self._in_threads

    async def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """`fn(*args, **kwargs)` in a worker process: `fn` must be a module-level function, and its arguments and
        result plain data. An exception that `fn` raises comes back as it is; a dead worker's work is tried again in
        a new pool."""
        job = partial(fn, *args, **kwargs)
        remote = partial(_call, fn.__module__, fn.__qualname__, args, kwargs)
        for attempt in range(RETRIES + 1):
            executor = self._executor
            if executor is None or self._in_threads or self._stopped:
                return await asyncio.to_thread(job)
            if self._warming is not None and not self._warming.done():
                await asyncio.wrap_future(self._warming)
            try:
                future = asyncio.get_running_loop().run_in_executor(executor, remote)
            except BrokenProcessPool:
                future = None
            except RuntimeError:  # shut down meanwhile (the bot is stopping): finish this one in a thread
                return await asyncio.to_thread(job)
            except Exception:
                self._give_up_processes()
                return await asyncio.to_thread(job)
            if future is not None:
                try:
                    result: T = await future
                except BrokenProcessPool:
                    pass
                else:
                    self.done_in_processes += 1
                    return result
            if self._stopped:
                return await asyncio.to_thread(job)
            if attempt == RETRIES:
                raise WorkerError(f"{getattr(fn, '__name__', fn)} killed {RETRIES + 1} worker processes in a row")
            self._replace(executor)
        raise AssertionError("unreachable")

    async def stop(self) -> None:
        """Let running work finish, then end the worker processes."""
        self._stopped = True
        executor, self._executor = self._executor, None
        if self._warming is not None and not self._warming.done():
            await asyncio.wrap_future(self._warming)
        if executor is not None:
            await asyncio.to_thread(executor.shutdown, wait=True)  # queued work still finishes

    def pids(self) -> list[int]:
        """The worker processes now running (for tests)."""
        executor = self._executor
        processes = getattr(executor, "_processes", None) or {}
        return [process.pid for process in list(processes.values()) if process.pid is not None]

    def _new_executor(self) -> ProcessPoolExecutor | None:
        try:
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload(PRELOAD)
            executor = ProcessPoolExecutor(self.workers, mp_context=context, initializer=_worker_started,
                                           initargs=(os.getpid(),))
        except Exception as exc:  # e.g. no POSIX semaphores (/dev/shm) in this sandbox
            log.warning("cannot start %s worker processes (%r): that work runs in threads of the bot instead",
                        self.name, exc)
            self._in_threads = True
            return None
        # Starting a process waits for the fork server (and, the first time, for the fork server itself to import
        # the rules and the renderer): done in a thread, so the event loop never waits for it.
        warming: Future[None] = Future()
        warming.set_running_or_notify_cancel()  # a running future cannot be cancelled by a task awaiting it
        self._warming = warming
        threading.Thread(target=self._warm, args=(executor, warming), name=f"start-{self.name}-workers",
                         daemon=True).start()
        return executor

    def _warm(self, executor: ProcessPoolExecutor, warming: Future[None]) -> None:
        """Start every worker now (one no-op job each, all at once), so no later job starts one on the loop."""
        try:
            jobs: list[Future[int]] = [executor.submit(_ready) for _ in range(self.workers)]
            for job in jobs:
                job.result()
        except BrokenProcessPool:
            pass  # a worker died at once: the first real job finds the pool broken and replaces it
        except RuntimeError:
            pass  # shut down before it was ready
        except Exception as exc:
            log.warning("cannot start %s worker processes (%r): that work runs in threads of the bot instead",
                        self.name, exc)
            self._in_threads = True
        finally:
            warming.set_result(None)

    def _replace(self, broken: ProcessPoolExecutor) -> None:
        """A new pool instead of `broken` (once, however many jobs found it broken)."""
        if self._executor is not broken or self._stopped:
            return
        log.warning("a %s worker process died; starting new ones and trying its work again", self.name)
        self.replaced += 1
        broken.shutdown(wait=False, cancel_futures=True)
        self._executor = self._new_executor()

    def _give_up_processes(self) -> None:
        if not self._in_threads:
            log.warning("cannot start %s worker processes: that work runs in threads of the bot instead", self.name,
                        exc_info=True)
        self._in_threads = True


# ----- the pools of this process ---------------------------------------------------------------------------------
_CORES = os.cpu_count() or 1
THINKING = WorkerPool("thinking", workers=max(1, _CORES))  # one bot's decision per core at once
DRAWING = WorkerPool("drawing", workers=max(1, min(2, _CORES)))  # pictures take milliseconds: two keep up
_users = 0


def start() -> None:
    """Start the pools (for a bot that starts); every `start` needs its `stop`."""
    global _users
    _users += 1
    if _users == 1:
        THINKING.start()
        DRAWING.start()


async def stop() -> None:
    """The bot that called `start` stops; the last one ends the worker processes."""
    global _users
    _users = max(0, _users - 1)
    if _users == 0:
        await asyncio.gather(THINKING.stop(), DRAWING.stop())


async def think(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """A computer player's decision, `fn(*args, **kwargs)`, in a thinking worker."""
    return await THINKING.run(fn, *args, **kwargs)


async def draw(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """A picture, `fn(*args, **kwargs)`, in a drawing worker."""
    return await DRAWING.run(fn, *args, **kwargs)
