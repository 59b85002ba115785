"""Work for the bot's worker processes in tests (bot/workers.py): module-level, so a worker can import it by name."""

from __future__ import annotations

import os
import time
from pathlib import Path


def die_once(marker: str) -> int:
    """Kill the worker doing this the first time (as the out-of-memory killer would); do it the next time."""
    path = Path(marker)
    if not path.exists():
        path.write_text("died")
        os._exit(1)
    return os.getpid()


def always_die() -> int:
    """Work that kills every worker that tries it."""
    os._exit(1)


def refuse(message: str) -> int:
    """Work that fails as work can: its exception must come back as it is."""
    raise ValueError(message)


def nap(seconds: float) -> int:
    """Work that takes a worker for `seconds` (without its CPU)."""
    time.sleep(seconds)
    return os.getpid()
