"""Logging set-up with a filter that keeps secrets out of every log line.

What must never reach a log, at any level (discord.py's and aiohttp's own DEBUG lines included): the bot's token;
an interaction's or a webhook's token (whoever holds one can edit the bot's answers for 15 minutes), which discord.py
logs inside URLs (`/interactions/<id>/<token>/callback`, `/webhooks/<id>/<token>/...`) and inside the gateway
events it logs at DEBUG (`'token': '...'`); and a password, in any form a URL carries it (`user:password@host`,
`?password=...`, percent-encoded). The secrets the bot knows of (its token, DATABASE_URL's password) are replaced
wherever they appear; the others are recognised by where they stand.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable

HIDDEN = "[token hidden]"
PASSWORD_HIDDEN = "***"

# (pattern, replacement): each keeps what names the secret and hides the secret itself.
_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    # An interaction's or a webhook's token in a URL's path (discord.py's request lines, aiohttp's errors).
    (re.compile(r"(/(?:interactions|webhooks)/\d+/)[^/\s?#'\"<>]+"), rf"\g<1>{HIDDEN}"),
    # Discord's interaction tokens wherever they appear: they begin with base64 for "interaction:".
    (re.compile(r"aW50ZXJhY3Rpb24[A-Za-z0-9_\-.=]{16,}"), HIDDEN),
    # A token field of a payload, as JSON or a dict's repr ('token': '...'), or a keyword (token=...).
    (re.compile(r"""(["']token["']\s*:\s*["'])[^"']+"""), rf"\g<1>{HIDDEN}"),
    (re.compile(r"""(\btoken\s*=\s*["']?)[A-Za-z0-9_\-.]{20,}"""), rf"\g<1>{HIDDEN}"),
    # An Authorization header's credentials.
    (re.compile(r"""(authorization["']?\s*[:=]\s*["']?(?:Bot|Bearer)\s+)[^\s"',}]+""", re.IGNORECASE),
     rf"\g<1>{HIDDEN}"),
    # A URL's password: scheme://user:password@host (the authority ends at its last "@").
    (re.compile(r"(\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s:/?#@\[\]]*:)[^\s/?#]*@"), rf"\g<1>{PASSWORD_HIDDEN}@"),
    # A password given as a URL's query (?password=...) or a libpq keyword (password=...).
    (re.compile(r"(\bpassword\s*=\s*)[^\s&#'\",;]+", re.IGNORECASE), rf"\g<1>{PASSWORD_HIDDEN}"),
)


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """`text` with every known secret and every token or password it carries hidden."""
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    for secret in secrets:  # wherever else they stand
        if secret:
            text = text.replace(secret, HIDDEN)
    return text


class RedactSecrets(logging.Filter):
    """Hide the known secrets (the bot token, the database's password) and any interaction or webhook token or URL
    password in a record's message, traceback and stack."""

    def __init__(self, secrets: Iterable[str]) -> None:
        super().__init__()
        # Longest first: a secret that contains another is hidden whole.
        self._secrets = sorted({s for s in secrets if s}, key=len, reverse=True)

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        redacted = self._redact(message)
        if redacted != message:
            record.msg, record.args = redacted, None
        if record.exc_text:
            record.exc_text = self._redact(record.exc_text)
        if record.stack_info:
            record.stack_info = self._redact(record.stack_info)
        return True

    def _redact(self, text: str) -> str:
        return redact(text, self._secrets)


def setup_logging(level: str, secrets: Iterable[str] = ()) -> None:
    """One handler on the root logger, to the terminal (the journal), every line of which passes the redaction."""
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)-7s %(name)s: %(message)s"))
    handler.addFilter(RedactSecrets(secrets))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
