"""Computer opponents for Chopsticks. Each takes a position and a seeded `random.Random`."""

from __future__ import annotations

import random

from games.base import Action
from games.chopsticks.engine import ChopsticksState


def choose_move(state: ChopsticksState, level: str, rng: random.Random) -> Action:
    """The move of the computer player of `level` (see ChopsticksState.BOT_LEVELS)."""
    if level == "easy":
        return rng.choice(list(state.legal_actions(state.to_move)))
    # "perfect" needs the solver, which arrives with the full-Chopsticks issue; until then it plays "medium".
    return simple_move(state, rng)


def simple_move(state: ChopsticksState, rng: random.Random) -> Action:
    """A modest opponent: it takes a win in one, avoids handing over a win in one, otherwise plays at random.

    Looking one move ahead is what a casual human does; the perfect solver-backed player comes later.
    """
    seat = state.to_move
    moves = list(state.legal_actions(seat))
    if not moves:
        raise ValueError("the bot was asked to move in a position with no legal moves")
    safe = []
    for move in moves:
        after = state.apply(seat, move)
        outcome = after.outcome()
        if outcome is not None and seat in outcome.winners and not outcome.is_draw:
            return move
        if not _opponent_wins_next(after, seat):
            safe.append(move)
    return rng.choice(safe or moves)


def _opponent_wins_next(state: ChopsticksState, seat: int) -> bool:
    mover = state.current_player()
    if mover is None or mover == seat:
        return False
    for reply in state.legal_actions(mover):
        outcome = state.apply(mover, reply).outcome()
        if outcome is not None and seat not in outcome.winners:
            return True
    return False
