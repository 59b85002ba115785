"""The use-cases, with no Discord in sight: games, lobbies, timers, computer players' turns and ratings.

The Discord layer calls these and gets `Result`s (results.py): what each audience may see, never an engine
state. An import contract (pyproject.toml, `lint-imports`) keeps it that way.
"""

from bot.service.games import GameService
from bot.service.model import (
    REMATCH_OF,
    TABLE_OPTIONS,
    TOURNAMENT,
    TOURNAMENT_ROUND,
    Player,
    ServiceError,
    StaleStateError,
    TimerEvent,
)
from bot.service.results import (
    DecisionPassed,
    Event,
    GameEnded,
    GameInfo,
    GameStarted,
    OwnView,
    PastGame,
    PlayBegan,
    RatingChange,
    ReplayFrame,
    Result,
    SeatInfo,
)

__all__ = [
    "REMATCH_OF",
    "TABLE_OPTIONS",
    "TOURNAMENT",
    "TOURNAMENT_ROUND",
    "DecisionPassed",
    "Event",
    "GameEnded",
    "GameInfo",
    "GameService",
    "GameStarted",
    "OwnView",
    "PastGame",
    "PlayBegan",
    "Player",
    "RatingChange",
    "ReplayFrame",
    "Result",
    "SeatInfo",
    "ServiceError",
    "StaleStateError",
    "TimerEvent",
]
