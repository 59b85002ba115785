"""A tournament's snapshot (versioned, validated) and the texts that name its formats, tie-breaks and rules."""

from __future__ import annotations

import json
from typing import Any

import pytest

from games.base import InvalidStateError
from games.text import Text
from games.tournaments import texts
from games.tournaments.model import (
    DrawRule,
    Entrant,
    Format,
    Game,
    Result,
    Round,
    Settings,
    Table,
    Tiebreak,
    Tournament,
    from_dict,
    to_dict,
)


def _sample() -> Tournament:
    settings = Settings(Format.SWISS, rounds=5, bye_points=0.5, tiebreaks=(Tiebreak.WINS, Tiebreak.BUCHHOLZ),
                        draw_rule=DrawRule.SECOND_MOVER, fillers=True)
    entrants = (Entrant(10, 1500.0), Entrant(20, 1400.5, joined=2, start_points=0.5),
                Entrant(30, 1300.0, left=3), Entrant(40, 1200.0))
    rounds = (Round(games=(Game(10, 30, Result.DRAW), Game(40, None))),
              Round(games=(Game(20, 10, Result.FIRST_FORFEITS), Game(30, 40))),
              Round(tables=(Table((10, None, 20, 40), (2, 1, 3, 4)),)))
    return Tournament(settings, entrants, rounds)


def test_a_snapshot_is_json_and_gives_the_same_tournament_back() -> None:
    tournament = _sample()
    data = json.loads(json.dumps(to_dict(tournament)))
    assert data["format"] == 1
    assert from_dict(data) == tournament


def _broken(change: Any) -> dict[str, Any]:
    data = json.loads(json.dumps(to_dict(_sample())))
    change(data)
    return data  # type: ignore[no-any-return]


@pytest.mark.parametrize("change", [
    lambda d: d.update(format=2),
    lambda d: d["settings"].update(format="ladder"),
    lambda d: d["settings"].update(rounds=True),
    lambda d: d["settings"]["place_points"].update({"4": [4, 2, 1]}),
    lambda d: d["entrants"].append([10, 1000, 1, 0, None]),  # an entrant twice
    lambda d: d["rounds"][0]["games"].append([40, 10, None]),  # 40 and 10 twice in round 1
    lambda d: d["rounds"][1]["games"].append([99, None, None]),  # someone who never entered
    lambda d: d["rounds"][1]["games"][0].__setitem__(2, "2-0"),
    lambda d: d["rounds"][2]["tables"][0].__setitem__(1, [1, 2]),
    lambda d: d.pop("entrants"),
])
def test_a_broken_snapshot_is_refused(change: Any) -> None:
    with pytest.raises(InvalidStateError):
        from_dict(_broken(change))


def test_every_format_tie_break_and_draw_rule_has_words_for_players() -> None:
    for fmt in Format:
        assert isinstance(texts.format_name(fmt), Text)
        assert str(texts.format_explanation(fmt)).endswith(".")
    for tiebreak in Tiebreak:
        assert str(texts.tiebreak_name(tiebreak))
        assert str(texts.tiebreak_explanation(tiebreak)).endswith(".")
    assert "sat at a table" in str(texts.tiebreak_explanation(Tiebreak.BUCHHOLZ, Format.TABLES))
    for rule in DrawRule:
        assert str(texts.draw_rule(rule)).endswith(".")
    assert str(texts.bye("<@1>", 1.0)).endswith("it counts as a win.")
    assert str(texts.bye("<@1>", 0.5)).endswith("it counts as a draw.")
    assert str(texts.bye("<@1>", 0.0)).endswith("it scores nothing.")
    assert str(texts.place_points((4.0, 2.0, 1.0, 0.0))) == "4 / 2 / 1 / 0 points by place"
