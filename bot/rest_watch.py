"""What Discord refuses, counted and logged, so an admin sees its temporary ban coming.

Discord bans the bot's IP address from its API for a while (an hour or more) once it has made 10,000 invalid requests
in 10 minutes; an invalid request is one Discord answers with 401, 403 or 429, except a 429 whose X-RateLimit-Scope is
"shared" (that limit is the resource's, not the bot's). Its global rate limit (50 requests a second) is the bot's too,
shared by every process of the bot. discord.py waits out a 429 by itself and says little about it; this counts every
answer on discord.py's own HTTP session (an aiohttp trace given as discord.Client's `http_trace` option: interaction
answers and followups go through that session too), and logs the counts of the last 10 minutes as a WARNING as soon
as a refusal comes and then at most once a minute while more come; from a quarter of the ban's threshold the line is
an ERROR that names the ban.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter, deque
from collections.abc import Callable, Mapping
from types import SimpleNamespace

import aiohttp

log = logging.getLogger(__name__)

WINDOW = 600.0  # seconds: Discord counts invalid requests over 10 minutes
BAN_AT = 10_000  # invalid requests in WINDOW after which Discord bans the IP address for a while
LOUD_AT = BAN_AT // 4  # from here on the report is an ERROR
REPORT_EVERY = 60.0  # seconds between two reports while refusals keep coming
INVALID = (401, 403, 429)


class InvalidRequests:
    """The invalid requests of this process over the last WINDOW seconds, and their reports in the log."""

    def __init__(self, *, report_every: float = REPORT_EVERY, clock: Callable[[], float] = time.monotonic) -> None:
        self.report_every = report_every
        self._clock = clock
        self._seen: deque[tuple[float, str]] = deque()  # (when, what: "429", "429 global", "401", "403")
        self._reported_at: float | None = None
        self._report: asyncio.TimerHandle | None = None

    def trace_config(self) -> aiohttp.TraceConfig:
        """The trace to hand discord.py (`http_trace`): it sees every answer Discord gives the bot's HTTP session."""
        trace = aiohttp.TraceConfig()
        trace.on_request_end.append(self._on_request_end)
        return trace

    async def _on_request_end(self, _session: aiohttp.ClientSession, _context: SimpleNamespace,
                              params: aiohttp.TraceRequestEndParams) -> None:
        self.record(params.response.status, params.response.headers)

    def record(self, status: int, headers: Mapping[str, str]) -> None:
        """Count one answer of Discord's (nothing if it was not an invalid request) and see that it is reported."""
        if status not in INVALID:
            return
        if status == 429:
            scope = headers.get("X-RateLimit-Scope", "").lower()
            if scope == "shared":
                return
            is_global = scope == "global" or headers.get("X-RateLimit-Global", "").lower() == "true"
            what = "429 global" if is_global else "429"
        else:
            what = str(status)
        now = self._clock()
        self._seen.append((now, what))
        if self._report is None:
            due = 0.0 if self._reported_at is None else self._reported_at + self.report_every - now
            self._report = asyncio.get_running_loop().call_later(max(0.0, due), self.report)

    def counts(self) -> Counter[str]:
        """The invalid requests of the last WINDOW seconds by kind ("429", "429 global", "401", "403")."""
        horizon = self._clock() - WINDOW
        while self._seen and self._seen[0][0] < horizon:
            self._seen.popleft()
        return Counter(what for _, what in self._seen)

    def report(self) -> None:
        """Log the counts of the last 10 minutes (the bot's loop calls this; nothing to say, nothing logged)."""
        if self._report is not None:  # called before its time (at a stop, or by a test): once is enough
            self._report.cancel()
            self._report = None
        self._reported_at = self._clock()
        counts = self.counts()
        total = sum(counts.values())
        if not total:
            return
        limited = counts["429"] + counts["429 global"]
        said = (f"Discord refused {total} requests of this process in the last 10 minutes: {limited} rate limited "
                f"(429, {counts['429 global']} of them by the global limit), {counts['401']} unauthorised (401), "
                f"{counts['403']} forbidden (403)")
        if total >= LOUD_AT:
            log.error("%s. Discord bans the bot's IP address for an hour or more at %d such requests in 10 minutes, "
                      "counted over all the bot's processes: find what is refused, or stop some of them.", said, BAN_AT)
        else:
            log.warning("%s. Discord bans the bot's IP address for a while at %d in 10 minutes, counted over all the "
                        "bot's processes, which also share its global limit of 50 requests a second.", said, BAN_AT)
