"""No leaks: changing only what an observer cannot see changes nothing that observer receives.

Two worlds share every square and every move text; only the hidden ranks of the other side differ (two of
its pieces exchange ranks, so everything the observer has learnt from rulings can stay the same). While
every challenge so far got the same ruling in both worlds (and, with reveal-winner, revealed the same
rank), the observer's view, the public view, the observer's legal action texts, the refusals the
observer can trigger and the AI's input and choice must be identical: ==, repr and JSON.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

import pytest

from games import GameError
from games.generals import GeneralsState, Rank, Settings, formation, random_setup
from games.generals.ai import choose_action
from games.generals.computer import bot_action
from games.generals.setup import Grid, compact
from games.generals.squares import NEIGHBOURS, SQUARES, distance, parse_square, square_name

SETTINGS = [
    Settings(),
    Settings(reveal_winner=True),
    Settings(show_flag=True),
    Settings(small_army=True),
    Settings(flag_rush="immediate"),
    Settings(flag_rush="always-wait", no_challenge_draw=25),
]


def exchanged(grid: Grid, rng: random.Random, settings: Settings, pairs: int) -> Grid:
    """The grid with `pairs` pairs of differently ranked pieces exchanging ranks (squares unchanged)."""
    cells = list(grid)
    occupied = [i for i, c in enumerate(cells) if c is not None and not (settings.show_flag and c == Rank.FLAG)]
    done = 0
    while done < pairs:
        i, j = rng.sample(occupied, 2)
        if cells[i] != cells[j]:
            cells[i], cells[j] = cells[j], cells[i]
            done += 1
    return tuple(cells)


def same(a: object, b: object) -> None:
    assert a == b
    assert repr(a) == repr(b)
    to_dict = getattr(a, "to_dict", None)
    if to_dict is not None:
        assert json.dumps(to_dict(), sort_keys=True) == json.dumps(b.to_dict(), sort_keys=True)  # type: ignore[attr-defined]


def probes(state: GeneralsState, observer: int, rng: random.Random) -> Iterator[str]:
    """Action texts the observer might try, legal or not: every kind of refusal, chosen the same in both worlds."""
    yield from ("ready", "swap:a1-b1", "hello", "z9-a1", "setup:" + compact(random_setup(rng, observer)))
    names = [p.square for p in state.view_for(observer).own] + [p.square for p in state.public_view().pieces]
    for name in rng.sample(names, min(3, len(names))):
        src = parse_square(name)
        assert src is not None
        near = [sq for sq in SQUARES if 0 < distance(src, sq) <= 2 or sq in NEIGHBOURS[src]]
        for dst in rng.sample(near, 2):
            yield f"{name}-{square_name(dst)}"


def refusal_or_none(state: GeneralsState, player: int, text: str) -> tuple[str, str] | None:
    try:
        state.apply_text(player, text)
    except GameError as refused:
        return type(refused).__name__, str(refused)
    return None


def assert_observer_sees_the_same(s1: GeneralsState, s2: GeneralsState, observer: int, rng: random.Random,
                                  strong: bool) -> None:
    same(s1.view_for(observer), s2.view_for(observer))
    same(s1.public_view(), s2.public_view())
    assert [a.text() for a in s1.legal_actions(observer)] == [a.text() for a in s2.legal_actions(observer)]
    for text in probes(s1, observer, rng):
        assert refusal_or_none(s1, observer, text) == refusal_or_none(s2, observer, text), text
    if s1.legal_actions(observer):
        levels = ("greedy", "strong") if strong else ("greedy",)
        for level in levels:
            seed = rng.random()
            assert choose_action(s1.view_for(observer), level, random.Random(seed)) == choose_action(
                s2.view_for(observer), level, random.Random(seed))
            assert bot_action(s1, observer, level, random.Random(seed)) == bot_action(s2,
                observer, level, random.Random(seed))


def legitimately_apart(s1: GeneralsState, s2: GeneralsState, observer: int) -> bool:
    """Whether the worlds now differ in something the observer may know: a ruling, a revealed rank, the end."""
    l1, l2 = s1.view_for(observer).last, s2.view_for(observer).last
    rulings_differ = l1 is not None and l2 is not None and (l1.challenge, l1.their_rank) != (l2.challenge,
                                                                                             l2.their_rank)
    return rulings_differ or s1.outcome() != s2.outcome()


@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: ",".join(s.names()) or "standard")
@pytest.mark.parametrize("observer", [0, 1])
@pytest.mark.parametrize("seed", [0, 1])
def test_hidden_ranks_of_the_other_side_change_nothing_the_observer_receives(settings: Settings, observer: int,
                                                                              seed: int) -> None:
    rng = random.Random(f"{seed}:{observer}:{settings}")
    hidden = 1 - observer
    grids = [formation(rng.choice(("balanced", "blitz", "random")), rng, side, settings) for side in (0, 1)]
    other = exchanged(grids[hidden], rng, settings, pairs=rng.choice((1, 2, 3)))
    s1 = s2 = GeneralsState.new(2, {"first": rng.randrange(2), "variants": settings.names()}, rng)
    # The setup phase: the observer deploys, the hidden side deploys differently in each world.
    s1 = s1.apply_text(observer, "setup:" + compact(grids[observer]))
    s2 = s2.apply_text(observer, "setup:" + compact(grids[observer]))
    s1 = s1.apply_text(hidden, "setup:" + compact(grids[hidden]))
    s2 = s2.apply_text(hidden, "setup:" + compact(other))
    assert_observer_sees_the_same(s1, s2, observer, rng, strong=False)
    for text in ("swap:a1-a2", "swap:i8-i7", "ready"):
        r1, r2 = refusal_or_none(s1, hidden, text), refusal_or_none(s2, hidden, text)
        assert r1 == r2
        if r1 is None:
            s1, s2 = s1.apply_text(hidden, text), s2.apply_text(hidden, text)
        assert_observer_sees_the_same(s1, s2, observer, rng, strong=False)
    s1, s2 = s1.apply_text(observer, "ready"), s2.apply_text(observer, "ready")
    if not s1.ready[hidden]:
        s1, s2 = s1.apply_text(hidden, "ready"), s2.apply_text(hidden, "ready")
    compared = 0
    while s1.current_player() is not None and not legitimately_apart(s1, s2, observer) and s1.ply < 300:
        assert_observer_sees_the_same(s1, s2, observer, rng, strong=compared % 40 == 0)
        compared += 1
        player = s1.current_player()
        assert player is not None
        action = bot_action(s1, player, rng.choice(("random", "greedy")), rng)
        s1, s2 = s1.apply(player, action), s2.apply(player, action)
    assert compared > 0


def test_a_waiting_flag_looks_exactly_like_any_other_piece_on_the_back_rank() -> None:
    # B steps onto rank 1 beside A's Sergeant: in world 1 it is B's Flag (which now waits one move), in
    # world 2 a Private (B's Flag is on i8). Nothing A or the channel receives may tell them apart.
    world1 = {"e2": "flg", "i8": "pvt", "d1": "SGT", "a3": "FLG", "h4": "MAJ"}
    world2 = {"e2": "pvt", "i8": "flg", "d1": "SGT", "a3": "FLG", "h4": "MAJ"}
    s1 = GeneralsState.from_board(world1, to_move=1).apply_text(1, "e2-e1")
    s2 = GeneralsState.from_board(world2, to_move=1).apply_text(1, "e2-e1")
    assert s1.flag_waiting == 1 and s2.flag_waiting is None
    assert_observer_sees_the_same(s1, s2, 0, random.Random(0), strong=True)
    # A's reply that does not challenge e1: world 1 ends (B's Flag survived), world 2 goes on.
    after1, after2 = s1.apply_text(0, "h4-h5"), s2.apply_text(0, "h4-h5")
    outcome = after1.outcome()
    assert outcome is not None and outcome.winners == (1,) and after2.outcome() is None


def test_refusals_never_depend_on_the_hidden_ranks() -> None:
    # The same squares with every B rank different: every text A could send is refused alike (or accepted).
    s1 = GeneralsState.from_board({"e4": "MAJ", "e5": "5g", "d5": "spy", "a1": "FLG", "i8": "flg"})
    s2 = GeneralsState.from_board({"e4": "MAJ", "e5": "flg", "d5": "pvt", "a1": "FLG", "i8": "spy"})
    for src in SQUARES:
        for dst in SQUARES:
            if distance(src, dst) <= 2:
                text = f"{square_name(src)}-{square_name(dst)}"
                assert refusal_or_none(s1, 0, text) == refusal_or_none(s2, 0, text)
                assert refusal_or_none(s1, 1, text) == refusal_or_none(s2, 1, text)
