"""Computer opponents for Chopsticks. Each takes a position and a seeded `random.Random` (all their randomness).

Two players:
- perfect: plays from the solver's table (never lets a won or drawn position slip, wins as fast as possible,
  resists as long as possible). Among equally good moves it prefers those that give the opponent the most
  chances to go wrong. Rule sets too big for the solver fall back to the deepest search.
- medium: a 3-ply search that now and then (1 move in 5) plays any move that does not lose at once.
- easy: takes a win in one, avoids losing in one half the time, otherwise plays at random.
Three or more players: every level uses the paranoid search (`search.py`), deeper for stronger levels, and
easy and medium sometimes play a random safe move instead.
"""

from __future__ import annotations

import random

from games.base import Action, GameError, NotYourTurnError
from games.chopsticks.counting import is_finished
from games.chopsticks.engine import ChopsticksState
from games.chopsticks.moves import next_to_move, successors
from games.chopsticks.position import Table
from games.chopsticks.rules import Rules
from games.chopsticks.search import search_move
from games.chopsticks.solver import Solution, Verdict, solve
from games.text import Text

# level -> (search depth, chance of a random safe move instead)
SEARCH_LEVELS: dict[str, tuple[int, float]] = {"easy": (1, 0.3), "medium": (2, 0.1), "perfect": (8, 0.0)}
MEDIUM_DEPTH, MEDIUM_MISTAKES = 3, 0.2
_RANK = {"loss": 0, "draw": 1, "win": 2}


def choose_move(state: ChopsticksState, level: str, rng: random.Random) -> Action:
    """The move of the computer player of `level` (see ChopsticksState.BOT_LEVELS)."""
    moves = list(state.legal_actions(state.to_move))
    if not moves:
        raise GameError("The bot was asked to move in a position with no legal moves.")
    if len(moves) == 1:
        return moves[0]
    if state.rules.players == 2:
        if level == "perfect":
            try:
                solution = solve(state.rules)
            except GameError:  # too big to solve: search as deep as the budget allows
                return search_move(state, SEARCH_LEVELS["perfect"][0], rng).action
            return perfect_move(solution, state, rng)
        if level == "medium":
            if rng.random() < MEDIUM_MISTAKES:
                return rng.choice(_safe_moves(state))
            return search_move(state, MEDIUM_DEPTH, rng).action
        return easy_move(state, rng)
    depth, mistakes = SEARCH_LEVELS.get(level, SEARCH_LEVELS["medium"])
    if rng.random() < mistakes:
        return rng.choice(_safe_moves(state))
    return search_move(state, depth, rng).action


def perfect_move(solution: Solution, state: ChopsticksState, rng: random.Random) -> Action:
    """An optimal move; among equals, one after which the most opponent replies are mistakes."""
    target = solution.verdict(state)
    best = [action for action, verdict in solution.move_verdicts(state) if verdict == target]
    if len(best) == 1:
        return best[0]
    chances = {action: _mistake_share(solution, state.apply(state.to_move, action), target) for action in best}
    top = max(chances.values())
    return rng.choice([action for action in best if chances[action] == top])


def _mistake_share(solution: Solution, after: ChopsticksState, ours: Verdict) -> float:
    """The share of the opponent's replies that leave us better off than `ours` (0 if the game is over)."""
    replies = solution.move_verdicts(after)
    if not replies:
        return 0.0
    # A reply that is bad for them (rank below their best) improves our result.
    theirs = solution.verdict(after)
    worse = sum(1 for _, verdict in replies if _RANK[verdict.result] < _RANK[theirs.result])
    return worse / len(replies)


def easy_move(state: ChopsticksState, rng: random.Random) -> Action:
    """Takes a win in one; half the time avoids handing over a win in one; otherwise random."""
    win = _win_in_one(state)
    if win is not None:
        return win
    return rng.choice(_safe_moves(state) if rng.random() < 0.5 else list(state.legal_actions(state.to_move)))


def simple_move(state: ChopsticksState, rng: random.Random) -> Action:
    """A modest opponent: it takes a win in one, avoids handing over a win in one, otherwise plays at random."""
    win = _win_in_one(state)
    return win if win is not None else rng.choice(_safe_moves(state))


def _win_in_one(state: ChopsticksState) -> Action | None:
    seat, rules, table = state.to_move, state.rules, state.table
    for action, after in successors(rules, table, seat):
        if _won(rules, table, after, seat):
            return action
    return None


def _safe_moves(state: ChopsticksState) -> list[Action]:
    """The moves after which no reply by the next player beats us at once (all moves if none is safe)."""
    seat, rules, table = state.to_move, state.rules, state.table
    safe = []
    for action, after in successors(rules, table, seat):
        if _beaten(rules, table, after, seat):
            continue
        if not is_finished(rules, after):
            nxt = next_to_move(after, seat)
            if nxt != seat and any(_beaten(rules, after, reply, seat) for _, reply in successors(rules, after, nxt)):
                continue
        safe.append(action)
    return safe or list(state.legal_actions(seat))


def _gone(before: Table, after: Table) -> list[int]:
    return [s for s in range(len(after)) if before[s].alive and not after[s].alive]


def _won(rules: Rules, before: Table, after: Table, seat: int) -> bool:
    """Whether the move from `before` to `after` wins the game for `seat`."""
    if rules.has("misere"):
        return _gone(before, after) == [seat]
    return after[seat].alive and is_finished(rules, after)


def _beaten(rules: Rules, before: Table, after: Table, seat: int) -> bool:
    """Whether the move from `before` to `after` knocks `seat` out of contention (misère: someone else wins)."""
    if rules.has("misere"):
        gone = _gone(before, after)
        return bool(gone) and gone[0] != seat
    return not after[seat].alive


LEVELS = ("easy", "medium", "perfect")  # as listed in games/chopsticks/description.py


def bot_action(state: ChopsticksState, player: int, level: str, rng: random.Random) -> Action:
    """The computer player's move for `player`, who must be the one to move."""
    if level not in LEVELS:
        raise GameError(Text("There is no {level} Chopsticks bot; choose from {levels}.", level=repr(level),
                             levels=", ".join(LEVELS)))
    if player != state.current_player():
        raise NotYourTurnError("It is not the bot's turn.")
    return choose_move(state, level, rng)
