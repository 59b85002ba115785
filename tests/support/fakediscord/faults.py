"""Planned REST failures: rate limits, server errors, slow answers and dropped connections.

A test plans a fault with :meth:`~tests.support.fakediscord.server.FakeDiscord.inject_rest_fault`; the next
``times`` requests to that route (after being recorded and validated like any other) fail the way Discord
or the network fails, so the bot experiences exactly what discord.py would in production:

* ``status=429``: Discord's rate-limit answer (JSON ``retry_after``/``global``, ``Retry-After`` and
  ``X-RateLimit-*`` headers, and the ``Via`` header without which discord.py takes a 429 for a Cloudflare
  ban and gives up). discord.py sleeps ``retry_after`` and sends the request again.
* ``status=500`` (502, 503, 504, 524 ...): discord.py retries 500/502/504/524 after 1, 3, 5, 7 s and
  raises ``DiscordServerError`` after the fifth try; other codes raise at once.
* ``delay=s``: the request reaches Discord ``s`` seconds late, then is handled normally (or fails as
  planned). With :attr:`FakeDiscord.interaction_deadline` set, a late interaction callback is refused
  with 404 / 10062 Unknown interaction, as Discord refuses callbacks after 3 s.
* ``drop=True``: the connection closes without an answer, as when a proxy or the network times out;
  aiohttp raises ``ServerDisconnectedError``, which discord.py does not retry.
* ``applied=True``: Discord did the work (message created or edited) before the answer was lost, so the
  bot cannot know whether its request happened; a retry of an interaction callback then gets
  400 / 40060 "Interaction has already been acknowledged".
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

from .models import RecordedRequest

# Discord's 5xx bodies are plain JSON like this one (Cloudflare's 502/524 pages are HTML; discord.py
# copes with either).
SERVER_ERROR_BODY = {"message": "500: Internal Server Error", "code": 0}


@dataclass(eq=False)
class RestFault:
    """A planned failure of the next ``times`` requests to ``method route`` (a template as in ``calls``)."""

    method: str
    route: str
    status: int | None = 500
    retry_after: float = 0.1
    is_global: bool = False
    times: int = 1
    applied: bool = False
    delay: float = 0.0
    drop: bool = False
    # Requests this fault hit, in order.
    hits: list[RecordedRequest] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.times < 1:
            raise ValueError("a fault needs times >= 1")
        if self.status is None and not self.drop and self.delay <= 0:
            raise ValueError("a fault needs a status, drop=True or a delay")
        if self.status is not None and self.drop:
            raise ValueError("a dropped connection has no status")
        if self.status is not None and not 400 <= self.status <= 599:
            raise ValueError(f"status {self.status} is not a failure")

    @property
    def remaining(self) -> int:
        """How many more requests this fault will hit."""
        return self.times - len(self.hits)

    @property
    def fails(self) -> bool:
        """True unless this fault only delays the request."""
        return self.status is not None or self.drop

    def describe(self) -> str:
        """``429 retry_after=0.1`` / ``drop`` / ``delay 0.5 s``, for request records and diagnostics."""
        parts = []
        if self.delay > 0:
            parts.append(f"delay {self.delay:g} s")
        if self.drop:
            parts.append("drop")
        elif self.status == 429:
            parts.append(f"429 retry_after={self.retry_after:g}" + (" global" if self.is_global else ""))
        elif self.status is not None:
            parts.append(str(self.status))
        if self.applied:
            parts.append("after applying")
        return " ".join(parts)

    def error_body(self) -> Any:
        """The JSON body of the failure."""
        assert self.status is not None
        if self.status == 429:
            return {
                "message": "You are being rate limited.",
                "retry_after": self.retry_after,
                "global": self.is_global,
                "code": 0,
            }
        if self.status >= 500:
            return dict(SERVER_ERROR_BODY, message=f"{self.status}: Server Error")
        return {"message": f"{self.status}: Error", "code": 0}

    def headers(self) -> dict[str, str]:
        """Headers of the failure: Discord's rate-limit headers on a 429."""
        headers = {"Content-Type": "application/json", "Via": "1.1 google"}
        if self.status != 429:
            return headers
        headers["Retry-After"] = str(max(1, math.ceil(self.retry_after)))
        if self.is_global:
            headers["X-RateLimit-Global"] = "true"
            headers["X-RateLimit-Scope"] = "global"
            return headers
        headers.update(
            {
                "X-RateLimit-Limit": "5",
                "X-RateLimit-Remaining": "0",
                "X-RateLimit-Reset": f"{time.time() + self.retry_after:.3f}",
                "X-RateLimit-Reset-After": f"{self.retry_after:.3f}",
                "X-RateLimit-Bucket": f"fakediscord-{abs(hash((self.method, self.route))):x}",
                "X-RateLimit-Scope": "user",
            }
        )
        return headers


class FaultPlan:
    """The faults planned on one fake, matched in the order they were planned."""

    def __init__(self) -> None:
        self.faults: list[RestFault] = []

    def add(self, fault: RestFault) -> RestFault:
        self.faults.append(fault)
        return fault

    def take(self, method: str, route: str) -> RestFault | None:
        """The first fault with hits left for this route (the caller records the hit)."""
        return next(
            (f for f in self.faults if f.remaining > 0 and f.method == method and f.route == route), None
        )

    def clear(self) -> None:
        self.faults.clear()

    def pending(self) -> list[RestFault]:
        """Faults that have not hit as often as planned."""
        return [f for f in self.faults if f.remaining > 0]
