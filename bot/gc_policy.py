"""Garbage collection set for answering interactions quickly (`python -m bot` applies it once it has logged in)."""

from __future__ import annotations

import gc
import logging

log = logging.getLogger(__name__)

# Allocations between two collections of the youngest generation (CPython's default is 700).
YOUNG_GENERATION = 10_000


def tune_for_latency() -> None:
    """Let the short-lived reference cycles of each interaction die young, and stop re-reading start-up objects.

    Every interaction leaves some fifty objects in reference cycles that only the cyclic collector frees: discord.py
    builds a View from the clicked message to find a dynamic item (the View and its buttons point at each other), an
    Interaction and its InteractionResponse point at each other, and so on. With the default threshold a young
    collection runs several times while one interaction is being answered, so those objects are promoted and pile up
    in the oldest generation, whose full collections, every few seconds under load, stop the event loop longer than
    anything else the bot does and so make its slowest answers. With a young generation of 10,000 allocations most
    are garbage before a collection looks at them, and freezing what exists once the bot has started (modules, classes,
    the command tree, the cogs) keeps every later collection from walking it again. (A frozen object is still freed as
    soon as nothing refers to it; only a cycle among frozen objects would stay, and those live as long as the process
    anyway.)"""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_GENERATION, *gc.get_threshold()[1:])
    log.info("garbage collection: %d start-up objects set aside, young generation of %d allocations",
             gc.get_freeze_count(), gc.get_threshold()[0])
