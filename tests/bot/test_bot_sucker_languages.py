"""So Long Sucker in two languages through the real bot and the offline Discord (issue 16): whole games between
Russian- and English-speaking players, once on an English server and once on a Russian one. What the table shows
(lobby, status message and its menus, thread, turn pings, announcements of gifts and kills, deals, the ending) is in
the server's language; what one player is told privately (rules, /sucker status, refusals, autocomplete, the
resign confirmation, the private pile choice) is in that player's own."""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Callable

from bot.client import TabletopBot
from bot.games.sucker.people import typed_colour
from bot.i18n import render
from games.sucker import Deed, Narration, SuckerState
from games.sucker.narration import colour_name, words
from games.text import Plural
from tests.support.fakediscord import FakeChannel, FakeMessage, FakeUser, InteractionResult
from tests.support.interactions import check_shown_and_pinged
from tests.support.sucker import decide, open_table, put_position, stored, thread_opened
from tests.support.world import TabletopRunner, World, stored_rows

CYRILLIC = re.compile(r"[\u0400-\u04ff]")
# What reads the same in every language: code spans (`/простофиля отдать`, `play:red:2`), mentions, channels and
# timestamps (<@1>, <#2>, <t:3:R>), links, and the people's own names (autocomplete shows them as they are).
NAMES = ("alice", "bob", "carol", "dave")
NOT_WORDS = re.compile(r"`[^`]*`|<[^>]*>|https?://\S+|\b(?:" + "|".join(NAMES) + r")\b")
ENGLISH_WORD = re.compile(r"[A-Za-z]{3,}")
DEAL = "🤝 1+1=2"  # the proposer's own words are shown as written: these have none, so the checks read everything
# Three chips each; Alice (red) to play, holding a blue prisoner, Bob (blue) a green one, the computer seat green.
START = SuckerState.from_table(3, 3, holdings=["RRB", "BBG", "GG"], chain=(0,))
Check = Callable[[FakeMessage | None], None]


def _words(message: FakeMessage) -> str:
    """Everything a person reads in the message: its text, embeds (footer too), button labels and menu texts."""
    parts = [message.text()]
    parts += [str((embed.get("footer") or {}).get("text") or "") for embed in message.embeds]
    for component in message.walk_components():
        parts += [str(component.get(key) or "") for key in ("label", "placeholder")]
        parts += [str(option.get("label") or "") for option in component.get("options") or []]
    return "\n".join(parts)


def _russian(text: str) -> None:
    assert CYRILLIC.search(text), f"not Russian: {text!r}"
    leftovers = ENGLISH_WORD.findall(NOT_WORDS.sub(" ", text))
    assert not leftovers, f"English words {leftovers} in a Russian text: {text!r}"


def _english(text: str) -> None:
    assert not CYRILLIC.search(text), f"not English: {text!r}"
    assert ENGLISH_WORD.search(NOT_WORDS.sub(" ", text)), f"no words at all: {text!r}"


def assert_russian(message: FakeMessage | None) -> None:
    assert message is not None
    _russian(_words(message))


def assert_english(message: FakeMessage | None) -> None:
    assert message is not None
    _english(_words(message))


def _private(res: InteractionResult) -> FakeMessage:
    message = res.followups[0] if res.followups else res.message
    assert message is not None and message.ephemeral, res.errors
    return message


def _public(res: InteractionResult) -> FakeMessage:
    assert res.message is not None and not res.message.ephemeral, res.errors
    return res.message


def _a_decision(status: FakeMessage) -> tuple[str, list[str] | None]:
    """A decision on the status message (a menu's first option, or a button), to click out of turn."""
    menu = next((c for c in status.walk_components() if str(c.get("custom_id", "")).startswith("sks:")), None)
    if menu is not None:
        return str(menu["custom_id"]), [str(menu["options"][0]["value"])]
    button = next(b for b in status.buttons() if str(b["custom_id"]).startswith("sk:"))
    return str(button["custom_id"]), None


async def _refused_out_of_turn(world: World, status: FakeMessage, user: FakeUser) -> FakeMessage:
    custom_id, values = _a_decision(status)
    if values is None:
        res = await world.fake.click(user, status, custom_id)
    else:
        res = await world.fake.select(user, status, custom_id, values=values)
    return _private(res)


class Table:
    """Two people and a computer seat play one table (3 chips each) to its end; the first person to hold a prisoner
    gives one away and, later, another kills one, by slash command in the thread."""

    def __init__(self, world: World, bots: TabletopRunner, speakers: dict[int, tuple[FakeUser, Check]]) -> None:
        self.world, self.bots, self.speakers = world, bots, speakers
        self.rng = random.Random(16)
        self.free_actions: list[FakeMessage] = []
        self.refusals = 0

    async def _people(self, state: SuckerState) -> dict[int, int]:
        """Seat -> user id of every person still in the game (computer seats have no user)."""
        rows = await stored_rows(self.bots.target, "SELECT seat, user_id FROM game_players WHERE game_id = 1")
        return {int(seat): int(user) for seat, user in rows if user is not None and state.is_live(int(seat))}

    async def play(self, status: FakeMessage, thread: FakeChannel) -> None:
        world = self.world
        for _ in range(400):
            state_status, state, _log = await stored(self.bots.target)
            if state_status != "active":
                return
            decider = state.current_player()
            assert decider is not None
            people = await self._people(state)
            if decider not in people:
                await asyncio.sleep(0.02)  # the computer seat decides
                continue
            if await self._free_action(state, people, thread, status):
                continue
            user, check = self.speakers[people[decider]]
            waiting = [self.speakers[u] for s, u in people.items() if s != decider]
            if self.refusals < 4 and waiting:
                await world.fake.wait_until(lambda: any(str(c.get("custom_id", "")).startswith(("sk:", "sks:"))
                                                        for c in status.walk_components()))
                other, other_check = waiting[0]
                other_check(await _refused_out_of_turn(world, status, other))
                self.refusals += 1
            await decide(world, status, user, state, self.rng, private=check)
        raise AssertionError("the game did not finish")

    async def _free_action(self, state: SuckerState, people: dict[int, int], thread: FakeChannel,
                           status: FakeMessage) -> bool:
        """A gift, then a kill, of a prisoner by a person, once each: what the table is told of it."""
        if len(self.free_actions) >= 2:
            return False
        holder = next((s for s in people if state.prisoners(s)), None)
        if holder is None:
            return False
        user, check = self.speakers[people[holder]]
        colour = state.colours[next(iter(state.prisoners(holder)))]
        edits = status.edits
        if not self.free_actions:
            choices = await self.world.fake.autocomplete(user, thread, "sucker", "give",
                                                         options={"chip": ""}, focused="chip")
            assert colour in [c["value"] for c in choices]
            for choice in choices:
                (_russian if check is assert_russian else _english)(str(choice["name"]))
            receiver = next(s for s in state.live_seats() if s != holder)
            res = await self.world.fake.slash(user, thread, "sucker", "give",
                                              options={"chip": colour, "to_colour": state.colours[receiver]})
        else:
            res = await self.world.fake.slash(user, thread, "sucker", "kill", options={"chip": colour})
        self.free_actions.append(_public(res))
        await self.world.fake.wait_until(lambda: status.edits > edits)
        return True


async def _everything_public(world: World, check: Check, people: tuple[FakeUser, ...]) -> int:
    """Every message the channel and the thread show, and every ping the people had, is in the server's language."""
    shown = [m for channel in (world.channel, *world.guild.threads) for m in world.fake.channel_messages(channel)]
    check_shown_and_pinged(world.fake, check, shown, people)
    return len(shown)


async def _opened_at_start(world: World, bots: TabletopRunner, bot: TabletopBot) -> tuple[FakeMessage, FakeChannel]:
    """Alice and Bob open a table of three chips each with one computer seat, put at START: its status message and
    its thread."""
    status = await open_table(world, [world.alice, world.bob], bots=1, options={"chips": 3})
    await thread_opened(world, status)
    await put_position(world, bot, bots.target, START)
    return status, world.guild.threads[0]


async def _played_out(table: Table, status: FakeMessage, thread: FakeChannel, public: Check, *, wins: str,
                      over: str) -> None:
    """`table` plays the game to its end (with refusals and free actions on the way); the status message says who
    `wins`, the channel that the game `is over`, and everything public was in the server's language (`public`)."""
    world = table.world
    await table.play(status, thread)
    await world.fake.wait_until(lambda: wins in status.text() and status.components == [])
    assert table.refusals and table.free_actions
    await world.fake.wait_until(lambda: any(over in m.text() for m in world.fake.channel_messages(world.channel)))
    assert await _everything_public(world, public, (world.alice, world.bob)) >= 5


async def test_a_russian_player_on_an_english_server(world: World, bots: TabletopRunner) -> None:
    world.alice.locale = "ru"  # Alice's Discord is in Russian; Bob's and the server's in English
    alice, bob = world.alice, world.bob
    bot = await bots.start()

    rules = _private(await world.fake.slash(alice, world.channel, "sucker", "rules"))
    assert_russian(rules)
    assert "Правила игры «Прощай, простофиля»" in rules.text() and "`/простофиля отдать`" in rules.text()
    assert_english(_private(await world.fake.slash(bob, world.channel, "sucker", "rules")))

    status, thread = await _opened_at_start(world, bots, bot)
    assert thread.name == "So Long Sucker #1"
    assert_english(status)
    assert "plays a chip" in status.text() and "3 players · 3 chips each" in status.text()

    mine = _private(await world.fake.slash(alice, thread, "sucker", "status"))
    assert_russian(mine)  # the same table, shown only to her: in her language
    assert "Бот 1 (зелёный)" in mine.text() and "3 игрока · по 3 фишки" in mine.text()
    own = _private(await world.fake.slash(alice, thread, "sucker", "give", options={"chip": "красная", "to": bob}))
    assert own.content == "Фишки своего цвета отдавать нельзя."  # a colour typed in Russian is understood
    pink = await world.fake.slash(bob, thread, "sucker", "give", options={"chip": "pink", "to": alice})
    assert_english(_private(pink))
    receivers = await world.fake.autocomplete(alice, thread, "sucker", "give",
                                              options={"chip": "blue", "to_colour": ""}, focused="to_colour")
    assert [c["name"] for c in receivers] == ["синий: игрок", "зелёный: Бот 1"]  # a name I do not know: "a player"
    ask = _private(await world.fake.click(alice, status, status.button("Resign")["custom_id"]))
    assert_russian(ask)
    assert ask.buttons()[0]["label"] == "Да, сдаться"

    deal = _public(await world.fake.slash(alice, thread, "sucker", "deal", options={"text": DEAL}))
    assert_english(deal)
    await world.fake.click(bob, deal, deal.buttons()[0]["custom_id"])
    assert_english(deal)
    assert f"accepted by: {bob.mention}" in deal.text()

    await _played_out(Table(world, bots, {alice.id: (alice, assert_russian), bob.id: (bob, assert_english)}),
                      status, thread, assert_english, wins="wins", over="is over")
    assert_russian(_private(await world.fake.slash(alice, world.channel, "replay", options={"game": 1})))
    assert_english(_private(await world.fake.slash(bob, world.channel, "replay", options={"game": 1})))


async def test_an_english_player_on_a_russian_server(world: World, bots: TabletopRunner) -> None:
    world.guild.locale = "ru"  # the server's preferred language: its table, thread and announcements are Russian
    world.bob.locale = "ru"  # Bob's Discord is in Russian too; Alice's in English
    alice, bob = world.alice, world.bob
    bot = await bots.start()

    rules = _private(await world.fake.slash(alice, world.channel, "sucker", "rules"))
    assert_english(rules)
    status, thread = await _opened_at_start(world, bots, bot)
    assert thread.name == "Прощай, простофиля #1"
    assert_russian(status)
    assert "Фишку кладёт" in status.text() and "3 игрока · по 3 фишки" in status.text()
    greeting = world.fake.channel_messages(thread)[0]
    assert greeting.content.startswith("Стол партии «Прощай, простофиля» #1")
    assert "`/простофиля сдаться`" in greeting.content

    mine = _private(await world.fake.slash(alice, thread, "sucker", "status"))
    assert_english(mine)
    assert "Bot 1 (green)" in mine.text() and "3 players · 3 chips each" in mine.text()
    ask = _private(await world.fake.click(alice, status, status.button("Сдаться")["custom_id"]))
    assert_english(ask)
    assert ask.content.startswith("Resign from So Long Sucker #1?")

    deal = _public(await world.fake.slash(alice, thread, "sucker", "deal", options={"text": DEAL}))
    assert_russian(deal)
    refused = _private(await world.fake.click(world.carol, deal, deal.buttons()[0]["custom_id"]))
    assert refused.content == "Only the players of this game can accept its deals."  # Carol's English client
    await world.fake.click(bob, deal, deal.buttons()[0]["custom_id"])
    assert_russian(deal)
    assert f"Принято: {bob.mention}" in deal.text()

    await _played_out(Table(world, bots, {alice.id: (alice, assert_english), bob.id: (bob, assert_russian)}),
                      status, thread, assert_russian, wins="Побеждает", over="партия окончена")
    lobby = _public(await world.fake.slash(world.carol, world.channel, "sucker", "new"))  # Carol's client: English
    assert_russian(lobby)
    assert "«Прощай, простофиля» до 4 игроков, по 7 фишек." in lobby.text()


async def test_the_table_talks_russian_with_names_and_colours(world: World, bots: TabletopRunner) -> None:
    """The narration, word for word: Russian without declining a name (players are named in the nominative)."""
    world.guild.locale = "ru"
    alice, bob, carol = world.alice, world.bob, world.carol
    bot = await bots.start()
    status = await open_table(world, [alice, bob, carol])
    await thread_opened(world, status)
    thread = world.guild.threads[0]
    # Alice (red) to play, holding a red chip and two blue prisoners; pile 2 is blue under red.
    await put_position(world, bot, bots.target,
                       SuckerState.from_table(3, holdings=["RBB", "BB", "GG"], piles=["G", "BR"], chain=(0,)))
    await world.fake.wait_until(lambda: "🟦 2 (2 пленника)" in status.text())
    gift = _public(await world.fake.slash(alice, thread, "sucker", "give", options={"chip": "синяя", "to": carol}))
    assert gift.content == f"{alice.mention} (красный) отдаёт синюю фишку игроку {carol.mention} (зелёный)."
    menu = next(c for c in status.walk_components() if ":play" in str(c.get("custom_id", "")))
    labels = {o["label"]: o["value"] for o in menu["options"]}
    assert "синяя — на стопку 2 (2 фишки, сверху красная)" in labels and "красная — в новую стопку" in labels
    await world.fake.select(alice, status, str(menu["custom_id"]),
                            values=[labels["синяя — на стопку 2 (2 фишки, сверху красная)"]])
    assert f"Только что: {alice.mention} (красный) кладёт синюю фишку на стопку 2." in status.text()
    assert [b["label"] for b in status.buttons()] == ["Зелёный ходит следующим", "Сдаться"]  # red and blue are in it
    await world.fake.click(alice, status, status.button("Зелёный")["custom_id"])
    assert f"{alice.mention} (красный) называет следующего игрока: {carol.mention} (зелёный)." in status.text()
    kill = _public(await world.fake.slash(carol, thread, "sucker", "kill", options={"chip": "blue"}))
    assert kill.content == f"{carol.mention} (зелёный) убивает пленную синюю фишку."


async def test_running_out_of_time_on_a_russian_server(world: World, bots: TabletopRunner) -> None:
    world.guild.locale = "ru"
    alice, bob, carol = world.alice, world.bob, world.carol
    bot = await bots.start_with(turn_timeout=2.0)
    status = await open_table(world, [alice, bob, carol])
    await thread_opened(world, status)
    thread = world.guild.threads[0]
    # Alice (red) is stuck; Bob, then Carol, are asked to rescue her, and let their time run out.
    await put_position(world, bot, bots.target, SuckerState.from_table(3, holdings=["", "BR", "GR"], chain=(2, 0)))
    assert f"Ход за игроком {alice.mention} (красный), но" in status.text()
    second = (f"«Прощай, простофиля» #1: время на спасение вышло, поэтому {carol.mention} (зелёный) отказывается "
              f"спасать игрока {alice.mention} (красный); выбывает {alice.mention} (красный).")
    await world.fake.wait_until(lambda: any(m.content == second for m in world.fake.channel_messages(thread)),
                                timeout=8)
    assert "💀 🟥" in status.text() and "вне игры" in status.text()
    await _everything_public(world, assert_russian, (alice, bob, carol))


# ----- words, without Discord ---------------------------------------------------------------------------------------
def test_russian_counts_chips_and_prisoners_by_its_plural_rules() -> None:
    def russian(singular: str, plural: str, counts: tuple[int, ...] = (1, 3, 7, 21)) -> list[str]:
        return [render(Plural(singular, plural, n), "ru") for n in counts]

    assert russian("{count} chip", "{count} chips") == ["1 фишка", "3 фишки", "7 фишек", "21 фишка"]
    assert russian("{count} chip each", "{count} chips each") == ["по 1 фишке", "по 3 фишки", "по 7 фишек",
                                                                   "по 21 фишке"]
    assert russian("({count} prisoner)", "({count} prisoners)") == ["(1 пленник)", "(3 пленника)", "(7 пленников)",
                                                                     "(21 пленник)"]
    gifts = [render(words(Narration(1, Deed.GIVE, "red", n, 0), colour_name), "ru") for n in (1, 2, 5)]
    assert gifts == ["синий отдаёт красную фишку игроку красный",
                     "синий отдаёт 2 фишки цвета «красный» игроку красный",
                     "синий отдаёт 5 фишек цвета «красный» игроку красный"]
    assert render(words(Narration(2, Deed.RESIGN, count=4), colour_name), "ru") == \
        "зелёный сдаётся; 4 фишки, которые были на руках, покидают игру"


def test_colours_typed_in_either_language() -> None:
    assert [typed_colour(word) for word in ("blue", " Синий", "синяя", "СИНЮЮ", "зеленый", "жёлтая", "pink")] == \
        ["blue", "blue", "blue", "blue", "green", "yellow", "pink"]
