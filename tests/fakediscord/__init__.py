"""An offline fake of Discord (REST API v10 + gateway) for driving a real discord.py bot in tests.

Typical use::

    validator = load_spec_validator()
    fake = FakeDiscord(validator=validator)
    await fake.start()
    discord.http.Route.BASE = fake.api_base
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(fake.gateway_url)
"""

from .errors import Issue
from .interactions import InteractionResult, InteractionTimeout
from .models import FakeChannel, FakeGuild, FakeMessage, FakeUser, RecordedRequest
from .runner import BotRunner
from .server import FakeDiscord
from .spec import SpecValidator, load_spec_validator

__all__ = [
    "BotRunner",
    "FakeChannel",
    "FakeDiscord",
    "FakeGuild",
    "FakeMessage",
    "FakeUser",
    "InteractionResult",
    "InteractionTimeout",
    "Issue",
    "RecordedRequest",
    "SpecValidator",
    "load_spec_validator",
]
