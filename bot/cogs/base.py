"""What every game cog shares: registering as its kind's presenter and reaching the bot's services."""

from __future__ import annotations

from typing import Any, ClassVar

from bot.lobbies import LobbyService
from bot.service import GameService


class GameCogBase:
    """Mixed into each game's GroupCog; `kind` is the game kind the cog presents."""

    kind: ClassVar[str]

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        bot.presenters[self.kind] = self

    @property
    def service(self) -> GameService:
        service: GameService = self.bot.service
        return service

    @property
    def lobbies(self) -> LobbyService:
        lobbies: LobbyService = self.bot.lobbies
        return lobbies

    @property
    def _bot_id(self) -> int | None:
        user = self.bot.user
        return user.id if user else None
