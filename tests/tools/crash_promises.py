"""What an acknowledged interaction of the crash test promises, and whether the database keeps it.

An interaction is *acknowledged* when the answer the fake Discord recorded is not a refusal. For public answers
that is any update of the clicked message (type 7) or public reply (type 4); refusals are ephemeral. Private and
deferred answers (an ephemeral "You moved ...", a followup "Sent: ...") count too: their promise reads the answer's
words, so that a refusal (also ephemeral) promises nothing. See tests/tools/crash.py for the run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from tests.support.codes import Callback
from tests.support.fakediscord import FakeMessage, InteractionResult
from tests.tools.peek import Target, json_value, peek_at

if TYPE_CHECKING:
    from tests.tools.crash_checks import GameCheck


@dataclass(frozen=True)
class Promise:
    """What the database must show if the interaction was acknowledged.

    what: move (a row of the move log), game, accept, lobby, join, bot, start, draw (an offer stored, seen right
    when it was answered), dm (the private board delivered by DM), deal, deal-mark, formation, settings."""

    what: str
    user_id: int
    game_id: int | None = None
    lobby_id: int | None = None
    action: str | None = None
    token: int | None = None  # the turn token the clicked component carried (None: a free action)
    prefix: bool = False  # `action` is only the start of the stored text
    expect: tuple[tuple[str, Any], ...] = ()  # stored facts it names (a game's turn time, a setting, ...)
    seen: bool | None = None  # draw: whether the database showed it at the moment the answer came
    answer: str = field(default="", compare=False)  # how the interaction was answered, for a report

    def __str__(self) -> str:
        where = f"game {self.game_id}" if self.game_id is not None else f"lobby {self.lobby_id}"
        extra = f" {self.action!r} at token {self.token}" if self.action is not None else ""
        facts = f" {dict(self.expect)}" if self.expect else ""
        answer = f" ({self.answer})" if self.answer else ""
        return f"{self.what} by {self.user_id} in {where}{extra}{facts}{answer}"


Reading = Callable[[InteractionResult], Promise | None]
SETTINGS_COMMAND = "/settings set"  # the fake's label of that command's interactions


@dataclass
class Sent:
    result: InteractionResult
    promise: Reading | None
    read: Promise | None = None  # the promise as read from the answer when it came (messages change later)
    answered_in: float | None = None  # seconds from sending to the answer, if it came while the player waited

    def kept(self) -> Promise | None:
        """What this interaction promises, if its answer says it was done."""
        res = self.result
        if self.promise is None or not res.answered or res.errors:
            return None
        promise = self.read or self.promise(res)
        return None if promise is None else replace(promise, answer=self.told())

    def told(self) -> str:
        """The interaction and its answer in a few words (a lost promise names them)."""
        res = self.result
        when = (f"answered in {self.answered_in:.2f} s" if self.answered_in is not None
                else "answered after the player stopped waiting")
        read = "read as it came" if self.read is not None else "read at the end"
        return f"{res.label} by {res.user.name}, callback {res.callback_type}, {when}, {read}"


def acknowledged(res: InteractionResult) -> bool:
    """The callback arrived and is not a refusal (refusals are ephemeral replies)."""
    if not res.answered or res.errors:
        return False
    return (res.callback_type == Callback.UPDATE_MESSAGE
            or (res.callback_type == Callback.CHANNEL_MESSAGE and not res.ephemeral))


def public(read: Reading) -> Reading:
    """`read`, for an interaction answered in public (an updated message or a public reply)."""
    return lambda res: read(res) if acknowledged(res) else None


def answered_with(res: InteractionResult) -> FakeMessage:
    """The message as the bot's answer to this interaction drew it (an updated message's new content, or a reply):
    what the player saw then, whatever edits came to that message afterwards."""
    data = res.callback_data or {}
    return FakeMessage(0, res.channel.id, 0, content=str(data.get("content") or ""),
                       embeds=list(data.get("embeds") or []), components=list(data.get("components") or []))


def keeps(promise: Promise) -> Reading:
    """A public answer promises `promise`."""
    return public(lambda _res: promise)


def answer_texts(res: InteractionResult) -> list[str]:
    """Everything the bot said in answer: the original response (or the edited message) and its followups."""
    texts = [res.message.content] if res.message is not None else []
    return texts + [m.content for m in res.followups]


def says(promise: Promise, *openings: str) -> Reading:
    """A private or deferred answer promises `promise` when one of its texts starts with one of `openings` (what
    the bot says when it did it; a refusal says why not)."""
    def read(res: InteractionResult) -> Promise | None:
        return promise if any(t.startswith(openings) for t in answer_texts(res)) else None
    return read


def promises_kept(sent: list[Sent]) -> list[Promise]:
    """The promises of every acknowledged interaction. A server's settings are checked only as its last `/settings
    set` left them (if that one was acknowledged): each change replaces the one before."""
    last: dict[int | None, Sent] = {}
    for s in sent:
        if s.result.label == SETTINGS_COMMAND:
            last[s.result.channel.guild_id] = s
    kept = []
    for s in sent:
        if s.result.label == SETTINGS_COMMAND and last.get(s.result.channel.guild_id) is not s:
            continue
        promise = s.kept()
        if promise is not None:
            kept.append(promise)
    return kept


# ----- the database's side -------------------------------------------------------------------------------------
@dataclass
class Facts:
    """What the database holds besides games: DM boards, deals, saved formations, server settings."""

    delivered: set[tuple[int, int]] = field(default_factory=set)  # (game, seat) whose board is in a DM
    deals: set[tuple[int, int, str]] = field(default_factory=set)  # (game, author, text)
    deal_marks: set[tuple[int, int, int]] = field(default_factory=set)  # (game, number, user)
    formations: set[tuple[int, str]] = field(default_factory=set)  # (user, name)
    settings: dict[int, dict[str, Any]] = field(default_factory=dict)  # guild -> its settings


def read_facts(target: Target) -> Facts:
    peek = peek_at(target)
    facts = Facts()
    facts.delivered = {(int(g), int(s)) for g, s in peek.rows(
        "SELECT game_id, seat FROM private_boards WHERE message_id IS NOT NULL")}
    facts.deals = {(int(g), int(a), str(t)) for g, a, t in peek.rows("SELECT game_id, author_id, text FROM deals")}
    facts.deal_marks = {(int(g), int(n), int(u)) for g, n, u in peek.rows(
        "SELECT game_id, number, user_id FROM deal_acceptances")}
    facts.formations = {(int(u), str(n)) for u, n in peek.rows(
        "SELECT user_id, name FROM saved_formations WHERE kind = 'generals'")}
    for guild, timeout, images, disabled in peek.rows(
            "SELECT guild_id, turn_timeout, images, disabled_games FROM server_settings"):
        facts.settings[int(guild)] = {"turn_timeout": None if timeout is None else float(timeout),
                                      "images": images is None or bool(images),
                                      "disabled": sorted(json_value(disabled))}
    return facts


def draw_stored(target: Target, game_id: int, user_id: int, moves_before: int) -> bool:
    """Whether a draw offer (or agreement) by `user_id` is in the database: the offer is kept until the next move
    clears it, so a move since `moves_before` also shows that it was taken."""
    rows = peek_at(target).rows("SELECT g.draw_offer, g.move_count, p.seat FROM games g JOIN game_players p"
                                " ON p.game_id = g.id AND p.user_id = ? WHERE g.id = ?", (user_id, game_id))
    return bool(rows) and (rows[0][0] == rows[0][2] or int(rows[0][1]) > moves_before)


def move_count(target: Target, game_id: int) -> int:
    rows = peek_at(target).rows("SELECT move_count FROM games WHERE id = ?", (game_id,))
    return 0 if not rows else int(rows[0][0])


def lost_promises(promises: list[Promise], games: dict[int, GameCheck], lobbies: dict[int, dict[str, Any]],
                  facts: Facts) -> list[str]:
    """Each acknowledged promise that the database does not keep; move rows are matched one to one."""
    lost: list[str] = []
    unused = {gid: list(game.rows) for gid, game in games.items()}
    # Turn decisions first (they name their token), then free actions from whatever rows are left.
    for p in sorted(promises, key=lambda p: p.token is None):
        gid = p.game_id
        game = games.get(gid) if gid is not None else None
        lobby = lobbies.get(p.lobby_id) if p.lobby_id is not None else None
        if p.what == "move":
            assert gid is not None and p.action is not None
            rows = unused.get(gid, [])
            found = next((r for r in rows if r.user == p.user_id and (p.token is None or r.token == p.token)
                          and (r.action.startswith(p.action) if p.prefix else r.action == p.action)), None)
            ok = found is not None
            if found is not None:
                rows.remove(found)
        elif p.what == "game":
            ok = game is not None and all(game.fact(name) == value for name, value in p.expect)
        elif p.what == "accept":
            ok = game is not None and game.status != "pending"
        elif p.what == "lobby":
            ok = lobby is not None and lobby["host"] == p.user_id
        elif p.what == "join":
            ok = lobby is not None and p.user_id in lobby["users"]
        elif p.what == "bot":
            ok = lobby is not None and lobby["bots"] > 0
        elif p.what == "start":
            ok = lobby is not None and lobby["status"] == "started" and lobby["game_id"] in games
        elif p.what == "draw":
            ok = bool(p.seen)
        elif p.what == "dm":
            seat = game.seat_of(p.user_id) if game is not None else None
            ok = gid is not None and seat is not None and (gid, seat) in facts.delivered
        elif p.what == "deal":
            ok = gid is not None and (gid, p.user_id, str(p.action)) in facts.deals
        elif p.what == "deal-mark":
            ok = gid is not None and p.token is not None and (gid, p.token, p.user_id) in facts.deal_marks
        elif p.what == "formation":
            ok = (p.user_id, str(p.action)) in facts.formations
        elif p.what == "settings":
            assert p.token is not None
            stored = facts.settings.get(p.token, {})
            ok = all(stored.get(name) == value for name, value in p.expect)
        else:
            raise AssertionError(p.what)
        if not ok:
            lost.append(str(p))
    return lost
