"""/leaderboard and /stats through the real bot and the offline Discord."""

from __future__ import annotations

import re

from bot.service import Player
from storage.connection import open_database
from storage.ratings import GLOBAL, RatingRow, save_ratings
from tests.support.chopsticks import accepted_game
from tests.support.codes import Callback
from tests.support.world import TabletopRunner, World, seed_ratings


async def _seed(bots: TabletopRunner, guild_id: int, users: list[int]) -> None:
    """Rated players as earlier games would have left them: a higher mu for a lower index."""
    db = await open_database(bots.target)
    try:
        async with db.transaction() as conn:
            for scope in (guild_id, GLOBAL):
                await save_ratings(conn, [RatingRow("chopsticks", scope, u, 40.0 - i, 3.0, games=12, wins=i)
                                          for i, u in enumerate(users)], now=1.0)
    finally:
        await db.close()


async def test_leaderboard_pages_and_shows_the_callers_rank(world: World, bots: TabletopRunner) -> None:
    users = [10**17 + i for i in range(23)]
    await _seed(bots, world.guild.id, users)
    await bots.start()
    res = await world.fake.slash(world.alice, world.channel, "leaderboard", options={"game": "chopsticks"})
    board = res.message
    assert res.callback_type == Callback.CHANNEL_MESSAGE and board is not None
    text = board.text()
    assert f"**1.** <@{users[0]}>" in text and f"<@{users[10]}>" not in text and "Page 1 of 3" in text
    previous, following = board.buttons()
    assert previous.get("disabled") and not following.get("disabled")
    await world.fake.click(world.bob, board, following["custom_id"])
    assert f"**11.** <@{users[10]}>" in board.text() and "Page 2 of 3" in board.text()


async def test_the_callers_rank_is_shown_even_off_page(world: World, bots: TabletopRunner) -> None:
    others = [10**17 + i for i in range(12)]
    await _seed(bots, world.guild.id, [*others, world.carol.id])
    await bots.start()
    res = await world.fake.slash(world.carol, world.channel, "leaderboard", options={"game": "chopsticks"})
    assert res.message is not None
    assert f"**13.** <@{world.carol.id}>" in res.message.text() and "← you" in res.message.text()
    globally = await world.fake.slash(world.carol, world.channel, "leaderboard",
                                      options={"game": "chopsticks", "scope": "global"})
    assert globally.message is not None and "(global)" in globally.message.text()


async def test_stats_after_a_real_rated_game(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    board = await accepted_game(world)
    mover = world.alice if f"▶ <@{world.alice.id}>" in board.text() else world.bob
    waiting = world.bob if mover is world.alice else world.alice
    move = next(b["custom_id"] for b in board.buttons() if ":mv:" in b["custom_id"])
    await world.fake.click(mover, board, move)
    resign = next(b["custom_id"] for b in board.buttons() if b["label"] == "Resign")
    confirm = await world.fake.click(mover, board, resign)
    assert confirm.message is not None
    await world.fake.click(mover, confirm.message, confirm.message.buttons()[0]["custom_id"])
    await world.fake.wait_until(lambda: "resigned" in board.text())

    stats = await world.fake.slash(world.alice, world.channel, "stats", options={"user": waiting})
    assert stats.message is not None
    text = stats.message.text()
    assert "Chopsticks" in text and "1W 0D 0L" in text and "(provisional)" in text
    assert f"Favourite opponent: <@{mover.id}>" in text
    nobody = await world.fake.slash(world.carol, world.channel, "stats")
    assert nobody.message is not None and "No rated games yet." in nobody.message.text()


async def test_page_buttons_work_after_a_restart_and_ties_go_by_user_id(world: World, bots: TabletopRunner) -> None:
    """The buttons carry the ladder and the page: a restarted bot answers them. Players with the same rating take
    places in the order of their user ids, as they always have."""
    users = [10**17 + i for i in range(25)]
    db = await open_database(bots.target)
    try:
        async with db.transaction() as conn:
            rows = [RatingRow("chopsticks", world.guild.id, u, 40.0 - i if i < 5 else 30.0, 3.0, games=12)
                    for i, u in enumerate(users)]
            await save_ratings(conn, rows[::-1], now=1.0)  # written in reverse: the order is the ladder's own
    finally:
        await db.close()
    first = await bots.start()
    res = await world.fake.slash(world.alice, world.channel, "leaderboard", options={"game": "chopsticks"})
    board = res.message
    assert board is not None and "Page 1 of 3" in board.text() and "25 rated players" in board.text()
    following = board.buttons()[1]["custom_id"]
    await bots.stop(first)
    await bots.start()
    await world.fake.click(world.bob, board, following)
    text = board.text()
    assert "Page 2 of 3" in text
    places = [f"**{11 + k}.** <@{users[10 + k]}>" for k in range(10)]
    assert all(place in text for place in places) and [text.index(p) for p in places] == sorted(
        text.index(p) for p in places)
    await world.fake.click(world.bob, board, board.buttons()[1]["custom_id"])
    assert "Page 3 of 3" in board.text() and f"**25.** <@{users[24]}>" in board.text()
    assert board.buttons()[1].get("disabled")
    await world.fake.click(world.bob, board, board.buttons()[0]["custom_id"])
    assert "Page 2 of 3" in board.text()


async def test_stats_on_a_server_count_and_name_only_that_servers_games(world: World, bots: TabletopRunner) -> None:
    """Issue 22, bug 7: alice played bob once here and dave twice on another server. Here, /stats counts one game and
    names bob, never dave (as /history); in her DMs, alice sees all three and dave; others' stats are not for DMs."""
    fake, alice, bob = world.fake, world.alice, world.bob
    dave = fake.add_user("dave")
    other = fake.add_guild("Other Place")
    there = fake.add_channel(other, "play")
    bot = await bots.start()
    for guild, channel, opponent in ((world.guild, world.channel, bob), (other, there, dave), (other, there, dave)):
        game = await bot.service.create("chopsticks", guild_id=guild.id, channel_id=channel.id,
                                        players=[Player(alice.id), Player(opponent.id)], options={"first": 0})
        await bot.service.act(game.id, alice.id, "AC")
        await bot.service.resign(game.id, opponent.id)

    for asker in (bob, world.carol, alice):
        here = await fake.slash(asker, world.channel, "stats", options={"user": alice})
        assert here.message is not None, here.errors
        text = here.message.text()
        assert f"Favourite opponent: <@{bob.id}> (1 game)" in text and str(dave.id) not in text, text
        assert "This server: " in text and "1 game: 1W 0D 0L" in text and "3 games" not in text, text
        assert "Global rating: " in text
    dm = fake.dm_channel(alice)
    own = await fake.slash(alice, dm, "stats")
    assert own.message is not None, own.errors
    assert f"Favourite opponent: <@{dave.id}> (2 games)" in own.message.text()
    assert "3 games: 3W 0D 0L" in own.message.text()
    refused = await fake.slash(dave, fake.dm_channel(dave), "stats", options={"user": alice})
    assert refused.ephemeral and refused.message is not None
    assert "In DMs, /stats shows only your own stats" in refused.message.text()


# ----- issue 23: every word in the reader's language; /stats private unless posted; ladders in DMs ------------------
FRESH_MU, FRESH_SIGMA = 25.0, 25.0 / 3  # a newcomer's rating: shown as 1000, provisional
# Wins, draws, losses as a Russian ladder abbreviates them (выигрыши, ничьи, поражения), in Cyrillic.
RU_RECORD = "{}\u0412 {}\u041d {}\u041f"


def _two_players(world: World) -> list[RatingRow]:
    rows = []
    for scope in (world.guild.id, GLOBAL):
        rows += [RatingRow("chopsticks", scope, world.alice.id, FRESH_MU, FRESH_SIGMA, games=1, wins=1, streak=1,
                           best_streak=1),
                 RatingRow("chopsticks", scope, world.bob.id, FRESH_MU, FRESH_SIGMA, games=2, wins=1, losses=1,
                           streak=-1, best_streak=1)]
    return rows


async def test_stats_and_ladders_speak_russian(world: World, bots: TabletopRunner) -> None:
    """Defect 13: "Stats of alice", "Streak: 1 loss in a row", "Chopsticks ladder (this server)", "◀ Previous" were
    English f-strings. A private answer speaks the asker's language; the ladder, a channel message, the server's."""
    await seed_ratings(bots.target, _two_players(world))
    world.guild.locale = "ru"
    world.bob.locale = "ru"
    await bots.start()
    fake = world.fake

    stats = await fake.slash(world.bob, world.channel, "stats", options={"user": world.alice})
    assert stats.ephemeral and stats.message is not None, stats.errors
    lines = stats.message.text().splitlines()
    assert lines[0] == "Статистика: alice"
    assert "**Палочки**" in lines
    here = "этом сервере: 1000 (предварительный)"  # after the line's first word ("On")
    assert f"{here} · 1 партия: {RU_RECORD.format(1, 0, 0)}" in stats.message.text()
    assert "Серия: 1 победа подряд (лучшая: 1 победа подряд)" in lines
    assert "Общий рейтинг: 1000 (предварительный)" in lines
    mine = await fake.slash(world.bob, world.channel, "stats")
    assert mine.message is not None and "Серия: 1 поражение подряд (лучшая: 1 победа подряд)" in mine.message.text()
    assert f"{here} · 2 партии: {RU_RECORD.format(1, 0, 1)}" in mine.message.text()

    ladder = await fake.slash(world.alice, world.channel, "leaderboard", options={"game": "chopsticks"})
    assert ladder.message is not None and not ladder.ephemeral, ladder.errors
    lines = ladder.message.text().splitlines()
    assert lines[0] == "Рейтинг: Палочки (этот сервер)", lines
    assert any(re.fullmatch(rf"\*\*[12]\.\*\* <@{world.alice.id}> · 1000 \(предварительный\) · "
                            rf"{RU_RECORD.format(1, 0, 0)} ← вы", line) for line in lines), lines
    assert lines[-1].startswith("Страница 1 из 1 · 2 игрока в рейтинге · рейтинг: осторожная оценка силы; "
                                "он устанавливается после 10 партий"), lines
    assert [b["label"] for b in ladder.message.buttons()] == ["◀ Назад", "Дальше ▶"]
    empty = await fake.slash(world.alice, world.channel, "leaderboard", options={"game": "generals"})
    assert empty.message is not None and "Рейтинговых партий пока нет." in empty.message.text()
    assert empty.message.text().startswith("Рейтинг: ") and "ladder" not in empty.message.text()


async def test_stats_are_private_unless_asked_to_post(world: World, bots: TabletopRunner) -> None:
    """Defect 14: /stats was posted to the channel, even empty. Now only the asker sees it, unless they ask to post
    it (`public`, localised like every option); asked to post nothing, they are told so privately."""
    await seed_ratings(bots.target, _two_players(world))
    await bots.start()
    fake = world.fake
    before = len(fake.channel_messages(world.channel))

    private = await fake.slash(world.alice, world.channel, "stats")
    assert private.ephemeral and private.message is not None and "Stats of alice" in private.message.text()
    empty = await fake.slash(world.carol, world.channel, "stats")
    assert empty.ephemeral and empty.message is not None
    assert empty.message.text().splitlines() == ["Stats of carol", "No rated games yet."]
    assert len(fake.channel_messages(world.channel)) == before  # nothing in the channel

    refused = await fake.slash(world.carol, world.channel, "stats", options={"public": True})
    assert refused.ephemeral and refused.message is not None
    assert "carol has no rated games yet, so there is nothing to show the channel." in refused.message.text()
    assert len(fake.channel_messages(world.channel)) == before

    posted = await fake.slash(world.alice, world.channel, "stats", options={"public": True, "user": world.bob})
    assert posted.message is not None and not posted.ephemeral, posted.errors
    assert posted.message in fake.channel_messages(world.channel) and "Stats of bob" in posted.message.text()

    option = next(o for c in fake.registered_commands() if c["name"] == "stats" for o in c["options"]
                  if o["name"] == "public")
    assert option["name_localizations"]["ru"] == "публично" and option["description_localizations"]["ru"]


async def test_leaderboard_in_dms_shows_the_global_ladder(world: World, bots: TabletopRunner) -> None:
    """Defect 16: in DMs /leaderboard refused ("There is no server ladder in DMs"); there is no server there, so
    the ladder of every server is the one to show, whatever the scope asked."""
    await seed_ratings(bots.target, _two_players(world))
    await bots.start()
    dm = world.fake.dm_channel(world.alice)
    for options in ({"game": "chopsticks"}, {"game": "chopsticks", "scope": "global"}):
        res = await world.fake.slash(world.alice, dm, "leaderboard", options=options)
        assert res.message is not None and not res.ephemeral, res.errors
        text = res.message.text()
        assert text.splitlines()[0] == "Chopsticks ladder (global)", text
        assert f"<@{world.alice.id}>" in text and f"<@{world.bob.id}>" in text and "2 rated players" in text
