"""Command line for analysts: list moves, solve positions, count reachable positions.

    python -m games.chopsticks moves 1312
    python -m games.chopsticks solve 1111 --variant cutoff --variant self-attack
    python -m games.chopsticks count --players 3
    python -m games.chopsticks rules --preset sudden-death
    python -m games.chopsticks variants

Rule options use the bot's names: --players --hands --rollover --variant NAME (repeatable) --lives N --odd
--preset NAME. Without --players, moves and solve take the number of players from the code's length.
Errors print one line on stderr and exit with status 2. It speaks English only (the texts the bot translates are
printed as their English): it is a tool for analysts, not part of what players read.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from games.base import GameError
from games.chopsticks.counting import reachable_codes
from games.chopsticks.engine import ChopsticksState
from games.chopsticks.position import parse_table
from games.chopsticks.rules import MAX_PLAYERS, PRESETS, VARIANTS, Rules
from games.chopsticks.solver import solve

USAGE_ERROR = 2
BROKEN_PIPE = 1


class UsageError(Exception):
    """A bad command line; the message is printed as one line."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns the exit status."""
    parser = _build_parser()
    try:
        args = parser.parse_args(argv)
        lines = args.run(args)
    except (UsageError, GameError) as exc:
        print(f"chopsticks: error: {exc}", file=sys.stderr)
        return USAGE_ERROR
    try:
        print("\n".join(lines))
        sys.stdout.flush()  # here, not at exit, so that a closed pipe is caught below
    except BrokenPipeError:
        # The reader stopped reading (`... | head -3`): nothing is wrong. Python's recipe (see its `signal` docs):
        # point stdout at /dev/null so that the flush at exit does not fail again, and exit with status 1.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return BROKEN_PIPE
    return 0


def _build_parser() -> _Parser:
    parser = _Parser(prog="python -m games.chopsticks", description="Chopsticks analysis tools.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def add(name: str, help_text: str, run: Any, code: bool = False) -> _Parser:
        sub: _Parser = commands.add_parser(name, help=help_text, description=help_text)
        if code:
            sub.add_argument("code", help="position code, the player to move first (e.g. 1312)")
        _add_rule_options(sub)
        sub.set_defaults(run=run)
        return sub

    add("moves", "List the legal moves of a position and the code each leads to.", _moves, code=True)
    add("solve", "The value of a 2-player position for the player to move, and the best moves.", _solve,
        code=True)
    count = add("count", "Count positions reachable from the start, as the seed counts them.", _count)
    count.add_argument("--start", help="count from this position code instead of the start")
    add("rules", "Describe a rule set.", _rules)
    add("variants", "List the variants and presets.", _variants)
    return parser


def _add_rule_options(parser: _Parser) -> None:
    parser.add_argument("--players", type=int, help="number of players, 2 to 6")
    parser.add_argument("--hands", type=int, help="hands per player, 1 to 4 (default 2)")
    parser.add_argument("--rollover", type=int, help="fingers that kill a hand, 2 to 10 (default 5)")
    parser.add_argument("--variant", action="append", default=[], metavar="NAME", help="a variant; repeatable")
    parser.add_argument("--lives", type=int, help="lives per player with sudden-death")
    parser.add_argument("--odd", action="store_true", help="halves: odd totals split as evenly as possible")
    parser.add_argument("--preset", help=f"a named rule set: {', '.join(PRESETS)}")


def _rules_for(args: argparse.Namespace, code: str | None = None) -> Rules:
    options: dict[str, Any] = {"variants": list(args.variant)}
    for key in ("hands", "rollover", "lives", "preset"):
        if getattr(args, key) is not None:
            options[key] = getattr(args, key)
    if args.odd:
        options["odd"] = True
    players = args.players
    if players is None and code is not None:
        hands = Rules.from_options(MAX_PLAYERS, options).hands  # only to learn the hands per player
        body = code.strip().partition("/")[0]
        if not body or len(body) % hands:
            raise UsageError(f"a code has {hands} characters per player; {code!r} has {len(body)} in all")
        players = len(body) // hands
    return Rules.from_options(players if players is not None else 2, options)


def _moves(args: argparse.Namespace) -> list[str]:
    rules = _rules_for(args, args.code)
    state = ChopsticksState.from_code(args.code, rules)
    if state.outcome() is not None:
        return [f"{state.code()}: the game is over ({_result(state)})"]
    return [f"{a.text():<10} {state.apply(0, a).code():<14} {state.describe(a)}" for a in state.legal_actions(0)]


def _solve(args: argparse.Namespace) -> list[str]:
    rules = _rules_for(args, args.code)
    if rules.players != 2:
        raise UsageError("the solver handles 2-player positions only")
    state = ChopsticksState.from_code(args.code, rules)
    solution = solve(rules)
    lines = [f"{state.code()}: {solution.verdict(state).text()} for the player to move "
             f"({solution.size:,} positions solved)"]
    if state.outcome() is not None:
        return lines
    lines.append("best: " + " ".join(a.text() for a in solution.best_actions(state)))
    for action, verdict in solution.move_verdicts(state):
        lines.append(f"{action.text():<10} {state.apply(0, action).code():<14} {verdict.text()}")
    return lines


def _count(args: argparse.Namespace) -> list[str]:
    rules = _rules_for(args, args.start)
    start = parse_table(args.start, rules) if args.start else None
    return [str(len(reachable_codes(rules, start)))]


def _rules(args: argparse.Namespace) -> list[str]:
    return [str(line) for line in _rules_for(args).describe()]  # the English: the command line is for analysts


def _variants(args: argparse.Namespace) -> list[str]:
    lines = [f"{name}: {text}" for name, text in VARIANTS.items()]
    lines.append("")
    lines.extend(f"preset {name}: {_preset_text(options)}" for name, options in PRESETS.items())
    return lines


def _preset_text(options: dict[str, Any]) -> str:
    parts = [f"{k}={v}" for k, v in options.items() if k != "variants"]
    return " ".join([*options.get("variants", []), *parts]) or "the official rules"


def _result(state: ChopsticksState) -> str:
    outcome = state.outcome()
    assert outcome is not None
    if outcome.is_draw:
        return "drawn"
    return "won by the seat(s) " + ", ".join(str((w - state.to_move) % state.rules.players + 1)
                                             for w in outcome.winners) + " in code order"
