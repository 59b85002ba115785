"""Advice in words: the solver's verdict on a position code, and a hint for the player to move.

Both answer from what anyone may see (a code, or the public view), so the Discord layer can offer them
without ever holding a game's state. They can take a while on big rule sets: call them from a worker thread.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from games.base import GameError
from games.chopsticks.bots import choose_move
from games.chopsticks.engine import ChopsticksState
from games.chopsticks.rules import MAX_PLAYERS, Rules
from games.chopsticks.solver import solve
from games.chopsticks.views import ChopsticksView

MAX_TEXT = 2000  # what one Discord message holds
MAX_LISTED_MOVES = 20
_OUTLOOK = {"win": "you can force a win", "loss": "with best play you lose", "draw": "best play draws"}


def analysis_text(code: str, options: Mapping[str, Any]) -> str:
    """The solver's verdict on a position code and the value of each move; GameError, worded for the player,
    when the code or the rule options (`Rules.from_options`'s, without a player count) make no position."""
    hands = Rules.from_options(MAX_PLAYERS, options).hands
    body = code.partition("/")[0]
    if not body or len(body) % hands:
        raise GameError(f"A position code has {hands} digits per player, so `{code}` is not one.")
    rules = Rules.from_options(len(body) // hands, options)
    state = ChopsticksState.from_code(code, rules)
    solution = solve(rules)
    lines = [f"**`{state.code()}`**: {solution.verdict(state).text()} for the player to move "
             f"(perfect play, {solution.size:,} positions solved)."]
    best = {a.text() for a in solution.best_actions(state)}
    for action, verdict in solution.move_verdicts(state)[:MAX_LISTED_MOVES]:
        star = " ⭐" if action.text() in best else ""
        lines.append(f"`{action.text()}` → `{state.apply(0, action).code()}`: {verdict.text()}{star}")
    return "\n".join(lines)[:MAX_TEXT]


def hint_text(view: ChopsticksView) -> str:
    """A suggestion for the player to move: the solver's best move when it can solve the rules, else the move of
    the strongest search player. A hint is advice shown to that player, not a hidden choice, so the search's
    tie-breaks are seeded from the move number: asking twice gives the same hint."""
    if view.to_move is None:
        raise GameError("The game is over: there is no move to hint.")
    state = ChopsticksState.from_view(view)
    try:
        solution = solve(state.rules)
    except GameError:  # 3+ players or too many positions: ask the strongest search player instead
        move = choose_move(state, "perfect", random.Random(view.ply))
        return f"Hint: try `{move.text()}` ({state.describe(move, mover_view=True)})."
    verdict = solution.verdict(state)
    best = solution.best_actions(state)[0]
    return (f"Hint: `{best.text()}` ({state.describe(best, mover_view=True)}); "
            f"{_OUTLOOK[verdict.result]}" + (f" in {verdict.distance} plies." if verdict.distance else "."))
