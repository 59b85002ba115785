"""SQLite storage: migrations, games and their move logs, small bot facts."""

from storage.db import LATEST_VERSION, Database, StorageError
from storage.games import GameStore, GameTransaction
from storage.records import GameNotFoundError, GameRecord, MoveRow, Seat, StaleVersionError
from storage.settings import BotStateStore

__all__ = [
    "LATEST_VERSION",
    "BotStateStore",
    "Database",
    "GameNotFoundError",
    "GameRecord",
    "GameStore",
    "GameTransaction",
    "MoveRow",
    "Seat",
    "StaleVersionError",
    "StorageError",
]
