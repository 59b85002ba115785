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
from functools import cached_property, lru_cache
from types import MappingProxyType
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
from games.chopsticks.moves import next_to_move, successors
from games.chopsticks.notation import Hands, hands_label, value_label
from games.chopsticks.position import Seat, Table, parse_table, start_seat, table_code, zombie_seat
from games.chopsticks.refusals import why_illegal
from games.chopsticks.rules import MAX_PLAYERS, MAX_PLIES, MIN_PLAYERS, Rules
from games.chopsticks.views import ChopsticksView, MoveChoice, Tap
from games.text import Text

__all__ = ["ChopsticksState", "parse_code"]


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
    played: int = 0  # moves of play: `ply` without the resignations, timeouts and agreed draws
    # How often each position (code plus seat to move) has occurred, for the third-repetition draw.
    seen: tuple[tuple[str, int], ...] = ()
    out_order: tuple[int, ...] = ()  # seats in the order they went out (zombies too)
    result: Outcome | None = None
    last: tuple[int, str] | None = None  # (seat, action text) of the latest move
    lives: tuple[int, ...] = field(default=())  # by seat: lives left with sudden-death, else 0
    zombies: tuple[int, ...] = ()  # seats playing on as zombies
    # The latest move's tapping and tapped hands before it, when it was an attack (in units): what it did, in words.
    last_values: tuple[int, int] | None = None

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
                raise GameError(Text("'first' must be a seat number, not {value}.", value=repr(first))) from None
        if not 0 <= first_seat < players:
            raise GameError(Text("There is no seat {seat} to move first.", seat=first_seat + 1))
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
            raise InvalidStateError(Text("There is no seat {seat}.", seat=to_move + 1))
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
        return _code(self.rules, self.table, self.to_move)

    def position_key(self) -> str:
        return f"{self.code()}@{self.to_move}"

    def legal_actions(self, player: int) -> Sequence[Action]:
        if self.result is not None or player != self.to_move:
            return ()
        return tuple(self._successors)

    @property
    def _successors(self) -> Mapping[Action, Table]:
        return _successor_tables(self.rules, self.table, self.to_move)

    # ----- actions ----------------------------------------------------------------------------------------
    def parse_action(self, text: str) -> Action:
        return parse_action_text(text, self.rules)

    def apply(self, player: int, action: Action) -> Self:
        if self.result is not None:
            raise GameOverError(Text("The game is over."))
        if player != self.to_move:
            raise NotYourTurnError(Text("It is not your turn."))
        if not isinstance(action, Attack | Split | Swap | Flip):
            raise IllegalMoveError(Text("That is not a Chopsticks move."))
        table = self._successors.get(action) or self._successors.get(self._canonical(action))
        if table is None:
            raise IllegalMoveError(why_illegal(self.rules, self.table, self.to_move, action))
        values = None
        if isinstance(action, Attack):
            rel, target = divmod(action.target, self.rules.hands)
            values = (self.hands[player][action.hand], self.hands[(player + rel) % self.rules.players][target])
        return replace(self._advance(table, (player, action.text())), last_values=values)

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

    def _advance(self, table: Table, last: tuple[int, str]) -> Self:
        p = self.rules.players
        newly_out = tuple(s for s in range(p) if s not in self.out_order and not table[s].alive)
        out_order = self.out_order + newly_out
        state = replace(
            self, hands=tuple(s.hands for s in table), lives=tuple(s.lives for s in table),
            zombies=tuple(i for i, s in enumerate(table) if s.zombie), to_move=next_to_move(table, self.to_move),
            ply=self.ply + 1, played=self.played + 1, out_order=out_order, last=last,
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
        if result is None and state._at_limit():
            result = state._ranked(EndReason.MOVE_LIMIT)
        return replace(state, seen=tuple(sorted(seen.items())), result=result)

    def _at_limit(self) -> bool:
        return self.rules.max_plies is not None and self.ply >= self.rules.max_plies

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
            raise GameOverError(Text("The game is over."))
        if not 0 <= player < self.rules.players or self.is_out(player):
            raise IllegalMoveError(Text("That player is not in the game."))
        hands = list(self.hands)
        hands[player] = (0,) * self.rules.hands
        lives = list(self.lives)
        lives[player] = 0
        out_order = self.out_order if player in self.out_order else (*self.out_order, player)
        state = replace(self, hands=tuple(hands), lives=tuple(lives), out_order=out_order, ply=self.ply + 1,
                        zombies=tuple(s for s in self.zombies if s != player), last=(player, reason),
                        last_values=None)
        if len(out_order) >= self.rules.players - 1:
            return replace(state, result=state._ranked(reason))
        if player == self.to_move:
            state = replace(state, to_move=next_to_move(state.table, player))
        if state._at_limit():
            return replace(state, result=state._ranked(EndReason.MOVE_LIMIT))
        return state

    def seats_in(self) -> tuple[int, ...]:
        """The seats still taking turns (a zombie is out, yet still taps)."""
        if self.result is not None:
            return ()
        return tuple(seat for seat in range(self.rules.players) if not self.is_out(seat))

    def past_limit(self) -> EndReason | None:
        limit = self.rules.max_plies or MAX_PLIES
        return EndReason.MOVE_LIMIT if self.result is None and self.ply >= limit else None

    def stop(self, reason: EndReason) -> Self:
        """The game ends here: the seats still in share the best remaining place (a draw among them), the others
        keep the places their going out gave them."""
        if self.result is not None:
            raise GameOverError(Text("The game is over."))
        return replace(self, result=self._ranked(reason))

    def agree_draw(self) -> Self:
        if self.result is not None:
            raise GameOverError(Text("The game is over."))
        return replace(self, result=self._ranked(EndReason.DRAW_AGREED), ply=self.ply + 1, last=None,
                       last_values=None)

    def moves_of_play(self) -> int:
        return self.played

    def describe(self, action: Action, mover_view: bool = False) -> Text:
        """Plain words for a move in this position: "3 taps 2" (or, addressed to the mover, "your 3 taps
        their 2"), "split 13 → 22", "combine 44 → 12", "swap hands", "flip 4 → 1"."""
        return describe_move(self.rules, self.hands, self.to_move, action, mover_view)

    # ----- views ------------------------------------------------------------------------------------------
    def public_view(self) -> ChopsticksView:
        return self._public_view

    @cached_property
    def _public_view(self) -> ChopsticksView:
        # Built once per position: the service asks for it once per audience, and everyone sees the same.
        unit = self.rules.unit
        seat = self.current_player()
        moves = () if seat is None else move_choices(self.rules, self.table, seat)
        return ChopsticksView(
            rules=self.rules, code=self.code(), hands=self.hands, to_move=seat,
            out=self.out_order, ply=self.ply, last=self.last, outcome=self.result, lives=self.lives,
            zombies=self.zombies, labels=tuple(tuple(value_label(v, unit) for v in h) for h in self.hands),
            first=self.to_move, moves=moves, last_tap=self._last_tap(),
        )

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
        values = self.last_values
        return Tap(hand=letters[0], target_seat=tapped_seat(self.rules, mover, action), target=letters[1],
                   values=(value_label(values[0], self.rules.unit), value_label(values[1], self.rules.unit))
                   if values is not None else ())

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
            "played": self.played,
            "seen": dict(self.seen),
            "out_order": list(self.out_order),
            "result": self.result.to_dict() if self.result else None,
            "last": list(self.last) if self.last else None,
        } | ({"last_values": list(self.last_values)} if self.last_values is not None else {})

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
            # A snapshot from before moves of play were counted apart: its ply counted every action.
            played = int(data.get("played", ply))
            if not 0 <= played <= ply:
                raise ValueError(f"{played} moves of play in {ply} actions")
            seen = tuple(sorted((str(k), int(v)) for k, v in dict(data["seen"]).items()))
            out_order = tuple(int(s) for s in data["out_order"])
            result = Outcome.from_dict(data["result"]) if data["result"] is not None else None
            last_raw = data["last"]
            last = (int(last_raw[0]), str(last_raw[1])) if last_raw is not None else None
            values_raw = data.get("last_values")  # absent from older snapshots, and after anything but an attack
            last_values = (int(values_raw[0]), int(values_raw[1])) if values_raw is not None else None
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidStateError(f"bad Chopsticks state: {exc}") from exc
        _validate(rules, hands, lives, zombies, to_move, out_order)
        return cls(rules=rules, hands=hands, to_move=to_move, ply=ply, played=played, seen=seen, out_order=out_order,
                   result=result, last=last, lives=lives, zombies=zombies, last_values=last_values)


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



def describe_move(rules: Rules, hands: tuple[Hands, ...], mover: int, action: Action, mover_view: bool = False) -> Text:
    """Plain words for `action` of seat `mover` at a table of `hands` (see `ChopsticksState.describe`)."""
    unit = rules.unit
    mine = hands[mover]
    if isinstance(action, Attack):
        h = rules.hands
        rel, target_hand = divmod(action.target, h)
        target_seat = (mover + rel) % rules.players
        tapper = value_label(mine[action.hand], unit)
        tapped = value_label(hands[target_seat][target_hand], unit)
        if rel == 0:
            return Text("your {tapper} taps your {tapped}", tapper=tapper, tapped=tapped) if mover_view else \
                Text("{tapper} taps own {tapped}", tapper=tapper, tapped=tapped)
        return Text("your {tapper} taps their {tapped}", tapper=tapper, tapped=tapped) if mover_view else \
            Text("{tapper} taps {tapped}", tapper=tapper, tapped=tapped)
    if isinstance(action, Split):
        before, after = hands_label(action.before, action.unit), hands_label(action.after, action.unit)
        if sum(action.after) != sum(action.before):
            return Text("combine {before} → {after}", before=before, after=after)
        return Text("split {before} → {after}", before=before, after=after)
    if isinstance(action, Swap):
        return Text("swap your hands (pass)") if mover_view else Text("swaps hands (pass)")
    if isinstance(action, Flip):
        value = value_label(mine[action.hand], unit)
        flipped = value_label(rules.limit - mine[action.hand], unit)
        return Text("flip your {value} to {flipped}", value=value, flipped=flipped) if mover_view else \
            Text("flip {value} → {flipped}", value=value, flipped=flipped)
    raise IllegalMoveError(Text("That is not a Chopsticks move."))


def tapped_seat(rules: Rules, mover: int, attack: Attack) -> int:
    """Whose hand `attack` taps: letters run in code order from the mover, `hands` letters per seat."""
    return (mover + attack.target // rules.hands) % rules.players


# Positions come back again and again (a standard game has a few hundred), and every move and every view of one asks
# the same questions of it: each answer is worked out once per position (the cache keys are immutable values).
@lru_cache(maxsize=4096)
def _code(rules: Rules, table: Table, to_move: int) -> str:
    p = rules.players
    return table_code(tuple(table[(to_move + i) % p] for i in range(p)), rules)


@lru_cache(maxsize=4096)
def _successor_tables(rules: Rules, table: Table, mover: int) -> Mapping[Action, Table]:
    """Each legal move of `mover` with the table it leads to (read-only: every state of the position shares it)."""
    return MappingProxyType(dict(successors(rules, table, mover)))


@lru_cache(maxsize=4096)
def move_choices(rules: Rules, table: Table, seat: int) -> tuple[MoveChoice, ...]:
    """The moves `seat` may make at `table`, as a player is offered them. Every view of a position lists them, and the
    same positions come back again and again (a standard game has a few hundred), so each is worked out once and
    kept: words for every move are the costliest part of building a view."""
    hands = tuple(s.hands for s in table)
    return tuple(
        MoveChoice(move.text(), describe_move(rules, hands, seat, move, mover_view=True),
                   move.hand if isinstance(move, Attack) else None,
                   tapped_seat(rules, seat, move) if isinstance(move, Attack) else None)
        for move, _ in successors(rules, table, seat))
