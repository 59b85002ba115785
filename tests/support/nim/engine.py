"""Nim's rules: one pile, take 1-3 stones, whoever takes the last stone wins."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Self

from games.base import (
    Action,
    EndReason,
    GameOverError,
    GameState,
    IllegalMoveError,
    InvalidStateError,
    NotYourTurnError,
    Outcome,
)

MAX_TAKE = 3


@dataclass(frozen=True)
class Take(Action):
    count: int

    def text(self) -> str:
        return f"take-{self.count}"


@dataclass(frozen=True)
class NimView:
    """Everything anyone may know (Nim hides nothing)."""

    stones: int
    to_move: int | None
    ply: int
    last: tuple[int, str] | None
    outcome: Outcome | None
    choices: tuple[int, ...]  # how many stones the player to move may take


@dataclass(frozen=True)
class NimState(GameState[NimView, NimView]):
    kind = "nim"
    FORMAT_VERSION = 1
    MIN_PLAYERS = 2
    MAX_PLAYERS = 2

    stones: int
    to_move: int = 0
    ply: int = 0
    result: Outcome | None = None
    last: tuple[int, str] | None = None

    @classmethod
    def new(cls, players: int, options: Mapping[str, Any], rng: random.Random) -> Self:
        if players != 2:
            raise IllegalMoveError("Nim is for two players.")
        return cls(stones=int(options.get("stones", 7)))

    @property
    def num_players(self) -> int:
        return 2

    def current_player(self) -> int | None:
        return None if self.result is not None else self.to_move

    def legal_actions(self, player: int) -> Sequence[Action]:
        if player != self.current_player():
            return ()
        return tuple(Take(n) for n in range(1, min(MAX_TAKE, self.stones) + 1))

    def parse_action(self, text: str) -> Action:
        verb, _, count = text.partition("-")
        if verb != "take" or not count.isdigit():
            raise IllegalMoveError(f"`{text}` is not a move: take 1 to {MAX_TAKE} stones.")
        return Take(int(count))

    def apply(self, player: int, action: Action) -> Self:
        if self.result is not None:
            raise GameOverError("The game is over.")
        if player != self.to_move:
            raise NotYourTurnError("It is not your turn.")
        if action not in self.legal_actions(player):
            raise IllegalMoveError(f"You can take 1 to {min(MAX_TAKE, self.stones)} stones.")
        assert isinstance(action, Take)
        stones = self.stones - action.count
        result = Outcome((1, 2) if player == 0 else (2, 1), EndReason.KNOCKOUT) if stones == 0 else None
        return replace(self, stones=stones, to_move=1 - player, ply=self.ply + 1, result=result,
                       last=(player, action.text()))

    def resign(self, player: int, reason: EndReason = EndReason.RESIGN) -> Self:
        if self.result is not None:
            raise GameOverError("The game is over.")
        places = (2, 1) if player == 0 else (1, 2)
        return replace(self, result=Outcome(places, reason), ply=self.ply + 1, last=(player, reason.value))

    def agree_draw(self) -> Self:
        return replace(self, result=Outcome((1, 1), EndReason.DRAW_AGREED), ply=self.ply + 1)

    def outcome(self) -> Outcome | None:
        return self.result

    def moves_of_play(self) -> int:
        # Two players: a resignation or a draw ends the game, so only the last action may be no move of play.
        meta = self.result is not None and self.result.reason is not EndReason.KNOCKOUT
        return self.ply - meta

    def public_view(self) -> NimView:
        choices = tuple(a.count for a in self.legal_actions(self.to_move) if isinstance(a, Take))
        return NimView(self.stones, self.current_player(), self.ply, self.last, self.result, choices)

    def view_for(self, player: int) -> NimView:
        return self.public_view()

    def to_dict(self) -> dict[str, Any]:
        return {"format": self.FORMAT_VERSION, "stones": self.stones, "to_move": self.to_move, "ply": self.ply,
                "result": self.result.to_dict() if self.result else None,
                "last": list(self.last) if self.last else None}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        if data.get("format") != cls.FORMAT_VERSION:
            raise InvalidStateError("unknown Nim format")
        result = Outcome.from_dict(data["result"]) if data.get("result") else None
        last = (int(data["last"][0]), str(data["last"][1])) if data.get("last") else None
        return cls(int(data["stones"]), int(data["to_move"]), int(data["ply"]), result, last)


def bot_action(state: NimState, player: int, level: str, rng: random.Random) -> Action:
    """Perfect play: leave a multiple of four when possible, else take one stone."""
    return Take(state.stones % (MAX_TAKE + 1) or 1)
