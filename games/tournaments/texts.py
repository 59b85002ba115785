"""Words players read about tournaments: the formats, the tie-breaks, the knockout draw rules and the bye, each a
name and a short explanation (shown when a tournament is made, in its announcement and beside its standings)."""

from __future__ import annotations

from collections.abc import Sequence

from games.text import Text, TextIn
from games.tournaments.model import DrawRule, Format, Tiebreak

# Translators: a tournament format's name, as in a menu ("Format: Swiss").
_FORMAT_NAMES: dict[Format, Text] = {
    Format.SWISS: TextIn("tournament format", "Swiss"),
    Format.ROUND_ROBIN: TextIn("tournament format", "Round robin"),
    Format.KNOCKOUT: TextIn("tournament format", "Knockout"),
    Format.TABLES: TextIn("tournament format", "So Long Sucker tables"),
}
_FORMATS: dict[Format, Text] = {
    Format.SWISS: Text(
        "A set number of rounds. Each round you meet someone with the same score (or as close as possible) whom you "
        "have not met yet, and who moves first alternates. Nobody is knocked out."),
    Format.ROUND_ROBIN: Text(
        "Everyone plays everyone, once (or twice, moving first once each, in a double round robin). The rounds are "
        "fixed from the start by Berger tables."),
    Format.KNOCKOUT: Text(
        "Seeded by rating: the top seed meets the lowest, and so on. Whoever wins goes through to the next round; "
        "the last one standing wins. When the number of players is not a power of two, the top seeds skip the "
        "first round."),
    Format.TABLES: Text(
        "Each round seats players at So Long Sucker tables of 4 (3 or 5 when the numbers need it), players with "
        "similar scores together, and nobody at a table with the same person twice while it can be avoided. Each "
        "place at a table scores points."),
}
# Translators: a tie-break's name, as a column heading of the standings.
_TIEBREAK_NAMES: dict[Tiebreak, Text] = {
    Tiebreak.BUCHHOLZ: TextIn("tie-break", "Buchholz"),
    Tiebreak.BUCHHOLZ_CUT_1: TextIn("tie-break", "Buchholz cut 1"),
    Tiebreak.SONNEBORN_BERGER: TextIn("tie-break", "Sonneborn-Berger"),
    Tiebreak.DIRECT_ENCOUNTER: TextIn("tie-break", "Direct encounter"),
    Tiebreak.WINS: TextIn("tie-break", "Wins"),
    Tiebreak.TABLE_MATES: TextIn("tie-break", "Table-mates' points"),
    Tiebreak.TABLES_WON: TextIn("tie-break", "Tables won"),
    Tiebreak.FINISHED_AHEAD: TextIn("tie-break", "Finished ahead"),
}
_TIEBREAKS: dict[Tiebreak, Text] = {
    Tiebreak.BUCHHOLZ: Text(
        "The sum of your opponents' points: who you played counts. A bye or a round without a game counts as an "
        "opponent with your own points."),
    Tiebreak.BUCHHOLZ_CUT_1: Text("Buchholz without your weakest opponent's points."),
    Tiebreak.SONNEBORN_BERGER: Text(
        "Your opponents' points, each counted in full for a win and by half for a draw: beating strong players "
        "counts most."),
    Tiebreak.DIRECT_ENCOUNTER: Text("The points you scored in your games against the players you are tied with."),
    Tiebreak.WINS: Text("The number of games you won."),
    Tiebreak.TABLE_MATES: Text(
        "The sum of the points of everyone you sat at a table with, each time: points won at strong tables count "
        "most."),
    Tiebreak.TABLES_WON: Text("The number of tables you won."),
    Tiebreak.FINISHED_AHEAD: Text(
        "At tables you shared with the players you are tied with: how many of them you finished ahead of, less how "
        "many finished ahead of you."),
}
_TABLE_TIEBREAKS: dict[Tiebreak, Text] = {
    Tiebreak.BUCHHOLZ: Text("The sum of the points of everyone you sat at a table with."),
    Tiebreak.WINS: Text("The number of tables you won."),
}
# Translators: how a drawn knockout game is settled, shown when the tournament is made and in its announcement.
_DRAW_RULES: dict[DrawRule, Text] = {
    DrawRule.REPLAY: Text("A drawn game is played again, the other player moving first, until someone wins."),
    DrawRule.HIGHER_SEED: Text("After a draw, the higher seed (the higher rating at the start) goes through."),
    DrawRule.SECOND_MOVER: Text("After a draw, the player who moved second goes through."),
}
assert set(_FORMAT_NAMES) == set(_FORMATS) == set(Format)
assert set(_TIEBREAK_NAMES) == set(_TIEBREAKS) == set(Tiebreak)
assert set(_DRAW_RULES) == set(DrawRule)


def format_name(fmt: Format) -> Text:
    return _FORMAT_NAMES[fmt]


def format_explanation(fmt: Format) -> Text:
    return _FORMATS[fmt]


def tiebreak_name(tiebreak: Tiebreak) -> Text:
    return _TIEBREAK_NAMES[tiebreak]


def tiebreak_explanation(tiebreak: Tiebreak, fmt: Format = Format.SWISS) -> Text:
    """What a tie-break counts, in the words of its format (at So Long Sucker tables Buchholz sums table-mates)."""
    if fmt is Format.TABLES and tiebreak in _TABLE_TIEBREAKS:
        return _TABLE_TIEBREAKS[tiebreak]
    return _TIEBREAKS[tiebreak]


def draw_rule(rule: DrawRule) -> Text:
    return _DRAW_RULES[rule]


def bye(player: object, points: float) -> Text:
    """That `player` (a mention, a name) has this round's bye, and what it scores."""
    if points >= 1:
        return Text("🛋️ {player} has a bye this round (no opponent): it counts as a win.", player=player)
    if points > 0:
        return Text("🛋️ {player} has a bye this round (no opponent): it counts as a draw.", player=player)
    return Text("🛋️ {player} has a bye this round (no opponent): it scores nothing.", player=player)


# Translators: beside a player in the standings who has left the tournament.
WITHDRAWN = TextIn("tournament standings", "withdrawn")


def place_points(points: Sequence[float]) -> Text:
    """A table's points by place, e.g. "4 / 2 / 1 / 0 points by place"."""
    return Text("{points} points by place", points=" / ".join(f"{p:g}" for p in points))
