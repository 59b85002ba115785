"""Golden transcripts: a scripted game through the offline Discord, and everything each participant receives.

    python -m tests.tools.transcript SCENARIO|all [--lang ru] [--pictures DIR] [--write] [--check] [--list]

Each scenario starts the real bot on a new SQLite file against a new offline Discord (a server "Game Night" with the
channel #games and the people alice, bob, carol and dave, all in the chosen language, the server too), plays its
script and prints, step by step, each action of a player (▶) and then every message the bot sent or changed because
of it, under who can see it: the channel (everyone), a thread, "only @x sees" (an ephemeral answer) or "DM to @x".
A message is shown as it stands once the bot has gone quiet after the action: its text, embeds, pictures (file name,
size; saved under DIR with --pictures), buttons (colour, disabled) and menus (every option), and whom it pinged. At
the end: how many notifications (pings and DMs) each participant got, and by which messages.

The time is pinned (the bot's clock starts at a fixed moment and moves 5 s per action; timestamps are written
relative to it), and so is the randomness (who moves first, and the computer players' choices through
`GameService.computer_seed`, which only tests set). The files live in tests/transcripts/<lang>/<scenario>.txt:
--write rewrites them, --check compares (tests/bot/test_transcripts.py does so for every scenario in both languages).
"""

from __future__ import annotations

import argparse
import asyncio
import difflib
import logging
import random
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import bot.service.computer_turns
from bot import workers
from bot.client import TabletopBot
from tests.support.clock import Clock
from tests.support.fakediscord import FakeChannel, FakeDiscord, FakeGuild, FakeMessage, FakeUser, InteractionResult
from tests.support.interactions import bot_idle
from tests.support.world import TabletopRunner
from tests.tools.transcript_record import Recorder

TRANSCRIPTS = Path(__file__).resolve().parents[1] / "transcripts"
PICTURES = TRANSCRIPTS / "pictures"  # the pictures of the latest --write, beside the texts (not in git)
LANGUAGES = ("en", "ru")
START = 2_000_000_000.0  # the bot's clock at the start of every scenario (18 May 2033, far from the real time)
STEP = 5.0  # seconds the clock moves per action of a player
SEED = 23
PEOPLE = ("alice", "bob", "carol", "dave")


class ScenarioError(AssertionError):
    """The script could not go on: the bot did not offer what it expected (its controls changed?)."""


@dataclass
class Table:
    """One scenario's world: the offline Discord, the bot, the pinned clock and the recorder."""

    fake: FakeDiscord
    guild: FakeGuild
    channel: FakeChannel
    people: dict[str, FakeUser]
    bot: TabletopBot
    clock: Clock
    rec: Recorder

    @property
    def alice(self) -> FakeUser:
        return self.people["alice"]

    @property
    def bob(self) -> FakeUser:
        return self.people["bob"]

    @property
    def carol(self) -> FakeUser:
        return self.people["carol"]

    @property
    def dave(self) -> FakeUser:
        return self.people["dave"]

    async def quiet(self) -> None:
        """Wait until the bot has done everything the last action started."""
        for _ in range(3):
            if not await bot_idle(self.fake, timeout=60):
                raise ScenarioError("the bot kept working for a minute")
            busy = [t for t in asyncio.all_tasks() if t.get_name().startswith("dm-claim-") and not t.done()]
            if not busy:
                return
            await asyncio.wait(busy, timeout=30)

    def muted(self) -> _Muted:
        """Actions in this block are played but not written (a game played only to have its result)."""
        return _Muted(self)


class _Muted:
    def __init__(self, table: Table) -> None:
        self.table = table

    async def __aenter__(self) -> None:
        await self.table.quiet()
        self.table.rec.flush()
        self.table.rec.muted = True

    async def __aexit__(self, *exc: object) -> None:
        await self.table.quiet()
        self.table.rec.flush()
        self.table.rec.muted = False


def _label(message: FakeMessage, custom_id: str) -> str:
    for item in message.walk_components():
        if item.get("custom_id") == custom_id:
            emoji = (item.get("emoji") or {}).get("name")
            return " ".join(str(p) for p in (emoji, item.get("label")) if p) or custom_id
    return custom_id


def _option(message: FakeMessage, custom_id: str, value: str) -> tuple[str, str]:
    for item in message.walk_components():
        if item.get("custom_id") == custom_id:
            label = next((str(o.get("label")) for o in item.get("options") or [] if o.get("value") == value), value)
            return str(item.get("placeholder") or "menu"), label
    return "menu", value


def _value(value: Any) -> str:
    if isinstance(value, FakeUser):
        return value.mention
    if isinstance(value, FakeChannel):
        return f"<#{value.id}>"
    return str(value)


def watch_actions(table: Table) -> None:
    """Write every action a player takes through the fake (the scripts' own and the shared helpers'), after the bot
    has gone quiet from the previous one; the clock moves on by one step per action."""
    fake, rec, clock = table.fake, table.rec, table.clock
    slash, click, select, submit = fake.slash, fake.click, fake.select, fake.submit_modal

    async def step(who: FakeUser, words: str, act: Callable[[], Awaitable[InteractionResult]]) -> InteractionResult:
        await table.quiet()
        rec.action(who, words)
        clock.now += STEP
        res = await act()
        if res.modal is not None:
            rec.shown_form(who, res.modal)
        if res.errors or res.expired:
            rec.failed(who, res.errors or ["the bot answered too late"])
        return res

    async def on_slash(user: FakeUser, channel: FakeChannel, command: str, subcommand: str | None = None,
                       options: Mapping[str, Any] | None = None, **kwargs: Any) -> InteractionResult:
        words = " ".join(["/" + command, *([subcommand] if subcommand else []),
                          *(f"{k}:{_value(v)}" for k, v in (options or {}).items())])
        where = "" if channel is table.channel else f" in <#{channel.id}>" if channel.guild_id else " in their DMs"
        kwargs.setdefault("timeout", 30)
        return await step(user, f"types {words}{where}",
                          lambda: slash(user, channel, command, subcommand, options, **kwargs))

    async def on_click(user: FakeUser, message: FakeMessage, custom_id: str, **kwargs: Any) -> InteractionResult:
        kwargs.setdefault("timeout", 30)
        return await step(user, f"clicks [{_label(message, custom_id)}] on <message:{message.id}>",
                          lambda: click(user, message, custom_id, **kwargs))

    async def on_select(user: FakeUser, message: FakeMessage, custom_id: str, values: Sequence[str],
                        **kwargs: Any) -> InteractionResult:
        kwargs.setdefault("timeout", 30)
        menu, label = _option(message, custom_id, values[0])
        return await step(user, f"chooses “{label}” in «{menu}» on <message:{message.id}>",
                          lambda: select(user, message, custom_id, values, **kwargs))

    async def on_submit(user: FakeUser, shown: InteractionResult, values: Mapping[str, Any],
                        **kwargs: Any) -> InteractionResult:
        kwargs.setdefault("timeout", 30)
        typed = "; ".join(f"{k} = {v}" for k, v in values.items())
        return await step(user, f"fills in the form: {typed}", lambda: submit(user, shown, values, **kwargs))

    fake.slash = on_slash  # type: ignore[method-assign]
    fake.click = on_click  # type: ignore[method-assign]
    fake.select = on_select  # type: ignore[method-assign]
    fake.submit_modal = on_submit  # type: ignore[method-assign]


# ----- running one scenario ----------------------------------------------------------------------------------------
Script = Callable[[Table], Awaitable[None]]
SCENARIOS: dict[str, tuple[str, Script]] = {}


def scenario(name: str, about: str) -> Callable[[Script], Script]:
    def register(script: Script) -> Script:
        SCENARIOS[name] = (about, script)
        return script

    return register


async def run(name: str, lang: str, pictures: Path | None = None) -> str:
    """The transcript of scenario `name` in `lang`."""
    about, script = SCENARIOS[name]
    fake = FakeDiscord(check_responses=False)
    await fake.start()
    clock = Clock(START)
    try:
        guild = fake.add_guild("Game Night")
        guild.locale = "ru" if lang == "ru" else "en-US"
        channel = fake.add_channel(guild, "games")
        people = {who: fake.add_user(who) for who in PEOPLE}
        for user in people.values():
            user.locale = guild.locale
        rec = Recorder(fake, now=clock, wall=time.time, pictures=pictures, prefix=f"{name}-{lang}-")
        rec.name_guild(guild.id, "server")
        rec.name_channel(channel)
        for user in people.values():
            rec.name_user(user)
        with tempfile.TemporaryDirectory() as tmp:
            runner = TabletopRunner(fake, Path(tmp) / "bot.sqlite3")
            try:
                the_bot = await runner.start()
                the_bot.service.clock = clock
                the_bot.service.rng = random.Random(SEED)
                the_bot.service.computer_seed = f"transcript-{SEED}"
                table = Table(fake, guild, channel, people, the_bot, clock, rec)
                watch_actions(table)
                rec.lines.append(f"# {name} ({lang}): {about}")
                rec.lines.append("# server “Game Night”, channel #games; people: " + ", ".join(
                    "@" + who for who in PEOPLE) + f"; everyone's Discord and the server in {lang}")
                await script(table)
                await table.quiet()
                rec.notified(list(people.values()))
            finally:
                await runner.stop_all()
    finally:
        await fake.close()
    return "\n".join(rec.lines) + "\n"


def path_of(name: str, lang: str) -> Path:
    return TRANSCRIPTS / lang / f"{name}.txt"


def difference(name: str, lang: str, text: str) -> str | None:
    """A unified diff between the stored transcript and `text` (None when they are the same)."""
    path = path_of(name, lang)
    stored = path.read_text(encoding="utf-8") if path.exists() else ""
    if stored == text:
        return None
    return "".join(difflib.unified_diff(stored.splitlines(keepends=True), text.splitlines(keepends=True),
                                        f"{path.relative_to(TRANSCRIPTS.parent.parent)} (stored)",
                                        "what the bot sends now"))


async def run_many(names: list[str], lang: str, pictures: Path | None = None) -> dict[str, str]:
    """Several scenarios, one after the other (each on its own offline Discord and bot: discord.py's address of
    Discord is one per process, so two bots of one process cannot talk to two fakes at once)."""
    # The worker processes (computer players, pictures) are started once for all the scenarios: a bot that stops
    # does not end them while another user of the pools remains, and starting them again costs seconds.
    workers.start()
    try:
        return {name: await run(name, lang, pictures) for name in names}
    finally:
        await workers.stop()


def pinned_pace() -> None:
    """Computer players in a row wait a second between moves for people to watch: not here (the transcript shows
    the same steps whatever the pace)."""
    bot.service.computer_turns.COMPUTER_MOVE_INTERVAL = 0.01


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scenario", nargs="?", help="a scenario's name, or all")
    parser.add_argument("--lang", choices=LANGUAGES, default="en")
    parser.add_argument("--list", action="store_true", help="list the scenarios")
    parser.add_argument("--pictures", type=Path, help="save every picture the bot sends in this directory (with "
                        "--write: in tests/transcripts/pictures/ unless given)")
    parser.add_argument("--write", action="store_true", help="rewrite the stored transcripts")
    parser.add_argument("--check", action="store_true", help="compare with the stored transcripts (diff, exit 1)")
    args = parser.parse_args()
    if args.list or not args.scenario:
        for name, (about, _script) in SCENARIOS.items():
            print(f"{name:24} {about}")
        return 0
    names = list(SCENARIOS) if args.scenario == "all" else [args.scenario]
    unknown = [n for n in names if n not in SCENARIOS]
    if unknown:
        parser.error(f"no scenario {unknown[0]!r}; --list lists them")
    if args.pictures is None and args.write:
        # Rewritten transcripts are reviewed with their pictures at hand: saved beside them (not kept in git: their
        # bytes depend on the machine's fonts and Pillow, and the text already names each one with its size).
        args.pictures = PICTURES
    if args.pictures is not None:
        args.pictures.mkdir(parents=True, exist_ok=True)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("discord").setLevel(logging.ERROR)
    pinned_pace()
    texts = await run_many(names, args.lang, args.pictures)
    failed = 0
    for name in names:
        text = texts[name]
        if args.write:
            path_of(name, args.lang).parent.mkdir(parents=True, exist_ok=True)
            path_of(name, args.lang).write_text(text, encoding="utf-8")
            print(f"wrote {path_of(name, args.lang)}", file=sys.stderr)
        elif args.check:
            diff = difference(name, args.lang, text)
            if diff is not None:
                failed += 1
                sys.stdout.write(diff)
        else:
            sys.stdout.write(text)
    return 1 if failed else 0


# The scenarios' scripts (registered on import).
from tests.tools import transcript_scenarios  # noqa: E402,F401

if __name__ == "__main__":
    from tests.tools import transcript as tool  # the module the scenarios registered in (not __main__)

    sys.exit(asyncio.run(tool.main()))
