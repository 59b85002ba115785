"""No words reach a player without passing through the translation layer (issue 23, defect 13).

An AST check of the Discord layer (bot/): every expression that becomes something a person reads (a message's content,
an embed's title, description, fields, footer and author, a button's or a menu's label and placeholder, a menu
option's label and description, a modal's title, a suggestion's name, a thread's name, a refusal raised to be shown)
is followed back through the names, helper functions of the same module, joins and concatenations it is built from;
a string literal or an f-string with a letter in it found on the way is English the reader may not speak, and so is
a Text shown without `say(...)` or formatted into an f-string (`f"**{description.title}**"`, `f"{title_of(kind)}"`).
Such words must be a `Text` (`Plural`, `TextIn`) rendered with `say(...)`/`render(...)` where shown: what those
calls return is trusted, as is data (a name, a code, a number).

Slash commands' own names, descriptions and choices are not checked here: discord.py's translator localises them
(bot/translator.py) and tests/bot/test_i18n.py fails on any without a translation.

The allow-list holds what is not words, each with its reason.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BOT = ROOT / "bot"

# (file under bot/, the literal's text): why it is not words a reader needs in their language.
ALLOWED: dict[tuple[str, str], str] = {
    ("presenter.py", "<@{}> (bot)"): "'bot' is the tag Discord itself shows beside a bot's name, in every language",
    ("presenter.py", "(bot)"): "'bot' is the tag Discord itself shows beside a bot's name, in every language",
    ("cogs/past_games.py", "https://discord.com/channels/{}/{}/{}"): "a link, not words",
    ("games/chopsticks/board.py", "https://discord.com/channels/{}/{}/{}"): "a link, not words",
    ("games/generals/setup.py", "a1 b2"): "two squares in the board's notation, the same in every language: an "
                                          "example of what to type",
}

# Keyword arguments that reach the reader, by the name of the call they are given to (None: any call).
_SHOWN_KEYWORDS: dict[str | None, set[str]] = {
    None: {"content", "label", "placeholder"},
    "Embed": {"title", "description"},
    "add_field": {"name", "value"}, "insert_field_at": {"name", "value"}, "set_field_at": {"name", "value"},
    "set_footer": {"text"}, "set_author": {"name"},
    "SelectOption": {"description"}, "Modal": {"title"}, "TextInput": {"default"},
    "Choice": {"name"}, "create_thread": {"name"},
}
# Calls whose first positional argument is a message's content.
_CONTENT_FIRST = {"send_message", "send", "reply", "edit_original_response", "followup"}
# Attributes that, assigned, change what is shown.
_SHOWN_ATTRIBUTES = {"title", "description", "content", "label", "placeholder"}
# Refusals: their first argument is shown to the user as it is (a plain string is never translated).
_REFUSALS = {"ServiceError", "StaleStateError", "CheckFailure", "NoPrivateMessage"}
# Calls whose result is in the reader's language already (or is not words): what they are given is not followed.
_TRANSLATED = {"say", "render", "command_words"}
# Texts: right as a refusal (rendered where it is answered), but shown elsewhere without `say` they read as English.
_TEXTS = {"Text", "TextIn", "Plural", "Joined", "Command", "OptionName", "Typed", "both", "either", "versus"}
# A game description's words (Texts): formatted into an f-string, they show their English.
_GAME_WORDS = {"title", "summary", "rules", "turn_word"}
# str methods whose result is made of the string they are called on (and, for join, the parts given).
_STR_METHODS = {"join", "strip", "rstrip", "lstrip", "removeprefix", "removesuffix", "upper", "lower", "capitalize",
                "title", "format", "replace", "ljust", "rjust", "center"}


def _has_words(literal: str) -> bool:
    return any(character.isalpha() for character in literal)


@dataclass
class _Module:
    path: Path
    tree: ast.Module
    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = field(default_factory=dict)
    found: list[str] = field(default_factory=list)
    refusals: set[str] = field(default_factory=set)

    @property
    def name(self) -> str:
        return self.path.relative_to(BOT).as_posix()

    def __post_init__(self) -> None:
        for node in ast.walk(self.tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                self.functions.setdefault(node.name, node)


def _scopes(tree: ast.Module) -> dict[ast.AST, ast.AST]:
    """Each node's innermost enclosing function (or the module)."""
    owner: dict[ast.AST, ast.AST] = {}

    def visit(node: ast.AST, scope: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            owner[child] = scope
            visit(child, child if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) else scope)

    visit(tree, tree)
    return owner


def _walk_scope(scope: ast.AST) -> Iterator[ast.AST]:
    """Every node of `scope` outside the functions and classes nested in it."""
    for child in ast.iter_child_nodes(scope):
        yield child
        if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            yield from _walk_scope(child)


def _call_name(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _literal_key(node: ast.Constant | ast.JoinedStr) -> str:
    if isinstance(node, ast.Constant):
        return str(node.value)
    return "".join(str(part.value) if isinstance(part, ast.Constant) else "{}" for part in node.values)


class _Checker:
    def __init__(self, module: _Module) -> None:
        self.module = module
        self.scope_of = _scopes(module.tree)
        self.seen: set[tuple[int, str]] = set()
        self.followed: set[str] = set()
        self.refusal = False  # following a refusal's reason (a Text is right there)
        self.decorators = {id(d) for n in ast.walk(module.tree)
                           if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                           for top in n.decorator_list for d in ast.walk(top)}

    def report(self, node: ast.Constant | ast.JoinedStr | ast.Call, sink: ast.AST) -> None:
        key = _literal_key(node) if not isinstance(node, ast.Call) else f"{_call_name(node)}(...) without say()"
        if (self.module.name, key) in ALLOWED:
            return
        where = f"bot/{self.module.name}:{node.lineno} {key!r} (shown at line {getattr(sink, 'lineno', '?')})"
        if where not in self.module.found:
            self.module.found.append(where)

    def assignments(self, name: str, scope: ast.AST) -> Iterator[ast.expr]:
        """What `name` is given in `scope` (a function, or the module's own statements): assigned, added to,
        appended, extended or inserted; never what a function nested in it gives a name of its own."""
        for node in _walk_scope(scope):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name) and target.id == name:
                        yield node.value
                    elif isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):  # a, b = x, y
                        yield from (value for element, value in zip(target.elts, node.value.elts, strict=False)
                                    if isinstance(element, ast.Name) and element.id == name)
            elif isinstance(node, ast.AnnAssign | ast.AugAssign):
                if isinstance(node.target, ast.Name) and node.target.id == name and node.value is not None:
                    yield node.value
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == name \
                    and node.func.attr in ("append", "extend", "insert"):
                yield from node.args[-1:]

    def follow(self, expr: ast.AST | None, sink: ast.AST, scope: ast.AST) -> None:
        """Report every literal with words that `expr` is built from."""
        if expr is None:
            return
        key = (id(expr), "")
        if key in self.seen:
            return
        self.seen.add(key)
        if isinstance(expr, ast.Constant):
            if isinstance(expr.value, str) and _has_words(expr.value):
                self.report(expr, sink)
        elif isinstance(expr, ast.JoinedStr):
            if any(isinstance(p, ast.Constant) and _has_words(str(p.value)) for p in expr.values):
                self.report(expr, sink)
            for part in expr.values:
                if isinstance(part, ast.FormattedValue):
                    self.follow(part.value, sink, scope)
                    self.formatted(part.value, part, sink, scope)
        elif isinstance(expr, ast.BinOp):
            self.follow(expr.left, sink, scope)
            self.follow(expr.right, sink, scope)
        elif isinstance(expr, ast.BoolOp):
            for value in expr.values:
                self.follow(value, sink, scope)
        elif isinstance(expr, ast.IfExp):
            self.follow(expr.body, sink, scope)
            self.follow(expr.orelse, sink, scope)
        elif isinstance(expr, ast.List | ast.Tuple | ast.Set):
            for element in expr.elts:
                self.follow(element, sink, scope)
        elif isinstance(expr, ast.ListComp | ast.GeneratorExp | ast.SetComp):
            self.follow(expr.elt, sink, scope)
        elif isinstance(expr, ast.Starred | ast.Subscript | ast.NamedExpr):
            self.follow(expr.value, sink, scope)
        elif isinstance(expr, ast.Name):
            self.follow_name(expr.id, sink, scope)
        elif isinstance(expr, ast.Call):
            self.follow_call(expr, sink, scope)

    def formatted(self, value: ast.expr, part: ast.FormattedValue, sink: ast.AST, scope: ast.AST,
                  depth: int = 0) -> None:
        """A text formatted into an f-string is its English: a game's words (its title, summary, ...) or a Text."""
        if isinstance(value, ast.Attribute) and value.attr in _GAME_WORDS:
            self.report_formatted(part, f"{{…{value.attr}}}", sink)
        elif isinstance(value, ast.Call) and _call_name(value) in _TEXTS | {"title_of"}:
            self.report_formatted(part, f"{{{_call_name(value)}(…)}}", sink)
        elif isinstance(value, ast.Name) and depth < 3:
            for where in (scope, self.module.tree):
                for assigned in self.assignments(value.id, where):
                    self.formatted(assigned, part, sink, scope, depth + 1)

    def report_formatted(self, part: ast.FormattedValue, what: str, sink: ast.AST) -> None:
        where = (f"bot/{self.module.name}:{part.lineno} f-string part {what} shows its English "
                 f"(shown at line {getattr(sink, 'lineno', '?')})")
        if where not in self.module.found:
            self.module.found.append(where)

    def follow_name(self, name: str, sink: ast.AST, scope: ast.AST) -> None:
        for where in (scope, self.module.tree) if scope is not self.module.tree else (scope,):
            found = list(self.assignments(name, where))
            for value in found:
                self.follow(value, sink, self.scope_of.get(value, where) if where is not self.module.tree
                            else self._scope(value))
            if found:
                return

    def _scope(self, node: ast.AST) -> ast.AST:
        scope = self.scope_of.get(node, self.module.tree)
        while not isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.Module):
            scope = self.scope_of.get(scope, self.module.tree)
        return scope

    def follow_call(self, call: ast.Call, sink: ast.AST, scope: ast.AST) -> None:
        name = _call_name(call)
        if name in _TRANSLATED:
            return
        if name in _TEXTS or name == "str":  # str() of a Text is its English
            if not self.refusal:
                self.report(call, sink)
            return
        if isinstance(call.func, ast.Attribute) and name in _STR_METHODS:
            self.follow(call.func.value, sink, scope)
            for arg in call.args[:1] if name == "join" else ():
                self.follow(arg, sink, scope)
            return
        if isinstance(call.func, ast.Name) and name in self.module.functions and name not in self.followed:
            # A helper of this module: what it returns is what is shown.
            self.followed.add(name)
            function = self.module.functions[name]
            for node in ast.walk(function):
                if isinstance(node, ast.Return):
                    self.follow(node.value, sink, function)

    def check(self) -> None:
        for node in ast.walk(self.module.tree):
            scope = self._scope(node)
            if isinstance(node, ast.Call):
                self.check_call(node, scope)
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Attribute) and target.attr in _SHOWN_ATTRIBUTES:
                        self.follow(node.value, node, scope)

    def check_call(self, call: ast.Call, scope: ast.AST) -> None:
        if id(call) in self.decorators:
            return  # a slash command's own texts: localised by the command translator
        name = _call_name(call)
        shown = _SHOWN_KEYWORDS[None] | _SHOWN_KEYWORDS.get(name or "", set())
        for keyword in call.keywords:
            if keyword.arg in shown:
                self.follow(keyword.value, call, scope)
        if name in _CONTENT_FIRST and call.args:
            self.follow(call.args[0], call, scope)
        if name in _REFUSALS | self.module.refusals and call.args:
            self.refusal = True
            self.follow(call.args[0], call, scope)
            self.refusal = False


def _refusal_classes(modules: list[_Module]) -> set[str]:
    """Classes of bot/ that are refusals (subclasses of one, however deep)."""
    known = set(_REFUSALS)
    classes = [node for module in modules for node in ast.walk(module.tree) if isinstance(node, ast.ClassDef)]
    grew = True
    while grew:
        grew = False
        for node in classes:
            bases = {b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute) else ""
                     for b in node.bases}
            if node.name not in known and bases & known:
                known.add(node.name)
                grew = True
    return known


def untranslated(root: Path = BOT) -> list[str]:
    """Every literal with words that reaches a reader of the Discord layer untranslated."""
    modules = [_Module(path, ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
               for path in sorted(root.rglob("*.py"))]
    refusals = _refusal_classes(modules)
    found = []
    for module in modules:
        module.refusals = refusals
        _Checker(module).check()
        found += module.found
    return found


def test_every_shown_text_goes_through_the_translation_layer() -> None:
    found = untranslated()
    assert not found, (f"{len(found)} texts shown without translation (make each a Text rendered with say(...), "
                       "or allow-list what is not words, with a reason):\n" + "\n".join(found))


def test_the_allow_list_names_only_literals_the_code_has() -> None:
    """An entry left behind after its literal is gone would let a new one through unseen."""
    literals = set()
    for path in BOT.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant | ast.JoinedStr):
                literals.add((path.relative_to(BOT).as_posix(), _literal_key(node)))
    assert not set(ALLOWED) - literals, sorted(set(ALLOWED) - literals)
