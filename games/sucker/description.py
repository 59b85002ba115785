"""So Long Sucker as the product lists it (see games/registry.py)."""

from games.registry import GameDescription
from games.sucker.rules import MAX_PLAYERS, MIN_PLAYERS

DESCRIPTION = GameDescription(
    kind="sucker",
    title="So Long Sucker",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    hidden_information=False,
    bot_levels=("basic",),
    default_bot_level="basic",
    start_command="/sucker new",
    summary=("Nash's game of alliances and betrayal for 3-6 players: play chips onto piles, capture them, "
             "hold prisoners and bargain with them. Deals are made openly and are never binding; the last "
             "player standing wins."),
    engine="games.sucker.engine:SuckerState",
    computer="games.sucker.bots:bot_action",
    presenter="bot.games.sucker",
)
