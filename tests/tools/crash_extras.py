"""What the crash test's players do besides the main decision of each turn (tests/tools/crash.py plays those).

Private and deferred answers count as acknowledged here too, read from their words (crash_promises.says):
`/generals move`, Offer draw, Send my board by DM, the setup forms (swap, import, save a formation), `/settings`;
public ones as before: So Long Sucker's `/sucker give`, `/sucker kill`, deals and their Accept, resignations.
Also here: the rotation of Generals tables over every setting, bot level and turn time, players whose DMs are
closed (they play from **My board** until they open their DMs and ask for the board by DM), and players who walk
away from a table so that its turn timer fires.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tests.support.fakediscord import FakeChannel, FakeMessage, FakeUser, InteractionResult
from tests.support.fakediscord.payloads import PERM_MANAGE_GUILD
from tests.tools.crash_promises import (
    Promise,
    acknowledged,
    answered_with,
    draw_stored,
    keeps,
    move_count,
    public,
    says,
)

if TYPE_CHECKING:
    from tests.tools.crash_load import Load, Table

EMOJI_COLOUR = {"🟥": "red", "🟦": "blue", "🟩": "green", "🟨": "yellow", "🟪": "purple", "🟧": "orange"}
_SK_PLAYER = re.compile(r"^(?:▶ )?(\S+) <@(\d+)>(?: \(\w+\))?: (.*)$", re.MULTILINE)
_DEAL_TITLE = re.compile(r"Deal #(\d+) · So Long Sucker #(\d+)")


@dataclass(frozen=True)
class GeneralsTable:
    """One Generals table of the rotation: its settings, the bot's level (None: two people), minutes per turn
    (None: the server's or the bot's), and whether its first player's DMs are closed."""

    settings: str
    level: str | None = None
    turn_minutes: int | None = None
    closed_dms: bool = False


# Every setting of /generals challenge, both with people and against each bot level, standard and small armies,
# the turn time option, and closed DMs on both sides of the table.
GENERALS_ROTATION = (
    GeneralsTable("small-army"),
    GeneralsTable("small-army reveal-winner", level="random", closed_dms=True),
    GeneralsTable("small-army show-flag flag-rush-immediate", turn_minutes=1),
    GeneralsTable("small-army flag-rush-always-wait no-challenge-draw=8", level="greedy"),
    GeneralsTable("no-challenge-draw=12", closed_dms=True),
    GeneralsTable("reveal-winner show-flag", level="strong", turn_minutes=1),
    GeneralsTable("small-army flag-rush-immediate no-challenge-draw=6", level="strong"),
    GeneralsTable("small-army reveal-winner flag-rush-always-wait show-flag"),
)


@dataclass
class Habits:
    """How a table's players behave beyond deciding: who walked away (and after how many decisions), whose DMs
    are closed (with the board they play on and when they open their DMs), the deals on the table."""

    idle_user: int | None = None
    idle_all: bool = False  # everyone walked away (a Generals setup nobody finishes is called off)
    idle_after: int = 0
    decisions: int = 0
    closed: dict[int, int] = field(default_factory=dict)  # user -> decisions after which they open their DMs
    my_boards: dict[int, FakeMessage] = field(default_factory=dict)
    looked: dict[int, object] = field(default_factory=dict)  # user -> what the channel showed at their last look
    deals: dict[int, FakeMessage] = field(default_factory=dict)
    marked: set[tuple[int, int]] = field(default_factory=set)


def idle(load: Load, table: Table, user_id: int) -> bool:
    """Whether `user_id` has walked away from the table (only while the load runs: at the end everyone plays)."""
    habits = table.habits
    return (load.running and (habits.idle_all or habits.idle_user == user_id)
            and habits.decisions >= habits.idle_after)


def choose_habits(load: Load, table: Table) -> None:
    """At a table with a short turn time, someone often walks away at some point, so its timers fire; at a
    Generals table sometimes both players do, before their setups are done."""
    roll = load.rng.random()
    if table.timed and table.kind == "generals" and len(table.users) > 1 and roll < 0.2:
        table.habits.idle_all = True
    elif table.timed and roll < 0.75:
        table.habits.idle_user = load.rng.choice(table.users).id
        table.habits.idle_after = load.rng.randint(0, 6)


# ----- Generals: boards in DMs or from My board ----------------------------------------------------------------
async def refresh_my_boards(load: Load, table: Table, final: bool = False) -> None:
    """Players whose DMs are closed look at their board with **My board** whenever the channel changed."""
    habits, board, gid = table.habits, table.board, table.game_id
    if not habits.closed or board is None or gid is None:
        return
    shown = (board.id, board.edits)
    for user in table.users:
        if user.id not in habits.closed or habits.looked.get(user.id) == shown:
            continue
        if f"gg:{gid}:board" not in board.custom_ids():
            return
        res = await load.click(user, board, f"gg:{gid}:board", None, final=final)
        if res is not None and res.answered and res.message is not None and res.message.ephemeral:
            habits.my_boards[user.id] = res.message
            habits.looked[user.id] = shown


async def open_dms(load: Load, table: Table, user: FakeUser) -> None:
    """A player who played from My board opens their DMs and presses **Send my board by DM** (a deferred answer
    with a followup): the bot must then have their board delivered by DM."""
    gid, board = table.game_id, table.habits.my_boards.get(user.id)
    if gid is None or board is None or f"gg:{gid}:dm" not in board.custom_ids():
        return
    load.fake.fail_dm_for(user, False)
    res = await load.click(user, board, f"gg:{gid}:dm", says(Promise("dm", user.id, game_id=gid), "Sent: "))
    if res is not None and says(Promise("dm", user.id), "Sent: ")(res) is not None:
        del table.habits.closed[user.id]
        table.habits.my_boards.pop(user.id, None)


async def generals_move_command(load: Load, table: Table, user: FakeUser, move: str, final: bool) -> bool:
    """`/generals move`: answered privately ("You moved ...", "You challenged ..."), a refusal too."""
    gid = table.game_id
    assert gid is not None
    promise = Promise("move", user.id, game_id=gid, action=move)
    res = await load.send(lambda: load.fake.slash(user, table.channel, "generals", "move",
                                                  {"move": move, "game": gid}, wait=False),
                          says(promise, "You moved", "You challenged"), final=final)
    return res is not None and says(promise, "You moved", "You challenged")(res) is not None


async def setup_form(load: Load, table: Table, user: FakeUser, board: FakeMessage) -> bool:
    """Rearrange a deployed setup on the board: swap two squares with the square menus (pick one, then the other),
    import the grid as it stands (a form), or save the formation (a form, answered privately)."""
    gid = table.game_id
    assert gid is not None
    what = load.rng.choice(["swap", "swap", "import", "save"])
    if what == "swap":
        return await _swap(load, table, user, board)
    custom_id = f"gg:{gid}:{what}"
    if custom_id not in board.custom_ids():
        return False
    shown = await load.click(user, board, custom_id, None)
    if shown is None or shown.modal is None:
        return False
    values: dict[str, str] = {}
    reading = keeps(Promise("move", user.id, game_id=gid, action="setup:", prefix=True))
    if what == "save":
        name = f"crash-{secrets.token_hex(3)}"
        values["name"] = name
        reading = says(Promise("formation", user.id, action=name), "Saved as")
    res = await load.send(lambda: load.fake.submit_modal(user, shown, values, wait=False), reading)
    return res is not None and reading(res) is not None


async def _swap(load: Load, table: Table, user: FakeUser, board: FakeMessage) -> bool:
    """Pick a square in one of the setup's square menus (the board redraws it marked), then swap it with another."""
    gid = table.game_id
    menus = [c for c in board.walk_components() if str(c.get("custom_id", "")).startswith(f"ggs:{gid}:square:")]
    picks = [(str(m["custom_id"]), str(o["value"])) for m in menus for o in m["options"]
             if str(o["value"]).startswith("pick:")]
    if not picks:
        return False
    menu, pick = load.rng.choice(picks)
    picked = await load.select(user, board, menu, pick)
    if picked is None or not acknowledged(picked):
        return False
    swaps = [(str(m["custom_id"]), str(o["value"])) for m in board.walk_components()
             if str(m.get("custom_id", "")).startswith(f"ggs:{gid}:square:")
             for o in m.get("options", []) if str(o["value"]).startswith("swap:")]
    if not swaps:
        return False
    menu, swap = load.rng.choice(swaps)
    reading = keeps(Promise("move", user.id, game_id=gid, action=swap))
    res = await load.select(user, board, menu, swap, reading)
    return res is not None and reading(res) is not None


# ----- draws and resignations ----------------------------------------------------------------------------------
async def offer_draw(load: Load, table: Table) -> None:
    """A player offers a draw from the channel message; often the other accepts at once the same way."""
    board, gid = table.board, table.game_id
    if board is None or gid is None or load.database is None:
        return
    verb = "gg" if table.kind == "generals" else "cs"
    custom_id = f"{verb}:{gid}:draw"
    players = [u for u in table.users if not idle(load, table, u.id)]
    if custom_id not in board.custom_ids() or len(players) < 2:
        return
    offerer, other = load.rng.sample(players, 2)
    for user in (offerer, other) if load.rng.random() < 0.5 else (offerer,):
        await load.click(user, board, custom_id, _draw_reading(load, table, user, gid))


def _draw_reading(load: Load, table: Table, user: FakeUser, gid: int) -> Callable[[InteractionResult],
                                                                                   Promise | None]:
    """Generals answers a draw privately in words; Chopsticks redraws its board (a finished draw, or the offer)."""
    database = load.database
    assert database is not None
    before = move_count(database, gid)
    agreed = Promise("move", user.id, game_id=gid, action="draw-agreed")

    def offered() -> Promise:
        return Promise("draw", user.id, game_id=gid, token=before, seen=draw_stored(database, gid, user.id, before))

    if table.kind == "generals":
        def read(res: InteractionResult) -> Promise | None:
            if says(agreed, "The game is drawn by agreement")(res) is not None:
                return agreed
            return offered() if says(agreed, "You offered a draw")(res) is not None else None
        return read

    # The board a click is answered with shows the latest position, so an offer answered as the other player's
    # acceptance lands shows the game drawn: what it promises is the game drawn by agreement, not this player's
    # row. It is read from the answer itself: the clicked message may be edited again before the player reads it.
    drawn_by_agreement = Promise("game", user.id, game_id=gid, expect=(("ending", "draw-agreed"),))

    def read_board(res: InteractionResult) -> Promise | None:
        answer = answered_with(res)
        drawn = not answer.components and "🤝" in answer.text()
        return drawn_by_agreement if drawn else offered()
    return public(read_board)


async def resign(load: Load, table: Table) -> None:
    """Now and then a player resigns: Resign, then "Yes, resign" on the private confirmation."""
    board, gid = table.board, table.game_id
    if board is None or gid is None:
        return
    button = next((c for c in board.custom_ids() if c.endswith(":resign") and f":{gid}:" in c), None)
    players = [u for u in table.users if not idle(load, table, u.id)]
    if button is None or not players:
        return
    user = load.rng.choice(players)
    confirm = await load.click(user, board, button, None)
    if confirm is None or confirm.message is None or not confirm.ephemeral:
        return
    yes = next((c for c in confirm.message.custom_ids() if c.endswith(":resign-yes")), None)
    if yes is not None:
        await load.click(user, confirm.message, yes, keeps(Promise("move", user.id, game_id=gid, action="resign")))


# ----- So Long Sucker's free actions and deals ----------------------------------------------------------------
def sucker_seats(text: str) -> dict[int, tuple[str, list[str]]]:
    """user id -> (own colour, colours held) of the players still in, from the status message's player lines."""
    seats: dict[int, tuple[str, list[str]]] = {}
    for match in _SK_PLAYER.finditer(text):
        own = EMOJI_COLOUR.get(match.group(1))
        if own is None:
            continue
        held = [EMOJI_COLOUR[e] for e, n in re.findall(r"(\S+) (\d+)", match.group(3))
                if e in EMOJI_COLOUR and int(n) > 0]
        seats[int(match.group(2))] = (own, held)
    return seats


async def sucker_free_action(load: Load, table: Table) -> None:
    """Out of turn, a player holding prisoners gives one to another player (`/sucker give`) or kills one
    (`/sucker kill`); both are answered in public."""
    status, game = table.board, table.game_id
    assert status is not None and game is not None
    seats = sucker_seats(status.text())
    mine = {u.id: u for u in table.users if not idle(load, table, u.id)}
    holders = [(uid, own, held) for uid, (own, held) in seats.items()
               if uid in mine and any(c != own for c in held)]
    if not holders:
        return
    giver, own, held = load.rng.choice(holders)
    chip = load.rng.choice([c for c in held if c != own])
    if load.rng.random() < 0.25:
        promise = Promise("move", giver, game_id=game, action=f"kill-prisoner:{chip}")
        await load.slash(mine[giver], table.channel, "sucker", "kill", {"chip": chip, "game": game}, keeps(promise))
        return
    others = [(uid, colour) for uid, (colour, _h) in seats.items() if uid != giver and uid in mine]
    if not others:
        return
    receiver, receiver_colour = load.rng.choice(others)
    promise = Promise("move", giver, game_id=game, action=f"give:{chip}:{receiver_colour}")
    await load.slash(mine[giver], table.channel, "sucker", "give",
                     {"chip": chip, "to": mine[receiver], "game": game}, keeps(promise))


async def sucker_deal(load: Load, table: Table) -> None:
    """A player proposes a deal (`/sucker deal`, a public message), or another marks a deal accepted (once each:
    a second click would take it back)."""
    gid = table.game_id
    players = [u for u in table.users if not idle(load, table, u.id)]
    if gid is None or not players:
        return
    habits = table.habits
    unmarked = [(n, u) for n in habits.deals for u in players if (n, u.id) not in habits.marked]
    if unmarked and load.rng.random() < 0.6:
        number, user = load.rng.choice(unmarked)
        habits.marked.add((number, user.id))  # once, acknowledged or not: a retry might undo a lost one
        await load.click(user, habits.deals[number], f"sd:{gid}:{number}",
                         keeps(Promise("deal-mark", user.id, game_id=gid, token=number)))
        return
    user = load.rng.choice(players)
    text = f"I keep off pile {load.rng.randint(1, 5)} if you spare my chips ({secrets.token_hex(2)})"
    res = await load.slash(user, table.channel, "sucker", "deal", {"text": text, "game": gid},
                           keeps(Promise("deal", user.id, game_id=gid, action=text)))
    if res is not None and res.message is not None:
        for embed in res.message.embeds:
            found = _DEAL_TITLE.match(str(embed.get("title", "")))
            if found and int(found[2]) == gid:
                habits.deals[int(found[1])] = res.message


# ----- server settings ---------------------------------------------------------------------------------------
async def change_settings(load: Load, admin: FakeUser, channel: FakeChannel, turn_time: int, images: bool) -> None:
    """An admin sets the server's turn time (seconds) and board pictures with `/settings set` (a private "Saved.")."""
    guild = channel.guild_id
    assert guild is not None
    promise = Promise("settings", admin.id, token=guild,
                      expect=(("turn_timeout", float(turn_time)), ("images", images)))
    await load.send(lambda: load.fake.slash(admin, channel, "settings", "set",
                                            {"turn_time": f"{turn_time}s", "images": images},
                                            permissions=PERM_MANAGE_GUILD, wait=False),
                    says(promise, "Saved."))
