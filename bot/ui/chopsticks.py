"""How a Chopsticks game looks in Discord: embeds and the buttons of the legal moves."""

from __future__ import annotations

from typing import Any, Protocol

import discord

from bot.service import Game
from games.chopsticks import ChopsticksState

COLOUR = discord.Colour.from_rgb(214, 158, 46)
MOVE_ROWS = 4  # the fifth row holds Resign and Draw
PER_ROW = 5

# custom ids: cs:<game>:<verb>[:<ply>:<move>]; they carry nothing secret (Chopsticks has no secrets).
CUSTOM_ID_TEMPLATE = (
    r"cs:(?P<game>[0-9]{1,19}):(?P<verb>mv|accept|decline|resign|resign-yes|draw)"
    r"(?::(?P<ply>[0-9]{1,7}):(?P<move>[A-Za-z0-9-]{1,40}))?"
)


class ButtonFactory(Protocol):
    """Makes one of the cog's persistent buttons (the cog owns the DynamicItem class)."""

    def __call__(
        self, custom_id: str, *, label: str, style: discord.ButtonStyle, row: int | None = None
    ) -> discord.ui.Item[Any]: ...


def custom_id(game_id: int, verb: str, ply: int | None = None, move: str | None = None) -> str:
    return f"cs:{game_id}:{verb}" + (f":{ply}:{move}" if move is not None else "")


def seat_name(game: Game, seat: int, bot_user_id: int | None) -> str:
    user = game.user_at(seat)
    if user is not None:
        return f"<@{user}>"
    return f"<@{bot_user_id}> (bot)" if bot_user_id else "the bot"


def _hands(hands: tuple[int, ...]) -> str:
    return " · ".join(str(v) for v in hands)


def result_line(game: Game, state: ChopsticksState, bot_user_id: int | None) -> str:
    outcome = state.outcome()
    assert outcome is not None
    names = [seat_name(game, s, bot_user_id) for s in range(state.num_players)]
    if outcome.is_draw:
        return {
            "agreement": "🤝 Drawn by agreement.",
            "repetition": "🔁 Drawn: the same position came up for the third time.",
        }.get(outcome.reason, "Drawn.")
    winners = ", ".join(names[s] for s in outcome.winners)
    last = state.last
    loser = names[last[0]] if last else "?"
    if outcome.reason == "resign":
        return f"🏳️ {loser} resigned. 🏆 {winners} wins."
    if outcome.reason == "timeout":
        return f"⏰ {loser} ran out of time. 🏆 {winners} wins."
    return f"🏆 {winners} wins: every opponent's hands are dead."


def board_embed(game: Game, bot_user_id: int | None) -> discord.Embed:
    state = game.state
    assert isinstance(state, ChopsticksState)
    view = state.public_view()
    p = view.rules.players
    lines = [f"Position `{view.code}`", ""]
    for seat in range(p):
        marker = "▶" if seat == view.to_move else ("✖" if seat in view.out else "  ")
        lines.append(f"{marker} {seat_name(game, seat, bot_user_id)}: **{_hands(view.hands[seat])}**")
    lines.append("")
    if view.last is not None and view.last[1] not in ("resign", "timeout"):
        lines.append(f"Last move: {seat_name(game, view.last[0], bot_user_id)} played `{view.last[1]}`")
    if view.outcome is not None:
        lines.append(result_line(game, state, bot_user_id))
    else:
        assert view.to_move is not None
        turn = f"{seat_name(game, view.to_move, bot_user_id)} to move"
        if game.record.deadline is not None:
            turn += f" (time runs out <t:{int(game.record.deadline)}:R>)"
        lines.append(turn)
        if game.record.draw_offer is not None:
            lines.append(f"🤝 {seat_name(game, game.record.draw_offer, bot_user_id)} offers a draw: "
                         "the other player can accept with **Accept draw** or just play on.")
    embed = discord.Embed(title=f"Chopsticks #{game.id}", description="\n".join(lines), colour=COLOUR)
    embed.set_footer(text=f"Move {view.ply} · codes list the player to move first · 5 fingers kill a hand")
    return embed


def board_view(game: Game, button: ButtonFactory) -> discord.ui.View | None:
    """Buttons for exactly the legal moves of the player to move, plus Resign and Draw; None when over."""
    state = game.state
    assert isinstance(state, ChopsticksState)
    seat = state.current_player()
    if seat is None or game.record.status != "active":
        return None
    moves = list(state.legal_actions(seat))
    if len(moves) > MOVE_ROWS * PER_ROW:
        raise ValueError(f"{len(moves)} moves do not fit in one message")  # larger games: a later issue
    view = discord.ui.View(timeout=None)
    ply = game.record.move_count
    for i, move in enumerate(moves):
        label = f"{move.text()} · {state.describe(move, mover_view=True)}"
        view.add_item(button(custom_id(game.id, "mv", ply, move.text()), label=label,
                             style=discord.ButtonStyle.primary, row=i // PER_ROW))
    if not any(s.bot for s in game.record.seats):  # a bot never agrees to a draw, so do not offer one
        draw_label = "Accept draw" if game.record.draw_offer is not None else "Offer draw"
        view.add_item(button(custom_id(game.id, "draw"), label=draw_label, style=discord.ButtonStyle.secondary,
                             row=MOVE_ROWS))
    view.add_item(button(custom_id(game.id, "resign"), label="Resign", style=discord.ButtonStyle.danger,
                         row=MOVE_ROWS))
    return view


def challenge_embed(game: Game, bot_user_id: int | None) -> discord.Embed:
    challenger, opponent = seat_name(game, 0, bot_user_id), seat_name(game, 1, bot_user_id)
    status = game.record.status
    hours = game.record.turn_timeout / 3600
    turn_time = f"{hours:g} h" if hours >= 1 else f"{game.record.turn_timeout / 60:g} min"
    if status == "pending":
        assert game.record.deadline is not None
        text = (f"{challenger} challenges {opponent} to Chopsticks (standard rules, {turn_time} per move).\n"
                f"The challenge expires <t:{int(game.record.deadline)}:R>.")
    elif status == "declined":
        text = f"The challenge from {challenger} to {opponent} was called off."
    else:
        text = f"{opponent} did not answer {challenger}'s challenge in time."
    return discord.Embed(title=f"Chopsticks #{game.id}: a challenge", description=text, colour=COLOUR)


def challenge_view(game: Game, button: ButtonFactory) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(button(custom_id(game.id, "accept"), label="Accept", style=discord.ButtonStyle.success))
    view.add_item(button(custom_id(game.id, "decline"), label="Decline", style=discord.ButtonStyle.secondary))
    return view


def jump_url(game: Game) -> str:
    guild = game.record.guild_id or "@me"
    return f"https://discord.com/channels/{guild}/{game.record.channel_id}/{game.record.message_id}"
