"""Chopsticks as the product lists it (see games/registry.py)."""

from games.chopsticks.rules import MAX_PLAYERS, MIN_PLAYERS
from games.registry import GameDescription

DESCRIPTION = GameDescription(
    kind="chopsticks",
    title="Chopsticks",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    hidden_information=False,
    bot_levels=("easy", "medium", "perfect"),
    default_bot_level="medium",
    start_command="/chopsticks challenge",
    summary=("The finger game: tap an opponent's hand to add your fingers to it, or split your own; a hand "
             "with five fingers is out, and so is a player with no hands left. Every classic variant, tables "
             "of up to six, and a perfect-play opponent."),
    engine="games.chopsticks.engine:ChopsticksState",
    computer="games.chopsticks.bots:bot_action",
    presenter="bot.games.chopsticks",
)
