"""Hostile input for the whole bot: a fuzzer of interactions against the real bot and the offline Discord.

    python -m tests.tools.fuzz --interactions 10000 --seed 1 [--database postgresql]

It sets up real games of every kind on two servers, then sends interactions to every registered command
and to every component the bot has posted: random and malformed options, forged and stale custom ids, ids
of other games and other servers, DMs, users who are not seated, huge strings and odd unicode. Commands
come from what the bot registered and components from the messages it posted, so new commands and buttons
are fuzzed without changing this file.

Each interaction is classified before it is sent, from the stored state and the bot's own command
definitions:

* ``refuse``: invalid by construction (malformed option, forged or stale id, another server, a DM for a
  server command, a user who is not seated or is out of the game, a finished game, no Manage Server for
  /settings). It must be answered with an ephemeral message that says why, change nothing in the database and
  make no other request to Discord.
* ``read``: can only look (replays, ladders, rules, autocomplete). Nothing in the database may change.
* ``any``: valid by chance (a seated player's click, a well-formed command). It may change state, as the engine
  allows: each game it may touch is read before and after (tests/tools/fuzz_checks.py): a legal action is applied
  exactly once, an illegal one changes nothing and is refused with an ephemeral reason, and the stored state is
  always the move log replayed.

Between interactions (tests/tools/fuzz_time.py), the bot's clock jumps, so reminders, forfeits and expiries fire
and games end while the input goes on (every due timer must fire); bursts of concurrent clicks hit one game's
decisions, sometimes as its deadline passes (one action applied for the turn, every other click refused with a
reason); finished games and players out of a game are targeted on purpose; and new games start when few are left.

Every interaction must be answered, no request may break Discord's API description, and nothing may be
logged at ERROR (a real fault, or discord.py's "Ignoring exception"). The bot token must never appear in
a log line, a message or any request body.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import random
import re
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import Enum
from functools import partial
from pathlib import Path
from typing import Any

from discord import app_commands

from bot.client import TabletopBot
from bot.components import Select
from bot.endings import RematchButton
from bot.games.generals.components import RanksButton
from bot.lobby import JoinButton, LeaveButton, LobbyButton
from bot.logs import RedactSecrets
from bot.validation import is_guild_only
from games import game_class
from storage.sql import Plan, select
from tests.support.codes import SUBCOMMANDS, Callback, CommandType, Component, InteractionType, OptionType
from tests.support.fakediscord import FakeChannel, FakeDiscord, FakeGuild, FakeMessage, FakeUser, InteractionResult
from tests.support.fakediscord.interactions import (
    InteractionTimeout,
)
from tests.support.fakediscord.payloads import (
    EVERYONE_PERMISSIONS,
    PERM_MANAGE_GUILD,
    channel_payload,
    member_payload,
    user_payload,
)
from tests.support.interactions import BUTTON, SELECT, bot_idle, carrier, raw_interaction
from tests.tools.fuzz_checks import CheckFigures, burst, judge_case, target_case, watch
from tests.tools.fuzz_oracle import refusal_of, seat_is_out
from tests.tools.fuzz_time import BOT_SETTINGS, TimeFigures, Timekeeper, VirtualClock
from tests.tools.peek import Peek, Target

# Commands that only look; everything else may change state when used validly.
READ_ONLY = {"leaderboard", "stats", "history", "replay", "chopsticks rules", "chopsticks analyze", "sucker status",
             "settings show", "generals rules", "generals replay"}
ODD = ["\u202e", "\u200b", "\u200d", "\ufeff", "\x00", "\U0001f600", "\U0001f9d1\u200d\U0001f680", "e\u0301",
       "\u0647\u0644\u0627", "\u05e9\u05dc\u05d5\u05dd", "\U00010348", "\u2028", "\\", "`", "@everyone", "<@1>",
       "||", "**", "%s", "{0}", "'; DROP TABLE games; --", "\U000e0041", "\u0000\u0001\u001f"]
# Half a surrogate pair: no Discord client can send one (the gateway speaks UTF-8); only as a malformed option.
LONE_SURROGATE = "\ud800"
HUGE = 20_000


class Expect(Enum):
    REFUSE = "refuse"
    READ = "read"
    ANY = "any"


@dataclass
class Case:
    """One interaction to send, and what it must lead to."""

    family: str
    expect: Expect
    kind: int
    user: FakeUser
    channel: FakeChannel
    data: dict[str, Any]
    source: FakeMessage | None = None
    permissions: int = 0
    label: str = ""
    component: dict[str, Any] | None = None  # the component as posted (a menu's options say what it offers)


@dataclass
class Figures:
    """What a run did and every broken invariant, with the case that broke it."""

    interactions: int = 0
    by_family: Counter[str] = field(default_factory=Counter)
    commands: Counter[str] = field(default_factory=Counter)  # slash and autocomplete, by command path
    components: Counter[str] = field(default_factory=Counter)  # clicks, by the custom id's prefix
    by_expect: Counter[str] = field(default_factory=Counter)
    refusals: int = 0
    unanswered: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    faults: list[str] = field(default_factory=list)
    state_changes: list[str] = field(default_factory=list)
    side_effects: list[str] = field(default_factory=list)
    bad_refusals: list[str] = field(default_factory=list)
    token_leaks: list[str] = field(default_factory=list)
    raw_token_records: int = 0
    log_records: int = 0
    warnings: Counter[str] = field(default_factory=Counter)
    violations: list[str] = field(default_factory=list)
    seconds: float = 0.0
    time: TimeFigures = field(default_factory=TimeFigures)
    checks: CheckFigures = field(default_factory=CheckFigures)

    def problems(self) -> dict[str, list[str]]:
        return {name: items for name, items in (
            ("unanswered", self.unanswered), ("callbacks rejected", self.rejected),
            ("unhandled exceptions", self.faults), ("state changes from invalid input", self.state_changes),
            ("other effects of invalid input", self.side_effects),
            ("refusals not ephemeral or not explained", self.bad_refusals), ("token leaks", self.token_leaks),
            ("API violations", self.violations), ("engine mismatches", self.checks.engine_problems),
            ("burst problems", self.checks.burst_problems), ("timer problems", self.time.problems)) if items}

    def report(self) -> str:
        lines = [
            f"interactions sent: {self.interactions} in {self.seconds:.1f} s "
            f"({self.interactions / max(self.seconds, 1e-9):.0f}/s)",
            "by expectation: " + ", ".join(f"{k} {v}" for k, v in sorted(self.by_expect.items())),
            f"refusals (ephemeral and explained): {self.refusals}",
            f"unanswered: {len(self.unanswered)}; callbacks rejected: {len(self.rejected)}",
            f"unhandled exceptions (ERROR log records): {len(self.faults)}",
            f"state changes from invalid input: {len(self.state_changes)}; other effects: {len(self.side_effects)}",
            f"refusals not ephemeral or not explained: {len(self.bad_refusals)}",
            f"log records checked: {self.log_records}; with the token before redaction: {self.raw_token_records}; "
            f"token in logs, messages or requests: {len(self.token_leaks)}",
            f"API violations: {len(self.violations)}",
            *self.checks.lines(),
            *self.time.lines(),
            f"commands reached: {len(self.commands)}; component id prefixes reached: {len(self.components)} "
            f"({', '.join(sorted(self.components))})",
            "by family:",
            *(f"  {name:<44} {count}" for name, count in sorted(self.by_family.items())),
        ]
        if self.warnings:
            lines.append("warnings logged:")
            lines += [f"  {count:>5} x {text}" for text, count in self.warnings.most_common(10)]
        for name, items in self.problems().items():
            lines.append(f"{name} ({len(items)}), first ones:")
            lines += [f"  - {_brief(item)}" for item in items[:5]]
        return "\n".join(lines)


class LogCapture(logging.Handler):
    """Every log record of the run: ERROR ones are faults; none may carry the token once the bot's own
    redaction (as `python -m bot` installs it) has run."""

    def __init__(self, token: str, figures: Figures, current: list[str]) -> None:
        super().__init__(logging.DEBUG)
        self.token = token
        self.figures = figures
        self.current = current
        self.redact = RedactSecrets([token])
        self.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        try:
            figures = self.figures
            figures.log_records += 1
            raw = self.format(record)
            if self.token in raw:
                figures.raw_token_records += 1
            self.redact.filter(record)
            text = self.format(record)
            if self.token in text:
                figures.token_leaks.append(f"log record {record.name}: {text[:300]}")
            if record.levelno >= logging.ERROR:
                figures.faults.append(f"{self.current[0]}: {text}")
            elif record.levelno == logging.WARNING and not record.name.startswith(("aiohttp", "asyncio")):
                figures.warnings[f"{record.name}: {record.getMessage()[:100]}"] += 1
        except Exception:  # a capture handler must never break the code under test
            self.handleError(record)


@dataclass(frozen=True)
class Template:
    """A component template the bot registered, and what its custom ids name."""

    pattern: re.Pattern[str]
    kind: str | None  # the game kind of the cog that owns it
    item_type: int = BUTTON  # the component the bot makes with it
    lobby: bool = False
    in_dms: bool = False  # the game's components also work in the players' DMs
    rematch: bool = False  # a finished game's Rematch: it acts for the game's players
    legend: bool = False  # Generals' Ranks: the rank legend, for anyone who sees a board of the game
    component: type[Any] | None = None  # the class that answers it

    @property
    def read_only(self) -> bool:
        return self.kind is None and not self.lobby and not self.rematch


@dataclass
class Stored:
    """What the database says about games and lobbies, read before each case to classify it."""

    games: dict[int, dict[str, Any]]
    seats: dict[int, set[int]]
    lobbies: dict[int, dict[str, Any]]
    members: dict[int, list[int | None]]
    deals: set[tuple[int, int]]


def _read_stored() -> Plan[Stored]:
    """Games, seats, lobbies, members and deals, as one state of the database."""
    games = {row[0]: {"kind": row[1], "guild": row[2], "channel": row[3], "thread": row[4], "status": row[5],
                      "moves": row[6], "state": row[7], "message": row[8]}
             for row in (yield from select("SELECT id, kind, guild_id, channel_id, thread_id, status, move_count, "
                                           "state, message_id FROM games"))}
    seats: dict[int, set[int]] = {}
    for game_id, user_id in (yield from select("SELECT game_id, user_id FROM game_players WHERE user_id IS NOT NULL")):
        seats.setdefault(game_id, set()).add(user_id)
    lobbies = {row[0]: {"kind": row[1], "guild": row[2], "status": row[3], "host": row[4], "max": row[5],
                        "message": row[6]}
               for row in (yield from select("SELECT id, kind, guild_id, status, host_id, max_players, message_id "
                                             "FROM lobbies"))}
    members: dict[int, list[int | None]] = {}
    for lobby_id, user_id in (yield from select("SELECT lobby_id, user_id FROM lobby_members "
                                                "ORDER BY lobby_id, position")):
        members.setdefault(lobby_id, []).append(user_id)
    deals = {(g, n) for g, n in (yield from select("SELECT game_id, number FROM deals"))}
    return Stored(games, seats, lobbies, members, deals)


class Fuzzer:
    def __init__(self, fake: FakeDiscord, bot: TabletopBot, database: Target, rng: random.Random,
                 guilds: list[FakeGuild], channels: list[FakeChannel], users: list[FakeUser],
                 clock: VirtualClock) -> None:
        self.fake = fake
        self.bot = bot
        self.database = database
        self.rng = rng
        self.guilds = guilds
        self.channels = channels
        self.users = users
        self.figures = Figures()
        self.current = ["setup"]
        self.db = Peek(database, keep_open=True)  # what the bot stored, read behind its back (either database)
        self._since = 0
        self._baseline: tuple[str, Any] | None = None
        self.templates = self._templates()
        self.commands = [c for c in fake.registered_commands() if c.get("type", 1) == 1]
        # Forms the bot showed: (the form, who opened it, where, the message it came from); prefix -> kind.
        self.modals: list[tuple[dict[str, Any], FakeUser, FakeChannel, FakeMessage | None]] = []
        self.modal_kinds: dict[str, str | None] = {}
        self._walked: dict[int, tuple[tuple[int, int], list[dict[str, Any]]]] = {}
        self.timekeeper = Timekeeper(self, clock)

    # ----- what the bot offers --------------------------------------------------------------------------------
    def _templates(self) -> list[Template]:
        # Every component the bot registered; a game's are those its presenter lists.
        owners = {item: presenter for presenter in self.bot.presenters.values() for item in presenter.components}
        # A game's components are told by template, not by class: each bot that loads a game's extension imports its
        # modules afresh (discord.py drops them when a bot stops), so the classes imported here may be an older copy.
        ranks = RanksButton.custom_id_shape.pattern
        found = []
        for item in self.bot._connection._view_store._dynamic_items.values():
            presenter = owners.get(item)
            found.append(Template(item.__discord_ui_compiled_template__, presenter.kind if presenter else None,
                                  SELECT if issubclass(item, Select) else BUTTON, lobby=issubclass(item, LobbyButton),
                                  in_dms=presenter is not None and presenter.components_in_dms,
                                  rematch=item is RematchButton, component=item,
                                  legend=item.__discord_ui_compiled_template__.pattern == ranks))
        return found

    def template_of(self, custom_id: str) -> tuple[re.Match[str] | None, Template | None]:
        return next(((m, t) for t in self.templates if (m := t.pattern.fullmatch(custom_id))), (None, None))

    def _kind_of_command(self, name: str) -> str | None:
        for presenter in self.bot.presenters.values():
            if getattr(presenter, "__cog_group_name__", None) == name:
                return presenter.kind
        return None

    def _leaves(self) -> Iterator[tuple[list[str], dict[str, Any], dict[str, Any]]]:
        """Every invocable (sub)command: its path, its top-level definition and its leaf definition."""
        def walk(node: dict[str, Any], path: list[str], top: dict[str, Any]) -> Iterator[Any]:
            subs = [o for o in node.get("options", []) if o.get("type") in SUBCOMMANDS]
            if not subs:
                yield path, top, node
            for sub in subs:
                yield from walk(sub, [*path, sub["name"]], top)
        for definition in self.commands:
            yield from walk(definition, [definition["name"]], definition)

    def _app_command(self, path: list[str]) -> app_commands.Command[Any, ..., Any] | None:
        command: Any = self.bot.tree.get_command(path[0])
        for name in path[1:]:
            command = command.get_command(name) if isinstance(command, app_commands.Group) else None
        return command if isinstance(command, app_commands.Command) else None

    # ----- the stored state -----------------------------------------------------------------------------------
    def stored(self) -> Stored:
        return self.db.read(_read_stored())

    def data_version(self) -> str:
        """Changes whenever something may have been written (Peek.written); `content` says what."""
        return self.db.written()

    def content(self) -> dict[str, list[tuple[Any, ...]]]:
        """Every row of every table (the ground truth when data_version says something was written), except what
        the bot learns from any interaction, refused or not: a person's language (bot/i18n.py). What they chose
        there is their notification mode (no row: the default). The process's heartbeat (a lease renewed every few
        seconds whatever happens, bot/service/heartbeat.py) is not the interaction's doing either, nor the last lease
        token given (lease_tokens, raised by every beat on SQLite)."""
        tables = self.db.tables()
        found = {t: sorted(self.db.rows(f'SELECT * FROM "{t}"'), key=repr) for t in tables
                 if t not in ("user_settings", "leases", "lease_tokens")}
        if "leases" in tables:
            found["leases"] = sorted(self.db.rows("SELECT * FROM leases WHERE key NOT LIKE 'process:%'"), key=repr)
        if "user_settings" in tables:
            found["user_settings"] = sorted(self.db.rows(
                "SELECT user_id, notify FROM user_settings WHERE notify != 'mention'"))
        return found

    def is_out(self, game_id: int, user_id: int) -> bool:
        """Whether `user_id` sits in game `game_id`, which goes on, but is out of it (defeated, knocked out)."""
        game = self.stored().games.get(game_id)
        if game is None or game["status"] != "active":
            return False
        row = self.db.first("SELECT seat FROM game_players WHERE game_id = ? AND user_id = ?", (game_id, user_id))
        return row is not None and seat_is_out(game_class(game["kind"]).from_dict(json.loads(game["state"])), row[0])

    @staticmethod
    def turn_token(game: Mapping[str, Any]) -> int:
        state = game_class(game["kind"]).from_dict(json.loads(game["state"]))
        token = state.turn_token()
        return int(game["moves"]) if token is None else int(token)

    # ----- running --------------------------------------------------------------------------------------------
    async def run(self, count: int) -> Figures:
        """A sweep that reaches every command, option with suggestions and kind of component once or twice,
        then random cases up to `count` interactions in all."""
        started = time.monotonic()
        await self.settle()
        for make in self.sweep():
            if self.figures.interactions >= count:
                break
            case = make()
            if case is not None:
                case.family = "sweep " + case.family
                await self.send(case)
        finished = self.timekeeper.finished()
        while self.figures.interactions < count:
            await self.between(count)
            if self.figures.interactions < count:
                await self.send(self.next_case())
        await self.timekeeper.quiet()
        self.figures.time.games_finished = self.timekeeper.finished() - finished
        self.figures.seconds = time.monotonic() - started
        self.final_checks()
        return self.figures

    async def between(self, count: int) -> None:
        """Between two interactions, now and then: the clock jumps, a burst of clicks hits one game, new games
        start when too few are left to play."""
        left = count - self.figures.interactions
        if self.rng.random() < 1 / 40:
            await self.timekeeper.jump()
        if self.rng.random() < 1 / 25 and left >= 2:
            await burst(self, self.timekeeper, left)
        if self.timekeeper.live_games() < 2 or self.rng.random() < 1 / 100:
            await self.timekeeper.replenish()

    def count(self, case: Case) -> str:
        """Count `case` in the figures; its label for the reports."""
        figures = self.figures
        figures.interactions += 1
        figures.by_family[case.family] += 1
        figures.by_expect[case.expect.value] += 1
        if case.kind in (InteractionType.APPLICATION_COMMAND, InteractionType.APPLICATION_COMMAND_AUTOCOMPLETE):
            figures.commands[_path_of(case.data)] += 1
        elif case.kind == InteractionType.MESSAGE_COMPONENT:
            custom_id = str(case.data.get("custom_id", ""))
            known = self.template_of(custom_id)[1] is not None
            figures.components[custom_id.split(":")[0] if known else "(none)"] += 1
        return f"#{figures.interactions} {case.family} [{case.expect.value}] {case.label}"

    async def send(self, case: Case) -> None:
        label = self.count(case)
        self.current[0] = label
        quiet = case.expect is not Expect.ANY
        if quiet:
            await self._quiet_baseline()
        watched = [] if quiet else await watch(self, case)
        self._since = len(self.fake.requests)
        res = await self.dispatch(case, label)
        if quiet:
            if case.expect is Expect.REFUSE and refusal_of(res) is None:
                await self.settle()  # obeyed, not refused: let what it started finish, so that it is blamed for it
            else:
                await asyncio.sleep(0)  # let anything the interaction started run before looking
            self._check_quiet(label, res, case.expect)
        else:
            await self.settle()
            await judge_case(self, watched, case, res, label)

    async def dispatch(self, case: Case, label: str) -> InteractionResult | None:
        """Send `case` and check what every answer must be: given, accepted, and for a refusal explained."""
        figures = self.figures
        res: InteractionResult | None = None
        try:
            res = await raw_interaction(self.fake, case.kind, case.user, case.channel, case.data, source=case.source,
                                        permissions=case.permissions, label=label)
        except InteractionTimeout as exc:
            figures.unanswered.append(f"{label}: {str(exc)[:300]}")
        if res is not None and res.errors:
            figures.rejected.append(f"{label}: {res.errors}")
        if res is not None and res.modal is not None and case.kind == InteractionType.MESSAGE_COMPONENT:
            self.remember_form(res, str(case.data.get("custom_id", "")))
        if (res is not None and res.answered and case.kind == InteractionType.APPLICATION_COMMAND_AUTOCOMPLETE
                and res.callback_type != Callback.AUTOCOMPLETE_RESULT):
            figures.rejected.append(f"{label}: autocomplete answered with callback {res.callback_type}")
        if case.expect is Expect.REFUSE and res is not None and res.answered:
            self._check_refusal(label, res)
        return res

    def remember_form(self, res: InteractionResult, clicked: str) -> None:
        """A form the bot showed for a click on `clicked`, to be submitted later (oddly)."""
        assert res.modal is not None
        _match, template = self.template_of(clicked)
        self.modal_kinds[str(res.modal.get("custom_id", "")).split(":")[0]] = template.kind if template else None
        if len(self.modals) < 200:
            self.modals.append((res.modal, res.user, res.channel, res.source_message))

    def _check_refusal(self, label: str, res: InteractionResult) -> None:
        deferred = res.callback_type == Callback.DEFERRED_CHANNEL_MESSAGE
        message = res.followups[0] if deferred and res.followups else res.message
        if res.callback_type not in (Callback.CHANNEL_MESSAGE, Callback.DEFERRED_CHANNEL_MESSAGE) or message is None:
            self.figures.bad_refusals.append(f"{label}: answered with callback {res.callback_type}, not a message")
        elif not message.ephemeral:
            self.figures.bad_refusals.append(f"{label}: public refusal {message.text()[:200]!r}")
        elif not message.content.strip() or "Something went wrong" in message.content:
            self.figures.bad_refusals.append(f"{label}: unexplained refusal {message.text()[:200]!r}")
        elif message.components:  # a question or a menu: the next click would be refused, or worse, obeyed
            self.figures.bad_refusals.append(f"{label}: offered {message.custom_ids()[:3]} instead of a refusal: "
                                             f"{message.text()[:200]!r}")
        else:
            self.figures.refusals += 1

    def _check_quiet(self, label: str, res: InteractionResult | None, expect: Expect) -> None:
        """Invalid input and looking may answer the interaction itself, and do nothing else."""
        token = res.token if res is not None else "\0"
        others = [f"{r.method} {r.path}" for r in self.fake.requests[self._since:] if token not in r.path]
        if others:
            self.figures.side_effects.append(f"{label}: also requested {others[:4]}")
        assert self._baseline is not None
        if self.data_version() != self._baseline[0]:
            now = self.content()
            changed = [t for t in now if now[t] != self._baseline[1].get(t)]
            if changed:
                diff = {t: [r for r in now[t] if r not in self._baseline[1].get(t, [])][:2] for t in changed}
                self.figures.state_changes.append(f"{label}: changed {changed}: {diff}")
            self._baseline = (self.data_version(), now)

    async def _quiet_baseline(self) -> None:
        version = self.data_version()
        if self._baseline is None or self._baseline[0] != version:
            self._baseline = (version, self.content())

    async def settle(self, timeout: float = 30.0) -> None:
        """Wait until the bot has finished what earlier interactions started (see `bot_idle`)."""
        if not await bot_idle(self.fake, timeout, self.data_version):
            self.figures.unanswered.append(f"{self.current[0]}: the bot kept working for {timeout} s")

    def final_checks(self) -> None:
        token = self.fake.token
        figures = self.figures
        for message in self.fake.messages.values():
            if token in message.text() or token in json.dumps(message.embeds):
                figures.token_leaks.append(f"message {message.id}: {message.text()[:200]}")
        for request in self.fake.requests:
            if token in request.path or token in json.dumps(request.json, default=str):
                figures.token_leaks.append(f"request body {request.method} {request.path}")
        figures.violations = list(self.fake.violations)

    # ----- choosing a case ------------------------------------------------------------------------------------
    def sweep(self) -> Iterator[Callable[[], Case | None]]:
        """Every (sub)command well-formed and malformed (and from a DM when it is for servers only), every
        option with suggestions, and every kind of component the bot has posted, as posted and forged."""
        for path, _top, leaf in list(self._leaves()):
            yield partial(self.slash_valid, path)
            yield partial(self.slash_malformed, path)
            command = self._app_command(path)
            if command is not None and is_guild_only(command):
                yield partial(self.slash_in_dm, path, leaf)
            for option in leaf.get("options", []):
                if option.get("autocomplete"):
                    yield partial(self.autocomplete, (path, option["name"]))
        for template in self.templates:
            yield partial(self.real_click, template)
            yield partial(self.forged_click, template)
        for _ in range(min(len(self.modals), 3)):
            yield self.modal_submit

    def next_case(self) -> Case:
        # A kind of component that has appeared since the sweep (a board reached its play phase) goes first.
        unreached = [t for t in self.templates if t.pattern.pattern.split(":")[0] not in self.figures.components]
        if unreached and self.figures.interactions % 10 == 0:
            pool = self._component_pool()
            for template in unreached:
                if any(template.pattern.fullmatch(str(c["custom_id"])) for _m, c in pool):
                    case = self.real_click(template)
                    if case is not None:
                        return case
        families: list[tuple[Callable[[], Case | None], int]] = [
            (self.real_click, 20), (self.forged_click, 30), (self.garbage_click, 5), (self.play, 12),
            (self.slash_valid, 10), (self.slash_malformed, 17), (self.slash_context, 5), (self.autocomplete, 6),
            (self.modal_submit, 3), (partial(target_case, self), 6),
        ]
        while True:
            make = self.rng.choices([f for f, _ in families], [w for _, w in families])[0]
            case = make()
            if case is not None:
                return case

    # ..... components
    def _component_pool(self, template: Template | None = None) -> list[tuple[FakeMessage, dict[str, Any]]]:
        """Components on the bot's messages (all, or those of one template)."""
        pool = []
        for message in self.fake.messages.values():
            if message.deleted or message.author_id != self.fake.bot_user.id or not message.components:
                continue
            # Walking every message's components for every case is the fuzzer's own hot spot: remember them
            # until the message is edited (an edit replaces the list).
            key = (id(message.components), message.edits)
            cached = self._walked.get(message.id)
            if cached is None or cached[0] != key:
                cached = (key, [c for c in message.walk_components()
                                if c.get("type") in (BUTTON, SELECT) and c.get("custom_id")])
                self._walked[message.id] = cached
            pool += [(message, c) for c in cached[1]
                     if template is None or template.pattern.fullmatch(str(c["custom_id"]))]
        return pool

    def _values_for(self, component: dict[str, Any], garbage: bool) -> list[str]:
        options = [str(o["value"]) for o in component.get("options", [])]
        if garbage or not options:
            return self.rng.choice([[], [self.text(1, 30)], [self.text(1, 30), self.text(1, 30)], [self.text(80, 200)]])
        return [self.rng.choice(options)]

    def _user_for_ids(self, custom_id: str) -> FakeUser:
        """Mostly someone seated in the game the id names (so deeper checks are reached), else anyone."""
        stored = self.stored()
        match = re.search(r":([0-9]{1,18})(?::|$)", custom_id)
        seated = stored.seats.get(int(match.group(1)), set()) if match else set()
        people = [u for u in self.users if u.id in seated]
        if people and self.rng.random() < 0.6:
            return self.rng.choice(people)
        return self.rng.choice(self.users)

    def _component_case(self, family: str, message: FakeMessage, custom_id: str, ctype: int,
                        values: list[str] | None, user: FakeUser, real: dict[str, Any] | None,
                        trust_ply: bool = True) -> Case:
        channel = self.fake.channels[message.channel_id]
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": ctype}
        if ctype == SELECT:
            data["values"] = values or []
        on_message = any(c.get("custom_id") == custom_id and c.get("type") == ctype
                         for c in message.walk_components())
        expect = self.classify_component(custom_id, ctype, values, user, channel.guild_id, on_message, trust_ply,
                                         channel.id)
        label = f"{user.name} {'clicks' if ctype == BUTTON else 'selects'} {custom_id[:80]!r}" + (
            f" {[v[:20] for v in values]}" if values is not None and ctype == SELECT else "") + (
            f" in {channel.name}" + ("" if on_message else " (not on its message)"))
        return Case(family, expect, InteractionType.MESSAGE_COMPONENT, user, channel, data, source=message, label=label,
                    component=real)

    def real_click(self, template: Template | None = None) -> Case | None:
        """A component as posted, on its own message, by someone (often not the one it is for)."""
        pool = self._component_pool(template)
        if not pool:
            return None
        message, component = self.rng.choice(pool)
        cid = str(component["custom_id"])
        values = self._values_for(component, self.rng.random() < 0.3) if component["type"] == SELECT else None
        user = self._only_viewer(message) or self._user_for_ids(cid)
        return self._component_case("component/real", message, cid, int(component["type"]), values, user, component)

    def _only_viewer(self, message: FakeMessage) -> FakeUser | None:
        """Who alone can click on a DM or an ephemeral message (Discord shows it to no one else)."""
        channel = self.fake.channels[message.channel_id]
        viewer = channel.recipient_id if channel.is_dm else None
        if message.ephemeral and message.interaction_metadata:
            viewer = int(message.interaction_metadata["user"]["id"])
        return self.fake.users.get(viewer) if viewer is not None else None

    def forged_click(self, template: Template | None = None) -> Case | None:
        """A real id with one part changed, on a message that carries it, in a channel of either server, a
        DM, or not on its message at all."""
        pool = self._component_pool(template)
        if not pool:
            return None
        message, component = self.rng.choice(pool)
        how, custom_id = self.mutate_id(str(component["custom_id"]))
        _match, template = self.template_of(custom_id)
        # A shape the bot never makes (a part added or dropped): its ply, if any, says nothing for sure.
        trust_ply = self._shape(custom_id) == self._shape(str(component["custom_id"]))
        ctype = template.item_type if template is not None else int(component["type"])
        user = self._user_for_ids(custom_id)
        values = self._values_for(component, self.rng.random() < 0.3) if ctype == SELECT else None
        where = self.rng.choices(["here", "other server", "dm", "off message"], [40, 30, 15, 15])[0]
        if where == "here" and self._only_viewer(message) is not None:
            user = self._only_viewer(message) or user
        if where == "off message":
            carrier = message
        else:
            channel = {"here": self.fake.channels[message.channel_id], "dm": self.fake.dm_channel(user),
                       "other server": self.rng.choice(self.channels)}[where]
            carrier = self.carrier(channel, custom_id, ctype, component)
        return self._component_case(f"component/forged {how}/{where}", carrier, custom_id, ctype, values, user,
                                    component, trust_ply)

    def _shape(self, custom_id: str) -> tuple[Any, ...]:
        match, template = self.template_of(custom_id)
        if match is None:
            return ()
        return (self.templates.index(template) if template else -1,
                *sorted(k for k, v in match.groupdict().items() if v is not None))

    def garbage_click(self) -> Case | None:
        custom_id = self.rng.choice([
            "", ":", "cs:", "sk::", self.text(1, 100), self.text(101, 300), "cs:1:mv:0:" + "A" * 90,
            "lb:chopsticks:" + "9" * 30 + ":0", "x" * 100, "\x00" * 10, "gg:1:" + self.text(1, 20),
        ])
        ctype = self.rng.choice([BUTTON, SELECT])
        channel = self.rng.choice([*self.channels, self.fake.dm_channel(self.rng.choice(self.users))])
        carrier = self.carrier(channel, custom_id, ctype, None) if custom_id and len(custom_id) <= 100 else (
            self.carrier(channel, "placeholder", BUTTON, None))
        values = [self.text(1, 10)] if ctype == SELECT else None
        return self._component_case("component/garbage", carrier, custom_id, ctype, values,
                                    self.rng.choice(self.users), None)

    def play(self) -> Case | None:
        """A legitimate decision by whoever is to decide, so games move on and ids go stale."""
        stored = self.stored()
        live = [(i, g) for i, g in stored.games.items()
                if g["status"] == "active" and g["message"] in self.fake.messages]
        if not live:
            return self.replenish()
        game_id, game = self.rng.choice(live)
        state = game_class(game["kind"]).from_dict(json.loads(game["state"]))
        seat = state.current_player()
        board = self.fake.messages[game["message"]]
        ids = [c for c in board.walk_components() if c.get("type") in (BUTTON, SELECT) and not c.get("disabled")]
        users = {u.id: u for u in self.users}
        mover = next((users[u] for u in self._seat_users(game_id, seat) if u in users), None)
        if not ids or mover is None:
            return None
        component = self.rng.choice(ids)
        values = self._values_for(component, False) if component["type"] == SELECT else None
        return self._component_case("component/play", board, str(component["custom_id"]), int(component["type"]),
                                    values, mover, component)

    def _seat_users(self, game_id: int, seat: int | None) -> list[int]:
        if seat is None:
            return []
        row = self.db.first("SELECT user_id FROM game_players WHERE game_id = ? AND seat = ?", (game_id, seat))
        return [row[0]] if row and row[0] is not None else []

    def replenish(self) -> Case | None:
        """No game is waiting for anyone: challenge someone, so there is something to play."""
        return self.slash_case("slash/replenish", ["chopsticks", "challenge"], self.users[0], self.channels[0],
                               {"opponent": self.users[1]})

    def carrier(self, channel: FakeChannel, custom_id: str, ctype: int, like: dict[str, Any] | None) -> FakeMessage:
        return carrier(self.fake, channel, custom_id, ctype, like)

    def mutate_id(self, custom_id: str) -> tuple[str, str]:
        """One change to a real custom id, named for the figures."""
        rng = self.rng
        stored = self.stored()
        number = re.compile(r"(?<=:)[0-9]+(?=:|$)")
        numbers = list(number.finditer(custom_id))
        how = rng.choice(["other game", "other lobby", "missing game", "huge id", "zero", "stale", "swap part",
                          "suffix", "truncate", "unicode", "long"])
        if how in ("other game", "other lobby", "missing game", "huge id", "zero") and numbers:
            first = numbers[0]
            pool = list(stored.games if how == "other game" else stored.lobbies) or [1]
            makers: dict[str, Callable[[], int]] = {
                "other game": lambda: rng.choice(pool), "other lobby": lambda: rng.choice(pool),
                "missing game": lambda: max(pool) + rng.randint(1, 1000),
                "huge id": lambda: rng.choice([10**18 - 1, 2**63, 10**19 - 1, 2**63 - 1, 2**53 + 1]),
                "zero": lambda: 0}
            value = makers[how]()
            return how, custom_id[:first.start()] + str(value) + custom_id[first.end():]
        if how == "stale" and len(numbers) > 1:
            ply = numbers[1]
            value = max(0, int(ply.group()) + rng.choice([-3, -2, -1, 1, 2, 50]))
            return how, custom_id[:ply.start()] + str(value) + custom_id[ply.end():]
        parts = custom_id.split(":")
        if how == "swap part" and len(parts) > 2:
            i = rng.randrange(2, len(parts))
            parts[i] = rng.choice(["mv", "accept", "decline", "resign", "resign-yes", "draw", "hint", "group", "pick",
                                   "join", "leave", "bot", "unbot", "start", "chip", "pile0", "pass", "AB", "11-20",
                                   "give:red:blue:1", "kill:red", "decline", self.text(1, 8)])
            return how, ":".join(parts)
        if how == "suffix":
            return how, custom_id + rng.choice([":", ":0", ":x", " ", "\u200b"])
        if how == "truncate":
            return how, custom_id[: rng.randrange(0, max(1, len(custom_id)))]
        if how == "unicode":
            i = rng.randrange(0, len(custom_id) + 1)
            return how, custom_id[:i] + rng.choice(ODD) + custom_id[i:]
        return "long", (custom_id + ":" + "9" * 100)[:100]

    def classify_component(self, custom_id: str, ctype: int, values: list[str] | None, user: FakeUser,
                           guild_id: int | None, on_message: bool, trust_ply: bool = True,
                           channel_id: int | None = None) -> Expect:
        """Refuse when certainly invalid; otherwise read (look-only components) or any."""
        if not on_message:
            return Expect.REFUSE  # Discord only sends what is on the message: an impostor, answered, never obeyed
        match, template = self.template_of(custom_id)
        if match is None or template is None:
            return Expect.REFUSE
        groups = match.groupdict()
        if template.read_only:
            if groups.get("scope") is not None and int(groups["scope"]) not in (0, guild_id):
                return Expect.REFUSE
            return Expect.READ
        stored = self.stored()
        if template.lobby:
            lobby = stored.lobbies.get(int(groups["lobby"]))
            if lobby is None or lobby["guild"] != guild_id or lobby["status"] != "open":
                return Expect.REFUSE
            members = stored.members.get(int(groups["lobby"]), [])
            if template.component is JoinButton:
                return Expect.REFUSE if user.id in members or len(members) >= lobby["max"] else Expect.ANY
            if template.component is LeaveButton:
                return Expect.ANY if user.id in members else Expect.REFUSE
            return Expect.ANY if user.id == lobby["host"] else Expect.REFUSE
        game_id = int(groups["game"])
        game = stored.games.get(game_id)
        if template.rematch:  # any player of a finished game, in the game's channel
            seated = user.id in stored.seats.get(game_id, set())
            ok = (game is not None and game["guild"] == guild_id and game["channel"] == channel_id
                  and game["status"] == "finished" and seated)
            return Expect.ANY if ok else Expect.REFUSE
        elsewhere = game is not None and game["guild"] != guild_id and not (template.in_dms and guild_id is None)
        if game is None or game["kind"] != template.kind or elsewhere:
            return Expect.REFUSE
        if template.legend:
            return Expect.READ  # the rank legend: anyone who sees a Generals board may read it, in any phase
        if user.id not in stored.seats.get(game_id, set()) or game["status"] not in ("active", "pending"):
            return Expect.REFUSE
        if self.is_out(game_id, user.id):  # out of a game that goes on: nothing left to do in it
            return Expect.REFUSE
        if ctype == SELECT and not values:
            return Expect.REFUSE
        ply = groups.get("ply")
        if trust_ply and ply is not None and game["status"] == "active" and int(ply) != self.turn_token(game):
            return Expect.REFUSE
        if groups.get("number") is not None and (game_id, int(groups["number"])) not in stored.deals:
            return Expect.REFUSE
        return Expect.ANY

    def modal_submit(self) -> Case | None:
        """A form the bot showed, filled in oddly, by its opener or someone else, for its game or another."""
        if not self.modals:
            return None
        rng = self.rng
        modal, opener, channel, source = rng.choice(self.modals)
        custom_id = str(modal.get("custom_id", ""))
        prefix, _, rest = custom_id.partition(":")
        number, _, what = rest.partition(":")
        how = rng.choice(["as shown", "other game", "missing game", "huge id", "odd values", "huge values",
                          "no fields"])
        if how in ("other game", "missing game", "huge id") and number.isdigit():
            games = list(self.stored().games) or [1]
            value = {"other game": rng.choice(games), "missing game": max(games) + rng.randint(1, 99),
                     "huge id": rng.choice([10**18 - 1, 2**63 - 1])}[how]
            custom_id = f"{prefix}:{value}:{what}"
        rows = []
        for top in modal.get("components", []):
            inner = top.get("components", []) if top.get("type") == Component.ACTION_ROW else [top.get("component", {})]
            answers = []
            for field_ in inner:
                if field_.get("type") != 4:
                    continue
                answer = {"odd values": self.text(0, 40), "huge values": self.text(4000, 4000)}.get(
                    how, str(field_.get("value") or self.text(1, 12)))
                answers.append({"type": Component.TEXT_INPUT, "custom_id": field_.get("custom_id"), "value": answer})
            if answers and how != "no fields":
                rows.append({"type": Component.ACTION_ROW, "components": answers})
        data = {"custom_id": custom_id, "components": rows}
        user = opener if rng.random() < 0.6 else rng.choice(self.users)
        if channel.is_dm:
            user = self.fake.users.get(channel.recipient_id or 0, user)
        expect = self.classify_form(custom_id, user, channel.guild_id)
        return Case(f"modal/{how}", expect, InteractionType.MODAL_SUBMIT, user, channel, data, source=source,
                    label=f"{user.name} submits {custom_id!r} {json.dumps(rows)[:120]} in {channel.name}")

    def classify_form(self, custom_id: str, user: FakeUser, guild_id: int | None) -> Expect:
        prefix, _, rest = custom_id.partition(":")
        number = rest.partition(":")[0]
        kind = self.modal_kinds.get(prefix)
        template = next((t for t in self.templates if t.kind == kind), None)
        if kind is None or template is None or not number.isdigit():
            return Expect.ANY
        stored = self.stored()
        game = stored.games.get(int(number))
        elsewhere = game is not None and game["guild"] != guild_id and not (template.in_dms and guild_id is None)
        if (game is None or game["kind"] != kind or elsewhere or game["status"] not in ("active", "pending")
                or user.id not in stored.seats.get(int(number), set()) or self.is_out(int(number), user.id)):
            return Expect.REFUSE
        return Expect.ANY

    # ..... slash commands
    def text(self, low: int, high: int) -> str:
        """Random text of a length in [low, high], mixing plain letters and odd unicode."""
        rng = self.rng
        size = rng.randint(low, high)
        pieces: list[str] = []
        length = 0
        while length < size:
            piece = rng.choice(ODD) if rng.random() < 0.3 else rng.choice(
                ["red", "blue", "cutoff", "suicide", "1312", " ", "a", "Z", "9", "-", ":", "é", "ß"])
            pieces.append(piece)
            length += len(piece)
        return "".join(pieces)[:size]

    def _valid_value(self, option: dict[str, Any], path: list[str], channel: FakeChannel) -> Any:
        rng = self.rng
        kind = option["type"]
        if option.get("choices"):
            return rng.choice(option["choices"])["value"]
        if kind == OptionType.STRING:
            low, high = option.get("min_length", 0), option.get("max_length", 100)
            return self.text(low, high if rng.random() < 0.1 else min(high, low + 24))
        if kind == OptionType.INTEGER:
            low, high = option.get("min_value", -5), option.get("max_value", 10**6)
            if option["name"] == "game" and rng.random() < 0.8:
                return rng.choice(list(self.stored().games) or [1])
            return rng.randint(low, high) if rng.random() < 0.5 else rng.choice([low, high, min(low + 1, high)])
        if kind == OptionType.NUMBER:
            return rng.uniform(option.get("min_value", -1e6), option.get("max_value", 1e6))
        if kind == OptionType.BOOLEAN:
            return rng.random() < 0.5
        if kind in (OptionType.USER, OptionType.MENTIONABLE):
            return rng.choice([*self.users, self.fake.bot_user])
        if kind == OptionType.CHANNEL:
            return rng.choice([c for c in self.channels if c.guild_id == channel.guild_id] or self.channels)
        return None

    def _typed(self, option: dict[str, Any], value: Any, resolved: dict[str, Any], guild_id: int | None) -> Any:
        """The wire form of a value; users and channels go into `resolved` as Discord does."""
        if isinstance(value, FakeUser):
            resolved.setdefault("users", {})[str(value.id)] = user_payload(value)
            if guild_id is not None:
                member = member_payload(None, permissions=EVERYONE_PERMISSIONS)
                resolved.setdefault("members", {})[str(value.id)] = member
            return str(value.id)
        if isinstance(value, FakeChannel):
            data = channel_payload(value)
            data["permissions"] = str(EVERYONE_PERMISSIONS)
            resolved.setdefault("channels", {})[str(value.id)] = data
            return str(value.id)
        return value

    def _data(self, top: dict[str, Any], path: list[str], options: list[dict[str, Any]],
              resolved: dict[str, Any]) -> dict[str, Any]:
        wrapped: list[dict[str, Any]] = options
        node = top
        chain = []
        for name in path[1:]:
            node = next(o for o in node.get("options", []) if o.get("name") == name)
            chain.append(node)
        for sub in reversed(chain):
            wrapped = [{"name": sub["name"], "type": sub["type"], "options": wrapped}]
        data: dict[str, Any] = {"id": top["id"], "name": top["name"], "type": CommandType.CHAT_INPUT}
        if wrapped:
            data["options"] = wrapped
        if resolved:
            data["resolved"] = resolved
        return data

    def _leaf(self, path: list[str] | None = None) -> tuple[list[str], dict[str, Any], dict[str, Any]]:
        """The (sub)command at `path`, or a random one."""
        leaves = list(self._leaves())
        return next(leaf for leaf in leaves if leaf[0] == path) if path else self.rng.choice(leaves)

    def _place(self, path: list[str]) -> tuple[FakeUser, FakeChannel, int]:
        user = self.rng.choice(self.users)
        channel = self.rng.choice([*self.channels, *self._threads()])
        permissions = PERM_MANAGE_GUILD if path[0] == "settings" and self.rng.random() < 0.5 else 0
        return user, channel, permissions

    def _threads(self) -> list[FakeChannel]:
        return [c for c in self.fake.channels.values() if c.is_thread]

    def slash_case(self, family: str, path: list[str], user: FakeUser, channel: FakeChannel,
                   values: dict[str, Any], permissions: int = 0) -> Case | None:
        """A well-formed command with these values, classified from the stored state."""
        found = next(((top, leaf) for p, top, leaf in self._leaves() if p == path), None)
        if found is None:
            return None
        top, leaf = found
        resolved: dict[str, Any] = {}
        options = [{"name": o["name"], "type": o["type"], "value": self._typed(o, values[o["name"]], resolved,
                                                                                channel.guild_id)}
                   for o in leaf.get("options", []) if o["name"] in values]
        data = self._data(top, path, options, resolved)
        expect = self.classify_slash(path, values, user, channel, permissions)
        label = f"{user.name} /{' '.join(path)} {_show(values)} in {channel.name}"
        return Case(family, expect, InteractionType.APPLICATION_COMMAND, user, channel, data, permissions=permissions,
                    label=label)

    def slash_valid(self, leaf_path: list[str] | None = None) -> Case | None:
        """Any command with values Discord would accept (including odd unicode), anywhere, by anyone."""
        path, _top, leaf = self._leaf(leaf_path)
        user, channel, permissions = self._place(path)
        if self.rng.random() < 0.15:
            channel = self.fake.dm_channel(user)
        values = {}
        for option in leaf.get("options", []):
            if option.get("required") or self.rng.random() < 0.5:
                values[option["name"]] = self._valid_value(option, path, channel)
        return self.slash_case("slash/valid", path, user, channel, values, permissions)

    def classify_slash(self, path: list[str], values: Mapping[str, Any], user: FakeUser, channel: FakeChannel,
                       permissions: int) -> Expect:
        command = self._app_command(path)
        if command is None:
            return Expect.REFUSE
        in_dm = channel.guild_id is None
        if in_dm and is_guild_only(command):
            return Expect.REFUSE
        if path[0] == "settings" and not permissions & PERM_MANAGE_GUILD:
            return Expect.REFUSE
        if " ".join(path) in READ_ONLY:
            return Expect.READ
        kind = self._kind_of_command(path[0])
        if kind is not None and any(p.name == "game" for p in command.parameters):
            # A command that acts on the user's game: named, or the one they play here (from a DM: anywhere,
            # for games whose private boards are in DMs).
            stored = self.stored()
            anywhere = in_dm and any(t.in_dms for t in self.templates if t.kind == kind)
            if "game" in values:
                game = stored.games.get(int(values["game"]))
                elsewhere = game is not None and game["guild"] != channel.guild_id and not anywhere
                if (game is None or game["kind"] != kind or elsewhere
                        or game["status"] != "active" or user.id not in stored.seats.get(int(values["game"]), set())
                        or self.is_out(int(values["game"]), user.id)):
                    return Expect.REFUSE
            else:
                mine = [i for i, g in stored.games.items()
                        if g["kind"] == kind and g["status"] == "active" and user.id in stored.seats.get(i, set())
                        and (anywhere or channel.id in (g["channel"], g["thread"]))]
                if not mine or (len(mine) == 1 and self.is_out(mine[0], user.id)):
                    return Expect.REFUSE
        return Expect.ANY

    def slash_malformed(self, leaf_path: list[str] | None = None) -> Case | None:
        """A command with one thing Discord would never let through: refused, whatever else it says."""
        rng = self.rng
        path, top, leaf = self._leaf(leaf_path)
        user, channel, _ = self._place(path)
        permissions = PERM_MANAGE_GUILD if path[0] == "settings" else 0
        specs = list(leaf.get("options", []))
        resolved: dict[str, Any] = {}
        options = [{"name": o["name"], "type": o["type"],
                    "value": self._typed(o, self._valid_value(o, path, channel), resolved, channel.guild_id)}
                   for o in specs if o.get("required") or rng.random() < 0.4]
        hows = ["unknown option", "broken shape"]
        if specs:
            hows += ["wrong type"] * 3 + ["missing value", "type field", "duplicate"]
        if any(o["type"] in (4, 10) for o in specs):
            hows += ["out of range"] * 2
        if any(o["type"] == 3 and not o.get("choices") and o.get("max_length") for o in specs):
            hows += ["too long"] * 2
        if any(o["type"] == 3 and o.get("min_length", 0) > 0 for o in specs):
            hows.append("too short")
        if any(o["type"] == 3 and not o.get("choices") for o in specs):
            hows.append("lone surrogate")
        if any(o.get("choices") for o in specs):
            hows += ["bad choice"] * 2
        if any(o.get("required") for o in specs):
            hows.append("missing required")
        if any(o["type"] in (6, 7) for o in specs):
            hows.append("unresolved")
        if any(o["type"] == 7 for o in specs):
            hows.append("foreign channel")
        how = rng.choice(hows)

        def pick(test: Any) -> dict[str, Any]:
            spec = rng.choice([o for o in specs if test(o)])
            entry = next((e for e in options if e["name"] == spec["name"]), None)
            if entry is None:
                entry = {"name": spec["name"], "type": spec["type"], "value": None}
                options.append(entry)
            return entry

        if how == "unknown option":
            options.append({"name": rng.choice([self.text(1, 32), "x" * 200, "game ", "GAME"]),
                            "type": OptionType.STRING, "value": "x"})
        elif how == "broken shape":
            broken = rng.choice(["options", [1, 2], [{"type": "x"}], [{"name": 5, "type": 3, "value": 1}], None,
                                 {"name": "x"}])
            data = self._data(top, path, [], resolved)
            target = data
            while target.get("options") and target["options"][0].get("type") in SUBCOMMANDS:
                target = target["options"][0]
            target["options"] = broken
            return Case("slash/malformed broken shape", Expect.REFUSE, InteractionType.APPLICATION_COMMAND, user,
                        channel, data, permissions=permissions,
                        label=f"{user.name} /{' '.join(path)} options={broken!r}")
        elif how == "wrong type":
            entry = pick(lambda o: True)
            wrong: dict[int, list[Any]] = {
                3: [7, 1.5, True, None, ["a"], {"a": 1}], 4: ["12", 1.5, True, None, [], {}, "1e3"],
                5: ["true", 1, 0, None, "yes"], 6: ["abc", None, 1.5, True], 7: ["abc", None, [], True],
                10: ["1.5", True, None, "nan"]}
            entry["value"] = rng.choice(wrong.get(entry["type"], [None]))
        elif how == "missing value":
            entry = pick(lambda o: True)
            del entry["value"]
        elif how == "type field":
            entry = pick(lambda o: True)
            entry["type"] = rng.choice([t for t in (3, 4, 5, 6, 7, 10, 11, 99) if t != entry["type"]])
        elif how == "duplicate":
            entry = pick(lambda o: True)
            options.append(dict(entry))
        elif how == "out of range":
            entry = pick(lambda o: o["type"] in (4, 10))
            spec = next(o for o in specs if o["name"] == entry["name"])
            low, high = spec.get("min_value"), spec.get("max_value")
            choices = [2**53 + 1, -(2**53) - 1, 10**30, -(10**30)]
            if low is not None:
                choices += [low - 1, low - 1000]
            if high is not None:
                choices += [high + 1, high * 1000 + 1]
            entry["value"] = rng.choice(choices)
        elif how == "too long":
            entry = pick(lambda o: o["type"] == 3 and not o.get("choices") and o.get("max_length"))
            spec = next(o for o in specs if o["name"] == entry["name"])
            entry["value"] = self.text(spec["max_length"] + 1, rng.choice([spec["max_length"] + 5, HUGE]))
        elif how == "lone surrogate":
            entry = pick(lambda o: o["type"] == 3 and not o.get("choices"))
            entry["value"] = "a" + LONE_SURROGATE
        elif how == "too short":
            entry = pick(lambda o: o["type"] == 3 and o.get("min_length", 0) > 0)
            entry["value"] = ""
        elif how == "bad choice":
            entry = pick(lambda o: bool(o.get("choices")))
            spec = next(o for o in specs if o["name"] == entry["name"])
            entry["value"] = rng.choice(["", "EASY", "impossible", self.text(1, 40)] if spec["type"] == 3
                                        else [-1, 10**6, 7])
        elif how == "missing required":
            required = [o["name"] for o in specs if o.get("required")]
            drop = rng.choice(required)
            options = [e for e in options if e["name"] != drop]
        elif how == "unresolved":
            entry = pick(lambda o: o["type"] in (6, 7))
            entry["value"] = str(rng.choice([1, 10**17, self.fake.ids.next()]))
        elif how == "foreign channel":
            entry = pick(lambda o: o["type"] == 7)
            elsewhere = [c for c in self.channels if c.guild_id != channel.guild_id] or [self.fake.dm_channel(user)]
            entry["value"] = self._typed({}, rng.choice(elsewhere), resolved, channel.guild_id)
            if channel.guild_id is None:
                how = "foreign channel (dm)"
        data = self._data(top, path, options, resolved)
        label = f"{user.name} /{' '.join(path)} {json.dumps(options, default=str)[:160]} in {channel.name}"
        return Case(f"slash/malformed {how}", Expect.REFUSE, InteractionType.APPLICATION_COMMAND, user, channel, data,
                    permissions=permissions, label=label)

    def slash_context(self) -> Case | None:
        """Well-formed commands from the wrong place or person, or that the bot never registered."""
        rng = self.rng
        how = rng.choice(["dm", "no manage server", "unknown command", "unknown subcommand", "group only"])
        user = rng.choice(self.users)
        if how == "dm":
            leaves = [(p, leaf) for p, _t, leaf in self._leaves()
                      if (c := self._app_command(p)) is not None and is_guild_only(c)]
            return self.slash_in_dm(*rng.choice(leaves)) if leaves else None
        if how == "no manage server":
            leaves = [(p, leaf) for p, _t, leaf in self._leaves() if p[0] == "settings"]
            path, leaf = rng.choice(leaves)
            values = {o["name"]: self._valid_value(o, path, self.channels[0]) for o in leaf.get("options", [])
                      if o.get("required") or rng.random() < 0.5}
            return self.slash_case("slash/context no manage server", path, user, rng.choice(self.channels), values,
                                   rng.choice([0, 1 << 4, 1 << 13]))
        channel = rng.choice([*self.channels, self.fake.dm_channel(user)])
        top = rng.choice(self.commands)
        if how == "unknown command":
            data: dict[str, Any] = {"id": str(self.fake.ids.next()),
                                    "name": rng.choice(["generals", "chess", self.text(1, 32)]),
                                    "type": CommandType.CHAT_INPUT}
        elif how == "unknown subcommand":
            data = {"id": top["id"], "name": top["name"], "type": CommandType.CHAT_INPUT,
                    "options": [{"name": rng.choice(["play", self.text(1, 20)]), "type": OptionType.SUB_COMMAND,
                                 "options": []}]}
        else:
            groups = [c for c in self.commands if any(o.get("type") in SUBCOMMANDS for o in c.get("options", []))]
            top = rng.choice(groups)
            data = {"id": top["id"], "name": top["name"], "type": CommandType.CHAT_INPUT}
        return Case(f"slash/context {how}", Expect.REFUSE, InteractionType.APPLICATION_COMMAND, user, channel, data,
                    label=f"{user.name} {json.dumps(data)[:160]} in {channel.name}")

    def slash_in_dm(self, path: list[str], leaf: dict[str, Any]) -> Case | None:
        """A command for servers only, sent from a DM (Discord hides it there; an old client may not)."""
        rng = self.rng
        user = rng.choice(self.users)
        values = {o["name"]: self._valid_value(o, path, self.channels[0]) for o in leaf.get("options", [])
                  if o.get("required") or rng.random() < 0.5}
        values = {k: v for k, v in values.items() if not isinstance(v, FakeChannel)}
        case = self.slash_case("slash/context dm", path, user, self.fake.dm_channel(user), values,
                               PERM_MANAGE_GUILD if rng.random() < 0.5 else 0)
        if case is not None:
            case.expect = Expect.REFUSE
        return case

    def autocomplete(self, only: tuple[list[str], str] | None = None) -> Case | None:
        """Typing into an option with suggestions: odd text, huge text, or a value that is not text."""
        rng = self.rng
        candidates = [(p, top, leaf, o) for p, top, leaf in self._leaves() for o in leaf.get("options", [])
                      if o.get("autocomplete") and (only is None or (p, o["name"]) == only)]
        if not candidates:
            return None
        path, top, leaf, focused = rng.choice(candidates)
        user, channel, permissions = self._place(path)
        resolved: dict[str, Any] = {}
        options = []
        for o in leaf.get("options", []):
            if o is focused:
                value: Any = rng.choice([self.text(0, 30), self.text(0, 30), self.text(150, 200),
                                         self.text(HUGE, HUGE), 5, None, ["x"]])
                options.append({"name": o["name"], "type": o["type"], "value": value, "focused": True})
            elif rng.random() < 0.4:
                options.append({"name": o["name"], "type": o["type"],
                                "value": self._typed(o, self._valid_value(o, path, channel), resolved,
                                                     channel.guild_id)})
        if rng.random() < 0.1:
            options.append({"name": rng.choice([o["name"] for o in leaf["options"]]), "type": OptionType.STRING,
                            "value": "x", "focused": True})
        data = self._data(top, path, options, resolved)
        label = f"{user.name} types into /{' '.join(path)} {focused['name']}: {json.dumps(options)[:120]}"
        return Case("autocomplete", Expect.READ, InteractionType.APPLICATION_COMMAND_AUTOCOMPLETE, user, channel, data,
                    permissions=permissions, label=label)


def command_paths(commands: list[dict[str, Any]]) -> set[str]:
    """`chopsticks new`, `stats`, ...: every invocable (sub)command of registered definitions."""
    def walk(node: dict[str, Any], path: list[str]) -> Iterator[str]:
        subs = [o for o in node.get("options", []) if o.get("type") in SUBCOMMANDS]
        if not subs:
            yield " ".join(path)
        for sub in subs:
            yield from walk(sub, [*path, sub["name"]])
    return {p for c in commands if c.get("type", 1) == 1 for p in walk(c, [c["name"]])}


def _path_of(data: Mapping[str, Any]) -> str:
    """`chopsticks new` from a command interaction's data (as far as it is well formed)."""
    names = [str(data.get("name"))]
    options = data.get("options")
    while (isinstance(options, list) and options and isinstance(options[0], dict)
           and options[0].get("type") in SUBCOMMANDS):
        names.append(str(options[0].get("name")))
        options = options[0].get("options")
    return " ".join(names)


def _brief(text: str) -> str:
    """A problem in a few lines: the first, and the end of a traceback."""
    lines = text.splitlines()
    return "\n    ".join([lines[0][:400], *lines[1:][-6:]])


def _show(values: Mapping[str, Any]) -> str:
    shown = {k: (v.name if isinstance(v, FakeUser | FakeChannel) else v) for k, v in values.items()}
    return json.dumps(shown, default=str, ensure_ascii=True)[:160]


# ----- setting up the world -------------------------------------------------------------------------------------
async def build_world(fake: FakeDiscord) -> tuple[list[FakeGuild], list[FakeChannel], list[FakeUser]]:
    """Two servers with a channel each, and players; call before the bot starts."""
    guilds = [fake.add_guild("Game Night"), fake.add_guild("Elsewhere")]
    channels = [fake.add_channel(guilds[0], "games"), fake.add_channel(guilds[1], "games-too")]
    users = [fake.add_user(n) for n in ("alice", "bob", "carol", "dave", "erin", "mallory")]
    users.append(fake.add_user("otherbot", bot=True))
    return guilds, channels, users


async def start_games(fake: FakeDiscord, bot: TabletopBot, channels: list[FakeChannel],
                      users: list[FakeUser]) -> list[tuple[InteractionResult, str]]:
    """Real games of every kind on both servers, so there are real components to click and forge; returns the
    forms the bot showed on the way (and the id clicked for each)."""
    forms: list[tuple[InteractionResult, str]] = []
    alice, bob, carol, dave, erin, _mallory, _otherbot = users
    here, there = channels

    def button(message: FakeMessage, label: str) -> str:
        return str(next(b["custom_id"] for b in message.buttons() if b.get("label", "").startswith(label)))

    async def slash(user: FakeUser, channel: FakeChannel, command: str, sub: str | None,
                    options: dict[str, Any]) -> FakeMessage:
        res = await fake.slash(user, channel, command, sub, options=options, timeout=15)
        if res.callback_type == Callback.DEFERRED_CHANNEL_MESSAGE:
            await res.wait_for_original(15)
        assert res.message is not None, res.errors
        return res.message

    async def lobby(host: FakeUser, channel: FakeChannel, command: str, options: dict[str, Any],
                    joiners: list[FakeUser], bots: int, start: bool) -> FakeMessage:
        message = await slash(host, channel, command, "new", options)
        for user in joiners:
            await fake.click(user, message, button(message, "Join"))
        for _ in range(bots):
            await fake.click(host, message, button(message, "Add bot"))
        if start:
            await fake.click(host, message, button(message, "Start"))
        return message

    for channel, (one, two) in ((here, (alice, bob)), (there, (bob, alice))):
        board = await slash(one, channel, "chopsticks", "challenge", {"opponent": two})
        await fake.click(two, board, button(board, "Accept"))
        await lobby(one, channel, "sucker", {"players": 4}, [two, carol], 1, True)
    await slash(carol, here, "chopsticks", "challenge", {"opponent": dave})  # stays pending
    await slash(alice, here, "chopsticks", "challenge", {"level": "easy"})
    await lobby(bob, here, "chopsticks", {"players": 4, "hands": 3, "hints": True}, [carol], 2, True)
    await lobby(erin, here, "chopsticks", {"players": 3}, [], 0, False)
    await lobby(dave, there, "sucker", {"players": 3}, [erin], 0, False)
    await slash(alice, here, "sucker", "deal", {"text": "I give blue to whoever helps me"})
    if any(c["name"] == "generals" for c in fake.registered_commands()):
        # Against the bot, deployed and ready, so that boards with move buttons exist; and a pending challenge.
        await slash(erin, here, "generals", "challenge", {"level": "random"})

        def private_board() -> FakeMessage | None:
            return next((m for m in reversed(fake.dm_messages(erin))
                         if any(c.endswith(":formation") for c in m.custom_ids())), None)

        await fake.wait_until(lambda: private_board() is not None, timeout=15)
        dm_board = private_board()
        assert dm_board is not None
        formation = next(c for c in dm_board.custom_ids() if c.endswith(":formation"))
        await fake.select(erin, dm_board, formation, ["f:balanced"], timeout=15)
        for tool in [c for c in dm_board.custom_ids() if c.endswith((":swap", ":import", ":save"))]:
            opened = await fake.click(erin, dm_board, tool, timeout=15)
            if opened.modal is not None:
                forms.append((opened, tool))
        await fake.click(erin, dm_board, next(c for c in dm_board.custom_ids() if c.endswith(":ready")), timeout=15)
        await bot.computer_turns.idle()  # the bot deploys (and may move first): then erin picks a piece to move
        await fake.wait_until(lambda: any(":piece:" in c for c in dm_board.custom_ids()), timeout=15)
        menu = next(c for c in dm_board.selects() if ":piece:" in str(c["custom_id"]))
        await fake.select(erin, dm_board, str(menu["custom_id"]), [menu["options"][0]["value"]], timeout=15)
        await slash(dave, here, "generals", "challenge", {"opponent": carol})
    await slash(carol, here, "leaderboard", None, {"game": "chopsticks"})
    await slash(carol, here, "replay", None, {"game": 1})
    await bot.computer_turns.idle()
    return forms


async def fuzz(fake: FakeDiscord, bot: TabletopBot, database: Target, guilds: list[FakeGuild],
               channels: list[FakeChannel], users: list[FakeUser], interactions: int, seed: int) -> Figures:
    """Set up games, then fuzz; the log capture covers both, at DEBUG, for faults and the token."""
    # The bot's clock stands still during an interaction, so that each is judged against one position, and jumps
    # between them: reminders, forfeits and expiries fire, and games end, while the hostile input goes on.
    clock = VirtualClock(time.time())
    bot.service.clock = clock
    fuzzer = Fuzzer(fake, bot, database, random.Random(seed), guilds, channels, users, clock)
    capture = LogCapture(fake.token, fuzzer.figures, fuzzer.current)
    root = logging.getLogger()
    level = root.level
    root.addHandler(capture)
    root.setLevel(logging.DEBUG)
    try:
        for shown, clicked in await start_games(fake, bot, channels, users):
            fuzzer.remember_form(shown, clicked)
        fuzzer.commands = [c for c in fake.registered_commands() if c.get("type", 1) == 1]
        return await fuzzer.run(interactions)
    finally:
        fuzzer.db.close()  # before the database may be dropped (PostgreSQL refuses while a pool is connected)
        root.removeHandler(capture)
        root.setLevel(level)


async def _main(interactions: int, seed: int, database: str) -> int:
    from tests.support.postgres import create_database, running_server
    from tests.support.world import VALIDATOR, TabletopRunner

    # Every request the bot makes is checked against Discord's API description; the fake's own answers are
    # not (they are the same few shapes again and again, and checking them doubles the run time).
    fake = FakeDiscord(validator=VALIDATOR, check_responses=False)
    await fake.start()
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        target = str(Path(tmp) / "fuzz.sqlite3")
        if database == "postgresql":
            target = await create_database(stack.enter_context(running_server()), "fuzz")
        try:
            async with TabletopRunner.on(fake, target, Path(tmp)) as runner:
                guilds, channels, users = await build_world(fake)
                bot = await runner.start_with(**BOT_SETTINGS)
                figures = await fuzz(fake, bot, target, guilds, channels, users, interactions, seed)
        finally:
            await fake.close()
    print(f"seed {seed}; {'PostgreSQL' if database == 'postgresql' else 'SQLite'}; "
          f"API description {'checked' if VALIDATOR is not None else 'NOT checked (spec missing)'}")
    print(figures.report())
    return 1 if figures.problems() else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--interactions", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--database", choices=("sqlite", "postgresql"), default="sqlite",
                        help="a SQLite file (default) or a database on a throwaway PostgreSQL server")
    args = parser.parse_args(argv)
    return asyncio.run(_main(args.interactions, args.seed, args.database))


if __name__ == "__main__":
    sys.exit(main())
