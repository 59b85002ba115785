"""The translation catalogues and the texts in the code: `python -m tests.tools.catalogues` adds every text of
the code that a catalogue lacks (untranslated, to be filled in) and marks the ones the code no longer has as
obsolete; `--check` only reports. Tests use `extract()` and `read()` to compare the two.

The texts are found by Babel's extractor: calls of `Text`, `Plural` and `TextIn` (games/text.py) in bot/ and
games/. The slash commands' names and texts are not calls of these; tests/bot/test_i18n.py lists those a catalogue
lacks, from the commands the bot really registers.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

from bot.i18n import LANGUAGES, LOCALES, SOURCE

ROOT = Path(__file__).resolve().parents[2]
KEYWORDS = {"Text": None, "Plural": (1, 2), "TextIn": ((1, "c"), 2)}
WIDTH = 120


def extract() -> Catalog:
    """Every text the code marks for translation, with where it is."""
    found = Catalog(locale=None, project="tabletop-bot")
    for package in ("bot", "games"):
        for filename, line, msgid, comments, context in extract_from_dir(
                ROOT / package, method_map=[("**.py", "python")], keywords=KEYWORDS, comment_tags=("Translators:",),
                strip_comment_tags=True):
            found.add(msgid, locations=[(f"{package}/{filename}", line)], auto_comments=comments, context=context,
                      flags=("python-brace-format",))
    return found


def read(language: str) -> Catalog:
    with (LOCALES / f"{language}.po").open("rb") as po:
        return read_po(po, locale=language)


def write(language: str, catalogue: Catalog) -> None:
    catalogue.project, catalogue.version, catalogue.msgid_bugs_address = "tabletop-bot", "", ""
    catalogue.last_translator, catalogue.language_team = "tabletop-bot translators", LANGUAGES[language]
    with (LOCALES / f"{language}.po").open("wb") as po:
        write_po(po, catalogue, width=WIDTH, no_location=True, omit_header=False, sort_output=True,
                 ignore_obsolete=True)


def messages(catalogue: Catalog) -> Iterator[Message]:
    return (message for message in catalogue if message.id)


def update(language: str) -> tuple[int, int]:
    """Bring `language`'s catalogue in line with the code: (texts added, texts dropped). Command texts are kept."""
    catalogue, template = read(language), extract()
    wanted = {(m.context, m.id if isinstance(m.id, str) else m.id[0]) for m in messages(template)}
    added = 0
    for message in messages(template):
        if catalogue.get(message.id, context=message.context) is None:
            catalogue[message.id] = Message(message.id, "" if isinstance(message.id, str) else ("",) * 3,
                                            context=message.context, auto_comments=message.auto_comments)
            added += 1
    dropped = 0
    for message in list(messages(catalogue)):
        key = (message.context, message.id if isinstance(message.id, str) else message.id[0])
        if message.context in ("command name", "command text") or key in wanted:
            continue
        catalogue.delete(message.id, context=message.context)
        dropped += 1
    write(language, catalogue)
    return added, dropped


def fill(language: str, translations: dict[str, Any]) -> list[str]:
    """Put `translations` (English id -> text, or -> [forms] for a plural; "context\x04id" for a context) into the
    catalogue; returns the ids it does not have (run the update first)."""
    catalogue, unknown = read(language), []
    for key, text in translations.items():
        context, _, msgid = key.rpartition("\x04")
        message = next((m for m in messages(catalogue) if (m.id if isinstance(m.id, str) else m.id[0]) == msgid
                        and m.context == (context or None)), None)
        if message is None:
            if context in ("command name", "command text"):  # commands are not in the code's texts: added here
                catalogue.add(msgid, text, context=context)
                continue
            unknown.append(key)
            continue
        message.string = tuple(text) if isinstance(text, list) else text
        message.flags.discard("fuzzy")
    write(language, catalogue)
    return unknown


@contextmanager
def locked() -> Iterator[None]:
    """One writer of the catalogues at a time (several people may update them at once)."""
    with (LOCALES / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="report what is missing; change nothing")
    parser.add_argument("--fill", metavar="JSON", type=Path,
                        help="after the update, put these translations in (an object: English id -> translation; "
                             "a plural's -> a list of its forms; prefix an id with its context and \\u0004)")
    parser.add_argument("--language", default="ru", help="the catalogue --fill writes to")
    args = parser.parse_args()
    if args.fill is not None:
        with locked():
            update(args.language)
            unknown = fill(args.language, json.loads(args.fill.read_text(encoding="utf-8")))
        for key in unknown:
            print(f"not a text of the code: {key!r}")
        sys.exit(1 if unknown else 0)
    missing = 0
    for language in LANGUAGES:
        if language == SOURCE:
            continue
        if args.check:
            catalogue = read(language)
            lacking = [m.id for m in messages(extract()) if not catalogue.get(m.id, context=m.context)]
            print(f"{language}: {len(lacking)} texts of the code missing")
            missing += len(lacking)
        else:
            with locked():
                added, dropped = update(language)
            print(f"{language}: {added} texts added (to translate), {dropped} dropped")
    sys.exit(1 if missing else 0)


if __name__ == "__main__":
    main()
