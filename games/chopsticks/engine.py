"""Chopsticks: the game state, turns, outcomes, repetition and serialisation.

Moves come from `moves.py` (the one definition of the rules); this module adds whose turn it is, who is
out, how the game ends and the contract of `games.base`. Hands are kept sorted per seat, as in the seed's
code: two hands with the same counts are the same position whichever is "left". With stumps, hand values
are stored in half fingers (see `notation.py`); otherwise in fingers.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Self

from games.base import (
    Action,
    EndReason,
    GameError,
    GameOverError,
    GameState,
    IllegalMoveError,
    InvalidStateError,
    NotYourTurnError,
    Outcome,
)
from games.chopsticks.actions import Attack, Flip, Split, Swap, parse_action_text
from games.chopsticks.moves import next_to_move, redistributions, successors
from games.chopsticks.notation import Hands, hands_label, hands_text, value_label
from games.chopsticks.position import Seat, Table, parse_table, start_seat, table_code, zombie_seat
from games.chopsticks.rules import MAX_PLAYERS, MIN_PLAYERS, Rules
from games.chopsticks.views import ChopsticksView, MoveChoice, Tap

__all__ = ["ChopsticksState", "ChopsticksView", "parse_code"]  # the view is re-exported for older imports


@dataclass(frozen=True)
class ChopsticksState(GameState[ChopsticksView, ChopsticksView]):
    kind = "chopsticks"
    FORMAT_VERSION = 2
    MIN_PLAYERS = MIN_PLAYERS
    MAX_PLAYERS = MAX_PLAYERS

    rules: Rules
    hands: tuple[Hands, ...]  # by seat; each sorted ascending, in units of 1/rules.unit finger
    to_move: int
    ply: int = 0
    # How often each position (code plus seat to move) has occurred, for the third-repetition draw.
    seen: tuple[tuple[str, int], ...] = ()
    out_order: tuple[int, ...] = ()  # seats in the order they went out (zombies too)
    result: Outcome | None = None
    last: tuple[int, str] | None = None  # (seat, action text) of the latest move
    lives: tuple[int, ...] = field(default=())  # by seat: lives left with sudden-death, else 0
    zombies: tuple[int, ...] = ()  # seats playing on as zombies

    def __post_init__(self) -> None:
        if len(self.lives) != len(self.hands):  # built without lives: every seat still in has them all
            lives = tuple(self.rules.max_lives if any(h) else 0 for h in self.hands)
            object.__setattr__(self, "lives", lives)

    # ----- creation -------------------------------------------------------------------------------------
    @classmethod
    def new(cls, players: int, options: Mapping[str, Any], rng: random.Random) -> Self:
        """A fresh game. Options: hands, rollover, variants (names), lives, odd, preset, first (seat or None)."""
        rules = Rules.from_options(players, options)
        first = options.get("first")
        if first is None or first == "random":
            first_seat = rng.randrange(players)
        else:
            try:
                first_seat = int(first)
            except (TypeError, ValueError):
                raise GameError(f"'first' must be a seat number, not {first!r}.") from None
        if not 0 <= first_seat < players:
            raise GameError(f"There is no seat {first_seat + 1} to move first.")
        return cls.start(rules, first_seat)

    @classmethod
    def start(cls, rules: Rules, first_seat: int = 0) -> Self:
        return cls._at(rules, (start_seat(rules),) * rules.players, first_seat)

    @classmethod
    def from_code(cls, code: str, rules: Rules | None = None, to_move: int = 0) -> Self:
        """A position from its code; the first pair is the seat `to_move`, then the seats after it."""
        rules = rules or Rules(players=max(MIN_PLAYERS, len(code.partition("/")[0]) // 2))
        relative = parse_table(code, rules)
        p = rules.players
        if not 0 <= to_move < p:
            raise InvalidStateError(f"There is no seat {to_move + 1}.")
        return cls._at(rules, tuple(relative[(seat - to_move) % p] for seat in range(p)), to_move)

    @classmethod
    def from_view(cls, view: ChopsticksView) -> Self:
        """The position a view shows, for analysing it; a view does not carry the repetition history, so this
        position has none (moves, their values and the search do not depend on it)."""
        state = cls(rules=view.rules, hands=view.hands, to_move=view.first, ply=view.ply, out_order=view.out,
                    result=view.outcome, last=view.last, lives=view.lives, zombies=view.zombies)
        _validate(state.rules, state.hands, state.lives, state.zombies, state.to_move, state.out_order)
        return replace(state, seen=((state.position_key(), 1),))

    @classmethod
    def _at(cls, rules: Rules, table: Table, to_move: int) -> Self:
        out = tuple(seat for seat in range(rules.players) if not table[seat].alive)
        state = cls(rules=rules, hands=tuple(s.hands for s in table), to_move=to_move, out_order=out,
                    lives=tuple(s.lives for s in table),
                    zombies=tuple(i for i, s in enumerate(table) if s.zombie))
        if rules.has("misere") and out:
            result: Outcome | None = Outcome(tuple(1 if s in out else 2 for s in range(rules.players)),
                                             EndReason.MISERE)
        else:
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
        """Whether `seat` no longer takes turns (every hand dead and not a zombie)."""
        return self.table[seat].out

    def is_zombie(self, seat: int) -> bool:
        return seat in self.zombies

    @cached_property
    def table(self) -> Table:
        """The position as `moves.py` sees it: one Seat per seat number."""
        # Safe on a frozen dataclass: cached_property writes the instance dict directly, and `replace`
        # builds a new instance, so a cached value never outlives its position.
        return tuple(Seat(h, lives, seat in self.zombies)
                     for seat, (h, lives) in enumerate(zip(self.hands, self.lives, strict=True)))

    def relative_table(self) -> Table:
        """The seats in code order: the player to move first."""
        p = self.rules.players
        return tuple(self.table[(self.to_move + i) % p] for i in range(p))

    def code(self) -> str:
        """The seed's position code: every seat's sorted hands, starting with the seat to move."""
        return table_code(self.relative_table(), self.rules)

    def position_key(self) -> str:
        return f"{self.code()}@{self.to_move}"

    def legal_actions(self, player: int) -> Sequence[Action]:
        if self.result is not None or player != self.to_move:
            return ()
        return tuple(self._successors)

    @cached_property
    def _successors(self) -> dict[Action, Table]:
        return dict(successors(self.rules, self.table, self.to_move))

    # ----- actions ----------------------------------------------------------------------------------------
    def parse_action(self, text: str) -> Action:
        return parse_action_text(text, self.rules)

    def apply(self, player: int, action: Action) -> Self:
        if self.result is not None:
            raise GameOverError("The game is over.")
        if player != self.to_move:
            raise NotYourTurnError("It is not your turn.")
        if not isinstance(action, Attack | Split | Swap | Flip):
            raise IllegalMoveError("That is not a Chopsticks move.")
        table = self._successors.get(action) or self._successors.get(self._canonical(action))
        if table is None:
            raise IllegalMoveError(self._why_illegal(action))
        return self._advance(table, (player, action.text()))

    def _canonical(self, action: Action) -> Action:
        """The listed move equivalent to `action` (hands of equal value are interchangeable)."""
        h, p = self.rules.hands, self.rules.players
        mine = self.hands[self.to_move]
        if isinstance(action, Split) and action.unit != self.rules.unit:
            scale = self.rules.unit // action.unit
            return Split(tuple(v * scale for v in action.before), tuple(v * scale for v in action.after),
                         self.rules.unit)
        if isinstance(action, Flip) and 0 <= action.hand < h:
            return Flip(mine.index(mine[action.hand]))
        if isinstance(action, Attack) and 0 <= action.hand < h and 0 <= action.target < p * h:
            hand = mine.index(mine[action.hand])
            rel, j = divmod(action.target, h)
            target = self.hands[(self.to_move + rel) % p]
            others = [k for k, v in enumerate(target) if v == target[j] and not (rel == 0 and k == hand)]
            return Attack(hand, rel * h + others[0]) if others else action
        return action

    def _why_illegal(self, action: Action) -> str:
        """A player-facing reason why `action`, not among the legal moves, is refused."""
        rules, me = self.rules, self.table[self.to_move]
        if isinstance(action, Attack):
            return self._why_attack_illegal(action)
        if me.zombie:
            return "A zombie can only tap."
        if isinstance(action, Split):
            return self._why_split_illegal(action)
        if isinstance(action, Swap):
            if not {"swap", "logan", "cherry"} & rules.variants:
                return "Swapping your hands is not a move in these rules."
            return "You can't swap now: " + " or ".join(
                text for name, text in (("swap", "swap needs two different live hands"),
                                        ("logan", "Logan's clause needs a dead and a live hand"),
                                        ("cherry", "rearranging needs two different hands"))
                if rules.has(name)) + "."
        if isinstance(action, Flip):
            if not rules.has("integers"):
                return "Flipping a hand is only a move with the integers variant."
            if not 0 <= action.hand < rules.hands:
                return "There is no such hand."
            if not me.hands[action.hand]:
                return "A dead hand cannot flip."
            return "Flipping that hand would not change it."
        return "That move is not allowed here."

    def _why_attack_illegal(self, attack: Attack) -> str:
        p, h = self.rules.players, self.rules.hands
        if not (0 <= attack.hand < h and 0 <= attack.target < p * h):
            return "There is no such hand."
        rel, j = divmod(attack.target, h)
        mine = self.hands[self.to_move]
        target_seat = (self.to_move + rel) % p
        if rel == 0 and not self.rules.has("self-attack"):
            return "You cannot tap your own hand."
        if rel == 0 and j == attack.hand:
            return "A hand cannot tap itself."
        if mine[attack.hand] == 0:
            return "A dead hand cannot tap."
        if rel and self.is_zombie(target_seat):
            return "Zombies cannot be tapped."
        if rel and self.is_out(target_seat):
            return "That player is out."
        if self.hands[target_seat][j] == 0:
            return "You cannot tap a dead hand."
        return "That tap is not allowed here."

    def _why_split_illegal(self, split: Split) -> str:
        rules, unit = self.rules, self.rules.unit
        mine = self.hands[self.to_move]
        before, after = tuple(split.before), tuple(split.after)
        if before != mine:
            return f"Your hands are {hands_text(mine, unit)}, not {hands_text(before, unit)}."
        if after != tuple(sorted(after)):
            return f"Write the hands after the split in ascending order ({hands_text(tuple(sorted(after)), unit)})."
        if max(after) >= rules.limit:
            return f"A hand can hold at most {rules.rollover - 1} fingers."
        if after == mine:
            return "A split must change your hands: swapping them is not a move."
        total, new_total = sum(mine), sum(after)
        combining = rules.has("meta") and total > rules.limit and new_total == total - rules.limit
        if new_total != total and not combining:
            meta = (f" (or, combining with meta, {value_label(total - rules.limit, unit)})"
                    if rules.has("meta") and total > rules.limit else "")
            return (f"A split keeps your {value_label(total, unit)} fingers{meta}; {hands_text(after, unit)} has "
                    f"{value_label(new_total, unit)}.")
        dead_before, dead_after = mine.count(0), after.count(0)
        if not any(after):
            return "A split cannot kill all your hands."
        if dead_after > dead_before:
            if not rules.has("suicide"):
                return "You cannot kill your own hand with a split."
            if dead_after > dead_before + 1:
                return "A split may kill only one of your hands."
        if rules.has("transfers-only") and dead_after < dead_before:
            return "With transfers-only a split cannot revive a dead hand."
        if rules.has("divisions-only") and dead_after >= dead_before:
            return "With divisions-only a split must revive a dead hand."
        if unit > 1 and sum(v % unit != 0 for v in after) > 1:
            return "Only a single finger can be split into two halves; other splits keep at most one half."
        if rules.has("halves"):
            return "With halves a split must share your fingers " + ("as evenly as possible." if rules.odd
                                                                     else "equally.")
        if after not in redistributions(rules, mine):
            return "That split is not allowed here."
        return "That move is not allowed here."

    def _advance(self, table: Table, last: tuple[int, str]) -> Self:
        p = self.rules.players
        newly_out = tuple(s for s in range(p) if s not in self.out_order and not table[s].alive)
        out_order = self.out_order + newly_out
        state = replace(
            self, hands=tuple(s.hands for s in table), lives=tuple(s.lives for s in table),
            zombies=tuple(i for i, s in enumerate(table) if s.zombie), to_move=next_to_move(table, self.to_move),
            ply=self.ply + 1, out_order=out_order, last=last,
        )
        # With misère the first player knocked out wins at once; otherwise the last one still in does.
        if self.rules.has("misere") and newly_out:
            result: Outcome | None = state._misere_result(newly_out[0])
        else:
            result = state._knockout_result()
        seen = dict(self.seen)
        key = state.position_key()
        seen[key] = seen.get(key, 0) + 1
        if result is None and seen[key] >= 3:
            result = state._ranked(EndReason.REPETITION)
        return replace(state, seen=tuple(sorted(seen.items())), result=result)

    def _knockout_result(self) -> Outcome | None:
        alive = [s for s in range(self.rules.players) if s not in self.out_order]
        return self._ranked(EndReason.KNOCKOUT) if len(alive) <= 1 else None

    def _misere_result(self, winner: int) -> Outcome:
        """Misère: the knocked-out seat wins; players who resigned earlier come last, the rest share second."""
        earlier = [s for s in self.out_order if s != winner]
        places = [2] * self.rules.players
        places[winner] = 1
        for i, seat in enumerate(earlier):
            places[seat] = 2 + len(earlier) - i
        return Outcome(tuple(places), EndReason.MISERE)

    def _ranked(self, reason: EndReason) -> Outcome:
        return Outcome.by_elimination(self.rules.players, self.out_order, reason)

    def resign(self, player: int, reason: EndReason = EndReason.RESIGN) -> Self:
        """`player` leaves the game (a zombie may leave too); the others play on while two are still in."""
        if self.result is not None:
            raise GameOverError("The game is over.")
        if not 0 <= player < self.rules.players or self.is_out(player):
            raise IllegalMoveError("That player is not in the game.")
        hands = list(self.hands)
        hands[player] = (0,) * self.rules.hands
        lives = list(self.lives)
        lives[player] = 0
        out_order = self.out_order if player in self.out_order else (*self.out_order, player)
        state = replace(self, hands=tuple(hands), lives=tuple(lives), out_order=out_order, ply=self.ply + 1,
                        zombies=tuple(s for s in self.zombies if s != player), last=(player, reason))
        if len(out_order) >= self.rules.players - 1:
            return replace(state, result=state._ranked(reason))
        if player == self.to_move:
            state = replace(state, to_move=next_to_move(state.table, player))
        return state

    def agree_draw(self) -> Self:
        if self.result is not None:
            raise GameOverError("The game is over.")
        return replace(self, result=self._ranked(EndReason.DRAW_AGREED), ply=self.ply + 1, last=None)

    def describe(self, action: Action, mover_view: bool = False) -> str:
        """Plain words for a move in this position: "3 taps 2" (or, addressed to the mover, "your 3 taps
        their 2"), "split 13 → 22", "combine 44 → 12", "swap hands", "flip 4 → 1"."""
        unit = self.rules.unit
        mine = self.hands[self.to_move]
        if isinstance(action, Attack):
            h = self.rules.hands
            rel, target_hand = divmod(action.target, h)
            target_seat = (self.to_move + rel) % self.rules.players
            tapper = value_label(mine[action.hand], unit)
            tapped = value_label(self.hands[target_seat][target_hand], unit)
            if rel == 0:
                return f"your {tapper} taps your {tapped}" if mover_view else f"{tapper} taps own {tapped}"
            return f"your {tapper} taps their {tapped}" if mover_view else f"{tapper} taps {tapped}"
        if isinstance(action, Split):
            verb = "combine" if sum(action.after) != sum(action.before) else "split"
            return f"{verb} {hands_label(action.before, action.unit)} → {hands_label(action.after, action.unit)}"
        if isinstance(action, Swap):
            return "swap your hands (pass)" if mover_view else "swaps hands (pass)"
        if isinstance(action, Flip):
            value = mine[action.hand]
            flipped = value_label(self.rules.limit - value, unit)
            return f"flip your {value_label(value, unit)} to {flipped}" if mover_view else \
                f"flip {value_label(value, unit)} → {flipped}"
        raise IllegalMoveError("That is not a Chopsticks move.")

    # ----- views ------------------------------------------------------------------------------------------
    def public_view(self) -> ChopsticksView:
        return self._public_view

    @cached_property
    def _public_view(self) -> ChopsticksView:
        # Built once per position: the service asks for it once per audience, and everyone sees the same.
        unit = self.rules.unit
        seat = self.current_player()
        moves = () if seat is None else tuple(
            MoveChoice(move.text(), self.describe(move, mover_view=True),
                       move.hand if isinstance(move, Attack) else None,
                       self._tapped_seat(seat, move) if isinstance(move, Attack) else None)
            for move in self.legal_actions(seat))
        return ChopsticksView(
            rules=self.rules, code=self.code(), hands=self.hands, to_move=seat,
            out=self.out_order, ply=self.ply, last=self.last, outcome=self.result, lives=self.lives,
            zombies=self.zombies, labels=tuple(tuple(value_label(v, unit) for v in h) for h in self.hands),
            first=self.to_move, moves=moves, last_tap=self._last_tap(),
        )

    def _tapped_seat(self, mover: int, attack: Attack) -> int:
        """Whose hand `attack` taps: letters run in code order from the mover, `hands` letters per seat."""
        return (mover + attack.target // self.rules.hands) % self.rules.players

    def _last_tap(self) -> Tap | None:
        """The latest move told by whose hands it named, when it was an attack (its letters were the mover's)."""
        if self.last is None:
            return None
        mover, text = self.last
        try:
            action = parse_action_text(text, self.rules)
        except GameError:  # a resignation or a timeout: no hands named
            return None
        if not isinstance(action, Attack):
            return None
        letters = action.text()
        return Tap(hand=letters[0], target_seat=self._tapped_seat(mover, action), target=letters[1])

    def view_for(self, player: int) -> ChopsticksView:
        return self.public_view()  # nothing is hidden in Chopsticks

    # ----- serialisation ----------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "format": self.FORMAT_VERSION,
            "rules": self.rules.to_dict(),
            "hands": [list(h) for h in self.hands],
            "lives": list(self.lives),
            "zombies": list(self.zombies),
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
            found = data.get("format") if isinstance(data, Mapping) else None
            raise InvalidStateError(f"unknown Chopsticks format {found!r}")
        try:
            rules = Rules.from_dict(data["rules"])
            hands = tuple(tuple(int(v) for v in h) for h in data["hands"])
            lives = tuple(int(v) for v in data["lives"])
            zombies = tuple(int(s) for s in data["zombies"])
            to_move = int(data["to_move"])
            ply = int(data["ply"])
            seen = tuple(sorted((str(k), int(v)) for k, v in dict(data["seen"]).items()))
            out_order = tuple(int(s) for s in data["out_order"])
            result = Outcome.from_dict(data["result"]) if data["result"] is not None else None
            last_raw = data["last"]
            last = (int(last_raw[0]), str(last_raw[1])) if last_raw is not None else None
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidStateError(f"bad Chopsticks state: {exc}") from exc
        _validate(rules, hands, lives, zombies, to_move, out_order)
        return cls(rules=rules, hands=hands, to_move=to_move, ply=ply, seen=seen, out_order=out_order,
                   result=result, last=last, lives=lives, zombies=zombies)


def _validate(rules: Rules, hands: tuple[Hands, ...], lives: tuple[int, ...], zombies: tuple[int, ...],
              to_move: int, out_order: tuple[int, ...]) -> None:
    p, h = rules.players, rules.hands
    if len(hands) != p or any(len(x) != h or list(x) != sorted(x) for x in hands):
        raise InvalidStateError("bad Chopsticks state: hands do not match the rules")
    if any(not 0 <= v < rules.limit for x in hands for v in x):
        raise InvalidStateError("bad Chopsticks state: a hand holds too many fingers")
    if len(lives) != p or any(
            not (1 <= n <= rules.max_lives if any(x) and s not in zombies and rules.max_lives else n == 0)
            for s, (x, n) in enumerate(zip(hands, lives, strict=True))):
        raise InvalidStateError("bad Chopsticks state: lives do not match the rules")
    if not 0 <= to_move < p or any(not 0 <= s < p for s in (*out_order, *zombies)) or \
            len(set(out_order)) != len(out_order):
        raise InvalidStateError("bad Chopsticks state: no such seat")
    if any(hands[s] != zombie_seat(rules).hands or s not in out_order for s in zombies):
        raise InvalidStateError("bad Chopsticks state: a zombie seat is malformed")


def parse_code(code: str, rules: Rules) -> list[Hands]:
    """The seats' hands from a position code, in code order; raises InvalidStateError if malformed."""
    return [seat.hands for seat in parse_table(code, rules)]

