"""Knockout: a bracket seeded by rating, byes to the top seeds, a drawn game settled by the rule chosen up front.

Seeds are by rating, then user id. The bracket has the next power of two of places, in the standard order (1 v N,
then the winner meets the winner of N/2 v N/2+1, ...: for 8, 1-8, 4-5, 2-7, 3-6), and the places of seeds beyond the
entrants are byes, so the top seeds have them. The higher seed moves first. A drawn game goes to the draw rule:
replayed with the other player moving first (`replays`), or the higher seed goes through, or the player who moved
second does. A forfeit by both sends the higher seed through; a withdrawn player's next game is lost by forfeit.
"""

from __future__ import annotations

from games.tournaments.model import DrawRule, Entrant, Game, Result, Round, Tournament, seeded


def bracket_order(size: int) -> list[int]:
    """Seeds 1..size (a power of two) in bracket order: neighbours meet in round 1."""
    order = [1]
    while len(order) < size:
        order = [seed for top in order for seed in (top, 2 * len(order) + 1 - top)]
    return order


def rounds_of(count: int) -> int:
    """How many rounds a knockout of `count` players has."""
    return max(count - 1, 0).bit_length()


def pair(tournament: Tournament) -> Round:
    """The next knockout round (its games in bracket order, byes included)."""
    entrants = seeded(tournament.entrants)
    if any(e.joined > 1 for e in entrants):
        raise ValueError("a knockout takes no late entries")
    number = len(tournament.rounds) + 1
    if number == 1:
        size = 1 << rounds_of(len(entrants))
        by_seed = {seed: entrant for seed, entrant in enumerate(entrants, 1)}
        order = bracket_order(size)
        ahead = [by_seed.get(seed) for seed in order]
    else:
        ahead = [_entrant(tournament, player) for player in winners(tournament)]
    if len(ahead) < 2:
        raise ValueError("the knockout is over")
    seed = {e.player: index for index, e in enumerate(entrants)}
    games = []
    for one, two in zip(ahead[::2], ahead[1::2], strict=True):
        if one is None or two is None:
            present = one or two
            assert present is not None
            games.append(Game(present.player, None))
            continue
        high, low = sorted((one, two), key=lambda e: seed[e.player])
        result = None
        if not high.plays_in(number) or not low.plays_in(number):
            result = (Result.SECOND_FORFEITS if high.plays_in(number) else Result.FIRST_FORFEITS
                      if low.plays_in(number) else Result.BOTH_FORFEIT)
        games.append(Game(high.player, low.player, result))
    return Round(games=tuple(games))


def _entrant(tournament: Tournament, player: int | None) -> Entrant | None:
    return None if player is None else tournament.entrant(player)


def matches(round_: Round) -> list[Game]:
    """A round's matches in bracket order, each as its last game (a replay stands for the drawn games before it)."""
    last: dict[frozenset[int], Game] = {}
    for game in round_.games:
        last[frozenset(game.players())] = game
    return list(last.values())


def winner(tournament: Tournament, game: Game) -> int | None:
    """Who goes through from a match's last game; None while it is unfinished or must be replayed."""
    if game.second is None:
        return game.first
    if game.result is None:
        return None
    if game.result is Result.DRAW:
        rule = tournament.settings.draw_rule
        if rule is DrawRule.REPLAY:
            return None
        if rule is DrawRule.SECOND_MOVER:
            return game.second
        return _higher_seed(tournament, game.first, game.second)
    if game.result is Result.BOTH_FORFEIT:
        return _higher_seed(tournament, game.first, game.second)
    first, _ = game.result.scores()
    return game.first if first else game.second


def _higher_seed(tournament: Tournament, one: int, two: int) -> int:
    order = [e.player for e in seeded(tournament.entrants)]
    return min(one, two, key=order.index)


def winners(tournament: Tournament) -> list[int]:
    """Who goes through from the last round, in bracket order (ValueError while a match is undecided)."""
    found = []
    for game in matches(tournament.rounds[-1]):
        through = winner(tournament, game)
        if through is None:
            raise ValueError("the last round has undecided games")
        found.append(through)
    return found


def replays(tournament: Tournament) -> tuple[Game, ...]:
    """The games to add to the last round: a drawn match replayed (the other player moves first), when the draw
    rule says so."""
    if not tournament.rounds or tournament.settings.draw_rule is not DrawRule.REPLAY:
        return ()
    return tuple(Game(game.second, game.first) for game in matches(tournament.rounds[-1])
                 if game.second is not None and game.result is Result.DRAW)


def finished(tournament: Tournament) -> bool:
    return (len(tournament.rounds) >= rounds_of(len(tournament.entrants))
            and all(winner(tournament, game) is not None for game in matches(tournament.rounds[-1])))
