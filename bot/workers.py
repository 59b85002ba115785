"""Worker processes for the bot's CPU-heavy work: computer players' thinking, board pictures and the solver's advice.

A Python process runs one thread at a time (the GIL). A computer player thinking in a thread of the bot's process
would make the event loop wake late and run at half speed for as long as it thinks, and every board picture would do
the same while it is drawn. Here that work runs in other processes, so the loop only waits for the answer.

- Three pools, so that a picture a player is waiting for never queues behind a bot's quarter-second of thought, and
  a computer player's reply never behind a burst of analyses: `think` (computer players), `draw` (pictures) and
  ADVISING (the solver's hints and `/chopsticks analyze`, which anyone can ask for in any amount). The advice
  workers run at a lower priority still, so on a busy machine the computer players get a core first.
- Fair sharing: each piece of work has an owner (the person who asked, or the game a computer player
  moves in). A pool hands its workers one piece at a time, the owners waiting taking turns, so one person's burst
  of a hundred pieces delays another's piece by at most one of theirs. A pool can also bound how many pieces one
  owner has in it and how many may wait in all: beyond either, the work is refused at once (`Busy`, with what to
  tell the person), rather than answered minutes late.
- Processes come from a fork server ('forkserver' start method): a small process started once, with the rules and the
  renderer imported, that forks each worker. Forking the bot itself (threads, an event loop, open sockets) is unsafe,
  and 'spawn' would re-import the whole bot in every worker.
- Work goes in and out as plain data: a function named by its module, views or stored snapshots, bytes or an action's
  text back. Workers hold no state that matters: one that dies (killed, out of memory) breaks its pool, which is
  replaced, and the work is tried again, so a bot's move or a picture is never lost to it.
- Workers run at a lower priority (nice) than the bot, so on a busy machine the event loop gets a core first, and they
  exit on their own when the bot is gone (even killed with SIGKILL).
- Where no process can be started (no /dev/shm, a sandbox), the work runs in a thread of the bot's, with a warning.

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
from collections import Counter, OrderedDict, deque
from collections.abc import Callable, Hashable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextvars import ContextVar
from functools import partial
from typing import Any, TypeVar

from games.text import Text

log = logging.getLogger(__name__)
T = TypeVar("T")

# What every worker needs, imported once in the fork server: the rules (and their computer players) and the renderer.
PRELOAD = ["games.engines", "bot.games.generals.pictures"]
NICENESS = 10  # how much less CPU priority than the bot a worker has: the event loop's turn comes first
ADVICE_NICENESS = 15  # the advice workers': computer players and pictures come before analyses
ADVICE_PER_OWNER = 2  # hints and analyses one person may have in the advice pool at once (one worked on, one waiting)
ADVICE_WAITING = 16  # hints and analyses that may wait in all; beyond that they are refused with when to try again
RETRIES = 2  # fresh pools a piece of work is tried in after the worker doing it died
PARENT_CHECK = 1.0  # seconds between a worker's checks that the bot still runs


class WorkerError(RuntimeError):
    """The work kept killing the worker processes doing it."""


class Busy(RuntimeError):
    """A pool refused work: its owner has as much in it as one may, or too much waits in all. `args[0]` is what to
    tell the person (a refusal, shown privately: bot/errors.py)."""


# Who the work that runs in this context is for, when `run` is not told: the person whose click or command is being
# handled (set by bot/components.py's dispatch and the command tree's check, bot/validation.py). A task started
# while handling it (a redraw) inherits it: its pictures are that person's too.
working_for: ContextVar[Hashable | None] = ContextVar("working_for", default=None)


def user(user_id: int) -> Hashable:
    """The owner that stands for a person."""
    return ("user", user_id)


def game(game_id: int) -> Hashable:
    """The owner that stands for a game's computer players."""
    return ("game", game_id)


class _Turns:
    """At most `slots` pieces of work at once; the others wait, their owners taking turns (round robin).

    Lives on the event loop (no lock): every call comes from the loop's thread."""

    def __init__(self, slots: int) -> None:
        self.slots = slots
        self.running = 0
        self.queued = 0  # waiting in `take`
        self.admitted = 0  # pieces admitted to the pool and not done: about to wait, waiting or running
        self.owned: Counter[Hashable] = Counter()  # the same per owner
        self._queues: OrderedDict[Hashable, deque[asyncio.Future[None]]] = OrderedDict()  # in turn order

    async def take(self, owner: Hashable) -> None:
        """Wait for this owner's turn at a slot (at once when one is free and nobody waits)."""
        if self.running < self.slots and not self.queued:
            self.running += 1
            return
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queues.setdefault(owner, deque()).append(turn)
        self.queued += 1
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self.give_back()  # handed the slot just as it was cancelled: pass it on
            else:
                self._forget(owner, turn)
            raise

    @property
    def waiting(self) -> int:
        """Pieces admitted and not running yet (some still on their way to `take`, e.g. deferring an answer)."""
        return self.admitted - self.running

    def give_back(self) -> None:
        """A piece of work is done: its slot goes to the next owner in turn (who goes to the back of the line)."""
        while self._queues:
            owner, queue = next(iter(self._queues.items()))
            turn = queue.popleft()
            self.queued -= 1
            if queue:
                self._queues.move_to_end(owner)
            else:
                del self._queues[owner]
            if not turn.done():
                try:
                    turn.set_result(None)  # the slot passes on: `running` stays
                except RuntimeError:  # its event loop is gone (a test's): nobody waits for it any more
                    continue
                return
        self.running -= 1

    def _forget(self, owner: Hashable, turn: asyncio.Future[None]) -> None:
        queue = self._queues.get(owner)
        if queue is not None and turn in queue:
            queue.remove(turn)
            self.queued -= 1
            if not queue:
                del self._queues[owner]


def _worker_started(parent: int, niceness: int = NICENESS) -> None:
    """In each new worker: lower its priority, leave Ctrl-C to the bot, and exit once the bot is gone."""
    # A terminal's Ctrl-C, and systemd's stop (KillSignal=SIGINT to the whole service), reach every process: the bot
    # shuts its pools down in order; a worker interrupted on its own would only break its pool during that stop.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(OSError):  # not allowed here: the work still gets done, at the bot's priority
        os.nice(niceness)
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
    """A few worker processes for one kind of work, replaced when one dies; a thread where there can be none.

    Work is handed to the workers one piece per free worker, the owners of waiting work taking turns (`_Turns`);
    with `per_owner` and `waiting_limit`, an owner's piece beyond `per_owner`, or any piece while `waiting_limit`
    wait already, is refused at once with `Busy` (`busy` and `full` say why to the person)."""

    def __init__(self, name: str, workers: int, *, niceness: int = NICENESS, per_owner: int | None = None,
                 waiting_limit: int | None = None, busy: Text | None = None, full: Text | None = None) -> None:
        self.name = name
        self.workers = workers
        self.niceness = niceness
        if (per_owner is not None and busy is None) or (waiting_limit is not None and full is None):
            raise ValueError("a bounded pool needs the words of its refusals")
        self.per_owner = per_owner
        self.waiting_limit = waiting_limit
        self.busy, self.full = busy, full
        self._turns = _Turns(workers)
        self._executor: ProcessPoolExecutor | None = None
        self._warming: Future[None] | None = None  # a plain future: the pools outlive any one event loop (tests)
        self._in_threads = False  # no process could be started: run in threads from now on
        self._stopped = False
        self.started = False  # by a bot: from then on work is shared out in turns and bounded
        self.replaced = 0  # pools replaced after a worker died (for tests and logs)
        self.done_in_processes = 0  # pieces of work a worker process did (for tests)

    def start(self) -> None:
        self._stopped = self._in_threads = False
        self.started = True
        self._turns = _Turns(self.workers)
        self._executor = self._new_executor()

    @contextlib.contextmanager
    def admit(self, owner: Hashable | None = None) -> Iterator[Place]:
        """A place in this pool for a piece of work of `owner` (by default whoever `working_for` names), counted as
        theirs for the block: `Busy` at once when the pool refuses it (so an interaction can be refused before its
        answer is deferred). `place.run(fn, ...)` then runs the work in the owner's turn."""
        owner = owner if owner is not None else working_for.get()
        turns = self._turns
        if self.started:
            if self.per_owner is not None and owner is not None and turns.owned[owner] >= self.per_owner:
                raise Busy(self.busy)
            if self.waiting_limit is not None and turns.waiting >= self.waiting_limit:
                raise Busy(self.full)
        turns.owned[owner] += 1
        turns.admitted += 1
        try:
            yield Place(self, turns, owner)
        finally:
            turns.admitted -= 1
            turns.owned[owner] -= 1
            if not turns.owned[owner]:
                del turns.owned[owner]

    def owned_by(self, owner: Hashable) -> int:
        """Pieces of work of `owner` in this pool now, waiting or running."""
        return self._turns.owned[owner]

    @property
    def waiting(self) -> int:
        """Pieces of work waiting for a worker now."""
        return self._turns.waiting

    @property
    def in_processes(self) -> bool:
        """Whether work runs in worker processes (False: in threads of the bot's process)."""
        return self._executor is not None and not self._in_threads

    async def run(self, fn: Callable[..., T], /, *args: Any, owner: Hashable | None = None, **kwargs: Any) -> T:
        """`fn(*args, **kwargs)` in a worker process, in `owner`'s turn (by default whoever `working_for` names):
        `fn` must be a module-level function, and its arguments and result plain data. An exception that `fn` raises
        comes back as it is; a dead worker's work is tried again in a new pool. `Busy` when the pool refuses it."""
        with self.admit(owner) as place:
            return await place.run(fn, *args, **kwargs)

    async def _run(self, fn: Callable[..., T], args: tuple[Any, ...], kwargs: dict[str, Any]) -> T:
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
                                           initargs=(os.getpid(), self.niceness))
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


class Place:
    """A piece of work's place in a pool (`WorkerPool.admit`)."""

    def __init__(self, pool: WorkerPool, turns: _Turns, owner: Hashable | None) -> None:
        self._pool, self._turns, self._owner = pool, turns, owner

    async def run(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        """`fn(*args, **kwargs)` in one of the pool's workers once it is this owner's turn (at once when the pool was
        not started by a bot: in a thread)."""
        pool = self._pool
        if not pool.started:  # no bot started the pools (the service's own tests, tools)
            return await asyncio.to_thread(partial(fn, *args, **kwargs))
        await self._turns.take(self._owner)
        try:
            return await pool._run(fn, args, kwargs)
        finally:
            self._turns.give_back()


# ----- the pools of this process ---------------------------------------------------------------------------------
_CORES = os.cpu_count() or 1
THINKING = WorkerPool("thinking", workers=max(1, _CORES))  # one bot's decision per core at once
DRAWING = WorkerPool("drawing", workers=max(1, min(2, _CORES)))  # pictures take milliseconds: two keep up
# The solver for people: a hint, an analysis. Its own workers (a quarter of the cores, at least one), so that a burst of
# analyses (slow on big rule sets) never holds up a computer player's reply, and a bounded line.
ADVISING = WorkerPool(
    "advising", workers=max(1, _CORES // 4), niceness=ADVICE_NICENESS, per_owner=ADVICE_PER_OWNER,
    waiting_limit=ADVICE_WAITING,
    busy=Text("Wait for your last analysis or hint to finish, then ask again."),
    full=Text("Too many analyses and hints are waiting right now; try again in a minute."),
)
POOLS = (THINKING, DRAWING, ADVISING)
_users = 0


def start() -> None:
    """Start the pools (for a bot that starts); every `start` needs its `stop`."""
    global _users
    _users += 1
    if _users == 1:
        for pool in POOLS:
            pool.start()


async def stop() -> None:
    """The bot that called `start` stops; the last one ends the worker processes."""
    global _users
    _users = max(0, _users - 1)
    if _users == 0:
        await asyncio.gather(*(pool.stop() for pool in POOLS))


async def think(fn: Callable[..., T], /, *args: Any, owner: Hashable | None = None, **kwargs: Any) -> T:
    """A computer player's decision, `fn(*args, **kwargs)`, in a thinking worker (`owner`: `game(id)`)."""
    return await THINKING.run(fn, *args, owner=owner, **kwargs)


async def draw(fn: Callable[..., T], /, *args: Any, owner: Hashable | None = None, **kwargs: Any) -> T:
    """A picture, `fn(*args, **kwargs)`, in a drawing worker."""
    return await DRAWING.run(fn, *args, owner=owner, **kwargs)


@contextlib.contextmanager
def working_for_user(user_id: int) -> Iterator[None]:
    """The work started in this block (and in tasks it starts) is this person's, unless told otherwise."""
    token = working_for.set(user(user_id))
    try:
        yield
    finally:
        working_for.reset(token)
