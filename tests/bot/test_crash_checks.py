"""The crash test's checks catch what they claim to (tests/tools/crash_checks.py, crash_timers.py): each is run on a
real game or database that is right, then on one broken the way the check is about."""

from __future__ import annotations

import random
import time
from typing import Any

from bot.service import GameService, Player
from bot.service.tournaments import TournamentInfo
from games.engines import game_class
from games.tournaments.model import Format, Settings
from storage.connection import open_database
from tests.support.fakediscord import FakeChannel, FakeDiscord, FakeMessage
from tests.support.world import change_stored
from tests.tools.crash_checks import (
    GameCheck,
    finishing_problems,
    invariant_problems,
    rating_problems,
    read_games,
    read_results,
    tournament_problems,
)
from tests.tools.crash_promises import Facts, Promise, lost_promises
from tests.tools.crash_timers import TimerWatch, overdue_timers, timer_checks
from tests.tools.crash_tournaments import boards_posted_twice, pairings_posted_twice

ALICE, BOB, CAROL, DAVE = 11, 22, 33, 44
GUILD = 5


def _played(kind: str, players: int, options: dict[str, Any], plies: int, seed: int = 1) -> dict[str, Any]:
    """The snapshot after `plies` random legal actions from the start."""
    rng = random.Random(seed)
    state = game_class(kind).new(players, options, rng)
    for _ in range(plies):
        seat = state.current_player()
        if seat is None:
            break
        state = state.apply(seat, rng.choice(state.legal_actions(seat)))
    return state.to_dict()


def test_sucker_chips_are_counted_in_hands_piles_and_dead() -> None:
    snapshot = _played("sucker", 3, {"chips": 3}, 6)
    assert invariant_problems("sucker", snapshot, [0, 0]) == []
    holdings = [list(row) for row in snapshot["holdings"]]
    holdings[0][1] += 1  # a blue chip appears from nowhere in red's hand
    broken = {**snapshot, "holdings": holdings}
    problems = invariant_problems("sucker", broken, [0, 0])
    assert len(problems) == 1 and problems[0].startswith("colour 1:") and problems[0].endswith("!= 3 dealt")


def test_generals_armies_match_their_formation_and_the_challenges_of_the_log() -> None:
    rng = random.Random(3)
    state = game_class("generals").new(2, {"variants": ["small-army"], "first": 0}, rng)
    eliminated = [0, 0]
    for _ in range(200):  # setups, then moves until some challenge eliminated pieces
        seat = state.current_player()
        assert seat is not None
        state = state.apply(seat, rng.choice(state.legal_actions(seat)))
        assert invariant_problems("generals", state.to_dict(), eliminated) == []
        if sum(eliminated) >= 2 or state.outcome() is not None:
            break
    assert sum(eliminated) >= 1
    snapshot = state.to_dict()
    armies = [[list(p) for p in army] for army in snapshot["armies"]]
    # A piece taken off the board that no challenge eliminated, and an extra General on the other side.
    on_board = next(p for p in armies[0] if p[1] is not None and p[0] != "FLG")
    on_board[1] = None
    armies[1].append(["5G", "a4", 0, []])
    problems = invariant_problems("generals", {**snapshot, "armies": armies, "last": None}, list(eliminated))
    assert any("side 0" in p and "eliminated in challenges" in p for p in problems), problems
    assert any("side 1" in p and "too many" in p for p in problems), problems


def test_chopsticks_hands_stay_below_the_rollover() -> None:
    snapshot = _played("chopsticks", 2, {}, 3)
    assert invariant_problems("chopsticks", snapshot, [0, 0]) == []
    broken = {**snapshot, "hands": [[5, 1], list(snapshot["hands"][1])]}
    assert invariant_problems("chopsticks", broken, [0, 0]) != []


async def test_ratings_equal_openskill_over_the_finished_games_and_count_each_once(database_target: str) -> None:
    path = database_target
    db = await open_database(path)
    try:
        service = GameService(db)
        for players in ([ALICE, BOB], [BOB, CAROL], [CAROL, ALICE]):
            game = await service.create("chopsticks", guild_id=GUILD, channel_id=1,
                                        players=[Player(u) for u in players], options={"first": 0})
            await service.act(game.id, players[0], "AC")
            await service.resign(game.id, players[1])
        unrated = await service.create("chopsticks", guild_id=GUILD, channel_id=1, players=[Player(ALICE), Player(BOB)])
        await service.resign(unrated.id, ALICE)  # ended before its first move: not rated
    finally:
        await db.close()
    assert rating_problems(read_results(path)) == ([], 3)

    # One game counted twice on the server's ladder, and a global rating off:
    await change_stored(path, "UPDATE ratings SET games = games + 1, wins = wins + 1 "
                              "WHERE user_id = ? AND guild_id = ?", (ALICE, GUILD))
    await change_stored(path, "UPDATE ratings SET mu = mu + 0.5 WHERE user_id = ? AND guild_id = 0", (CAROL,))
    problems, _rated = rating_problems(read_results(path))
    assert len(problems) == 2, problems
    assert any(f"ladder {GUILD}, user {ALICE}: games/wins/draws/losses" in p for p in problems), problems
    assert any(f"ladder global, user {CAROL}: mu/sigma" in p for p in problems), problems


async def test_the_record_of_finishing_games_equals_a_count_over_the_finished_games(database_target: str) -> None:
    path = database_target
    now = [1000.0]
    db = await open_database(path)
    try:
        service = GameService(db, clock=lambda: now[0])
        for players in ([ALICE, BOB], [BOB, CAROL]):
            game = await service.create("chopsticks", guild_id=GUILD, channel_id=1,
                                        players=[Player(u) for u in players], options={"first": 0}, turn_timeout=4)
            await service.act(game.id, players[0], "AC")
        now[0] += 5
        await service.fire_timer(game.id)  # carol's time runs out: abandoned
        await service.resign(game.id - 1, BOB)
    finally:
        await db.close()
    assert finishing_problems(read_results(path)) == []
    await change_stored(path, "UPDATE finishing SET finished = finished + 1 WHERE user_id = ? AND guild_id = 0",
                        (ALICE,))
    await change_stored(path, "DELETE FROM finishing WHERE user_id = ? AND guild_id = ?", (CAROL, GUILD))
    problems = finishing_problems(read_results(path))
    assert problems == [f"finishing global, user {ALICE}: finished/abandoned (2, 0) but the finished games give"
                        " (1, 0)",
                        f"finishing server {GUILD}, user {CAROL}: finished/abandoned (0, 0) but the finished games"
                        " give (0, 1)"], problems


async def test_each_fired_timer_must_be_announced(database_target: str) -> None:
    path = database_target
    now = [1000.0]
    db = await open_database(path)
    try:
        service = GameService(db, clock=lambda: now[0])
        game = await service.create("chopsticks", guild_id=GUILD, channel_id=1,
                                    players=[Player(ALICE), Player(BOB)], options={"first": 0}, turn_timeout=4)
        watch = TimerWatch(path)
        now[0] += 3.5
        assert (await service.fire_timer(game.id) or (None,))[0] is not None  # the reminder
        watch.look()
        now[0] += 1.0
        await service.fire_timer(game.id)  # the forfeit
        watch.look()
    finally:
        await db.close()
    games = read_games(path)[0]
    unannounced = timer_checks(games, [], watch)
    assert (unannounced.forfeits, unannounced.reminders) == (1, 1)
    assert len(unannounced.problems) == 2, unannounced.problems
    deadline = int(1000.0 + 4)
    told = [FakeMessage(1, 1, 1, content=f"<@{ALICE}>, it is your move in Chopsticks #{game.id}. You forfeit "
                                         f"<t:{deadline}:R> if you do not move."),
            FakeMessage(2, 1, 1, embeds=[{"title": f"Chopsticks #{game.id} is over"}])]
    assert timer_checks(games, told, watch).problems == []
    assert overdue_timers(path, grace=1.0) == []


async def test_tournament_rounds_pairings_and_standings_are_checked_against_the_games(database_target: str) -> None:
    path = database_target
    db = await open_database(path)
    try:
        service = GameService(db)
        made = await service.tournaments.create("chopsticks", Settings(Format.SWISS, rounds=2), guild_id=GUILD,
                                                channel_id=1, organiser_id=ALICE, min_players=4)
        tournament = made.tournament.id
        for player in (ALICE, BOB, CAROL, DAVE):
            await service.tournaments.join(tournament, player)
        await service.tournaments.start(tournament, ALICE)
        for round_number in (1, 2):
            pairings = (await service.tournaments.view(tournament)).rounds[round_number - 1]
            for pairing in pairings[:1] if round_number == 2 else pairings:  # round 2: one game still played
                first, second = pairing.players
                assert pairing.game_id is not None and first is not None and second is not None
                await service.act(pairing.game_id, first, "AC")
                await service.resign(pairing.game_id, second)
                await service.told()
                await service.tournaments.told()
    finally:
        await db.close()
    round_two = [p.game_id for p in (await _view(path, tournament)).rounds[1]]
    # No Discord part posted the rounds here: each round without its pairings message is a problem until it is.
    [check] = tournament_problems(path)
    assert check.problems == ["round 1's pairings message was never posted",
                              "round 2's pairings message was never posted"], check.problems
    await change_stored(path, "UPDATE tournament_rounds SET message_id = 7 WHERE tournament_id = ? AND number = 1",
                        (tournament,))
    [check] = tournament_problems(path)
    assert check.problems == ["round 2's pairings message was never posted"], check.problems
    await change_stored(path, "UPDATE tournament_rounds SET message_id = 8 WHERE tournament_id = ?", (tournament,))
    [check] = tournament_problems(path)
    assert check.problems == [], check.problems
    assert (check.rounds, check.total, check.games, check.finished_games) == (2, 2, 4, 3)
    assert check.summary() == f"chopsticks Swiss #{tournament}: running, round 2 of 2, 3/4 games over"

    # A round made again under another number, and a result that is not what its game says:
    await change_stored(path, "INSERT INTO tournament_rounds (tournament_id, number, created_at, message_id)"
                              " VALUES (?, 4, 0, 9)", (tournament,))
    await change_stored(path, "UPDATE tournament_pairings SET result = '0-1' WHERE tournament_id = ? AND round = 1"
                              " AND position = 0", (tournament,))
    [check] = tournament_problems(path)
    assert len(check.problems) == 5, check.problems
    assert check.problems[0] == "round numbers [1, 2, 4], not 1..3 each once"
    assert check.problems[1].startswith("round 1 pairing 0: game #") and check.problems[1].endswith(
        "(finished) gives ('1-0', None), the pairing has ('0-1', None)")
    assert check.problems[2] == "round 4 has no pairings"
    assert check.problems[3].startswith("standings ") and " but the games give " in check.problems[3]
    assert check.problems[4] == "round 4 is over but neither a next round nor the end followed"

    # The game still being played taken out of its pairing (a game outside the tournament's pairings), its result
    # set by hand: the last round is over, but the tournament is not finished.
    await change_stored(path, "DELETE FROM tournament_rounds WHERE tournament_id = ? AND number = 4", (tournament,))
    await change_stored(path, "UPDATE tournament_pairings SET result = '1-0' WHERE tournament_id = ? AND round = 1"
                              " AND position = 0", (tournament,))
    await change_stored(path, "UPDATE tournament_pairings SET game_id = NULL, result = '1-0' WHERE tournament_id = ?"
                              " AND round = 2 AND position = 1", (tournament,))
    [check] = tournament_problems(path)
    assert check.problems == [f"games [{round_two[1]}] are the tournament's but in no pairing",
                              "round 2 is over but neither a next round nor the end followed"], check.problems


async def _view(path: str, tournament: int) -> TournamentInfo:
    db = await open_database(path)
    try:
        return await GameService(db).tournaments.view(tournament)
    finally:
        await db.close()


async def test_a_tournament_still_open_well_after_its_start_time_is_a_problem(database_target: str) -> None:
    path = database_target
    db = await open_database(path)
    try:
        service = GameService(db)
        made = await service.tournaments.create("chopsticks", Settings(Format.SWISS, rounds=2), guild_id=GUILD,
                                                channel_id=1, organiser_id=ALICE, starts_at=time.time() + 3600)
    finally:
        await db.close()
    [check] = tournament_problems(path)
    assert check.problems == []  # its start time is still to come
    await change_stored(path, "UPDATE tournaments SET starts_at = ?", (time.time() - 30,))
    [check] = tournament_problems(path)
    assert len(check.problems) == 1 and "has not started" in check.problems[0], check.problems
    await change_stored(path, "UPDATE tournaments SET start_missed = ?", (time.time() - 29,))
    [check] = tournament_problems(path)
    assert check.problems == [] and check.id == made.tournament.id  # too few players came: it rightly stays open


async def test_a_round_s_pairings_message_in_its_channel_twice_is_a_problem() -> None:
    fake = FakeDiscord()  # its messages only: not started, nothing sent to it
    channel = fake.add_channel(fake.add_guild("Game Night"), "games")
    head = "**Tournament #{}: Chopsticks**: round {} of 3. Your games:\n1. <@1> vs <@2>: Chopsticks #4"
    for tournament, number in ((1, 1), (1, 2), (2, 1), (1, 2)):
        fake.create_message(channel, {"content": head.format(tournament, number)})
    fake.create_message(channel, {"content": "**Tournament #2: Chopsticks**: replays of round 1 (drawn games)"})
    assert pairings_posted_twice(fake) == {1: ["round 2's pairings message was posted 2 times"]}
    twice = fake.create_message(channel, {"content": head.format(2, 1)})
    twice.deleted = True  # a message deleted since is not in the channel
    assert pairings_posted_twice(fake) == {1: ["round 2's pairings message was posted 2 times"]}


async def test_a_tournament_game_with_two_boards_in_the_server_is_a_problem() -> None:
    fake = FakeDiscord()  # its messages only: not started, nothing sent to it
    guild = fake.add_guild("Game Night")
    channel, thread = fake.add_channel(guild, "games"), fake.add_channel(guild, "So Long Sucker #5")

    def board(where: FakeChannel, title: str) -> FakeMessage:
        return fake.create_message(where, {"embeds": [{"title": title}]})

    board(channel, "Chopsticks #4")
    board(thread, "So Long Sucker #5")
    board(channel, "Chopsticks #4 is over")  # its ending, not a board
    board(channel, "Chopsticks #9")  # not a tournament's game (an "its board again" copy may stay)
    board(channel, "Chopsticks #9")
    tournament_of = {4: 1, 5: 2}
    assert boards_posted_twice(fake, tournament_of) == {}
    copy = board(thread, "So Long Sucker #5")
    assert boards_posted_twice(fake, tournament_of) == {2: ["game #5 has 2 boards"]}
    copy.deleted = True
    assert boards_posted_twice(fake, tournament_of) == {}


def test_a_reminder_killed_as_it_fired_is_moot_once_its_timer_calls_off_the_setup() -> None:
    """Found by the crash run: a Generals setup's reminder fired and the bot was killed 0.05 s after, before sending it;
    the restarted process's timer called the setup off (no move is logged for it), which replaced the owed reminder.
    That reminder no longer applies: not a problem. Called off only after the takeover, it was lost: a problem."""
    fired = 1000.0
    watch = TimerWatch("never-read.sqlite3")
    watch.reminders[(7, fired + 1.0)] = fired + watch.interval  # first seen fired one look later
    game = GameCheck("generals", "expired", None, {}, [], [], id=7, updated_at=fired + 1.5)
    figures = timer_checks({7: game}, [], watch, kills=[fired + 0.05])
    assert (figures.reminders, figures.reminders_moot, figures.problems) == (1, 1, [])
    game.updated_at = fired + 60.0
    late = timer_checks({7: game}, [], watch, kills=[fired + 0.05])
    assert late.reminders_moot == 0 and len(late.problems) == 1 and "fired but was not sent" in late.problems[0]


async def test_a_board_answered_as_drawn_promises_a_game_ended_by_agreement_whoever_accepted(
        database_target: str) -> None:
    path = database_target
    db = await open_database(path)
    try:
        service = GameService(db)
        drawn, resigned = [await service.create("chopsticks", guild_id=GUILD, channel_id=1,
                                                players=[Player(ALICE), Player(BOB)]) for _ in range(2)]
        await service.offer_draw(drawn.id, ALICE)
        await service.offer_draw(drawn.id, BOB)  # Bob accepts: the row is his
        await service.resign(resigned.id, ALICE)
    finally:
        await db.close()
    games, lobbies, _ = read_games(path)

    def shown_drawn(user: int, game_id: int) -> Promise:
        return Promise("game", user, game_id=game_id, expect=(("ending", "draw-agreed"),))

    # Alice's offer answered with the board Bob's acceptance had just drawn: kept, though the row is Bob's.
    kept = [shown_drawn(ALICE, drawn.id), shown_drawn(BOB, drawn.id)]
    assert lost_promises(kept, games, lobbies, Facts()) == []
    assert lost_promises([shown_drawn(ALICE, resigned.id)], games, lobbies, Facts()) == [
        str(shown_drawn(ALICE, resigned.id))]
