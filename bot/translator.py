"""Slash commands in every language we speak: discord.py's translator, reading the same catalogues (bot/i18n.py).

Discord shows a command's name, its options' names, descriptions and choices in the reader's client language, from
the localisations sent when the commands are synced. Names are translated in the gettext context COMMAND_NAME
(Discord's rules: lower case, no spaces, at most 32 characters; the fake Discord checks them), everything else in
COMMAND_TEXT.
"""

from __future__ import annotations

import discord
from discord import app_commands

from bot.i18n import COMMAND_NAME, COMMAND_TEXT, LANGUAGES, SOURCE, catalogue, language_of


class CommandTranslator(app_commands.Translator):
    """Slash-command names, descriptions and choices in each language we speak (see the module's docstring)."""

    async def translate(self, string: app_commands.locale_str, locale: discord.Locale,
                        context: app_commands.TranslationContextTypes) -> str | None:
        language = language_of(locale)
        if language == SOURCE or str(locale.value).split("-")[0] != language:
            return None
        names = (app_commands.TranslationContextLocation.command_name,
                 app_commands.TranslationContextLocation.group_name,
                 app_commands.TranslationContextLocation.parameter_name)
        if string.message in LANGUAGES.values():  # a language's own name reads the same in every language
            return string.message
        kind = COMMAND_NAME if context.location in names else COMMAND_TEXT
        translated = catalogue(language).pgettext(kind, string.message)
        return translated if translated != string.message else None
