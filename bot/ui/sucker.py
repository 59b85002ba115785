"""How a So Long Sucker game looks in Discord: the one public status message and its decision components.

Everything in this game is public, so the status shows the whole table. The decision the game waits for
is made on the status message: playing a chip is two steps (which chip on the message, which pile in a
private follow-up); killing a chip, naming the next player and rescuing are one click.
"""

from __future__ import annotations

from collections.abc import Sequence

import discord

from bot.service import Game
from bot.ui.components import ButtonFactory, SelectFactory
from bot.ui.lobby import format_duration
from games import Action
from games.sucker import Decline, Give, Kill, NameNext, Play, SuckerState
from games.sucker.views import SuckerView
from storage.deals import Deal

COLOUR = discord.Colour.from_rgb(155, 89, 182)
EMOJI = {"red": "🟥", "blue": "🟦", "green": "🟩", "yellow": "🟨", "purple": "🟪", "orange": "🟧"}
PER_ROW, MAX_BUTTONS = 5, 25

# Buttons: sk:<game>:<ply>:<action text>; selects: sks:<game>:<ply>:<what>; deal buttons: sd:<game>:<number>.
BUTTON_TEMPLATE = r"sk:(?P<game>[0-9]{1,19}):(?P<ply>[0-9]{1,7}):(?P<action>[a-z0-9:._-]{1,60})"
SELECT_TEMPLATE = r"sks:(?P<game>[0-9]{1,19}):(?P<ply>[0-9]{1,7}):(?P<what>chip|pile[0-4])"
DEAL_TEMPLATE = r"sd:(?P<game>[0-9]{1,19}):(?P<number>[0-9]{1,6})"


def state_of(game: Game) -> SuckerState:
    assert isinstance(game.state, SuckerState)
    return game.state


def chip(colour: str, count: int | None = None) -> str:
    mark = EMOJI.get(colour, colour)
    return f"{mark} {count}" if count is not None else mark


def player(game: Game, view: SuckerView, seat: int, bot_user_id: int | None) -> str:
    user = game.user_at(seat)
    who = f"<@{user}>" if user is not None else (f"<@{bot_user_id}> (bot)" if bot_user_id else "a bot")
    return f"{chip(view.colours[seat])} {who}"


def status_embed(game: Game, bot_user_id: int | None) -> discord.Embed:
    state = state_of(game)
    view = state.public_view()
    lines = ["**Piles** (bottom → top)"]
    lines += [f"{p.number}. " + "".join(chip(c.colour) for c in p.chips) for p in view.piles] or ["No piles yet."]
    lines += ["", "**Players**"]
    for seat in view.seats:
        name = player(game, view, seat.seat, bot_user_id)
        if seat.defeated:
            lines.append(f"💀 {name}: defeated")
            continue
        held = " ".join(chip(c, n) for c, n in seat.holdings) or "no chips"
        marker = "▶ " if seat.seat == view.to_decide else ""
        lines.append(f"{marker}{name}: {held}" + (f" ({seat.prisoners} prisoners)" if seat.prisoners else ""))
    dead = " ".join(chip(c, n) for c, n in view.dead if n)
    if dead:
        lines.append(f"Dead: {dead}")
    lines.append("")
    if view.last is not None:
        actor, text = view.last
        try:
            said = state.describe(state.parse_action(text), actor)
        except ValueError:  # resign / timeout / draw-agreed are not game actions
            said = f"{view.colours[actor]}: {text}"
        lines.append(f"Last: {said}")
    if view.outcome is not None:
        winners = ", ".join(player(game, view, s, bot_user_id) for s in view.outcome.winners)
        lines.append(f"🏆 {winners} " + ("share the win (agreed)." if view.outcome.is_draw else "wins!"))
    else:
        lines.append(decision_line(game, view, bot_user_id))
        if game.record.deadline is not None:
            lines.append(f"Time for this decision runs out <t:{int(game.record.deadline)}:R>.")
        lines.append("Talk and make deals freely; `/sucker give`, `/sucker kill` and `/sucker deal` work at any time.")
    embed = discord.Embed(title=f"So Long Sucker #{game.id}", description="\n".join(lines)[:4096], colour=COLOUR)
    embed.set_footer(text=f"{view.players} players · {view.chips} chips each · "
                          f"{format_duration(game.record.turn_timeout)} per decision")
    return embed


def decision_line(game: Game, view: SuckerView, bot_user_id: int | None) -> str:
    assert view.to_decide is not None
    who = player(game, view, view.to_decide, bot_user_id)
    if view.decision == "play":
        return f"**{who} plays a chip** onto a pile or a new pile."
    if view.decision == "kill":
        assert view.capture is not None
        return f"**{who} captured pile {view.capture[0]}** and chooses one chip to kill."
    if view.decision == "name":
        return f"**{who} names who moves next.**"
    assert view.stuck is not None
    return (f"{player(game, view, view.stuck, bot_user_id)} has the move but no chips. "
            f"**{who}, rescue them with a chip or decline.**")


def status_view(game: Game, button: ButtonFactory, select: SelectFactory) -> discord.ui.View | None:
    """Components for the decision the game waits for (None when the game is over or a bot decides)."""
    state = state_of(game)
    seat = state.current_player()
    if seat is None or game.record.status != "active" or game.is_bot(seat):
        return None
    view = discord.ui.View(timeout=None)
    ply = state.turn_token()
    actions = state.decision_actions(seat)
    if state.decision_kind() == "play":
        colours = state.colours
        held = sorted({colours[c] for c, n in enumerate(state.holdings[seat]) if n}, key=colours.index)
        options = [discord.SelectOption(label=f"{c} ({state.holdings[seat][colours.index(c)]})", value=c,
                                        emoji=EMOJI.get(c)) for c in held]
        view.add_item(select(f"sks:{game.id}:{ply}:chip", options=options, placeholder="Play a chip: which colour?",
                             row=0))
        return view
    for i, action in enumerate(actions[:MAX_BUTTONS]):
        view.add_item(button(f"sk:{game.id}:{ply}:{action.text()}", label=action_label(state, action, seat),
                             style=discord.ButtonStyle.primary, row=i // PER_ROW))
    return view


def pile_view(game: Game, colour: str, button: ButtonFactory, select: SelectFactory) -> discord.ui.View:
    """The private second step of playing a chip of `colour`: which pile (or a new one)."""
    state = state_of(game)
    seat = state.current_player()
    assert seat is not None
    ply = state.turn_token()
    wanted = state.colours.index(colour)
    actions = [a for a in state.decision_actions(seat) if isinstance(a, Play) and a.colour == wanted]
    view = discord.ui.View(timeout=None)
    if len(actions) <= MAX_BUTTONS:
        for i, action in enumerate(actions):
            view.add_item(button(f"sk:{game.id}:{ply}:{action.text()}", label=pile_label(state, action),
                                 style=discord.ButtonStyle.primary, row=i // PER_ROW))
        return view
    for index in range(0, min(len(actions), 125), 25):  # more piles than buttons: selects of 25
        chunk = actions[index:index + 25]
        options = [discord.SelectOption(label=pile_label(state, a), value=a.text()) for a in chunk]
        view.add_item(select(f"sks:{game.id}:{ply}:pile{index // 25}", options=options,
                             placeholder="Which pile?", row=index // 25))
    return view


def pile_label(state: SuckerState, action: Action) -> str:
    assert isinstance(action, Play)
    if action.pile is None:
        return "New pile"
    pile = state.piles[action.pile]
    return f"Pile {action.pile + 1} ({len(pile)} chips, top {state.colours[pile[-1].colour]})"


def action_label(state: SuckerState, action: Action, seat: int) -> str:
    """A short button label for a decision, read from the action itself (never from its text form)."""
    colours = state.colours
    if isinstance(action, Kill):
        return f"Kill a {colours[action.colour]} chip"
    if isinstance(action, NameNext):
        return "I move next" if action.seat == seat else f"{colours[action.seat].capitalize()} moves next"
    if isinstance(action, Give):
        return f"Rescue with a {colours[action.colour]} chip"
    if isinstance(action, Decline):
        return "Decline to rescue"
    return state.describe(action, seat)[:80]


def deal_embed(game: Game, deal: Deal) -> discord.Embed:
    accepted = ", ".join(f"<@{u}>" for u in deal.accepted_by) or "nobody yet"
    text = (f"<@{deal.author_id}> proposes:\n> {deal.text}\n\nMarked as accepted by: {accepted}\n"
            "Deals are not binding: anyone may break one, and nothing enforces it.")
    return discord.Embed(title=f"Deal #{deal.number} · So Long Sucker #{game.id}", description=text[:4096],
                         colour=COLOUR)


def deal_view(game_id: int, deal: Deal, button: ButtonFactory) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(button(f"sd:{game_id}:{deal.number}", label="Accept / withdraw", style=discord.ButtonStyle.success))
    return view


def held_colours(state: SuckerState, seat: int, prisoners_only: bool) -> Sequence[tuple[str, int]]:
    """(colour, count) the seat holds; with `prisoners_only`, only other players' colours."""
    return [(state.colours[c], n) for c, n in enumerate(state.holdings[seat])
            if n and not (prisoners_only and c == seat)]
