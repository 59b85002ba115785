"""The gateway websocket: HELLO, IDENTIFY -> READY + GUILD_CREATE, heartbeats, RESUME, dispatches.

Speaks JSON text frames, or zlib-stream binary frames when the client asks for ``compress=zlib-stream``
in the query (discord.py does unless told otherwise; it inflates only binary frames, so both work).
Sessions outlive connections, so a dropped socket can RESUME; a new client (a restarted bot) simply
IDENTIFYs again and becomes the connection that receives dispatches. Sessions are sharded as on Discord
(``shards.py``): each shard (``shard: [id, count]`` in IDENTIFY, absent: 0 of 1) has its newest session, which
gets READY with the shard's guilds only and the events of those guilds; DMs go to shard 0.
As on Discord, events dispatched while a resumable session has no socket are kept, and a RESUME replays
every event after the client's last sequence number before RESUMED; a session the client closed
(1000/1001) or that was invalidated (INVALID_SESSION with ``d=false``) cannot be resumed, and its missed events are
lost.
"""

from __future__ import annotations

import asyncio
import collections
import itertools
import json
import secrets
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aiohttp import WSMsgType, web

from tests.support.codes import Opcode

from .payloads import (
    JsonDict,
    current_user_payload,
    guild_create_payload,
    member_payload,
    unavailable_guild_payload,
)
from .shards import UNSHARDED, ShardKey, guild_of, parse_shard, routes_to

if TYPE_CHECKING:
    from .server import FakeDiscord

HEARTBEAT_INTERVAL_MS = 41250
INTENT_GUILDS = 1 << 0
INTENT_GUILD_MESSAGES = 1 << 9
INTENT_DIRECT_MESSAGES = 1 << 12

# Gateway close codes (https://discord.com/developers/docs/topics/opcodes-and-status-codes).
CLOSE_UNKNOWN_ERROR = 4000
CLOSE_UNKNOWN_OPCODE = 4001
CLOSE_DECODE_ERROR = 4002
CLOSE_AUTHENTICATION_FAILED = 4004
CLOSE_ALREADY_AUTHENTICATED = 4005
CLOSE_INVALID_SHARD = 4010
# A client closing with these ends its session (https://discord.com/developers/docs/events/gateway).
CLIENT_CLOSES_ENDING_SESSION = (1000, 1001)
BACKLOG = 1000  # dispatches kept per session for replay on RESUME


@dataclass(eq=False)
class Session:
    """A gateway session: survives its socket so the client can RESUME it."""

    id: str
    intents: int
    shard: ShardKey = UNSHARDED
    _seq: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    last_seq: int = 0
    resumable: bool = True
    # The latest dispatches (DISPATCH payloads), replayed after the client's ``seq`` on RESUME.
    backlog: collections.deque[JsonDict] = field(default_factory=lambda: collections.deque(maxlen=BACKLOG))

    def dispatch_payload(self, event: str, data: JsonDict) -> JsonDict:
        """Number an event with the next sequence number and keep it for a later RESUME."""
        payload: JsonDict = {"op": Opcode.DISPATCH, "t": event, "s": self.next_seq(), "d": data}
        self.backlog.append(payload)
        return payload

    def next_seq(self) -> int:
        """The sequence number for the next dispatch."""
        self.last_seq = next(self._seq)
        return self.last_seq


@dataclass(eq=False)
class Connection:
    """One websocket, optionally zlib-compressed, bound to a session once identified or resumed."""

    ws: web.WebSocketResponse
    compressor: Any = None
    session: Session | None = None
    ready: bool = False
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    server_closed: bool = False  # the fake, not the client, closed this socket

    async def send(self, payload: JsonDict) -> None:
        """Send one gateway payload (as one text frame, or one Z_SYNC_FLUSH-terminated binary frame)."""
        raw = json.dumps(payload, separators=(",", ":"))
        async with self.lock:
            if self.ws.closed:
                return
            if self.compressor is None:
                await self.ws.send_str(raw)
            else:
                chunk = self.compressor.compress(raw.encode()) + self.compressor.flush(zlib.Z_SYNC_FLUSH)
                await self.ws.send_bytes(chunk)


@dataclass(eq=False)
class ShardSlot:
    """One shard's dispatch target: the newest session identified (or resumed) for it, and its live socket."""

    key: ShardKey
    current: Connection | None = None
    # The session this shard's dispatches belong to, kept while it can be resumed.
    session: Session | None = None
    activated: int = 0  # when it was last identified or resumed, in the hub's order: the newest slot wins

    @property
    def is_ready(self) -> bool:
        conn = self.current
        return conn is not None and conn.ready and not conn.ws.closed

    @property
    def awaiting_resume(self) -> bool:
        return not self.is_ready and self.session is not None and self.session.resumable


class GatewayHub:
    """All gateway connections of one fake; each event goes to the newest ready session of its shard."""

    def __init__(self, fake: FakeDiscord) -> None:
        self._fake = fake
        self.sessions: dict[str, Session] = {}
        self.connections: list[Connection] = []
        self.slots: dict[ShardKey, ShardSlot] = {}
        self._activations = itertools.count(1)
        self.identify_count = 0
        self.resume_count = 0
        self.replayed_count = 0  # events replayed by RESUMEs
        self.reconnects_requested = 0  # RECONNECTs sent
        self.invalid_sessions_sent: list[bool] = []  # INVALID_SESSIONs sent, with their ``d``
        self.received: list[JsonDict] = []
        # Query string of every websocket connection (``v``, ``encoding``, ``compress``), in order.
        self.connect_queries: list[dict[str, str]] = []

    def _newest(self, slots: list[ShardSlot]) -> ShardSlot | None:
        live = [slot for slot in slots if slot.session is not None]
        return max(live, key=lambda slot: slot.activated, default=None)

    def route(self, guild_id: int | None) -> ShardSlot | None:
        """The shard slot the events of ``guild_id`` (None: DMs) go to: the newest of the sessions they route to."""
        return self._newest([slot for key, slot in self.slots.items() if routes_to(key, guild_id)])

    @property
    def newest(self) -> ShardSlot | None:
        """The slot identified or resumed last (with one unsharded bot: its only one)."""
        return self._newest(list(self.slots.values()))

    @property
    def current(self) -> Connection | None:
        """The newest slot's live connection."""
        slot = self.newest
        return None if slot is None else slot.current

    @property
    def session(self) -> Session | None:
        """The newest slot's session."""
        slot = self.newest
        return None if slot is None else slot.session

    @property
    def is_ready(self) -> bool:
        """True while the newest identified (or resumed) session has a live connection."""
        slot = self.newest
        return slot is not None and slot.is_ready

    @property
    def awaiting_resume(self) -> bool:
        """True while the newest session has no live socket but may still be resumed (events are kept for it)."""
        slot = self.newest
        return slot is not None and slot.awaiting_resume

    def shard_ready(self, shard: ShardKey) -> bool:
        """True while shard ``(shard_id, num_shards)`` has a live, identified (or resumed) connection."""
        slot = self.slots.get(shard)
        return slot is not None and slot.is_ready

    def reachable(self, guild_id: int | None) -> bool:
        """Whether an event of ``guild_id`` would reach a bot now or on its RESUME."""
        slot = self.route(guild_id)
        return slot is not None and (slot.is_ready or slot.awaiting_resume)

    async def wait_ready(self, timeout: float) -> None:
        """Wait until a bot is connected and ready to receive dispatches."""
        await self._wait(lambda: self.is_ready, timeout, "")

    async def wait_routed(self, guild_id: int | None, timeout: float) -> None:
        """Wait until the shard that receives the events of ``guild_id`` (None: DMs) is connected and ready."""
        where = "for DMs" if guild_id is None else f"for guild {guild_id}"

        def ready() -> bool:
            slot = self.route(guild_id)
            return slot is not None and slot.is_ready

        await self._wait(ready, timeout, f" {where} (shards connected: {sorted(self.slots)})")

    async def _wait(self, ready: Callable[[], bool], timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while not ready():
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"no bot connected to the fake gateway{what} within {timeout} s "
                    f"(identifies so far: {self.identify_count}, resumes: {self.resume_count})"
                )
            await asyncio.sleep(0.01)

    async def handle(self, request: web.Request) -> web.StreamResponse:
        """aiohttp handler for ``GET /gw``: one websocket connection, start to close."""
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        compress = request.query.get("compress")
        self.connect_queries.append(dict(request.query))
        conn = Connection(ws, zlib.compressobj() if compress == "zlib-stream" else None)
        self.connections.append(conn)
        try:
            if request.query.get("encoding", "json") != "json" or compress not in (None, "zlib-stream"):
                await ws.close(code=CLOSE_DECODE_ERROR, message=b"the fake speaks json (+zlib-stream) only")
                return ws
            await conn.send(
                {"op": Opcode.HELLO, "s": None, "t": None, "d": {"heartbeat_interval": HEARTBEAT_INTERVAL_MS}}
            )
            async for msg in ws:
                if msg.type is not WSMsgType.TEXT:
                    continue
                try:
                    payload = json.loads(msg.data)
                except ValueError:
                    await ws.close(code=CLOSE_DECODE_ERROR, message=b"invalid json")
                    break
                self.received.append(payload)
                await self._on_payload(conn, payload)
        finally:
            conn.ready = False
            slot = self.slots.get(conn.session.shard) if conn.session is not None else None
            if slot is not None and slot.current is conn:
                slot.current = None
            if (
                conn.session is not None
                and not conn.server_closed
                and ws.close_code in CLIENT_CLOSES_ENDING_SESSION
            ):
                conn.session.resumable = False
            self.connections.remove(conn)
        return ws

    async def _on_payload(self, conn: Connection, payload: JsonDict) -> None:
        """React to one client opcode."""
        op = payload.get("op")
        data = payload.get("d")
        if op == Opcode.HEARTBEAT:
            await conn.send({"op": Opcode.HEARTBEAT_ACK, "s": None, "t": None, "d": None})
        elif op == Opcode.IDENTIFY:
            await self._identify(conn, data if isinstance(data, dict) else {})
        elif op == Opcode.RESUME:
            await self._resume(conn, data if isinstance(data, dict) else {})
        elif op == Opcode.REQUEST_GUILD_MEMBERS and isinstance(data, dict):
            await self._member_chunk(conn, data)
        elif op not in (Opcode.PRESENCE_UPDATE, Opcode.VOICE_STATE_UPDATE):
            await conn.ws.close(code=CLOSE_UNKNOWN_OPCODE, message=b"unknown opcode")

    async def _identify(self, conn: Connection, data: JsonDict) -> None:
        """IDENTIFY: new session, READY, then one GUILD_CREATE per guild."""
        fake = self._fake
        if conn.session is not None:
            await conn.ws.close(code=CLOSE_ALREADY_AUTHENTICATED, message=b"already authenticated")
            return
        if data.get("token") != fake.token:
            await conn.ws.close(code=CLOSE_AUTHENTICATION_FAILED, message=b"Authentication failed.")
            return
        shard = parse_shard(data.get("shard"))
        if shard is None:
            await conn.ws.close(code=CLOSE_INVALID_SHARD, message=b"Invalid shard.")
            return
        session = Session(secrets.token_hex(16), int(data.get("intents") or 0), shard)
        self.sessions[session.id] = session
        conn.session = session
        self.identify_count += 1
        guilds = [guild for guild in fake.guilds.values() if routes_to(shard, guild.id)]
        ready: JsonDict = {
            "v": 10,
            "user": current_user_payload(fake.bot_user),
            "guilds": [unavailable_guild_payload(g) for g in guilds],
            "session_id": session.id,
            "session_type": "normal",
            "resume_gateway_url": fake.gateway_url,
            "application": {"id": str(fake.application_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": [],
            "user_settings": {},
            "auth": {},
            "_trace": ["fakediscord"],
        }
        if data.get("shard") is not None:
            ready["shard"] = list(shard)
        await self._send_dispatch(conn, "READY", ready)
        for guild in guilds:
            await self._send_dispatch(conn, "GUILD_CREATE", guild_create_payload(guild, fake.bot_user))
        conn.ready = True
        self._activate(conn, session)

    def _activate(self, conn: Connection, session: Session) -> None:
        """Make ``conn`` the connection its shard's events go to (a shard identified again: the newest wins)."""
        slot = self.slots.setdefault(session.shard, ShardSlot(session.shard))
        slot.current = conn
        slot.session = session
        slot.activated = next(self._activations)

    async def _resume(self, conn: Connection, data: JsonDict) -> None:
        """RESUME: re-attach the session, replay what the client missed, then RESUMED."""
        session = self.sessions.get(str(data.get("session_id")))
        if session is None or not session.resumable or data.get("token") != self._fake.token:
            await conn.send({"op": Opcode.INVALID_SESSION, "s": None, "t": None, "d": False})
            return
        conn.session = session
        self.resume_count += 1
        seq = data.get("seq")
        seen = seq if isinstance(seq, int) else 0
        # Replay until caught up; events dispatched meanwhile join the backlog and are replayed too.
        while True:
            missed = [p for p in session.backlog if int(p["s"]) > seen]
            if not missed:
                break
            for payload in missed:
                await conn.send(payload)
                seen = int(payload["s"])
                self.replayed_count += 1
        conn.ready = True
        self._activate(conn, session)
        await self._send_dispatch(conn, "RESUMED", {"_trace": ["fakediscord"]})

    async def _member_chunk(self, conn: Connection, data: JsonDict) -> None:
        """REQUEST_GUILD_MEMBERS (only with the members intent): the guild's only known member, the bot."""
        chunk: JsonDict = {
            "guild_id": str(data.get("guild_id")),
            "members": [member_payload(self._fake.bot_user)],
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [],
        }
        if data.get("nonce"):
            chunk["nonce"] = data["nonce"]
        await self._send_dispatch(conn, "GUILD_MEMBERS_CHUNK", chunk)

    async def _send_dispatch(self, conn: Connection, event: str, data: JsonDict) -> None:
        """Op 0 with the session's next sequence number."""
        assert conn.session is not None
        await conn.send(conn.session.dispatch_payload(event, data))

    async def dispatch(self, event: str, data: JsonDict, *, intent: int | None = None) -> bool:
        """Send an event to its shard's connection if it has ``intent``; return whether it was sent.

        The shard is the one of the event's guild (``guild_id``, or ``id`` for GUILD_CREATE); without one, shard 0.
        While the session awaits a RESUME the event is kept for the replay instead (and counts as sent).
        """
        slot = self.route(guild_of(event, data))
        if slot is None:
            return False
        conn = slot.current
        live = conn is not None and conn.ready and conn.session is not None
        session = conn.session if live and conn is not None else slot.session
        if session is None or not (live or slot.awaiting_resume):
            return False
        if intent is not None and not session.intents & intent:
            return False
        if live and conn is not None:
            await self._send_dispatch(conn, event, data)
        else:
            session.dispatch_payload(event, data)
        return True

    def _take_current(self, shard: ShardKey | None) -> Connection:
        """Detach a shard's live connection (default: the newest's) so that dispatches wait for its RESUME."""
        slot = self.newest if shard is None else self.slots.get(shard)
        conn = None if slot is None else slot.current
        if slot is None or conn is None or not conn.ready:
            raise RuntimeError(f"no bot is connected to the fake gateway{'' if shard is None else f' as {shard}'}")
        slot.current = None
        conn.ready = False
        return conn

    async def disconnect(self, code: int = CLOSE_UNKNOWN_ERROR, *, shard: ShardKey | None = None) -> None:
        """Drop the current socket the way a network blip would; the session stays resumable."""
        conn = self._take_current(shard)
        conn.server_closed = True
        await conn.ws.close(code=code, message=b"fakediscord: simulated disconnect")

    async def request_reconnect(self, *, shard: ShardKey | None = None) -> None:
        """Op 7 RECONNECT: the client should close and RESUME (the session stays resumable)."""
        conn = self._take_current(shard)
        self.reconnects_requested += 1
        await conn.send({"op": Opcode.RECONNECT, "s": None, "t": None, "d": None})

    async def invalidate_session(self, resumable: bool, *, shard: ShardKey | None = None) -> None:
        """Op 9 INVALID SESSION; with ``resumable=False`` the session is dropped and must be IDENTIFYed anew."""
        conn = self._take_current(shard)
        if not resumable and conn.session is not None:
            conn.session.resumable = False
            self.sessions.pop(conn.session.id, None)
        self.invalid_sessions_sent.append(resumable)
        await conn.send({"op": Opcode.INVALID_SESSION, "s": None, "t": None, "d": resumable})

    async def close_all(self) -> None:
        """Close every socket (the fake is shutting down)."""
        self.slots.clear()
        for conn in list(self.connections):
            conn.ready = False
            conn.server_closed = True
            await conn.ws.close(code=1001, message=b"fakediscord shutting down")
