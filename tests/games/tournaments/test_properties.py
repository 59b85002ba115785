"""Random tournaments (2-40 players, random results, withdrawals and late entries) keep the pairing rules; on small
fields, brute force over every possible pairing shows each rule is broken only where nothing better exists."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from games.tournaments import is_over, knockout, next_round
from games.tournaments.model import (
    TABLE_TIEBREAKS,
    DrawRule,
    Entrant,
    Format,
    Game,
    Result,
    Round,
    Settings,
    Table,
    Tournament,
    from_dict,
    seeded,
    to_dict,
)
from games.tournaments.standings import standings

BRUTE_FORCE_UP_TO = 9  # active players; 945 pairings at most
RESULTS = list(Result)
EXAMPLES = settings(max_examples=40, deadline=None)


def _field(data: st.DataObject, fmt: Format, most: int) -> Tournament:
    count = data.draw(st.one_of(st.integers(2, 10), st.integers(2, most)), label="players")
    rounds = data.draw(st.integers(1, 7), label="rounds")
    ratings = data.draw(st.lists(st.sampled_from([1000.0, 1200.0, 1500.0]), min_size=count, max_size=count))
    entrants = []
    for player, rating in enumerate(ratings, 1):
        joined = data.draw(st.sampled_from([1, 1, 1, 1, 2, 3]))
        start = data.draw(st.sampled_from([0.0, 0.0, 1.0])) if joined > 1 else 0.0
        left = data.draw(st.sampled_from([None, None, None, None, joined + 1, joined + 2]))
        entrants.append(Entrant(player, rating, joined, start, left))
    return Tournament(Settings(fmt, rounds=rounds, tiebreaks=TABLE_TIEBREAKS if fmt is Format.TABLES
                               else Settings(fmt).tiebreaks), tuple(entrants))


def _active(t: Tournament) -> list[int]:
    number = len(t.rounds) + 1
    return [e.player for e in t.entrants if e.plays_in(number)]


class _Facts:
    """What a player has done so far, worked out here again from the rounds (not with the code under test)."""

    def __init__(self, t: Tournament) -> None:
        self.points = {e.player: e.start_points for e in t.entrants}
        self.met: set[frozenset[int]] = set()
        self.byes = {e.player: 0 for e in t.entrants}
        self.diff = {e.player: 0 for e in t.entrants}
        self.last: dict[int, list[str]] = {e.player: [] for e in t.entrants}
        for round_ in t.rounds:
            for game in round_.games:
                if game.second is None:
                    self.byes[game.first] += 1
                    self.points[game.first] += t.settings.bye_points
                    continue
                assert game.result is not None
                self.met.add(frozenset((game.first, game.second)))
                a, b = game.result.scores()
                self.points[game.first] += a
                self.points[game.second] += b
                if game.result.played:
                    self.diff[game.first] += 1
                    self.diff[game.second] -= 1
                    self.last[game.first].append("W")
                    self.last[game.second].append("B")

    def colour_breaches(self, a: int, b: int, oriented: bool) -> tuple[int, int]:
        """(colour limit breaches, third games in a row with one colour) when `a` moves first, or (not `oriented`)
        the least of both ways."""
        return min(((self.diff[w] + 1 > 2) + (self.diff[k] - 1 < -2),
                    (self.last[w][-2:] == ["W", "W"]) + (self.last[k][-2:] == ["B", "B"]))
                   for w, k in ((a, b), (b, a))[:1 if oriented else 2])


def _pairings(players: list[int]) -> Iterator[list[tuple[int, int | None]]]:
    """Every way to pair `players` (one bye when odd)."""
    if not players:
        yield []
        return
    if len(players) % 2:
        for bye in players:
            for rest in _pairings([p for p in players if p != bye]):
                yield [(bye, None), *rest]
        return
    first, others = players[0], players[1:]
    for other in others:
        for rest in _pairings([p for p in others if p != other]):
            yield [(first, other), *rest]


def _absolute(facts: _Facts, pairing: list[tuple[int, int | None]], everyone_had_a_bye: bool,
              oriented: bool = False) -> tuple[int, ...]:
    """(colour limit breaches, byes to someone who had one, rematches, third games in a row with one colour, the
    bye's points above the lowest x 2); `oriented`: the first of each pair moves first, else the better way."""
    breaches = rematches = second_byes = threes = bye_height = 0
    lowest = min((facts.points[p] for pair in pairing for p in pair if p is not None), default=0.0)
    for a, b in pairing:
        if b is None:
            second_byes += bool(facts.byes[a]) and not everyone_had_a_bye
            bye_height += round((facts.points[a] - lowest) * 2)
        else:
            limit, three = facts.colour_breaches(a, b, oriented)
            breaches += limit
            threes += three
            rematches += frozenset((a, b)) in facts.met
    return breaches, second_byes, rematches, threes, bye_height


def _within_groups(facts: _Facts, pairing: list[tuple[int, int | None]]) -> bool:
    return all(b is None or facts.points[a] == facts.points[b] for a, b in pairing)


def _check_swiss_round(t: Tournament, round_: Round) -> None:
    facts = _Facts(t)
    active = _active(t)
    paired = [p for game in round_.games for p in game.players()]
    assert sorted(paired) == sorted(active), "every active player paired exactly once"
    byes = [game.first for game in round_.games if game.is_bye]
    assert len(byes) == len(active) % 2
    everyone_had_a_bye = all(facts.byes[p] for p in active)
    for player in byes:
        assert not facts.byes[player] or everyone_had_a_bye, "a second bye while another could have it"
    got = [(g.first, g.second) for g in round_.games]
    if len(active) <= BRUTE_FORCE_UP_TO:
        options = [(_absolute(facts, pairing, everyone_had_a_bye), pairing) for pairing in _pairings(active)]
        best = min(rank for rank, _ in options)
        # Colour limit, then the bye to someone without one, then no rematch, then no three games in a row with one
        # colour, then the bye to the lowest score: each broken only as far as every possible pairing must.
        assert _absolute(facts, got, everyone_had_a_bye, oriented=True) == best
        if any(rank == best and _within_groups(facts, pairing) for rank, pairing in options):
            assert _within_groups(facts, got), "paired outside a score group that could be paired within"


def _play(data: st.DataObject, t: Tournament, round_: Round) -> Tournament:
    games = tuple(game if game.is_bye or game.result is not None
                  else Game(game.first, game.second, data.draw(st.sampled_from(RESULTS)))
                  for game in round_.games)
    return t.with_round(Round(games=games))


@EXAMPLES
@given(st.data())
def test_random_swiss_tournaments_keep_the_pairing_rules(data: st.DataObject) -> None:
    t = _field(data, Format.SWISS, 40)
    for _ in range(t.settings.rounds):
        assert not is_over(t)
        round_ = next_round(t)
        _check_swiss_round(t, round_)
        t = _play(data, t, round_)
    assert is_over(t)
    facts = _Facts(t)
    assert all(-2 <= difference <= 2 for difference in facts.diff.values()), "colour difference beyond 2"
    _check_standings(t)


def _check_standings(t: Tournament) -> None:
    rows = standings(t)
    assert sorted(row.player for row in rows) == sorted(e.player for e in t.entrants)
    assert [row.place for row in rows] == sorted(row.place for row in rows)
    assert rows[0].place == 1
    if t.settings.format is not Format.KNOCKOUT:
        assert [row.points for row in rows] == sorted((row.points for row in rows), reverse=True)
    assert from_dict(to_dict(t)) == t
    assert standings(from_dict(to_dict(t))) == rows


@EXAMPLES
@given(st.data())
def test_random_round_robins_meet_everyone_once_per_cycle(data: st.DataObject) -> None:
    count = data.draw(st.integers(2, 12))
    double = data.draw(st.booleans())
    t = Tournament(Settings(Format.ROUND_ROBIN, double=double), tuple(Entrant(p, 1000.0) for p in range(1, count + 1)))
    meetings: dict[frozenset[int], list[int]] = {}
    while True:
        try:
            round_ = next_round(t)
        except ValueError:
            break
        assert sorted(p for game in round_.games for p in game.players()) == list(range(1, count + 1))
        for game in round_.games:
            if game.second is not None:
                meetings.setdefault(frozenset(game.players()), []).append(game.first)
        t = _play(data, t, round_)
    assert len(meetings) == count * (count - 1) // 2
    for firsts in meetings.values():
        assert len(firsts) == (2 if double else 1)
        assert len(set(firsts)) == len(firsts), "the second cycle swaps who moves first"
    colours = {p: sum((g.first == p) - (g.second == p) for r in t.rounds for g in r.games if g.second) for p in
               range(1, count + 1)}
    assert all(abs(d) <= (0 if double else 1) + count % 2 for d in colours.values())
    _check_standings(t)


@EXAMPLES
@given(st.data())
def test_random_knockouts_halve_the_field_each_round(data: st.DataObject) -> None:
    count = data.draw(st.integers(2, 40))
    rule = data.draw(st.sampled_from(DrawRule))
    t = Tournament(Settings(Format.KNOCKOUT, draw_rule=rule),
                   tuple(Entrant(p, 1000.0 + p % 7) for p in range(1, count + 1)))
    size = 1 << (count - 1).bit_length()  # the bracket's places
    alive = count
    while size > 1:
        round_ = next_round(t)
        assert len({p for game in round_.games for p in game.players()}) == alive
        assert len(knockout.matches(round_)) == size // 2
        t = _play(data, t, round_)
        while knockout.replays(t):  # only under the replay rule
            last = t.rounds[-1]
            more = tuple(Game(g.first, g.second, data.draw(st.sampled_from(RESULTS))) for g in knockout.replays(t))
            t = Tournament(t.settings, t.entrants, (*t.rounds[:-1], Round(games=(*last.games, *more))))
        size //= 2
        alive = size
    assert knockout.finished(t) and is_over(t)
    if count > 1:
        byes = [game.first for game in t.rounds[0].games if game.is_bye]
        by_seed = [e.player for e in seeded(t.entrants)]
        assert sorted(byes, key=by_seed.index) == by_seed[:len(byes)], "the byes go to the top seeds"
        assert len(byes) == (1 << (count - 1).bit_length()) - count
    _check_standings(t)


@EXAMPLES
@given(st.data())
def test_random_so_long_sucker_tournaments_seat_valid_tables_with_fewest_repeats(data: st.DataObject) -> None:
    t = _field(data, Format.TABLES, 40)
    fillers = data.draw(st.booleans())
    t = Tournament(Settings(Format.TABLES, rounds=t.settings.rounds, tiebreaks=TABLE_TIEBREAKS, fillers=fillers),
                   t.entrants)
    for _ in range(t.settings.rounds):
        active = _active(t)
        if len(active) < 3 and not fillers:
            return
        round_ = next_round(t)
        seated = [p for table in round_.tables for p in table.players()]
        assert sorted(seated) == sorted(active)
        for table in round_.tables:
            people = len(table.players())
            assert 3 <= len(table.seats) <= 5
            assert people == len(table.seats) or (fillers and len(table.seats) == 4 and people < 4)
        assert sum(len(table.seats) != 4 for table in round_.tables) <= 2
        if len(active) <= BRUTE_FORCE_UP_TO:
            met = _Facts(t).met | {frozenset(pair) for r in t.rounds for tb in r.tables
                                   for pair in combinations(tb.players(), 2)}
            groups = [len(table.players()) for table in round_.tables]
            fewest = min(_repeats(met, seating) for seating in _seatings(active, groups))
            assert _repeats(met, [table.players() for table in round_.tables]) == fewest
        places = []
        for table in round_.tables:
            order = data.draw(st.permutations(range(1, len(table.seats) + 1)))
            places.append(Table(table.seats, tuple(order)))
        t = t.with_round(Round(tables=tuple(places)))
    _check_standings(t)


def _repeats(met: set[frozenset[int]], seating: list[tuple[int, ...]] | list[list[int]]) -> int:
    return sum(frozenset(pair) in met for table in seating for pair in combinations(table, 2))


def _seatings(players: list[int], groups: list[int]) -> Iterator[list[list[int]]]:
    if not groups:
        yield []
        return
    size, rest = groups[0], groups[1:]
    for table in combinations(players, size):
        remaining = [p for p in players if p not in table]
        for others in _seatings(remaining, rest):
            yield [list(table), *others]
