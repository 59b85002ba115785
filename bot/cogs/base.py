"""What every game cog shares: registering as its kind's presenter and reaching the bot's services."""

from __future__ import annotations

from typing import Any, ClassVar

from bot.lobbies import LobbyService
from bot.service import Game, GameService, Player, ServiceError


class GameCogBase:
    """Mixed into each game's GroupCog; `kind` is the game kind the cog presents."""

    kind: ClassVar[str]
    title: str  # how players call the game, e.g. "Chopsticks"
    # Whether the game's components also work in the players' DMs with the bot (private boards).
    components_in_dms: ClassVar[bool] = False

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

    async def own_game(self, interaction: Any, game_id: int, *, in_dms: bool = False) -> Game:
        """The game a component or option names, if it is one of this cog's games and is played on the server
        the interaction comes from (a DM is no server unless `in_dms`): no one acts in a game from elsewhere."""
        if not 0 < game_id < 2**63:  # a forged id: SQLite could not even look it up
            raise ServiceError(f"There is no game #{game_id}.")
        game = await self.service.load(game_id)
        if game.record.kind != self.kind:
            raise ServiceError(f"Game #{game_id} is not a {self.title} game.")
        if game.record.guild_id != interaction.guild_id and not (in_dms and interaction.guild_id is None):
            raise ServiceError(f"{self.title} #{game_id} is played on another server; you can only act on it there.")
        return game

    async def check_component(self, interaction: Any, game_id: int) -> None:
        """What every component of a game checks first (see `dispatch`)."""
        await self.own_game(interaction, game_id, in_dms=self.components_in_dms)

    def rival(self, challenger_id: int, opponent: Any | None, level: str) -> Player:
        """The second seat of a two-player challenge: `opponent` (a discord user), or a bot of `level` when there
        is none or it is me; refuses a challenge to oneself or to another bot."""
        if opponent is not None and opponent.id == challenger_id:
            raise ServiceError("You cannot challenge yourself. Leave `opponent` empty to play against me.")
        if opponent is None or opponent.id == self._bot_id:
            return Player(bot=level)
        if opponent.bot:
            raise ServiceError("Other bots cannot play. Leave `opponent` empty to play against me.")
        return Player(user_id=opponent.id)

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
