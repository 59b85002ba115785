"""Game of the Generals as the product lists it (see games/registry.py)."""

from games.registry import GameDescription

DESCRIPTION = GameDescription(
    kind="generals",
    title="Game of the Generals",
    min_players=2,
    max_players=2,
    hidden_information=True,
    bot_levels=("random", "greedy", "strong"),
    default_bot_level="strong",
    start_command="/generals challenge",
    summary=("Salpakan: two armies of 21 hidden pieces. Each player sets up and plays from a private board; "
             "the bot is the neutral arbiter of every challenge and never tells a rank. Capture the enemy "
             "Flag, or bring your own to the far side."),
    engine="games.generals.engine:GeneralsState",
    computer="games.generals.computer:bot_action",
    presenter="bot.games.generals",
)
