"""The games being played, as this process last wrote or read them, keyed by id with their version.

A move then needs no read: the game in memory is the base of the next write, and that write is guarded by its
version like any other (`UPDATE ... WHERE version = ?`). If another process changed the game meanwhile the write
finds no row, the stale copy is dropped, and the player is asked to look again, as for any lost race; the next
use reads the game afresh. Only games still being played (or waiting for their challenge to be accepted) are kept:
a game that is over can still change under an archiving run, and nobody moves in it any more.
"""

from __future__ import annotations

from collections import OrderedDict

from storage.records import GameRecord

KEPT_STATUSES = ("pending", "active")

DEFAULT_LIMIT = 20_000  # active games kept at most (the least recently used go first); each is a few KiB


class RecordCache:
    def __init__(self, limit: int = DEFAULT_LIMIT) -> None:
        self._limit = limit
        self._records: OrderedDict[int, GameRecord] = OrderedDict()
        # Versions this process is committing right now (game -> version): known here a moment before the commit
        # resolves and `remember` runs, so that a drawing meanwhile does not take them for another process's.
        self._writing: dict[int, int] = {}
        # The last version of each game seen ending (no longer kept): a read that began before the game ended and
        # returns after must not bring the game back as still being played, or the next board drawn from memory
        # would show the position before its end.
        self._ended: OrderedDict[int, int] = OrderedDict()

    def get(self, game_id: int) -> GameRecord | None:
        record = self._records.get(game_id)
        if record is not None:
            self._records.move_to_end(game_id)
        return record

    def remember(self, record: GameRecord) -> None:
        """Keep `record` if it is the newest version seen (versions only grow: a read that started before this
        process's own later write must not put the older version back) and the game is still being played."""
        known = self._records.get(record.id)
        if known is not None and known.version > record.version:
            return
        if record.version <= self._ended.get(record.id, -1):
            return
        if record.status not in KEPT_STATUSES:
            self._records.pop(record.id, None)
            self._ended[record.id] = record.version
            self._ended.move_to_end(record.id)
            if len(self._ended) > self._limit:
                self._ended.popitem(last=False)
            return
        self._records[record.id] = record
        self._records.move_to_end(record.id)
        if len(self._records) > self._limit:
            self._records.popitem(last=False)

    def writing(self, game_id: int, version: int) -> None:
        """This process is committing `version` of the game (until `written`)."""
        self._writing[game_id] = max(version, self._writing.get(game_id, version))

    def written(self, game_id: int, version: int) -> None:
        if self._writing.get(game_id) == version:
            del self._writing[game_id]

    def newest(self, game_id: int) -> int | None:
        """The newest version of the game this process has or is committing (None: none in memory)."""
        record = self._records.get(game_id)
        versions = [v for v in (record.version if record else None, self._writing.get(game_id)) if v is not None]
        return max(versions) if versions else None

    def forget(self, game_id: int) -> None:
        self._records.pop(game_id, None)

    def __len__(self) -> int:
        return len(self._records)
