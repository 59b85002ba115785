"""Every player in their own language: gettext catalogues read with Babel, and the languages we speak.

Why gettext and Babel (rather than Project Fluent): the English text stays in the code as the message id, so the
code reads as plain English and Babel's extractor finds every text to translate (keywords `Text` and `Plural` of
games/text.py); the catalogue of a language is one `.po` file, the format every translation tool and translator
knows; and Babel knows each language's plural rules (Russian: 1 игра, 2 игры, 5 игр), which a test checks
against the catalogue's header.

Who reads what, in which language (`language_of` maps Discord's locale names to ours):
- a private answer (ephemeral, a form, autocomplete): the user's Discord language, `interaction.locale`;
- a public message (boards, announcements, endings): the server's language, chosen with /settings, else the
  server's preferred locale (`guild_locale`);
- a direct message: the user's language, as their latest interaction showed it (stored, since a DM is often
  sent when they are not interacting).

Adding a language: translate `bot/locales/ru.po` into `bot/locales/<code>.po` and add the code to LANGUAGES.
"""

from __future__ import annotations

import functools
import gettext
import io
import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from games.text import COMMAND_NAME as COMMAND_NAME  # re-exported: bot/translator.py names commands with it
from games.text import Text

if TYPE_CHECKING:  # no discord at run time: the picture workers render texts too, and need not load it
    import discord

    from storage.notifications import NotificationStore
    from storage.server_settings import ServerSettingsStore

log = logging.getLogger(__name__)
LANGUAGES: dict[str, str] = {"en": "English", "ru": "Русский"}  # our code -> the language's name in itself
SOURCE = "en"  # the language of the message ids: needs no catalogue
LOCALES = Path(__file__).with_name("locales")
# The gettext contexts of the slash-command texts Discord shows in its own menus: COMMAND_NAME for names (defined
# with `games.text.Command`, which names a command inside a text the same way), COMMAND_TEXT for the rest.
COMMAND_TEXT = "command text"


def language_of(locale: discord.Locale | str | None) -> str:
    """Our language for a Discord locale ("ru" -> ru, "en-GB" -> en); SOURCE when we do not speak it."""
    if locale is None:
        return SOURCE
    code = str(getattr(locale, "value", locale)).lower()  # a discord.Locale, or its code
    if code in LANGUAGES:
        return code
    base = code.split("-")[0]
    return base if base in LANGUAGES else SOURCE


@functools.cache
def catalogue(language: str) -> gettext.NullTranslations:
    """The translations of `language`, compiled from its .po file once (English: the message ids themselves)."""
    path = LOCALES / f"{language}.po"
    if language == SOURCE or not path.exists():
        return gettext.NullTranslations()
    with path.open("rb") as po:
        entries = read_po(po, locale=language)
    compiled = io.BytesIO()
    write_mo(compiled, entries)  # fuzzy entries are left out: an unsure translation shows the English
    compiled.seek(0)
    return gettext.GNUTranslations(compiled)


def template(text: Text, language: str) -> str:
    """`text`'s template in `language` (the plural form for its count chosen by the language's rules)."""
    found = catalogue(language)
    if text.plural is not None:
        count = text.count if text.count is not None else 0
        if text.context is not None:
            return found.npgettext(text.context, text.msgid, text.plural, count)
        return found.ngettext(text.msgid, text.plural, count)
    if text.context is not None:
        return found.pgettext(text.context, text.msgid)
    return found.gettext(text.msgid)


def render(value: Text | str, language: str) -> str:
    """What a person reading `language` is shown (a plain string is shown as it is: a name, a code)."""
    if not isinstance(value, Text):
        return value
    try:
        return value.render(lambda text: template(text, language))
    except (KeyError, IndexError, ValueError):  # a broken translation must never cost the answer: show English
        log.exception("the %s translation of %r does not fit its values", language, value.msgid)
        return value.render()


def for_interaction(interaction: discord.Interaction[Any]) -> str:
    """The language of a private answer to this interaction: the user's own."""
    return language_of(interaction.locale)


# How long a language read from the database is trusted: another process sharing the database (another shard) may
# store a server's /settings choice or a person's new Discord language; its messages follow within this many seconds.
# A change made in this process shows at once.
LANGUAGE_MEMORY = 30.0


class Languages:
    """Which language each reader gets (see the module's docstring), remembered per person and server."""

    def __init__(self, bot: discord.Client, servers: ServerSettingsStore, people: NotificationStore) -> None:
        self.bot = bot
        self.servers = servers
        self.people = people
        # user id -> (language as last stored, when read); guild id -> (the language /settings chose, None: the
        # server's preferred one; when read)
        self._people: dict[int, tuple[str, float]] = {}
        self._servers: dict[int, tuple[str | None, float]] = {}

    @staticmethod
    def _fresh(read_at: float) -> bool:
        return time.monotonic() - read_at < LANGUAGE_MEMORY

    async def public(self, guild_id: int | None, user_id: int | None = None) -> str:
        """The language of a server's public messages; in DMs (no server), that of `user_id`."""
        if guild_id is None:
            return await self.of_user(user_id) if user_id is not None else SOURCE
        known = self._servers.get(guild_id)
        if known is None or not self._fresh(known[1]):  # read once in a while per server: every public message asks
            known = (await self.servers.get(guild_id)).language, time.monotonic()
            self._servers[guild_id] = known
        chosen = known[0]
        if chosen in LANGUAGES:
            return chosen
        guild = self.bot.get_guild(guild_id)
        return language_of(guild.preferred_locale) if guild is not None else SOURCE

    def server_chose(self, guild_id: int, language: str | None) -> None:
        """/settings stored `language` for the server (None: its preferred locale again)."""
        self._servers[guild_id] = language, time.monotonic()

    async def of_user(self, user_id: int) -> str:
        """The language of a person's direct messages: their Discord language, as last seen."""
        known = self._people.get(user_id)
        if known is None or not self._fresh(known[1]):
            known = await self.people.language(user_id) or SOURCE, time.monotonic()
            self._people[user_id] = known
        return known[0]

    async def saw(self, interaction: discord.Interaction[Any]) -> None:
        """Remember the language this person's client uses (stored only when it changed)."""
        language = for_interaction(interaction)
        user = interaction.user.id
        known = self._people.get(user)
        if known is not None and known[0] == language and self._fresh(known[1]):
            return
        if await self.people.language(user) != language:
            await self.people.set_language(user, language, time.time())
        self._people[user] = language, time.monotonic()


class Say:
    """Texts rendered for one reader's language: `say(Text("..."))` (a plain string passes as it is)."""

    def __init__(self, language: str) -> None:
        self.language = language

    def __call__(self, value: Text | str) -> str:
        return render(value, self.language)

    @classmethod
    def to(cls, interaction: discord.Interaction[Any]) -> Say:
        """For a private answer to this interaction: the user's language."""
        return cls(for_interaction(interaction))


def command_words(english: str, language: str) -> str:
    """A slash command's description or choice name in `language` (as Discord shows it in its menus), for texts
    of ours that list commands (/help)."""
    return catalogue(language).pgettext(COMMAND_TEXT, english)
