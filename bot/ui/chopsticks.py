"""How a Chopsticks game looks in Discord: embeds, and components for exactly the legal moves.

Discord allows 5 rows of 5 buttons. Up to 20 legal moves get a button each (the fifth row holds Hint /
Draw / Resign); beyond that the board shows one select of move groups (each tapping hand, splits, other
moves) and the chosen group's moves are offered privately to the player, as buttons or in selects of at
most 25 options each.
"""

from __future__ import annotations

from collections.abc import Sequence
from string import ascii_uppercase

import discord

from bot.service import Game
from bot.ui.components import ButtonFactory, SelectFactory
from bot.ui.lobby import format_duration
from games import Action
from games.chopsticks import Attack, ChopsticksState

COLOUR = discord.Colour.from_rgb(214, 158, 46)
PER_ROW = 5
MOVE_ROWS = 4  # the fifth row holds Hint, Draw and Resign
MAX_BUTTON_MOVES = MOVE_ROWS * PER_ROW
SELECT_OPTIONS = 25
SPLIT_GROUP = "split"

# custom ids: cs:<game>:<verb>[:<ply>[:<move>]]. They carry nothing secret (Chopsticks has no secrets).
# Each DynamicItem class needs its own pattern (discord.py keys them by pattern), hence one for buttons and
# one for selects.
CUSTOM_ID_TEMPLATE = (
    r"cs:(?P<game>[0-9]{1,19}):(?P<verb>mv|accept|decline|resign|resign-yes|draw|hint)"
    r"(?::(?P<ply>[0-9]{1,7})(?::(?P<move>[A-Za-z0-9-]{1,40}))?)?"
)
SELECT_ID_TEMPLATE = r"cs:(?P<game>[0-9]{1,19}):(?P<verb>group|pick):(?P<ply>[0-9]{1,7})(?::(?P<index>[0-4]))?"


def custom_id(game_id: int, verb: str, ply: int | None = None, move: str | None = None) -> str:
    out = f"cs:{game_id}:{verb}"
    if ply is not None:
        out += f":{ply}"
        if move is not None:
            out += f":{move}"
    return out


def seat_name(game: Game, seat: int, bot_user_id: int | None) -> str:
    user = game.user_at(seat)
    if user is not None:
        return f"<@{user}>"
    return f"<@{bot_user_id}> (bot)" if bot_user_id else "the bot"


def _state(game: Game) -> ChopsticksState:
    assert isinstance(game.state, ChopsticksState)
    return game.state


# ----- the board ----------------------------------------------------------------------------------------------
def result_line(game: Game, bot_user_id: int | None) -> str:
    state = _state(game)
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
    if outcome.reason == "misere":
        return f"🏆 {winners} wins: the first to lose every hand wins this game (misère)."
    return f"🏆 {winners} wins: every opponent is out."


def board_embed(game: Game, bot_user_id: int | None) -> discord.Embed:
    state = _state(game)
    view = state.public_view()
    p, h = view.rules.players, view.rules.hands
    lines = [f"Position `{view.code}`", ""]
    # Players in code order (the one to move first), so that hand letters run A, B, C, ... down the list.
    for rel in range(p):
        seat = (state.to_move + rel) % p
        letters = ascii_uppercase[rel * h:(rel + 1) * h]
        # Labels write half fingers as people read them ("1½"); plain values otherwise.
        values = view.labels[seat] if view.labels else tuple(str(v) for v in view.hands[seat])
        hands = "  ".join(f"{letter} **{value}**" for letter, value in zip(letters, values, strict=True))
        lives = f"  ({view.lives[seat]} ❤)" if view.rules.max_lives > 1 and seat not in view.out else ""
        if seat in view.zombies:
            marker = "▶" if seat == view.to_move else "🧟"
            lines.append(f"{marker} {seat_name(game, seat, bot_user_id)}: zombie, taps with 1 finger")
        elif seat in view.out:
            lines.append(f"✖ {seat_name(game, seat, bot_user_id)}: out")
        else:
            marker = "▶" if seat == view.to_move else "•"
            lines.append(f"{marker} {seat_name(game, seat, bot_user_id)}: {hands}{lives}")
    lines.append("")
    if view.last is not None and view.last[1] not in ("resign", "timeout"):
        lines.append(f"Last move: {seat_name(game, view.last[0], bot_user_id)} played `{view.last[1]}`")
    if view.outcome is not None:
        lines.append(result_line(game, bot_user_id))
    else:
        assert view.to_move is not None
        turn = f"{seat_name(game, view.to_move, bot_user_id)} to move"
        if game.is_bot(view.to_move):
            turn += " (thinking…)"
        if game.record.deadline is not None:
            turn += f" (time runs out <t:{int(game.record.deadline)}:R>)"
        lines.append(turn)
        if game.record.draw_offer is not None:
            lines.append(f"🤝 {seat_name(game, game.record.draw_offer, bot_user_id)} offers a draw: "
                         "the other player can accept with **Accept draw** or just play on.")
    embed = discord.Embed(title=f"Chopsticks #{game.id}", description="\n".join(lines), colour=COLOUR)
    rules = "standard rules" if view.rules.is_standard else _rules_summary(state)
    embed.set_footer(text=f"Move {view.ply} · {rules} · AC = your hand A taps hand C · 13-22 = split")
    return embed


def _rules_summary(state: ChopsticksState) -> str:
    r = state.rules
    parts = [f"{r.players} players", f"{r.hands} hands", f"rollover {r.rollover}", *sorted(r.variants)]
    return ", ".join(parts)


def move_groups(state: ChopsticksState, moves: Sequence[Action]) -> dict[str, list[Action]]:
    """Moves by the hand that taps ("A", "B", ...) and everything else under "split"."""
    groups: dict[str, list[Action]] = {}
    for move in moves:
        key = ascii_uppercase[move.hand] if isinstance(move, Attack) else SPLIT_GROUP
        groups.setdefault(key, []).append(move)
    return groups


def board_view(game: Game, button: ButtonFactory, select: SelectFactory) -> discord.ui.View | None:
    """Components for the player to move, plus Hint / Draw / Resign; None when the game is over."""
    state = _state(game)
    seat = state.current_player()
    if seat is None or game.record.status != "active":
        return None
    # While a bot thinks nobody has a move to click, but Resign stays (it works at any time).
    moves = [] if game.is_bot(seat) else list(state.legal_actions(seat))
    ply = game.record.move_count
    view = discord.ui.View(timeout=None)
    if not moves:
        pass
    elif len(moves) <= MAX_BUTTON_MOVES:
        for i, move in enumerate(moves):
            view.add_item(button(custom_id(game.id, "mv", ply, move.text()), label=move_label(state, move),
                                 style=discord.ButtonStyle.primary, row=i // PER_ROW))
    else:
        groups = move_groups(state, moves)
        options = [discord.SelectOption(label=_group_label(state, key, len(group)), value=key)
                   for key, group in groups.items()]
        view.add_item(select(custom_id(game.id, "group", ply), options=options,
                             placeholder=f"{len(moves)} moves: choose a hand or split", row=0))
    if moves and game.record.options.get("hints"):
        view.add_item(button(custom_id(game.id, "hint", ply), label="Hint", style=discord.ButtonStyle.secondary,
                             row=MOVE_ROWS))
    if not any(s.bot for s in game.record.seats) and state.num_players == 2:  # bots never agree to draws
        draw_label = "Accept draw" if game.record.draw_offer is not None else "Offer draw"
        view.add_item(button(custom_id(game.id, "draw"), label=draw_label, style=discord.ButtonStyle.secondary,
                             row=MOVE_ROWS))
    view.add_item(button(custom_id(game.id, "resign"), label="Resign", style=discord.ButtonStyle.danger,
                         row=MOVE_ROWS))
    return view


def group_view(game: Game, group: list[Action], button: ButtonFactory, select: SelectFactory) -> discord.ui.View:
    """The moves of one group, for the player's private second step."""
    state = _state(game)
    ply = game.record.move_count
    view = discord.ui.View(timeout=None)
    if len(group) <= PER_ROW * 5:
        for i, move in enumerate(group):
            view.add_item(button(custom_id(game.id, "mv", ply, move.text()), label=move_label(state, move),
                                 style=discord.ButtonStyle.primary, row=i // PER_ROW))
        return view
    chunks = [group[i:i + SELECT_OPTIONS] for i in range(0, len(group), SELECT_OPTIONS)]
    if len(chunks) > 5:
        raise ValueError(f"{len(group)} moves in one group do not fit in a message")
    for row, chunk in enumerate(chunks):
        options = [discord.SelectOption(label=move_label(state, m), value=m.text()) for m in chunk]
        # Custom ids in one message must differ, so each select carries its index where moves go.
        view.add_item(select(custom_id(game.id, "pick", ply, str(row)), options=options,
                             placeholder=f"Moves {row * SELECT_OPTIONS + 1} to {row * SELECT_OPTIONS + len(chunk)}",
                             row=row))
    return view


def move_label(state: ChopsticksState, move: Action) -> str:
    return f"{move.text()} · {state.describe(move, mover_view=True)}"[:80]


def _group_label(state: ChopsticksState, key: str, count: int) -> str:
    if key == SPLIT_GROUP:
        return f"Split or other move ({count})"
    value = state.hands[state.to_move][ascii_uppercase.index(key)]
    return f"Tap with hand {key} ({value}) — {count} targets"


# ----- challenges and lobbies ---------------------------------------------------------------------------------
def challenge_embed(game: Game, bot_user_id: int | None) -> discord.Embed:
    challenger, opponent = seat_name(game, 0, bot_user_id), seat_name(game, 1, bot_user_id)
    status = game.record.status
    rules = "standard rules" if _state(game).rules.is_standard else _rules_summary(_state(game))
    if status == "pending":
        assert game.record.deadline is not None
        text = (f"{challenger} challenges {opponent} to Chopsticks ({rules}, "
                f"{format_duration(game.record.turn_timeout)} per move).\n"
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
