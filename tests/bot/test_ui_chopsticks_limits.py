"""Every board and every private move list fits Discord's limits, for all player and hand counts, in every
language."""

from __future__ import annotations

import random
from typing import Any

import discord
import pytest

from bot.games.chopsticks import board as ui
from bot.games.chopsticks import components
from bot.i18n import LANGUAGES, Say
from bot.service import Result
from bot.service.model import Game, present
from games.chopsticks import ChopsticksState, ChopsticksView, Rules
from storage import GameRecord, Seat
from tests.support.fakediscord.limits import check_message


def _result(state: ChopsticksState, *, hints: bool = True) -> Result[ChopsticksView, ChopsticksView]:
    seats = tuple(Seat(i, 10**17 + i) for i in range(state.num_players))
    record = GameRecord(
        id=123456, kind="chopsticks", guild_id=1, channel_id=2, message_id=3, status="active",
        options={"hints": hints}, initial_state={}, state=state.to_dict(), version=1, move_count=state.ply,
        draw_offer=None, turn_timeout=86400.0, deadline=2e9, remind_at=None, created_at=0.0, updated_at=0.0,
        finished_at=None, seats=seats,
    )
    return present(Game(record, state))


def _payload(result: Result[ChopsticksView, ChopsticksView], controls: discord.ui.View | None,
             say: Say) -> dict[str, Any]:
    names = [f"<@{s.user_id}>" for s in result.game.seats]
    return {
        "content": " vs ".join(names),
        "embeds": [ui.board_embed(result.game, result.public, names, say).to_dict()],
        "components": controls.to_components() if controls is not None else [],
    }


@pytest.mark.parametrize("players", range(2, 7))
@pytest.mark.parametrize("hands", range(1, 5))
def test_every_position_fits_discords_limits(players: int, hands: int) -> None:
    rng = random.Random(players * 10 + hands)
    most_moves = 0
    for _ in range(6):
        state = ChopsticksState.start(Rules(players=players, hands=hands, rollover=10), first_seat=0)
        for _ in range(40):
            if state.is_over:
                break
            result = _result(state)
            for language in LANGUAGES:
                say = Say(language)
                assert check_message(_payload(result, components.board_controls(result, say), say), creating=True) == []
            controls = components.board_controls(result, Say("en"))
            payload = _payload(result, controls, Say("en"))
            seat = state.current_player()
            assert seat is not None
            moves = list(state.legal_actions(seat))
            most_moves = max(most_moves, len(moves))
            offered = {str(c.get("custom_id", "")).rsplit(":", 1)[-1]
                       for row in payload["components"] for c in row["components"]}
            if len(moves) <= components.MAX_BUTTON_MOVES:
                assert {m.text() for m in moves} <= offered
            else:
                # Two steps: every legal move is in exactly one group, and each group's list fits a message.
                groups = components.move_groups(result.public.moves)
                assert sorted(m.text for g in groups.values() for m in g) == sorted(m.text() for m in moves)
                for group in groups.values():
                    for language in LANGUAGES:
                        private = components.group_controls(result, group, Say(language))
                        assert check_message({"content": "Choose your move:", "components": private.to_components()},
                                             creating=True) == []
            state = state.apply(seat, rng.choice(moves))
    assert most_moves >= 1
