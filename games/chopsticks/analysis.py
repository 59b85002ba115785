"""Advice in words: the solver's verdict on a position code, and a hint for the player to move.

Both are texts, shown in the reader's language (the position codes and moves in them are notation and stay as
they are). Both answer from what anyone may see (a code, or the public view), so the Discord layer can offer them
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
from games.chopsticks.solver import Verdict, solve
from games.chopsticks.views import ChopsticksView
from games.text import Joined, Plural, Text, TextIn

MAX_LISTED_MOVES = 20


def verdict_text(verdict: Verdict) -> Text:
    """A verdict for the player to move, in words: "win in 5 plies", "loss in 2 plies", "draw"."""
    if verdict.result == "draw" or verdict.distance is None:
        return TextIn("verdict", "draw")
    if verdict.result == "win":
        return Plural("win in {count} ply", "win in {count} plies", verdict.distance)
    return Plural("loss in {count} ply", "loss in {count} plies", verdict.distance)


def analysis_text(code: str, options: Mapping[str, Any]) -> Text:
    """The solver's verdict on a position code and the value of each move; GameError, worded for the player,
    when the code or the rule options (`Rules.from_options`'s, without a player count) make no position."""
    hands = Rules.from_options(MAX_PLAYERS, options).hands
    body = code.partition("/")[0]
    if not body or len(body) % hands:
        raise GameError(Plural("A position code has {count} digit per player, so `{code}` is not one.",
                               "A position code has {count} digits per player, so `{code}` is not one.", hands,
                               code=code))
    rules = Rules.from_options(len(body) // hands, options)
    state = ChopsticksState.from_code(code, rules)
    solution = solve(rules)
    lines: list[Text | str] = [Text(
        "**`{code}`**: {verdict} for the player to move (perfect play, {positions} positions solved).",
        code=state.code(), verdict=verdict_text(solution.verdict(state)), positions=f"{solution.size:,}")]
    best = {a.text() for a in solution.best_actions(state)}
    for action, verdict in solution.move_verdicts(state)[:MAX_LISTED_MOVES]:
        line = Text("`{move}` → `{code}`: {verdict}", move=action.text(), code=state.apply(0, action).code(),
                    verdict=verdict_text(verdict))
        lines.append(Joined([line, " ⭐"], "") if action.text() in best else line)
    return Joined(lines)


def hint_text(view: ChopsticksView) -> Text:
    """A suggestion for the player to move: the solver's best move when it can solve the rules, else the move of
    the strongest search player. A hint is advice shown to that player, not a hidden choice, so the search's
    tie-breaks are seeded from the move number: asking twice gives the same hint."""
    if view.to_move is None:
        raise GameError(Text("The game is over: there is no move to hint."))
    state = ChopsticksState.from_view(view)
    try:
        solution = solve(state.rules)
    except GameError:  # 3+ players or too many positions: ask the strongest search player instead
        move = choose_move(state, "perfect", random.Random(view.ply))
        return Text("Hint: try `{move}` ({words}).", move=move.text(), words=state.describe(move, mover_view=True))
    verdict = solution.verdict(state)
    best = solution.best_actions(state)[0]
    return Text("Hint: `{move}` ({words}); {outlook}.", move=best.text(),
                words=state.describe(best, mover_view=True), outlook=_outlook(verdict))


def _outlook(verdict: Verdict) -> Text:
    """What the hinted move leads to with best play on both sides."""
    if verdict.result == "draw":
        return Text("best play draws")
    if verdict.result == "win":
        if verdict.distance:
            return Plural("you can force a win in {count} ply", "you can force a win in {count} plies",
                          verdict.distance)
        return Text("you can force a win")
    if verdict.distance:
        return Plural("with best play you lose in {count} ply", "with best play you lose in {count} plies",
                      verdict.distance)
    return Text("with best play you lose")
