"""Tournaments, a part of `GameService` (games.py): making one, entering and leaving it, and its rounds, which run
themselves: a round's games are created when it starts, each game's ending is recorded as its pairing's result (a
publisher listener, and `catch_up` at start-up for endings missed while the bot was down), and the round's last
ending creates the next round or finishes the tournament.

Exactly once, in any number of processes: every change of a tournament runs in one transaction that first locks the
tournament's row (storage/tournaments.py), and a round (its row, keyed by tournament and number, its pairings and
their games) is written in one transaction. So whichever process records the last game of a round creates the next
one, once, and a process that stops half-way through leaves nothing half-made.

A tournament with a start time starts by itself then (`start_due`, called by the timer loop, bot/service/timers.py),
as the organiser's Start does; with too few players it stays open, and that is said once (`StartMissed`).

A player who loses two games by absence (their turn timer ran out) is withdrawn: not paired from the next round on.
What the Discord part needs to announce comes back as plain records (`TournamentUpdate`'s events) and is told to
`listeners`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from bot.service.game_setup import GameSetup
from bot.service.model import (
    TOURNAMENT,
    TOURNAMENT_ROUND,
    UNRATED,
    Player,
    ServiceError,
    StaleStateError,
    decision_events,
    present,
)
from bot.service.publisher import Publisher
from bot.service.ratings import display_rating
from bot.service.results import Result
from bot.service.stored import Step, StoredGames
from bot.service.tasks import background
from bot.service.wakeup import TimerWakeup
from games.base import MOVE_LIMIT, TIMEOUT, EndReason
from games.registry import describe
from games.text import Text
from games.tournaments import is_over, knockout, next_round, total_rounds
from games.tournaments.model import Format, Settings
from games.tournaments.model import Result as Score
from games.tournaments.standings import Standing, standings
from storage import GameStore, GameTransaction
from storage.database import Database
from storage.ratings import GLOBAL, read_ratings
from storage.sql import Plan
from storage.tournaments import (
    EntrantRow,
    PairingRow,
    TournamentNotFoundError,
    TournamentRecord,
    add_entrant,
    add_pairings,
    add_round,
    create_tournament,
    due_round_deadlines,
    due_starts,
    end_round,
    latest_in_channel,
    load,
    load_tournament,
    next_round_deadline,
    next_start,
    remove_entrant,
    set_entrant,
    set_result,
    set_round_message,
    set_round_thread,
    tournament_of_game,
    tournaments_with_status,
    unposted_rounds,
    unrecorded_endings,
    update_tournament,
)

T = TypeVar("T")

log = logging.getLogger(__name__)

ABSENCES_TO_WITHDRAW = 2  # games lost by the turn timer after which a player is withdrawn
DEADLINE_RULES = ("draw", "loss")  # what a round's deadline makes of a game still being played (see `adjudicate`)
NEW_RATING = 1000.0  # the seed of a player without a rating of the game kind (what a newcomer's rating shows)


# ----- what the Discord part is told ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Pairing:
    """One pairing of a round: two players (`players[0]` moves first; one player: a bye) or a So Long Sucker table's
    seats (None: a computer seat), the game it made (None: a bye, or decided without a game) and its result."""

    position: int
    players: tuple[int | None, ...]
    table: bool
    game_id: int | None
    result: str | None = None
    places: tuple[int, ...] | None = None


@dataclass(frozen=True)
class RoundStarted:
    tournament_id: int
    number: int
    pairings: tuple[Pairing, ...]  # the round's new pairings (a knockout's replays: only those)
    replay: bool = False


@dataclass(frozen=True)
class RoundEnded:
    tournament_id: int
    number: int


@dataclass(frozen=True)
class TournamentFinished:
    tournament_id: int
    podium: tuple[Standing, ...]  # the standings' places 1 to 3 (shared places included)


@dataclass(frozen=True)
class PlayerWithdrawn:
    tournament_id: int
    player: int
    reason: str  # "left", "removed", "absent" (lost two games by their turn timer)
    from_round: int  # the first round they are not paired in


@dataclass(frozen=True)
class StartMissed:
    """Its start time came with fewer players than its minimum: it stays open for the organiser (told once)."""

    tournament_id: int
    players: int
    needed: int
    refusal: Text | None = None  # enough players, but round 1 could not be made (its games refused): why


TournamentEvent = RoundStarted | RoundEnded | TournamentFinished | PlayerWithdrawn | StartMissed


@dataclass(frozen=True)
class TournamentInfo:
    """A tournament's public facts: how it is played, who entered, its rounds' pairings and its standings."""

    id: int
    guild_id: int | None
    channel_id: int
    organiser_id: int
    kind: str
    options: dict[str, Any]
    settings: Settings
    status: str  # open, running, paused, finished, cancelled
    starts_at: float | None  # when it starts by itself (`start_due`), unless the organiser starts it earlier
    min_players: int
    max_players: int
    rated: bool
    turn_timeout: float | None
    minimum_finished: float | None  # the share of finished games a player needs to join (the Discord part checks)
    round_time: float | None  # how long a round may last (None: no deadline)
    deadline_rule: str  # what the deadline makes of an unfinished game: "draw", or "loss" for the player to move
    deadlines: tuple[float | None, ...]  # each round's deadline
    posted: tuple[int | None, ...]  # each round's pairings message (None: not posted yet; 0: posted, id not stored)
    threads: tuple[int | None, ...]  # each round's thread (the channel's id: none could be opened; None: none yet)
    players: tuple[int, ...]  # in join order
    withdrawn: tuple[int, ...]
    rounds: tuple[tuple[Pairing, ...], ...]
    total_rounds: int
    standings: tuple[Standing, ...]
    created_at: float
    start_missed: float | None = None  # when its start time came with too few players (it stays open)


@dataclass(frozen=True)
class TournamentUpdate:
    tournament: TournamentInfo
    events: tuple[TournamentEvent, ...] = ()
    games: tuple[Result[Any, Any], ...] = field(default=())  # the games this change created, as each audience sees


TournamentListener = Callable[[TournamentUpdate], Coroutine[Any, Any, None]]


def pairings_of(rows: Sequence[PairingRow]) -> tuple[Pairing, ...]:
    return tuple(Pairing(p.position, p.seats if p.seats is not None else
                         (p.first_id,) if p.second_id is None else (p.first_id, p.second_id),
                         p.is_table, p.game_id, p.result, p.places) for p in rows)


def info_of(record: TournamentRecord) -> TournamentInfo:
    tournament = record.tournament()
    return TournamentInfo(
        id=record.id, guild_id=record.guild_id, channel_id=record.channel_id, organiser_id=record.organiser_id,
        kind=record.kind, options=dict(record.options), settings=record.settings, status=record.status,
        starts_at=record.starts_at, min_players=record.min_players, max_players=record.max_players,
        rated=record.rated, turn_timeout=record.turn_timeout, minimum_finished=record.minimum_finished,
        round_time=record.round_time, deadline_rule=record.deadline_rule,
        deadlines=tuple(r.deadline for r in record.rounds),
        posted=tuple(r.message_id for r in record.rounds), threads=tuple(r.thread_id for r in record.rounds),
        players=tuple(e.user_id for e in record.entrants),
        withdrawn=tuple(e.user_id for e in record.entrants if e.left_round is not None),
        rounds=tuple(pairings_of(r.pairings) for r in record.rounds),
        total_rounds=total_rounds(tournament) if record.entrants else 0,
        standings=tuple(standings(tournament)),
        created_at=record.created_at,
        start_missed=record.start_missed,
    )


class Tournaments:
    """The tournament use-cases; `GameService.tournaments`."""

    def __init__(self, db: Database, store: GameStore, games: StoredGames, setup: GameSetup, publisher: Publisher,
                 clock: Callable[[], float], timers_changed: TimerWakeup) -> None:
        self._db = db
        self._store = store
        self._games = games
        self._setup = setup
        self._publisher = publisher
        self._clock = clock
        self._timers_changed = timers_changed
        self.listeners: list[TournamentListener] = []  # told of every change with events, once it is committed
        self._telling: set[asyncio.Task[None]] = set()
        publisher.listeners.append(self._on_game_change)

    # ----- making and entering --------------------------------------------------------------------------------
    async def create(
        self, kind: str, settings: Settings, *, guild_id: int | None, channel_id: int, organiser_id: int,
        options: dict[str, Any] | None = None, starts_at: float | None = None, min_players: int = 2,
        max_players: int = 64, rated: bool = True, turn_timeout: float | None = None,
        minimum_finished: float | None = None, round_time: float | None = None, deadline_rule: str = "draw",
    ) -> TournamentUpdate:
        """A new tournament, open for entries. `minimum_finished` (0 to 1) is stored for the Discord part, which
        refuses a join below that share of finished games (the finishing record's check). With `round_time`, each
        round has a deadline that long after it starts, when its unfinished games are stopped by `deadline_rule`:
        "draw" (those still in share the place) or "loss" (the player to move loses; `adjudicate`)."""
        if deadline_rule not in DEADLINE_RULES:
            raise ValueError(f"no deadline rule {deadline_rule!r}")
        if round_time is not None and round_time <= 0:
            raise ServiceError(Text("The time per round must be positive."))
        description = describe(kind)
        tables = settings.format is Format.TABLES
        if tables != (description.min_players > 2):
            raise ServiceError(Text("This format does not fit {game}: choose tables for a game of more than two "
                                    "players, another format for a two-player game.", game=description.title))
        least = 1 if tables and settings.fillers else 3 if tables else 2
        if not least <= min_players <= max_players:
            raise ServiceError(Text("A tournament takes at least {count} players, and its maximum cannot be below its "
                                    "minimum.", count=least))
        self._setup.new_state(kind, [Player(i) for i in range(1, description.min_players + 1)],
                              {**(options or {}), "first": 0})  # the rules and variants must make a game
        async with self._store.transaction() as tx:
            conn = await tx.writer(read_first=True)
            tournament_id = await conn.run(create_tournament(
                guild_id=guild_id, channel_id=channel_id, organiser_id=organiser_id, kind=kind, options=options or {},
                settings=settings, starts_at=starts_at, min_players=min_players, max_players=max_players,
                rated=rated, turn_timeout=turn_timeout, minimum_finished=minimum_finished, now=self._clock(),
                round_time=round_time, deadline_rule=deadline_rule))
            record = await load(conn, tournament_id)
        self._timers_changed.at(starts_at)  # the timer loop starts it then (`start_due`)
        return TournamentUpdate(info_of(record))

    async def view(self, tournament_id: int) -> TournamentInfo:
        """The tournament as stored now, with its standings."""
        try:
            return info_of(await self._query(load_tournament(self._db.dialect, tournament_id)))
        except TournamentNotFoundError:
            raise ServiceError(Text("There is no tournament #{number}.", number=tournament_id)) from None

    async def latest(self, channel_id: int) -> int:
        """The newest tournament of a channel (a command that names none means it)."""
        found = await self._query(latest_in_channel(channel_id))
        if found is None:
            raise ServiceError(Text("There is no tournament in this channel: name one with `tournament:`."))
        return found

    async def join(self, tournament_id: int, user_id: int) -> TournamentUpdate:
        """Enter `user_id`: while it is open, or a Swiss that is under way (they start with no points)."""
        async def change(tx: GameTransaction, record: TournamentRecord) -> list[Any]:
            late = record.status in ("running", "paused") and record.settings.format is Format.SWISS
            if record.status != "open" and not late:
                raise ServiceError(Text("This tournament takes no more entries."))
            if record.entrant(user_id) is not None:
                raise ServiceError(Text("You are already in this tournament; to leave it, use Leave."))
            if len(record.entrants) >= record.max_players:
                raise ServiceError(Text("This tournament is full ({count} players).", count=record.max_players))
            conn = await tx.writer()
            rows = await conn.run(read_ratings(record.kind, record.guild_id or GLOBAL, [user_id]))
            rating = float(display_rating(rows[user_id])) if user_id in rows else NEW_RATING
            await conn.run(add_entrant(record.id, EntrantRow(user_id, rating, joined=len(record.rounds) + 1)))
            return []
        return await self._change(tournament_id, change)

    async def leave(self, tournament_id: int, user_id: int) -> TournamentUpdate:
        """`user_id` leaves: before the start they are no longer entered; once it runs they are withdrawn (a game they
        are playing goes on; they are not paired again)."""
        async def change(tx: GameTransaction, record: TournamentRecord) -> list[Any]:
            return await self._withdraw(tx, record, user_id, "left")
        return await self._change(tournament_id, change)

    async def remove(self, tournament_id: int, by: int, user_id: int, *, manager: bool = False) -> TournamentUpdate:
        """The organiser (or, with `manager`, someone the Discord part allows to run the server's tournaments) takes
        `user_id` out, as `leave` does."""
        async def change(tx: GameTransaction, record: TournamentRecord) -> list[Any]:
            self._require_organiser(record, by, manager)
            return await self._withdraw(tx, record, user_id, "removed")
        return await self._change(tournament_id, change)

    async def _withdraw(self, tx: GameTransaction, record: TournamentRecord, user_id: int,
                        reason: str) -> list[Any]:
        entrant = record.entrant(user_id)
        if entrant is None or entrant.left_round is not None:
            raise ServiceError(Text("That player is not in this tournament."))
        if record.status in ("finished", "cancelled"):
            raise ServiceError(Text("This tournament is over."))
        conn = await tx.writer()
        if record.status == "open":
            await conn.run(remove_entrant(record.id, user_id))
            return []
        left = len(record.rounds) + 1
        await conn.run(set_entrant(record.id, user_id, left_round=left, absences=entrant.absences))
        return [PlayerWithdrawn(record.id, user_id, reason, left)]

    # ----- the organiser's controls ---------------------------------------------------------------------------
    async def start(self, tournament_id: int, by: int, *, manager: bool = False) -> TournamentUpdate:
        """Start it: round 1's games are created at once."""
        async def change(tx: GameTransaction, record: TournamentRecord) -> list[Any]:
            self._require_organiser(record, by, manager)
            if record.status != "open":
                raise ServiceError(Text("This tournament has already started."))
            if len(record.entrants) < record.min_players:
                raise ServiceError(Text("The tournament needs {count} players to start; wait for more to join.",
                                        count=record.min_players))
            await (await tx.writer()).run(update_tournament(record, status="running"))
            return []
        return await self._change(tournament_id, change, together=True)

    async def pause(self, tournament_id: int, by: int, *, manager: bool = False) -> TournamentUpdate:
        """No new round starts until `resume` (the games being played go on)."""
        return await self._set_status(tournament_id, by, manager, "running", "paused",
                                      Text("Only a running tournament can be paused."))

    async def resume(self, tournament_id: int, by: int, *, manager: bool = False) -> TournamentUpdate:
        """Go on: a round whose games all ended meanwhile is followed by the next at once."""
        return await self._set_status(tournament_id, by, manager, "paused", "running",
                                      Text("Only a paused tournament can be resumed."))

    async def cancel(self, tournament_id: int, by: int, *, manager: bool = False) -> TournamentUpdate:
        """Call it off: no further round (the games being played go on, as games)."""
        return await self._set_status(tournament_id, by, manager, None, "cancelled", None)

    # ----- the start time ----------------------------------------------------------------------------------------
    async def next_start(self) -> float | None:
        """When the earliest start time of an open tournament falls, or None (for the timer loop)."""
        return await self._query(next_start())

    async def due_starts(self) -> list[int]:
        """The open tournaments whose start time has come (to `start_due`)."""
        return await self._query(due_starts(self._clock()))

    async def start_due(self, tournament_id: int) -> TournamentUpdate:
        """At its start time, start it as the organiser's Start does (round 1 made in the same transaction); with fewer
        than its minimum players, it stays open for the organiser (to Start once enough have joined, or Cancel) and
        a `StartMissed` says so, once. Nothing before its start time, nor once it started, was paused or cancelled, or
        its start time was acted on already: so in any number of processes it happens once (the row is locked)."""
        refusal: Text | None = None

        async def change(tx: GameTransaction, record: TournamentRecord) -> list[Any]:
            if (record.status != "open" or record.starts_at is None or record.starts_at > self._clock()
                    or record.start_missed is not None):
                return []
            conn = await tx.writer()
            if refusal is not None or len(record.entrants) < record.min_players:
                await conn.run(update_tournament(record, start_missed=self._clock()))
                return [StartMissed(record.id, len(record.entrants), record.min_players, refusal)]
            await conn.run(update_tournament(record, status="running"))
            return []
        try:
            return await self._change(tournament_id, change, together=True)
        except StaleStateError:  # a race (another process changed it): the timer loop looks again
            raise
        except ServiceError as error:  # round 1's games refused (the server's settings): left to the organiser
            log.warning("tournament %d could not start at its start time: %s", tournament_id, error)
            refusal = error.args[0] if error.args and isinstance(error.args[0], Text) else None
            refusal = refusal or Text("Its first round could not be made.")
            return await self._change(tournament_id, change)

    async def _set_status(self, tournament_id: int, by: int, manager: bool, before: str | None, after: str,
                          refusal: Text | None) -> TournamentUpdate:
        async def change(tx: GameTransaction, record: TournamentRecord) -> list[Any]:
            self._require_organiser(record, by, manager)
            if record.status in ("finished", "cancelled"):
                raise ServiceError(Text("This tournament is over."))
            if refusal is not None and record.status != before:
                raise ServiceError(refusal)
            await (await tx.writer()).run(update_tournament(record, status=after))
            return []
        return await self._change(tournament_id, change, together=after == "running")

    @staticmethod
    def _require_organiser(record: TournamentRecord, by: int, manager: bool) -> None:
        if by != record.organiser_id and not manager:
            raise ServiceError(Text("Only the tournament's organiser can do that."))

    # ----- rounds that run themselves ---------------------------------------------------------------------------
    async def game_ended(self, game_id: int) -> TournamentUpdate | None:
        """Record the ending of game `game_id` as its pairing's result, and start the next round (or finish the
        tournament) if it was the round's last; None if the game is no tournament's, is not over, or was recorded
        already. Safe to call any number of times, from any process."""
        tournament_id = await self._query(tournament_of_game(game_id))
        if tournament_id is None:
            return None
        game = await self._games.load(game_id)
        outcome = game.state.outcome()
        if game.record.status in ("active", "pending"):
            return None
        # The game is over: nothing about it changes any more, so it is read before the tournament's transaction.
        absent = {m.seat for m in await self._store.moves(game_id) if m.action == TIMEOUT and m.user_id is None}
        seats = game.record.seats
        if outcome is None:  # called off before play began: nobody came
            absent = {s.seat for s in seats if s.user_id is not None}
            places: tuple[int, ...] = tuple(len(seats) for _ in seats)
        else:
            places = outcome.places

        recorded = False

        async def change(tx: GameTransaction, record: TournamentRecord) -> list[Any]:
            nonlocal recorded
            pairing = next((p for r in record.rounds for p in r.pairings if p.game_id == game_id), None)
            if pairing is None or pairing.ended:
                return []
            recorded = True
            conn = await tx.writer()
            await conn.run(_result_of(record.id, pairing, [s.user_id for s in seats], places, absent))
            events: list[Any] = []
            for seat in sorted(absent):
                user = seats[seat].user_id
                entrant = None if user is None else record.entrant(user)
                if entrant is None:
                    continue
                absences = entrant.absences + 1
                left = entrant.left_round
                if absences >= ABSENCES_TO_WITHDRAW and left is None:
                    left = len(record.rounds) + 1
                    events.append(PlayerWithdrawn(record.id, entrant.user_id, "absent", left))
                await conn.run(set_entrant(record.id, entrant.user_id, left_round=left, absences=absences))
            return events
        return await self._change(tournament_id, change, tell=lambda: recorded)

    async def catch_up(self) -> list[TournamentUpdate]:
        """At start-up: record the endings missed while no process was running, and start any round that is due
        (its tournament resumed, or the process stopped before); what changed."""
        updates = []
        for game_id in await self._query(unrecorded_endings()):
            update = await self.game_ended(game_id)
            if update is not None:
                updates.append(update)
        for tournament_id in await self._query(tournaments_with_status("running")):
            update = await self._change(tournament_id, _nothing)
            if update.events:
                updates.append(update)
        return updates

    async def next_round_deadline(self) -> float | None:
        """When the earliest deadline of a round being played falls, or None (for the timer loop)."""
        return await self._query(next_round_deadline())

    async def due_round_deadlines(self) -> list[int]:
        """The tournaments whose round being played is past its deadline (to `adjudicate`)."""
        return await self._query(due_round_deadlines(self._clock()))

    async def adjudicate(self, tournament_id: int) -> TournamentUpdate:
        """At the deadline of the round being played, stop each of its games still being played by the rule stated at
        creation, and record their results: "draw", the game ends with those still in sharing the place (a logged
        stop, as at the rules' length limit); "loss", the player to move loses as by their turn timer (and the others
        still in at a table share the place), but it is no absence. Then the next round starts. Nothing before the
        deadline, or when it was adjudicated already."""
        ended: list[Result[Any, Any]] = []

        async def change(tx: GameTransaction, record: TournamentRecord) -> list[Any]:
            if record.status != "running" or not record.rounds:
                return []
            round_ = record.rounds[-1]
            if round_.ended_at is not None or round_.deadline is None or round_.deadline > self._clock():
                return []
            conn = await tx.writer()
            for pairing in round_.pairings:
                if pairing.ended or pairing.game_id is None:
                    continue
                game = self._games.game(await tx.load(pairing.game_id))
                if game.record.status != "active":  # it ended meanwhile: recorded as any ending is
                    continue
                state = game.state
                mover = state.current_player()
                steps: list[Step] = []
                if record.deadline_rule == "loss" and mover is not None:
                    state = state.resign(mover, EndReason.TIMEOUT)
                    steps.append((mover, None, TIMEOUT, state))
                if state.outcome() is None:
                    state = state.stop(EndReason.MOVE_LIMIT)
                    steps.append((0 if mover is None else mover, None, MOVE_LIMIT, state))
                ended.append(await self._games.write_steps(tx, game, steps, None))
                outcome = state.outcome()
                assert outcome is not None
                await conn.run(_result_of(record.id, pairing, [s.user_id for s in game.record.seats],
                                          outcome.places, set()))
            return []
        return await self._change(tournament_id, change, ended=ended)

    # ----- where a round is shown (the Discord part posts it; what it posted is stored here) -------------------
    async def unposted_rounds(self, created_before: float) -> list[tuple[int, int]]:
        """The rounds (tournament, number) made before `created_before` that the process that made them stopped before
        posting (their pairings message, or their thread and boards): start-up posts them."""
        return await self._query(unposted_rounds(created_before))

    async def round_posted(self, tournament_id: int, number: int, message_id: int) -> bool:
        """Round `number`'s pairings message is `message_id`: stored once (False: another process stored its own)."""
        async with self._store.transaction() as tx:
            return await (await tx.writer()).run(set_round_message(tournament_id, number, message_id))

    async def round_thread(self, tournament_id: int, number: int, thread_id: int) -> tuple[int, bool]:
        """Round `number` is played in `thread_id` (the tournament's channel: no thread could be opened), stored once,
        and each of its games whose board is not posted yet moves there, in the same transaction: its board, its
        notices and its ending then go there. The thread stored (another process's, if it stored one first: the games
        move to that one) and whether this call stored it."""
        async with self._store.transaction() as tx:
            record = await self._load(tx, tournament_id, lock=True)
            conn = await tx.writer()
            thread, stored = await conn.run(set_round_thread(tournament_id, number, thread_id))
            for pairing in record.rounds[number - 1].pairings:
                if pairing.game_id is None:
                    continue
                game = await tx.load(pairing.game_id)
                if game.message_id is None and game.channel_id != thread:
                    await self._games.update(tx, game, channel_id=thread)
        return thread, stored

    async def announce(self, game_id: int) -> None:
        """Tell the listeners of a round's game whose board was posted late (its round was posted after a restart):
        whose decision it is, as the game's creation would have (its turn notification)."""
        game = await self._games.load(game_id)
        self._publisher.publish(present(game, decision_events(game, None)))

    async def _on_game_change(self, result: Result[Any, Any]) -> None:
        """The publisher's listener: a game that is no longer being played may be a tournament's."""
        if result.game.options.get(TOURNAMENT) is not None and result.game.status not in ("active", "pending"):
            await self.game_ended(result.game.id)

    # ----- one change of one tournament, and what follows from it ---------------------------------------------
    async def _change(self, tournament_id: int,
                      change: Callable[[GameTransaction, TournamentRecord], Coroutine[Any, Any, list[Any]]],
                      *, together: bool = False, ended: Sequence[Result[Any, Any]] = (),
                      tell: Callable[[], bool] = lambda: False) -> TournamentUpdate:
        """`change` on the tournament read and locked in one transaction, then its rounds brought up to date: in the
        same transaction with `together` (a start, a resume: refused as a whole if the round cannot be made), else in
        a transaction of its own, so that a round that cannot be made now (its game refused by the server's settings)
        never undoes a result: it is made by the next change, by `resume` or by `catch_up`. Then the games it created
        and its events are told (after the games `change` ended, if any); with `tell` true after the change (a result
        recorded), the listeners hear of it even without an event (the standings changed)."""
        games: list[Result[Any, Any]] = []
        async with self._store.transaction() as tx:
            record = await self._load(tx, tournament_id, lock=True)
            events = await change(tx, record)
            record = await self._load(tx, tournament_id, lock=False)
            if together:
                record, more = await self._advance(tx, record, games)
                events += more
        if not together and record.status == "running":
            try:
                async with self._store.transaction() as tx:
                    record, more = await self._advance(tx, await self._load(tx, tournament_id, lock=True), games)
            except ServiceError as refusal:
                games.clear()
                log.warning("tournament %d: its next round cannot be made now: %s", tournament_id, refusal)
            else:
                events += more
        if games:
            self._timers_changed.set()
        for game in ended:
            self._publisher.publish(game)
        update = TournamentUpdate(info_of(record), tuple(events), tuple(games))
        if events or tell():
            task = background(self._tell(update), name=f"tournament-{tournament_id}")
            self._telling.add(task)
            task.add_done_callback(self._telling.discard)
        else:
            for game in games:
                self._publisher.publish(game)
        return update

    async def _tell(self, update: TournamentUpdate) -> None:
        """Tell the listeners of `update`, then publish the games it created: a round's games are announced (their
        pairings, then their boards) before their first turn notifications, in that order whatever the timing."""
        try:
            outcomes = await asyncio.gather(*(listener(update) for listener in self.listeners), return_exceptions=True)
            for outcome in outcomes:
                if isinstance(outcome, Exception):
                    log.error("tournament %d: a listener failed", update.tournament.id, exc_info=outcome)
        finally:
            for game in update.games:
                self._publisher.publish(await self._as_placed(game))

    async def _as_placed(self, result: Result[Any, Any]) -> Result[Any, Any]:
        """A new game's result with the channel, thread and message it has now: the listeners may have moved it to its
        round's thread (`round_thread`) before its first notification."""
        try:
            record = (await self._games.load(result.id)).record
        except ServiceError:
            return result
        game = replace(result.game, channel_id=record.channel_id, thread_id=record.thread_id)
        return replace(result, game=game)

    async def told(self) -> None:
        """Wait until every tournament listener has heard every change so far."""
        while self._telling:
            await asyncio.gather(*self._telling, return_exceptions=True)

    async def _load(self, tx: GameTransaction, tournament_id: int, *, lock: bool) -> TournamentRecord:
        conn = await tx.writer(read_first=lock)
        try:
            return await load(conn, tournament_id, lock=lock)
        except TournamentNotFoundError:
            raise ServiceError(Text("There is no tournament #{number}.", number=tournament_id)) from None

    async def _advance(self, tx: GameTransaction, record: TournamentRecord,
                       games: list[Result[Any, Any]]) -> tuple[TournamentRecord, list[Any]]:
        """Start every round that is due (a round whose games are all decided at once is followed by the next), or
        finish the tournament: the round's row, its pairings and their games in the caller's transaction."""
        events: list[Any] = []
        conn = await tx.writer()
        now = self._clock()
        while record.status == "running":
            tournament = record.tournament()
            if tournament.rounds and not tournament.rounds[-1].finished:
                break
            number = len(tournament.rounds)
            if tournament.rounds and tournament.settings.format is Format.KNOCKOUT:
                replays = knockout.replays(tournament)
                if replays:
                    start = len(record.rounds[-1].pairings)
                    rows = [PairingRow(number, start + i, g.first, g.second, None, None, None, None)
                            for i, g in enumerate(replays)]
                    made = await self._make_games(tx, record, rows, games)
                    events.append(RoundStarted(record.id, number, pairings_of(made), replay=True))
                    record = await load(conn, record.id)
                    continue
            if tournament.rounds and record.rounds[-1].ended_at is None:
                await conn.run(end_round(record.id, number, now))
                events.append(RoundEnded(record.id, number))
            if tournament.rounds and is_over(tournament):
                record = await conn.run(update_tournament(record, status="finished", finished_at=now))
                podium = tuple(s for s in standings(tournament) if s.place <= 3)
                events.append(TournamentFinished(record.id, podium))
                break
            try:
                round_ = next_round(tournament)
            except ValueError:  # nobody left to pair: the tournament ends here
                record = await conn.run(update_tournament(record, status="finished", finished_at=now))
                events.append(TournamentFinished(record.id, tuple(s for s in standings(tournament) if s.place <= 3)))
                break
            number += 1
            await conn.run(add_round(record.id, number, now,
                                     None if record.round_time is None else now + record.round_time))
            rows = [PairingRow(number, i, g.first, g.second, None, None, None if g.result is None else g.result.value,
                               None) for i, g in enumerate(round_.games)]
            rows += [PairingRow(number, len(rows) + i, None, None, t.seats, None, None, None)
                     for i, t in enumerate(round_.tables)]
            made = await self._make_games(tx, record, rows, games)
            events.append(RoundStarted(record.id, number, pairings_of(made)))
            record = await load(conn, record.id)
        return record, events

    async def _make_games(self, tx: GameTransaction, record: TournamentRecord, rows: list[PairingRow],
                          games: list[Result[Any, Any]]) -> list[PairingRow]:
        """A game for each pairing still to be played (not a bye, not decided by a forfeit), then the pairings."""
        made = []
        levels = describe(record.kind).bot_levels
        level = str(record.options.get("bot_level") or describe(record.kind).default_bot_level or levels[0])
        for row in rows:
            if row.result is not None or (not row.is_table and row.second_id is None):
                made.append(row)
                continue
            seats = row.seats if row.seats is not None else (row.first_id, row.second_id)
            players = [Player(user) if user is not None else Player(computer=level) for user in seats]
            options = {k: v for k, v in record.options.items() if k != "bot_level"}
            result = await self._setup.create(
                record.kind, guild_id=record.guild_id, channel_id=record.channel_id, players=players,
                options={**options, "first": 0, TOURNAMENT: record.id, TOURNAMENT_ROUND: row.round,
                         **({} if record.rated else {UNRATED: True})},
                turn_timeout=record.turn_timeout, tx=tx)
            games.append(result)
            made.append(PairingRow(row.round, row.position, row.first_id, row.second_id, row.seats, result.game.id,
                                   None, None))
        await (await tx.writer()).run(add_pairings(record.id, made))
        return made

    async def _query(self, plan: Plan[T]) -> T:
        return await self._db.query(plan)


def _result_of(tournament_id: int, pairing: PairingRow, seats: Sequence[int | None], places: Sequence[int],
               absent: set[int]) -> Plan[None]:
    """The pairing's result from its game's places: a table's places as they are; two players' from the first's side,
    a seat lost by absence (its turn timer) a forfeit."""
    if pairing.is_table:
        return set_result(tournament_id, pairing, None, places)
    first_seat = 0 if seats[0] == pairing.first_id else 1
    second_seat = 1 - first_seat
    if first_seat in absent and second_seat in absent:
        score = Score.BOTH_FORFEIT
    elif first_seat in absent:
        score = Score.FIRST_FORFEITS
    elif second_seat in absent:
        score = Score.SECOND_FORFEITS
    else:
        one, two = places[first_seat], places[second_seat]
        score = Score.DRAW if one == two else Score.FIRST_WINS if one < two else Score.SECOND_WINS
    return set_result(tournament_id, pairing, score.value, None)


async def _nothing(_tx: GameTransaction, _record: TournamentRecord) -> list[Any]:
    return []
