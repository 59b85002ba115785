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

    async def new_game_timeout(self, interaction: Any, turn_minutes: int | None) -> float | None:
        """The turn time of a new game (the command's, else the server's, else the bot's); refuses a game that
        the server switched off or wants in another channel."""
        from bot.cogs.settings import check_new_game

        settings = await check_new_game(self.bot, interaction, self.kind)
        if turn_minutes:
            return turn_minutes * 60.0
        return settings.turn_timeout if settings is not None else None

    @property
    def _bot_id(self) -> int | None:
        user = self.bot.user
        return user.id if user else None
