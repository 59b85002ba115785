"""What the fuzzer (tests/tools/fuzz.py) checks against the engine, in crowds, and at the ends of games.

* Every interaction that may change a game is judged against the engine (tests/tools/fuzz_oracle.py): the game
  is read through the service's storage before and after it.
* Bursts: several decisions of one game clicked at the same moment (`asyncio.gather`), by the player to decide
  (the same button twice, or two different ones), by others at the table and by strangers; sometimes while the
  clock passes the player's deadline. Exactly one action is applied for the turn, every other click is refused
  with an ephemeral reason, and the log stays the engine's.
* Targets: finished games and players who are out (defeated in So Long Sucker, knocked out of Chopsticks) as
  the target of every kind of button, as posted or forged for the game's last position, and of every command
  that names a game. They are classified by the fuzzer's usual rules, which refuse them.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bot.components import WAIT_FOR_LAST_CLICK
from bot.i18n import LANGUAGES, render
from games import game_class
from tests.support.codes import SUBCOMMANDS, InteractionType
from tests.support.fakediscord import FakeMessage, FakeUser, InteractionResult
from tests.support.interactions import BUTTON, SELECT
from tests.tools.fuzz_oracle import Snapshot, intent_of, judge, legal_text, new_moves, refusal_of, seat_is_out, snapshot

if TYPE_CHECKING:
    from tests.tools.fuzz import Case, Fuzzer
    from tests.tools.fuzz_time import Timekeeper

BURST_MAX = 6
RACE_SHARE = 0.3  # bursts in which the clock passes the player's deadline at the same moment


@dataclass
class CheckFigures:
    """What the engine said about the interactions that could change a game, and about the bursts."""

    verdicts: Counter[str] = field(default_factory=Counter)  # applied, refused, unchanged, changed
    engine_problems: list[str] = field(default_factory=list)
    bursts: int = 0
    races: int = 0
    burst_clicks: int = 0
    burst_applied: int = 0
    burst_refused: int = 0
    timer_won: int = 0
    burst_problems: list[str] = field(default_factory=list)
    targets: Counter[str] = field(default_factory=Counter)

    def lines(self) -> list[str]:
        return [
            "judged by the engine (valid by chance): " + (", ".join(
                f"{k} {v}" for k, v in sorted(self.verdicts.items())) or "none")
            + f"; engine mismatches: {len(self.engine_problems)}",
            f"bursts: {self.bursts} ({self.burst_clicks} clicks; {self.races} racing the clock): one action applied "
            f"{self.burst_applied} times, the timer first {self.timer_won} times, {self.burst_refused} clicks refused; "
            f"burst problems: {len(self.burst_problems)}",
            "finished games and players out as targets: " + (", ".join(
                f"{k} {v}" for k, v in sorted(self.targets.items())) or "none"),
        ]


# ----- single interactions ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Watched:
    """A game an interaction may change, as it was before, with the action and turn the interaction names."""

    before: Snapshot
    intent: str | None
    ply: int | None


async def watch(fz: Fuzzer, case: Case) -> list[Watched]:
    """The games `case` may change, read before it is sent."""
    store = fz.bot.service.store
    found: list[Watched] = []
    for game_id, match in _targets(fz, case):
        before = await snapshot(store, game_id)
        if before is None:
            continue
        intent = None
        ply = None
        if match is not None:
            values = case.data.get("values") if isinstance(case.data.get("values"), list) else None
            intent = intent_of(match, int(case.data.get("component_type", BUTTON)), values, case.component,
                               before.state)
            ply = int(match["ply"]) if match.groupdict().get("ply") is not None else None
        found.append(Watched(before, intent, ply))
    return found


async def judge_case(fz: Fuzzer, watched: list[Watched], case: Case, res: InteractionResult | None,
                     label: str) -> None:
    """After `case` (the bot idle again): what each watched game became, as the engine sees it."""
    figures = fz.figures.checks
    for item in watched:
        after = await snapshot(fz.bot.service.store, item.before.game_id)
        verdict, problems = judge(item.before, after, case.user.id, item.intent, item.ply, res)
        figures.verdicts[verdict] += 1
        figures.engine_problems += [f"{label}: {p}" for p in problems]


def _targets(fz: Fuzzer, case: Case) -> list[tuple[int, re.Match[str] | None]]:
    """The game a click or form names (with the click's match), or the games a command may act on."""
    if case.kind == InteractionType.MESSAGE_COMPONENT:
        match, template = fz.template_of(str(case.data.get("custom_id", "")))
        if match is None or template is None or match.groupdict().get("game") is None:
            return []
        return [(int(match["game"]), match)]
    if case.kind == InteractionType.MODAL_SUBMIT:
        number = str(case.data.get("custom_id", "")).split(":")[1:2]
        return [(int(number[0]), None)] if number and number[0].isdigit() and len(number[0]) < 19 else []
    if case.kind != InteractionType.APPLICATION_COMMAND:
        return []
    kind = fz._kind_of_command(str(case.data.get("name")))
    if kind is None:
        return []
    named = _option(case.data, "game")
    if isinstance(named, int) and 0 < named < 2**63:
        return [(named, None)]
    stored = fz.stored()
    return [(game_id, None) for game_id, game in stored.games.items()
            if game["kind"] == kind and game["status"] == "active" and case.user.id in stored.seats.get(game_id, set())]


def _option(data: Mapping[str, Any], name: str) -> Any:
    options = data.get("options")
    while (isinstance(options, list) and options and isinstance(options[0], dict)
           and options[0].get("type") in SUBCOMMANDS):
        options = options[0].get("options")
    if not isinstance(options, list):
        return None
    return next((o.get("value") for o in options if isinstance(o, dict) and o.get("name") == name), None)


# ----- bursts --------------------------------------------------------------------------------------------------------
def _decisions(fz: Fuzzer) -> dict[int, list[tuple[FakeMessage, dict[str, Any], re.Match[str]]]]:
    """The components on the bot's messages that are drawn for a turn, by game (`_names_action` keeps those that
    name an action)."""
    by_game: dict[int, list[tuple[FakeMessage, dict[str, Any], re.Match[str]]]] = {}
    for message, component in fz._component_pool():
        match, template = fz.template_of(str(component["custom_id"]))
        if match is None or template is None or template.kind is None or match.groupdict().get("ply") is None:
            continue
        by_game.setdefault(int(match["game"]), []).append((message, component, match))
    return by_game


def _names_action(component: dict[str, Any], match: re.Match[str], before: Snapshot) -> bool:
    """Whether a click on `component` is one action (a step such as a piece or colour menu may answer without
    acting, which a burst could not tell from a lost race)."""
    first = [str(o.get("value")) for o in component.get("options", [])][:1] or None
    return intent_of(match, int(component["type"]), first, component, before.state) is not None


async def burst(fz: Fuzzer, timekeeper: Timekeeper, room: int) -> None:
    """Up to `room` clicks on one active game's decisions at once; sometimes the clock passes the deadline too."""
    rng = fz.rng
    await fz.settle()  # judged from a position nothing else is changing
    stored = fz.stored()
    pool = {g: items for g, items in _decisions(fz).items() if stored.games.get(g, {}).get("status") == "active"}
    if not pool or room < 2:
        return
    game_id = rng.choice(sorted(pool))
    before = await snapshot(fz.bot.service.store, game_id)
    if before is None:
        return
    items = [(m, c) for m, c, match in pool[game_id] if _names_action(c, match, before)]
    if not items:
        return
    seated = [u for u in fz.users if before.seat_of(u.id) is not None]
    to_decide = before.state.current_player()
    mover = next((u for u in seated if to_decide is not None and before.seat_of(u.id) == to_decide), None)
    cases: list[Case] = []
    for _ in range(rng.randint(2, min(BURST_MAX, room))):
        if cases and rng.random() < 0.4:  # the same click again, as an impatient player does
            cases.append(fz._component_case("burst", cases[-1].source or items[0][0],
                                            str(cases[-1].data["custom_id"]), int(cases[-1].data["component_type"]),
                                            cases[-1].data.get("values"), cases[-1].user, cases[-1].component))
            continue
        message, component = rng.choice(items)
        user = fz._only_viewer(message) or _burst_user(fz, mover, seated)
        values = fz._values_for(component, rng.random() < 0.15) if component["type"] == SELECT else None
        cases.append(fz._component_case("burst", message, str(component["custom_id"]), int(component["type"]),
                                        values, user, component))
    legal = [(case, text) for case in cases if (text := _legal(fz, before, case)) is not None]
    [(deadline,)] = fz.db.rows("SELECT deadline FROM games WHERE id = ?", (game_id,))
    race = deadline is not None and rng.random() < RACE_SHARE
    labels = [fz.count(case) for case in cases]
    fz.current[0] = f"burst on game #{game_id}: {labels[0]} and {len(labels) - 1} more" + (" racing the clock"
                                                                                           if race else "")
    jobs = [fz.dispatch(case, label) for case, label in zip(cases, labels, strict=True)]
    jump: list[Any] = []

    async def pass_deadline(delay: float) -> None:
        if delay:
            await asyncio.sleep(delay)
        jump.append(timekeeper.start_jump(max(1.0, deadline - timekeeper.clock.now + 1)))

    delay = rng.choice([0.0, rng.uniform(0.0, 0.02)])
    at = 0 if delay == 0 else len(jobs)  # before the clicks reach the bot (first in line, no wait), or among them
    if race:
        jobs.insert(at, pass_deadline(delay))
    results = list(await asyncio.gather(*jobs))
    if race:
        del results[at]
        await timekeeper.settled_jump(jump[0])
    await fz.settle()
    after = await snapshot(fz.bot.service.store, game_id)
    figures = fz.figures.checks
    figures.bursts += 1
    figures.races += race
    figures.burst_clicks += len(cases)
    problems = judge_burst(before, after, cases, results, legal, race, figures)
    figures.burst_problems += [f"{fz.current[0]}: {p}" for p in problems]


def _burst_user(fz: Fuzzer, mover: FakeUser | None, seated: list[FakeUser]) -> FakeUser:
    roll = fz.rng.random()
    if mover is not None and roll < 0.6:
        return mover
    if seated and roll < 0.85:
        return fz.rng.choice(seated)
    return fz.rng.choice(fz.users)


def judge_burst(before: Snapshot, after: Snapshot | None, cases: Sequence[Case],
                results: Sequence[InteractionResult | None], legal: Sequence[tuple[Case, str]], race: bool,
                figures: CheckFigures) -> list[str]:
    """One action at most for the turn, by one of the clicks; every other click refused with a reason."""
    if after is None:
        return [f"game #{before.game_id} disappeared"]
    added, problems = new_moves(before, after, timers=race)
    people = [m for m in added if m[2] is not None]
    timer_first = bool(added) and added[0][2] is None and not after.is_computer(added[0][1])
    winners = [(case, res) for case, res in zip(cases, results, strict=True) if refusal_of(res) is None]
    figures.burst_refused += len(cases) - len(winners)
    if len(people) > 1:
        problems.append(f"{len(people)} actions applied for one turn: {people}")
    if len(winners) != len(people):
        shown = [(c.user.name, c.data.get("custom_id"), r.callback_type if r else None) for c, r in winners]
        problems.append(f"{len(winners)} clicks not refused {shown} for {len(people)} actions applied {people}")
    if people and not any(case.user.id == people[0][2] and text == people[0][3] for case, text in legal):
        problems.append(f"the action applied, {people[0]}, is none of the legal clicks {[t for _c, t in legal]}")
    # A legal click can be told to wait for its sender's earlier clicks (bot/components.py MAX_CLICKS_PER_USER):
    # refused, it changes nothing, as it should.
    waiting = {id(case) for case, res in zip(cases, results, strict=True) if refusal_of(res) in _WAIT_FOR_LAST_CLICK}
    legal = [(case, text) for case, text in legal if id(case) not in waiting]
    if legal and not people and not (race and timer_first):
        problems.append(f"none of the legal clicks {[t for _c, t in legal]} was applied (new moves {added})")
    if people and timer_first and added.index(people[0]) > 0:
        problems.append(f"a click was applied after the timer had decided the turn: {added}")
    figures.burst_applied += len(people) == 1
    figures.timer_won += timer_first
    return problems


_WAIT_FOR_LAST_CLICK = {render(WAIT_FOR_LAST_CLICK, language) for language in LANGUAGES}


def _legal(fz: Fuzzer, before: Snapshot, case: Case) -> str | None:
    """The logged text of the action `case` names, if the engine allows it to its sender now."""
    match, _template = fz.template_of(str(case.data.get("custom_id", "")))
    if match is None:
        return None
    values = case.data.get("values") if isinstance(case.data.get("values"), list) else None
    intent = intent_of(match, int(case.data.get("component_type", BUTTON)), values, case.component, before.state)
    ply = int(match["ply"]) if match.groupdict().get("ply") is not None else None
    return None if intent is None else legal_text(before, case.user.id, intent, ply)


# ----- finished games and players out as targets -------------------------------------------------------------------
def out_players(fz: Fuzzer) -> list[tuple[int, int]]:
    """(game, user) of people out of a game that goes on."""
    stored = fz.stored()
    found = []
    for game_id, game in stored.games.items():
        if game["status"] != "active":
            continue
        state = game_class(game["kind"]).from_dict(json.loads(game["state"]))
        for seat, user_id in fz.db.rows("SELECT seat, user_id FROM game_players WHERE game_id = ? AND user_id "
                                        "IS NOT NULL", (game_id,)):
            if seat_is_out(state, seat):
                found.append((game_id, user_id))
    return found


def target_case(fz: Fuzzer) -> Case | None:
    """A button or command aimed at a finished game, or by a player who is out of the game it names."""
    rng = fz.rng
    stored = fz.stored()
    finished = [g for g, game in stored.games.items() if game["status"] == "finished"]
    out = out_players(fz)
    if not finished and not out:
        return None
    if out and (not finished or rng.random() < 0.5):
        which = "out"
        game_id, user_id = rng.choice(out)
        user = fz.fake.users[user_id]
    else:
        which = "finished"
        game_id = rng.choice(finished)
        seated = [u for u in fz.users if u.id in stored.seats.get(game_id, set())]
        user = rng.choice(seated) if seated and rng.random() < 0.8 else rng.choice(fz.users)
    how = rng.choice(["posted", "forged", "forged", "command"])
    case = {"posted": _posted, "forged": _forged, "command": _command}[how](fz, game_id, user)
    if case is not None:
        case.family = f"target/{which} {how}"
        fz.figures.checks.targets[which] += 1
    return case


def _posted(fz: Fuzzer, game_id: int, user: FakeUser) -> Case | None:
    """A component of the game as the bot posted it (the board, old boards, deals, confirmations)."""
    pool = []
    for message, component in fz._component_pool():
        match, _template = fz.template_of(str(component["custom_id"]))
        viewer = fz._only_viewer(message)
        if match is not None and match.groupdict().get("game") == str(game_id) and viewer in (None, user):
            pool.append((message, component))
    if not pool:
        return _forged(fz, game_id, user)
    message, component = fz.rng.choice(pool)
    values = fz._values_for(component, False) if component["type"] == SELECT else None
    return fz._component_case("target", message, str(component["custom_id"]), int(component["type"]), values, user,
                              component)


def _forged(fz: Fuzzer, game_id: int, user: FakeUser) -> Case | None:
    """Any kind of component of the game's kind, drawn for this game at its current turn, where the bot posts its
    components (its channel; the player's DMs for games that use them)."""
    stored = fz.stored()
    game = stored.games[game_id]
    examples = []
    for _message, component in fz._component_pool():
        match, template = fz.template_of(str(component["custom_id"]))
        if match is not None and template is not None and (template.kind == game["kind"] or template.rematch):
            examples.append((match, template, component))
    if not examples:
        return None
    match, template, component = fz.rng.choice(examples)
    custom_id = match.string
    spans = [(match.span(name), value) for name, value in (("ply", str(fz.turn_token(game))), ("game", str(game_id)))
             if match.groupdict().get(name) is not None]
    for (start, end), value in sorted(spans, reverse=True):
        custom_id = custom_id[:start] + value + custom_id[end:]
    in_dm = template.in_dms and fz.rng.random() < 0.5
    channel = fz.fake.dm_channel(user) if in_dm else fz.fake.channels.get(game["channel"])
    if channel is None:
        return None
    ctype = template.item_type
    values = fz._values_for(component, False) if ctype == SELECT else None
    carrier = fz.carrier(channel, custom_id, ctype, component)
    return fz._component_case("target", carrier, custom_id, ctype, values, user, component)


def _command(fz: Fuzzer, game_id: int, user: FakeUser) -> Case | None:
    """A command of the game's kind that names a game, naming this one, from its channel."""
    game = fz.stored().games[game_id]
    leaves = [(path, leaf) for path, _top, leaf in fz._leaves()
              if fz._kind_of_command(path[0]) == game["kind"] and path[-1] != "replay"
              and any(o["name"] == "game" for o in leaf.get("options", []))]
    if not leaves:
        return None
    path, leaf = fz.rng.choice(leaves)
    channel = fz.fake.channels.get(game["thread"] or game["channel"])
    if channel is None:
        return None
    values = {o["name"]: fz._valid_value(o, path, channel) for o in leaf.get("options", []) if o.get("required")}
    values["game"] = game_id
    return fz.slash_case("target", path, user, channel, values)
