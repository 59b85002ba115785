"""How a Game of the Generals game looks in Discord, built only from views (never from the omniscient state).

- The channel message shows the public view: squares without ranks, the arbiter's rulings, whose turn.
- Each player's private board (a DM the bot keeps up to date, or the ephemeral "My board") shows their view:
  their own ranks, what they have deduced about enemy pieces, and the controls for setup or play.

Every function here takes a `PublicView` or the viewer's own `PlayerView` (and the game's public facts,
`GameInfo`), so what reaches a player can only depend on what that player may know.
"""

from __future__ import annotations

from collections.abc import Sequence

import discord

from bot.games.generals.components import (
    FormationSelect,
    GeneralsButton,
    GeneralsMoveButton,
    PieceSelect,
    SquareSelect,
)
from bot.games.generals.pictures import REASONS, SIDE_NAMES, knowledge_label
from bot.lobby import per_turn
from bot.presenter import IMAGE_NAME
from bot.service import GameInfo
from bot.words import closed_challenge_line
from games.base import EndReason
from games.generals.board import FILES, WIDTH, home_ranks, parse_square, rank_of, square, square_name
from games.generals.pieces import ABBREVIATIONS, Rank, Result
from games.generals.setup import FORMATIONS
from games.generals.views import PLAY, SETUP, LastMove, PlayerView, PublicView

COLOUR = discord.Colour.from_rgb(46, 125, 50)
SIDE_MARK = ("⚪", "⚫")

FORMATION_LABELS = {"balanced": "Balanced", "flag-fortress": "Flag fortress", "blitz": "Blitz",
                    "random": "Random deployment"}
FORMATION_HELP = {"balanced": "Strength spread along the front, Flag guarded at the back",
                  "flag-fortress": "The Flag deep in a corner behind its strongest guards",
                  "blitz": "Generals up front to strike early", "random": "Every piece on a random square"}
RULING = {Result.ATTACKER: "the attacker won", Result.DEFENDER: "the defender held",
          Result.BOTH: "both pieces were eliminated"}


def settings_lines(names: Sequence[str]) -> list[str]:
    """The settings a game plays by, as the challenge shows them (nothing for standard rules)."""
    return ["Settings: " + ", ".join(f"`{n}`" for n in names)] if names else []


# ----- the channel ---------------------------------------------------------------------------------------------
def challenge_embed(game: GameInfo, names: Sequence[str], settings_names: Sequence[str],
                    declined_by: int | None = None) -> discord.Embed:
    """The challenge while it waits for an answer, or why it closed (`declined_by`: the seat that called it off,
    when known)."""
    if game.status != "pending":
        lines = [f"{names[0]} challenged {names[1]} to Game of the Generals.",
                 closed_challenge_line(game.status, names[0], names[1], declined_by)]
        return discord.Embed(title=f"Game of the Generals #{game.id}", description="\n".join(lines), colour=COLOUR)
    lines = [f"{names[0]} challenges {names[1]} to Game of the Generals ({per_turn(game.kind, game.turn_timeout)}).",
             *settings_lines(settings_names),
             "Each player sets up their army in secret by DM; I am the arbiter and announce every challenge "
             "without naming ranks."]
    if game.deadline is not None:
        lines.append(f"The challenge expires <t:{int(game.deadline)}:R>.")
    return discord.Embed(title=f"Game of the Generals #{game.id}", description="\n".join(lines), colour=COLOUR)


def challenge_view(game_id: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(GeneralsButton.of(game=game_id, verb="accept", label="Accept", style=discord.ButtonStyle.success))
    view.add_item(GeneralsButton.of(game=game_id, verb="decline", label="Decline", style=discord.ButtonStyle.danger))
    return view


def channel_content(game_id: int, names: Sequence[str]) -> str:
    return f"Game of the Generals #{game_id}: {SIDE_MARK[0]} {names[0]} vs {SIDE_MARK[1]} {names[1]}"


def channel_embed(game: GameInfo, view: PublicView, names: Sequence[str], text_board: str | None) -> discord.Embed:
    """The public board: `text_board` is the monospace fallback; None means the picture is attached."""
    lines = [f"{SIDE_MARK[s]} Side {SIDE_NAMES[s]}: {names[s]}" for s in (0, 1)]
    lines.append("")
    if view.outcome is not None:
        lines.append(outcome_line(view.outcome.places, view.outcome.reason, names))
        lines.append("Both armies are revealed.")
    elif view.phase == SETUP:
        marks = ", ".join(f"{names[s]} {'is ready ✅' if view.ready[s] else 'is deploying'}" for s in (0, 1))
        lines.append(f"**Setup**: {marks}.")
        lines.append("Each player deploys in secret: in my DM, or with **My board** below.")
    else:
        assert view.to_move is not None
        lines.append(f"▶ {names[view.to_move]} to move (move {view.ply + 1}).")
    last = public_last_line(view.last, names)
    if last and view.phase != SETUP:
        lines.append(f"Last: {last}")
    if view.challenge is not None and view.challenge != view.last and view.outcome is None:
        lines.append(f"Latest challenge (red on the board): {public_last_line(view.challenge, names)}")
    if game.draw_offer is not None and view.outcome is None:
        lines.append(f"{names[game.draw_offer]} offers a draw: the opponent may accept with **Offer draw**.")
    if game.deadline is not None and view.outcome is None:
        # The secret setup has one deadline for both armies; in play, each turn has its own.
        what = "Time to deploy" if view.phase == SETUP else "Time for this turn"
        lines.append(f"{what} runs out <t:{int(game.deadline)}:R>.")
    if view.outcome is None and view.phase == PLAY:
        lines.append("Play with the controls on your board (DM or **My board**), or `/generals move`.")
    if text_board is not None:
        lines.append(f"```\n{text_board}\n```")
    embed = discord.Embed(title=f"Game of the Generals #{game.id}", description="\n".join(lines)[:4096],
                          colour=COLOUR)
    if text_board is None:
        embed.set_image(url=f"attachment://{IMAGE_NAME}")
    embed.set_footer(text=footer(game, view.settings.names(), view.lost))
    return embed


def channel_view(game: GameInfo, view: PublicView) -> discord.ui.View | None:
    if view.outcome is not None or game.status != "active":
        return None
    buttons = discord.ui.View(timeout=None)
    buttons.add_item(GeneralsButton.of(game=game.id, verb="board", label="My board",
                                       style=discord.ButtonStyle.primary))
    if view.phase == PLAY and game.draws_allowed:  # a computer player never agrees to a draw
        buttons.add_item(GeneralsButton.of(game=game.id, verb="draw", label="Offer draw",
                                           style=discord.ButtonStyle.secondary))
    buttons.add_item(GeneralsButton.of(game=game.id, verb="resign", label="Resign", style=discord.ButtonStyle.danger))
    return buttons


def footer(game: GameInfo, settings_names: Sequence[str], lost: tuple[int, int]) -> str:
    rules = ", ".join(settings_names) or "standard rules"
    return (f"{rules} · pieces lost: {SIDE_NAMES[0]} {lost[0]}, {SIDE_NAMES[1]} {lost[1]} · "
            f"{per_turn(game.kind, game.turn_timeout)}")


def outcome_line(places: Sequence[int], reason: EndReason, names: Sequence[str]) -> str:
    why = REASONS.get(reason, reason.value)
    if len(set(places)) == 1:
        return f"🤝 **Draw** by {why}."
    winner = places.index(min(places))
    return f"🏆 **{names[winner]} wins** ({why})."


def public_last_line(last: LastMove | None, names: Sequence[str]) -> str:
    """The arbiter's announcement of the latest action, without ranks."""
    if last is None:
        return ""
    who = names[last.seat]
    if last.kind == "move":
        if last.challenge is None:
            return f"{who} moved {last.src}-{last.dst}."
        return f"{who} challenged {last.dst} from {last.src}: {RULING[last.challenge]}."
    if last.kind == "ready":
        return f"{who} is ready."
    return {"resign": f"{who} resigned.", "timeout": f"{who} ran out of time.",
            "draw-agreed": "Draw agreed."}.get(last.kind, f"{who}: {last.kind}.")


# ----- a player's own board -------------------------------------------------------------------------------------
def private_embed(game: GameInfo, view: PlayerView, names: Sequence[str], text_board: str | None,
                  selected: str | None = None) -> discord.Embed:
    """A player's board: their ranks and deductions, their last ruling in their words, what to do now
    (`selected`: the square of the piece they picked, whose directions the controls show)."""
    seat = view.seat
    lines = [f"You are {SIDE_MARK[seat]} side {SIDE_NAMES[seat]} against {names[1 - seat]}."]
    if view.outcome is not None:
        lines.append(outcome_line(view.outcome.places, view.outcome.reason,
                                  ["You" if s == seat else names[s] for s in (0, 1)]).replace("You wins", "You win"))
        lines.append("Every piece is revealed.")
    elif view.phase == SETUP:
        lines += setup_lines(view)
        if selected is not None:
            what = next((f"your {p.rank.title}" for p in view.own if p.square == selected), "the empty square")
            lines.append(f"▶ {what} on {selected} is picked: choose the square to swap it with (pick it again to "
                         "let go).")
    elif view.to_move == seat and selected is not None:
        rank = next((p.rank.title for p in view.own if p.square == selected), "piece")
        lines.append(f"▶ **Your move** (move {view.ply + 1}): your {rank} on {selected} is chosen; press a "
                     "direction (⬆ is towards the enemy), or choose another piece.")
    elif view.to_move == seat:
        lines.append(f"▶ **Your move** (move {view.ply + 1}): choose a piece below (one with a single move goes "
                     "at once), or `/generals move`.")
    else:
        lines.append(f"Waiting for {names[1 - seat]} to move (move {view.ply + 1}).")
    last = private_last_line(view)
    if last and view.phase != SETUP:
        lines.append(f"Last: {last}")
    if view.challenge is not None and view.challenge != view.last and view.outcome is None:
        lines.append(f"Latest challenge (red on the board): {private_last_line(view, view.challenge)}")
    offer = game.draw_offer
    if offer is not None and view.outcome is None:
        lines.append("You offered a draw." if offer == seat else
                     "**Your opponent offers a draw**: press **Offer draw** to accept it, or just play on.")
    known = knowledge_lines(view)
    if known and view.outcome is None:
        lines.append("What you know: " + "; ".join(known))
    if view.phase == PLAY and view.to_move == seat and game.deadline is not None:
        lines.append(f"Your time runs out <t:{int(game.deadline)}:R>.")
    if view.phase == SETUP and not view.ready[seat] and game.deadline is not None:
        lines.append(f"Time to deploy runs out <t:{int(game.deadline)}:R>: an army not ready by then forfeits "
                     "(if neither is, the game is called off).")
    if text_board is not None:
        lines.append(f"```\n{text_board}\n```")
    embed = discord.Embed(title=f"Your army · Game of the Generals #{game.id}",
                          description="\n".join(lines)[:4096], colour=COLOUR)
    if text_board is None:
        embed.set_image(url=f"attachment://{IMAGE_NAME}")
    embed.set_footer(text=footer(game, view.settings.names(), view.lost))
    return embed


def setup_lines(view: PlayerView) -> list[str]:
    ranks = "1-3" if view.seat == 0 else "6-8"
    if view.ready[view.seat]:
        other = "ready too: play starts now" if all(view.ready) else "still deploying; play starts when they are ready"
        return [f"✅ Your setup is locked in. Your opponent is {other}."]
    lines = [f"**Deploy your army** on ranks {ranks}, in secret: nobody else sees this board."]
    if not view.own:
        lines.append("Start from a formation (the menu below), import a grid, or load one you saved.")
    else:
        lines.append("Swap squares with the menus (pick one, then the other), import or export the grid, save it "
                     "for later; press **Ready** when done.")
    return lines


def knowledge_lines(view: PlayerView) -> list[str]:
    """What the viewer has deduced about enemy pieces still on the board, by square (their own deductions)."""
    out = []
    for piece in view.enemy:
        if len(piece.possible) == 1:
            out.append(f"{piece.square} is a {next(iter(piece.possible)).title}")
        else:
            label = knowledge_label(piece.possible, view.settings, ascii_only=True)
            if label:
                out.append(f"{piece.square} {label}")
    return out


def private_last_line(view: PlayerView, action: LastMove | None = None) -> str:
    """The latest action (or `action`, the latest challenge) in the viewer's words: what they did, or what
    happened to their piece."""
    last = view.last if action is None else action
    if last is None:
        return ""
    mine = last.seat == view.seat
    if last.kind != "move":
        who = "You" if mine else "Your opponent"
        return {"resign": f"{who} resigned.", "timeout": f"{who} ran out of time.", "draw-agreed": "Draw agreed.",
                "ready": f"{who} locked in the setup."}.get(last.kind, "")
    yours = last.your_rank.title if last.your_rank is not None else None
    theirs = f" (it was a {last.their_rank.title})" if last.their_rank is not None else ""
    if mine:
        if last.challenge is None:
            return f"You moved your {yours} {last.src}-{last.dst}."
        result = {Result.ATTACKER: f"your {yours} won and took {last.dst}",
                  Result.DEFENDER: f"your {yours} lost{theirs}",
                  Result.BOTH: f"your {yours} and the defender were both eliminated"}[last.challenge]
        return f"You challenged {last.dst} from {last.src}: {result}."
    if last.challenge is None:
        return f"Your opponent moved {last.src}-{last.dst}."
    result = {Result.ATTACKER: f"it beat your {yours}{theirs}",
              Result.DEFENDER: f"your {yours} held and eliminated it",
              Result.BOTH: f"it and your {yours} were both eliminated"}[last.challenge]
    return f"Your opponent's piece from {last.src} challenged your {yours} on {last.dst}: {result}."


def mover_result(view: PlayerView) -> str:
    """What the player who just moved is told in answer to their click or command."""
    return private_last_line(view) or "Done."


def private_view(game: GameInfo, view: PlayerView, saved: Sequence[str],
                 selected: str | None = None) -> discord.ui.View | None:
    """The controls of a private board: setup tools, or the piece menu on the player's turn; with a piece
    `selected` (checked by `selectable_piece`), its direction buttons too, and the menu marks it."""
    if view.outcome is not None or game.status != "active":
        return None
    controls = discord.ui.View(timeout=None)
    if view.phase == SETUP:
        if view.ready[view.seat]:
            return None
        options = [discord.SelectOption(label=FORMATION_LABELS[name], value=f"f:{name}",
                                        description=FORMATION_HELP[name]) for name in FORMATIONS]
        options += [discord.SelectOption(label=f"Saved: {name}"[:100], value=f"s:{name}"[:100])
                    for name in saved[:24 - len(options)]]
        if saved:  # in the menu rather than a button: the square menus and the tools fill the other rows
            options.append(discord.SelectOption(label="Delete a saved formation…", value="d:", emoji="🗑"))
        controls.add_item(FormationSelect.of(game=game.id, options=options,
                                             placeholder="Deploy a formation or a saved setup…", row=0))
        if view.own:  # a draft to rearrange: one menu of squares per home rank, front rank first
            for row, menu in enumerate(square_menus(game.id, view, selected), start=1):
                menu.row = row
                controls.add_item(menu)
        for verb, label in (("import", "Import grid…"), ("export", "Export grid"), ("save", "Save formation…")):
            controls.add_item(GeneralsButton.of(game=game.id, verb=verb, label=label,
                                                style=discord.ButtonStyle.secondary, row=4))
        controls.add_item(GeneralsButton.of(game=game.id, verb="ready", label="Ready ✅",
                                            style=discord.ButtonStyle.success, row=4))
        return controls
    pieces = movable_pieces(view)
    if view.to_move == view.seat and pieces:
        options = [discord.SelectOption(label=f"{square} · {rank.title}", value=square, default=square == selected,
                                        description="to " + ", ".join(targets)[:90])
                   for square, rank, targets in pieces[:25]]
        controls.add_item(PieceSelect.of(game=game.id, ply=view.ply, options=options,
                                         placeholder="Move a piece…", row=0))
        if selected is not None:
            for button in direction_buttons(game.id, view, selected):
                controls.add_item(button)
    if game.draws_allowed:  # a computer player never agrees to a draw
        controls.add_item(GeneralsButton.of(game=game.id, verb="draw", label="Offer draw",
                                            style=discord.ButtonStyle.secondary, row=2))
    controls.add_item(GeneralsButton.of(game=game.id, verb="resign", label="Resign",
                                        style=discord.ButtonStyle.danger, row=2))
    return controls


def selectable_piece(view: PlayerView, square: str | None) -> str | None:
    """`square` if the player's pick there is still valid, else None: in play, one of their pieces that may move
    now; in setup, before Ready, one of their deployment squares (to swap)."""
    if square is None or view.outcome is not None:
        return None
    if view.phase == SETUP:
        return square if view.own and not view.ready[view.seat] and square in _home_names(view.seat) else None
    if view.phase != PLAY or view.to_move != view.seat:
        return None
    return square if any(text.startswith(f"{square}-") for text in view.legal) else None


def _home_names(seat: int) -> tuple[str, ...]:
    return tuple(square_name(square(f, r)) for r in home_ranks(seat) for f in range(WIDTH))


def square_menus(game_id: int, view: PlayerView, picked: str | None) -> list[SquareSelect]:
    """The setup's square menus, front rank first: a square is picked, then swapped with the next one chosen."""
    ranks = {p.square: p.rank for p in view.own}
    front_first = sorted(home_ranks(view.seat), reverse=view.seat == 0)
    menus = []
    for number, rank in enumerate(front_first):
        where = ("front", "middle", "back")[number]
        options = []
        for f in range(WIDTH):
            name = square_name(square(f, rank))
            held = ranks.get(name)
            label = f"{name} · {held.title if held is not None else 'empty'}"
            if picked is None:
                value, description = f"pick:{name}", None
            elif name == picked:
                value, description = f"drop:{name}", "picked: choose it again to let go"
            else:
                value, description = f"swap:{picked}-{name}", f"swap with {picked}"
            # Not marked as the default: Discord sends nothing when the selected option is chosen again.
            options.append(discord.SelectOption(label=label, value=value, description=description))
        placeholder = (f"Rank {rank} ({where}): pick a square to swap…" if picked is None
                       else f"Rank {rank} ({where}): swap {picked} with…")
        menus.append(SquareSelect.of(game=game_id, rank=str(rank), options=options, placeholder=placeholder))
    return menus


def direction_buttons(game_id: int, view: PlayerView, square: str) -> list[GeneralsMoveButton]:
    """One button per legal step of the piece on `square`, labelled from the player's side of the board."""
    enemy = {piece.square for piece in view.enemy}
    moves = [text for text in view.legal if text.startswith(f"{square}-")]
    buttons = []
    for text in sorted(moves, key=lambda t: "⬅⬆⬇➡".index(direction_arrow(view.seat, square, t.partition("-")[2]))):
        dst = text.partition("-")[2]
        label = f"{direction_arrow(view.seat, square, dst)} {dst}" + (" ⚔ challenge" if dst in enemy else "")
        buttons.append(GeneralsMoveButton.of(
            game=game_id, ply=view.ply, move=text, label=label, row=1,
            style=discord.ButtonStyle.danger if dst in enemy else discord.ButtonStyle.primary))
    return buttons


def direction_arrow(seat: int, src: str, dst: str) -> str:
    """↑ is always towards the enemy, as the player sees their board."""
    a, b = parse_square(src), parse_square(dst)
    assert a is not None and b is not None
    forward = rank_of(b) - rank_of(a)
    sideways = (b % WIDTH) - (a % WIDTH)
    if seat == 1:
        forward, sideways = -forward, -sideways
    if forward:
        return "⬆" if forward > 0 else "⬇"
    return "➡" if sideways > 0 else "⬅"


def movable_pieces(view: PlayerView) -> list[tuple[str, Rank, list[str]]]:
    """(square, rank, target squares) of the viewer's pieces that have a legal move now."""
    targets: dict[str, list[str]] = {}
    for text in view.legal:
        src, sep, dst = text.partition("-")
        if sep and parse_square(src) is not None and parse_square(dst) is not None:
            targets.setdefault(src, []).append(dst)
    ranks = {piece.square: piece.rank for piece in view.own}
    return [(square, ranks[square], targets[square]) for square in sorted(targets, key=_square_order)
            if square in ranks]


def _square_order(name: str) -> int:
    sq = parse_square(name)
    return -1 if sq is None else sq


def export_text(grid_text: str, compact_text: str) -> str:
    return (f"Your setup as a grid (edit it and use **Import grid…**, or keep it):\n```\n{grid_text}\n```\n"
            f"One line: `{compact_text}`")


def board_rows_hint(seat: int) -> str:
    ranks = "3, 2, 1" if seat == 0 else "8, 7, 6"
    return (f"Three lines, ranks {ranks} (a label like `3 |` is optional), nine cells each for files "
            f"{' '.join(FILES)}: {', '.join(ABBREVIATIONS[r] for r in sorted(Rank, reverse=True))}, or `.` for empty.")
