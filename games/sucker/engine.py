"""So Long Sucker: the state, its phases, and every rule of ../shared/rules/so-long-sucker.md.

A turn can take several decisions by different players, so the state carries a phase:

- PLAY: the mover plays a chip.
- KILL: after a capture, the owner of the capturing colour kills one chip of the pile (then takes the rest
  and moves).
- NAME: after a play without capture, the mover names the next player.
- RESCUE: the player holding the move has no chip; prisoner holders are asked one at a time, in seat order
  starting after the stuck player, to rescue (transfer them a chip) or decline. A transfer to the stuck
  player by anyone, asked or not, is a rescue. When nobody is left to ask, the stuck player is defeated.
- OVER: the game has ended.

Transfers and kills of prisoners are free actions: any player still in the game may take them at any time,
whoever's decision it is.

Decisions the rules page leaves open, taken here:
- The move's history is a chain of givers: whenever the move passes to another player (named, forced,
  or by a capture) that player is pushed on the chain; naming oneself or a capture that returns the move
  to the mover pushes nobody. After a defeat the move goes down the chain past every defeated player. If
  the chain runs out (the first player of the game is defeated) the move goes to the next seat still in
  the game after the defeated one.
- A mover who gives away or kills their last chips while holding the move is stuck, exactly as if they had
  been given the move with none.
- Nobody may transfer chips to a defeated player; defeated players hold nothing.
- Resigning (or timing out) defeats the player at once. Their holdings are killed (they leave the table
  with them). A decision of theirs is settled the way a defeat settles it: as mover, the move goes down the
  chain; as the capturing owner, the capture is by a defeated player's colour, so the pile is killed and
  the move goes back to the player who played the chip; as a rescuer, they are simply no longer asked.
- An agreed draw makes every player still in the game share first place.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Self

from games.base import (
    Action,
    EndReason,
    GameError,
    GameOverError,
    GameState,
    IllegalMoveError,
    NotYourTurnError,
    Outcome,
)
from games.sucker import narration, snapshot, views
from games.sucker.actions import COLOURS, Decline, Give, Kill, KillPrisoner, NameNext, Play, parse_action
from games.sucker.piles import Chip, Pile, captures, colour_counts, colours_in, forced_next, parse_initials
from games.sucker.position import Holdings
from games.sucker.rules import (
    DECISION_LIMIT,
    DEFAULT_CHIPS,
    MAX_CHIPS,
    MAX_PLAYERS,
    MIN_CHIPS,
    MIN_PLAYERS,
    Phase,
)
from games.sucker.texts import chip_colour, colour_name
from games.text import Plural, Text

RECENT = 16  # narrations of the latest actions a state keeps


@dataclass(frozen=True)
class SuckerState(GameState[views.SuckerView, views.SuckerView]):
    """One position of So Long Sucker. Seat i owns colour i (COLOURS[i])."""

    kind = "sucker"
    FORMAT_VERSION = 2  # 2: the turn counter
    MIN_PLAYERS = MIN_PLAYERS
    MAX_PLAYERS = MAX_PLAYERS

    players: int
    chips: int  # each player's starting chips
    holdings: Holdings
    piles: tuple[Pile, ...]
    dead: tuple[int, ...]  # killed chips by colour
    chain: tuple[int, ...]  # the chain of givers, oldest first; the last one holds the move
    gifts: Holdings  # gifts[a][b]: how many chips seat a has transferred to seat b (the bots' memory)
    phase: Phase = Phase.PLAY
    pile: int | None = None  # KILL: the captured pile; NAME: the pile just played on
    declined: tuple[int, ...] = ()  # RESCUE: the holders who declined, in the order asked
    defeated: tuple[int, ...] = ()  # in order of defeat
    ply: int = 0
    played: int = 0  # moves of play: `ply` without the resignations, timeouts and agreed draws
    # Decisions so far, and anything else that changed whose decision it is; free transfers and kills that
    # leave the decision as it was do not count. A decision drawn at one turn is still valid at that turn.
    turn: int = 0
    # Decisions taken (plays, moves named, kills from a capture, rescues given or declined), and the number at which
    # the game ends: None only in games stored before there was a limit (they replay as they were played, and the
    # service ends them once past DECISION_LIMIT: `past_limit`).
    decisions: int = 0
    decision_limit: int | None = DECISION_LIMIT
    last: tuple[int, str] | None = None  # (seat, text) of the latest action
    # What the latest action did, read from the position it was taken in (afterwards a captured pile is gone and a
    # rescued player no longer stuck); None at the start and after an agreed draw.
    said: narration.Narration | None = None
    # The narrations of the latest actions, oldest first (at most RECENT): a run of computer decisions is shown step
    # by step, not only its last step (a defeat in the middle of it must not go unseen).
    recent: tuple[narration.Narration, ...] = ()
    result: Outcome | None = None

    # ----- creation -------------------------------------------------------------------------------------
    @classmethod
    def new(cls, players: int, options: Mapping[str, Any], rng: random.Random) -> Self:
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise GameError(Text("So Long Sucker needs {low} to {high} players, not {count}.", low=MIN_PLAYERS,
                                 high=MAX_PLAYERS, count=players))
        try:
            chips = int(options.get("chips", DEFAULT_CHIPS))
            first = options.get("first")
            first_seat = rng.randrange(players) if first is None else int(first)
        except (TypeError, ValueError):
            raise GameError(Text("The number of chips and the first seat must be whole numbers.")) from None
        if not MIN_CHIPS <= chips <= MAX_CHIPS:
            raise GameError(Text("Each player starts with {low} to {high} chips, not {count}.", low=MIN_CHIPS,
                                 high=MAX_CHIPS, count=chips))
        if not 0 <= first_seat < players:
            raise GameError(Text("There is no seat {seat} to move first (seats are 0 to {last}).", seat=first_seat,
                                 last=players - 1))
        return cls.start(players, chips, first_seat)

    @classmethod
    def start(cls, players: int, chips: int, first: int) -> Self:
        """The opening position: everyone holds their own chips, `first` is to play."""
        holdings = tuple(tuple(chips if c == s else 0 for c in range(players)) for s in range(players))
        zeros = tuple(tuple(0 for _ in range(players)) for _ in range(players))
        return cls(players=players, chips=chips, holdings=holdings, piles=(), dead=(0,) * players,
                   chain=(first,), gifts=zeros)

    @classmethod
    def from_table(
        cls,
        players: int = 4,
        chips: int = 7,
        *,
        holdings: Sequence[str] = (),
        piles: Sequence[str | Pile] = (),
        chain: Sequence[int] = (0,),
        defeated: Sequence[int] = (),
    ) -> Self:
        """A position written the way the table looks, for tests and puzzles.

        Holdings are by seat and piles bottom -> top, written with colour initials ("RRB", "RBGY"); a pile
        written so has each chip played by its colour's owner (pass a tuple of Chips to say otherwise).
        Seats without holdings hold nothing; every chip not shown is dead. `chain` is the chain of givers
        ending with the player holding the move. What follows by the rules (a stuck mover) is carried out.
        """
        rows = [[0] * players for _ in range(players)]
        for seat, text in enumerate(holdings):
            for colour in parse_initials(text, players):
                rows[seat][colour] += 1
        table = tuple(p if not isinstance(p, str) else tuple(Chip(c, c) for c in parse_initials(p, players))
                      for p in piles)
        zeros = tuple(tuple(0 for _ in range(players)) for _ in range(players))
        state = cls(players=players, chips=chips, holdings=tuple(tuple(r) for r in rows), piles=table,
                    dead=(0,) * players, chain=tuple(chain), gifts=zeros, defeated=tuple(defeated))
        dead = tuple(chips - total for total in state.chip_totals())
        if any(d < 0 for d in dead):
            raise GameError(Text("More than {count} chips of a colour are on the table.", count=chips))
        state = replace(state, dead=dead)._settle(EndReason.LAST_SURVIVOR)
        snapshot.check(state)
        return state

    # ----- queries ----------------------------------------------------------------------------------------
    @property
    def num_players(self) -> int:
        return self.players

    @property
    def colours(self) -> tuple[str, ...]:
        """The colour names of the seats, by seat."""
        return COLOURS[: self.players]

    @property
    def mover(self) -> int:
        """The player holding the move (playing, naming, or stuck waiting for a rescue)."""
        return self.chain[-1]

    def is_live(self, seat: int) -> bool:
        return seat not in self.defeated

    def live_seats(self) -> tuple[int, ...]:
        return tuple(s for s in range(self.players) if s not in self.defeated)

    def held(self, seat: int) -> int:
        """How many chips `seat` holds, of any colour."""
        return sum(self.holdings[seat])

    def prisoners(self, seat: int) -> dict[int, int]:
        """The chips `seat` holds of other players' colours, by colour (only nonzero counts)."""
        return {c: n for c, n in enumerate(self.holdings[seat]) if n and c != seat}

    def chip_totals(self) -> tuple[int, ...]:
        """Chips of each colour in hands, in piles and dead: always `chips` each, since none is ever made."""
        totals = [self.dead[c] + sum(h[c] for h in self.holdings) for c in range(self.players)]
        for pile in self.piles:
            for chip in pile:
                totals[chip.colour] += 1
        return tuple(totals)

    def capture_owner(self) -> int | None:
        """In the KILL phase, the seat whose colour captured the pile."""
        if self.phase is not Phase.KILL or self.pile is None:
            return None
        return self.piles[self.pile][-1].colour

    def stuck(self) -> int | None:
        """In the RESCUE phase, the player who holds the move without a chip."""
        return self.mover if self.phase is Phase.RESCUE else None

    def rescuer(self) -> int | None:
        """In the RESCUE phase, the holder of prisoners asked now: the first in seat order after the stuck
        player who has not declined."""
        if self.phase is not Phase.RESCUE:
            return None
        stuck = self.mover
        for step in range(1, self.players):
            seat = (stuck + step) % self.players
            if self.is_live(seat) and seat not in self.declined and self.prisoners(seat):
                return seat
        return None

    def name_candidates(self) -> tuple[int, ...]:
        """In the NAME phase, the seats the mover may name: still in, colour not in the pile played on."""
        if self.phase is not Phase.NAME or self.pile is None:
            return ()
        in_pile = colours_in(self.piles[self.pile])
        return tuple(s for s in self.live_seats() if s not in in_pile)

    def current_player(self) -> int | None:
        if self.phase is Phase.OVER:
            return None
        if self.phase is Phase.KILL:
            return self.capture_owner()
        if self.phase is Phase.RESCUE:
            return self.rescuer()
        return self.mover

    def outcome(self) -> Outcome | None:
        return self.result

    # ----- legal actions ----------------------------------------------------------------------------------
    def legal_actions(self, player: int) -> Sequence[Action]:
        """The decision actions of `player` if it is their decision, then their free actions."""
        decisions = self.decision_actions(player)
        free = [a for a in self.free_actions(player) if a not in decisions]
        return (*decisions, *free)

    def decision_actions(self, player: int) -> tuple[Action, ...]:
        """What `player` may do to make the decision the game waits for (empty if it is not theirs)."""
        if player != self.current_player():
            return ()
        if self.phase is Phase.PLAY:
            spots: list[int | None] = [*range(len(self.piles)), None]
            return tuple(Play(c, spot) for c, n in enumerate(self.holdings[player]) if n for spot in spots)
        if self.phase is Phase.KILL:
            assert self.pile is not None
            return tuple(Kill(c) for c in sorted(colours_in(self.piles[self.pile])))
        if self.phase is Phase.NAME:
            return tuple(NameNext(s) for s in self.name_candidates())
        stuck = self.mover
        return (*(Give(c, stuck) for c in sorted(self.prisoners(player))), Decline())

    def free_actions(self, player: int) -> tuple[Action, ...]:
        """Transfers of one prisoner to each other player still in, then kills of one prisoner."""
        if self.phase is Phase.OVER or not self.is_live(player):
            return ()
        mine = sorted(self.prisoners(player))
        others = [s for s in self.live_seats() if s != player]
        gives = [Give(c, to) for c in mine for to in others]
        return (*gives, *(KillPrisoner(c) for c in mine))

    def decision_kind(self) -> Phase | None:
        """The kind of decision awaited (None when the game is over)."""
        return None if self.phase is Phase.OVER else self.phase

    def parse_action(self, text: str) -> Action:
        return parse_action(text, self.players)

    # ----- applying actions -------------------------------------------------------------------------------
    def apply(self, player: int, action: Action) -> Self:
        if self.result is not None:
            raise GameOverError(Text("The game is over."))
        self._check_seat(player)
        if not self.is_live(player):
            raise IllegalMoveError(Text("{who} is out of the game.", who=self._name(player)))
        decided = not isinstance(action, Give | KillPrisoner)
        # A gift to the player stuck without chips is a rescue: a decision, whoever gives it.
        counted = decided or (isinstance(action, Give) and self.phase is Phase.RESCUE and action.to == self.mover)
        if isinstance(action, Give):
            state = self._give(player, action)
        elif isinstance(action, KillPrisoner):
            state = self._kill_prisoner(player, action)
        else:
            state = self._decide(player, action)
        said = narration.narrate(self, action, player)
        state = replace(state, ply=self.ply + 1, played=self.played + 1, last=(player, action.text()))
        state = state._settle(EndReason.LAST_SURVIVOR)
        state = state._told(narration.with_defeats(said, self, state))
        if decided or state._decision_key() != self._decision_key():
            state = replace(state, turn=self.turn + 1)
        if counted:
            state = replace(state, decisions=self.decisions + 1)
            if state.result is None and self.decision_limit is not None and state.decisions >= self.decision_limit:
                state = state.stop(EndReason.MOVE_LIMIT)
        return state

    def seats_in(self) -> tuple[int, ...]:
        return () if self.result is not None else self.live_seats()

    def past_limit(self) -> EndReason | None:
        limit = self.decision_limit or DECISION_LIMIT
        return EndReason.MOVE_LIMIT if self.result is None and self.decisions >= limit else None

    def stop(self, reason: EndReason) -> Self:
        """The game ends here: the players still in share the best remaining place, the defeated keep theirs."""
        if self.result is not None:
            raise GameOverError(Text("The game is over."))
        return replace(self, phase=Phase.OVER, pile=None, declined=(), result=self._ranked(reason))

    def _decision_key(self) -> tuple[Phase, int | None, int]:
        return self.phase, self.current_player(), len(self.declined)

    def moves_of_play(self) -> int:
        return self.played

    def turn_token(self) -> int:
        return self.turn

    def timeout_action(self, player: int) -> Action | None:
        """A prisoner holder who lets the time run out while asked to rescue simply declines."""
        if self.phase is Phase.RESCUE and player == self.current_player():
            return Decline()
        return None

    def _decide(self, player: int, action: Action) -> Self:
        current = self.current_player()
        if player != current:
            raise NotYourTurnError(Text("It is not your decision: {waiting}.", waiting=self.waiting_for()))
        if isinstance(action, Play) and self.phase is Phase.PLAY:
            return self._play(player, action)
        if isinstance(action, Kill) and self.phase is Phase.KILL:
            return self._kill_from_capture(action)
        if isinstance(action, NameNext) and self.phase is Phase.NAME:
            return self._name_next(action)
        if isinstance(action, Decline) and self.phase is Phase.RESCUE:
            return replace(self, declined=(*self.declined, player))
        raise IllegalMoveError(Text("That is not the decision now: {waiting}.", waiting=self.waiting_for()))

    def _play(self, player: int, action: Play) -> Self:
        colour = action.colour
        if not 0 <= colour < self.players or self.holdings[player][colour] == 0:
            raise IllegalMoveError(Text("You hold no {colour} chip.", colour=self._name(colour)))
        chip = Chip(colour, player)
        piles = list(self.piles)
        if action.pile is None:
            piles.append((chip,))
            index = len(piles) - 1
        elif 0 <= action.pile < len(piles):
            index = action.pile
            piles[index] = (*piles[index], chip)
        else:
            raise IllegalMoveError(Text("There is no pile {pile}; there are {count}.", pile=action.pile + 1,
                                        count=len(piles)))
        state = replace(self, holdings=_add(self.holdings, player, colour, -1), piles=tuple(piles), pile=index)
        if captures(piles[index]):
            if state.is_live(colour):
                return replace(state, phase=Phase.KILL)
            # Captured by a defeated player's colour: the whole pile dies and the move rebounds to the mover.
            return replace(state._remove_pile(index, kill_all=True), phase=Phase.PLAY, pile=None)
        return replace(state, phase=Phase.NAME)  # _settle applies the forced rule when nobody may be named

    def _kill_from_capture(self, action: Kill) -> Self:
        assert self.pile is not None
        pile = self.piles[self.pile]
        if action.colour not in colours_in(pile):
            raise IllegalMoveError(Text("There is no {colour} chip in the captured pile.",
                                        colour=self._name(action.colour)))
        owner = pile[-1].colour
        counts = colour_counts(pile, self.players)
        counts[action.colour] -= 1
        holdings = self.holdings
        for colour, n in enumerate(counts):
            holdings = _add(holdings, owner, colour, n)
        dead = _bump(self.dead, action.colour, 1)
        state = replace(self, holdings=holdings, dead=dead)._remove_pile(self.pile, kill_all=False)
        return state._pass_move(owner)

    def _name_next(self, action: NameNext) -> Self:
        seat = action.seat
        if seat not in self.name_candidates():
            if not 0 <= seat < self.players or not self.is_live(seat):
                raise IllegalMoveError(Text("{who} is out of the game and cannot be named.", who=self._name(seat)))
            raise IllegalMoveError(Text("You cannot name {who}: {colour} is in the pile you played on.",
                                        who=self._name(seat), colour=chip_colour(seat)))
        return self._pass_move(seat)

    def _give(self, player: int, action: Give) -> Self:
        colour, to, count = action.colour, action.to, action.count
        self._check_prisoner_use(player, colour, count, giving=True)
        if not 0 <= to < self.players or to == player:
            raise IllegalMoveError(Text("Give prisoners to another player."))
        if not self.is_live(to):
            raise IllegalMoveError(Text("{who} is out of the game and cannot receive chips.", who=self._name(to)))
        holdings = _add(_add(self.holdings, player, colour, -count), to, colour, count)
        return replace(self, holdings=holdings, gifts=_add(self.gifts, player, to, count))

    def _kill_prisoner(self, player: int, action: KillPrisoner) -> Self:
        self._check_prisoner_use(player, action.colour, action.count, giving=False)
        holdings = _add(self.holdings, player, action.colour, -action.count)
        return replace(self, holdings=holdings, dead=_bump(self.dead, action.colour, action.count))

    def _check_prisoner_use(self, player: int, colour: int, count: int, *, giving: bool) -> None:
        if colour == player:
            if giving:
                raise IllegalMoveError(Text("Nobody may give away chips of their own colour."))
            raise IllegalMoveError(Text("Nobody may kill chips of their own colour."))
        if count < 1:
            raise IllegalMoveError(Text("The count must be at least 1."))
        held = self.holdings[player][colour] if 0 <= colour < self.players else 0
        if held < count:
            raise IllegalMoveError(Plural("You hold {count} {colour} prisoner, not {wanted}.",
                                          "You hold {count} {colour} prisoners, not {wanted}.", held,
                                          colour=self._name(colour), wanted=count))

    # ----- passing the move -------------------------------------------------------------------------------
    def _pass_move(self, seat: int) -> Self:
        """Give the move to `seat`; it joins the chain of givers unless the mover keeps the move."""
        chain = self.chain if seat == self.mover else (*self.chain, seat)
        return replace(self, chain=chain, phase=Phase.PLAY, pile=None, declined=())

    def _return_move(self) -> Self:
        """After a defeat, the move goes back down the chain of givers, past every defeated player."""
        chain = list(self.chain)
        origin = chain[-1]
        while chain and not self.is_live(chain[-1]):
            chain.pop()
        if not chain:
            chain = [next(s for s in ((origin + i) % self.players for i in range(1, self.players)) if self.is_live(s))]
        return replace(self, chain=tuple(chain), phase=Phase.PLAY, pile=None, declined=())

    def _remove_pile(self, index: int, kill_all: bool) -> Self:
        dead = self.dead
        if kill_all:
            counts = colour_counts(self.piles[index], self.players)
            dead = tuple(d + n for d, n in zip(dead, counts, strict=True))
        return replace(self, piles=self.piles[:index] + self.piles[index + 1:], dead=dead)

    def _settle(self, reason: EndReason) -> Self:
        """Carry out what follows by the rules alone: forced moves, stuck players, defeats, the end."""
        state = self
        while True:
            live = state.live_seats()
            if len(live) <= 1:
                return replace(state, phase=Phase.OVER, pile=None, declined=(), result=state._ranked(reason))
            if state.phase in (Phase.PLAY, Phase.NAME, Phase.RESCUE) and not state.is_live(state.mover):
                state = state._return_move()
            elif state.phase is Phase.NAME and not state.name_candidates():
                assert state.pile is not None
                state = state._pass_move(forced_next(state.piles[state.pile], live))
            elif state.phase is Phase.PLAY and state.held(state.mover) == 0:
                state = replace(state, phase=Phase.RESCUE, declined=())
            elif state.phase is Phase.RESCUE and state.held(state.mover) > 0:
                state = replace(state, phase=Phase.PLAY, declined=())
            elif state.phase is Phase.RESCUE and state.rescuer() is None:
                state = replace(state, defeated=(*state.defeated, state.mover))
            else:
                return state

    def _ranked(self, reason: EndReason) -> Outcome:
        return Outcome.by_elimination(self.players, self.defeated, reason)

    # ----- resignation and draws --------------------------------------------------------------------------
    def resign(self, player: int, reason: EndReason = EndReason.RESIGN) -> Self:
        if self.result is not None:
            raise GameOverError(Text("The game is over."))
        self._check_seat(player)
        if not self.is_live(player):
            raise IllegalMoveError(Text("{who} is already out of the game.", who=self._name(player)))
        dead = tuple(d + n for d, n in zip(self.dead, self.holdings[player], strict=True))
        holdings = tuple(tuple(0 for _ in h) if s == player else h for s, h in enumerate(self.holdings))
        state = replace(self, holdings=holdings, dead=dead, defeated=(*self.defeated, player))
        if self.phase is Phase.KILL and self.capture_owner() == player and self.pile is not None:
            # The capturing colour now belongs to a defeated player: the pile dies, the move rebounds.
            state = replace(state._remove_pile(self.pile, kill_all=True), phase=Phase.PLAY, pile=None)
        said = narration.narrate_resignation(self, player, reason)
        state = replace(state, ply=self.ply + 1, turn=self.turn + 1, last=(player, reason))._settle(reason)
        return state._told(narration.with_defeats(said, self, state))

    def _told(self, said: narration.Narration) -> Self:
        """This state with `said` as its latest action's narration, kept among the recent ones."""
        return replace(self, said=said, recent=(*self.recent, said)[-RECENT:])

    def agree_draw(self) -> Self:
        if self.result is not None:
            raise GameOverError(Text("The game is over."))
        return replace(self, phase=Phase.OVER, pile=None, declined=(), ply=self.ply + 1, turn=self.turn + 1, last=None,
                       said=None, result=self._ranked(EndReason.DRAW_AGREED))

    # ----- words ------------------------------------------------------------------------------------------
    def waiting_for(self) -> Text:
        """Whose decision it is and what it is, in plain words (players called by their colours)."""
        seat = self.current_player()
        if seat is None:
            return Text("the game is over")
        who = self._name(seat)
        if self.phase is Phase.PLAY:
            return Text("{who} must play a chip", who=who)
        if self.phase is Phase.KILL:
            return Text("{who} must kill a chip of the captured pile {pile}", who=who, pile=(self.pile or 0) + 1)
        if self.phase is Phase.NAME:
            return Text("{who} must name the next player", who=who)
        return Text("{who} must decide whether to rescue {stuck}", who=who, stuck=self._name(self.mover))

    def describe(self, action: Action, player: int | None = None) -> str:
        """Plain English words for `action` taken by `player` (by default whoever decides now) in this position,
        for logs and tests (the table is told `narration.words`, in each reader's language)."""
        actor = self.current_player() if player is None else player
        said = narration.words(narration.narrate(self, action, -1 if actor is None else actor), narration.colour_name)
        return str(said)

    def _name(self, seat: int) -> Text | str:
        return colour_name(seat) if 0 <= seat < self.players else Text("seat {number}", number=seat)

    def _check_seat(self, player: int) -> None:
        if not 0 <= player < self.players:
            raise IllegalMoveError(Text("There is no seat {number} in this game.", number=player))

    # ----- views ------------------------------------------------------------------------------------------
    def public_view(self) -> views.SuckerView:
        return views.build_view(self, None)

    def view_for(self, player: int) -> views.SuckerView:
        return views.build_view(self, player)  # nothing is hidden in So Long Sucker

    # ----- serialisation ----------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return snapshot.to_dict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        state = cls(**snapshot.fields_from_dict(data, cls.FORMAT_VERSION))
        snapshot.check(state)
        return state


def _add(table: Holdings, row: int, column: int, amount: int) -> Holdings:
    """`table` with `amount` added at [row][column]."""
    return tuple(_bump(r, column, amount) if i == row else r for i, r in enumerate(table))


def _bump(values: tuple[int, ...], index: int, amount: int) -> tuple[int, ...]:
    return tuple(v + amount if i == index else v for i, v in enumerate(values))
