"""Validation issues and the Discord-shaped error bodies the fake answers them with."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

Location = tuple[str | int, ...]


@dataclass(frozen=True)
class Issue:
    """One thing wrong with a request body: where (JSON path) and why, in Discord's error vocabulary."""

    location: Location
    message: str
    code: str = "BASE_TYPE_BAD"
    # Some failures are not form errors but a top-level error code (e.g. 50006 "Cannot send an empty
    # message"); then the fake answers ``{"code": discord_code, "message": message}`` instead.
    discord_code: int | None = None
    source: str = "limits"

    def where(self) -> str:
        """The location as ``data.components[0].components`` (``body`` for the root)."""
        text = ""
        for part in self.location:
            text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
        return text or "body"

    def describe(self) -> str:
        """``where: message [source]``, for violation lists."""
        return f"{self.where()}: {self.message} [{self.source}]"


def merge_issues(*groups: Sequence[Issue]) -> list[Issue]:
    """Concatenate issue lists, dropping later issues at a location an earlier one already reported.

    The classic-limit checker and the OpenAPI description often flag the same field (both know a
    button label is at most 80 characters); one report per field is enough.
    """
    seen: set[Location] = set()
    merged: list[Issue] = []
    for group in groups:
        for issue in group:
            if issue.location not in seen:
                seen.add(issue.location)
                merged.append(issue)
    return merged


def invalid_form_body(issues: Sequence[Issue]) -> dict[str, Any]:
    """Build ``{"code": 50035, "message": "Invalid Form Body", "errors": {...}}`` as Discord nests it.

    discord.py flattens ``errors`` into the text of the ``HTTPException`` it raises, so the bot's logs
    name the offending field just as they would against the real API.
    """
    errors: dict[str, Any] = {}
    for issue in issues:
        node = errors
        for part in issue.location:
            node = node.setdefault(str(part), {})
        node.setdefault("_errors", []).append({"code": issue.code, "message": issue.message})
    return {"code": 50035, "message": "Invalid Form Body", "errors": errors}


def error_body(code: int, message: str) -> dict[str, Any]:
    """A plain JSON error such as ``{"code": 10008, "message": "Unknown Message"}``."""
    return {"code": code, "message": message}
