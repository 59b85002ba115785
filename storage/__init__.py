"""Storage on SQLite or PostgreSQL behind one interface (`Database`): migrations, games and their move logs, small
bot facts."""

from storage.database import Database
from storage.db import LATEST_VERSION, StorageError
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
