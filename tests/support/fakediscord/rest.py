"""The REST side of the fake: one catch-all aiohttp handler that records, validates, routes and answers.

Every request is recorded, authenticated like Discord (``Authorization: Bot <token>`` except on the
interaction-token routes), checked against the OpenAPI description and the classic limits, and only then
handed to a route handler. A failed check is a violation *and* a 400 with Discord's error body, so the
bot experiences it exactly as it would in production.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aiohttp import BodyPartReader, web

from .errors import Issue, error_body, invalid_form_body, merge_issues
from .faults import RestFault
from .models import RecordedRequest
from .spec import API_PREFIX

if TYPE_CHECKING:
    from .server import FakeDiscord

JSON_HEADERS = {"Content-Type": "application/json"}


@dataclass
class UploadedFile:
    """One ``files[n]`` part of a multipart request."""

    field: str
    filename: str
    data: bytes
    content_type: str


@dataclass
class Call:
    """A parsed request on its way to a handler."""

    method: str
    path: str
    params: dict[str, str]
    query: dict[str, str]
    body: Any
    has_body: bool
    files: list[UploadedFile]
    record: RecordedRequest

    def flag(self, name: str) -> bool:
        """A boolean query parameter as Discord reads it (``1``/``true``)."""
        return self.query.get(name, "").lower() in ("1", "true")

    def json_object(self) -> dict[str, Any]:
        """The body when it is a JSON object, else an empty dict."""
        return self.body if isinstance(self.body, dict) else {}


@dataclass
class Reply:
    """What a handler answers: a status and a JSON body (None means no body, as for 204)."""

    status: int
    body: Any = None


class DiscordHTTPError(Exception):
    """Raised by handlers to answer with a Discord error such as 404 / 10008 Unknown Message."""

    def __init__(self, status: int, code: int, message: str) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status = status
        self.code = code
        self.message = message


Handler = Callable[[Call], Awaitable[Reply]]
Checker = Callable[[Call], list[Issue]]


@dataclass(frozen=True)
class RouteDef:
    """A route template like ``/channels/{channel_id}/messages`` bound to its handler."""

    method: str
    template: str
    handler: Handler
    auth: bool = True
    check: Checker | None = None
    regex: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        pattern = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(self.template))
        object.__setattr__(self, "regex", re.compile(pattern + "$"))


class RestApi:
    """Routes REST calls to handlers registered by :class:`~tests.support.fakediscord.server.FakeDiscord`."""

    def __init__(self, fake: FakeDiscord) -> None:
        self._fake = fake
        self.routes: list[RouteDef] = []

    def add(
        self, method: str, template: str, handler: Handler, *, auth: bool = True, check: Checker | None = None
    ) -> None:
        """Register a route; earlier registrations win (so ``@original`` goes before ``{message_id}``)."""
        self.routes.append(RouteDef(method, template, handler, auth, check))

    async def handle(self, request: web.Request) -> web.StreamResponse:
        """The aiohttp catch-all under ``/api/v10``."""
        fake = self._fake
        path = request.path[len(API_PREFIX) :] if request.path.startswith(API_PREFIX) else request.path
        query = dict(request.query)
        record = RecordedRequest(request.method, path, query, None)
        fake.requests.append(record)
        try:
            body, has_body, files = await _read_body(request)
        except ValueError as exc:
            return self._finish(
                record, Reply(400, error_body(50109, f"The request body contains invalid JSON: {exc}"))
            )
        record.json = body
        record.files = [(f.field, f.filename, len(f.data)) for f in files]
        record.file_digests = [hashlib.sha256(f.data).hexdigest() for f in files]

        route, params = self._match(request.method, path)
        if route is None:
            record.violations.append(
                f"{request.method} {path}: unhandled route (the fake does not implement it)"
            )
            fake.violations.extend(record.violations)
            return self._finish(record, Reply(404, {"message": "404: Not Found", "code": 0}))
        record.route = route.template
        call = Call(request.method, path, params, query, body, has_body, files, record)

        authorization = request.headers.get("Authorization")
        if route.auth and authorization != f"Bot {fake.token}":
            return self._finish(record, Reply(401, {"message": "401: Unauthorized", "code": 0}))

        spec_issues: list[Issue] = []
        if fake.validator is not None:
            spec_issues = fake.validator.validate_request(
                request.method, path, query=query, body=body, has_body=has_body, authorization=authorization
            )
            record.validated = True
        issues = merge_issues(route.check(call) if route.check else [], spec_issues)
        if issues:
            record.violations.extend(f"{request.method} {path}: {i.describe()}" for i in issues)
            fake.violations.extend(record.violations)
            coded = next((i for i in issues if i.discord_code is not None), None)
            reply_body = (
                error_body(coded.discord_code, coded.message)
                if coded is not None and coded.discord_code is not None
                else invalid_form_body(issues)
            )
            fake.on_rejected(call, record.violations)
            return self._finish(record, Reply(400, reply_body))

        fault = fake.faults.take(request.method, route.template)
        if fault is not None:
            fault.hits.append(record)
            record.fault = fault.describe()
            if fault.delay > 0:
                await asyncio.sleep(fault.delay)
        if fault is not None and fault.fails and not fault.applied:
            return self._fail(request, record, fault)

        try:
            reply = await route.handler(call)
        except DiscordHTTPError as exc:
            reply = Reply(exc.status, error_body(exc.code, exc.message))
        if fake.validator is not None and fake.check_responses and reply.status < 300:
            for issue in fake.validator.validate_response(
                request.method, path, query=query, status=reply.status, body=reply.body
            ):
                fake.response_issues.append(
                    f"{request.method} {route.template} -> {reply.status}: {issue.describe()}"
                )
        if fault is not None and fault.fails:
            return self._fail(request, record, fault)
        return self._finish(record, reply)

    @staticmethod
    def _fail(request: web.Request, record: RecordedRequest, fault: RestFault) -> web.Response:
        """Answer a planned fault: Discord's error answer, or no answer at all (the connection drops)."""
        if fault.drop:
            record.status = 0
            if request.transport is not None:
                request.transport.abort()
            return web.Response(status=500)  # never reaches the client: the connection is gone
        assert fault.status is not None
        record.status = fault.status
        return web.Response(
            status=fault.status, body=json.dumps(fault.error_body()).encode(), headers=fault.headers()
        )

    def _match(self, method: str, path: str) -> tuple[RouteDef | None, dict[str, str]]:
        """The first route whose method and template match."""
        for route in self.routes:
            if route.method != method:
                continue
            found = route.regex.match(path)
            if found:
                return route, found.groupdict()
        return None, {}

    @staticmethod
    def _finish(record: RecordedRequest, reply: Reply) -> web.Response:
        """Record the status and serialise; JSON gets exactly ``application/json`` (no charset)."""
        record.status = reply.status
        if reply.body is None:
            return web.Response(status=reply.status)
        return web.Response(status=reply.status, body=json.dumps(reply.body).encode(), headers=JSON_HEADERS)


async def _read_body(request: web.Request) -> tuple[Any, bool, list[UploadedFile]]:
    """JSON body, or ``payload_json`` plus ``files[n]`` of a multipart body."""
    if not request.can_read_body:
        return None, False, []
    if request.content_type.startswith("multipart/"):
        body: Any = None
        has_body = False
        files: list[UploadedFile] = []
        reader = await request.multipart()
        while True:
            part = await reader.next()
            if part is None:
                break
            if not isinstance(part, BodyPartReader):
                continue
            data = await part.read()
            if part.name == "payload_json":
                body, has_body = json.loads(data.decode()), True
            else:
                files.append(
                    UploadedFile(
                        part.name or "",
                        part.filename or "",
                        bytes(data),
                        part.headers.get("Content-Type", ""),
                    )
                )
        return body, has_body, files
    raw = await request.read()
    if not raw:
        return None, False, []
    return json.loads(raw.decode()), True, []
