"""Every variant of ../shared/rules/chopsticks.md on literal positions, the refused combinations, the
notation extensions (half fingers, zombies, lives) and random playouts over random rule sets."""

from __future__ import annotations

import json
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.i18n import LANGUAGES, render
from games import GameError, IllegalMoveError, InvalidStateError, replay
from games.chopsticks import PRESETS, VARIANTS, Attack, ChopsticksState, Flip, Rules, Split, Swap

TEXT = re.compile(r"[A-Za-z0-9-]{1,40}")


def rules(*variants: str, players: int = 2, **kw: int) -> Rules:
    return Rules(players=players, variants=frozenset(variants), **kw)  # type: ignore[arg-type]


def moves(code: str, rule_set: Rules) -> dict[str, str]:
    """Move text -> the code it leads to, in legal order."""
    state = ChopsticksState.from_code(code, rule_set)
    return {a.text(): state.apply(0, a).code() for a in state.legal_actions(0)}


# ----- the variant list, presets and options -------------------------------------------------------------
def test_every_variant_of_the_rules_table_but_wet_jackson() -> None:
    assert set(VARIANTS) == {
        "cutoff", "self-attack", "suicide", "meta", "misere", "swap", "logan", "sudden-death", "zombie",
        "transfers-only", "divisions-only", "halves", "stumps", "sans", "cherry", "integers"}
    for language in LANGUAGES:  # one sentence each, in every language
        assert all(render(text, language).endswith(".") and len(render(text, language)) < 120
                   for text in VARIANTS.values())


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_presets_start_games(name: str) -> None:
    players = 3 if "zombie" in PRESETS[name].get("variants", ()) else 2
    state = ChopsticksState.new(players, {"preset": name}, random.Random(0))
    assert state.legal_actions(state.to_move)
    assert str(state.rules.describe()[0]).startswith(f"{players} players")


def test_options() -> None:
    state = ChopsticksState.new(2, {"variants": "Misère self_attack", "hands": 3, "rollover": 7, "first": 1},
                                random.Random(0))
    assert state.rules == Rules(2, 3, 7, frozenset({"misere", "self-attack"}))
    assert state.to_move == 1 and state.code() == "111111"
    preset = ChopsticksState.new(2, {"preset": "sudden-death", "variants": ["cutoff"]}, random.Random(0))
    assert preset.rules == Rules(variants=frozenset({"sudden-death", "cutoff"}), lives=3)
    assert preset.code() == "1111/33"
    sans = ChopsticksState.new(2, {"variants": ["sans"], "rollover": 7}, random.Random(0))
    assert sans.code() == "6666"
    with pytest.raises(GameError, match="Unknown Chopsticks option"):
        ChopsticksState.new(2, {"colour": "red"}, random.Random(0))
    with pytest.raises(GameError, match="no preset"):
        ChopsticksState.new(2, {"preset": "chaos"}, random.Random(0))
    with pytest.raises(GameError, match="no seat 3"):
        ChopsticksState.new(2, {"first": 2}, random.Random(0))
    with pytest.raises(GameError, match="Bad Chopsticks option"):
        ChopsticksState.new(2, {"hands": "many"}, random.Random(0))


REFUSED = [
    (2, {"variants": ["zombie"]}, "Zombie needs at least 3 players"),
    (3, {"variants": ["zombie", "misere"]}, "Zombie and misère don't mix"),
    (2, {"variants": ["transfers-only", "divisions-only"]}, "forbid every split"),
    (2, {"variants": ["suicide", "divisions-only"]}, "Suicide does nothing with divisions-only"),
    (2, {"variants": ["logan", "swap"]}, "combined with swap"),
    (2, {"variants": ["logan", "suicide"]}, "combined with suicide"),
    (2, {"variants": ["logan", "cherry"]}, "combined with cherry"),
    (2, {"variants": ["stumps", "sudden-death"]}, "Stumps needs a player to survive"),
    (2, {"variants": ["suicide", "swap"], "hands": 1}, "suicide, swap need(s) at least 2 hands"),
    (2, {"variants": ["wet-jackson"]}, "Wet Jackson needs a physical gesture"),
    (2, {"variants": ["chaos"]}, "Unknown variant"),
    (2, {"lives": 3}, "Lives only count with the sudden-death variant"),
    (2, {"variants": ["sudden-death"], "lives": 10}, "Lives must be 1 to 9"),
    (2, {"odd": True}, "odd option only applies to the halves"),
    (7, {}, "2 to 6 players"),
    (2, {"hands": 5}, "1 to 4 hands"),
    (2, {"rollover": 11}, "2 to 10"),
]


@pytest.mark.parametrize(("players", "options", "reason"), REFUSED)
def test_incompatible_rules_are_refused_with_a_reason(players: int, options: dict[str, object], reason: str) -> None:
    with pytest.raises(GameError, match=re.escape(reason)):
        ChopsticksState.new(players, options, random.Random(0))


def test_compatible_combinations() -> None:
    assert not Rules(players=3, variants=frozenset({"zombie", "sudden-death", "stumps"}), lives=2).problems()
    assert not rules("cherry", "swap", "meta", "suicide", "integers", "halves", "cutoff", odd=True).problems()
    assert str(rules("stumps", "sudden-death", lives=2).describe()[3]).startswith("sudden-death: ")


def test_describe() -> None:
    assert [str(line) for line in Rules().describe()] == [
        "2 players, 2 hands each; every hand starts with 1 finger.",
        "A hand that reaches exactly 5 fingers dies; above 5, 5 is taken away.",
        "On your turn tap an opponent's hand with one of yours, or split your fingers between your hands (never "
        "just swapping them, never killing your own hand).",
        "You win when every opponent is out.",
        "The third time the same position comes up, the game is drawn.",
        "After 300 moves in all, the game is drawn.",
    ]
    three_hands = Rules(hands=3, rollover=7, variants=frozenset({"cutoff", "meta", "misere"}))
    lines = [str(line) for line in three_hands.describe()]
    assert "A hand that reaches 7 or more fingers dies." in lines
    assert any(line.startswith("meta: ") and "take 7 away" in line for line in lines)
    assert "The first player with every hand dead wins." in lines


# ----- each variant on literal positions -------------------------------------------------------------------
def test_cutoff() -> None:
    assert moves("1412", rules("cutoff"))["BD"] == "0114"  # 4 taps 2: 6 is 5 or more, the hand dies
    assert moves("1412", Rules())["BD"] == "1114"  # rollover: 6 becomes 1


def test_self_attack() -> None:
    assert moves("1312", rules("self-attack")) == {
        "AB": "1214", "AC": "2213", "AD": "1313", "BA": "1234", "BC": "2413", "BD": "0113", "13-22": "1222"}
    assert moves("1412", rules("self-attack"))["AB"] == "1201"  # 1 taps own 4: dead
    assert list(moves("2222", rules("self-attack"))) == ["AB", "AC", "22-13"]  # equal hands: one move


def test_swap_logan_and_cherry_pass_the_turn() -> None:
    assert moves("1312", rules("swap"))["swap"] == "1213"
    assert "swap" not in moves("0312", rules("swap"))  # needs two unequal live hands
    assert "swap" not in moves("2212", rules("swap"))
    assert moves("0312", rules("logan"))["swap"] == "1203"  # a dead hand for a live one
    assert "swap" not in moves("1312", rules("logan"))
    assert moves("0312", rules("cherry"))["swap"] == "1203"
    assert moves("1312", rules("cherry"))["swap"] == "1213"
    assert "swap" not in moves("2212", rules("cherry"))


def test_integers_flip() -> None:
    found = moves("1312", rules("integers"))
    assert found["flipA"] == "1234" and found["flipB"] == "1212"
    assert "flipA" not in moves("0312", rules("integers"))  # a dead hand cannot flip
    six = Rules(rollover=6, variants=frozenset({"integers"}))
    assert list(moves("3312", six)) == ["AC", "AD", "33-15", "33-24"]  # 3 = 6 - 3: no flip


def test_sudden_death() -> None:
    assert moves("1114", rules("sudden-death"))["AD"] == "0011"  # 11 taps 4 away: a lone finger is out
    state = ChopsticksState.from_code("1114", rules("sudden-death")).apply(0, Attack(0, 3))
    assert state.result is not None and state.result.winners == (0,)


def test_sudden_death_with_lives() -> None:
    three = rules("sudden-death", lives=3)
    assert moves("1114/33", three)["AD"] == "0111/23"  # dropped to 01: a life lost, still in
    assert moves("0111/23", three) == {"BC": "1201/32"}
    assert moves("1114/31", three)["AD"] == "0011/03"  # the last life: out
    state = ChopsticksState.from_code("1114/31", three).apply(0, Attack(0, 3))
    assert state.result is not None and state.result.winners == (0,)
    # a player's own move can cost them a life: meta with suicide 24 -> 01
    own = Rules(variants=frozenset({"sudden-death", "meta", "suicide"}), lives=2)
    assert moves("2411/22", own)["24-01"] == "1101/21"


def test_zombie() -> None:
    three = rules("zombie", players=3)
    state = ChopsticksState.from_code("140112", three)
    state = state.apply(0, state.parse_action("BD"))  # seat 1 goes out and comes back as a zombie
    assert state.zombies == (1,) and state.out_order == (1,)
    assert state.to_move == 1 and state.code() == "0z1214"  # zombies keep their turn
    assert [a.text() for a in state.legal_actions(1)] == ["BC", "BD", "BE", "BF"]  # taps only, no split
    state = state.apply(1, Attack(1, 3))  # the zombie's 1 taps seat 2's 2
    assert state.code() == "13140z"
    with pytest.raises(IllegalMoveError, match="Zombies cannot be tapped"):
        state.apply(2, Attack(0, 5))  # seat 2 to move; F is the zombie's finger
    assert state.result is None
    end = ChopsticksState.from_code("14010z", three).apply(0, Attack(1, 3))
    assert end.result is not None and end.result.places == (1, 2, 3)


def test_misere() -> None:
    state = ChopsticksState.from_code("1401", rules("misere")).apply(0, Attack(1, 3))
    assert state.code() == "0014"
    assert state.result is not None and state.result.winners == (1,) and state.result.reason == "misere"
    three = ChopsticksState.from_code("140112", rules("misere", players=3)).apply(0, Attack(1, 3))
    assert three.result is not None and three.result.places == (2, 1, 2)


def test_transfers_and_divisions_only() -> None:
    assert list(moves("0413", rules("transfers-only"))) == ["BC", "BD"]
    assert list(moves("1311", rules("transfers-only"))) == ["AC", "BC", "13-22"]
    assert list(moves("0413", rules("divisions-only"))) == ["BC", "BD", "04-13", "04-22"]
    assert list(moves("1311", rules("divisions-only"))) == ["AC", "BC"]


def test_halves() -> None:
    assert list(moves("1311", rules("halves"))) == ["AC", "BC", "13-22"]
    assert list(moves("0311", rules("halves"))) == ["BC"]  # 3 cannot be halved
    assert list(moves("0311", rules("halves", odd=True))) == ["BC", "03-12"]
    assert list(moves("1411", rules("halves", odd=True))) == ["AC", "BC", "14-23"]
    assert list(moves("0411", rules("halves"))) == ["BC", "04-22"]


def test_stumps_half_fingers() -> None:
    """Half fingers are letters in codes and texts (a = ½, b = 1½, ... e = 4½) and count in all arithmetic."""
    stumps = rules("stumps")
    state = ChopsticksState.from_code("0111", stumps)
    assert state.hands[0] == (0, 2)  # stored in half fingers
    assert moves("0111", stumps) == {"BC": "1201", "01-aa": "11aa"}
    split = Split((0, 2), (1, 1), 2)
    assert state.parse_action("01-AA") == split and split.text() == "01-aa"
    halves = state.apply(0, split)
    assert halves.code() == "11aa" and halves.public_view().labels[0] == ("½", "½")
    assert str(state.describe(split)) == "split 01 → ½ ½"
    assert moves("aa11", stumps) == {"AC": "1baa"}  # ½ taps 1: 1½; ½ ½ cannot split (no second stump)
    assert moves("4ea1", stumps) == {"AC": "1e4e", "AD": "0a4e", "BC": "014e", "BD": "aa4e"}  # 4½+½ = 5 kills
    assert moves("1b11", stumps) == {"AC": "121b", "BC": "1c1b", "1b-a2": "11a2"}  # one half at most
    assert moves("a411", stumps) == {"AC": "1ba4", "BC": "01a4", "a4-1d": "111d", "a4-b3": "11b3", "a4-2c": "112c"}
    with pytest.raises(IllegalMoveError, match="at most one half"):
        ChopsticksState.from_code("1311", stumps).apply(0, Split((2, 6), (3, 5), 2))
    with pytest.raises(InvalidStateError, match="ascending"):
        ChopsticksState.from_code("e411", stumps)


def test_sans_starts_one_short_of_dying() -> None:
    assert ChopsticksState.start(rules("sans")).code() == "4444"
    assert moves("4444", rules("sans")) == {"AC": "3444"}


# ----- notation -------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("code", "rule_set"), [
    ("1111/33", rules("sudden-death", lives=3)),
    ("0111/12", rules("sudden-death", lives=3)),
    ("0011/02", rules("sudden-death", lives=3)),
    ("0z12130z", rules("zombie", players=4)),
    ("a1bj0j", Rules(players=3, rollover=10, variants=frozenset({"stumps"}))),
    ("00011234", Rules(hands=4)),
])
def test_codes_round_trip(code: str, rule_set: Rules) -> None:
    state = ChopsticksState.from_code(code, rule_set, to_move=1)
    assert state.code() == code
    assert ChopsticksState.from_dict(json.loads(json.dumps(state.to_dict()))) == state


@pytest.mark.parametrize(("code", "rule_set", "reason"), [
    ("1111", rules("sudden-death", lives=3), None),  # lives may be left out: everyone has them all
    ("1111/3", rules("sudden-death", lives=3), "one digit of lives per player"),
    ("1111/43", rules("sudden-death", lives=3), "1 to 3 lives"),
    ("0011/33", rules("sudden-death", lives=3), "0 lives left"),
    ("1111/11", rules("sudden-death"), "Only games with sudden-death lives"),
    ("0z1111", rules("cutoff", players=3), "only with the zombie variant"),
    ("1z1111", rules("zombie", players=3), "a zombie is written 0z"),
    ("a111", Rules(), "write each hand as a digit"),
    ("1155", Rules(), "at most 4 fingers"),
    ("111", Rules(), "has 4 hand characters"),
])
def test_bad_codes(code: str, rule_set: Rules, reason: str | None) -> None:
    if reason is None:
        assert ChopsticksState.from_code(code, rule_set).code() == "1111/33"
        return
    with pytest.raises(InvalidStateError, match=re.escape(reason)):
        ChopsticksState.from_code(code, rule_set)


def test_refusals_name_the_rule() -> None:
    state = ChopsticksState.from_code("0312", rules("integers", "swap"))
    with pytest.raises(IllegalMoveError, match="dead hand cannot flip"):
        state.apply(0, Flip(0))
    with pytest.raises(IllegalMoveError, match="swap needs two different live hands"):
        state.apply(0, Swap())
    with pytest.raises(IllegalMoveError, match="Swapping your hands is not a move"):
        ChopsticksState.from_code("1312").apply(0, Swap())
    with pytest.raises(IllegalMoveError, match="only a move with the integers"):
        ChopsticksState.from_code("1312").apply(0, Flip(0))
    with pytest.raises(IllegalMoveError, match="may kill only one"):
        ChopsticksState.from_code("111113", Rules(hands=3, variants=frozenset({"suicide"}))).apply(
            0, Split((1, 1, 1), (0, 0, 3)))
    with pytest.raises(IllegalMoveError, match="cannot revive"):
        ChopsticksState.from_code("0311", rules("transfers-only")).apply(0, Split((0, 3), (1, 2)))
    with pytest.raises(IllegalMoveError, match="must revive"):
        ChopsticksState.from_code("1311", rules("divisions-only")).apply(0, Split((1, 3), (2, 2)))
    with pytest.raises(IllegalMoveError, match="share your fingers equally"):
        ChopsticksState.from_code("0311", rules("halves")).apply(0, Split((0, 3), (1, 2)))
    with pytest.raises(IllegalMoveError, match="or, combining with meta, 3"):
        ChopsticksState.from_code("4411", rules("meta")).apply(0, Split((4, 4), (0, 4)))
    with pytest.raises(IllegalMoveError, match="A zombie can only tap"):
        ChopsticksState.from_code("0z1111", rules("zombie", players=3)).apply(0, Split((0, 1), (1, 0)))


def test_equal_hands_are_interchangeable() -> None:
    state = ChopsticksState.from_code("2213")
    via_b = state.apply(0, state.parse_action("bd"))
    assert via_b.table == state.apply(0, Attack(0, 3)).table
    assert via_b.last == (0, "BD")  # the log keeps what was played, which replays to the same position


def test_resign_in_variants() -> None:
    zombie = ChopsticksState.from_code("0z1213", rules("zombie", players=3))
    left = zombie.resign(0)  # a zombie may leave; it is not a zombie any more
    assert left.zombies == () and left.to_move == 1 and left.result is None
    misere = ChopsticksState.from_code("140112", rules("misere", players=3)).resign(2)
    assert misere.result is None and misere.to_move == 0
    ended = misere.apply(0, Attack(1, 3))  # seat 1 is knocked out first: it wins; the resigner is last
    assert ended.result is not None and ended.result.places == (2, 1, 3)


# ----- random playouts over random rule sets -----------------------------------------------------------------
@st.composite
def rule_sets(draw: st.DrawFn) -> Rules:
    """A random playable rule set: variants are added one by one, skipping any the others refuse."""
    players = draw(st.integers(2, 6))
    hands = draw(st.integers(1, 4))
    rollover = draw(st.integers(2, 10))
    lives = draw(st.integers(1, 4))
    odd = draw(st.booleans())
    names = draw(st.lists(st.sampled_from(sorted(VARIANTS)), unique=True, max_size=6))
    chosen: list[str] = []
    for name in names:
        trial = [*chosen, name]
        try:
            Rules(players, hands, rollover, frozenset(trial), lives if "sudden-death" in trial else 1,
                  odd and "halves" in trial)
        except GameError:
            continue
        chosen = trial
    return Rules(players, hands, rollover, frozenset(chosen), lives if "sudden-death" in chosen else 1,
                 odd and "halves" in chosen)


@settings(max_examples=80, deadline=None)
@given(rule_set=rule_sets(), seed=st.integers(0, 2**32 - 1))
def test_random_playouts_keep_the_contract(rule_set: Rules, seed: int) -> None:
    rng = random.Random(seed)
    state = ChopsticksState.start(rule_set, rng.randrange(rule_set.players))
    initial = state.to_dict()
    log: list[tuple[int, str]] = []
    stop_at = rng.randrange(1, 110)
    for ply in range(90):
        player = state.current_player()
        if player is None:
            break
        actions = state.legal_actions(player)
        assert actions, "a game that is not over has a legal action for the player to move"
        assert not state.is_out(player)
        for action in actions:
            assert TEXT.fullmatch(action.text()), action.text()
            assert state.parse_action(action.text()) == action
            assert state.parse_action(action.text().lower()) == state.parse_action(action.text().upper()) == action
            assert state.describe(action)
        assert ChopsticksState.from_code(state.code(), rule_set, state.to_move).table == state.table
        if ply == stop_at:
            text = rng.choice(["resign", "draw-agreed"])
            state = state.apply_text(player, text)
        else:
            action = rng.choice(list(actions))
            text = action.text()
            state = state.apply(player, action)
        log.append((player, text))
        assert ChopsticksState.from_dict(json.loads(json.dumps(state.to_dict()))) == state
    assert replay("chopsticks", initial, log) == state


def test_snapshots_are_validated() -> None:
    lives = ChopsticksState.from_code("1114/33", rules("sudden-death", lives=3)).to_dict()
    assert lives["format"] == 2 and lives["lives"] == [3, 3]
    with pytest.raises(InvalidStateError, match="lives"):
        ChopsticksState.from_dict(lives | {"lives": [0, 3]})
    zombie = ChopsticksState.from_code("0z1111", rules("zombie", players=3)).to_dict()
    with pytest.raises(InvalidStateError, match="zombie"):
        ChopsticksState.from_dict(zombie | {"zombies": [1]})
    with pytest.raises(InvalidStateError, match="too many fingers"):
        ChopsticksState.from_dict(ChopsticksState.start(rules("stumps")).to_dict() | {"hands": [[2, 10], [2, 2]]})
