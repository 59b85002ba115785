"""What the table shows: a frozen view of a position, and plain words for an action."""

from __future__ import annotations

from dataclasses import dataclass

from games.base import Action, Outcome
from games.sucker.actions import COLOURS, Decline, Give, Kill, NameNext, Play
from games.sucker.narration import Narration, colour_name, narrate, words
from games.sucker.position import SuckerPosition
from games.sucker.texts import Capitalised, chip_colour, chip_colour_object
from games.text import Plural, Text


@dataclass(frozen=True)
class ChipView:
    """A chip in a pile: its colour and the colour of the player who played it."""

    colour: str
    played_by: str


@dataclass(frozen=True)
class PileView:
    """A pile, numbered from 1 as in action texts, with its chips bottom -> top."""

    number: int
    chips: tuple[ChipView, ...]

    @property
    def top(self) -> str:
        return self.chips[-1].colour


@dataclass(frozen=True)
class SeatView:
    """One player: what they hold by colour (nonzero counts, own colour first) and whether they are out."""

    seat: int
    colour: str
    holdings: tuple[tuple[str, int], ...]
    own: int  # chips of their own colour
    prisoners: int  # chips of other colours
    defeated: bool
    gifts_given: tuple[tuple[str, int], ...]  # chips transferred so far, by receiving player's colour

    @property
    def total(self) -> int:
        return self.own + self.prisoners


@dataclass(frozen=True)
class ChoiceView:
    """One way to make the decision awaited: the action's text, the words its button shows, and for a chip play
    which chip it plays and where. The words are texts, rendered in the reader's language where shown."""

    text: str
    label: Text  # a short button label, e.g. "Kill a blue chip", "Green moves next", "Decline to rescue"
    colour: str | None = None  # a chip play: the chip's colour (its English name, as in action texts)
    pile: Text | None = None  # a chip play: where it goes, e.g. "New pile", "Pile 2 (3 chips, top red)"
    placed: Text | None = None  # a chip play as a menu option reads: "red on pile 2 (3 chips, top blue)"


@dataclass(frozen=True)
class SuckerView:
    """Everything anyone may know about a So Long Sucker position (the game hides nothing)."""

    players: int
    chips: int
    colours: tuple[str, ...]  # by seat
    piles: tuple[PileView, ...]
    seats: tuple[SeatView, ...]
    dead: tuple[tuple[str, int], ...]  # killed chips by colour (every colour listed)
    defeated: tuple[int, ...]  # seats in order of defeat
    to_decide: int | None  # the seat whose decision it is
    decision: str | None  # "play", "kill", "name" or "rescue"
    prompt: Text  # whose decision and what, in plain words
    choices: tuple[str, ...]  # the texts of the decision's legal actions (free actions not included)
    options: tuple[ChoiceView, ...]  # the same actions, in the same order, with the words their buttons show
    mover: int | None  # who holds the move (in the rescue phase: the stuck player)
    stuck: int | None  # in the rescue phase, the player waiting to be rescued
    declined: tuple[int, ...]  # in the rescue phase, who has declined so far
    capture: tuple[int, int] | None  # in the kill phase, (pile number, capturing seat)
    ply: int
    last: tuple[int, str] | None
    narration: Narration | None  # what the latest action did, read from the position before it
    recent: tuple[Narration, ...]  # what the latest actions did, oldest first (the last is `narration`)
    outcome: Outcome | None
    viewer: int | None  # the seat this view was built for (None for spectators)
    viewer_actions: tuple[str, ...]  # everything the viewer may do now, free actions included

    @property
    def last_said(self) -> str | None:
        """The latest action in English words, players called by their colours, e.g. "red plays a blue chip on
        pile 2" (for logs and tests; what people read is `words(narration, ...)`, rendered in their language)."""
        return None if self.narration is None else str(words(self.narration, colour_name))


def build_view(state: SuckerPosition, viewer: int | None) -> SuckerView:
    """The view of `state` for `viewer` (a seat) or for spectators (None)."""
    n = state.players
    current = state.current_player()
    owner = state.capture_owner()
    kind = state.decision_kind()
    decisions = state.decision_actions(current) if current is not None else ()
    return SuckerView(
        players=n,
        chips=state.chips,
        colours=state.colours,
        piles=tuple(
            PileView(i + 1, tuple(ChipView(COLOURS[c.colour], COLOURS[c.by]) for c in pile))
            for i, pile in enumerate(state.piles)
        ),
        seats=tuple(_seat_view(state, seat) for seat in range(n)),
        dead=tuple((COLOURS[c], state.dead[c]) for c in range(n)),
        defeated=state.defeated,
        to_decide=current,
        decision=kind.value if kind is not None else None,
        prompt=state.waiting_for(),
        choices=tuple(a.text() for a in decisions),
        options=tuple(_choice(state, action, current) for action in decisions) if current is not None else (),
        mover=None if state.result else state.mover,
        stuck=state.stuck(),
        declined=state.declined,
        capture=(state.pile + 1, owner) if owner is not None and state.pile is not None else None,
        ply=state.ply,
        last=state.last,
        narration=state.said,
        recent=state.recent,
        outcome=state.result,
        viewer=viewer,
        viewer_actions=tuple(a.text() for a in state.legal_actions(viewer)) if viewer is not None else (),
    )


def _seat_view(state: SuckerPosition, seat: int) -> SeatView:
    row = state.holdings[seat]
    order = [seat, *(c for c in range(state.players) if c != seat)]
    return SeatView(
        seat=seat,
        colour=COLOURS[seat],
        holdings=tuple((COLOURS[c], row[c]) for c in order if row[c]),
        own=row[seat],
        prisoners=sum(row) - row[seat],
        defeated=not state.is_live(seat),
        gifts_given=tuple((COLOURS[to], k) for to, k in enumerate(state.gifts[seat]) if k),
    )


def _choice(state: SuckerPosition, action: Action, seat: int) -> ChoiceView:
    if isinstance(action, Play):
        return ChoiceView(action.text(), action_label(state, action, seat), _colour(action.colour),
                          pile_label(state, action), placed_label(state, action))
    return ChoiceView(action.text(), action_label(state, action, seat))


def action_label(state: SuckerPosition, action: Action, seat: int) -> Text:
    """A short button label for a decision of `seat`, read from the action itself (never from its text form)."""
    if isinstance(action, Kill):
        return Text("Kill a {colour} chip", colour=chip_colour_object(action.colour))
    if isinstance(action, NameNext):
        if action.seat == seat:
            return Text("I move next")
        return Text("{colour} moves next", colour=Capitalised(colour_name(action.seat)))
    if isinstance(action, Give):
        return Text("Rescue with a {colour} chip", colour=chip_colour_object(action.colour))
    if isinstance(action, Decline):
        return Text("Decline to rescue")
    return words(narrate(state, action, seat), colour_name)


def pile_label(state: SuckerPosition, action: Play) -> Text:
    """Where a chip play goes, as its button says it."""
    if action.pile is None:
        return Text("New pile")
    pile = state.piles[action.pile]
    return Text("Pile {number} ({chips}, top {colour})", number=action.pile + 1,
                chips=Plural("{count} chip", "{count} chips", len(pile)), colour=chip_colour(pile[-1].colour))


def placed_label(state: SuckerPosition, action: Play) -> Text:
    """A chip play as its menu option reads: "red on pile 2 (3 chips, top blue)", "red on a new pile"."""
    colour = chip_colour(action.colour)
    if action.pile is None:
        return Text("{colour} on a new pile", colour=colour)
    pile = state.piles[action.pile]
    return Text("{colour} on pile {number} ({chips}, top {top})", colour=colour, number=action.pile + 1,
                chips=Plural("{count} chip", "{count} chips", len(pile)), top=chip_colour(pile[-1].colour))


def _colour(index: int) -> str:
    return COLOURS[index] if 0 <= index < len(COLOURS) else f"colour {index}"
