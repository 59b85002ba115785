"""The crash run's tournaments (the run is tests/tools/crash.py): a Swiss of Chopsticks and a So Long Sucker tables
tournament, made and started through the service in the run's own process (no Discord command makes one yet), whose
rounds the bot processes then run by themselves across the kills. Their players are scripted users like the others:
each game of a round is played, from the moment Discord shows its board, by the users seated at it, with the same
clicks and promises as every other table (crash_load.py). What the rows must say at the end is checked by
crash_checks.tournament_problems.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from bot.service import GameService
from bot.service.model import TOURNAMENT
from games.tournaments.model import Format, Settings
from storage.connection import open_database
from tests.support.fakediscord import FakeChannel, FakeDiscord, FakeUser
from tests.tools.crash_load import Load, Stop, Table, game_id_of
from tests.tools.peek import Target, json_value, peek_at

ORGANISER = 1  # the organiser's user id (nobody plays as them)
# The head of a round's pairings message (bot/tournaments.py pairings_text): its tournament and round.
PAIRINGS_HEAD = re.compile(r"\*\*Tournament #(\d+): [^*]+\*\*: round (\d+) of \d+\.")
SUCKER_OPTIONS = {"chips": 3}  # short games, as at the run's other So Long Sucker tables


@dataclass(frozen=True)
class TournamentSizes:
    """How big the run's two tournaments are: a Swiss of Chopsticks and So Long Sucker tables (0 players: none)."""

    swiss_players: int = 6
    swiss_rounds: int = 3
    tables_players: int = 8
    tables_rounds: int = 2
    # The tables start by their start time, this many seconds after they were opened (while the kills go on): a bot
    # process starts them, once (0: started at once by the run, as the Swiss is).
    tables_start_in: float = 3.0


async def open_tournaments(fake: FakeDiscord, target: Target, sizes: TournamentSizes, swiss_channel: FakeChannel,
                           tables_channel: FakeChannel) -> list[int]:
    """Make both tournaments and enter fresh users; the Swiss is started at once (round 1's games are created then),
    the tables by their start time unless `sizes` says at once; their ids."""
    made = []
    db = await open_database(str(target))
    try:
        service = GameService(db)
        for kind, settings, players, channel, options in (
                ("chopsticks", Settings(Format.SWISS, rounds=sizes.swiss_rounds), sizes.swiss_players, swiss_channel,
                 {}),
                ("sucker", Settings(Format.TABLES, rounds=sizes.tables_rounds), sizes.tables_players, tables_channel,
                 SUCKER_OPTIONS)):
            if players == 0:
                continue
            by_time = kind == "sucker" and sizes.tables_start_in > 0
            update = await service.tournaments.create(
                kind, settings, guild_id=channel.guild_id, channel_id=channel.id, organiser_id=ORGANISER,
                options=dict(options), min_players=players, max_players=players,
                starts_at=time.time() + sizes.tables_start_in if by_time else None)
            tournament_id = update.tournament.id
            for n in range(players):
                await service.tournaments.join(tournament_id, fake.add_user(f"t{tournament_id}-{n}").id)
            if not by_time:
                await service.tournaments.start(tournament_id, ORGANISER)
            made.append(tournament_id)
        await service.told()
        await service.tournaments.told()
    finally:
        await db.close()
    return made


async def play_tournaments(load: Load, fake: FakeDiscord, target: Target) -> None:
    """Until the run stops: each tournament game, once Discord shows its board, played by the users seated at it
    (each game at its own table, all at once)."""
    playing: dict[int, asyncio.Task[None]] = {}
    try:
        while load.running:
            for game_id, kind, users in _tournament_games(target):
                if game_id in playing or any(u not in fake.users for u in users):
                    continue
                table = _shown_table(load, fake, game_id, kind, [fake.users[u] for u in users])
                if table is not None:
                    playing[game_id] = asyncio.create_task(_play(load, table), name=f"tournament-game-{game_id}")
            await asyncio.sleep(0.5)
    finally:
        await asyncio.gather(*playing.values())


def _tournament_games(target: Target) -> list[tuple[int, str, list[int]]]:
    """The active games of a tournament's pairings, with the people seated at each (in seat order)."""
    found: dict[int, tuple[str, list[int]]] = {}
    for game_id, kind, options, user in peek_at(target).rows(
            "SELECT g.id, g.kind, g.options, s.user_id FROM games g JOIN game_players s ON s.game_id = g.id"
            " WHERE g.status = 'active' AND s.user_id IS NOT NULL ORDER BY g.id, s.seat"):
        if json_value(options).get(TOURNAMENT) is not None:
            found.setdefault(int(game_id), (str(kind), []))[1].append(int(user))
    return [(gid, kind, users) for gid, (kind, users) in found.items()]


def _shown_table(load: Load, fake: FakeDiscord, game_id: int, kind: str, users: list[FakeUser]) -> Table | None:
    """A table for the game once a message in a server channel (or a thread of one) shows it."""
    shown = [m for m in fake.messages.values() if game_id_of(m) == game_id and not m.ephemeral and not m.deleted
             and fake.channels[m.channel_id].guild_id is not None]
    if not shown:
        return None
    board = max(shown, key=lambda m: m.id)
    channel = fake.channels[board.channel_id]
    if channel.parent_id is not None:  # a So Long Sucker table plays in a thread of the channel
        channel = fake.channels[channel.parent_id]
    table = Table(kind, users, channel, board=board, game_id=game_id, timed=channel.guild_id == load.timed_guild)
    load.tables.append(table)
    return table


async def _play(load: Load, table: Table) -> None:
    with contextlib.suppress(Stop):
        await load.play(table)


def pairings_posted_twice(fake: FakeDiscord) -> dict[int, list[str]]:
    """By tournament, each round whose pairings message is in its channel more than once: a process killed between
    posting it and storing it leaves it there, and the one that posts it again must get it back from Discord (its
    nonce) rather than post a second."""
    posted = Counter((int(m.group(1)), int(m.group(2))) for message in fake.messages.values()
                     if not message.deleted and (m := PAIRINGS_HEAD.match(message.content)))
    twice: dict[int, list[str]] = {}
    for (tournament, number), count in sorted(posted.items()):
        if count > 1:
            twice.setdefault(tournament, []).append(f"round {number}'s pairings message was posted {count} times")
    return twice


def tournament_of_games(target: Target) -> dict[int, int]:
    """Each tournament game's tournament: game id -> tournament id."""
    return {int(game): int(tournament) for tournament, game in peek_at(target).rows(
        "SELECT tournament_id, game_id FROM tournament_pairings WHERE game_id IS NOT NULL")}


def boards_posted_twice(fake: FakeDiscord, tournament_of: Mapping[int, int]) -> dict[int, list[str]]:
    """By tournament, each of its games (`tournament_of`: game -> tournament) shown by more than one board in the
    server (a round's board, a table's status message): a process killed between posting one and storing it leaves it
    there, and whoever posts the game again must get it back from Discord (its nonce), not post a second that nothing
    keeps up to date."""
    shown = Counter(game for message in fake.messages.values()
                    if not message.deleted and not message.ephemeral
                    and fake.channels[message.channel_id].guild_id is not None
                    and (game := game_id_of(message)) is not None and game in tournament_of)
    twice: dict[int, list[str]] = {}
    for game, count in sorted(shown.items()):
        if count > 1:
            twice.setdefault(tournament_of[game], []).append(f"game #{game} has {count} boards")
    return twice
