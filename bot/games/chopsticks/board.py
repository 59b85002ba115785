"""How a Chopsticks game reads in Discord: the board and challenge embeds, drawn from the public view and the
game's public facts only (the buttons are in components.py)."""

from __future__ import annotations

from collections.abc import Sequence
from string import ascii_uppercase

import discord

from bot.lobby import per_turn
from bot.service import GameInfo
from bot.words import closed_challenge_line, plural
from games.base import EndReason
from games.chopsticks.rules import Rules
from games.chopsticks.views import ChopsticksView, MoveChoice

COLOUR = discord.Colour.from_rgb(214, 158, 46)
MAX_LABEL = 80  # Discord's limit on a button's or an option's label


# ----- the board ----------------------------------------------------------------------------------------------
def result_line(view: ChopsticksView, names: Sequence[str]) -> str:
    """How the game ended, in words (the game is over)."""
    outcome = view.outcome
    assert outcome is not None
    if outcome.is_draw:
        return {
            EndReason.DRAW_AGREED: "🤝 Drawn by agreement.",
            EndReason.REPETITION: "🔁 Drawn: the same position came up for the third time.",
        }.get(outcome.reason, "Drawn.")
    winners = ", ".join(names[s] for s in outcome.winners)
    loser = names[view.last[0]] if view.last else "?"
    if outcome.reason is EndReason.RESIGN:
        return f"🏳️ {loser} resigned. 🏆 {winners} wins."
    if outcome.reason is EndReason.TIMEOUT:
        return f"⏰ {loser} ran out of time. 🏆 {winners} wins."
    if outcome.reason is EndReason.MISERE:
        return f"🏆 {winners} wins: the first to lose every hand wins this game (misère)."
    return f"🏆 {winners} wins: every opponent is out."


def board_embed(game: GameInfo, view: ChopsticksView, names: Sequence[str]) -> discord.Embed:
    """The position, whose move it is and how long they have, any draw offer, or how the game ended."""
    p, h = view.rules.players, view.rules.hands
    lines = [f"Position `{view.code}`", ""]
    # Players in code order (the one to move first), so that hand letters run A, B, C, ... down the list.
    for rel in range(p):
        seat = (view.first + rel) % p
        letters = ascii_uppercase[rel * h:(rel + 1) * h]
        # Labels write half fingers as people read them ("1½"); plain values otherwise.
        values = view.labels[seat] if view.labels else tuple(str(v) for v in view.hands[seat])
        hands = "  ".join(f"{letter} **{value}**" for letter, value in zip(letters, values, strict=True))
        lives = f"  ({view.lives[seat]} ❤)" if view.rules.max_lives > 1 and seat not in view.out else ""
        # At 3+ players the move buttons name their target by this tag (a button label cannot mention anyone).
        who = tagged(names[seat], seat) if p > 2 else names[seat]
        if seat in view.zombies:
            marker = "▶" if seat == view.to_move else "🧟"
            lines.append(f"{marker} {who}: zombie, taps with 1 finger")
        elif seat in view.out:
            lines.append(f"✖ {who}: out")
        else:
            marker = "▶" if seat == view.to_move else "•"
            lines.append(f"{marker} {who}: {hands}{lives}")
    lines.append("")
    if view.last is not None and view.last[1] not in (EndReason.RESIGN, EndReason.TIMEOUT):
        lines.append(last_move_line(view, names))
    if view.outcome is not None:
        lines.append(result_line(view, names))
    else:
        assert view.to_move is not None
        turn = f"{names[view.to_move]} to move"
        if game.is_bot(view.to_move):
            turn += " (thinking…)"
        if game.deadline is not None:
            turn += f" (time runs out <t:{int(game.deadline)}:R>)"
        lines.append(turn)
        if game.draw_offer is not None:
            lines.append(f"🤝 {names[game.draw_offer]} offers a draw: "
                         "the other player can accept with **Accept draw** or just play on.")
    embed = discord.Embed(title=f"Chopsticks #{game.id}", description="\n".join(lines), colour=COLOUR)
    embed.set_footer(text=f"Move {view.ply} · {rules_summary(view.rules)} · AC = your hand A taps hand C · "
                          "13-22 = split")
    return embed


def last_move_line(view: ChopsticksView, names: Sequence[str]) -> str:
    """The latest move with the owners of the hands it named: its letters were the mover's, and the board is
    lettered from the next player by now."""
    assert view.last is not None
    mover, text = view.last
    line = f"Last move: {names[mover]} played `{text}`"
    tap = view.last_tap
    if tap is None:
        return line
    if tap.target_seat == mover:
        return f"{line} (their hand {tap.hand} tapped their own hand {tap.target})"
    return f"{line} (their hand {tap.hand} tapped hand {tap.target} of {names[tap.target_seat]})"


def seat_tag(seat: int) -> str:
    """A player's short tag at tables of 3+ ("P2"): shown on the board, it tells apart buttons that tap equal
    hands of different players."""
    return f"P{seat + 1}"


def tagged(name: str, seat: int) -> str:
    """A player's name with their tag: "<@1> (P2)", "<@9> (bot, P3)"."""
    if name.endswith(")"):
        return f"{name[:-1]}, {seat_tag(seat)})"
    return f"{name} ({seat_tag(seat)})"


def rules_summary(rules: Rules) -> str:
    if rules.is_standard:
        return "standard rules"
    return ", ".join([plural(rules.players, "player"), plural(rules.hands, "hand"), f"rollover {rules.rollover}",
                      *sorted(rules.variants)])


def move_label(move: MoveChoice, view: ChopsticksView) -> str:
    """A move's button or option: its text and the engine's words; at 3+ players, whose hand an attack taps
    (two targets with the same fingers read alike otherwise)."""
    label = f"{move.text} · {move.label}"
    if view.rules.players > 2 and move.target_seat is not None and move.target_seat != view.to_move:
        label += f" ({seat_tag(move.target_seat)})"
    return label[:MAX_LABEL]


def group_label(view: ChopsticksView, hand: int | None, count: int) -> str:
    """The option naming one group of moves: those of one tapping hand, or every other move (`hand` None)."""
    if hand is None or view.to_move is None:
        return f"Split or other move ({count})"
    value = view.hands[view.to_move][hand]
    return f"Tap with hand {ascii_uppercase[hand]} ({value}) — {plural(count, 'target')}"


# ----- challenges ---------------------------------------------------------------------------------------------
def challenge_embed(game: GameInfo, view: ChopsticksView, names: Sequence[str],
                    declined_by: int | None = None) -> discord.Embed:
    """The challenge while it waits for an answer, or why it closed (`declined_by`: the seat that called it off,
    when known)."""
    challenger, opponent = names[0], names[1]
    if game.status == "pending":
        assert game.deadline is not None
        text = (f"{challenger} challenges {opponent} to Chopsticks ({rules_summary(view.rules)}, "
                f"{per_turn(game.kind, game.turn_timeout)}).\n"
                f"The challenge expires <t:{int(game.deadline)}:R>.")
    else:
        text = closed_challenge_line(game.status, challenger, opponent, declined_by)
    return discord.Embed(title=f"Chopsticks #{game.id}: a challenge", description=text, colour=COLOUR)


def jump_url(game: GameInfo) -> str:
    guild = game.guild_id or "@me"
    return f"https://discord.com/channels/{guild}/{game.channel_id}/{game.message_id}"
