"""Computer players for So Long Sucker.

The "basic" player does not negotiate. It scores each choice of the decision in front of it with a few
rules of thumb a careful beginner follows, and breaks ties with the passed `random.Random`:
capture when it can, never hand a pile to a rival, keep piles holding its own chips away from rivals' tops,
name players who cannot capture anything (or who hold no chip and may fall), kill the leading rival's
colour, and rescue only players who have given it chips before.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from games.base import Action, GameError, NotYourTurnError
from games.sucker.actions import Decline, Give, Kill, NameNext, Play
from games.sucker.engine import SuckerState
from games.sucker.piles import Pile
from games.sucker.rules import Phase
from games.text import Text


def choose_action(state: SuckerState, seat: int, rng: random.Random) -> Action:
    """The basic player's decision for `seat`, whose decision it must be."""
    options = state.decision_actions(seat)
    if not options:
        raise ValueError("the bot was asked to decide when it has no decision to make")
    if state.phase is Phase.PLAY:
        return _best(options, lambda a: _play_score(state, seat, a), rng)
    if state.phase is Phase.KILL:
        return _best(options, lambda a: _kill_score(state, seat, a), rng)
    if state.phase is Phase.NAME:
        return _best(options, lambda a: _name_score(state, seat, a), rng)
    return _rescue_choice(state, seat, options)


def _best(options: Sequence[Action], score: Callable[[Action], float], rng: random.Random) -> Action:
    # Scores move in steps of at least 0.5, so the jitter only breaks ties.
    return max(options, key=lambda a: score(a) + rng.random() * 0.25)


def _mine_in(pile: Pile, seat: int) -> int:
    return sum(1 for chip in pile if chip.colour == seat)


def _play_score(state: SuckerState, me: int, action: Action) -> float:
    """What the play itself is worth, plus what the best next player it leads to is worth."""
    return _play_value(state, me, action) + _after_value(state.apply(me, action), me)


def _play_value(state: SuckerState, me: int, action: Action) -> float:
    assert isinstance(action, Play)
    colour = action.colour
    pile: Pile = () if action.pile is None else state.piles[action.pile]
    size = len(pile) + 1
    if pile and pile[-1].colour == colour:  # this play captures
        if colour == me:
            return 100.0 + size
        if state.is_live(colour):
            return -50.0 - size - 3 * _mine_in(pile, me)  # a gift to a rival
        return 3.0  # a defeated colour kills the pile and the move comes straight back
    if colour == me:
        # A pile topped with my colour is one I may collect, the more so if I keep a chip to collect it with.
        return 2.0 + (1 if state.holdings[me][me] >= 2 else 0) - _buried_top(pile, me)
    if not state.is_live(colour):
        return 1.0 - _buried_top(pile, me)  # spending a dead player's chip costs nothing
    # Spend prisoners before my own chips, but a rival's colour on top invites that rival to collect the pile,
    # the worse the more of my chips are in it.
    return 1.0 - 2 * _mine_in(pile, me) - size / 2 - _buried_top(pile, me)


def _buried_top(pile: Pile, me: int) -> float:
    """Covering my own colour throws away a capture in waiting."""
    return 4.0 if pile and pile[-1].colour == me else 0.0


def _after_value(after: SuckerState, me: int) -> float:
    """How good the position right after my play is, judged by who gets the move next."""
    if after.phase is Phase.NAME:
        return max(_next_value(after, me, seat) for seat in after.name_candidates())
    if after.phase in (Phase.PLAY, Phase.RESCUE):
        return _next_value(after, me, after.mover)
    if after.phase is Phase.OVER:
        outcome = after.outcome()
        return 1000.0 if outcome is not None and me in outcome.winners else -1000.0
    return 0.0  # a capture, valued by the play itself


def _kill_score(state: SuckerState, me: int, action: Action) -> float:
    assert isinstance(action, Kill)
    colour = action.colour
    if colour == me:
        return -10.0  # my own chips are the only ones that capture for me
    if not state.is_live(colour):
        return -2.0  # harmless to keep, and one played on its twin kills a whole pile
    return float(state.held(colour))  # weaken the rival holding the most


def _name_score(state: SuckerState, me: int, action: Action) -> float:
    assert isinstance(action, NameNext)
    return _next_value(state, me, action.seat)


def _next_value(state: SuckerState, me: int, seat: int) -> float:
    """How good it is for me that `seat` gets the move now."""
    if seat == me:
        if state.held(me) == 0:
            return -100.0  # I would be stuck
        return 40.0 if _can_capture_for(state, me, me) else 2.0
    ally = state.gifts[seat][me] > 0
    score = 3.0 if ally else 0.0
    if state.held(seat) == 0:
        score += -5 if ally else 15  # they must be rescued or they are out
    return score - _threat(state, seat, me)


def _can_capture_for(state: SuckerState, mover: int, owner: int) -> bool:
    """Whether `mover` can play `owner`'s colour on a pile topped with it."""
    return state.holdings[mover][owner] > 0 and any(p[-1].colour == owner for p in state.piles)


def _threat(state: SuckerState, seat: int, me: int) -> float:
    """How much giving `seat` the move endangers me: the piles they could hand to themselves or a rival."""
    threat = 0.0
    for pile in state.piles:
        top = pile[-1].colour
        if top == me or not state.is_live(top) or state.holdings[seat][top] == 0:
            continue
        mine = _mine_in(pile, me)
        threat += len(pile) + 1 + 2 * mine if top == seat else mine
    return threat


def _rescue_choice(state: SuckerState, me: int, options: Sequence[Action]) -> Action:
    stuck = state.stuck()
    gives = [a for a in options if isinstance(a, Give)]
    if stuck is None or not gives or state.gifts[stuck][me] == 0:
        return Decline()
    # Their own colour helps them most; otherwise part with the prisoner I hold most of.
    own = [a for a in gives if a.colour == stuck]
    return own[0] if own else max(gives, key=lambda a: (state.holdings[me][a.colour], -a.colour))


LEVELS = ("basic",)  # as listed in games/sucker/description.py


def bot_action(state: SuckerState, player: int, level: str, rng: random.Random) -> Action:
    """The computer player's decision for `player`, who must be the one to decide."""
    if level not in LEVELS:
        raise GameError(Text("There is no '{level}' So Long Sucker bot; choose from {levels}.", level=level,
                             levels=", ".join(LEVELS)))
    if player != state.current_player():
        raise NotYourTurnError(Text("It is not the bot's decision."))
    return choose_action(state, player, rng)
