"""A person's record of finishing games: the share of their games they finished rather than abandoned (no Discord
here). Open tables may require a share to join (`may_join`), and so may tournaments, through the same function.

What counts, the same for every game kind:
- **abandoned**: the person's seat was forfeited by its turn timer, they let the whole turn time pass without
  deciding (a `timeout` in the move log: in a two-player game that ends it; at a So Long Sucker or Chopsticks table
  the others play on without them; Game of the Generals' secret setup not finished in its time counts too). No game
  lets a person leave once it has begun other than that (the Leave of an open table is before its game exists).
- **finished**: every other way a game ended with the person in it: won, lost, drawn, resigned (a resignation is a
  decision, not an absence), knocked out, or still playing when it was stopped (no person left, move limit).
- **neither**: a game that never began for them: a challenge declined or expired, a table that never started, a
  Generals game called off because nobody finished the setup (nobody lost it).
Games against computer players count for the people in them. A game is counted when it ends, in the transaction that
writes its final move (like its ratings): once, or not at all if that write does not commit. Counted per server
(games in DMs only globally) and across every server.
"""

from __future__ import annotations

from collections.abc import Callable

from games.text import Plural, Text
from storage import GameRecord
from storage.finishing import FinishingRecord, count_ending
from storage.sql import Plan

# Fewer games than this and a person is not refused by a minimum share: a newcomer's one abandoned game would make
# them 0% or 50% for a long while, and one who never played has no share at all. Five games make one abandoned game
# 80%, so a table asking for 80% or less still accepts someone who abandoned one of their first five.
NEW_PLAYER_GAMES = 5


def finishing_writer(game: GameRecord) -> Callable[[], Plan[None]] | None:
    """The count of a game that ends now for its people, as statements that run inside the final move's write (after
    the move itself, so a timeout in that move counts). None for a game without a person (nothing to count)."""
    people = [(seat.seat, seat.user_id) for seat in game.seats if seat.user_id is not None]
    if not people:
        return None

    def write() -> Plan[None]:
        yield from count_ending(game.id, game.guild_id, people)

    return write


def may_join(record: FinishingRecord | None, minimum: int | None) -> Text | None:
    """Why a person whose record is `record` (None: no game counted yet) may not join what requires `minimum` percent
    of games finished, or None if they may. Said to them only: it gives their own share and the requirement."""
    if minimum is None or record is None or record.games < NEW_PLAYER_GAMES or record.percent >= minimum:
        return None
    return Text("This table is for players who finished at least {minimum}% of their games, and {share}: finish more "
                "of your games to the end, or join a table that asks less.", minimum=minimum, share=share(record))


def share(record: FinishingRecord) -> Text:
    """"you finished 47 of 50 games (94%)": a person's own share, as a refusal tells it them."""
    return Plural("you finished {finished} of {count} game ({percent}%)",
                  "you finished {finished} of {count} games ({percent}%)", record.games,
                  finished=record.finished, percent=record.percent)
