"""Issue 15, point 6: every Game of the Generals picture within its size budget, the same bytes in any process.

The largest pictures are those of a finished game: every piece of both armies revealed with its insignia.
(Time per picture is a benchmark figure, not a test: `python -m tests.tools.bench_render`.)
"""

from __future__ import annotations

import hashlib
import io
import itertools
import random
import subprocess
import sys
from pathlib import Path

from PIL import Image

from bot.games.generals.canvas import font, wrap
from bot.games.generals.encode import png
from bot.games.generals.pictures import IMAGE_H, SIZE_BUDGET, render_player_board, render_public_board, size_budget
from games.generals import GeneralsState, random_setup

ROOT = Path(__file__).resolve().parents[2]


def _finished(seed: int) -> GeneralsState:
    """A random game played to its end, with most of both armies still on the board."""
    rng = random.Random(seed)
    while True:
        state = GeneralsState.from_setups(random_setup(rng, 0), random_setup(rng, 1), first=rng.randrange(2))
        while (seat := state.current_player()) is not None:
            state = state.apply(seat, rng.choice(list(state.legal_actions(seat))))
        reveal = state.public_view().reveal
        assert reveal is not None
        if len(reveal.pieces) >= 34:
            return state


def _pictures(state: GeneralsState) -> list[bytes]:
    return [render_public_board(state.public_view()), render_player_board(state.view_for(0)),
            render_player_board(state.view_for(1))]


def _decode(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def test_a_finished_game_fully_revealed_fits_the_budget() -> None:
    # Before the budget these were 24-26 KiB: both armies' insignia, anti-aliased, deflated at level 6. A picture
    # whose header or footer needs more than two lines each (issue 23: texts are never cut) has 1 KiB more for
    # each further line.
    for seed in (1, 2, 3):
        for picture in _pictures(_finished(seed)):
            height = _decode(picture).height
            assert len(picture) <= size_budget(height) <= SIZE_BUDGET + 1024 * 5
    assert size_budget(IMAGE_H) == SIZE_BUDGET == 20 * 1024


def test_bands_deflated_again_give_the_same_picture() -> None:
    # Every band deflated a second time, on its own (a budget no picture meets): the pixels do not change.
    picture = _decode(render_public_board(_finished(1).public_view()))
    assert picture.mode == "P"
    harder = _decode(png(picture, 7, budget=1))
    assert harder.tobytes() == picture.tobytes() and harder.getpalette() == picture.getpalette()
    assert len(png(picture, 7, budget=1)) < len(png(picture, 7))


def test_the_same_view_gives_the_same_bytes_in_another_process() -> None:
    # The bot draws in worker processes: a redraw by another process must not differ (nor count as an edit).
    script = ("import hashlib\nfrom tests.bot.test_generals_picture_budget import _finished, _pictures\n"
              "print(' '.join(hashlib.sha256(p).hexdigest() for p in _pictures(_finished(2))))")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          check=True)
    here = " ".join(hashlib.sha256(p).hexdigest() for p in _pictures(_finished(2)))
    assert done.stdout.strip() == here


def test_long_texts_wrap_at_the_last_word_that_fits() -> None:
    face = font(28)
    text = "Game over after 105 moves: Opponent won (the Flag was captured) and a few more words to wrap"
    lines = wrap(text, 28, 400, 5)
    assert " ".join(lines) == text
    for line, following in itertools.pairwise(lines):
        assert face.getlength(line) <= 400 < face.getlength(f"{line} {following.split(' ')[0]}")
    assert wrap("short", 28, 400, 1) == ["short"]
    assert wrap(text, 28, 400, 1)[0].endswith("…")
