"""Issue 14, point 11: the fuzzer's judge (tests/tools/fuzz_oracle.py, tests/tools/fuzz_checks.py) sees what it
claims to see. Each broken outcome is built by hand from a real Chopsticks position and must be named."""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from typing import Any

from games import game_class
from storage import Seat
from tests.support.codes import Callback, Component, InteractionType, MessageFlag
from tests.support.fakediscord import FakeChannel, FakeMessage, FakeUser, InteractionResult
from tests.tools.fuzz_checks import CheckFigures, judge_burst
from tests.tools.fuzz_oracle import Move, Snapshot, judge, new_moves, refusal_of

ALICE, BOB = 11, 22


def _before() -> Snapshot:
    state = game_class("chopsticks").new(2, {}, random.Random(1))
    return Snapshot(1, "chopsticks", "active", 3, (), state, (Seat(0, ALICE), Seat(1, BOB)))


def _after(before: Snapshot, moves: tuple[Move, ...], version: int | None = None) -> Snapshot:
    state = before.state
    for _ply, seat, _user, text in moves[len(before.moves):]:
        state = state.apply_text(seat, text)
    return replace(before, moves=moves, state=state, version=before.version + 1 if version is None else version)


def _answer(*, refused: bool) -> InteractionResult:
    user, channel = FakeUser(ALICE, "alice"), FakeChannel(5, None, "games")
    if refused:
        message = FakeMessage(7, 5, 99, content="It is not your turn.", flags=MessageFlag.EPHEMERAL)
        return InteractionResult(1, "t", InteractionType.MESSAGE_COMPONENT, user, channel, "x",
                                 callback_type=Callback.CHANNEL_MESSAGE, message=message)
    return InteractionResult(1, "t", InteractionType.MESSAGE_COMPONENT, user, channel, "x",
                             callback_type=Callback.UPDATE_MESSAGE, message=FakeMessage(8, 5, 99))


def test_a_legal_action_must_be_applied_exactly_once() -> None:
    before = _before()
    once = _after(before, ((1, 0, ALICE, "AC"),))
    assert judge(before, once, ALICE, "AC", 0, _answer(refused=False)) == ("applied", [])
    verdict, problems = judge(before, replace(before), ALICE, "AC", 0, _answer(refused=True))
    assert verdict == "applied" and "was not applied exactly once" in problems[0]
    twice = replace(once, moves=(*once.moves, (2, 0, ALICE, "AC")))
    assert any("moves from one interaction" in p for p in judge(before, twice, ALICE, "AC", 0, None)[1])


def test_an_illegal_action_must_change_nothing_and_be_refused_with_a_reason() -> None:
    before = _before()
    assert judge(before, replace(before), ALICE, "ZZ", 0, _answer(refused=True)) == ("refused", [])
    # A stale turn is illegal too, whatever the action.
    assert judge(before, replace(before), ALICE, "AC", 5, _answer(refused=True)) == ("refused", [])
    bumped = replace(before, version=before.version + 1)
    assert "changed the game" in judge(before, bumped, ALICE, "ZZ", 0, _answer(refused=True))[1][0]
    assert "not refused" in judge(before, replace(before), BOB, "AC", 0, _answer(refused=False))[1][0]


def test_the_log_must_only_grow_and_the_state_must_be_the_log_replayed() -> None:
    before = _after(_before(), ((1, 0, ALICE, "AC"),))
    rewritten = replace(before, moves=((1, 0, ALICE, "BC"),))
    assert "rewritten" in new_moves(before, rewritten)[1][0]
    wrong_state = replace(_after(before, (*before.moves, (2, 1, BOB, "AC"))), state=before.state)
    assert any("not its log replayed" in p for p in new_moves(before, wrong_state)[1])
    illegal = replace(before, moves=(*before.moves, (2, 0, ALICE, "AC")), version=before.version + 1)
    assert "is illegal" in new_moves(before, illegal)[1][0]
    by_a_timer = _after(before, (*before.moves, (2, 1, None, "timeout")))
    assert "nobody's click" in new_moves(before, by_a_timer)[1][0]
    assert new_moves(before, by_a_timer, timers=True)[1] == []


@dataclass
class _Click:
    """What the burst judge reads of a case."""

    user: FakeUser
    data: dict[str, Any] = field(default_factory=lambda: {"custom_id": "cs:1:mv:0:AC"})


def test_a_burst_applies_one_action_and_refuses_every_other_click() -> None:
    before = _before()
    alice = FakeUser(ALICE, "alice")
    clicks: Any = [_Click(alice), _Click(alice), _Click(FakeUser(BOB, "bob"))]
    legal = [(clicks[0], "AC"), (clicks[1], "AC")]
    once = _after(before, ((1, 0, ALICE, "AC"),))
    answers = [_answer(refused=False), _answer(refused=True), _answer(refused=True)]
    assert judge_burst(before, once, clicks, answers, legal, False, CheckFigures()) == []
    # Two clicks told they won, for one action; or no action at all for legal clicks.
    won_twice = [_answer(refused=False), _answer(refused=False), _answer(refused=True)]
    assert any("not refused" in p for p in judge_burst(before, once, clicks, won_twice, legal, False, CheckFigures()))
    nothing = judge_burst(before, replace(before), clicks, [_answer(refused=True)] * 3, legal, False, CheckFigures())
    assert any("was applied" in p for p in nothing)


def test_a_refusal_is_private_worded_and_offers_nothing_to_click() -> None:
    assert refusal_of(_answer(refused=True)) == "It is not your turn."
    assert refusal_of(_answer(refused=False)) is None
    question = _answer(refused=True)
    assert question.message is not None
    question.message.components = [{"type": Component.ACTION_ROW, "components": [{"type": Component.BUTTON,
                                                                           "custom_id": "cs:1:resign-yes"}]}]
    assert refusal_of(question) is None
