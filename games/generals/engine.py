"""Game of the Generals: the omniscient state and the arbiter (views are built in observe.py).

Phases. A game starts in the setup phase: each seat drafts a hidden deployment (`setup:<grid>`), may
`swap:a1-b2` squares of its draft, and locks it with `ready`. Setup actions are free actions: either seat
that is not ready may take them in any order; `current_player()` names the first seat not yet ready, so
a caller that only follows it still gets both setups. Play starts when both are ready, with the seat
chosen at creation (`first`) to move.

Hidden state. The pending back-rank Flag (`flag_waiting`) and every rank live only here; views carry a
player's own ranks, what that player has deduced (`Piece.known_as`, kept per piece from the opponent's
point of view), and the full board once the game is over.

Actions and their texts are in actions.py; the move log holds `setup:` texts with ranks, so show other
players `public_log_text(text)` instead.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
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
from games.generals.actions import Deploy, Move, Ready, Swap, parse_action_text
from games.generals.observe import hindsight_view, player_view, spectator_view
from games.generals.pieces import (
    ABBREVIATIONS,
    Rank,
    Result,
    attackers_consistent,
    challenge,
    defenders_consistent,
    parse_rank,
)
from games.generals.records import Event, Piece, initial_knowledge
from games.generals.rules import FLAG_RUSH_ALWAYS_WAIT, FLAG_RUSH_IMMEDIATE, MOVE_LIMIT, QUIET_LIMIT, Settings
from games.generals.setup import (
    BOARD_GRID,
    EMPTY_MARKS,
    FORMATIONS,
    Grid,
    SetupError,
    compact,
    deployment,
    formation,
    parse_grid,
    split_rows,
    swap,
    validate,
)
from games.generals.squares import NEIGHBOURS, back_rank, parse_square, rank_of, square_name, target_rank
from games.generals.views import OVER, PLAY, SETUP, PlayerView, PublicView
from games.text import Text

FLAG_ELIMINATED = EndReason.FLAG_CAPTURED
FLAG_REACHED_BACK_RANK = EndReason.FLAG_HOME
NO_CHALLENGE_DRAW = EndReason.NO_CHALLENGE_DRAW
DRAW_AGREED_REASON = EndReason.DRAW_AGREED
MOVE_LIMIT_REASON = EndReason.MOVE_LIMIT


@dataclass(frozen=True)
class GeneralsState(GameState[PublicView, PlayerView]):
    kind = "generals"
    FORMAT_VERSION = 1
    MIN_PLAYERS = 2
    MAX_PLAYERS = 2

    settings: Settings
    first: int  # the seat that moves first once both setups are in
    seeds: tuple[int, int] = (0, 0)  # per seat, to vary the formations legal_actions offers (never shown)
    drafts: tuple[Grid | None, Grid | None] = (None, None)
    ready: tuple[bool, bool] = (False, False)
    armies: tuple[tuple[Piece, ...], tuple[Piece, ...]] = ((), ())  # empty until play starts
    to_move: int = 0
    ply: int = 0
    quiet: int = 0
    flag_waiting: int | None = None  # the seat whose Flag stands on the enemy back rank for one reply
    last: Event | None = None
    last_challenge: Event | None = None  # the latest move that challenged, marked on the boards until the next
    result: Outcome | None = None

    # ----- creation ------------------------------------------------------------------------------------------
    @classmethod
    def new(cls, players: int, options: Mapping[str, Any], rng: random.Random) -> Self:
        if players != 2:
            raise GameError(Text("Game of the Generals is for 2 players."))
        settings = Settings.from_options(options)
        raw_first = options.get("first")
        first = rng.randrange(2) if raw_first is None else _seat(raw_first)
        seeds = (rng.getrandbits(32), rng.getrandbits(32))
        return cls(settings=settings, first=first, seeds=seeds, to_move=first)

    @classmethod
    def from_setups(cls, grid_a: Grid, grid_b: Grid, settings: Settings | None = None, first: int = 0) -> Self:
        """A game whose two setups are in: play starts with `first` to move."""
        state = cls(settings=settings or Settings(), first=first, to_move=first)
        for seat, grid in enumerate((grid_a, grid_b)):
            state = state.apply(seat, Deploy(grid)).apply(seat, Ready())
        return state

    @classmethod
    def from_board(cls, diagram: str | Mapping[str, str], settings: Settings | None = None, to_move: int = 0) -> Self:
        """A position in play: side A in capitals, side B in lower case. Meant for tests and puzzles.

        `diagram` is 8 rows of 9 cells (rank 8 on top, `.` for empty, labels optional) or a mapping like
        `{"e4": "MAJ", "e5": "pvt"}`. Pieces of the army that are not on the board count as eliminated.
        """
        settings = settings or Settings()
        cells = _diagram_cells(diagram)
        placed: tuple[list[tuple[int, Rank]], list[tuple[int, Rank]]] = ([], [])
        for sq, token in cells:
            rank = parse_rank(token)
            side = 0 if token == token.upper() else 1 if token == token.lower() else None
            if rank is None or side is None:
                raise SetupError(Text("{token} is not a piece (side A in capitals, side B in lower case).",
                                      token=repr(token)))
            placed[side].append((sq, rank))
        armies = []
        for side in (0, 1):
            pool = list(settings.army)
            pieces = []
            for sq, rank in placed[side]:
                if rank not in pool:
                    raise SetupError(Text("Side {side} has too many {piece}.", side="AB"[side],
                                          piece=ABBREVIATIONS[rank]))
                pool.remove(rank)
                pieces.append(Piece(rank, sq, 0, initial_knowledge(rank, settings)))
            pieces.sort(key=_by_square)
            pieces += [Piece(rank, None, 0, initial_knowledge(rank, settings) - {Rank.FLAG}) for rank in pool]
            if Rank.FLAG in pool:
                raise SetupError(Text("Side {side} needs its Flag on the board.", side="AB"[side]))
            armies.append(tuple(pieces))
        return cls(settings=settings, first=to_move, ready=(True, True), armies=(armies[0], armies[1]),
                   to_move=to_move)

    # ----- queries ---------------------------------------------------------------------------------------
    @property
    def num_players(self) -> int:
        return 2

    @property
    def phase(self) -> str:
        if self.result is not None:
            return OVER
        return PLAY if all(self.ready) else SETUP

    def current_player(self) -> int | None:
        if self.result is not None:
            return None
        if not all(self.ready):
            return 0 if not self.ready[0] else 1
        return self.to_move

    def outcome(self) -> Outcome | None:
        return self.result

    @cached_property
    def occupants(self) -> dict[int, tuple[int, int]]:
        """Square -> (seat, piece index) for every piece standing on the board."""
        # cached_property writes the instance dict directly, so it works on a frozen dataclass, and `replace`
        # builds a new instance: cached occupants never outlive their position.
        return {p.square: (seat, i) for seat, army in enumerate(self.armies) for i, p in enumerate(army)
                if p.square is not None}

    def piece_at(self, sq: int) -> tuple[int, Piece] | None:
        """(seat, piece) on a square, or None."""
        found = self.occupants.get(sq)
        return None if found is None else (found[0], self.armies[found[0]][found[1]])

    def legal_actions(self, player: int) -> Sequence[Action]:
        """Moves in the order of (from, to) square; during setup, the offered formations and `ready`.

        During setup the full set is far too large to list: any valid `setup:` grid and any `swap:` of
        the draft are accepted as well.
        """
        if self.result is not None or player not in (0, 1):
            return ()
        if self.phase == SETUP:
            return () if self.ready[player] else self._setup_offers(player)
        return self._moves if player == self.to_move else ()

    def _setup_offers(self, seat: int) -> tuple[Action, ...]:
        offers: list[Action] = [
            Deploy(formation(name, random.Random(f"{self.seeds[seat]}:{name}"), seat, self.settings))
            for name in FORMATIONS
        ]
        if self.drafts[seat] is not None:
            offers.append(Ready())
        return tuple(offers)

    @cached_property
    def _moves(self) -> tuple[Move, ...]:
        seat, occupants = self.to_move, self.occupants
        moves = []
        for piece in self.armies[seat]:
            if piece.square is None:
                continue
            for dst in NEIGHBOURS[piece.square]:
                occupant = occupants.get(dst)
                if occupant is None or occupant[0] != seat:
                    moves.append(Move(piece.square, dst))
        return tuple(sorted(moves, key=lambda m: (m.src, m.dst)))

    # ----- actions -----------------------------------------------------------------------------------------
    def parse_action(self, text: str) -> Action:
        return parse_action_text(text)

    def apply(self, player: int, action: Action) -> Self:
        if self.result is not None:
            raise GameOverError(Text("The game is over."))
        if player not in (0, 1):
            raise IllegalMoveError(Text("There is no such seat in this game."))
        if self.phase == SETUP:
            return self._apply_setup(player, action)
        if isinstance(action, Deploy | Swap | Ready):
            raise IllegalMoveError(Text("The setup phase is over."))
        if player != self.to_move:
            raise NotYourTurnError(Text("It is not your turn."))
        if not isinstance(action, Move):
            raise IllegalMoveError(Text("That is not a Game of the Generals move."))
        self._check_move(player, action)
        return self._play(player, action)

    def _apply_setup(self, seat: int, action: Action) -> Self:
        if self.ready[seat]:
            raise NotYourTurnError(Text("Your setup is locked in; play starts when your opponent is ready too."))
        draft = self.drafts[seat]
        if isinstance(action, Deploy):
            if action.labelled_side is not None and action.labelled_side != seat:
                raise SetupError(Text("That grid is labelled with the other side's ranks; you deploy on ranks "
                                      "{ranks}.", ranks="1-3" if seat == 0 else "6-8"))
            validate(action.grid, self.settings.army)
            return self._with_draft(seat, action.grid, Event(seat, "setup"))
        if isinstance(action, Swap):
            if draft is None:
                raise SetupError(Text("Deploy a setup first (a formation or a grid), then swap squares."))
            return self._with_draft(seat, swap(draft, seat, action.a, action.b),
                                    Event(seat, "swap", action.a, action.b))
        if isinstance(action, Ready):
            if draft is None:
                raise SetupError(Text("Deploy a setup first (a formation or a grid), then say you are ready."))
            ready = (True, self.ready[1]) if seat == 0 else (self.ready[0], True)
            state = replace(self, ready=ready, last=Event(seat, "ready"))
            return state._start() if all(ready) else state
        raise IllegalMoveError(Text("Play starts when both players are ready; set up your army first."))

    def _with_draft(self, seat: int, grid: Grid, event: Event) -> Self:
        drafts = (grid, self.drafts[1]) if seat == 0 else (self.drafts[0], grid)
        return replace(self, drafts=drafts, last=event)

    def _start(self) -> Self:
        armies = []
        for seat, grid in enumerate(self.drafts):
            assert grid is not None  # both are ready, so both drafted
            placed = sorted(deployment(grid, seat).items())
            armies.append(tuple(Piece(rank, sq, 0, initial_knowledge(rank, self.settings)) for sq, rank in placed))
        return replace(self, armies=(armies[0], armies[1]), to_move=self.first)

    def _check_move(self, seat: int, move: Move) -> None:
        # Every refusal depends only on the mover's own pieces and the public board, never on enemy ranks.
        mine = self.occupants.get(move.src)
        if mine is None or mine[0] != seat:
            raise IllegalMoveError(Text("You have no piece on {square}.", square=square_name(move.src)))
        if move.dst not in NEIGHBOURS[move.src]:
            raise IllegalMoveError(Text("{move} is not a move: a piece steps one square forward, back or "
                                        "sideways, never diagonally.", move=move.text()))
        target = self.occupants.get(move.dst)
        if target is not None and target[0] == seat:
            raise IllegalMoveError(Text("Your own piece stands on {square}.", square=square_name(move.dst)))

    def _play(self, seat: int, move: Move) -> Self:
        enemy = 1 - seat
        armies = [list(self.armies[0]), list(self.armies[1])]
        index = self.occupants[move.src][1]
        piece = armies[seat][index]
        target = self.occupants.get(move.dst)
        ruling: Result | None = None
        defender_rank: Rank | None = None
        if target is None:
            armies[seat][index] = replace(piece, square=move.dst, moves=piece.moves + 1)
        else:
            defender = armies[enemy][target[1]]
            ruling, defender_rank = challenge(piece.rank, defender.rank), defender.rank
            armies[seat][index], armies[enemy][target[1]] = self._after_challenge(piece, defender, move.dst, ruling)
        arrived = target is None and rank_of(move.dst) == target_rank(seat)
        arrival_wins = arrived and self._arrival_wins(seat, move.dst)
        result, waiting = self._judge(seat, piece.rank, defender_rank, ruling, arrived, arrival_wins)
        quiet = 0 if target is not None else self.quiet + 1
        draw_after = min((n for n in (self.settings.no_challenge_draw, self.settings.quiet_limit) if n is not None),
                         default=None)
        if result is None and draw_after is not None and quiet >= draw_after:
            # Drawn even with a Flag waiting on the back rank: waiting is secret, so the draw cannot depend on it.
            result, waiting = Outcome((1, 1), NO_CHALLENGE_DRAW), None
        if result is None and self.settings.move_limit is not None and self.ply + 1 >= self.settings.move_limit:
            result, waiting = Outcome((1, 1), MOVE_LIMIT_REASON), None
        if result is None:
            self._learn_not_flags(armies, seat, move.dst if arrival_wins else None)
        event = Event(seat, "move", move.src, move.dst, piece.rank, defender_rank, ruling)
        return replace(self, armies=(tuple(armies[0]), tuple(armies[1])), to_move=enemy, ply=self.ply + 1,
                       quiet=quiet, flag_waiting=waiting, last=event, result=result,
                       last_challenge=event if ruling is not None else self.last_challenge)

    def _after_challenge(self, attacker: Piece, defender: Piece, dst: int, ruling: Result) -> tuple[Piece, Piece]:
        """Both pieces after the arbiter's ruling, each with what its opponent has now learnt about it."""
        attacker_known = attacker.known_as & attackers_consistent(defender.rank, ruling)
        defender_known = defender.known_as & defenders_consistent(attacker.rank, ruling)
        if self.settings.reveal_winner and ruling == Result.ATTACKER:
            attacker_known = frozenset({attacker.rank})
        elif self.settings.reveal_winner and ruling == Result.DEFENDER:
            defender_known = frozenset({defender.rank})
        return (replace(attacker, square=dst if ruling == Result.ATTACKER else None, moves=attacker.moves + 1,
                        known_as=attacker_known),
                replace(defender, square=defender.square if ruling == Result.DEFENDER else None,
                        known_as=defender_known))

    def _judge(self, seat: int, mover: Rank, defender: Rank | None, ruling: Result | None, arrived: bool,
               arrival_wins: bool) -> tuple[Outcome | None, int | None]:
        """The result of a move and the seat whose Flag now waits on the back rank, in the rules' order.

        A Flag eliminated decides the game first; then an enemy Flag that has outlived its one reply (it
        arrived first, so it wins whatever else this move did); then this move's own Flag arrival.
        """
        enemy = 1 - seat
        if mover == Rank.FLAG and ruling in (Result.DEFENDER, Result.BOTH):
            return _win(enemy, FLAG_ELIMINATED), None
        if defender == Rank.FLAG and ruling in (Result.ATTACKER, Result.BOTH):
            return _win(seat, FLAG_ELIMINATED), None
        if self.flag_waiting == enemy:
            return _win(enemy, FLAG_REACHED_BACK_RANK), None
        if arrived and mover == Rank.FLAG:
            return (_win(seat, FLAG_REACHED_BACK_RANK), None) if arrival_wins else (None, seat)
        return None, None

    def _arrival_wins(self, seat: int, dst: int) -> bool:
        """Whether a Flag arriving on `dst` (the enemy back rank) would win at once under the settings."""
        if self.settings.flag_rush == FLAG_RUSH_IMMEDIATE:
            return True
        if self.settings.flag_rush == FLAG_RUSH_ALWAYS_WAIT:
            return False
        return not any(self.occupants.get(nb, (seat, 0))[0] != seat for nb in NEIGHBOURS[dst])

    @staticmethod
    def _learn_not_flags(armies: list[list[Piece]], seat: int, unopposed_arrival: int | None) -> None:
        """What both players deduce when the game goes on after `seat` moved: which pieces cannot be a Flag.

        No eliminated piece was a Flag; a piece that just reached the back rank where a Flag wins at once
        (`unopposed_arrival`) is none; nor is any piece that stood on the back rank through one enemy move.
        All of it follows from what everyone sees.
        """

        def no_flag(owner: int, p: Piece) -> bool:
            if p.square is None:
                return True
            if owner == seat:
                return p.square == unopposed_arrival
            return rank_of(p.square) == back_rank(seat)

        for owner in (0, 1):
            for i, p in enumerate(armies[owner]):
                if Rank.FLAG in p.known_as and no_flag(owner, p):
                    armies[owner][i] = replace(p, known_as=p.known_as - {Rank.FLAG})

    def resign(self, player: int, reason: EndReason = EndReason.RESIGN) -> Self:
        if self.result is not None:
            raise GameOverError(Text("The game is over."))
        if player not in (0, 1):
            raise IllegalMoveError(Text("There is no such seat in this game."))
        return replace(self, result=_win(1 - player, reason), last=Event(player, reason), flag_waiting=None)

    def past_limit(self) -> EndReason | None:
        if self.result is not None:
            return None
        if self.quiet >= (self.settings.quiet_limit or QUIET_LIMIT):
            return NO_CHALLENGE_DRAW
        return MOVE_LIMIT_REASON if self.ply >= (self.settings.move_limit or MOVE_LIMIT) else None

    def stop(self, reason: EndReason) -> Self:
        """The game ends here as a draw (both players are still in)."""
        if self.result is not None:
            raise GameOverError(Text("The game is over."))
        return replace(self, result=Outcome((1, 1), reason), flag_waiting=None)

    def agree_draw(self) -> Self:
        if self.result is not None:
            raise GameOverError(Text("The game is over."))
        return replace(self, result=Outcome((1, 1), DRAW_AGREED_REASON), flag_waiting=None,
                       last=Event(self.current_player() or 0, DRAW_AGREED_REASON))

    # ----- views -------------------------------------------------------------------------------------------
    def view_for(self, player: int) -> PlayerView:
        if player not in (0, 1):
            raise IllegalMoveError(Text("There is no such seat in this game."))
        return player_view(self, player)

    def public_view(self) -> PublicView:
        return spectator_view(self)

    def hindsight_view(self) -> PublicView:
        """The public view with every standing piece revealed: only for replaying a game that is over."""
        return hindsight_view(self)

    def setting_up(self) -> tuple[int, ...]:
        if self.result is not None or self.phase != SETUP:
            return ()
        return tuple(seat for seat in (0, 1) if not self.ready[seat])

    def review_view(self, game_over: bool) -> PublicView:
        return self.hindsight_view() if game_over else self.public_view()

    def began(self) -> bool:
        return self.phase != SETUP

    def moves_of_play(self) -> int:
        return self.ply  # moves on the board only: setup steps, resignations and draws leave it as it was

    def expand(self, player: int, text: str, rng: random.Random) -> str:
        """`formation:<name>` deploys one of the named formations (`random` draws on `rng`) as a setup."""
        kind, _, name = text.partition(":")
        if kind != "formation":
            return text
        if name not in FORMATIONS:
            raise IllegalMoveError(Text("There is no formation called {name}; choose from {names}.",
                                        name=repr(name), names=", ".join(FORMATIONS)))
        return "setup:" + compact(formation(name, rng, player, self.settings))

    def turn_token(self) -> int | None:
        """Moves played since the setups: the public count a drawn move button is checked against.

        During setup every action is a free one on the player's own draft, so none is ever stale; and the
        number of setup actions the opponent took is not something a player's buttons should carry."""
        return self.ply

    # ----- serialisation -----------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "format": self.FORMAT_VERSION,
            "settings": self.settings.to_dict(),
            "first": self.first,
            "seeds": list(self.seeds),
            "drafts": [None if g is None else compact(g) for g in self.drafts],
            "ready": list(self.ready),
            "armies": [[p.to_json() for p in army] for army in self.armies],
            "to_move": self.to_move,
            "ply": self.ply,
            "quiet": self.quiet,
            "flag_waiting": self.flag_waiting,
            "last": None if self.last is None else self.last.to_json(),
            "last_challenge": None if self.last_challenge is None else self.last_challenge.to_json(),
            "result": None if self.result is None else self.result.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        if not isinstance(data, Mapping) or data.get("format") != cls.FORMAT_VERSION:
            found = data.get("format") if isinstance(data, Mapping) else data
            raise InvalidStateError(f"unknown Generals format {found!r}")
        try:
            settings = Settings.from_dict(data["settings"])
            drafts = tuple(None if g is None else _checked_grid(str(g), settings) for g in data["drafts"])
            armies = tuple(tuple(Piece.from_json(raw) for raw in army) for army in data["armies"])
            raw_last = data["last"]
            raw_challenge = data.get("last_challenge")  # absent from snapshots stored before it was kept
            state = cls(
                settings=settings, first=_seat(data["first"]),
                seeds=(int(data["seeds"][0]), int(data["seeds"][1])),
                drafts=(drafts[0], drafts[1]), ready=(_bool(data["ready"][0]), _bool(data["ready"][1])),
                armies=(armies[0], armies[1]), to_move=_seat(data["to_move"]), ply=int(data["ply"]),
                quiet=int(data["quiet"]),
                flag_waiting=None if data["flag_waiting"] is None else _seat(data["flag_waiting"]),
                last=None if raw_last is None else Event.from_json(raw_last),
                last_challenge=None if raw_challenge is None else Event.from_json(raw_challenge),
                result=None if data["result"] is None else Outcome.from_dict(data["result"]),
            )
        except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
            if isinstance(exc, InvalidStateError):
                raise
            raise InvalidStateError(f"bad Generals state: {exc}") from exc
        state._check_consistency()
        return state

    def _check_consistency(self) -> None:
        if len(self.drafts) != 2 or len(self.armies) != 2:
            raise InvalidStateError("bad Generals state: two seats expected")
        if bool(self.armies[0]) != bool(self.armies[1]) or bool(self.armies[0]) != all(self.ready):
            raise InvalidStateError("bad Generals state: armies exist exactly when both setups are in")
        squares = [p.square for army in self.armies for p in army if p.square is not None]
        if len(squares) != len(set(squares)):
            raise InvalidStateError("bad Generals state: two pieces on one square")
        for army in self.armies:
            if army and sorted(p.rank for p in army) != sorted(self.settings.army):
                raise InvalidStateError("bad Generals state: an army does not match the settings")
            if any(p.rank not in p.known_as for p in army):
                raise InvalidStateError("bad Generals state: knowledge contradicts a rank")


# ----- helpers -------------------------------------------------------------------------------------------------
def _diagram_cells(diagram: str | Mapping[str, str]) -> list[tuple[int, str]]:
    """(square, token) for every piece of a board diagram or square mapping."""
    if not isinstance(diagram, str):
        cells = []
        for name, token in diagram.items():
            sq = parse_square(name)
            if sq is None:
                raise SetupError(Text("{name} is not a square.", name=repr(name)))
            cells.append((sq, token))
        return cells
    body, labels = split_rows(diagram, 8, BOARD_GRID)
    if labels is not None:
        body = [body[i] for i in sorted(range(8), key=lambda i: -labels[i])]
    return [((7 - row) * 9 + col, token) for row, tokens in enumerate(body) for col, token in enumerate(tokens)
            if token not in EMPTY_MARKS]


def _win(seat: int, reason: EndReason) -> Outcome:
    return Outcome((1, 2) if seat == 0 else (2, 1), reason)


def _by_square(p: Piece) -> int:
    return -1 if p.square is None else p.square


def _seat(raw: Any) -> int:
    seat = int(raw)
    if seat not in (0, 1):
        raise IllegalMoveError(Text("There is no seat {seat}; Game of the Generals has seats 1 and 2.", seat=seat + 1))
    return seat


def _bool(raw: Any) -> bool:
    if not isinstance(raw, bool):
        raise TypeError(f"expected true or false, not {raw!r}")
    return raw


def _checked_grid(text: str, settings: Settings) -> Grid:
    grid, _ = parse_grid(text)
    validate(grid, settings.army)
    return grid
