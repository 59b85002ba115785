"""Where each player's private board lives: the DM message the bot edits after every move, or the fact that
the DM could not be delivered (the player then uses the ephemeral "My board"); and the player's latest ephemeral
board, kept current while Discord lets the bot edit it (`LiveBoard`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from storage.database import Store
from storage.leases import new_token
from storage.sql import READ_FIRST, Plan, Sql, select, statement

# The channel of a board whose DM is being sent (`PrivateBoardStore.claim`): no DM channel has this id.
SENDING = 0
CLAIM_LEASE = 10.0  # seconds a claim to send a DM holds (the database's clock); an older one's process stopped


@dataclass(frozen=True)
class PrivateBoard:
    game_id: int
    seat: int
    channel_id: int | None  # the DM channel; SENDING: its DM is being sent; a failed DM: its notice (below)
    message_id: int | None  # None: the DM failed (or is being sent)

    @property
    def delivered(self) -> bool:
        return self.message_id is not None

    @property
    def notice_id(self) -> int | None:
        """The message in the game's channel that told the player their DM failed, while it is still up (a failed DM
        has no DM channel: its row keeps the notice there, so that it is removed once the player has their board
        another way, after a restart or in another process too)."""
        if self.message_id is not None or self.channel_id == SENDING:
            return None
        return self.channel_id

    @property
    def sending(self) -> bool:
        """Its DM is claimed by a sender (maybe another process), not yet stored."""
        return self.message_id is None and self.channel_id == SENDING


@dataclass(frozen=True)
class LiveBoard:
    """An ephemeral board the bot can still edit: through `token` (the interaction that showed it, whose response
    it is) until `expires_at` (epoch seconds)."""

    game_id: int
    seat: int
    message_id: int
    token: str
    expires_at: float


class PrivateBoardStore(Store):
    async def get(self, game_id: int, seat: int) -> PrivateBoard | None:
        rows = await self._db.query(select(
            "SELECT channel_id, message_id FROM private_boards WHERE game_id = ? AND seat = ?", (game_id, seat)))
        return PrivateBoard(game_id, seat, rows[0][0], rows[0][1]) if rows else None

    async def of_game(self, game_id: int) -> tuple[dict[int, PrivateBoard], dict[int, LiveBoard]]:
        """Every seat's board row and latest ephemeral board of one game, by seat, in one read (a drawing of all of
        its private boards needs them all)."""
        rows = await self._db.query(select(
            "SELECT 0, seat, channel_id, message_id, NULL, NULL FROM private_boards WHERE game_id = ?"
            " UNION ALL SELECT 1, seat, message_id, NULL, token, expires_at FROM live_boards WHERE game_id = ?",
            (game_id, game_id)))
        boards = {int(r[1]): PrivateBoard(game_id, int(r[1]), r[2], r[3]) for r in rows if int(r[0]) == 0}
        live = {int(r[1]): LiveBoard(game_id, int(r[1]), r[2], r[4], r[5]) for r in rows if int(r[0]) == 1}
        return boards, live

    async def set(self, game_id: int, seat: int, channel_id: int | None, message_id: int | None, now: float) -> None:
        """Remember the DM message of a seat (message_id None: the DM failed)."""
        await self._db.run(statement(
            "INSERT INTO private_boards (game_id, seat, channel_id, message_id, updated_at)"
            " VALUES (?, ?, ?, ?, ?) ON CONFLICT (game_id, seat) DO UPDATE SET channel_id = excluded.channel_id,"
            " message_id = excluded.message_id, updated_at = excluded.updated_at",
            (game_id, seat, channel_id, message_id, now)))

    async def keep_notice(self, game_id: int, seat: int, notice_id: int) -> None:
        """Remember the notice of a seat's failed DM (see `PrivateBoard.notice_id`), unless a DM was sent or claimed
        since the failure was stored."""
        await self._db.run(statement(
            "UPDATE private_boards SET channel_id = ? WHERE game_id = ? AND seat = ? AND channel_id IS NULL"
            " AND message_id IS NULL", (notice_id, game_id, seat)))

    async def clear_notice(self, game_id: int, seat: int, notice_id: int) -> bool:
        """The failed DM's notice `notice_id` is gone (see `PrivateBoard.notice_id`): forget it, unless the row has
        changed since (a DM sent or claimed meanwhile). Whether this call was the one that forgot it."""
        done = await self._db.run(statement(
            "UPDATE private_boards SET channel_id = NULL WHERE game_id = ? AND seat = ? AND channel_id = ?"
            " AND message_id IS NULL", (game_id, seat, notice_id)))
        return done.rowcount > 0

    async def claim(self, game_id: int, seat: int, *, replacing: int | None = None,
                    lease: float = CLAIM_LEASE) -> int | None:
        """Claim the sending of a seat's DM board, before it is sent: a token for the one process that may send it, None
        for the others (two processes can deliver the same game's boards: one handles a click while another redraws
        or restarts).

        The claim is a row marked SENDING, made only if the seat has no row yet, or (`replacing`) while its row still
        names that DM message (the player deleted it), or over a claim older than `lease` seconds by the database's
        clock (its process stopped, or was paused, before storing the DM). Each claim gets a new token (as leases do,
        storage/leases.py): the claimer asks `still_sending` right before it sends, so a sender paused past its claim
        sends nothing once another took it over. Whoever claimed stores the DM, or its failure, with `set` once it is
        sent; others see the board as not delivered meanwhile and send nothing."""
        dialect = self._db.dialect

        def plan() -> Plan[int | None]:
            token, params = yield from new_token(dialect)
            if replacing is None:
                done = yield Sql(
                    "INSERT INTO private_boards (game_id, seat, channel_id, message_id, updated_at, token)"
                    f" VALUES (?, ?, ?, NULL, {dialect.clock}, {token})"
                    " ON CONFLICT (game_id, seat) DO UPDATE SET updated_at = excluded.updated_at,"
                    " token = excluded.token"
                    " WHERE private_boards.channel_id = ? AND private_boards.message_id IS NULL"
                    f" AND private_boards.updated_at < {dialect.clock} - ? RETURNING token",
                    (game_id, seat, SENDING, *params, SENDING, float(lease)))
            else:
                done = yield Sql(
                    f"UPDATE private_boards SET channel_id = ?, message_id = NULL, updated_at = {dialect.clock},"
                    f" token = {token} WHERE game_id = ? AND seat = ? AND message_id = ? RETURNING token",
                    (SENDING, *params, game_id, seat, replacing))
            return None if not done.rows else int(done.rows[0][0])

        return await self._db.run(plan())

    async def still_sending(self, game_id: int, seat: int, token: int, *, lease: float = CLAIM_LEASE) -> bool:
        """The fence of a DM claim: whether the claim with `token` is still the seat's and has not lapsed (no other
        process can have taken it over), asked right before the DM is sent."""
        rows = await self._db.query(select(
            "SELECT 1 FROM private_boards WHERE game_id = ? AND seat = ? AND channel_id = ? AND message_id IS NULL"
            f" AND token = ? AND updated_at >= {self._db.dialect.clock} - ?",
            (game_id, seat, SENDING, token, float(lease))))
        return bool(rows)

    async def forget(self, game_id: int, seat: int) -> None:
        """Forget a seat's board, so that the next drawing tries a DM again."""
        await self._db.run(statement("DELETE FROM private_boards WHERE game_id = ? AND seat = ?", (game_id, seat)))

    async def live(self, game_id: int, seat: int) -> LiveBoard | None:
        rows = await self._db.query(select(
            "SELECT message_id, token, expires_at FROM live_boards WHERE game_id = ? AND seat = ?", (game_id, seat)))
        return LiveBoard(game_id, seat, rows[0][0], rows[0][1], rows[0][2]) if rows else None

    async def set_live(self, board: LiveBoard) -> LiveBoard | None:
        """Remember `board` as the seat's ephemeral board; returns the one it replaces (another message), if any."""
        def replace() -> Plan[list[tuple[Any, ...]]]:
            yield READ_FIRST
            rows = yield from select(
                "SELECT message_id, token, expires_at FROM live_boards WHERE game_id = ? AND seat = ?",
                (board.game_id, board.seat))
            yield Sql("INSERT INTO live_boards (game_id, seat, message_id, token, expires_at) VALUES (?, ?, ?, ?, ?)"
                      " ON CONFLICT (game_id, seat) DO UPDATE SET message_id = excluded.message_id,"
                      " token = excluded.token, expires_at = excluded.expires_at",
                      (board.game_id, board.seat, board.message_id, board.token, board.expires_at))
            return rows

        rows = await self._db.run(replace())
        if not rows or rows[0][0] == board.message_id:
            return None
        return LiveBoard(board.game_id, board.seat, rows[0][0], rows[0][1], rows[0][2])

    async def forget_live(self, game_id: int, seat: int, message_id: int) -> None:
        """The board `message_id` can no longer be edited (expired, dismissed): stop trying."""
        await self._db.run(statement("DELETE FROM live_boards WHERE game_id = ? AND seat = ? AND message_id = ?",
                                     (game_id, seat, message_id)))
