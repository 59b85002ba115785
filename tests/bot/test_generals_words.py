"""Game of the Generals in every language we speak, without Discord: the rules page names each rank as the boards
do, the pictures and the text board are drawn in the language of their board (the same bytes for the same view and
language), and the notation stays the same in all of them."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator

import pytest
from PIL import Image

from bot.games.generals import canvas
from bot.games.generals.own_board import knowledge_lines
from bot.games.generals.pictures import HEADER, render_player_board, render_public_board, text_board
from bot.games.generals.words import deduction_words
from bot.i18n import LANGUAGES, Say, render
from games.generals import GeneralsState, Rank, Settings
from games.generals.description import DESCRIPTION
from games.generals.pieces import ABBREVIATIONS, FULL_ARMY, SMALL_ARMY, TITLES
from tests.bot.test_render_generals import _midgame

TIMES = "\N{MULTIPLICATION SIGN}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_rules_name_every_rank_and_the_small_army_as_the_boards_do(language: str) -> None:
    rules = render(DESCRIPTION.rules, language)
    assert len(rules) <= 4000 and all(len(line) <= 1024 for line in rules.splitlines())
    for rank in sorted(set(FULL_ARMY), reverse=True):
        count = FULL_ARMY.count(rank)
        named = f"`{ABBREVIATIONS[rank]}` {render(TITLES[rank], language)}" + (f" {TIMES}{count}" if count > 1 else "")
        assert named in rules, named
    small = ", ".join(r.abbreviation + (f" {TIMES}{SMALL_ARMY.count(r)}" if SMALL_ARMY.count(r) > 1 else "")
                      for r in sorted(set(SMALL_ARMY), reverse=True))
    assert f"({small})" in rules
    assert "`e3-e4`" in rules and "1000" in rules  # the notation, and the largest no-challenge-draw


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_rank_has_its_own_name(language: str) -> None:
    names = [render(TITLES[rank], language) for rank in Rank]
    assert len(set(names)) == len(names)


def test_russian_ranks_are_the_established_military_ones() -> None:
    said = {rank: render(TITLES[rank], "ru") for rank in Rank}
    assert said[Rank.GENERAL_5] == "Генерал пяти звёзд" and said[Rank.COLONEL] == "Полковник"
    assert said[Rank.LIEUTENANT_COLONEL] == "Подполковник" and said[Rank.PRIVATE] == "Рядовой"
    assert said[Rank.SPY] == "Шпион" and said[Rank.FLAG] == "Флаг"


def test_deductions_read_as_words_a_newcomer_knows() -> None:
    # Issue 23, defect 4: deductions read "≥LTC SPY", "e1 >=1G", "PVT-4G x2".
    settings = Settings()
    army = frozenset(settings.army)

    def said(possible: frozenset[Rank], language: str = "en", short: bool = False) -> str:
        words = deduction_words(possible, settings, short)
        return "" if words is None else render(words, language)

    officers = frozenset(r for r in army if r >= Rank.MAJOR)
    assert said(army) == "" and said(army - {Rank.FLAG}) == "not the Flag"
    assert deduction_words(army - {Rank.FLAG}, Settings(show_flag=True)) is None  # known from the start: no news
    assert said(officers) == "Major or higher" and said(officers, short=True) == "Major+"
    assert said(officers, "ru") == "Майор или выше"
    assert said(frozenset({Rank.SPY, *(r for r in army if r >= Rank.COLONEL)}), short=True) == "Spy or Colonel+"
    assert said(frozenset({Rank.SPY, Rank.LIEUTENANT_COLONEL, Rank.COLONEL, *(r for r in army if r > Rank.COLONEL)}),
                "ru", short=True) == "Шпион или Подполк.+"
    assert said(frozenset(r for r in army if r >= Rank.GENERAL_1)) == "1★ General or higher"
    assert said(frozenset(r for r in army if r >= Rank.GENERAL_1), short=True) == "1-star Gen.+"
    assert said(frozenset({Rank.FLAG, Rank.SPY, Rank.PRIVATE})) == "Private or lower"
    assert said(frozenset(r for r in army if Rank.PRIVATE <= r <= Rank.GENERAL_2), short=True) == \
        "Private to 2-star Gen."
    assert said(frozenset({Rank.PRIVATE})) == "Private"
    for language in LANGUAGES:
        for possible in (officers, army - {Rank.FLAG}, frozenset({Rank.SPY, Rank.GENERAL_5})):
            for short in (False, True):
                assert not {"≥", "≤", ">=", "<=", "LTC", "PVT", "/"} & set(said(possible, language, short).split())


def test_what_a_player_knows_is_said_in_words_on_their_board() -> None:
    # A's Private challenges and loses: A knows the piece on e5 is a Sergeant or higher.
    state = GeneralsState.from_board({"e4": "PVT", "a1": "FLG", "e5": "maj", "d5": "pvt", "i8": "flg"})
    view = state.apply_text(0, "e4-e5").view_for(0)
    assert knowledge_lines(view, Say("en")) == ["e5: Sergeant or higher"]
    assert knowledge_lines(view, Say("ru")) == ["e5: Сержант или выше"]


def _header_and_board(png: bytes) -> tuple[bytes, bytes]:
    image = Image.open(io.BytesIO(png)).convert("RGB")
    header, board = (0, 0, image.width, HEADER), (0, HEADER, image.width, HEADER + 600)
    return image.crop(header).tobytes(), image.crop(board).tobytes()


def test_pictures_are_drawn_in_the_language_of_their_board() -> None:
    state = _midgame()
    draws: list[Callable[[str], bytes]] = [
        lambda language: render_player_board(state.view_for(0), language=language),
        lambda language: render_public_board(state.public_view(), language=language)]
    for draw in draws:
        english, russian = draw("en"), draw("ru")
        assert draw("ru") == russian and draw("en") == english  # the same bytes for the same view and language
        headers, boards = zip(_header_and_board(english), _header_and_board(russian), strict=True)
        assert headers[0] != headers[1] and boards[0] == boards[1]  # the words differ, the board does not
    assert render_player_board(state.view_for(0)) == render_player_board(state.view_for(0), language="en")


def test_the_text_board_speaks_its_readers_language_and_keeps_the_notation() -> None:
    state = _midgame()
    english, russian = text_board(state.view_for(1)), text_board(state.view_for(1), "ru")
    assert "in CAPITALS" in english and "ЗАГЛАВНЫМИ" in russian and "in CAPITALS" not in russian
    assert [line for line in english.splitlines() if line[:2].strip().isdigit()] == \
        [line for line in russian.splitlines() if line[:2].strip().isdigit()]  # the same squares and pieces
    over = GeneralsState.from_board({"e4": "MAJ", "e5": "flg", "a1": "FLG"}, to_move=0)
    done = over.apply(0, over.parse_action("e4-e5"))
    assert "Партия окончена после 1 хода: Вы победили (Флаг захвачен)" in text_board(done.view_for(0), "ru")
    assert "Game over after 1 move: You won (the Flag was captured)" in text_board(done.view_for(0))


@pytest.fixture
def no_cyrillic_font(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(canvas, "UNICODE_FONTS", ("/nonexistent/DejaVuSans.ttf",))
    canvas._unicode_font.cache_clear()
    canvas.font.cache_clear()
    yield
    canvas._unicode_font.cache_clear()
    canvas.font.cache_clear()


def test_without_a_font_for_its_letters_a_picture_keeps_its_words_in_english(no_cyrillic_font: None) -> None:
    view = _midgame().view_for(0)
    assert render_player_board(view, language="ru") == render_player_board(view, language="en")


def test_a_rank_in_a_sentence_is_named_in_words_not_in_capitals() -> None:
    """Issue 23: "Last: You e4-e5, challenge: defender won (your SPY)" read as shouting; a sentence names the rank."""
    state = GeneralsState.from_board({"e4": "SPY", "a1": "FLG", "e5": "pvt", "i8": "flg"})
    lost = state.apply_text(0, "e4-e5")  # a Private eliminates the Spy that attacks it
    said = {language: next(line for line in text_board(lost.view_for(0), language).splitlines() if "e4-e5" in line)
            for language in ("en", "ru")}
    assert said["en"].endswith("(your Spy)") and "(ваш Шпион)" in said["ru"], said
    both = GeneralsState.from_board({"e4": "SPY", "a1": "FLG", "e5": "pvt", "i8": "flg"},
                                    Settings.from_options({"variants": ["reveal-winner"]}))
    told = next(line for line in text_board(both.apply_text(0, "e4-e5").view_for(0)).splitlines() if "e4-e5" in line)
    assert told.endswith("(your Spy vs Private)") and "SPY" not in told and "PVT" not in told, told
