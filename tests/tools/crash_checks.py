"""What the crash test checks in the database once the kills are over (the run is tests/tools/crash.py).

- Every game replays from its move log to exactly the stored snapshot, and after every move the position keeps
  invariants computed here from the snapshot, not by the engine: So Long Sucker's chips are conserved (hands +
  piles + dead = what was dealt), a Generals army has exactly its formation's pieces and the ones off the board
  are exactly those the log's challenges eliminated, Chopsticks hands hold a count below the rollover.
- Ratings: a finished game is rated exactly when it should be, and every ladder equals a recomputation with
  openskill from the rated games in the order they finished.
- The record of finishing games: every person's counts, per server and global, equal a count over the finished
  games (abandoned: a seat with a `timeout` in its log; bot/service/finishing.py), each game counted once.
- Tournaments: rounds created once each and each posted (its pairings message), no pairing's game lost, each ending
  recorded in its pairing, standings equal to a recomputation from the games' outcomes, and rounds that follow as the
  games end (`tournament_problems`).
- The turn timers are checked in crash_timers.py.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from openskill.models import PlackettLuce

from bot.service.model import TOURNAMENT
from games.base import META_ACTIONS, TIMEOUT
from games.engines import game_class
from games.generals.pieces import ABBREVIATIONS, FULL_ARMY, SMALL_ARMY, Rank
from games.tournaments import is_over, total_rounds
from games.tournaments.model import Result as Score
from games.tournaments.standings import Standing, standings
from storage.sql import Dialect, Plan, Sql, select
from storage.tournaments import PairingRow, TournamentRecord, load_tournament
from tests.tools.peek import NO_FILE_TO_CHECK, Target, json_value, peek_at

GLOBAL = 0  # the guild id of the global ladder
RATING_TOLERANCE = 1e-9
# How long a tournament may stay open after its start time: a process killed as it came starts it once restarted.
START_GRACE = 10.0


class Row(NamedTuple):
    ply: int
    user: int | None
    action: str
    token: int  # the turn token before the move
    seat: int
    at: float


class SeatRow(NamedTuple):
    seat: int
    user_id: int | None
    bot: str | None
    place: int | None


@dataclass
class GameCheck:
    kind: str
    status: str
    message_id: int | None
    state: dict[str, Any]
    rows: list[Row]
    problems: list[str]
    id: int = 0
    guild_id: int | None = None
    seats: list[SeatRow] = field(default_factory=list)
    options: dict[str, Any] = field(default_factory=dict)
    turn_timeout: float = 0.0
    rated: bool = False
    finished_at: float | None = None
    updated_at: float = 0.0
    moves_of_play: int = 0  # logged actions of the game's own made once play had begun (no setup, no meta action)

    def seat_of(self, user_id: int) -> int | None:
        return next((s.seat for s in self.seats if s.user_id == user_id), None)

    @property
    def ending(self) -> str | None:
        """How the game ended (every engine stores an Outcome in its snapshot), None while it has not."""
        result = self.state.get("result")
        return str(result.get("reason", "?")) if isinstance(result, dict) else None

    def fact(self, name: str) -> Any:
        """A stored fact a promise names."""
        if name == "variants":
            return sorted(self.options.get("variants", []))
        if name == "bot":
            return next((s.bot for s in self.seats if s.bot is not None), None)
        return getattr(self, name)

    def timer_rows(self) -> list[Row]:
        """Actions the turn timer took: rows without a user for a seat a person holds."""
        people = {s.seat for s in self.seats if s.user_id is not None}
        return [r for r in self.rows if r.user is None and r.seat in people]


def read_games(target: Target) -> tuple[dict[int, GameCheck], dict[int, dict[str, Any]], str]:
    """Every game replayed from its move log, every lobby, and SQLite's integrity check, in one read (one state of
    the database: the bot may be writing meanwhile)."""
    peek = peek_at(target)
    return peek.read(_games_and_lobbies(peek.postgres))


@dataclass(frozen=True)
class Results:
    """The finished games and what was counted from them, read in one state of the database: a game that ends
    between two reads (a timer firing while the bots still run) would otherwise look counted twice, or not at all."""

    games: dict[int, GameCheck]
    ladders: dict[tuple[str, int, int], Ladder]  # (kind, guild or GLOBAL, user): the all-time ladders
    finishing: dict[tuple[int, int], tuple[int, int]]  # (guild or GLOBAL, user): (finished, abandoned)


def read_results(target: Target) -> Results:
    """The games, the stored ladders and the record of finishing games, in one read."""
    peek = peek_at(target)
    return peek.read(_results(peek.postgres))


def _results(postgres: bool) -> Plan[Results]:
    games, _lobbies, _integrity = yield from _games_and_lobbies(postgres)
    ladders = {(str(k), int(g), int(u)): Ladder(float(mu), float(sigma), int(n), int(w), int(d), int(lo))
               for k, g, u, mu, sigma, n, w, d, lo in (yield from select(
                   # the all-time ladders (a season's rows, guild_id -season id in storage/seasons.py, are not redone)
                   "SELECT kind, guild_id, user_id, mu, sigma, games, wins, draws, losses FROM ratings"
                   " WHERE guild_id >= 0"))}
    finishing = {(int(g), int(u)): (int(f), int(a)) for g, u, f, a in (yield from select(
        "SELECT guild_id, user_id, finished, abandoned FROM finishing"))}
    return Results(games, ladders, finishing)


def _games_and_lobbies(postgres: bool) -> Plan[tuple[dict[int, GameCheck], dict[int, dict[str, Any]], str]]:
    integrity = NO_FILE_TO_CHECK if postgres else str((yield Sql("PRAGMA integrity_check")).value())
    games: dict[int, GameCheck] = {}
    for (gid, kind, status, message_id, initial, state, move_count, guild_id, options, turn_timeout, rated,
         finished_at, updated_at) in (yield from select(
            "SELECT id, kind, status, message_id, initial_state, state, move_count, guild_id, options,"
            " turn_timeout, rated, finished_at, updated_at FROM games ORDER BY id")):
        moves = [(int(ply), int(seat), _int_or_none(user), str(action), float(at)) for ply, seat, user, action, at
                 in (yield from select("SELECT ply, seat, user_id, action, created_at FROM moves WHERE game_id = ?"
                                       " ORDER BY ply", (gid,)))]
        seats = [SeatRow(int(s), _int_or_none(u), None if b is None else str(b), _int_or_none(p))
                 for s, u, b, p in (yield from select(
                     "SELECT seat, user_id, bot, place FROM game_players WHERE game_id = ? ORDER BY seat", (gid,)))]
        game = _check_game(str(kind), str(status), _int_or_none(message_id), json_value(initial), json_value(state),
                           int(move_count), moves, len(seats))
        game.id, game.guild_id, game.seats, game.options = int(gid), _int_or_none(guild_id), seats, json_value(options)
        game.turn_timeout, game.rated = float(turn_timeout), bool(rated)
        game.finished_at = None if finished_at is None else float(finished_at)
        game.updated_at = float(updated_at)
        games[int(gid)] = game
    lobbies: dict[int, dict[str, Any]] = {}
    for lid, host, status, game_id in (yield from select("SELECT id, host_id, status, game_id FROM lobbies")):
        members = yield from select("SELECT user_id, bot FROM lobby_members WHERE lobby_id = ?", (lid,))
        lobbies[int(lid)] = {"host": int(host), "status": str(status), "game_id": _int_or_none(game_id),
                             "users": {int(m[0]) for m in members if m[0] is not None},
                             "bots": sum(1 for m in members if m[1] is not None)}
    return games, lobbies, integrity


def _int_or_none(value: Any) -> int | None:
    return None if value is None else int(value)


def _check_game(kind: str, status: str, message_id: int | None, initial: dict[str, Any], stored: dict[str, Any],
                move_count: int, moves: list[tuple[int, int, int | None, str, float]], seats: int) -> GameCheck:
    problems: list[str] = []
    rows: list[Row] = []
    game = GameCheck(kind, status, message_id, stored, rows, problems)
    if [m[0] for m in moves] != list(range(1, len(moves) + 1)):
        problems.append(f"move log plies are {[m[0] for m in moves]}, not 1..{len(moves)}")
    if move_count != len(moves):
        problems.append(f"move_count {move_count} but {len(moves)} moves logged")
    try:
        state = game_class(kind).from_dict(initial)
        if state.num_players != seats:
            problems.append(f"{seats} seats for a {state.num_players}-player game")
        eliminated = [0, 0]  # Generals: pieces each side lost in challenges, counted from the log
        for ply, seat, user, action, at in moves:
            token = state.turn_token()
            rows.append(Row(int(ply), user, str(action), ply - 1 if token is None else token, int(seat), float(at)))
            game.moves_of_play += state.began() and str(action) not in META_ACTIONS
            state = state.apply_text(int(seat), str(action))
            snapshot = state.to_dict()
            for problem in invariant_problems(kind, snapshot, eliminated):
                problems.append(f"after move {ply} ({action}): {problem}")
                break
        if _canonical(state.to_dict()) != _canonical(stored):
            problems.append("the stored snapshot differs from the replay of the move log")
        over = state.outcome() is not None
        if over != (status == "finished"):
            problems.append(f"status {status!r} but the replayed game is {'over' if over else 'not over'}")
    except Exception as exc:  # a log that does not replay at all
        problems.append(f"the move log does not replay: {type(exc).__name__}: {exc}")
    # One problem of a kind per game is enough to read: a broken invariant usually stays broken.
    game.problems[:] = list(dict.fromkeys(problems))[:5]
    return game


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


# ----- invariants the engines do not compute for themselves ----------------------------------------------------
def invariant_problems(kind: str, snapshot: dict[str, Any], eliminated: list[int]) -> list[str]:
    """What is wrong with a position, from its snapshot alone (and, for Generals, the eliminations so far)."""
    if kind == "sucker":
        return _sucker_problems(snapshot)
    if kind == "generals":
        return _generals_problems(snapshot, eliminated)
    if kind == "chopsticks":
        return _chopsticks_problems(snapshot)
    return []


def _sucker_problems(s: dict[str, Any]) -> list[str]:
    """Every chip dealt is in someone's hand, on a pile or dead: per colour, exactly `chips`."""
    players, chips, holdings = int(s["players"]), int(s["chips"]), s["holdings"]
    out = []
    for colour in range(players):
        in_hands = sum(int(row[colour]) for row in holdings)
        on_piles = sum(1 for pile in s["piles"] for chip in pile if int(chip[0]) == colour)
        dead = int(s["dead"][colour])
        if in_hands + on_piles + dead != chips or min(in_hands, dead) < 0:
            out.append(f"colour {colour}: {in_hands} in hands + {on_piles} on piles + {dead} dead != {chips} dealt")
    if any(int(v) < 0 for row in holdings for v in row):
        out.append("a negative holding")
    for seat in s["defeated"]:
        if any(int(v) for v in holdings[int(seat)]):
            out.append(f"defeated seat {seat} still holds chips")
    return out


def _generals_problems(s: dict[str, Any], eliminated: list[int]) -> list[str]:
    """Each army is exactly its formation's pieces; off the board are exactly those the challenges eliminated."""
    last = s.get("last")
    if last is not None and last.get("kind") == "move" and last.get("result") is not None:
        mover = int(last["seat"])
        result = last["result"]
        if result in ("defender won", "both eliminated"):
            eliminated[mover] += 1
        if result in ("attacker won", "both eliminated"):
            eliminated[1 - mover] += 1
    armies = s["armies"]
    settings = s["settings"]
    army = SMALL_ARMY if settings.get("small_army") else FULL_ARMY
    wanted = Counter(ABBREVIATIONS[rank] for rank in army)
    out = []
    if not any(armies):
        return [] if eliminated == [0, 0] else [f"pieces eliminated {eliminated} before play began"]
    squares: Counter[str] = Counter()
    for side, pieces in enumerate(armies):
        ranks = Counter(str(p[0]) for p in pieces)
        if ranks != wanted:
            extra = ranks - wanted
            out.append(f"side {side} has {len(pieces)} pieces, not its {len(army)}"
                       + (f" (too many: {dict(extra)})" if extra else ""))
        on_board = [str(p[1]) for p in pieces if p[1] is not None]
        squares.update(on_board)
        if len(on_board) + eliminated[side] != len(army):
            out.append(f"side {side}: {len(on_board)} on the board + {eliminated[side]} eliminated in challenges"
                       f" != {len(army)}")
        flag = ABBREVIATIONS[Rank.FLAG]
        if s["result"] is None and not any(str(p[0]) == flag and p[1] is not None for p in pieces):
            out.append(f"side {side} lost its Flag but the game goes on")
    doubled = [sq for sq, n in squares.items() if n > 1]
    if doubled:
        out.append(f"two pieces on {', '.join(doubled)}")
    return out


def _chopsticks_problems(s: dict[str, Any]) -> list[str]:
    """As many players as seats, each with the rules' hands, each hand below the rollover (in half fingers with
    stumps)."""
    rules = s["rules"]
    unit = 2 if "stumps" in rules.get("variants", []) else 1
    limit = int(rules["rollover"]) * unit
    out = []
    if len(s["hands"]) != int(rules["players"]):
        out.append(f"{len(s['hands'])} players' hands for {rules['players']} players")
    for seat, hands in enumerate(s["hands"]):
        if len(hands) != int(rules["hands"]) or any(not 0 <= int(f) < limit for f in hands):
            out.append(f"seat {seat} holds {hands} (hands of 0..{limit - 1}, {rules['hands']} of them)")
    return out


# ----- ratings -----------------------------------------------------------------------------------------------
@dataclass
class Ladder:
    mu: float
    sigma: float
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0


def should_be_rated(game: GameCheck) -> bool:
    """People only, and play began with a move: one of the logged actions was a move of play, made once play had
    begun (a secret setup's steps, resignations, timeouts and agreed draws are none; bot/service/ratings.py)."""
    return (game.status == "finished" and all(s.user_id is not None for s in game.seats)
            and game.moves_of_play >= 1)


def rating_problems(results: Results) -> tuple[list[str], int]:
    """Each finished game rated exactly when it should be, and every stored ladder equal to openskill run again over
    the rated games in the order they finished; returns the problems and how many games were rated."""
    games = results.games
    problems = []
    for gid, game in games.items():
        if game.rated != should_be_rated(game):
            should = "should" if not game.rated else "should not"
            problems.append(f"{game.kind} #{gid}: rated={game.rated} but it {should} count")
    rated = sorted((g for g in games.values() if g.rated), key=lambda g: (g.finished_at or 0.0, g.id))
    model = PlackettLuce()
    expected: dict[tuple[str, int, int], Ladder] = {}
    for game in rated:
        places = [s.place for s in game.seats]
        if any(p is None for p in places):
            problems.append(f"{game.kind} #{game.id}: rated but not every seat has a place")
            continue
        ranks = [int(p) for p in places if p is not None]
        users = [int(s.user_id) for s in game.seats if s.user_id is not None]
        scopes = [GLOBAL] if game.guild_id is None else [int(game.guild_id), GLOBAL]
        draw = len(set(ranks)) == 1
        for scope in scopes:
            rows = [expected.setdefault((game.kind, scope, u), Ladder(model.mu, model.sigma)) for u in users]
            teams = [[model.rating(mu=r.mu, sigma=r.sigma)] for r in rows]
            for row, team, place in zip(rows, model.rate(teams, ranks=list(ranks)), ranks, strict=True):
                row.mu, row.sigma = team[0].mu, team[0].sigma
                row.games += 1
                row.wins += place == 1 and not draw
                row.draws += draw
                row.losses += place != 1
    stored = results.ladders
    for key in sorted(set(expected) | set(stored)):
        want, have = expected.get(key), stored.get(key)
        kind, scope, user = key
        where = f"{kind} ladder {'global' if scope == GLOBAL else scope}, user {user}"
        if want is None or have is None:
            problems.append(f"{where}: {'stored' if want is None else 'missing'}, but the finished games say"
                            f" {'no rating' if want is None else f'{want.games} rated games'}")
            continue
        counts = (want.games, want.wins, want.draws, want.losses)
        if (have.games, have.wins, have.draws, have.losses) != counts:
            problems.append(f"{where}: games/wins/draws/losses {(have.games, have.wins, have.draws, have.losses)}"
                            f" but the finished games give {counts}")
        elif abs(have.mu - want.mu) > RATING_TOLERANCE or abs(have.sigma - want.sigma) > RATING_TOLERANCE:
            problems.append(f"{where}: mu/sigma {have.mu:.6f}/{have.sigma:.6f} but openskill over the finished"
                            f" games gives {want.mu:.6f}/{want.sigma:.6f}")
    return problems, len(rated)


# ----- the record of finishing games ------------------------------------------------------------------------
def finishing_problems(results: Results) -> list[str]:
    """Every stored count of games finished and abandoned equal to one made again from the finished games: each
    person's seat counts once per scope (its server, if any, and global), abandoned when the log has a `timeout` for
    it (bot/service/finishing.py)."""
    expected: Counter[tuple[int, int, str]] = Counter()
    for game in results.games.values():
        if game.status != "finished":
            continue
        timed_out = {r.seat for r in game.rows if r.action == "timeout"}
        scopes = [GLOBAL] if game.guild_id is None else [int(game.guild_id), GLOBAL]
        for seat in game.seats:
            if seat.user_id is not None:
                for scope in scopes:
                    expected[(scope, seat.user_id, "abandoned" if seat.seat in timed_out else "finished")] += 1
    problems = []
    stored = results.finishing
    people = {(scope, user) for scope, user, _ in expected} | set(stored)
    for scope, user in sorted(people):
        want = (expected[(scope, user, "finished")], expected[(scope, user, "abandoned")])
        have = stored.get((scope, user), (0, 0))
        if have != want:
            where = "global" if scope == GLOBAL else f"server {scope}"
            problems.append(f"finishing {where}, user {user}: finished/abandoned {have} but the finished games give"
                            f" {want}")
    return problems


# ----- tournaments ---------------------------------------------------------------------------------------------
@dataclass
class TournamentCheck:
    """What a tournament's rows say, checked against its games (`tournament_problems`)."""

    id: int
    kind: str
    status: str
    rounds: int  # rounds created
    total: int  # rounds it has in all (a Swiss's setting, a round robin's cycle...)
    games: int  # pairings' games
    finished_games: int
    problems: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return (f"{self.kind} {'tables' if self.kind == 'sucker' else 'Swiss'} #{self.id}: {self.status}, round "
                f"{self.rounds} of {self.total}, {self.finished_games}/{self.games} games over")


def tournament_problems(target: Target) -> list[TournamentCheck]:
    """Each tournament's rounds, pairings and standings against the stored games, all read in one state of the
    database (the bot may be writing meanwhile):

    - its rounds are numbered 1..n, each once, and each round has pairings and its pairings message posted (a round
      made by a process that stopped before posting it is posted by the next start);
    - every pairing's game exists and is that tournament's; no game of the tournament lies outside a pairing;
    - each finished game's result is recorded in its pairing, as its places (and absences: a seat whose turn timer
      ran out forfeits) give it; a game still being played has none;
    - the standings the service computes from the pairings equal a recomputation with games/tournaments from the
      games' own outcomes;
    - it advances: a round whose pairings all ended is followed by the next, or the tournament is finished (a game's
      result and the next round are two transactions: a reader may see one without the other for a moment)."""
    peek = peek_at(target)
    games, tournaments = peek.read(_tournaments(Dialect.POSTGRESQL if peek.postgres else Dialect.SQLITE))
    now = time.time()
    return [_check_tournament(record, numbers, paired, games, now) for record, numbers, paired in tournaments]


def _tournaments(dialect: Dialect) -> Plan[tuple[dict[int, GameCheck],
                                                 list[tuple[TournamentRecord, list[int], list[int]]]]]:
    games, _lobbies, _integrity = yield from _games_and_lobbies(dialect is Dialect.POSTGRESQL)
    found = []
    for (tournament_id,) in (yield from select("SELECT id FROM tournaments ORDER BY id")):
        record = yield from load_tournament(dialect, int(tournament_id))
        numbers = [int(n) for (n,) in (yield from select(
            "SELECT number FROM tournament_rounds WHERE tournament_id = ? ORDER BY number", (tournament_id,)))]
        paired = [int(g) for (g,) in (yield from select(
            "SELECT game_id FROM tournament_pairings WHERE tournament_id = ? AND game_id IS NOT NULL",
            (tournament_id,)))]
        found.append((record, numbers, paired))
    return games, found


def _check_tournament(record: TournamentRecord, numbers: list[int], paired: list[int],
                      games: dict[int, GameCheck], now: float) -> TournamentCheck:
    tournament = record.tournament()
    check = TournamentCheck(record.id, record.kind, record.status, len(record.rounds),
                            total_rounds(tournament) if record.entrants else 0, len(paired),
                            sum(1 for g in paired if g in games and games[g].status == "finished"))
    problems = check.problems
    if record.status == "open" and record.starts_at is not None and record.starts_at < now - START_GRACE \
            and record.start_missed is None:
        problems.append(f"its start time passed {now - record.starts_at:.1f} s ago and it has not started")
    if numbers != list(range(1, len(numbers) + 1)):
        problems.append(f"round numbers {numbers}, not 1..{len(numbers)} each once")
    doubled = sorted(g for g, n in Counter(paired).items() if n > 1)
    if doubled:
        problems.append(f"games {doubled} are in more than one pairing")
    mine = {gid for gid, g in games.items() if g.options.get(TOURNAMENT) == record.id}
    outside = sorted(mine - set(paired))
    if outside:
        problems.append(f"games {outside} are the tournament's but in no pairing")
    rounds = []
    for round_ in record.rounds:
        if not round_.pairings:
            problems.append(f"round {round_.number} has no pairings")
        if round_.message_id is None:
            problems.append(f"round {round_.number}'s pairings message was never posted")
        recomputed = []
        for pairing in round_.pairings:
            where = f"round {round_.number} pairing {pairing.position}"
            if pairing.game_id is None:
                recomputed.append(pairing)  # a bye, or decided without a game (a forfeit): no game to read
                continue
            game = games.get(pairing.game_id)
            if game is None:
                problems.append(f"{where}: its game #{pairing.game_id} is lost")
                recomputed.append(pairing)
                continue
            if game.options.get(TOURNAMENT) != record.id:
                problems.append(f"{where}: game #{game.id} is not this tournament's")
            expected = _pairing_result(pairing, game)
            stored = (pairing.result, pairing.places)
            if expected != stored:
                problems.append(f"{where}: game #{game.id} ({game.status}) gives {expected}, the pairing has {stored}")
            recomputed.append(replace(pairing, result=expected[0], places=expected[1]))
        rounds.append(replace(round_, pairings=tuple(recomputed)))
    again = replace(record, rounds=tuple(rounds)).tournament()
    if standings(again) != standings(tournament):
        problems.append(f"standings {_points(standings(tournament))} but the games give {_points(standings(again))}")
    if record.status == "running" and tournament.rounds and tournament.rounds[-1].finished:
        problems.append(f"round {record.rounds[-1].number} is over but neither a next round nor the end followed")
    if record.status == "finished" and not is_over(tournament) and tournament.rounds:
        problems.append("finished before its last round")
    return check


def _points(rows: list[Standing]) -> str:
    return ", ".join(f"{s.place}. {s.player}: {s.points:g}" for s in rows)


def _pairing_result(pairing: PairingRow, game: GameCheck) -> tuple[str | None, tuple[int, ...] | None]:
    """What a pairing's result should be from its game alone (bot/service/tournaments.py records it so): none while
    the game is being played; a table's places; two players' result from the first player's side, a seat lost by
    its turn timer a forfeit; a game called off before play began lost by every person at it."""
    if game.status in ("active", "pending"):
        return None, None
    seats = game.seats
    absent = {r.seat for r in game.rows if r.action == TIMEOUT and r.user is None}
    if game.status == "finished":
        places = tuple(int(s.place or 0) for s in seats)
    else:  # called off before play began: nobody came
        absent = {s.seat for s in seats if s.user_id is not None}
        places = tuple(len(seats) for _ in seats)
    if pairing.is_table:
        return None, places
    first = 0 if seats[0].user_id == pairing.first_id else 1
    second = 1 - first
    if first in absent and second in absent:
        score = Score.BOTH_FORFEIT
    elif first in absent:
        score = Score.FIRST_FORFEITS
    elif second in absent:
        score = Score.SECOND_FORFEITS
    else:
        score = (Score.DRAW if places[first] == places[second]
                 else Score.FIRST_WINS if places[first] < places[second] else Score.SECOND_WINS)
    return score.value, None
