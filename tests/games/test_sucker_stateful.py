"""Random legal So Long Sucker play, out-of-turn free actions included, keeps every invariant."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from games.base import Action, GameOverError
from games.engines import replay
from games.sucker import Decline, NameNext, Phase, SuckerState
from games.sucker.actions import TEXT_PATTERN
from games.sucker.bots import bot_action


class SuckerMachine(RuleBasedStateMachine):
    """Players decide at random, anyone may transfer or kill prisoners, and sometimes someone resigns."""

    state: SuckerState
    initial: dict[str, object]
    log: list[tuple[int, str]]

    @initialize(seed=st.integers(0, 2**32 - 1), players=st.integers(3, 6), chips=st.integers(3, 10))
    def start(self, seed: int, players: int, chips: int) -> None:
        self.state = SuckerState.new(players, {"chips": chips}, random.Random(seed))
        self.initial = self.state.to_dict()
        self.log = []

    def _do(self, seat: int, action: Action) -> None:
        text = action.text()
        assert TEXT_PATTERN.fullmatch(text), text
        assert self.state.parse_action(text) == action
        before, self.state = self.state, self.state.apply(seat, action)
        self.log.append((seat, text))
        event(f"reached a {self.state.phase.value} decision")
        if len(self.state.defeated) >= 2:
            event("two players defeated")
        if isinstance(action, Decline):
            event("declined a rescue")
        if before.phase is Phase.RESCUE and self.state.phase is Phase.PLAY and self.state.mover == before.mover:
            event("rescued")
        if self.state.outcome() is not None:
            event("finished a game")

    # Rules do nothing once the game is over rather than carry preconditions: with preconditions, Hypothesis
    # would have to reject its way to the one rule left enabled after the end.
    def _going(self) -> bool:
        return self.state.outcome() is None

    @rule(pick=st.integers(0, 10**6))
    def decide(self, pick: int) -> None:
        seat = self.state.current_player()
        if seat is None:
            return
        options = self.state.decision_actions(seat)
        self._do(seat, options[pick % len(options)])

    @rule(pick=st.integers(0, 10**6))
    def name_someone_without_chips(self, pick: int) -> None:
        """Aim at the rarer paths: a player given the move with no chip, rescues, defeats, the chain."""
        seat = self.state.current_player()
        if seat is None or self.state.phase is not Phase.NAME:
            return
        empty = [s for s in self.state.name_candidates() if self.state.held(s) == 0]
        if empty:
            self._do(seat, NameNext(empty[pick % len(empty)]))

    @rule(seed=st.integers(0, 10**6), decisions=st.integers(1, 25))
    def bots_decide(self, seed: int, decisions: int) -> None:
        rng = random.Random(seed)
        for _ in range(decisions):
            seat = self.state.current_player()
            # Bots decline strangers' rescues; stopping there half the time leaves the choice to `decide`, which
            # also rescues.
            if seat is None or (self.state.phase is Phase.RESCUE and seed % 2):
                return
            self._do(seat, bot_action(self.state, seat, "basic", rng))

    @rule(seat=st.integers(0, 5), pick=st.integers(0, 10**6))
    def free_action(self, seat: int, pick: int) -> None:
        if not self._going():
            return
        seat %= self.state.players
        options = self.state.free_actions(seat)
        if options:
            self._do(seat, options[pick % len(options)])

    @rule(seat=st.integers(0, 5), dice=st.integers(0, 9), meta=st.sampled_from(["resign", "timeout", "draw-agreed"]))
    def leave(self, seat: int, dice: int, meta: str) -> None:
        if dice or not self._going():  # rare, so that most games are played out
            return
        seat %= self.state.players
        if meta != "draw-agreed" and not self.state.is_live(seat):
            return
        self.state = self.state.apply_text(seat, meta)
        self.log.append((seat, meta))

    @rule(seat=st.integers(0, 5))
    def nothing_goes_after_the_end(self, seat: int) -> None:
        if self._going():
            return
        seat %= self.state.players
        with pytest.raises(GameOverError):
            self.state.apply_text(seat, "decline")
        with pytest.raises(GameOverError):
            self.state.resign(seat)
        with pytest.raises(GameOverError):
            self.state.agree_draw()
        assert self.state.legal_actions(seat) == ()

    @invariant()
    def chips_are_conserved(self) -> None:
        state = self.state
        assert state.chip_totals() == (state.chips,) * state.players
        assert all(n >= 0 for row in state.holdings for n in row) and all(d >= 0 for d in state.dead)

    @invariant()
    def nobody_counts_their_own_colour_as_prisoner(self) -> None:
        state = self.state
        view = state.public_view()
        for seat in range(state.players):
            assert seat not in state.prisoners(seat)
            assert view.seats[seat].prisoners == sum(state.prisoners(seat).values())
            for action in state.free_actions(seat):
                assert getattr(action, "colour", None) != seat
        assert all(state.held(seat) == 0 for seat in state.defeated)

    @invariant()
    def someone_can_always_decide_until_the_end(self) -> None:
        state = self.state
        seat = state.current_player()
        if seat is None:
            assert state.outcome() is not None and state.legal_actions(0) == ()
            return
        assert state.outcome() is None and state.is_live(seat)
        decisions = state.decision_actions(seat)
        assert decisions and list(state.legal_actions(seat))[: len(decisions)] == list(decisions)
        assert list(state.legal_actions(seat)) == list(state.legal_actions(seat))
        for other in range(state.players):
            if other != seat:
                assert state.decision_actions(other) == ()

    @invariant()
    def snapshot_round_trips(self) -> None:
        data = json.loads(json.dumps(self.state.to_dict()))
        assert SuckerState.from_dict(data) == self.state

    def teardown(self) -> None:
        if hasattr(self, "state"):
            assert replay("sucker", self.initial, self.log) == self.state


TestSuckerMachine = SuckerMachine.TestCase
TestSuckerMachine.settings = settings(max_examples=100, stateful_step_count=60, deadline=None)
