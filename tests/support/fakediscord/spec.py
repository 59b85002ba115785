"""Validate the bot's REST requests (and the fake's own answers) against Discord's OpenAPI description.

The description is Discord's official ``openapi.json`` (OpenAPI 3.1, MIT). It is read from
``$DISCORD_OPENAPI_SPEC`` or ``<repo>/../shared/discord-api-spec/openapi.json`` and never copied into the
repository. It is loaded once per process (module-level cache), so a test session pays for it once.

Known gaps between discord.py's wire format and the description, smoothed here:

* discord.py sends some snowflakes as JSON integers (``recipient_id`` of ``POST /users/@me/channels``,
  ids inside ``allowed_mentions``...) where the description says string. Discord accepts both, so large
  integers are turned into strings before validating (:func:`normalise_snowflakes`).
* The ``attachments`` array of a message body refers to uploads by their ``files[n]`` index, which
  discord.py sends as an integer ``id`` (``{"id": 0, "filename": ...}``); the description types every
  attachment id as a snowflake string. Those ids are stringified too.
* Requests with files are ``multipart/form-data`` with a ``payload_json`` part and ``files[n]`` parts;
  the description's multipart schemas cannot be checked part by part, so the parsed ``payload_json`` is
  validated as the operation's ``application/json`` body instead.
* The description's server is ``https://discord.com/api/v10``; the fake's path (already relative to
  ``/api/v10``) is mapped onto it.
* The description allows what components v2 allows (4000 characters of content, 40 components); the
  classic limits live in :mod:`tests.support.fakediscord.limits`.
"""

from __future__ import annotations

import json
import os
import time
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from openapi_core import Config, OpenAPI
from openapi_core.testing import MockRequest, MockResponse

from .errors import Issue

ENV_SPEC_PATH = "DISCORD_OPENAPI_SPEC"
DEFAULT_SPEC_PATH = Path(__file__).resolve().parents[4] / "shared" / "discord-api-spec" / "openapi.json"
SERVER = "https://discord.com"
API_PREFIX = "/api/v10"
# Real snowflakes are far above this (Discord's first ids were ~1.5e17); counts and flags are far below.
SNOWFLAKE_MIN = 10**15
MESSAGE_LIMIT = 240

_cache: dict[tuple[Path, bool], SpecValidator] = {}


class SchemaError(Protocol):
    """The parts of ``jsonschema.exceptions.ValidationError`` used here (jsonschema ships no type stubs)."""

    message: str
    validator: object
    validator_value: Any
    instance: Any
    context: list[SchemaError]

    @property
    def absolute_path(self) -> Sequence[str | int]: ...

    @property
    def relative_schema_path(self) -> Sequence[object]: ...


_warned = False


def normalise_snowflakes(value: Any) -> Any:
    """Return ``value`` with every integer that can only be a snowflake turned into its string form.

    Integer ``id`` fields inside an ``attachments`` array (upload indexes) are stringified as well.
    """
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and abs(value) >= SNOWFLAKE_MIN:
        return str(value)
    if isinstance(value, list):
        return [normalise_snowflakes(v) for v in value]
    if isinstance(value, dict):
        out = {k: normalise_snowflakes(v) for k, v in value.items()}
        attachments = out.get("attachments")
        if isinstance(attachments, list):
            out["attachments"] = [_stringify_id(a) for a in attachments]
        return out
    return value


def _stringify_id(attachment: Any) -> Any:
    """``{"id": 0, ...}`` -> ``{"id": "0", ...}``."""
    if isinstance(attachment, dict) and isinstance(attachment.get("id"), int):
        return {**attachment, "id": str(attachment["id"])}
    return attachment


@dataclass(frozen=True)
class SpecValidator:
    """Discord's OpenAPI description, ready to check requests and responses."""

    openapi: OpenAPI
    source: Path
    load_seconds: float

    def validate_request(
        self,
        method: str,
        path: str,
        *,
        query: Mapping[str, str],
        body: Any = None,
        has_body: bool = False,
        authorization: str | None = None,
    ) -> list[Issue]:
        """Issues with one request; ``path`` is relative to ``/api/v10`` and ``body`` already parsed."""
        request = self._request(method, path, query, body, has_body, authorization)
        issues: list[Issue] = []
        for error in self.openapi.iter_request_errors(request):
            issues.extend(_issues_from(error))
        return issues

    def validate_response(
        self, method: str, path: str, *, query: Mapping[str, str], status: int, body: Any
    ) -> list[Issue]:
        """Issues with one of the fake's own answers (a self-check that the fake talks like Discord)."""
        request = self._request(method, path, query, None, False, "Bot fake")
        data = b"" if body is None else json.dumps(body).encode()
        response = MockResponse(data, status_code=status, content_type="application/json")
        issues: list[Issue] = []
        for error in self.openapi.iter_response_errors(request, response):
            issues.extend(_issues_from(error))
        return issues

    @staticmethod
    def _request(
        method: str, path: str, query: Mapping[str, str], body: Any, has_body: bool, authorization: str | None
    ) -> MockRequest:
        """A request in openapi-core's terms, placed under the description's server URL."""
        headers = {"Authorization": authorization} if authorization else {}
        data = json.dumps(normalise_snowflakes(body)).encode() if has_body else None
        return MockRequest(SERVER, method, API_PREFIX + path, args=dict(query), headers=headers, data=data)


def resolve_spec_path(path: str | Path | None = None) -> Path:
    """The description's location: the argument, else ``$DISCORD_OPENAPI_SPEC``, else the shared default."""
    if path is not None:
        return Path(path).resolve()
    env = os.environ.get(ENV_SPEC_PATH)
    return Path(env).resolve() if env else DEFAULT_SPEC_PATH


def load_spec_validator(path: str | Path | None = None, *, check_spec: bool = False) -> SpecValidator | None:
    """Load (once per process) and return the validator, or None on a developer machine without the file.

    With ``$CI`` set to anything non-empty a missing file is an error, so CI can never silently skip
    validation. ``check_spec=True`` also meta-validates the description itself with
    openapi-spec-validator: that costs ~6 s and only tells us whether Discord's own file is well
    formed, so it is off by default (loading is then well under a second).
    """
    global _warned
    source = resolve_spec_path(path)
    key = (source, check_spec)
    cached = _cache.get(key)
    if cached is not None:
        return cached
    if not source.is_file():
        message = (
            f"Discord's OpenAPI description is missing at {source}; set ${ENV_SPEC_PATH} or provide "
            "../shared/discord-api-spec/openapi.json"
        )
        if os.environ.get("CI"):
            raise RuntimeError(message + " (required when $CI is set)")
        if not _warned:
            warnings.warn(message + "; OpenAPI validation is skipped", stacklevel=2)
            _warned = True
        return None
    started = time.perf_counter()
    with source.open("rb") as handle:
        document = json.load(handle)
    config = Config() if check_spec else Config(spec_validator_cls=None)
    openapi = OpenAPI.from_dict(document, config=config)
    validator = SpecValidator(openapi, source, time.perf_counter() - started)
    _cache[key] = validator
    return validator


def _issues_from(error: Exception) -> list[Issue]:
    """Turn one openapi-core error (and the jsonschema errors under it) into precise issues."""
    chain: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and len(chain) < 10:
        chain.append(current)
        current = current.__cause__
    schema_errors: list[SchemaError] = []
    for link in chain:
        schema_errors.extend(getattr(link, "schema_errors", ()) or ())
    prefix = _location_prefix(chain)
    if not schema_errors:
        text = "; ".join(dict.fromkeys(_shorten(str(link) or type(link).__name__) for link in chain))
        return [Issue(prefix, f"{type(error).__name__}: {text}", source="openapi")]
    return [_issue_from_schema_error(err, prefix) for err in schema_errors]


def _location_prefix(chain: Iterable[BaseException]) -> tuple[str | int, ...]:
    """``("query", name)`` for parameter errors; the body root otherwise."""
    for link in chain:
        name = getattr(link, "name", None)
        location = getattr(link, "location", None)
        if isinstance(name, str) and isinstance(location, str):
            return (location, name)
    return ()


def _issue_from_schema_error(error: SchemaError, prefix: tuple[str | int, ...]) -> Issue:
    """The most relevant leaf of a (possibly oneOf-nested) jsonschema error, with a short message."""
    best = _leaf(error)
    location = (*prefix, *best.absolute_path)
    return Issue(location, _message_for(best), _code_for(best), source="openapi")


def _leaf(error: SchemaError) -> SchemaError:
    """Descend through oneOf/anyOf to the branch the payload most nearly matched.

    jsonschema's ``best_match`` gives up when two branches fail equally, which for Discord's
    discriminated unions (one branch per callback or component type) leaves a useless "is not valid
    under any of the given schemas". Here a branch whose discriminator (``enum``/``const``) matched is
    preferred, then the branch that got deepest into the payload, then the one with fewest failures.
    """
    while error.context:
        branches: dict[object, list[SchemaError]] = {}
        for sub in error.context:
            branch = sub.relative_schema_path[0] if sub.relative_schema_path else None
            branches.setdefault(branch, []).append(sub)
        chosen = max(
            branches.values(),
            key=lambda errs: (
                not any(e.validator in ("enum", "const") for e in errs),
                max(_depth(e) for e in errs),
                -len(errs),
            ),
        )
        error = max(chosen, key=_depth)
    return error


def _depth(error: SchemaError) -> int:
    """How deep into the payload the deepest failure under ``error`` lies."""
    return max([len(error.absolute_path), *(_depth(sub) for sub in error.context)])


def _message_for(error: SchemaError) -> str:
    """A one-line reason that never dumps a huge instance."""
    instance = error.instance
    limit = error.validator_value
    if error.validator in ("maxLength", "maxItems") and isinstance(instance, str | list):
        return f"Must be {limit} or fewer in length (got {len(instance)})."
    if error.validator in ("minLength", "minItems") and isinstance(instance, str | list):
        return f"Must be {limit} or more in length (got {len(instance)})."
    if error.validator == "type":
        return f"{_shorten(repr(instance))} is not of type {limit!r}."
    return _shorten(error.message)


def _code_for(error: SchemaError) -> str:
    """Discord's error code names for the common schema failures."""
    return {
        "maxLength": "BASE_TYPE_MAX_LENGTH",
        "maxItems": "BASE_TYPE_MAX_LENGTH",
        "minLength": "BASE_TYPE_MIN_LENGTH",
        "minItems": "BASE_TYPE_MIN_LENGTH",
        "required": "BASE_TYPE_REQUIRED",
    }.get(str(error.validator), "BASE_TYPE_BAD")


def _shorten(text: str) -> str:
    """Cap a message at a readable length."""
    return text if len(text) <= MESSAGE_LIMIT else text[: MESSAGE_LIMIT - 1] + "…"
