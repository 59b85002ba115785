"""How a So Long Sucker game looks in Discord: the one public status message and its decision components.

Everything in this game is public, so the status shows the whole table. The decision the game waits for
is made on the status message, in one request each: playing a chip is one choice of "colour on pile" in a
menu (two steps only when the plays do not fit the message: which chip on it, which pile in a private
follow-up); killing a chip, naming the next player and rescuing are one click. All of it is drawn from the
game's public view (`SuckerView`) and its public record (`GameInfo`), in the language of whoever reads it (`say`):
the server's for the status message and deals, the user's for what is shown only to them.
"""

from __future__ import annotations

from collections.abc import Sequence

import discord

from bot.games.sucker.components import KIND, DealButton, ResignButton, SuckerButton, SuckerSelect
from bot.games.sucker.people import latest_steps, name
from bot.i18n import Say
from bot.lobby import per_turn
from bot.service import GameInfo, Result
from games.sucker.actions import Decline
from games.sucker.texts import chip_colour
from games.sucker.views import ChoiceView, SuckerView
from games.text import Joined, Plural, Text, TextIn, Typed, either
from storage.deals import Deal

COLOUR = discord.Colour.from_rgb(155, 89, 182)
EMOJI = {"red": "🟥", "blue": "🟦", "green": "🟩", "yellow": "🟨", "purple": "🟪", "orange": "🟧"}
PER_ROW, MAX_BUTTONS = 5, 20  # the fifth row holds Resign
CONTROL_ROW = 4
PER_MENU, MAX_MENUS = 25, 5
PLAY_MENUS = CONTROL_ROW  # the one-step chip menus fill the rows above Resign's
MAX_STEPS = 12  # the steps of a run of computer decisions the status lists (the embed must keep its decision line)
MAX_LABEL, MAX_OPTION, MAX_PLACEHOLDER = 80, 100, 150  # Discord's limits on a button, a menu option, a menu's hint


def chip(colour: str, count: int | None = None) -> str:
    mark = EMOJI.get(colour, colour)
    return f"{mark} {count}" if count is not None else mark


def title(game_id: int) -> Text:
    return Text("So Long Sucker #{number}", number=game_id)


def content(game: GameInfo, say: Say) -> str | None:
    """The status message's text line: the game, and where its table talks when that is elsewhere (none in the thread:
    the embed's title names the game)."""
    if game.thread_id and status_channel(game) != game.thread_id:
        return say(Text("So Long Sucker #{number} · table talk in <#{thread}>", number=game.id, thread=game.thread_id))
    if status_channel(game) == game.thread_id:
        return None
    return say(title(game.id))


def status_channel(game: GameInfo) -> int:
    """Where the status message is: in the table's thread once it was posted there; in the channel for a table
    without a thread, and for one whose thread was opened from its status message (some stored tables: the thread then
    has the message's id)."""
    if game.thread_id and game.message_id is not None and game.message_id != game.thread_id:
        return game.thread_id
    return game.channel_id


def summary_embed(result: Result[SuckerView, SuckerView], say: Say, private: bool,
                  table: int | None = None) -> discord.Embed:
    """The game as the channel sees it while its table plays in a thread: who plays (and who is out), where the
    table is, and at the end how it went. Drawn at the start and at the end only (a decision costs one request)."""
    game, view = result.game, result.public
    lines: list[Text | str] = []
    if table is not None:  # the lobby's number is the table's, apart from the game's own
        lines += [Text("Table #{table} is now So Long Sucker #{number}.", table=table, number=game.id), ""]
    lines.append(Text("**Players**"))
    for seat in view.seats:
        who = Joined([chip(seat.colour), name(game, view, seat.seat)], " ")
        lines.append(Text("💀 {who}: defeated", who=who) if seat.defeated else who)
    lines.append("")
    if view.outcome is not None:
        winners = Joined([name(game, view, s) for s in view.outcome.winners], ", ")
        lines.append(Text("🏆 {winners} share the win.", winners=winners) if len(view.outcome.winners) > 1
                     else Text("🏆 {winners} wins!", winners=winners))
        if game.thread_id:
            lines.append(Text("The whole game can be read in <#{thread}>.", thread=game.thread_id))
    elif game.thread_id is None:
        lines.append(Text("The table is opening its thread…"))
    elif private:
        lines.append(Text("The table plays in <#{thread}>, a thread private to its players; this message follows "
                          "the game for everyone else.", thread=game.thread_id))
    else:
        lines.append(Text("The table plays in <#{thread}>: decisions and table talk are there, and anyone can read "
                          "along.", thread=game.thread_id))
    heading = title(game.id) if view.outcome is None else Text("So Long Sucker #{number} is over", number=game.id)
    return _table_embed(heading, lines, game, view, say)


def status_embed(game: GameInfo, view: SuckerView, say: Say) -> discord.Embed:
    """The whole table, in `say`'s language: piles, players with what they hold, the latest action, the decision."""
    lines: list[Text | str] = [Text("**Piles** (bottom → top)")]
    lines += [f"{p.number}. " + "".join(chip(c.colour) for c in p.chips) for p in view.piles] or [Text("No piles yet.")]
    lines += ["", Text("**Players**")]
    for seat in view.seats:
        who = Joined([chip(seat.colour), name(game, view, seat.seat)], " ")
        if seat.defeated:
            lines.append(Text("💀 {who}: defeated", who=who))
            continue
        held: Text | str = " ".join(chip(c, n) for c, n in seat.holdings) or Text("no chips")
        marker = "▶ " if seat.seat == view.to_decide else ""
        if seat.prisoners:
            lines.append(Text("{marker}{who}: {held} {prisoners}", marker=marker, who=who, held=held,
                              prisoners=Plural("({count} prisoner)", "({count} prisoners)", seat.prisoners)))
        else:
            lines.append(Text("{marker}{who}: {held}", marker=marker, who=who, held=held))
    dead = " ".join(chip(c, n) for c, n in view.dead if n)
    if dead:
        lines.append(Text("Dead: {chips}", chips=dead))
    lines.append("")
    lines += _latest(game, view)
    if view.outcome is not None:
        winners = Joined([name(game, view, s) for s in view.outcome.winners], ", ")
        if view.outcome.is_draw:
            lines.append(Text("🏆 {winners} share the win (agreed).", winners=winners))
        elif len(view.outcome.winners) > 1:  # no person left, or the length limit: the computers still in share it
            lines.append(Text("🏆 {winners} share the win.", winners=winners))
        else:
            lines.append(Text("🏆 {winners} wins!", winners=winners))
    else:
        lines.append(decision_line(game, view))
        if game.deadline is not None:
            lines.append(Text("Time for this decision runs out <t:{deadline}:R>.", deadline=int(game.deadline)))
        lines.append(Text("Talk and make deals freely; `/sucker give`, `/sucker kill` and `/sucker deal` work at any "
                          "time."))
    return _table_embed(title(game.id), lines, game, view, say)


def _table_embed(heading: Text, lines: list[Text | str], game: GameInfo, view: SuckerView, say: Say) -> discord.Embed:
    """A table's embed (its status or its summary): the heading, the lines, and the footer of its settings."""
    embed = discord.Embed(title=say(heading), description="\n".join(say(line) for line in lines)[:4096],
                          colour=COLOUR)
    embed.set_footer(text=say(Text("{players} · {chips} · {time}",
                                   players=Plural("{count} player", "{count} players", view.players),
                                   chips=Plural("{count} chip each", "{count} chips each", view.chips),
                                   time=per_turn(KIND, game.turn_timeout))))
    return embed


def _latest(game: GameInfo, view: SuckerView) -> list[Text | str]:
    """The latest action; after computer seats acted, each step of their run, in order (at most MAX_STEPS)."""
    steps = latest_steps(game, view)
    if len(steps) <= 1:
        return [Text("Last: {what}.", what=steps[0]) for _ in steps[:1]]
    shown = steps[-MAX_STEPS:]
    lines: list[Text | str] = [Text("**Latest steps**")]
    if len(shown) < len(steps):
        lines.append(Plural("… {count} earlier step", "… {count} earlier steps", len(steps) - len(shown)))
    return lines + [Text("• {what}.", what=step) for step in shown]


def decision_line(game: GameInfo, view: SuckerView) -> Text:
    assert view.to_decide is not None
    who = name(game, view, view.to_decide)
    if view.decision == "play":
        return Text("**{who} plays a chip** onto a pile or a new pile.", who=who)
    if view.decision == "kill":
        assert view.capture is not None
        return Text("**{who} captured pile {pile}** and chooses one chip to kill.", who=who, pile=view.capture[0])
    if view.decision == "name":
        return Text("**{who} names who moves next.**", who=who)
    assert view.stuck is not None
    return Text("{stuck} has the move but no chips. **{who}, rescue them with a chip or decline.**",
                stuck=name(game, view, view.stuck), who=who)


def status_controls(result: Result[SuckerView, SuckerView], say: Say) -> discord.ui.View | None:
    """Components for the decision the game waits for (none while a bot decides), and Resign; None once the game
    is over."""
    game, view = result.game, result.public
    seat = view.to_decide
    if seat is None or game.status != "active":
        return None
    controls = discord.ui.View(timeout=None)
    controls.add_item(ResignButton.of(game=game.id, label=say(TextIn("button", "Resign")),
                                        style=discord.ButtonStyle.danger, row=CONTROL_ROW))
    if game.is_computer(seat):
        return controls
    if view.decision == "play":
        menus = play_menus(view)
        if menus is not None:
            for row, plays in enumerate(menus):
                controls.add_item(SuckerSelect.of(
                    game=game.id, ply=game.turn_token, what=f"play{row}", row=row,
                    options=[discord.SelectOption(label=say(play_label(p))[:MAX_OPTION], value=p.text,
                                                  emoji=EMOJI.get(p.colour or "")) for p in plays],
                    placeholder=say(_play_placeholder(plays, whole=len(menus) == 1))[:MAX_PLACEHOLDER]))
            return controls
        # More plays than the menus hold: two steps, the colour here and the pile in a private reply.
        held = sorted(view.seats[seat].holdings, key=lambda pair: view.colours.index(pair[0]))
        options = [discord.SelectOption(label=say(Text("{colour} ({count})", colour=chip_colour(colour),
                                                       count=count))[:MAX_OPTION],
                                        value=colour, emoji=EMOJI.get(colour))
                   for colour, count in held]
        controls.add_item(SuckerSelect.of(game=game.id, ply=game.turn_token, what="chip", options=options,
                                            placeholder=say(Text("Play a chip: which colour?")), row=0))
        return controls
    for i, option in enumerate(view.options[:MAX_BUTTONS]):
        # Declining a rescue looks apart from the rescues beside it: grey, not blue.
        style = discord.ButtonStyle.secondary if option.text == Decline().text() else discord.ButtonStyle.primary
        controls.add_item(SuckerButton.of(game=game.id, ply=game.turn_token, action=option.text,
                                            label=say(option.label)[:MAX_LABEL], style=style, row=i // PER_ROW))
    return controls


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


def play_label(play: ChoiceView) -> Text:
    """A chip play as its menu option reads: "red on pile 2 (3 chips, top blue)", "red on a new pile"."""
    return play.placed if play.placed is not None else play.label


def _play_placeholder(plays: Sequence[ChoiceView], whole: bool) -> Text:
    if whole:
        return Text("Play a chip: which colour on which pile?")
    colours = list(dict.fromkeys(p.colour or "" for p in plays))
    return Text("Play {colours}: on which pile?", colours=either([chip_colour(c) for c in colours]))


def pile_controls(result: Result[SuckerView, SuckerView], colour: str, say: Say) -> discord.ui.View:
    """The private second step of playing a chip of `colour`: which pile (or a new one)."""
    game = result.game
    plays = [o for o in result.public.options if o.colour == colour]
    controls = discord.ui.View(timeout=None)
    if len(plays) <= MAX_BUTTONS:
        for i, play in enumerate(plays):
            controls.add_item(SuckerButton.of(game=game.id, ply=game.turn_token, action=play.text,
                                                label=say(play.pile or play.label)[:MAX_LABEL],
                                                style=discord.ButtonStyle.primary, row=i // PER_ROW))
        return controls
    for index in range(0, min(len(plays), PER_MENU * MAX_MENUS), PER_MENU):  # more piles than buttons: menus
        chunk = plays[index:index + PER_MENU]
        options = [discord.SelectOption(label=say(play.pile or play.label)[:MAX_OPTION], value=play.text)
                   for play in chunk]
        controls.add_item(SuckerSelect.of(game=game.id, ply=game.turn_token, what=f"pile{index // PER_MENU}",
                                            options=options, placeholder=say(Text("Which pile?")),
                                            row=index // PER_MENU))
    return controls


def deal_embed(game_id: int, deal: Deal, say: Say) -> discord.Embed:
    """A deal as the table sees it, in the server's language (its own words are the proposer's, as written)."""
    accepted: Text | str = ", ".join(f"<@{u}>" for u in deal.accepted_by) or Text("nobody yet")
    text = say(Text("<@{author}> proposes:\n> {deal}\n\nMarked as accepted by: {accepted}\nDeals are not binding: "
                    "anyone may break one, and nothing enforces it.", author=deal.author_id, deal=Typed(deal.text),
                    accepted=accepted))
    return discord.Embed(title=say(Text("Deal #{deal} · So Long Sucker #{number}", deal=deal.number, number=game_id)),
                         description=text[:4096], colour=COLOUR)


def deal_controls(game_id: int, deal: Deal, say: Say) -> discord.ui.View:
    controls = discord.ui.View(timeout=None)
    controls.add_item(DealButton.of(game=game_id, number=deal.number, label=say(TextIn("button", "Accept / withdraw")),
                                style=discord.ButtonStyle.success))
    return controls


def prisoners(view: SuckerView, seat: int) -> Sequence[tuple[str, int]]:
    """(colour, count) of the prisoners `seat` holds: chips of other players' colours, in seat order."""
    own = view.seats[seat]
    return [(colour, n) for colour, n in own.holdings if colour != own.colour]
