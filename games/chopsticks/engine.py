"""Chopsticks: the state, its moves, and the seed's position code.

Hands are kept sorted ascending per seat, as in the seed's code: two hands with the same counts are the
same position whichever is "left", so the engine never distinguishes them.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache, cached_property
from itertools import combinations_with_replacement
from string import ascii_uppercase
from typing import Any, Self

from games.base import (
    RESIGN,
    Action,
    GameError,
    GameOverError,
    GameState,
    IllegalMoveError,
    InvalidStateError,
    NotYourTurnError,
    Outcome,
)
from games.chopsticks.rules import MAX_PLAYERS, MIN_PLAYERS, Rules
from games.registry import register

Hands = tuple[int, ...]


@dataclass(frozen=True)
class Attack(Action):
    """One of the mover's hands taps a hand of another seat.

    Hands are lettered in code order: the mover's hands are A, B, ...; the next seat's follow (C, D in a
    2-player game), and so on, so `AC` is the seed's "A taps C". Both fields are such letter positions.
    """

    hand: int
    target: int

    def text(self) -> str:
        return ascii_uppercase[self.hand] + ascii_uppercase[self.target]


@dataclass(frozen=True)
class Split(Action):
    """Redistribute the mover's fingers: `04-13` turns hands 0,4 into 1,3."""

    before: Hands
    after: Hands

    def text(self) -> str:
        return _digits(self.before) + "-" + _digits(self.after)


def _digits(hands: Hands) -> str:
    return "".join(str(v) for v in hands)


@dataclass(frozen=True)
class ChopsticksView:
    """Everything anyone may know about a Chopsticks position (the game has no hidden information)."""

    rules: Rules
    code: str
    hands: tuple[Hands, ...]
    to_move: int | None
    out: tuple[int, ...]
    ply: int
    last: tuple[int, str] | None
    outcome: Outcome | None


@register
@dataclass(frozen=True)
class ChopsticksState(GameState):
    kind = "chopsticks"
    FORMAT_VERSION = 1
    MIN_PLAYERS = MIN_PLAYERS
    MAX_PLAYERS = MAX_PLAYERS

    rules: Rules
    hands: tuple[Hands, ...]  # by seat; each sorted ascending
    to_move: int
    ply: int = 0
    # How often each position (code plus seat to move) has occurred, for the third-repetition draw.
    seen: tuple[tuple[str, int], ...] = ()
    out_order: tuple[int, ...] = ()  # seats in the order they went out
    result: Outcome | None = None
    last: tuple[int, str] | None = None  # (seat, action text) of the latest move

    # ----- creation -------------------------------------------------------------------------------------
    @classmethod
    def new(cls, players: int, options: Mapping[str, Any], rng: random.Random) -> Self:
        rules = Rules(
            players=players,
            hands=int(options.get("hands", 2)),
            rollover=int(options.get("rollover", 5)),
            variants=frozenset(options.get("variants", ())),
        )
        first = options.get("first")
        first_seat = rng.randrange(players) if first is None else int(first)
        if not 0 <= first_seat < players:
            raise IllegalMoveError(f"There is no seat {first_seat + 1} to move first.")
        return cls.start(rules, first_seat)

    @classmethod
    def start(cls, rules: Rules, first_seat: int = 0) -> Self:
        hands = tuple(tuple([1] * rules.hands) for _ in range(rules.players))
        state = cls(rules=rules, hands=hands, to_move=first_seat)
        return replace(state, seen=((state.position_key(), 1),))

    @classmethod
    def from_code(cls, code: str, rules: Rules | None = None, to_move: int = 0) -> Self:
        """A position from the seed's code; the first pair is the seat `to_move`, then the seats after it."""
        rules = rules or Rules(players=max(MIN_PLAYERS, len(code) // 2))
        hands_rel = parse_code(code, rules)
        p = rules.players
        hands = tuple(hands_rel[(seat - to_move) % p] for seat in range(p))
        out = tuple(seat for seat in range(p) if not any(hands[seat]))
        state = cls(rules=rules, hands=hands, to_move=to_move, out_order=out)
        result = state._knockout_result()
        return replace(state, seen=((state.position_key(), 1),), result=result)

    # ----- queries ----------------------------------------------------------------------------------------
    @property
    def num_players(self) -> int:
        return self.rules.players

    def current_player(self) -> int | None:
        return None if self.result else self.to_move

    def outcome(self) -> Outcome | None:
        return self.result

    def is_out(self, seat: int) -> bool:
        return not any(self.hands[seat])

    def code(self) -> str:
        """The seed's position code: every seat's sorted hands, starting with the seat to move."""
        p = self.rules.players
        return "".join(_digits(self.hands[(self.to_move + i) % p]) for i in range(p))

    def position_key(self) -> str:
        return f"{self.code()}@{self.to_move}"

    def legal_actions(self, player: int) -> Sequence[Action]:
        if self.result is not None or player != self.to_move:
            return ()
        return self._movers_actions

    @cached_property
    def _movers_actions(self) -> tuple[Action, ...]:
        # Safe on a frozen dataclass: cached_property writes the instance dict directly, and `replace`
        # builds a new instance, so a cached list never outlives its position.
        return (*self._attacks(), *self._splits())

    def _attacks(self) -> list[Attack]:
        # One attack per distinct (tapping value, target seat, tapped value): equal hands give equal results.
        p, me = self.rules.players, self.hands[self.to_move]
        moves: list[Attack] = []
        h = self.rules.hands
        for hand in _distinct_live(me):
            for rel in range(1, p):
                target = self.hands[(self.to_move + rel) % p]
                moves.extend(Attack(hand, rel * h + target_hand) for target_hand in _distinct_live(target))
        return moves

    def _splits(self) -> list[Split]:
        me = self.hands[self.to_move]
        return [Split(me, after) for after in _split_results(self.rules.hands, self.rules.rollover, sum(me))
                if after != me]

    # ----- actions ----------------------------------------------------------------------------------------
    def parse_action(self, text: str) -> Action:
        text = text.strip().upper()
        h, p = self.rules.hands, self.rules.players
        if "-" in text:
            before_s, _, after_s = text.partition("-")
            if not (before_s.isdigit() and after_s.isdigit() and len(before_s) == len(after_s) == h):
                raise IllegalMoveError(f"{text!r} is not a split: write it like 04-13 ({h} digits each side).")
            return Split(tuple(int(c) for c in before_s), tuple(int(c) for c in after_s))
        letters = ascii_uppercase[: p * h]
        if len(text) != 2 or text[0] not in letters or text[1] not in letters:
            raise IllegalMoveError(
                f"{text!r} is not a move: an attack is two hand letters like AC, a split is like 04-13."
            )
        src, dst = letters.index(text[0]), letters.index(text[1])
        if src >= h:
            raise IllegalMoveError(f"{text[0]} is not one of your hands; yours are {letters[:h]}.")
        return Attack(src, dst)

    def apply(self, player: int, action: Action) -> Self:
        if self.result is not None:
            raise GameOverError("The game is over.")
        if player != self.to_move:
            raise NotYourTurnError("It is not your turn.")
        if isinstance(action, Attack):
            hands = self._after_attack(action)
        elif isinstance(action, Split):
            hands = self._after_split(action)
        else:
            raise IllegalMoveError("That is not a Chopsticks move.")
        return self._advance(hands, (player, action.text()))

    def _after_attack(self, attack: Attack) -> list[Hands]:
        p, h, r = self.rules.players, self.rules.hands, self.rules.rollover
        rel, target_hand = divmod(attack.target, h)
        if not (0 <= attack.hand < h and 0 <= attack.target < p * h):
            raise IllegalMoveError("There is no such hand.")
        if rel == 0:
            raise IllegalMoveError("You cannot tap your own hand.")
        mine = self.hands[self.to_move]
        target_seat = (self.to_move + rel) % p
        target = self.hands[target_seat]
        if self.is_out(target_seat):
            raise IllegalMoveError("That player is out.")
        if mine[attack.hand] == 0:
            raise IllegalMoveError("A dead hand cannot tap.")
        if target[target_hand] == 0:
            raise IllegalMoveError("You cannot tap a dead hand.")
        total = target[target_hand] + mine[attack.hand]
        new_value = total - r if total >= r else total  # exactly r kills (0); above r rolls over
        new_target = list(target)
        new_target[target_hand] = new_value
        hands = list(self.hands)
        hands[target_seat] = tuple(sorted(new_target))
        return hands

    def _after_split(self, split: Split) -> list[Hands]:
        mine = self.hands[self.to_move]
        if tuple(split.before) != mine:
            raise IllegalMoveError(f"Your hands are {_digits(mine)}, not {_digits(split.before)}.")
        after = tuple(sorted(split.after))
        if after != tuple(split.after):
            raise IllegalMoveError(f"Write the hands after the split in ascending order ({_digits(after)}).")
        if sum(after) != sum(mine):
            raise IllegalMoveError(f"A split keeps your {sum(mine)} fingers; {_digits(after)} has {sum(after)}.")
        if after == mine:
            raise IllegalMoveError("A split must change your hands: swapping them is not a move.")
        if 0 in after:
            raise IllegalMoveError("You cannot kill your own hand with a split.")
        if max(after) >= self.rules.rollover:
            raise IllegalMoveError(f"A hand can hold at most {self.rules.rollover - 1} fingers.")
        hands = list(self.hands)
        hands[self.to_move] = after
        return hands

    def _advance(self, hands: list[Hands], last: tuple[int, str]) -> Self:
        p = self.rules.players
        out_order = self.out_order + tuple(
            seat for seat in range(p) if not any(hands[seat]) and seat not in self.out_order
        )
        waiting = [(self.to_move + i) % p for i in range(1, p)]
        still_in = [seat for seat in waiting if seat not in out_order]
        # When nobody else is left the turn still passes on, so a 2-player code shows the loser to move
        # (the seed's `0014`).
        nxt = still_in[0] if still_in else waiting[0]
        state = replace(self, hands=tuple(hands), to_move=nxt, ply=self.ply + 1, out_order=out_order, last=last)
        result = state._knockout_result()
        seen = dict(self.seen)
        key = state.position_key()
        seen[key] = seen.get(key, 0) + 1
        if result is None and seen[key] >= 3:
            result = state._ranked("repetition")
        return replace(state, seen=tuple(sorted(seen.items())), result=result)

    def _knockout_result(self) -> Outcome | None:
        alive = [s for s in range(self.rules.players) if s not in self.out_order]
        return self._ranked("knockout") if len(alive) <= 1 else None

    def _ranked(self, reason: str) -> Outcome:
        """Places: seats still in share first place (or the win), the rest by reverse order of going out."""
        p = self.rules.players
        alive = [s for s in range(p) if s not in self.out_order]
        places = [0] * p
        for seat in alive:
            places[seat] = 1
        place = 2 if alive else 1
        for seat in reversed(self.out_order):
            places[seat] = place
            place += 1
        return Outcome(tuple(places), reason)

    def resign(self, player: int, reason: str = RESIGN) -> Self:
        if self.result is not None:
            raise GameOverError("The game is over.")
        if not 0 <= player < self.rules.players or player in self.out_order:
            raise IllegalMoveError("That player is not in the game.")
        hands = list(self.hands)
        hands[player] = tuple([0] * self.rules.hands)
        out_order = (*self.out_order, player)
        state = replace(self, hands=tuple(hands), out_order=out_order, ply=self.ply + 1, last=(player, reason))
        if len(out_order) >= self.rules.players - 1:
            return replace(state, result=state._ranked(reason))
        if player == self.to_move:
            nxt = next(s for s in ((player + i) % self.rules.players for i in range(1, self.rules.players))
                       if s not in out_order)
            state = replace(state, to_move=nxt)
        return state

    def agree_draw(self) -> Self:
        if self.result is not None:
            raise GameOverError("The game is over.")
        return replace(self, result=self._ranked("agreement"), ply=self.ply + 1, last=None)

    def describe(self, action: Action, mover_view: bool = False) -> str:
        """Plain words for a move in this position: "3 taps 2" (or, addressed to the mover, "your 3 taps
        their 2") and "split 13 → 22"."""
        if isinstance(action, Attack):
            h = self.rules.hands
            rel, target_hand = divmod(action.target, h)
            target_seat = (self.to_move + rel) % self.rules.players
            mine = self.hands[self.to_move][action.hand]
            theirs = self.hands[target_seat][target_hand]
            return f"your {mine} taps their {theirs}" if mover_view else f"{mine} taps {theirs}"
        if isinstance(action, Split):
            return f"split {_digits(action.before)} → {_digits(action.after)}"
        raise IllegalMoveError("That is not a Chopsticks move.")

    # ----- views ------------------------------------------------------------------------------------------
    def public_view(self) -> ChopsticksView:
        return ChopsticksView(
            rules=self.rules, code=self.code(), hands=self.hands, to_move=self.current_player(),
            out=self.out_order, ply=self.ply, last=self.last, outcome=self.result,
        )

    BOT_LEVELS = ("easy", "medium", "perfect")

    def bot_action(self, player: int, level: str, rng: random.Random) -> Action:
        from games.chopsticks.bots import choose_move  # bots build on the engine, not the other way round

        if level not in self.BOT_LEVELS:
            raise GameError(f"There is no {level!r} Chopsticks bot; choose from {', '.join(self.BOT_LEVELS)}.")
        if player != self.current_player():
            raise NotYourTurnError("It is not the bot's turn.")
        return choose_move(self, level, rng)

    def view_for(self, player: int) -> ChopsticksView:
        return self.public_view()  # nothing is hidden in Chopsticks

    # ----- serialisation ----------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "format": self.FORMAT_VERSION,
            "rules": self.rules.to_dict(),
            "hands": [list(h) for h in self.hands],
            "to_move": self.to_move,
            "ply": self.ply,
            "seen": dict(self.seen),
            "out_order": list(self.out_order),
            "result": self.result.to_dict() if self.result else None,
            "last": list(self.last) if self.last else None,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        if not isinstance(data, Mapping) or data.get("format") != cls.FORMAT_VERSION:
            raise InvalidStateError(f"unknown Chopsticks format {data.get('format')!r}")
        try:
            rules = Rules.from_dict(data["rules"])
            hands = tuple(tuple(int(v) for v in h) for h in data["hands"])
            to_move = int(data["to_move"])
            ply = int(data["ply"])
            seen = tuple(sorted((str(k), int(v)) for k, v in dict(data["seen"]).items()))
            out_order = tuple(int(s) for s in data["out_order"])
            result = Outcome.from_dict(data["result"]) if data["result"] is not None else None
            last_raw = data["last"]
            last = (int(last_raw[0]), str(last_raw[1])) if last_raw is not None else None
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidStateError(f"bad Chopsticks state: {exc}") from exc
        p, h, r = rules.players, rules.hands, rules.rollover
        if len(hands) != p or any(len(x) != h or list(x) != sorted(x) for x in hands):
            raise InvalidStateError("bad Chopsticks state: hands do not match the rules")
        if any(not 0 <= v < r for x in hands for v in x):
            raise InvalidStateError("bad Chopsticks state: a hand holds too many fingers")
        if not 0 <= to_move < p or any(not 0 <= s < p for s in out_order):
            raise InvalidStateError("bad Chopsticks state: no such seat")
        return cls(rules=rules, hands=hands, to_move=to_move, ply=ply, seen=seen, out_order=out_order,
                   result=result, last=last)


def parse_code(code: str, rules: Rules) -> list[Hands]:
    """The seats' hands from a position code, in code order; raises InvalidStateError if malformed."""
    h, p, r = rules.hands, rules.players, rules.rollover
    code = code.strip()
    if len(code) != p * h or not code.isdigit():
        raise InvalidStateError(f"A position code for {p} players with {h} hands has {p * h} digits.")
    seats = [tuple(int(c) for c in code[i * h:(i + 1) * h]) for i in range(p)]
    for seat in seats:
        if list(seat) != sorted(seat):
            raise InvalidStateError(f"Write each player's hands in ascending order: {_digits(tuple(sorted(seat)))}.")
        if max(seat) >= r:
            raise InvalidStateError(f"A hand holds at most {r - 1} fingers.")
    return seats


def _distinct_live(hands: Hands) -> list[int]:
    """The index of the first hand of each distinct live value (equal hands give equal moves)."""
    return [i for i, v in enumerate(hands) if v and v not in hands[:i]]


@cache
def _split_results(hands: int, rollover: int, total: int) -> tuple[Hands, ...]:
    """Every sorted way to hold `total` fingers on `hands` live hands."""
    return tuple(c for c in combinations_with_replacement(range(1, rollover), hands) if sum(c) == total)
