"""Nonces for the messages I post and then store the id of (a tournament round's pairings, its standings, a round
game's board).

Posting and storing are two steps: a process stopped between them (a crash, a kill) leaves the message in the channel
with nothing pointing to it, and whoever posts it again (the restart, another process) would make a second copy. With a
nonce Discord returns the message this bot already created with that nonce in the past few minutes instead of creating
another (`enforce_nonce`, which discord.py sends with every nonce), so the second post gets the first message back and
stores it. A nonce names one message: what it is for, the ids that make it that one, the channel it goes to, and the
stored creation time of what it belongs to (another database, restored from a backup or started afresh, with the same
ids never has the same times).
"""

from __future__ import annotations

import hashlib

import discord


def post_nonce(purpose: str, *parts: int | float) -> str:
    """The nonce of one message: 24 hexadecimal digits of a hash of `purpose` and `parts` (Discord takes 25 at
    most)."""
    text = ":".join([purpose, *(repr(part) for part in parts)])
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


def same_words(message: discord.Message, content: str | None, embed: discord.Embed | None) -> bool:
    """Whether `message` says what `content` and `embed` say: a post with a nonce may return a message posted
    earlier, from an older state, which must then be edited to the new one. Only the words are compared (Discord adds
    its own fields to an embed it returns, and a picture comes back as a link)."""
    def text(value: str | None) -> str:
        return (value or "").strip()  # Discord trims what it stores

    def words(e: discord.Embed) -> object:
        return text(e.title), text(e.description), [(text(f.name), text(f.value)) for f in e.fields], text(
            e.footer.text)

    return text(message.content) == text(content) and [words(e) for e in message.embeds] == (
        [words(embed)] if embed is not None else [])
