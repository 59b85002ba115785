"""Persistent buttons and menus: one base where a custom id's template, formatting and parsing live together.

A component is a few lines:

    class ResignButton(Button, custom_id=CustomId("cs:{game}:resign")):
        async def on_use(self, interaction: discord.Interaction[Any]) -> None: ...

    controls.add_item(ResignButton.of(game=12, label="Resign", style=discord.ButtonStyle.danger))

The template's fields become named groups (`game` and `ply` are numbers, anything else takes the pattern
given for it), `of` formats them, `self.fields` holds them parsed back, and a click reaches `on_use` through
`dispatch`: at most MAX_CONCURRENT_CLICKS at a time and MAX_CLICKS_PER_USER of one person's, every refusal answered
privately, and for a component of a game (`game_kind`) only when the game is one of that kind, played where the click
comes from. Custom ids carry game numbers, public move counts and public action texts only: never anything hidden.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections import Counter
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from contextvars import ContextVar
from typing import Any, ClassVar, Protocol, Self, TypeVar, cast

import discord

from bot import workers
from bot.errors import DISCORD_FAILED_TEXT, discord_failed, reply_with_error, tell
from bot.i18n import Say
from bot.service import GameService, ServiceError
from bot.service.computer_turns import ComputerTurns
from games.text import Text, TextIn

log = logging.getLogger(__name__)

# Clicks are handled at most this many at a time, in the order they arrived. Without a bound, a burst of
# clicks all progress together and all finish late (past Discord's 3 s to answer); with one, the first in
# are answered first and in time, and the total work is the same.
MAX_CONCURRENT_CLICKS = 64
# ... and at most this many of them one person's, counting those waiting for a slot: without it, one person's burst of
# clicks (Hint, clicked again and again) takes every slot and another person's Accept waits past Discord's 3 s. A
# person's click beyond it is refused at once, privately, and changes nothing. Four, not three: an impatient triple
# click just after one's own move (whose click is still under way while the next player's notification goes out)
# still gets its usual answers.
MAX_CLICKS_PER_USER = 4
WAIT_FOR_LAST_CLICK = Text("Wait for your last click to finish, then try again.")

GAME_ID = r"[0-9]{1,19}"
PLY = r"[0-9]{1,7}"
_DEFAULT_PATTERNS = {"game": GAME_ID, "ply": PLY}
_FIELD = re.compile(r"\{([a-z_]+)\}")
_NEVER = r"(?!x)x"  # the template of the abstract bases: matches nothing, so they are never dispatched to


class CustomId:
    """A custom id's shape, e.g. `CustomId("cs:{game}:mv:{ply}:{move}", move=r"[A-Za-z0-9-]{1,40}")`."""

    def __init__(self, template: str, **patterns: str) -> None:
        self.template = template
        self.names = tuple(_FIELD.findall(template))
        unknown = set(patterns) - set(self.names)
        if unknown:
            raise ValueError(f"{template!r} has no field {sorted(unknown)}")
        parts, last = [], 0
        for match in _FIELD.finditer(template):
            name = match[1]
            pattern = patterns.get(name) or _DEFAULT_PATTERNS.get(name)
            if pattern is None:
                raise ValueError(f"field {name!r} of {template!r} needs a pattern")
            parts += [re.escape(template[last:match.start()]), f"(?P<{name}>{pattern})"]
            last = match.end()
        parts.append(re.escape(template[last:]))
        self.pattern = "".join(parts)
        self._compiled = re.compile(self.pattern)

    def format(self, **values: object) -> str:
        if set(values) != set(self.names):
            raise ValueError(f"{self.template!r} takes {self.names}, not {sorted(values)}")
        text = self.template.format(**{k: str(v) for k, v in values.items()})
        if self._compiled.fullmatch(text) is None:
            raise ValueError(f"{text!r} does not fit {self.template!r}")
        return text

    def parse(self, custom_id: str) -> dict[str, str]:
        match = self._compiled.fullmatch(custom_id)
        if match is None:
            raise ValueError(f"{custom_id!r} does not fit {self.template!r}")
        return match.groupdict()


class _Component:
    """What buttons and menus share: fields parsed from the custom id, and the way a use is dispatched."""

    custom_id_shape: ClassVar[CustomId]
    # The game kind whose games this component acts on (its `game` field): checked before `on_use`.
    game_kind: ClassVar[str | None] = None
    fields: dict[str, str]

    def __init_subclass__(cls, *, custom_id: CustomId | None = None, **kwargs: Any) -> None:
        """`class X(Button, custom_id=CustomId(...))`: the shape becomes the template discord.py dispatches by."""
        if custom_id is not None:
            cls.custom_id_shape = custom_id
        if "template" not in kwargs:
            shape = getattr(cls, "custom_id_shape", None)
            kwargs["template"] = shape.pattern if shape is not None else _NEVER
        super().__init_subclass__(**kwargs)

    def _parse(self, custom_id: str) -> None:
        self.fields = self.custom_id_shape.parse(custom_id)

    @property
    def game_id(self) -> int:
        return int(self.fields["game"])

    @property
    def ply(self) -> int:
        return int(self.fields["ply"])

    @classmethod
    def _split(cls, values: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        """A custom id from the template's fields among `values`; the rest are the item's own options."""
        names = set(cls.custom_id_shape.names)
        custom_id = cls.custom_id_shape.format(**{k: v for k, v in values.items() if k in names})
        return custom_id, {k: v for k, v in values.items() if k not in names}

    @classmethod
    def of(cls, **values: Any) -> Self:
        """The component for these template fields and the item's own options (a button's label, style, row,
        disabled, emoji; a menu's options, placeholder, row)."""
        custom_id, options = cls._split(values)
        make: Callable[..., Self] = cls
        return make(custom_id, **options)

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        raise NotImplementedError  # every concrete component defines what its use does

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await self._dispatch(interaction)

    async def _dispatch(self, interaction: discord.Interaction[Any]) -> None:
        game_id = self.game_id if "game" in self.fields else None
        await dispatch(interaction, self.on_use, game_kind=self.game_kind, game_id=game_id)


class Button(_Component, discord.ui.DynamicItem[discord.ui.Button[Any]], template=_NEVER):
    """A persistent button; subclasses give `custom_id=CustomId(...)` and define `on_use`."""

    def __init__(self, custom_id: str, *, label: str = "·", style: discord.ButtonStyle = discord.ButtonStyle.secondary,
                 row: int | None = None, disabled: bool = False, emoji: str | None = None) -> None:
        super().__init__(discord.ui.Button(label=label, style=style, custom_id=custom_id, row=row, disabled=disabled,
                                           emoji=emoji))
        self._parse(custom_id)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> Self:
        assert isinstance(item, discord.ui.Button) and item.custom_id is not None
        return cls(item.custom_id, label=item.label or "·", style=item.style)

class Select(_Component, discord.ui.DynamicItem[discord.ui.Select[Any]], template=_NEVER):
    """A persistent menu; subclasses give `custom_id=CustomId(...)` and define `on_use` (the choice: `values`)."""

    def __init__(self, custom_id: str, *, options: list[discord.SelectOption] | None = None,
                 placeholder: str | None = None, row: int | None = None) -> None:
        super().__init__(discord.ui.Select(custom_id=custom_id, options=options or [], placeholder=placeholder,
                                           row=row))
        self._parse(custom_id)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> Self:
        assert isinstance(item, discord.ui.Select) and item.custom_id is not None
        return cls(item.custom_id, options=item.options, placeholder=item.placeholder)

    @property
    def values(self) -> list[str]:
        return list(self.item.values)

    def choice(self) -> str:
        """The one option chosen; refuses an empty choice."""
        if not self.item.values:
            raise ServiceError(Text("Choose one of the options."))
        return str(self.item.values[0])


class UserSelect(_Component, discord.ui.DynamicItem[discord.ui.UserSelect[Any]], template=_NEVER):
    """A persistent menu of the server's members (Discord lists them); subclasses give `custom_id=CustomId(...)` and
    define `on_use` (the people chosen: `users`)."""

    def __init__(self, custom_id: str, *, placeholder: str | None = None, row: int | None = None) -> None:
        super().__init__(discord.ui.UserSelect(custom_id=custom_id, placeholder=placeholder, row=row))
        self._parse(custom_id)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> Self:
        assert isinstance(item, discord.ui.UserSelect) and item.custom_id is not None
        return cls(item.custom_id, placeholder=item.placeholder)

    @property
    def users(self) -> list[int]:
        return [user.id for user in self.item.values]


def persistent_controls(*items: discord.ui.Item[Any]) -> discord.ui.View:
    """Controls that never time out (their components are answered by their custom ids, after a restart too) holding
    `items` in order."""
    controls = discord.ui.View(timeout=None)
    for item in items:
        controls.add_item(item)
    return controls


async def ask_to_confirm_resignation(interaction: discord.Interaction[Any], game_id: int, question: Text,
                                     confirm: type[Button]) -> None:
    """Resign's first step in every game: `question`, privately, with one red "Yes, resign" button (`confirm`, the
    game's own confirmation component), so that a misclick does not put anyone out."""
    say = Say.to(interaction)
    controls = persistent_controls(confirm.of(game=game_id, label=say(TextIn("button", "Yes, resign")),
                                          style=discord.ButtonStyle.danger))
    await interaction.response.send_message(say(question), view=controls, ephemeral=True)


PresenterT = TypeVar("PresenterT")
NOT_AVAILABLE = Text("This game is not available on this bot right now.")


def presenter_for(interaction: discord.Interaction[Any], kind: str, cls: type[PresenterT]) -> PresenterT:
    """The presenter of game `kind` on the bot this interaction came to (refused when there is none), as `cls`: its
    own class, or what the component asks of it (an abstract class or a runtime-checkable protocol, which mypy takes
    for `type[...]` only with `# type: ignore[type-abstract]`). A component's way back to the game it belongs to."""
    presenter = cast(GameHost, interaction.client).presenter(kind)
    if not isinstance(presenter, cls):
        raise ServiceError(NOT_AVAILABLE)
    return presenter


class ClickSlots:
    """The bot's click slots: at most `total` clicks handled at once, at most `per_user` of one person's (held or
    waiting for one)."""

    def __init__(self, total: int = MAX_CONCURRENT_CLICKS, per_user: int = MAX_CLICKS_PER_USER) -> None:
        self.per_user = per_user
        self._slots = asyncio.Semaphore(total)
        self._users: Counter[int] = Counter()  # clicks per person, held or waiting

    def of(self, user_id: int) -> int:
        """This person's clicks being handled or waiting now."""
        return self._users[user_id]

    def full_for(self, user_id: int) -> bool:
        """Whether this person has as many clicks under way as one may (a click of theirs now is refused)."""
        return self._users[user_id] >= self.per_user

    @asynccontextmanager
    async def hold(self, user_id: int) -> AsyncIterator[None]:
        """A slot for this person's click, for the block (waiting for one first, in the order clicks came)."""
        self._users[user_id] += 1
        slot = _Slot(self._slots)
        token = _holding.set(slot)
        try:
            await self._slots.acquire()
            slot.held = True
            yield
        finally:
            _holding.reset(token)
            slot.give_up()
            self._users[user_id] -= 1
            if not self._users[user_id]:
                del self._users[user_id]


class _Slot:
    """One click's slot, which it can give up before it is done (`step_aside`)."""

    def __init__(self, slots: asyncio.Semaphore) -> None:
        self._slots = slots
        self.held = False

    def give_up(self) -> None:
        if self.held:
            self.held = False
            self._slots.release()


_holding: ContextVar[_Slot | None] = ContextVar("click_slot", default=None)


def step_aside() -> None:
    """The click being handled now only waits (for a worker process's answer, its interaction deferred): its slot goes
    to the next click meanwhile. It still counts as one of its person's clicks until it is done."""
    slot = _holding.get()
    if slot is not None:
        slot.give_up()


class GameHost(Protocol):
    """What dispatching needs of the bot (TabletopBot, which imports this module)."""

    click_slots: ClickSlots  # see MAX_CONCURRENT_CLICKS

    @property
    def service(self) -> GameService: ...

    @property
    def computer_turns(self) -> ComputerTurns: ...

    async def redraw(self, game_id: int) -> None: ...

    async def check_game(self, interaction: discord.Interaction[Any], kind: str, game_id: int) -> None: ...

    def presenter(self, kind: str) -> object: ...


async def dispatch(
    interaction: discord.Interaction[Any],
    handler: Any,
    *,
    game_kind: str | None = None,
    game_id: int | None = None,
) -> None:
    """Run a component's (or form's) handler; any refusal or fault becomes the one ephemeral error reply.

    discord.py only logs exceptions raised in a DynamicItem's callback, so the callback must answer them.
    When the component names a game of `game_kind`, that game must be of this kind and played where the click
    comes from. When Discord itself fails (see `discord_failed`) the action may well be saved while the answer
    that showed it is lost: the player is told, and the board of `game_id` is redrawn from what is stored."""
    host = cast(GameHost, interaction.client)
    user_id = interaction.user.id
    if host.click_slots.full_for(user_id):  # their last clicks are still under way: told at once, nothing done
        await reply_with_error(interaction, ServiceError(WAIT_FOR_LAST_CLICK))
        return
    # The slow work this click asks for (a hint, a picture) is done in the clicker's turn (bot/workers.py).
    async with host.click_slots.hold(user_id):
        with workers.working_for_user(user_id):
            try:
                if game_id is not None and not 0 < game_id < 2**63:
                    # A forged id (the template admits 19 digits): SQLite could not even look it up. Checked here for
                    # every component, also those of no game kind (Rematch, Replay).
                    raise ServiceError(Text("There is no game #{number}.", number=game_id))
                if game_kind is not None and game_id is not None:
                    await host.check_game(interaction, game_kind, game_id)
                await handler(interaction)
            except Exception as exc:
                if not discord_failed(exc):
                    await reply_with_error(interaction, exc)
                    return
                log.warning("Discord failed while answering interaction %s from user %s: %r",
                            interaction.id, interaction.user.id, exc)
                await tell(interaction, DISCORD_FAILED_TEXT)
                if game_id is not None:
                    await _recover(host, game_id)


async def _recover(host: GameHost, game_id: int) -> None:
    """Do what the lost answer's handler may not have got to: let the bots move if it is their turn (scheduling
    is idempotent), and redraw the game's board from what is stored."""
    try:
        host.computer_turns.schedule(await host.service.info(game_id))
    except Exception as exc:
        log.warning("could not hand game %s to its bots after Discord failed: %r", game_id, exc)
    try:
        await host.redraw(game_id)
    except Exception as exc:
        log.warning("could not redraw game %s after Discord failed: %r", game_id, exc)
