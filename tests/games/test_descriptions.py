"""The rules texts in the games' descriptions: each fits one Discord embed and says what its game needs said."""

from __future__ import annotations

import pytest

from bot.i18n import LANGUAGES, render
from games.chopsticks.rules import PRESETS, VARIANTS
from games.generals.pieces import ABBREVIATIONS, TITLES
from games.generals.rules import SETTING_NAMES
from games.registry import BUILTIN_ORDER, describe, descriptions

EMBED_DESCRIPTION = 4096  # Discord's limit on an embed's description
RULES_LIMIT = 4000  # what a description's rules may take, leaving room to spare


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("kind", BUILTIN_ORDER)
def test_every_built_in_game_has_rules_that_fit_one_embed(kind: str, language: str) -> None:
    rules = render(describe(kind).rules, language)
    assert rules.strip() and len(rules) <= RULES_LIMIT < EMBED_DESCRIPTION
    assert all(len(line) <= 1024 for line in rules.splitlines())  # readable paragraphs, not one wall of text


def test_every_description_keeps_its_summary_short() -> None:
    for game in descriptions():
        for language in LANGUAGES:
            summary = render(game.summary, language)
            assert summary and len(summary) <= 400


def test_chopsticks_rules_explain_the_notation_and_name_every_variant_and_preset() -> None:
    rules = str(describe("chopsticks").rules)  # the English
    for notation in ("`1312`", "`AC`", "`13-22`", "**A** and **B**", "/chopsticks analyze"):
        assert notation in rules
    for name, text in VARIANTS.items():
        assert f"`{name}`: {text}" in rules
    for name in PRESETS:
        assert f"`{name}`" in rules
    assert "`three-hands` (3 hands, rollover 7)" in rules and "`sudden-death` (sudden-death, 3 lives)" in rules


def test_generals_rules_explain_squares_ranks_challenges_and_settings() -> None:
    rules = str(describe("generals").rules)
    assert "`e3-e4`" in rules and "/generals move" in rules
    for rank, abbreviation in ABBREVIATIONS.items():
        assert f"`{abbreviation}` {TITLES[rank]}" in rules
    assert "`PVT` Private \N{MULTIPLICATION SIGN}6" in rules and "`SPY` Spy \N{MULTIPLICATION SIGN}2" in rules
    assert "**Challenges**" in rules and "loses to a Private" in rules and "never a rank" in rules
    for name in SETTING_NAMES:
        assert f"`{name}" in rules


def test_sucker_rules_teach_the_game_with_a_worked_example() -> None:
    rules = str(describe("sucker").rules)
    for topic in ("**Capture**", "**name the next player**", "**prisoners**", "**give**", "**kill**",
                  "**rescue**", "**defeated**", "**Winning**", "**Example**", "/sucker give", "/sucker kill"):
        assert topic in rules
    assert "lies deepest" in rules  # the forced choice when every colour is in the pile
    assert "**green captures**" in rules and "**red** would have captured" in rules  # not always the mover
