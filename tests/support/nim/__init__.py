"""Nim, a game kind that exists only in the tests: proof that a new game needs no change outside its own files.

Its files are what a new game needs (see the README's layout section): the rules (`engine.py`: state, actions,
views, a computer player), its description (`DESCRIPTION` below, registered by the test), and its Discord
presenter (`presenter.py`, a discord.py extension).
"""

from games.registry import GameDescription

DESCRIPTION = GameDescription(
    kind="nim",
    title="Nim",
    min_players=2,
    max_players=2,
    hidden_information=False,
    bot_levels=("perfect",),
    default_bot_level="perfect",
    start_command="/nim challenge",
    summary="Take one to three stones from the pile in turn; whoever takes the last stone wins.",
    engine="tests.support.nim.engine:NimState",
    computer="tests.support.nim.engine:bot_action",
    presenter="tests.support.nim.presenter",
)
