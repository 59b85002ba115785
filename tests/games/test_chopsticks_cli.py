"""The analysts' command line: python -m games.chopsticks moves | solve | count | rules | variants."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys

import pytest

from games.chopsticks.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out.splitlines(), err


def test_moves_lists_texts_and_resulting_codes(capsys: pytest.CaptureFixture[str]) -> None:
    status, lines, _ = run(capsys, "moves", "1312")
    assert status == 0
    assert [line.split()[:2] for line in lines] == [
        ["AC", "2213"], ["AD", "1313"], ["BC", "2413"], ["BD", "0113"], ["13-22", "1222"]]
    _, lines, _ = run(capsys, "moves", "111211")  # three players, taken from the code's length
    assert [line.split()[0] for line in lines] == ["AC", "AD", "AE"]
    _, lines, _ = run(capsys, "moves", "1201", "--variant", "suicide")
    assert lines[-1].split()[:2] == ["12-03", "0103"]
    _, lines, _ = run(capsys, "moves", "1114/33", "--variant", "sudden-death", "--lives", "3")
    assert lines[-1].split()[:2] == ["AD", "0111/23"]
    _, lines, _ = run(capsys, "moves", "0014")
    assert lines == ["0014: the game is over (won by the seat(s) 2 in code order)"]


def test_solve_prints_the_value_and_best_moves(capsys: pytest.CaptureFixture[str]) -> None:
    status, lines, _ = run(capsys, "solve", "1111")
    assert status == 0
    assert lines[:2] == ["1111: draw for the player to move (225 positions solved)", "best: AC"]
    _, lines, _ = run(capsys, "solve", "1111", "--preset", "cutoff-self-attack")
    assert lines[:2] == ["1111: win in 23 plies for the player to move (225 positions solved)", "best: AB"]
    _, lines, _ = run(capsys, "solve", "1111", "--variant", "cutoff", "--variant", "suicide")
    assert lines[0].startswith("1111: loss in 26 plies")
    _, lines, _ = run(capsys, "solve", "1401")
    assert lines[1] == "best: BD" and lines[3].split() == ["BD", "0014", "win", "in", "1", "ply"]


def test_count(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "count", "--players", "3")[1] == ["3337"]
    assert run(capsys, "count")[1] == ["204"]
    assert run(capsys, "count", "--variant", "suicide", "--variant", "meta", "--variant", "sans")[1] == ["210"]
    assert run(capsys, "count", "--start", "4444")[1] == run(capsys, "count", "--variant", "sans")[1] == ["206"]


def test_rules_and_variants(capsys: pytest.CaptureFixture[str]) -> None:
    _, lines, _ = run(capsys, "rules", "--preset", "halves")
    assert any(line.startswith("halves: ") for line in lines)
    _, lines, _ = run(capsys, "variants")
    assert lines[0].startswith("cutoff: ") and "preset standard: the official rules" in lines


@pytest.mark.parametrize(("argv", "message"), [
    (["moves", "2134"], "Write each player's hands in ascending order"),
    (["moves", "12"], "2 to 6 players"),
    (["moves", "111", "--hands", "2"], "a code has 2 characters per player"),
    (["moves", "1111", "--variant", "zombie"], "Zombie needs at least 3 players"),
    (["solve", "111111"], "2-player positions only"),
    (["solve", "11111111", "--hands", "4", "--rollover", "10"], "the solver handles at most 50,000"),
    (["count", "--players", "x"], "invalid int value"),
    (["count", "--preset", "chaos"], "There is no preset 'chaos'"),
    (["fly"], "invalid choice"),
    ([], "the following arguments are required"),
])
def test_errors_are_one_line_and_status_2(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    status, lines, err = run(capsys, *argv)
    assert status == 2 and lines == []
    assert err.count("\n") == 1 and err.startswith("chopsticks: error: ") and message in err


def test_runs_as_a_module() -> None:
    done = subprocess.run([sys.executable, "-m", "games.chopsticks", "moves", "1211"], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0 and [line.split()[1] for line in done.stdout.splitlines()] == ["1212", "1312"]
    bad = subprocess.run([sys.executable, "-m", "games.chopsticks", "moves", "9"], capture_output=True, text=True,
                         check=False)
    assert bad.returncode == 2 and bad.stdout == "" and bad.stderr.count("\n") == 1


def test_a_reader_that_stops_early_ends_it_quietly() -> None:
    # Issue 14, point 6: `python -m games.chopsticks solve 1111 --preset cutoff | head -3`. A pipe whose reader has
    # already gone makes the first write fail every time (the race with `head` made it fail only sometimes).
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run([sys.executable, "-m", "games.chopsticks", "solve", "1111", "--preset", "cutoff"],
                              stdout=write_end, stderr=subprocess.PIPE, text=True, check=False, timeout=60)
    finally:
        os.close(write_end)
    assert done.stderr == ""  # no BrokenPipeError traceback, not even "Exception ignored" at exit
    assert done.returncode == 1  # Python's recipe for a closed pipe (see the `signal` module's docs)
    piped = subprocess.run(f"{shlex.quote(sys.executable)} -m games.chopsticks solve 1111 --preset cutoff | head -3",
                           shell=True, capture_output=True, text=True, check=False, timeout=60)
    assert piped.stderr == "" and piped.stdout.startswith("1111: draw for the player to move")
