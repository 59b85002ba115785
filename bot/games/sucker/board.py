"""How a So Long Sucker game looks in Discord: the one public status message and its decision components.

Everything in this game is public, so the status shows the whole table. The decision the game waits for
is made on the status message, in one request each: playing a chip is one choice of "colour on pile" in a
menu (two steps only when the plays do not fit the message: which chip on it, which pile in a private
follow-up); killing a chip, naming the next player and rescuing are one click. All of it is drawn from the
game's public view (`SuckerView`) and its public record (`GameInfo`).
"""

from __future__ import annotations

from collections.abc import Sequence

import discord

from bot.games.sucker.components import DealButton, ResignButton, SuckerButton, SuckerSelect
from bot.games.sucker.people import last_said, name
from bot.lobby import format_duration
from bot.service import GameInfo, Result
from games.sucker.views import ChoiceView, SuckerView
from storage.deals import Deal

COLOUR = discord.Colour.from_rgb(155, 89, 182)
EMOJI = {"red": "🟥", "blue": "🟦", "green": "🟩", "yellow": "🟨", "purple": "🟪", "orange": "🟧"}
PER_ROW, MAX_BUTTONS = 5, 20  # the fifth row holds Resign
CONTROL_ROW = 4
PER_MENU, MAX_MENUS = 25, 5
PLAY_MENUS = CONTROL_ROW  # the one-step chip menus fill the rows above Resign's


def chip(colour: str, count: int | None = None) -> str:
    mark = EMOJI.get(colour, colour)
    return f"{mark} {count}" if count is not None else mark


def content(game: GameInfo) -> str:
    """The status message's text line: the game, and where its table talks."""
    thread = f" · table talk in <#{game.thread_id}>" if game.thread_id else ""
    return f"So Long Sucker #{game.id}{thread}"


def status_embed(game: GameInfo, view: SuckerView) -> discord.Embed:
    lines = ["**Piles** (bottom → top)"]
    lines += [f"{p.number}. " + "".join(chip(c.colour) for c in p.chips) for p in view.piles] or ["No piles yet."]
    lines += ["", "**Players**"]
    for seat in view.seats:
        who = f"{chip(seat.colour)} {name(game, view, seat.seat)}"
        if seat.defeated:
            lines.append(f"💀 {who}: defeated")
            continue
        held = " ".join(chip(c, n) for c, n in seat.holdings) or "no chips"
        marker = "▶ " if seat.seat == view.to_decide else ""
        prisoners = f" ({seat.prisoners} prisoner{'' if seat.prisoners == 1 else 's'})" if seat.prisoners else ""
        lines.append(f"{marker}{who}: {held}{prisoners}")
    dead = " ".join(chip(c, n) for c, n in view.dead if n)
    if dead:
        lines.append(f"Dead: {dead}")
    lines.append("")
    said = last_said(game, view)
    if said is not None:
        lines.append(f"Last: {said}.")
    if view.outcome is not None:
        winners = ", ".join(name(game, view, s) for s in view.outcome.winners)
        lines.append(f"🏆 {winners} " + ("share the win (agreed)." if view.outcome.is_draw else "wins!"))
    else:
        lines.append(decision_line(game, view))
        if game.deadline is not None:
            lines.append(f"Time for this decision runs out <t:{int(game.deadline)}:R>.")
        lines.append("Talk and make deals freely; `/sucker give`, `/sucker kill` and `/sucker deal` work at any time.")
    embed = discord.Embed(title=f"So Long Sucker #{game.id}", description="\n".join(lines)[:4096], colour=COLOUR)
    embed.set_footer(text=f"{view.players} players · {view.chips} chips each · "
                          f"{format_duration(game.turn_timeout)} per decision")
    return embed


def decision_line(game: GameInfo, view: SuckerView) -> str:
    assert view.to_decide is not None
    who = name(game, view, view.to_decide)
    if view.decision == "play":
        return f"**{who} plays a chip** onto a pile or a new pile."
    if view.decision == "kill":
        assert view.capture is not None
        return f"**{who} captured pile {view.capture[0]}** and chooses one chip to kill."
    if view.decision == "name":
        return f"**{who} names who moves next.**"
    assert view.stuck is not None
    return (f"{name(game, view, view.stuck)} has the move but no chips. "
            f"**{who}, rescue them with a chip or decline.**")


def status_view(result: Result[SuckerView, SuckerView]) -> discord.ui.View | None:
    """Components for the decision the game waits for (none while a bot decides), and Resign; None once the game
    is over."""
    game, view = result.game, result.public
    seat = view.to_decide
    if seat is None or game.status != "active":
        return None
    components = discord.ui.View(timeout=None)
    components.add_item(ResignButton.of(game=game.id, verb="resign", label="Resign", style=discord.ButtonStyle.danger,
                                        row=CONTROL_ROW))
    if game.is_bot(seat):
        return components
    if view.decision == "play":
        menus = play_menus(view)
        if menus is not None:
            for row, plays in enumerate(menus):
                components.add_item(SuckerSelect.of(
                    game=game.id, ply=game.turn_token, what=f"play{row}", row=row,
                    options=[discord.SelectOption(label=play_label(p), value=p.text, emoji=EMOJI.get(p.colour or ""))
                             for p in plays],
                    placeholder=_play_placeholder(plays, whole=len(menus) == 1)))
            return components
        # More plays than the menus hold: two steps, the colour here and the pile in a private reply.
        held = sorted(view.seats[seat].holdings, key=lambda pair: view.colours.index(pair[0]))
        options = [discord.SelectOption(label=f"{colour} ({count})", value=colour, emoji=EMOJI.get(colour))
                   for colour, count in held]
        components.add_item(SuckerSelect.of(game=game.id, ply=game.turn_token, what="chip", options=options,
                                            placeholder="Play a chip: which colour?", row=0))
        return components
    for i, option in enumerate(view.options[:MAX_BUTTONS]):
        components.add_item(SuckerButton.of(game=game.id, ply=game.turn_token, action=option.text, label=option.label,
                                            style=discord.ButtonStyle.primary, row=i // PER_ROW))
    return components


def play_menus(view: SuckerView) -> list[list[ChoiceView]] | None:
    """The chip plays as the menus of one step: one menu when they all fit in it, otherwise whole colours
    grouped into up to `PLAY_MENUS` menus (a colour never straddles two menus, so the player knows which one
    to open, and each menu names its colours); None when they do not fit, and playing takes two steps."""
    by_colour: dict[str, list[ChoiceView]] = {}
    for play in view.options:
        by_colour.setdefault(play.colour or "", []).append(play)
    colours = sorted(by_colour, key=lambda c: view.colours.index(c) if c in view.colours else len(view.colours))
    menus: list[list[ChoiceView]] = []
    for colour in colours:
        plays = by_colour[colour]
        if len(plays) > PER_MENU:
            return None
        if menus and len(menus[-1]) + len(plays) <= PER_MENU:
            menus[-1].extend(plays)
        else:
            menus.append(list(plays))
    return menus if 0 < len(menus) <= PLAY_MENUS else None


def play_label(play: ChoiceView) -> str:
    """A chip play as its menu option reads: "red on pile 2 (3 chips, top blue)", "red on a new pile"."""
    where = play.pile or play.label
    where = "a new pile" if where == "New pile" else where[:1].lower() + where[1:]
    return f"{play.colour} on {where}"[:100]


def _play_placeholder(plays: Sequence[ChoiceView], whole: bool) -> str:
    if whole:
        return "Play a chip: which colour on which pile?"
    colours = list(dict.fromkeys(p.colour or "" for p in plays))
    return f"Play {' or '.join(colours)}: on which pile?"[:150]


def pile_view(result: Result[SuckerView, SuckerView], colour: str) -> discord.ui.View:
    """The private second step of playing a chip of `colour`: which pile (or a new one)."""
    game = result.game
    plays = [o for o in result.public.options if o.colour == colour]
    components = discord.ui.View(timeout=None)
    if len(plays) <= MAX_BUTTONS:
        for i, play in enumerate(plays):
            components.add_item(SuckerButton.of(game=game.id, ply=game.turn_token, action=play.text,
                                                label=play.pile or play.label, style=discord.ButtonStyle.primary,
                                                row=i // PER_ROW))
        return components
    for index in range(0, min(len(plays), PER_MENU * MAX_MENUS), PER_MENU):  # more piles than buttons: menus
        chunk = plays[index:index + PER_MENU]
        options = [discord.SelectOption(label=play.pile or play.label, value=play.text) for play in chunk]
        components.add_item(SuckerSelect.of(game=game.id, ply=game.turn_token, what=f"pile{index // PER_MENU}",
                                            options=options, placeholder="Which pile?", row=index // PER_MENU))
    return components


def deal_embed(game_id: int, deal: Deal) -> discord.Embed:
    accepted = ", ".join(f"<@{u}>" for u in deal.accepted_by) or "nobody yet"
    text = (f"<@{deal.author_id}> proposes:\n> {deal.text}\n\nMarked as accepted by: {accepted}\n"
            "Deals are not binding: anyone may break one, and nothing enforces it.")
    return discord.Embed(title=f"Deal #{deal.number} · So Long Sucker #{game_id}", description=text[:4096],
                         colour=COLOUR)


def deal_view(game_id: int, deal: Deal) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(DealButton.of(game=game_id, number=deal.number, label="Accept / withdraw",
                                style=discord.ButtonStyle.success))
    return view


def prisoners(view: SuckerView, seat: int) -> Sequence[tuple[str, int]]:
    """(colour, count) of the prisoners `seat` holds: chips of other players' colours, in seat order."""
    own = view.seats[seat]
    return [(colour, n) for colour, n in own.holdings if colour != own.colour]
