"""So Long Sucker's deals, with no Discord in sight: proposed, accepted or taken back only by a player still in a
game still being played.

The check and the write are one transaction that holds SQLite's write lock from the read of the game: the game
cannot end, nor the player be defeated, between the check and the write, in this process or another.
"""

from __future__ import annotations

from bot.service.games import GameService
from bot.service.model import Game, ServiceError
from games import GameError
from games.sucker.deals import check_deal_party
from games.sucker.engine import SuckerState
from games.text import Text
from storage.deals import Deal, DealStore, propose_deal, toggle_acceptance


class DealService:
    def __init__(self, games: GameService, store: DealStore) -> None:
        self.games = games
        self.store = store

    async def propose(self, game_id: int, user_id: int, text: str) -> Deal:
        """A new deal, numbered after the game's others, proposed by `user_id` to the table."""
        async with self.games.holding(game_id) as (tx, game):
            _check_party(game, user_id, Text("Only the players of this game can propose deals."))
            return await propose_deal(await tx.writer(), game_id, user_id, text, self.games.clock())

    async def toggle(self, game_id: int, number: int, user_id: int) -> Deal:
        """Mark deal `number` accepted by `user_id`, or take their acceptance back."""
        async with self.games.holding(game_id) as (tx, game):
            _check_party(game, user_id, Text("Only the players of this game can accept its deals."))
            deal = await toggle_acceptance(await tx.writer(), game_id, number, user_id, self.games.clock())
        if deal is None:
            raise ServiceError(Text("There is no deal #{number} in this game.", number=number))
        return deal

    async def set_message(self, game_id: int, number: int, message_id: int) -> None:
        """Remember the message that shows deal `number` (the bot's own write: nobody to refuse)."""
        await self.store.set_message(game_id, number, message_id)


def _check_party(game: Game, user_id: int, outsider: Text) -> None:
    """Refuse `user_id` a part in `game`'s deals, with the reason (`outsider`: what someone not playing is told)."""
    if not isinstance(game.state, SuckerState):
        raise ServiceError(Text("Game #{number} is not a So Long Sucker game: it has no deals.", number=game.id))
    if game.record.status != "active":  # over by the rules, or ended otherwise (called off, archived)
        raise ServiceError(Text("This game is over: its deals can no longer be made, accepted or taken back."))
    seat = game.seat_of(user_id)
    if seat is None:
        raise ServiceError(outsider)
    try:
        check_deal_party(game.state, seat)
    except GameError as exc:
        raise ServiceError(*exc.args) from None  # the rule's own words (a Text)
