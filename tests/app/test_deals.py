"""So Long Sucker's deals in the service, over real SQLite files: only players still in a game still being played
take part in them, and their numbers stay unique when two processes propose at the same moment."""

from __future__ import annotations

import asyncio

import pytest

from bot.service import GameService, Player, ServiceError
from bot.service.deals import DealService
from storage.database import Database
from storage.deals import DealStore

ALICE, BOB, CAROL, DAVE = 11, 22, 33, 44


def _deals(db: Database) -> DealService:
    return DealService(GameService(db), DealStore(db))


async def _table(deals: DealService) -> int:
    game = await deals.games.create("sucker", guild_id=1, channel_id=2,
                                    players=[Player(ALICE), Player(BOB), Player(CAROL)], options={"first": 0})
    return game.id


async def test_a_defeated_player_and_a_finished_game_take_no_part_in_deals(db: Database) -> None:
    deals = _deals(db)
    game_id = await _table(deals)
    deal = await deals.propose(game_id, ALICE, "Blue and I never capture each other.")
    assert (await deals.toggle(game_id, deal.number, BOB)).accepted_by == (BOB,)
    with pytest.raises(ServiceError, match="Only the players of this game"):
        await deals.toggle(game_id, deal.number, DAVE)

    await deals.games.resign(game_id, BOB)  # blue is defeated; red and green play on
    for attempt in (deals.toggle(game_id, deal.number, BOB), deals.propose(game_id, BOB, "Rescue me!")):
        with pytest.raises(ServiceError, match=r"out of this game \(defeated\)"):
            await attempt
    assert (await deals.toggle(game_id, deal.number, CAROL)).accepted_by == (BOB, CAROL), "the others still may"

    await deals.games.resign(game_id, CAROL)  # red is the last one in: the game is over
    for attempt in (deals.toggle(game_id, deal.number, ALICE), deals.toggle(game_id, deal.number, CAROL),
                    deals.propose(game_id, ALICE, "Again?")):
        with pytest.raises(ServiceError, match="This game is over: its deals can no longer"):
            await attempt
    kept = await deals.store.of_game(game_id)
    assert [(d.number, d.accepted_by) for d in kept] == [(1, (BOB, CAROL))], "nothing changed after the refusals"


async def test_deals_only_belong_to_so_long_sucker(db: Database) -> None:
    deals = _deals(db)
    game = await deals.games.create("chopsticks", guild_id=1, channel_id=2, players=[Player(ALICE), Player(BOB)])
    with pytest.raises(ServiceError, match="not a So Long Sucker game"):
        await deals.propose(game.id, ALICE, "hi")
    with pytest.raises(ServiceError, match="no game #999"):
        await deals.toggle(999, 1, ALICE)
    sucker = await _table(deals)
    with pytest.raises(ServiceError, match="no deal #7"):
        await deals.toggle(sucker, 7, ALICE)


async def test_two_processes_proposing_at_once_never_share_a_number(two: tuple[Database, Database]) -> None:
    # Two connections to one database, as two bot processes have: each proposal reads the game and the highest number
    # and writes the next one; all of them interleaved must still give 1..n, each once (PostgreSQL's read committed
    # would let two read the same highest number, but for the lock every such read takes).
    first, second = two
    here, there = _deals(first), _deals(second)
    game_id = await _table(here)
    made = await asyncio.gather(*(
        (here if i % 2 else there).propose(game_id, (ALICE, BOB, CAROL)[i % 3], f"deal {i}") for i in range(30)))
    assert sorted(d.number for d in made) == list(range(1, 31))
    stored = await here.store.of_game(game_id)
    assert [d.number for d in stored] == list(range(1, 31))
    # Acceptances from both at once: every one kept.
    await asyncio.gather(*((here if u % 2 else there).toggle(game_id, 1, u) for u in (ALICE, BOB, CAROL)))
    accepted = await there.store.get(game_id, 1)
    assert accepted is not None and sorted(accepted.accepted_by) == [ALICE, BOB, CAROL]
