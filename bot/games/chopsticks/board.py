"""How a Chopsticks game reads in Discord: the board and challenge embeds, drawn from the public view and the
game's public facts only (the buttons are in components.py), in the language of whoever reads them (`say`)."""

from __future__ import annotations

from collections.abc import Sequence
from string import ascii_uppercase
from typing import Any

import discord

from bot.i18n import Say
from bot.lobby import per_turn
from bot.service import REMATCH_OF, GameInfo
from bot.words import challenge_sides, closed_challenge_line, decliner
from games.base import EndReason
from games.chopsticks.rules import MAX_PLIES, Rules
from games.chopsticks.views import ChopsticksView, MoveChoice
from games.text import Joined, Plural, Text, TextIn

COLOUR = discord.Colour.from_rgb(214, 158, 46)
MAX_LABEL = 80  # Discord's limit on a button's or an option's label
ACCEPT_DRAW = TextIn("button", "Accept draw")  # the button, which the line of a draw offer names


# ----- the board ----------------------------------------------------------------------------------------------
def result_line(view: ChopsticksView, names: Sequence[Text | str]) -> Text:
    """How the game ended, in words (the game is over)."""
    outcome = view.outcome
    assert outcome is not None
    if outcome.reason is EndReason.NO_PERSON_LEFT:
        return Text("🤖 No person is left in the game, so it ends here: {players} share first place.",
                    players=Joined((names[s] for s in outcome.winners), separator=", "))
    if outcome.reason is EndReason.MOVE_LIMIT:
        limit = view.rules.max_plies or MAX_PLIES
        if outcome.is_draw:
            return Plural("⌛ Drawn: a game lasts {count} move at most.",
                          "⌛ Drawn: a game lasts {count} moves at most.", limit)
        return Plural("⌛ A game lasts {count} move at most: {players} share first place.",
                      "⌛ A game lasts {count} moves at most: {players} share first place.", limit,
                      players=Joined((names[s] for s in outcome.winners), separator=", "))
    if outcome.is_draw:
        if outcome.reason is EndReason.DRAW_AGREED:
            return Text("🤝 Drawn by agreement.")
        if outcome.reason is EndReason.REPETITION:
            return Text("🔁 Drawn: the same position came up for the third time.")
        return TextIn("result", "Drawn.")
    winners = Joined((names[s] for s in outcome.winners), separator=", ")
    loser = names[view.last[0]] if view.last else "?"
    if outcome.reason is EndReason.RESIGN:
        return Text("🏳️ {loser} resigned. 🏆 {winners} wins.", loser=loser, winners=winners)
    if outcome.reason is EndReason.TIMEOUT:
        return Text("⏰ {loser} ran out of time. 🏆 {winners} wins.", loser=loser, winners=winners)
    if outcome.reason is EndReason.MISERE:
        return Text("🏆 {winners} wins: the first to lose every hand wins this game (misère).", winners=winners)
    return Text("🏆 {winners} wins: every opponent is out.", winners=winners)


def board_embed(game: GameInfo, view: ChopsticksView, names: Sequence[Text | str], say: Say) -> discord.Embed:
    """The position, whose move it is and how long they have, any draw offer, or how the game ended."""
    p, h = view.rules.players, view.rules.hands
    lines = [say(Text("Position `{code}`", code=view.code)), ""]
    # Players in code order (the one to move first), so that hand letters run A, B, C, ... down the list.
    for rel in range(p):
        seat = (view.first + rel) % p
        letters = ascii_uppercase[rel * h:(rel + 1) * h]
        # Labels write half fingers as people read them ("1½"); plain values otherwise.
        values = view.labels[seat] if view.labels else tuple(str(v) for v in view.hands[seat])
        hands = "  ".join(f"{letter} **{value}**" for letter, value in zip(letters, values, strict=True))
        lives = f"  ({view.lives[seat]} ❤)" if view.rules.max_lives > 1 and seat not in view.out else ""
        # At 3+ players the move buttons name their target by this tag (a button label cannot mention anyone).
        who = tagged(names[seat], seat, say) if p > 2 else say(names[seat])
        if seat in view.zombies:
            marker = "▶" if seat == view.to_move else "🧟"
            lines.append(f"{marker} " + say(Text("{player}: zombie, taps with 1 finger", player=who)))
        elif seat in view.out:
            lines.append("✖ " + say(Text("{player}: out", player=who)))
        else:
            marker = "▶" if seat == view.to_move else "•"
            lines.append(f"{marker} {who}: {hands}{lives}")
    lines.append("")
    if view.last is not None and view.last[1] not in (EndReason.RESIGN, EndReason.TIMEOUT):
        lines.append(say(last_move_line(view, names)))
    if view.outcome is not None:
        lines.append(say(result_line(view, names)))
    else:
        assert view.to_move is not None
        turn: list[Text | str] = [Text("{player} to move", player=names[view.to_move])]
        if game.is_computer(view.to_move):
            turn.append(Text("(thinking…)"))
        if game.deadline is not None:
            turn.append(Text("(time runs out {when})", when=f"<t:{int(game.deadline)}:R>"))
        lines.append(say(Joined(turn, " ")))
        if game.draw_offer is not None:
            lines.append(say(Text("🤝 {player} offers a draw: the other player can accept with **{accept}** or just "
                                  "play on.", player=names[game.draw_offer], accept=ACCEPT_DRAW)))
        elif game.draw_declined is not None and view.last is not None:
            lines.append(say(declined_line(names[view.last[0]], names[game.draw_declined])))
    embed = discord.Embed(title=say(Text("Chopsticks #{number}", number=game.id)), description="\n".join(lines),
                          colour=COLOUR)
    embed.set_footer(text=say(Text("Move {ply} · {rules} · AC = your hand A taps hand C · 13-22 = split",
                                   ply=game.moves_of_play, rules=rules_summary(view.rules))))
    return embed


def declined_line(player: Text | str, offerer: Text | str) -> Text:
    """What the board says once a move declined a draw offer (the one who offered reads it on their turn: the board is
    edited for that move anyway, so telling them costs no request)."""
    return Text("✋ {player} played on: the draw {offerer} offered is declined.", player=player, offerer=offerer)


def last_move_line(view: ChopsticksView, names: Sequence[Text | str]) -> Text:
    """The latest move in words, an attack by the fingers of the hands it named ("<@2>'s 2 tapped <@1>'s 1"), as
    the mover's button said it: its letters were the mover's, and the board is lettered from the next player by now
    (with each player's hands sorted again), so they would name other hands than the board shows."""
    assert view.last is not None
    mover, text = view.last
    tap = view.last_tap
    if tap is None or not tap.values:  # not an attack (a split: the mover's own fingers), or from an old snapshot
        return Text("Last move: {player} played `{move}`", player=names[mover], move=text)
    tapper, tapped = tap.values
    if tap.target_seat == mover:
        return Text("Last move: {player}'s {tapper} tapped their own {tapped}", player=names[mover], tapper=tapper,
                    tapped=tapped)
    return Text("Last move: {player}'s {tapper} tapped {other}'s {tapped}", player=names[mover], tapper=tapper,
                other=names[tap.target_seat], tapped=tapped)


def seat_tag(seat: int) -> Text:
    """A player's short tag at tables of 3+ ("P2"): shown on the board, it tells apart buttons that tap equal
    hands of different players (both are drawn in the same language)."""
    return Text("P{number}", number=seat + 1)


def tagged(seat_name: Text | str, seat: int, say: Say) -> str:
    """A player's name with their tag: "<@1> (P2)", "<@9> (bot, P3)"."""
    name, tag = say(seat_name), say(seat_tag(seat))
    if name.endswith(")"):
        return f"{name[:-1]}, {tag})"
    return f"{name} ({tag})"


def rules_summary(rules: Rules) -> Text:
    """The rule set in a few words: "standard rules", or "3 players, 2 hands, rollover 7, cutoff"."""
    if rules.is_standard:
        return Text("standard rules")
    return Joined([Plural("{count} player", "{count} players", rules.players),
                   Plural("{count} hand", "{count} hands", rules.hands),
                   Text("rollover {number}", number=rules.rollover), *sorted(rules.variants)], ", ")


def move_label(move: MoveChoice, view: ChopsticksView, say: Say) -> str:
    """A move's button or option: its text and the engine's words; at 3+ players, whose hand an attack taps
    (two targets with the same fingers read alike otherwise)."""
    label = f"{move.text} · {say(move.label)}"
    if view.rules.players > 2 and move.target_seat is not None and move.target_seat != view.to_move:
        label += f" ({say(seat_tag(move.target_seat))})"
    return label[:MAX_LABEL]


def group_label(view: ChopsticksView, hand: int | None, count: int, say: Say) -> str:
    """The option naming one group of moves: those of one tapping hand, or every other move (`hand` None)."""
    if hand is None or view.to_move is None:
        return say(Text("Split or other move ({number})", number=count))[:MAX_LABEL]
    value = view.hands[view.to_move][hand]
    return say(Text("Tap with hand {hand} ({value}) — {targets}", hand=ascii_uppercase[hand], value=value,
                    targets=Plural("{count} target", "{count} targets", count)))[:MAX_LABEL]


# ----- challenges ---------------------------------------------------------------------------------------------
def challenge_embed(game: GameInfo, view: ChopsticksView, names: Sequence[Text | str], say: Say,
                    declined_by: int | None = None) -> discord.Embed:
    """The challenge while it waits for an answer, or why it closed (`declined_by`: the seat that called it off,
    when known)."""
    sender, receiver = challenge_sides(game.options)
    challenger, opponent = names[sender], names[receiver]
    if game.status == "pending":
        assert game.deadline is not None
        facts: dict[str, Any] = {"challenger": challenger, "opponent": opponent, "rules": rules_summary(view.rules),
                                 "time": per_turn(game.kind, game.turn_timeout), "when": f"<t:{int(game.deadline)}:R>"}
        text = say(Text("{challenger} asks {opponent} for a rematch of Chopsticks ({rules}, {time}).\n"
                        "The challenge expires {when}.", **facts) if REMATCH_OF in game.options else
                   Text("{challenger} challenges {opponent} to Chopsticks ({rules}, {time}).\n"
                        "The challenge expires {when}.", **facts))
    else:
        text = say(closed_challenge_line(game.status, challenger, opponent, decliner(declined_by, sender)))
    return discord.Embed(title=say(Text("Chopsticks #{number}: a challenge", number=game.id)), description=text,
                         colour=COLOUR)


def jump_url(game: GameInfo) -> str:
    guild = game.guild_id or "@me"
    return f"https://discord.com/channels/{guild}/{game.channel_id}/{game.message_id}"
