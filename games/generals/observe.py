"""Building the views: what one player, or a spectator, may know of an omniscient state.

Everything that reaches a renderer, an embed, autocomplete, a log line or the AI passes through here, so
this is the one place to audit for leaks: enemy pieces appear only as squares with the viewer's own
deductions (`Piece.known_as`), rulings carry no ranks, and the whole board only once the game is over.
`Observed` lists everything of the state that may be read here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

from games.base import Action, Outcome
from games.generals.pieces import Rank, Result
from games.generals.records import Event, Piece
from games.generals.rules import Settings
from games.generals.setup import Grid, deployment
from games.generals.squares import square_name
from games.generals.views import (
    SETUP,
    EnemyPiece,
    LastMove,
    OwnPiece,
    PlayerView,
    PublicPiece,
    PublicView,
    Reveal,
    RevealedPiece,
)


class Observed(Protocol):
    """What the views are built from: the parts of the omniscient state (`engine.GeneralsState`) read here.

    Declared here, not imported from the engine: the engine imports this module to build its views."""

    @property
    def settings(self) -> Settings: ...
    @property
    def phase(self) -> str: ...
    @property
    def drafts(self) -> tuple[Grid | None, Grid | None]: ...
    @property
    def ready(self) -> tuple[bool, bool]: ...
    @property
    def armies(self) -> tuple[tuple[Piece, ...], tuple[Piece, ...]]: ...
    @property
    def ply(self) -> int: ...
    @property
    def quiet(self) -> int: ...
    @property
    def last(self) -> Event | None: ...
    @property
    def last_challenge(self) -> Event | None: ...
    @property
    def result(self) -> Outcome | None: ...
    def current_player(self) -> int | None: ...
    def legal_actions(self, player: int) -> Sequence[Action]: ...


def player_view(state: Observed, seat: int) -> PlayerView:
    """What `seat` may know: its own ranks (or its draft), enemy squares with its deductions, the rulings."""
    mine, theirs = state.armies[seat], state.armies[1 - seat]
    if mine:
        own = tuple(OwnPiece(square_name(sq), p.rank, p.moves) for sq, p in _standing(mine))
    else:
        draft = state.drafts[seat]
        placed = sorted(deployment(draft, seat).items()) if draft is not None else []
        own = tuple(OwnPiece(square_name(sq), rank, 0) for sq, rank in placed)
    return PlayerView(
        seat=seat, settings=state.settings, phase=state.phase, to_move=state.current_player(), ready=state.ready,
        ply=state.ply, quiet=state.quiet, own=own,
        enemy=tuple(EnemyPiece(square_name(sq), p.known_as, p.moves) for sq, p in _standing(theirs)),
        own_lost=tuple(sorted((p.rank for p in mine if p.square is None), reverse=True)),
        # Sorted by content, not by piece: the order pieces fell is public anyway, but the view need not carry it.
        enemy_lost=tuple(sorted((p.known_as for p in theirs if p.square is None), key=_descending)),
        lost=_lost_counts(state), last=_last_for(state, seat), challenge=_challenge_for(state, seat),
        legal=tuple(a.text() for a in state.legal_actions(seat)), outcome=state.result, reveal=_reveal(state),
    )


def spectator_view(state: Observed) -> PublicView:
    """What a spectator may know: squares without ranks, rulings, counts; the whole board once over."""
    pieces = sorted((sq, seat, p.moves) for seat, army in enumerate(state.armies) for sq, p in _standing(army))
    return PublicView(
        settings=state.settings, phase=state.phase, to_move=state.current_player(), ready=state.ready,
        ply=state.ply, quiet=state.quiet, pieces=tuple(PublicPiece(square_name(sq), seat, moves)
                                                       for sq, seat, moves in pieces),
        lost=_lost_counts(state), last=_last_for(state, None), challenge=_challenge_for(state, None),
        outcome=state.result, reveal=_reveal(state),
    )


def hindsight_view(state: Observed) -> PublicView:
    """The spectators' view with every standing piece revealed, for stepping through a finished game's replay.

    The caller must know the game is over: this shows ranks of a position that may still be in play."""
    view = spectator_view(state)
    if view.reveal is not None or not state.armies[0]:
        return view
    return replace(view, reveal=_full_board(state))


def _standing(army: tuple[Piece, ...]) -> list[tuple[int, Piece]]:
    """(square, piece) for the pieces still on the board, by square."""
    return sorted(((p.square, p) for p in army if p.square is not None), key=lambda item: item[0])


def _descending(ranks: frozenset[Rank]) -> tuple[int, ...]:
    return tuple(sorted(ranks, reverse=True))


def _lost_counts(state: Observed) -> tuple[int, int]:
    counts = [sum(p.square is None for p in army) for army in state.armies]
    return counts[0], counts[1]


def _challenge_for(state: Observed, viewer: int | None) -> LastMove | None:
    """The latest challenge as `viewer` may see it: marked on the board until the next one."""
    return None if state.last_challenge is None else _event_for(state.last_challenge, state, viewer)


def _last_for(state: Observed, viewer: int | None) -> LastMove | None:
    """The latest action as `viewer` (None: a spectator) may see it."""
    event = state.last
    if event is None:
        return None
    if state.phase == SETUP:
        # Drafts are secret and `ready` already says who is done: a view that named the latest setup action
        # would change (and its board be redrawn) each time the *other* player rearranged their army.
        return None
    return _event_for(event, state, viewer)


def _event_for(event: Event, state: Observed, viewer: int | None) -> LastMove:
    if event.kind != "move":
        return LastMove(event.seat, event.kind)
    your_rank = their_rank = None
    reveal_winner = state.settings.reveal_winner
    if viewer == event.seat:
        your_rank = event.mover
        if reveal_winner and event.result == Result.DEFENDER:
            their_rank = event.defender
    elif viewer is not None and event.result is not None:
        your_rank = event.defender
        if reveal_winner and event.result == Result.ATTACKER:
            their_rank = event.mover
    return LastMove(event.seat, "move", _name(event.src), _name(event.dst), event.result, your_rank, their_rank)


def _reveal(state: Observed) -> Reveal | None:
    if state.result is None or not state.armies[0]:
        return None  # nothing is revealed before the end, nor when a game ends before play started
    return _full_board(state)


def _full_board(state: Observed) -> Reveal:
    pieces = sorted((sq, seat, p.rank) for seat, army in enumerate(state.armies) for sq, p in _standing(army))
    lost = [tuple(sorted((p.rank for p in army if p.square is None), reverse=True)) for army in state.armies]
    return Reveal(tuple(RevealedPiece(square_name(sq), seat, rank) for sq, seat, rank in pieces), (lost[0], lost[1]))


def _name(sq: int | None) -> str | None:
    return None if sq is None else square_name(sq)
