"""The Game of the Generals renderer: PNGs that decode, determinism, no leaks, highlights, the reveal."""

from __future__ import annotations

import io
import random
import re

import pytest
from PIL import Image

from bot.games.generals import pictures
from bot.games.generals.canvas import loaded_sizes, measure
from bot.games.generals.insignia import MARK_SIZE, TILE, blank_tile, piece_mark, rank_tile
from bot.games.generals.legend import render_legend
from bot.games.generals.pictures import (
    CELL,
    CHALLENGE,
    DETAIL,
    HEADER,
    HIGHLIGHT_FROM,
    HIGHLIGHT_TO,
    HINT,
    IMAGE_H,
    IMAGE_W,
    LABEL,
    LINE,
    MARGIN,
    MIDLINE,
    PALETTE,
    PICK_EDGE,
    SELECTED,
    SQUARE_FILL,
    TEXT_COLUMNS,
    TEXT_LIMIT,
    TEXT_MIN,
    TEXT_X,
    TILE_PAD,
    render_player_board,
    render_public_board,
    text_board,
)
from games.generals import GeneralsState, Rank, Settings, formation
from games.generals.setup import Grid
from games.generals.squares import file_of, parse_square, rank_of


def _decode(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    image.load()
    return image


def _board_top(png: bytes) -> int:
    """Where the board's first row starts on a picture: below a header of two lines or more (its dark frame)."""
    image = _decode(png).convert("RGB")
    return next(y for y in range(HEADER, image.height) if image.getpixel((MARGIN + 3, y)) == MIDLINE) + 2


def _square_box(name: str, bottom: int, png: bytes | None = None) -> tuple[int, int, int, int]:
    """Where square `name` is on the picture of the side `bottom`: left, top, right, bottom (exclusive)."""
    sq = parse_square(name)
    assert sq is not None
    col, row = file_of(sq), 8 - rank_of(sq)
    if bottom == 1:
        col, row = 8 - col, 7 - row
    x0, y0 = MARGIN + col * CELL, (HEADER + MARGIN if png is None else _board_top(png)) + row * CELL
    return x0, y0, x0 + CELL, y0 + CELL


def _corner_pixel(png: bytes, name: str, bottom: int, dx: int = 3, dy: int = 3) -> tuple[int, ...]:
    """A pixel inside square `name` but outside any piece tile (its top-left corner; or `dx`, `dy` from it)."""
    x0, y0, _, _ = _square_box(name, bottom, png)
    pixel = _decode(png).convert("RGB").getpixel((x0 + dx, y0 + dy))
    assert isinstance(pixel, tuple)
    return pixel


def _colours(png: bytes, name: str, bottom: int) -> set[tuple[int, ...]]:
    """The colours inside the tile on square `name` (its rim left out)."""
    x0, y0, x1, y1 = _square_box(name, bottom, png)
    inset = TILE_PAD + 6
    tile = _decode(png).convert("RGB").crop((x0 + inset, y0 + inset, x1 - inset, y1 - inset))
    return {colour for _, colour in tile.getcolors(CELL * CELL) or [] if isinstance(colour, tuple)}


def _midgame(grid_b: Grid | None = None, plies: int = 12) -> GeneralsState:
    """Both formations in, then `plies` quiet moves (never a challenge) chosen by a fixed seed."""
    rng = random.Random(7)
    grid_a = formation("balanced", rng, 0)
    default_b = formation("blitz", rng, 1)
    state = GeneralsState.from_setups(grid_a, grid_b or default_b)
    pick = random.Random(11)
    for _ in range(plies):
        seat = state.current_player()
        assert seat is not None
        quiet = [a for a in state.legal_actions(seat) if state.piece_at(a.dst) is None]  # type: ignore[attr-defined]
        state = state.apply(seat, pick.choice(quiet))
    return state


def _b_exchanged() -> tuple[Grid, Grid]:
    """Two setups for side B on the same squares: the 5★ General and the Flag exchange places, as do a Spy
    and a Private."""
    rng = random.Random(7)
    formation("balanced", rng, 0)
    grid = formation("blitz", rng, 1)
    cells = list(grid)
    for a, b in ((Rank.GENERAL_5, Rank.FLAG), (Rank.SPY, Rank.PRIVATE)):
        i, j = cells.index(a), cells.index(b)
        cells[i], cells[j] = cells[j], cells[i]
    return grid, tuple(cells)


def test_png_decodes_with_the_right_size() -> None:
    state = _midgame()
    for png in (render_player_board(state.view_for(0)), render_player_board(state.view_for(1)),
                render_public_board(state.public_view())):
        assert png.startswith(b"\x89PNG\r\n\x1a\n")
        image = _decode(png)
        assert image.size == (IMAGE_W, IMAGE_H)
        assert 600 <= IMAGE_W <= 700


def test_same_view_same_bytes() -> None:
    state = _midgame()
    assert render_player_board(state.view_for(0)) == render_player_board(state.view_for(0))
    assert render_public_board(state.public_view()) == render_public_board(_midgame().public_view())
    assert text_board(state.view_for(1)) == text_board(_midgame().view_for(1))


def test_hidden_ranks_of_b_change_nothing_a_or_the_channel_receives() -> None:
    grid1, grid2 = _b_exchanged()
    assert grid1 != grid2
    worlds = [_midgame(grid1), _midgame(grid2)]
    assert worlds[0].view_for(1) != worlds[1].view_for(1)  # B's own board does differ
    a_png = [render_player_board(s.view_for(0)) for s in worlds]
    pub_png = [render_public_board(s.public_view()) for s in worlds]
    a_text = [text_board(s.view_for(0)) for s in worlds]
    pub_text = [text_board(s.public_view()) for s in worlds]
    assert a_png[0] == a_png[1]
    assert pub_png[0] == pub_png[1]
    assert a_text[0] == a_text[1]
    assert pub_text[0] == pub_text[1]
    assert render_player_board(worlds[0].view_for(1)) != render_player_board(worlds[1].view_for(1))


def test_hidden_ranks_after_a_challenge_leak_nothing() -> None:
    # Same squares, same ruling (the Major beats both a Private and a Sergeant); the rest exchanged.
    s1 = GeneralsState.from_board({"e4": "MAJ", "a1": "FLG", "e5": "pvt", "d7": "5g", "i8": "flg"})
    s2 = GeneralsState.from_board({"e4": "MAJ", "a1": "FLG", "e5": "sgt", "d7": "flg", "i8": "5g"})
    s1, s2 = s1.apply_text(0, "e4-e5"), s2.apply_text(0, "e4-e5")
    assert render_player_board(s1.view_for(0)) == render_player_board(s2.view_for(0))
    assert render_public_board(s1.public_view()) == render_public_board(s2.public_view())
    assert text_board(s1.view_for(0)) == text_board(s2.view_for(0))
    assert text_board(s1.public_view()) == text_board(s2.public_view())


def test_last_move_is_highlighted() -> None:
    before = GeneralsState.from_board({"e3": "MAJ", "a1": "FLG", "i8": "flg", "a7": "pvt"})
    after = before.apply_text(0, "e3-e4")
    for seat in (0, 1):
        png = render_player_board(after.view_for(seat))
        assert _corner_pixel(png, "e3", seat) == HIGHLIGHT_FROM
        assert _corner_pixel(png, "e4", seat) == HIGHLIGHT_TO
        assert _corner_pixel(render_player_board(before.view_for(seat)), "e4", seat) != HIGHLIGHT_TO
    public = render_public_board(after.public_view())
    assert _corner_pixel(public, "e4", 0) == HIGHLIGHT_TO
    assert "*MJ" in text_board(after.view_for(0))
    assert "*A?" in text_board(after.view_for(1))


def test_player_boards_are_drawn_from_their_own_side() -> None:
    state = _midgame()
    rows_a = [line for line in text_board(state.view_for(0)).splitlines() if line[:2].strip().isdigit()]
    rows_b = [line for line in text_board(state.view_for(1)).splitlines() if line[:2].strip().isdigit()]
    assert rows_a[0].startswith("8 ") and rows_a[-1].startswith("1 ")
    assert rows_b[0].startswith("1 ") and rows_b[-1].startswith("8 ")


def test_reveal_shows_every_rank_for_both_sides() -> None:
    state = GeneralsState.from_board({"e4": "MAJ", "a1": "FLG", "c2": "spy", "e5": "flg", "a8": "pvt"})
    assert "spy" not in text_board(state.view_for(0)) and "pvt" not in text_board(state.public_view())
    over = state.apply_text(0, "e4-e5")
    assert over.outcome() is not None
    for text in (text_board(over.view_for(0)), text_board(over.view_for(1)), text_board(over.public_view())):
        grid = text.split("```")[1]
        assert "MJ" in grid and "FL" in grid  # side A
        assert "sp" in grid and "pv" in grid  # side B
        assert "B (black) lost: " in text and "Spy, Flag" in text  # from_board: pieces not placed count as lost
        assert len(text) <= TEXT_LIMIT
    assert render_player_board(over.view_for(0)) != render_player_board(state.view_for(0))


def test_text_boards_fit_a_code_block() -> None:
    state = _midgame(plies=40)
    for text in (text_board(state.view_for(0)), text_board(state.view_for(1)), text_board(state.public_view())):
        assert len(text) <= TEXT_LIMIT
        assert text.count("```") == 2  # one code block, the grid, in the embed it goes into
    edge = "   a  b  c  d  e  f  g  h  i"
    assert edge in text_board(state.public_view()) and edge[::-1].strip() in text_board(state.view_for(1))


def test_a_text_board_fits_a_phone_and_its_last_move_marks_keep_the_columns() -> None:
    """Issue 23: the text board was 50 columns wide (it wrapped on phones) and its last-move marks shifted columns.
    Its grid is now 28 characters wide (see pictures.py: about 29 to 31 fit an embed's code block at 360 px), every
    square 3 characters whatever it holds or whether it is marked, and only the grid is in the code block."""
    state = _midgame(plies=13)  # the last move, h3-h4, is marked on both squares
    for text in (text_board(state.view_for(0)), text_board(state.view_for(1)), text_board(state.public_view()),
                 text_board(state.view_for(0), "ru")):
        before, grid, after = text.split("```")
        lines = grid.strip("\n").splitlines()
        assert len(lines) == 11 and {len(line) for line in lines} == {TEXT_COLUMNS} and TEXT_COLUMNS <= 30, lines
        rows = [line for line in lines if line[0].isdigit()]
        marks = [(row, i) for row in rows for i, c in enumerate(row) if c == "*"]
        assert len(marks) == 2 and all(i % 3 == 1 for _, i in marks), marks  # in the gap before a square
        for row in rows:  # every square: its gap, then 2 characters (a code, `A?`/`B?`, or ` .`)
            squares = [row[i + 1:i + 3] for i in range(1, len(row), 3)]
            assert len(squares) == 9 and all(re.fullmatch(r" \.|[A-Z0-9?]{2}|[a-z0-9]{2}|[AB]\?", s) for s in squares)
        assert ("Move 14" in before or "Ход 14" in before) and ("CAPITALS" in after or "ЗАГЛАВНЫМИ" in after)


def test_every_rank_has_its_own_insignia_on_white_and_black_tiles() -> None:
    for seat in (0, 1):
        faces = {rank_tile(64, seat, rank).tobytes() for rank in Rank} | {blank_tile(64, seat).tobytes()}
        assert len(faces) == len(Rank) + 1  # fifteen insignia and the blank back, all different
    # Side A's pieces are white tiles, side B's black ones; pieces the viewer cannot see are blank.
    state = GeneralsState.from_board({"e4": "MAJ", "a1": "FLG", "e5": "pvt", "i8": "flg"})
    public = render_public_board(state.public_view())
    assert _colours(public, "e4", 0) == {TILE[0]} and _colours(public, "e5", 0) == {TILE[1]}
    mine = render_player_board(state.view_for(0))
    assert TILE[0] in _colours(mine, "e4", 0) and len(_colours(mine, "e4", 0)) > 2  # the Major's sun
    assert _colours(mine, "e5", 0) == {TILE[1]}


def test_a_challenge_and_a_picked_piece_are_marked() -> None:
    state = GeneralsState.from_board({"e4": "MAJ", "a1": "FLG", "e5": "pvt", "i8": "flg", "c3": "SGT"})
    after = state.apply_text(0, "e4-e5")
    for seat in (0, 1):
        png = render_player_board(after.view_for(seat))
        assert _corner_pixel(png, "e4", seat) == HIGHLIGHT_FROM
        assert _corner_pixel(png, "e5", seat) == CHALLENGE
    assert _corner_pixel(render_public_board(after.public_view()), "e5", 0) == CHALLENGE
    # The challenge stays marked after a quiet move, until the next challenge; the last move is marked too.
    later = after.apply_text(1, "i8-h8")
    assert later.public_view().challenge == after.public_view().last != later.public_view().last
    for seat in (0, 1):
        png = render_player_board(later.view_for(seat))
        assert _corner_pixel(png, "e5", seat) == CHALLENGE and _corner_pixel(png, "h8", seat) == HIGHLIGHT_TO
    assert _corner_pixel(render_public_board(later.public_view()), "e5", 0) == CHALLENGE
    picked = render_player_board(state.view_for(0), selected="c3")
    assert _corner_pixel(picked, "c3", 0) == SELECTED
    assert _corner_pixel(render_player_board(state.view_for(0)), "c3", 0) != SELECTED


def test_a_deduction_about_a_hidden_piece_stays_on_the_picture() -> None:
    # A's Private challenges and loses: A now knows the piece on e5 is a Sergeant or higher.
    state = GeneralsState.from_board({"e4": "PVT", "a1": "FLG", "e5": "maj", "d5": "pvt", "i8": "flg"})
    after = state.apply_text(0, "e4-e5")
    assert "e5: Sergeant or higher" in text_board(after.view_for(0))
    png = render_player_board(after.view_for(0))
    assert any(_near(colour, HINT[1]) for colour in _colours(png, "e5", 0))
    assert not any(_near(colour, HINT[1]) for colour in _colours(png, "d5", 0))  # nothing known: a blank tile
    assert _colours(png, "d5", 0) == {TILE[1]}


def _near(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    return sum(abs(x - y) for x, y in zip(a, b, strict=True)) < 24


def _sampler() -> list[bytes]:
    """Pictures with every kind of text: headers, deductions and their key, losses, a pick, the reveal, two
    languages."""
    state = GeneralsState.from_board({"e4": "PVT", "a1": "FLG", "e5": "maj", "d5": "pvt", "i8": "flg", "c3": "SGT"})
    after = state.apply_text(0, "e4-e5")
    over = GeneralsState.from_board({"e4": "MAJ", "a1": "FLG", "e5": "flg", "i8": "spy"}).apply_text(0, "e4-e5")
    out = []
    for language in ("en", "ru"):
        out += [render_player_board(after.view_for(0), "c3", language=language),
                render_player_board(after.view_for(1), language=language),
                render_public_board(after.public_view(), language=language),
                render_player_board(over.view_for(0), language=language),
                render_public_board(over.public_view(), language=language)]
    return out


def test_every_text_on_a_picture_is_at_least_28_px_at_694_px_wide() -> None:
    # Issue 23: phone-first. Measured as the font size (the em, in px) of every face the pictures draw with:
    # 28 px on a 694 px wide picture (14.5 px once Discord shows it 360 px wide), proportionally for another width.
    for png in (*_sampler(), render_legend("en"), render_legend("ru")):
        assert _decode(png).width == IMAGE_W
    assert loaded_sizes() and min(loaded_sizes()) >= 28 * IMAGE_W / 694
    assert TEXT_MIN >= 28 * IMAGE_W / 694 and MARK_SIZE >= TEXT_MIN


def test_the_mark_on_a_hidden_piece_fits_inside_it() -> None:
    tile = CELL - 2 * TILE_PAD
    for number in ("1", "9", "15"):
        mask = piece_mark(number)
        assert mask.width <= tile - 8 and mask.height <= tile - 8


@pytest.mark.parametrize("language", ["en", "ru"])
def test_the_header_wraps_onto_more_lines_and_never_cuts_a_word(language: str) -> None:
    # Issue 23, defect 3: "Last: Opponent d3-d2, challenge: attacker won (yo…". The longest last move: the opponent's
    # challenge beat the viewer's piece and, under reveal-winner, both ranks are named.
    state = GeneralsState.from_board({"d3": "LTC", "a1": "FLG", "d4": "5g", "i8": "flg", "c8": "pvt"},
                                     Settings(reveal_winner=True), to_move=1)
    view = state.apply_text(1, "d4-d3").view_for(0)
    png = render_player_board(view, language=language)
    board = pictures._player_board(view, language)
    lines = pictures._lines(((board.status, LABEL), (board.detail, DETAIL)), language)
    assert len(lines) > 2 and _board_top(png) == HEADER + MARGIN + (len(lines) - 2) * LINE  # the board moves down
    assert " ".join(text for text, _ in lines) == f"{board.status} {board.detail}"  # every word, none cut
    assert all(measure(text, TEXT_MIN, language) <= IMAGE_W - 2 * TEXT_X for text, _ in lines)
    assert ("Lt. Col." if language == "en" else "Подполк.") in board.detail


def test_the_losses_and_what_is_known_are_in_words_and_never_cut() -> None:
    # Issue 23, defect 4: "Потери соперника: 6 — PVT-2G x2 PVT-3G…". The opponent lost six pieces, each known only
    # as weaker than the piece that beat it; on the board, two pieces are known as "Spy or Colonel+".
    army = {"a1": "FLG", "i8": "flg", "a3": "3G", "b3": "4G", "c3": "LTC", "d3": "2G", "e3": "1G", "f3": "COL",
            "a4": "pvt", "b4": "pvt", "c4": "pvt", "d4": "pvt", "e4": "pvt", "f4": "sgt", "g6": "5g", "h6": "4g"}
    state = GeneralsState.from_board(army)
    for move, reply in (("a3-a4", "i8-h8"), ("b3-b4", "h8-i8"), ("c3-c4", "i8-h8"), ("d3-d4", "h8-i8"),
                        ("e3-e4", "i8-h8"), ("f3-f4", "h8-i8")):
        state = state.apply_text(0, move).apply_text(1, reply)
    view = state.view_for(0)
    for language, lost in (("en", "Opponent lost "), ("ru", "Потери соперника: ")):
        board = pictures._player_board(view, language)
        lines = [text for text, _ in pictures._lines(((line, LABEL) for line in board.footer), language)]
        said = " ".join(lines)
        assert lost in said and "…" not in said and "PVT" not in said and "-2G" not in said
        assert ("Private" if language == "en" else "Рядовой") in said
        assert all(measure(text, TEXT_MIN, language) <= IMAGE_W - 2 * TEXT_X for text in lines)
    text = text_board(view)
    assert "≥" not in text and ">=" not in text and "PVT-" not in text


def test_the_picked_piece_is_framed_thick_and_where_it_can_go_is_marked() -> None:
    # Issue 23, defect 4: the picked piece had a thin light-blue outline, nearly invisible on a white tile, and its
    # moves were not marked. c3's Sergeant can go to b3, d3 and c2 (empty) and challenge c4.
    state = GeneralsState.from_board({"c3": "SGT", "a1": "FLG", "c4": "pvt", "i8": "flg"})
    picked = render_player_board(state.view_for(0), selected="c3")
    plain = render_player_board(state.view_for(0))
    for inset in (1, 3, 6, 8):  # a frame at least 9 px thick, dark outside and blue inside
        assert _corner_pixel(picked, "c3", 0, inset, CELL // 2) in (SELECTED, PICK_EDGE)
        assert _corner_pixel(plain, "c3", 0, inset, CELL // 2) not in (SELECTED, PICK_EDGE)
    for square in ("b3", "d3", "c2"):  # a dot in the middle of each empty square it can move to
        assert _corner_pixel(picked, square, 0, CELL // 2, CELL // 2) == SELECTED
        assert _corner_pixel(plain, square, 0, CELL // 2, CELL // 2) == SQUARE_FILL
    assert _corner_pixel(picked, "c4", 0, 4, 4) in (SELECTED, PICK_EDGE)  # the corners of the piece it can challenge
    assert _corner_pixel(picked, "b4", 0, CELL // 2, CELL // 2) == SQUARE_FILL  # not a move
    # The opponent's turn: nothing can move, nothing is marked as a move.
    waiting = GeneralsState.from_board({"c3": "SGT", "a1": "FLG", "c4": "pvt", "i8": "flg"}, to_move=1)
    assert _corner_pixel(render_player_board(waiting.view_for(0), selected="c3"), "b3", 0, CELL // 2,
                         CELL // 2) == SQUARE_FILL


def test_every_picture_carries_the_one_fixed_palette() -> None:
    # Issue 15, point 6: the parts of a picture are converted to one palette once and pasted, so no picture is
    # quantized as a whole (most of the time a picture took); the flat colours are exact in it.
    state = _midgame()
    over = GeneralsState.from_board({"e4": "MAJ", "a1": "FLG", "e5": "flg", "i8": "spy"}).apply_text(0, "e4-e5")
    pngs = (render_player_board(state.view_for(0)), render_player_board(state.view_for(1), "a3"),
            render_public_board(state.public_view()), render_player_board(over.view_for(1)))
    fixed = [value for colour in PALETTE.colours for value in colour]
    assert all(_decode(png).getpalette() == fixed for png in pngs)
    assert {SQUARE_FILL, *TILE, HIGHLIGHT_FROM, CHALLENGE, SELECTED} <= set(PALETTE.colours)
