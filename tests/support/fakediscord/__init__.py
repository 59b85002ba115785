"""An offline fake of Discord (REST API v10 + gateway) for driving a real discord.py bot in tests.

Typical use::

    validator = load_spec_validator()
    fake = FakeDiscord(validator=validator)
    await fake.start()
    discord.http.Route.BASE = fake.api_base
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(fake.gateway_url)

Faults: ``fake.disconnect_gateway()``, ``fake.gateway_reconnect()`` (RECONNECT) and
``fake.gateway_invalid_session(resumable)`` (INVALID_SESSION) on the gateway; ``fake.inject_rest_fault(method, route,
status=429 | 5xx, retry_after=..., times=..., applied=..., delay=..., drop=...)`` and
``fake.interaction_deadline`` on the REST side (see ``faults.py``).
"""

from .errors import Issue
from .faults import RestFault
from .interactions import InteractionResult, InteractionTimeout
from .models import FakeChannel, FakeGuild, FakeMessage, FakeOverwrite, FakeRole, FakeUser, RecordedRequest
from .runner import BotRunner
from .server import FakeDiscord
from .spec import SpecValidator, load_spec_validator

__all__ = [
    "BotRunner",
    "FakeChannel",
    "FakeDiscord",
    "FakeGuild",
    "FakeMessage",
    "FakeOverwrite",
    "FakeRole",
    "FakeUser",
    "InteractionResult",
    "InteractionTimeout",
    "Issue",
    "RecordedRequest",
    "RestFault",
    "SpecValidator",
    "load_spec_validator",
]
