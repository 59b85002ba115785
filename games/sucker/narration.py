"""The latest action at the table, as data: who did what to whom, read from the position before it.

A capture, a rescue or whom a declined rescue concerned can only be read before the action (afterwards the
captured pile is gone and the rescued player no longer stuck), so the engine keeps a `Narration` with each
action. It names players by seat and chips by colour; whoever shows it decides how a seat is called (the
engine's own words use colours, the Discord layer names people), and `words` puts either into one sentence: a
`Text`, rendered in the reader's language where it is shown.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, Protocol

from games.base import Action, EndReason, InvalidStateError
from games.sucker import texts
from games.sucker.actions import COLOURS, Decline, Give, Kill, KillPrisoner, NameNext, Play, parse_action
from games.sucker.piles import Chip, Pile, captures, colours_in, forced_next
from games.sucker.texts import chip_colour_object
from games.text import Plural, Text


class NarratedPosition(Protocol):
    """What narrating an action reads of the position it is taken in: an `engine.SuckerState`, declared here rather
    than imported because the engine imports this module to narrate its actions."""

    @property
    def piles(self) -> tuple[Pile, ...]: ...
    @property
    def pile(self) -> int | None: ...
    @property
    def defeated(self) -> tuple[int, ...]: ...
    def is_live(self, seat: int) -> bool: ...
    def live_seats(self) -> tuple[int, ...]: ...
    def held(self, seat: int) -> int: ...
    def capture_owner(self) -> int | None: ...
    def stuck(self) -> int | None: ...


class Deed(StrEnum):
    """What the actor did."""

    NEW_PILE = "new-pile"  # played a chip as a new pile
    PLAY = "play"  # played a chip on a pile (maybe capturing it)
    KILL = "kill"  # after a capture, killed a chip of the pile and took the rest
    NAME = "name"  # named who moves next
    RESCUE = "rescue"  # gave a chip to the player stuck without chips
    DECLINE = "decline"  # declined to rescue the stuck player
    GIVE = "give"  # transferred prisoners to another player
    KILL_PRISONER = "kill-prisoner"  # killed prisoners they held
    RESIGN = "resign"  # gave up: out of the game, their chips with them
    TIMEOUT = "timeout"  # ran out of time: out of the game, their chips with them


@dataclass(frozen=True)
class Narration:
    """One action as the table saw it. Seats are numbers (seat i owns colour i), chips are colour names."""

    actor: int
    deed: Deed
    colour: str | None = None  # the chip played, killed or given
    count: int | None = 1  # how many chips given or killed; for a resignation, the chips they held (None: unknown)
    target: int | None = None  # who was given chips, named, or not rescued (None: not known)
    pile: int | None = None  # the pile played on or killed from, numbered from 1 as it was then (None: not known)
    captor: int | None = None  # a play that captured the pile: the seat whose colour captures it
    pile_killed: bool = False  # the whole pile died: captured by a defeated player's colour, or its captor resigned
    forced: int | None = None  # a play after which nobody could be named: who is forced to move next
    defeated: tuple[int, ...] = ()  # who this action left defeated (besides a player resigning or timing out)


def narrate(state: NarratedPosition, action: Action, actor: int) -> Narration:
    """What `action` by `actor` does, read from `state`, the position it is taken in."""
    if isinstance(action, Play):
        return _play(state, action, actor)
    if isinstance(action, Kill):
        pile = None if state.pile is None else state.pile + 1
        return Narration(actor, Deed.KILL, _colour(action.colour), pile=pile)
    if isinstance(action, NameNext):
        return Narration(actor, Deed.NAME, target=action.seat)
    if isinstance(action, Decline):
        return Narration(actor, Deed.DECLINE, target=state.stuck())
    if isinstance(action, Give):
        deed = Deed.RESCUE if action.to == state.stuck() else Deed.GIVE
        return Narration(actor, deed, _colour(action.colour), action.count, action.to)
    if isinstance(action, KillPrisoner):
        return Narration(actor, Deed.KILL_PRISONER, _colour(action.colour), action.count)
    raise TypeError(f"not a So Long Sucker action: {action!r}")


def _play(state: NarratedPosition, action: Play, actor: int) -> Narration:
    colour = _colour(action.colour)
    if action.pile is None or not 0 <= action.pile < len(state.piles):
        return Narration(actor, Deed.NEW_PILE, colour, pile=len(state.piles) + 1)
    pile = (*state.piles[action.pile], Chip(action.colour, actor))
    number = action.pile + 1
    if captures(pile):
        if state.is_live(action.colour):
            return Narration(actor, Deed.PLAY, colour, pile=number, captor=action.colour)
        return Narration(actor, Deed.PLAY, colour, pile=number, pile_killed=True)
    live = state.live_seats()
    in_pile = colours_in(pile)
    forced = forced_next(pile, live) if all(seat in in_pile for seat in live) else None
    return Narration(actor, Deed.PLAY, colour, pile=number, forced=forced)


def narrate_resignation(state: NarratedPosition, actor: int, reason: EndReason) -> Narration:
    """`actor` leaves the game in `state` (resigning or out of time), with the chips they hold."""
    deed = Deed.TIMEOUT if reason is EndReason.TIMEOUT else Deed.RESIGN
    captured = state.pile + 1 if state.pile is not None and state.capture_owner() == actor else None
    return Narration(actor, deed, count=state.held(actor), pile=captured, pile_killed=captured is not None)


def with_defeats(narration: Narration, before: NarratedPosition, after: NarratedPosition) -> Narration:
    """`narration` with the players its action defeated (the actor's own resignation is said by its deed)."""
    left = narration.deed in (Deed.RESIGN, Deed.TIMEOUT)
    new = tuple(s for s in after.defeated if s not in before.defeated and not (left and s == narration.actor))
    return replace(narration, defeated=new) if new else narration


def recorded(actor: int, text: str, players: int) -> Narration | None:
    """What a logged action text alone tells, for snapshots written before narrations were kept: nothing that
    depended on the position (a capture, a rescue, whom a decline concerned) is claimed."""
    if text in (EndReason.RESIGN, EndReason.TIMEOUT):
        return Narration(actor, Deed(text), count=None)
    try:
        action = parse_action(text, players)
    except ValueError:
        return None
    if isinstance(action, Play):
        if action.pile is None:
            return Narration(actor, Deed.NEW_PILE, _colour(action.colour))
        return Narration(actor, Deed.PLAY, _colour(action.colour), pile=action.pile + 1)
    if isinstance(action, Kill):
        return Narration(actor, Deed.KILL, _colour(action.colour))
    if isinstance(action, Decline):
        return Narration(actor, Deed.DECLINE)
    if isinstance(action, NameNext):
        return Narration(actor, Deed.NAME, target=action.seat)
    if isinstance(action, Give):
        return Narration(actor, Deed.GIVE, _colour(action.colour), action.count, action.to)
    if isinstance(action, KillPrisoner):
        return Narration(actor, Deed.KILL_PRISONER, _colour(action.colour), action.count)
    return None


# ----- words --------------------------------------------------------------------------------------------------
Name = Callable[[int], Text | str]  # how a seat is called: a colour, or a person with their colour


def words(said: Narration, name: Name) -> Text:
    """`said` as one sentence, each seat called by `name` (a colour, or a person with their colour)."""
    sentence = _sentence(said, name)
    if not said.defeated:
        return sentence
    out = _in_turn([name(s) for s in said.defeated])
    return Plural("{sentence}; {out} is defeated", "{sentence}; {out} are defeated", len(said.defeated),
                  sentence=sentence, out=out)


def _in_turn(names: list[Text | str]) -> Text | str:
    """"a, then b, then c": players defeated by one decision, in the order they fell (which sets their places)."""
    said = names[0]
    for name in names[1:]:
        said = Text("{first}, then {second}", first=said, second=name)
    return said


def _sentence(said: Narration, name: Name) -> Text:
    who, deed, colour = name(said.actor), said.deed, said.colour
    chip = chip_colour_object(colour) if colour is not None else ""
    if deed is Deed.NEW_PILE:
        return Text("{who} starts a new pile with a {colour} chip", who=who, colour=chip)
    if deed is Deed.PLAY:
        text = Text("{who} plays a {colour} chip on pile {pile}", who=who, colour=chip, pile=said.pile)
        if said.captor is not None:
            return Text("{play}: {captor} captures it", play=text, captor=name(said.captor))
        if said.pile_killed:
            # The colour here is the player whose colour it is, out of the game.
            return Text("{play}: {owner} is out of the game, so the whole pile is killed", play=text,
                        owner=texts.colour_name(colour) if colour is not None else "")
        if said.forced is not None:
            return Text("{play}; every colour still in is in that pile, so {forced} must move next", play=text,
                        forced=name(said.forced))
        return text
    if deed is Deed.KILL:
        if said.pile is None:
            return Text("{who} kills a {colour} chip and takes the rest", who=who, colour=chip)
        return Text("{who} kills a {colour} chip from pile {pile} and takes the rest", who=who, colour=chip,
                    pile=said.pile)
    if deed is Deed.NAME:
        if said.target == said.actor:
            return Text("{who} chooses to move again", who=who)
        return Text("{who} names {target} to move next", who=who, target=name(_target(said)))
    if deed is Deed.RESCUE:
        return Text("{who} rescues {target} with {chips}", who=who, target=name(_target(said)),
                    chips=_chips(said))
    if deed is Deed.DECLINE:
        if said.target is None:
            return Text("{who} declines a rescue", who=who)
        return Text("{who} declines to rescue {target}", who=who, target=name(said.target))
    if deed is Deed.GIVE:
        return Text("{who} gives {chips} to {target}", who=who, chips=_chips(said), target=name(_target(said)))
    if deed is Deed.KILL_PRISONER:
        return Text("{who} kills {prisoners}", who=who, prisoners=_prisoners(said))
    return _leaving(said, who)


def _leaving(said: Narration, who: Text | str) -> Text:
    """A resignation or a timeout, with what left the game with the player."""
    if said.deed is Deed.RESIGN:
        text = Text("{who} resigns", who=who)
    else:
        text = Text("{who} runs out of time and is out", who=who)
    if said.count == 1:
        text = Text("{left}; the chip they held leaves the game", left=text)
    elif said.count:
        text = Plural("{left}; the {count} chip they held leaves the game",
                      "{left}; the {count} chips they held leave the game", said.count, left=text)
    if said.pile_killed and said.pile is not None:
        text = Text("{left}; pile {pile}, which their colour captured, is killed", left=text, pile=said.pile)
    return text


def _target(said: Narration) -> int:
    # Every narration of a transfer or a naming has a target: `narrate` sets one and `from_dict` requires it.
    assert said.target is not None, said
    return said.target


def _chips(said: Narration) -> Text:
    """The chips given: "a red chip", "2 red chips"."""
    count, colour = said.count or 1, said.colour or ""
    if count == 1:
        return Text("a {colour} chip", colour=chip_colour_object(colour))
    return Plural("{count} {colour} chip", "{count} {colour} chips", count, colour=texts.colour_name(colour))


def _prisoners(said: Narration) -> Text:
    """The prisoners killed: "a red prisoner", "2 red prisoners"."""
    count, colour = said.count or 1, said.colour or ""
    if count == 1:
        return Text("a {colour} prisoner", colour=chip_colour_object(colour))
    return Plural("{count} {colour} prisoner", "{count} {colour} prisoners", count, colour=texts.colour_name(colour))


def _colour(index: int) -> str:
    return COLOURS[index] if 0 <= index < len(COLOURS) else f"colour {index}"


def colour_name(seat: int) -> Text | str:
    """A seat called by its colour, as the engine's own words call it."""
    return texts.colour_name(seat) if seat >= 0 else Text("nobody")


# ----- snapshots ------------------------------------------------------------------------------------------------
def to_dict(said: Narration) -> dict[str, Any]:
    return {"actor": said.actor, "deed": said.deed.value, "colour": said.colour, "count": said.count,
            "target": said.target, "pile": said.pile, "captor": said.captor, "pile_killed": said.pile_killed,
            "forced": said.forced, "defeated": list(said.defeated)}


def from_dict(data: Mapping[str, Any], players: int) -> Narration:
    """A narration from a snapshot, every seat and colour checked to be in a game of `players`."""
    if not isinstance(data, Mapping):
        raise InvalidStateError("bad So Long Sucker state: the narration is not an object")
    colour = data.get("colour")
    if colour is not None and colour not in COLOURS[:players]:
        raise InvalidStateError(f"bad So Long Sucker state: no colour {colour!r} to narrate")
    count, pile = _optional(data.get("count")), _optional(data.get("pile"))
    if (count is not None and count < 0) or (pile is not None and pile < 1):
        raise InvalidStateError("bad So Long Sucker state: a narrated count or pile is out of range")
    said = Narration(
        actor=_seat(data["actor"], players),
        deed=Deed(data["deed"]),
        colour=None if colour is None else str(colour),
        count=count,
        target=_optional_seat(data.get("target"), players),
        pile=pile,
        captor=_optional_seat(data.get("captor"), players),
        pile_killed=bool(data.get("pile_killed", False)),
        forced=_optional_seat(data.get("forced"), players),
        defeated=tuple(_seat(s, players) for s in data.get("defeated", ())),
    )
    if (said.deed in _NEEDS_COLOUR and said.colour is None) or (said.deed in _NEEDS_TARGET and said.target is None) \
            or (said.deed is Deed.PLAY and said.pile is None):
        raise InvalidStateError(f"bad So Long Sucker state: the narration of a {said.deed} is incomplete")
    return said


_NEEDS_COLOUR = frozenset({Deed.NEW_PILE, Deed.PLAY, Deed.KILL, Deed.RESCUE, Deed.GIVE, Deed.KILL_PRISONER})
_NEEDS_TARGET = frozenset({Deed.NAME, Deed.RESCUE, Deed.GIVE})


def _optional(raw: Any) -> int | None:
    return None if raw is None else int(raw)


def _seat(raw: Any, players: int) -> int:
    seat = int(raw)
    if not 0 <= seat < players:
        raise InvalidStateError(f"bad So Long Sucker state: no seat {seat} to narrate")
    return seat


def _optional_seat(raw: Any, players: int) -> int | None:
    return None if raw is None else _seat(raw, players)
