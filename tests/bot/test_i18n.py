"""The catalogues against the code: every text translated in every language, with the same placeholders, the
right plural forms; every text marked so that it can be found; Russian plurals right."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest
from babel.messages.plurals import get_plural

from bot.i18n import LANGUAGES, SOURCE, language_of, render
from games.text import Plural, Text, placeholders
from tests.support.world import TabletopRunner, World
from tests.tools.catalogues import ROOT, extract, messages, read

TRANSLATED = [language for language in LANGUAGES if language != SOURCE]


def _id(message_id: str | tuple[str, ...] | list[str]) -> str:
    return message_id if isinstance(message_id, str) else message_id[0]


def _forms(value: str | tuple[str, ...] | list[str]) -> tuple[str, ...]:
    return (value,) if isinstance(value, str) else tuple(value)


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_text_of_the_code_is_translated_with_the_same_placeholders(language: str) -> None:
    catalogue = read(language)
    assert catalogue.plural_forms == get_plural(language).plural_forms, "the header's Plural-Forms are wrong"
    problems = []
    for text in messages(extract()):
        found = catalogue.get(text.id, context=text.context)
        where = f"{text.locations[0][0]}:{text.locations[0][1]} {_id(text.id)!r}"
        if found is None:
            problems.append(f"missing: {where}")
            continue
        if found.fuzzy:
            problems.append(f"fuzzy (unsure): {where}")
        forms, ids = _forms(found.string or ""), _forms(text.id)
        plural = len(ids) > 1
        if plural and len(forms) != get_plural(language).num_plurals:
            problems.append(f"{len(forms)} plural forms, {get_plural(language).num_plurals} wanted: {where}")
        expected = frozenset().union(*(placeholders(i) for i in ids))
        for form in forms:
            if not form:
                problems.append(f"untranslated: {where}")
            elif placeholders(form) - expected or (not plural and placeholders(form) != expected):
                problems.append(f"placeholders {sorted(placeholders(form))} != {sorted(expected)}: {where}")
    assert not problems, f"{len(problems)} problems in {language}.po (python -m tests.tools.catalogues):\n" + \
        "\n".join(problems[:40])


def test_every_marked_text_is_a_literal_that_the_extractor_can_find() -> None:
    """Babel skips `Text(variable)` and `Text(f"...")` silently: such a text would never be translated."""
    bad = []
    for package in ("bot", "games"):
        for path in (ROOT / package).rglob("*.py"):
            if path == ROOT / "games" / "text.py":  # where they are defined
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                    continue
                literal_args = {"Text": 1, "Plural": 2, "TextIn": 2}.get(node.func.id)
                if literal_args is None:
                    continue
                args = node.args[:literal_args]
                if len(args) < literal_args or not all(
                        isinstance(a, ast.Constant) and isinstance(a.value, str) for a in args):
                    bad.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not bad, "texts that are not string literals: " + ", ".join(bad)


@pytest.mark.parametrize("language", TRANSLATED)
def test_translations_name_commands_in_their_own_language(language: str) -> None:
    """A command named in a translation is named as that reader's Discord menu names it: not `/history` beside
    `/рейтинг` (issue 23, defect 13). An English name is a slash and Latin letters right after it (not in a link)."""
    english = re.compile(r"(?<![\w:/.<])/[a-z][a-z_]*")
    found = []
    for message in messages(read(language)):
        for form in _forms(message.string or ""):
            found += [f"{_id(message.id)!r}: {hit}" for hit in english.findall(form)]
    assert not found, "\n".join(found)


def test_discord_locales_map_to_our_languages() -> None:
    assert language_of("ru") == "ru" and language_of("en-GB") == "en" and language_of("en-US") == "en"
    assert language_of("pt-BR") == SOURCE and language_of(None) == SOURCE


def test_rendering_fills_values_and_nested_texts_in_the_same_language() -> None:
    nested = Text("You need the {permissions} permission for this.", permissions="Manage Server")
    assert render(nested, "en") == "You need the Manage Server permission for this."
    assert render(nested, "ru") == "Для этого нужно право «Manage Server»."
    assert str(Text("Slow down: try again in {seconds} s.", seconds=3)) == "Slow down: try again in 3 s."
    assert render("a name, shown as it is", "ru") == "a name, shown as it is"


def test_english_plurals_without_a_catalogue() -> None:
    assert [str(Plural("{count} game", "{count} games", n)) for n in (0, 1, 2)] == ["0 games", "1 game", "2 games"]


def test_russian_plurals_follow_the_language_rules() -> None:
    catalogue = read("ru")
    plurals = [m for m in messages(catalogue) if isinstance(m.id, tuple) and m.string and all(m.string)]
    if not plurals:
        pytest.skip("no plural text in the code yet")
    message = plurals[0]
    forms = [render(Plural(message.id[0], message.id[1], n, **{name: "x" for name in placeholders(message.id[0])
                                                                  if name != "count"}), "ru") for n in (1, 2, 5, 21)]
    assert forms[0] != forms[1] != forms[2] and forms[3].replace("21", "1") == forms[0], forms


def test_catalogues_are_files_in_the_package() -> None:
    for language in TRANSLATED:
        assert (Path(ROOT) / "bot" / "locales" / f"{language}.po").is_file()


def _command_texts(item: dict[str, Any], path: str) -> list[tuple[str, str, dict[str, Any]]]:
    """(where, which field, the localisations) of a command's name and description, its options' and choices'."""
    out = [(path, "name", item.get("name_localizations") or {})]
    if "description" in item and item.get("type", 1) in (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11):
        out.append((path, "description", item.get("description_localizations") or {}))
    for option in item.get("options") or []:
        out += _command_texts(option, f"{path} {option['name']}")
    for choice in item.get("choices") or []:
        out.append((f"{path} = {choice['name']!r}", "choice", choice.get("name_localizations") or {}))
    return out


async def test_every_command_option_and_choice_is_translated(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    registered = world.fake.registered_commands(None) or world.fake.registered_commands(world.guild.id)
    assert registered, "no commands registered"
    missing = []
    for command in registered:
        for where, field, localised in _command_texts(command, f"/{command['name']}"):
            for language in TRANSLATED:
                if language not in localised:
                    missing.append(f"{language}: {where} ({field})")
    assert not missing, f"{len(missing)} command texts without a translation:\n" + "\n".join(missing[:400])
