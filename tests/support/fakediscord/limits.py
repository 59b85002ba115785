"""The classic limits Discord enforces but its OpenAPI description does not spell out.

The spec allows 4000 characters of content and 40 components (the components-v2 ceilings) and says
nothing about six buttons in a row or a select sharing its row, so the fake checks the long-standing
limits itself on every message payload: create, edit, interaction callback, followup, webhook edit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tests.support.codes import SELECT_MENUS, SUBCOMMANDS, ButtonStyle, Callback, CommandType, Component, MessageFlag

from .errors import Issue, Location

MAX_CONTENT = 2000
MAX_ROWS = 5
MAX_PER_ROW = 5
MAX_V2_COMPONENTS = 40
MAX_SELECT_OPTIONS = 25
MAX_CUSTOM_ID = 100
MAX_BUTTON_LABEL = 80
MAX_EMBEDS = 10
MAX_EMBED_TITLE = 256
MAX_EMBED_DESCRIPTION = 4096
MAX_EMBED_FIELDS = 25
MAX_FIELD_NAME = 256
MAX_FIELD_VALUE = 1024
MAX_FOOTER = 2048
MAX_AUTHOR_NAME = 256
MAX_EMBED_TOTAL = 6000
MAX_CHOICES = 25

V2_TOP_LEVEL_TYPES = (Component.ACTION_ROW, Component.SECTION, Component.TEXT_DISPLAY, Component.MEDIA_GALLERY,
                      Component.FILE, Component.SEPARATOR, Component.CONTAINER)
TOO_LONG = "BASE_TYPE_MAX_LENGTH"


def _too_long(loc: Location, limit: int, got: int, what: str = "") -> Issue:
    """Discord's wording for strings and arrays over their limit, plus what we actually saw."""
    suffix = f" {what}" if what else ""
    return Issue(loc, f"Must be {limit} or fewer in length (got {got}{suffix}).", TOO_LONG)


def _check_len(issues: list[Issue], value: Any, loc: Location, limit: int, what: str = "") -> None:
    """Append an issue when a string or list is longer than ``limit``."""
    if isinstance(value, str | list) and len(value) > limit:
        issues.append(_too_long(loc, limit, len(value), what))


def check_message(
    payload: Any, *, creating: bool, has_files: bool = False, base: Location = ()
) -> list[Issue]:
    """Check one message body (create or edit) against the classic limits."""
    if not isinstance(payload, Mapping):
        return []
    issues: list[Issue] = []
    content = payload.get("content")
    _check_len(issues, content, (*base, "content"), MAX_CONTENT, "characters")
    flags = payload.get("flags") or 0
    v2 = isinstance(flags, int) and bool(flags & MessageFlag.IS_COMPONENTS_V2)
    embeds = payload.get("embeds")
    if isinstance(embeds, list):
        issues.extend(_check_embeds(embeds, (*base, "embeds")))
    components = payload.get("components")
    if isinstance(components, list):
        issues.extend(check_components(components, (*base, "components"), v2=v2))
    if v2 and (content or embeds):
        issues.append(
            Issue((*base, "content"), "The 'content' and 'embeds' fields cannot be used with components v2.")
        )
    if creating and not (
        content
        or embeds
        or components
        or has_files
        or payload.get("attachments")
        or payload.get("sticker_ids")
        or payload.get("poll")
    ):
        issues.append(Issue(base, "Cannot send an empty message", "EMPTY", discord_code=50006))
    return issues


def _check_embeds(embeds: Sequence[Any], loc: Location) -> list[Issue]:
    """Per-field embed limits and the 6000-character total across all embeds of the message."""
    issues: list[Issue] = []
    _check_len(issues, list(embeds), loc, MAX_EMBEDS, "embeds")
    total = 0
    for i, embed in enumerate(embeds):
        if not isinstance(embed, Mapping):
            continue
        here = (*loc, i)
        title, description = embed.get("title") or "", embed.get("description") or ""
        footer = (embed.get("footer") or {}).get("text") or ""
        author = (embed.get("author") or {}).get("name") or ""
        _check_len(issues, title, (*here, "title"), MAX_EMBED_TITLE, "characters")
        _check_len(issues, description, (*here, "description"), MAX_EMBED_DESCRIPTION, "characters")
        _check_len(issues, footer, (*here, "footer", "text"), MAX_FOOTER, "characters")
        _check_len(issues, author, (*here, "author", "name"), MAX_AUTHOR_NAME, "characters")
        total += len(title) + len(description) + len(footer) + len(author)
        fields = embed.get("fields") or []
        _check_len(issues, fields, (*here, "fields"), MAX_EMBED_FIELDS, "fields")
        for j, fld in enumerate(fields):
            name, value = str(fld.get("name") or ""), str(fld.get("value") or "")
            floc = (*here, "fields", j)
            for key, text, limit in (("name", name, MAX_FIELD_NAME), ("value", value, MAX_FIELD_VALUE)):
                if not text.strip():
                    issues.append(Issue((*floc, key), "This field is required", "BASE_TYPE_REQUIRED"))
                _check_len(issues, text, (*floc, key), limit, "characters")
            total += len(name) + len(value)
    if total > MAX_EMBED_TOTAL:
        issues.append(
            Issue(loc, f"Embed size exceeds maximum size of {MAX_EMBED_TOTAL} (got {total}).", TOO_LONG)
        )
    return issues


def check_components(components: Sequence[Any], loc: Location, *, v2: bool = False) -> list[Issue]:
    """Rows, buttons, selects and custom ids of a message's (or modal's) component tree."""
    issues: list[Issue] = []
    seen: dict[str, Location] = {}
    if v2:
        count = _count_components(components)
        if count > MAX_V2_COMPONENTS:
            issues.append(_too_long(loc, MAX_V2_COMPONENTS, count, "components"))
    else:
        _check_len(issues, list(components), loc, MAX_ROWS, "action rows")
    for i, comp in enumerate(components):
        if not isinstance(comp, Mapping):
            continue
        here = (*loc, i)
        ctype = comp.get("type")
        if not v2 and ctype != Component.ACTION_ROW:
            issues.append(Issue((*here, "type"), f"Component type {ctype} must be inside an action row."))
            continue
        if v2 and ctype not in V2_TOP_LEVEL_TYPES:
            issues.append(Issue((*here, "type"), f"Component type {ctype} is not allowed at the top level."))
        _walk(comp, here, issues, seen)
    return issues


def _count_components(components: Sequence[Any]) -> int:
    """Every component at every depth, as counted against the components-v2 ceiling."""
    total = 0
    for comp in components:
        if isinstance(comp, Mapping):
            total += 1 + _count_components(comp.get("components") or [])
            if isinstance(comp.get("accessory"), Mapping):
                total += 1
    return total


def _walk(comp: Mapping[str, Any], loc: Location, issues: list[Issue], seen: dict[str, Location]) -> None:
    """Check one component and everything nested in it."""
    ctype = comp.get("type")
    if ctype == Component.ACTION_ROW:
        _check_row(comp, loc, issues)
    _check_item(comp, loc, issues, seen)
    for j, child in enumerate(comp.get("components") or []):
        if isinstance(child, Mapping):
            _walk(child, (*loc, "components", j), issues, seen)
    accessory = comp.get("accessory")
    if isinstance(accessory, Mapping):
        _walk(accessory, (*loc, "accessory"), issues, seen)


def _check_row(row: Mapping[str, Any], loc: Location, issues: list[Issue]) -> None:
    """An action row: 1 to 5 buttons, or exactly one select."""
    children = [c for c in row.get("components") or [] if isinstance(c, Mapping)]
    here = (*loc, "components")
    if not children:
        issues.append(
            Issue(here, "An action row must contain at least one component.", "BASE_TYPE_MIN_LENGTH")
        )
    kinds = [c.get("type") for c in children]
    if any(k in SELECT_MENUS for k in kinds) and len(children) > 1:
        issues.append(
            Issue(here, f"A select menu must be alone in its action row (row holds types {kinds}).")
        )
    elif len(children) > MAX_PER_ROW:
        issues.append(_too_long(here, MAX_PER_ROW, len(children), "buttons in one row"))


def _check_item(
    comp: Mapping[str, Any], loc: Location, issues: list[Issue], seen: dict[str, Location]
) -> None:
    """Custom id rules shared by all interactive components, then type-specific rules."""
    ctype = comp.get("type")
    custom_id = comp.get("custom_id")
    if custom_id is not None:
        if not isinstance(custom_id, str) or not custom_id:
            issues.append(Issue((*loc, "custom_id"), "custom_id must be a non-empty string."))
        else:
            _check_len(issues, custom_id, (*loc, "custom_id"), MAX_CUSTOM_ID, "characters")
            if custom_id in seen:
                issues.append(
                    Issue(
                        (*loc, "custom_id"),
                        f"Component custom id cannot be duplicated ({custom_id!r}).",
                        "COMPONENT_CUSTOM_ID_DUPLICATED",
                    )
                )
            seen[custom_id] = loc
    if ctype == Component.BUTTON:
        _check_button(comp, loc, issues)
    elif ctype in SELECT_MENUS:
        _check_select(comp, loc, issues)


def _check_button(comp: Mapping[str, Any], loc: Location, issues: list[Issue]) -> None:
    """Labels, emoji, and which styles need a custom id, a url or a SKU."""
    style = comp.get("style")
    label = comp.get("label")
    _check_len(issues, label, (*loc, "label"), MAX_BUTTON_LABEL, "characters")
    if style not in list(ButtonStyle):
        issues.append(Issue((*loc, "style"), f"Invalid button style {style!r}."))
    if style == ButtonStyle.PREMIUM:
        if not comp.get("sku_id"):
            issues.append(Issue((*loc, "sku_id"), "Premium buttons need a sku_id.", "BASE_TYPE_REQUIRED"))
        return
    if not label and not comp.get("emoji"):
        issues.append(Issue(loc, "A button needs a label or an emoji.", "BASE_TYPE_REQUIRED"))
    if style == ButtonStyle.LINK:
        if not comp.get("url"):
            issues.append(Issue((*loc, "url"), "Link buttons need a url.", "BASE_TYPE_REQUIRED"))
        if comp.get("custom_id"):
            issues.append(Issue((*loc, "custom_id"), "Link buttons cannot have a custom_id."))
    elif not comp.get("custom_id"):
        issues.append(Issue((*loc, "custom_id"), "Non-link buttons need a custom_id.", "BASE_TYPE_REQUIRED"))


def _check_select(comp: Mapping[str, Any], loc: Location, issues: list[Issue]) -> None:
    """Option counts, value bounds and option text lengths."""
    if not comp.get("custom_id"):
        issues.append(Issue((*loc, "custom_id"), "Select menus need a custom_id.", "BASE_TYPE_REQUIRED"))
    _check_len(issues, comp.get("placeholder"), (*loc, "placeholder"), 150, "characters")
    min_values = comp.get("min_values", 1)
    max_values = comp.get("max_values", 1)
    if isinstance(min_values, int) and not 0 <= min_values <= 25:
        issues.append(Issue((*loc, "min_values"), f"min_values must be between 0 and 25 (got {min_values})."))
    if isinstance(max_values, int) and not 1 <= max_values <= 25:
        issues.append(Issue((*loc, "max_values"), f"max_values must be between 1 and 25 (got {max_values})."))
    if comp.get("type") != Component.STRING_SELECT:
        return
    options = [o for o in comp.get("options") or [] if isinstance(o, Mapping)]
    if not options:
        issues.append(
            Issue((*loc, "options"), "A string select needs at least one option.", "BASE_TYPE_REQUIRED")
        )
    _check_len(issues, options, (*loc, "options"), MAX_SELECT_OPTIONS, "options")
    if isinstance(max_values, int) and options and max_values > len(options):
        issues.append(
            Issue((*loc, "max_values"), f"max_values ({max_values}) exceeds the {len(options)} options.")
        )
    values: set[str] = set()
    for k, option in enumerate(options):
        oloc = (*loc, "options", k)
        for key in ("label", "value", "description"):
            _check_len(issues, option.get(key), (*oloc, key), 100, "characters")
        value = str(option.get("value"))
        if value in values:
            issues.append(Issue((*oloc, "value"), f"Duplicate select option value {value!r}."))
        values.add(value)


def check_interaction_callback(body: Any, *, has_files: bool = False) -> list[Issue]:
    """Classic limits of ``POST /interactions/{id}/{token}/callback`` by callback type."""
    if not isinstance(body, Mapping):
        return []
    data = body.get("data")
    kind = body.get("type")
    if kind == Callback.CHANNEL_MESSAGE:
        return check_message(data or {}, creating=True, has_files=has_files, base=("data",))
    if kind == Callback.UPDATE_MESSAGE:
        return check_message(data or {}, creating=False, base=("data",))
    if kind == Callback.AUTOCOMPLETE_RESULT and isinstance(data, Mapping):
        return _check_choices(data.get("choices") or [], ("data", "choices"))
    if kind == Callback.MODAL and isinstance(data, Mapping):
        issues: list[Issue] = []
        _check_len(issues, data.get("title"), ("data", "title"), 45, "characters")
        _check_len(issues, data.get("custom_id"), ("data", "custom_id"), MAX_CUSTOM_ID, "characters")
        components = data.get("components") or []
        _check_len(issues, components, ("data", "components"), 5, "modal rows")
        seen: dict[str, Location] = {}
        for i, comp in enumerate(components):
            if isinstance(comp, Mapping):
                _walk(comp, ("data", "components", i), issues, seen)
        return issues
    return []


def _check_choices(choices: Sequence[Any], loc: Location) -> list[Issue]:
    """Autocomplete answers: at most 25 choices, names and string values of at most 100 characters."""
    issues: list[Issue] = []
    _check_len(issues, list(choices), loc, MAX_CHOICES, "choices")
    for i, choice in enumerate(choices):
        if isinstance(choice, Mapping):
            _check_len(issues, choice.get("name"), (*loc, i, "name"), 100, "characters")
            _check_len(issues, choice.get("value"), (*loc, i, "value"), 100, "characters")
    return issues


def check_commands(commands: Any) -> list[Issue]:
    """Bulk command registration: unique names and required options before optional ones.

    Discord rejects an optional option followed by a required one; discord.py usually orders them,
    but a hand-built payload or a renamed parameter can still trip it.
    """
    if not isinstance(commands, list):
        return []
    issues: list[Issue] = []
    names: set[tuple[str, int]] = set()
    for i, command in enumerate(commands):
        if not isinstance(command, Mapping):
            continue
        kind = int(command.get("type") or CommandType.CHAT_INPUT)
        key = (str(command.get("name")), kind)
        if key in names:
            issues.append(Issue((i, "name"), f"Application command names must be unique ({key[0]!r})."))
        names.add(key)
        issues.extend(_check_names(command, (i,), chat_input=kind == CommandType.CHAT_INPUT))
        issues.extend(_check_options(command.get("options") or [], (i, "options")))
    return issues


def valid_name(name: Any) -> bool:
    """Discord's rule for chat-input command and option names, in every locale: 1-32 characters, each a letter or
    digit of any script, "-" or "_", lower case wherever the letter has a lower case."""
    return (isinstance(name, str) and 1 <= len(name) <= 32
            and all(c in "-_" or c.isalnum() for c in name) and name == name.lower())


def _check_names(item: Mapping[str, Any], loc: Location, *, chat_input: bool = True) -> list[Issue]:
    """The name and description of a command or option, and their translations (name_localizations,
    description_localizations), by Discord's rules; option names stay unique in every locale."""
    issues: list[Issue] = []
    if chat_input and not valid_name(item.get("name")):
        issues.append(Issue((*loc, "name"), f"Invalid command or option name {item.get('name')!r}."))
    for locale, name in (item.get("name_localizations") or {}).items():
        if chat_input and not valid_name(name):
            issues.append(Issue((*loc, "name_localizations", locale), f"Invalid {locale} name {name!r}."))
    for locale, text in (item.get("description_localizations") or {}).items():
        _check_len(issues, text, (*loc, "description_localizations", locale), 100, "characters")
        if not text:
            issues.append(Issue((*loc, "description_localizations", locale), "Empty description."))
    options = [o for o in item.get("options") or [] if isinstance(o, Mapping)]
    locales = {locale for o in options for locale in (o.get("name_localizations") or {})}
    for locale in locales:
        shown = [(o.get("name_localizations") or {}).get(locale, o.get("name")) for o in options]
        if len(shown) != len(set(shown)):
            issues.append(Issue((*loc, "options"), f"Option names are not unique in {locale}: {shown}."))
    for j, option in enumerate(options):
        if option.get("type") in SUBCOMMANDS:
            continue  # checked with their own options
        for k, choice in enumerate(option.get("choices") or []):
            for locale, text in (choice.get("name_localizations") or {}).items() if isinstance(choice, Mapping) else ():
                _check_len(issues, text, (*loc, "options", j, "choices", k, locale), 100, "characters")
    return issues


def _check_options(options: Sequence[Any], loc: Location) -> list[Issue]:
    """Option ordering and counts, recursing into subcommands and groups."""
    issues: list[Issue] = []
    _check_len(issues, list(options), loc, 25, "options")
    seen_optional = False
    for j, option in enumerate(options):
        if not isinstance(option, Mapping):
            continue
        issues.extend(_check_names(option, (*loc, j)))
        if option.get("type") in SUBCOMMANDS:
            issues.extend(_check_options(option.get("options") or [], (*loc, j, "options")))
            continue
        if option.get("required"):
            if seen_optional:
                issues.append(
                    Issue(
                        (*loc, j, "required"), "Required options must be placed before non-required options."
                    )
                )
        else:
            seen_optional = True
        _check_len(issues, option.get("choices"), (*loc, j, "choices"), MAX_CHOICES, "choices")
        if option.get("autocomplete") and option.get("choices"):
            issues.append(Issue((*loc, j, "autocomplete"), "Autocomplete and choices are mutually exclusive."))
    return issues
