"""A player's own board of Game of the Generals: the embed, the setup and play controls, and the words of the
forms, built only from that player's `PlayerView` (and the game's public facts, `GameInfo`), in that player's
language (`say`), and the whole message (`own_board`: no I/O). The bot DMs it, or shows it ephemerally as My board
(bot/private_boards.py, which every game with private boards shares); the channel's board is board.py's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import discord

from bot.drawn import Board, drawn_key
from bot.games.generals.board import (
    ACCEPT_DRAW,
    SIDE_MARK,
    GeneralsResult,
    board_embed,
    draw_label,
    outcome_line,
    ranks_button,
)
from bot.games.generals.components import (
    DrawButton,
    ExportButton,
    FormationSelect,
    GeneralsMoveButton,
    ImportFormButton,
    PieceSelect,
    ReadyButton,
    ResignButton,
    SaveFormButton,
    SendByDmButton,
    SquareSelect,
)
from bot.games.generals.pictures import picture
from bot.games.generals.words import SIDE_NAMES, deduction_words
from bot.i18n import Say
from bot.private_boards import PICKED, OwnBoard, Where, live_line
from bot.service import GameInfo, OwnView
from games.generals.pieces import ABBREVIATIONS, Rank, Result
from games.generals.setup import FORMATIONS
from games.generals.squares import FILES, WIDTH, home_ranks, parse_square, rank_of, square, square_name
from games.generals.views import PLAY, SETUP, LastMove, PlayerView
from games.text import Text, TextIn, one_line

FORMATION_LABELS = {"balanced": TextIn("formation", "Balanced"), "flag-fortress": TextIn("formation", "Flag fortress"),
                    "blitz": TextIn("formation", "Blitz"), "random": TextIn("formation", "Random deployment")}
FORMATION_HELP = {"balanced": Text("Strength spread along the front, Flag guarded at the back"),
                  "flag-fortress": Text("The Flag deep in a corner behind its strongest guards"),
                  "blitz": Text("Generals up front to strike early"), "random": Text("Every piece on a random square")}


def private_embed(game: GameInfo, view: PlayerView, names: Sequence[Text | str], text_board: str | None, say: Say,
                  selected: str | None = None) -> discord.Embed:
    """A player's board: their ranks and deductions, their last ruling in their words, what to do now
    (`selected`: the square of the piece they picked, whose directions the controls show)."""
    seat = view.seat
    lines = [say(Text("You are {mark} side {side} against {opponent}.", mark=SIDE_MARK[seat], side=SIDE_NAMES[seat],
                      opponent=names[1 - seat]))]
    if view.outcome is not None:
        lines.append(say(outcome_line(view.outcome.places, view.outcome.reason, names, viewer=seat)))
        lines.append(say(Text("Both armies are revealed.")))
    elif view.phase == SETUP:
        lines += [say(line) for line in setup_lines(view)]
        if selected is not None:
            rank = next((p.rank for p in view.own if p.square == selected), None)
            lines.append(say(
                Text("▶ the empty square on {square} is picked: choose the square to swap it with (pick it again to "
                     "let go).", square=selected) if rank is None else
                Text("▶ your {rank} on {square} is picked: choose the square to swap it with (pick it again to let "
                     "go).", rank=rank.title, square=selected)))
    elif view.to_move == seat and selected is not None:
        chosen = next((p.rank.title for p in view.own if p.square == selected), TextIn("piece", "piece"))
        lines.append(say(Text("▶ **Your move** (move {number}): your {rank} on {square} is chosen; press a direction "
                              "(⬆ is towards the enemy), or choose another piece.", number=view.ply + 1, rank=chosen,
                              square=selected)))
    elif view.to_move == seat:
        lines.append(say(Text("▶ **Your move** (move {number}): choose a piece below, then its direction, or "
                              "`/generals move`.", number=view.ply + 1)))
    else:
        lines.append(say(Text("Waiting for {opponent} to move (move {number}).", opponent=names[1 - seat],
                              number=view.ply + 1)))
    last = private_last_line(view)
    if last and view.phase != SETUP:
        lines.append(say(Text("Last: {last}", last=last)))
    if view.challenge is not None and view.challenge != view.last and view.outcome is None:
        lines.append(say(Text("Latest challenge (red on the board): {challenge}",
                              challenge=private_last_line(view, view.challenge) or "")))
    offer, declined = game.draw_offer, game.draw_declined
    if offer is not None and view.outcome is None:
        lines.append(say(Text("🤝 You offered a draw: your opponent can accept it, or decline it by playing on.")
                         if offer == seat else
                         Text("🤝 **Your opponent offers a draw**: press **{accept}** to accept it, or just play on.",
                              accept=ACCEPT_DRAW)))
    elif declined is not None and view.outcome is None:
        lines.append(say(Text("✋ Your opponent played on: your draw offer is declined.") if declined == seat else
                         Text("✋ You played on: the draw your opponent offered is declined.")))
    known = knowledge_lines(view, say)
    if known and view.outcome is None:
        lines.append(say(Text("What you know: {facts}", facts="; ".join(known))))
    if view.phase == PLAY and view.to_move == seat and game.deadline is not None:
        lines.append(say(Text("Your time runs out <t:{deadline}:R>.", deadline=int(game.deadline))))
    if view.phase == SETUP and not view.ready[seat] and game.deadline is not None:
        lines.append(say(Text("Time to deploy runs out <t:{deadline}:R>: an army not ready by then forfeits (if "
                              "neither is, the game is called off).", deadline=int(game.deadline))))
    return board_embed(say(Text("Your army · Game of the Generals #{number}", number=game.id)), lines, text_board,
                       game, view, say)


def setup_lines(view: PlayerView) -> list[Text]:
    if view.ready[view.seat]:
        if all(view.ready):
            return [Text("✅ Your setup is locked in. Your opponent is ready too: play starts now.")]
        return [Text("✅ Your setup is locked in. Your opponent is still deploying; play starts when they are ready.")]
    lines = [Text("**Deploy your army** on ranks {ranks}, in secret: nobody else sees this board.",
                  ranks="1-3" if view.seat == 0 else "6-8")]
    if not view.own:
        lines.append(Text("Start from a formation (the menu below), import a grid, or load one you saved."))
    else:
        lines.append(Text("Swap squares with the menus (pick one, then the other), import or export the grid, save it "
                          "for later; press **Ready** when done."))
    return lines


def knowledge_lines(view: PlayerView, say: Say) -> list[str]:
    """What the viewer has deduced about enemy pieces still on the board, by square (their own deductions)."""
    out = []
    for piece in view.enemy:
        if len(piece.possible) == 1:
            out.append(say(Text("{square} is a {rank}", square=piece.square, rank=next(iter(piece.possible)).title)))
        else:
            words = deduction_words(piece.possible, view.settings)
            if words is not None:
                out.append(say(Text("{square}: {deduction}", square=piece.square, deduction=words)))
    return out


def private_last_line(view: PlayerView, action: LastMove | None = None) -> Text | None:
    """The latest action (or `action`, the latest challenge) in the viewer's words: what they did, or what
    happened to their piece."""
    last = view.last if action is None else action
    if last is None:
        return None
    mine = last.seat == view.seat
    if last.kind != "move":
        return (_own_action(last.kind) if mine else _their_action(last.kind)) if last.kind != "draw-agreed" \
            else Text("Draw agreed.")
    yours: Text | str = last.your_rank.title if last.your_rank is not None else TextIn("piece", "piece")
    theirs = last.their_rank.title if last.their_rank is not None else None
    move = f"{last.src}-{last.dst}"
    if mine:
        if last.challenge is None:
            return Text("You moved your {rank} {move}.", rank=yours, move=move)
        result = {Result.ATTACKER: Text("your {rank} won and took {square}", rank=yours, square=last.dst),
                  Result.DEFENDER: Text("your {rank} lost", rank=yours) if theirs is None else
                  Text("your {rank} lost (it was a {other})", rank=yours, other=theirs),
                  Result.BOTH: Text("your {rank} and the defender were both eliminated", rank=yours)}[last.challenge]
        return Text("You challenged {square} from {origin}: {result}.", square=last.dst, origin=last.src,
                    result=result)
    if last.challenge is None:
        return Text("Your opponent moved {move}.", move=move)
    result = {Result.ATTACKER: Text("it won") if theirs is None else
              Text("it won (it was a {other})", other=theirs),
              Result.DEFENDER: Text("your {rank} held and eliminated it", rank=yours),
              Result.BOTH: Text("it and your {rank} were both eliminated", rank=yours)}[last.challenge]
    return Text("Your opponent's piece from {origin} challenged your {rank} on {square}: {result}.",
                origin=last.src, rank=yours, square=last.dst, result=result)


def _own_action(kind: str) -> Text | None:
    return {"resign": Text("You resigned."), "timeout": Text("You ran out of time."),
            "ready": Text("You locked in the setup.")}.get(kind)


def _their_action(kind: str) -> Text | None:
    return {"resign": Text("Your opponent resigned."), "timeout": Text("Your opponent ran out of time."),
            "ready": Text("Your opponent locked in the setup.")}.get(kind)


def mover_result(view: PlayerView) -> Text:
    """What the player who just moved is told in answer to their click or command."""
    return private_last_line(view) or Text("Done.")


def private_controls(game: GameInfo, view: PlayerView, saved: Sequence[str], say: Say,
                 selected: str | None = None, *, room_for_dm: bool = False) -> discord.ui.View | None:
    """The controls of a private board: setup tools, or the piece menu on the player's turn; with a piece
    `selected` (checked by `selectable_piece`), its direction buttons too, and the menu marks it; and Ranks, the
    legend. `room_for_dm`: a Send-by-DM button joins the last row, so in setup Ranks makes room for it (the
    channel's board has Ranks too)."""
    if view.outcome is not None or game.status != "active":
        return None
    controls = discord.ui.View(timeout=None)
    if view.phase == SETUP:
        if view.ready[view.seat]:
            return None
        options = [discord.SelectOption(label=say(FORMATION_LABELS[name]), value=f"f:{name}",
                                        description=say(FORMATION_HELP[name])) for name in FORMATIONS]
        options += [discord.SelectOption(label=say(Text("Saved: {name}", name=one_line(name)))[:100],
                                         value=f"s:{name}"[:100]) for name in saved[:24 - len(options)]]
        if saved:  # in the menu rather than a button: the square menus and the tools fill the other rows
            options.append(discord.SelectOption(label=say(Text("Delete a saved formation…")), value="d:", emoji="🗑"))
        controls.add_item(FormationSelect.of(game=game.id, options=options,
                                             placeholder=say(Text("Deploy a formation or a saved setup…")), row=0))
        if view.own:  # a draft to rearrange: one menu of squares per home rank, front rank first
            for row, menu in enumerate(square_menus(game.id, view, selected, say), start=1):
                menu.row = row
                controls.add_item(menu)
        tools = ((ImportFormButton, TextIn("button", "Import grid…")), (ExportButton, TextIn("button", "Export grid")),
                 (SaveFormButton, TextIn("button", "Save formation…")))
        for tool, label in tools:
            controls.add_item(tool.of(game=game.id, label=say(label), style=discord.ButtonStyle.secondary, row=4))
        controls.add_item(ReadyButton.of(game=game.id, label=say(TextIn("button", "Ready ✅")),
                                         style=discord.ButtonStyle.success, row=4))
        if not room_for_dm:
            controls.add_item(ranks_button(game.id, say, row=4))
        return controls
    pieces = movable_pieces(view)
    if view.to_move == view.seat and pieces:
        options = [discord.SelectOption(label=f"{square} · {say(rank.title)}", value=square,
                                        default=square == selected,
                                        description=say(Text("to {squares}", squares=", ".join(targets)))[:90])
                   for square, rank, targets in pieces[:25]]
        controls.add_item(PieceSelect.of(game=game.id, ply=view.ply, options=options,
                                         placeholder=say(Text("Move a piece…")), row=0))
        if selected is not None:
            for button in direction_buttons(game.id, view, selected, say):
                controls.add_item(button)
    if game.draws_allowed:  # a computer player never agrees to a draw
        controls.add_item(DrawButton.of(game=game.id, label=say(draw_label(game, view.seat)),
                                        style=discord.ButtonStyle.secondary, row=2))
    controls.add_item(ResignButton.of(game=game.id, label=say(TextIn("button", "Resign")),
                                      style=discord.ButtonStyle.danger, row=2))
    controls.add_item(ranks_button(game.id, say, row=2))
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


EMPTY = TextIn("square", "empty")  # a square of the setup menus with no piece on it


def square_menus(game_id: int, view: PlayerView, picked: str | None, say: Say) -> list[SquareSelect]:
    """The setup's square menus, front rank first: a square is picked, then swapped with the next one chosen."""
    ranks = {p.square: p.rank for p in view.own}
    front_first = sorted(home_ranks(view.seat), reverse=view.seat == 0)
    menus = []
    for number, rank in enumerate(front_first):
        where = (TextIn("home rank", "front"), TextIn("home rank", "middle"), TextIn("home rank", "back"))[number]
        options = []
        for f in range(WIDTH):
            name = square_name(square(f, rank))
            held = ranks.get(name)
            label = f"{name} · {say(held.title if held is not None else EMPTY)}"
            if picked is None:
                value, description = f"pick:{name}", None
            elif name == picked:
                value, description = f"drop:{name}", say(Text("picked: choose it again to let go"))
            else:
                value, description = f"swap:{picked}-{name}", say(Text("swap with {square}", square=picked))
            # Not marked as the default: Discord sends nothing when the selected option is chosen again.
            options.append(discord.SelectOption(label=label, value=value, description=description))
        placeholder = say(Text("Rank {rank} ({where}): pick a square to swap…", rank=rank, where=where)
                          if picked is None else
                          Text("Rank {rank} ({where}): swap {square} with…", rank=rank, where=where, square=picked))
        menus.append(SquareSelect.of(game=game_id, rank=str(rank), options=options, placeholder=placeholder))
    return menus


def direction_buttons(game_id: int, view: PlayerView, square: str, say: Say) -> list[GeneralsMoveButton]:
    """One button per legal step of the piece on `square`, labelled from the player's side of the board."""
    enemy = {piece.square for piece in view.enemy}
    moves = [text for text in view.legal if text.startswith(f"{square}-")]
    buttons = []
    for text in sorted(moves, key=lambda t: "⬅⬆⬇➡".index(direction_arrow(view.seat, square, t.partition("-")[2]))):
        dst = text.partition("-")[2]
        arrow = direction_arrow(view.seat, square, dst)
        label = say(Text("{arrow} {square} ⚔ challenge", arrow=arrow, square=dst)) if dst in enemy else f"{arrow} {dst}"
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


def export_text(grid_text: str, compact_text: str) -> Text:
    return Text("Your setup as a grid (edit it and use **Import grid…**, or keep it):\n```\n{grid}\n```\n"
                "One line: `{line}`", grid=grid_text, line=compact_text)


def setup_rows_hint(seat: int) -> Text:
    """How to type the three rows of `seat`'s setup in the setup form (its ranks, the files, the pieces)."""
    return Text("Three lines, ranks {ranks} (a label like `3 |` is optional), nine cells each for files {files}: "
                "{pieces}, or `.` for empty.", ranks="3, 2, 1" if seat == 0 else "8, 7, 6", files=" ".join(FILES),
                pieces=", ".join(ABBREVIATIONS[r] for r in sorted(Rank, reverse=True)))


# ----- the whole board, as the bot delivers it (bot/private_boards.py) ----------------------------------------------
@dataclass(frozen=True)
class OwnInputs:
    """What a player's board is drawn from besides their own view."""

    saved: list[str]  # their saved formations (offered by the setup controls)
    images: bool  # the server shows pictures
    names: Sequence[Text | str]  # how the seats are named


def private_key(game: GameInfo, view: PlayerView, saved: list[str], images: bool, offer_dm: bool,
                live_until: float | None = None, *, language: str) -> str:
    """What a private board without a pick is drawn from (in its reader's `language`): the same key means the same
    message. (With a pick: this key, `PICKED` and the pick.)"""
    return drawn_key(view.to_dict(), game.status, game.deadline, game.draw_offer, game.draw_declined, saved, images,
                     offer_dm, live_until, language)


def dm_line(game_id: int) -> Text:
    """The words above a DM board."""
    return Text("Game of the Generals #{number}: your board. I keep it up to date here.", number=game_id)


def own_board(result: GeneralsResult, own: OwnView[PlayerView], inputs: OwnInputs, where: Where) -> OwnBoard:
    """`own`'s board, in their language (`where.say`): their embed, their controls and their picture, and the words
    above it in a DM; `where.selected` is the square of the piece they chose (dropped if it can no longer move)."""
    game, view, say = result.game, own.view, where.say
    selected = selectable_piece(view, where.selected)
    key = private_key(game, view, inputs.saved, inputs.images, where.offer_dm, where.live_until,
                      language=say.language)
    key = key if selected is None else f"{key}{PICKED}{selected}"

    async def draw() -> Board:
        image, text = await picture(view, inputs.images, selected=selected, language=say.language)
        controls = private_controls(game, view, inputs.saved, say, selected, room_for_dm=where.offer_dm)
        if where.offer_dm and game.status == "active" and view.outcome is None:
            controls = controls or discord.ui.View(timeout=None)
            controls.add_item(SendByDmButton.of(game=game.id, label=say(TextIn("button", "Send my board by DM")),
                                                style=discord.ButtonStyle.secondary, row=4))
        embed = private_embed(game, view, inputs.names, text, say, selected)
        if where.live_until is not None and game.status == "active" and view.outcome is None:
            embed.description = f"{embed.description or ''}\n{say(live_line(where.live_until))}".strip()
        return Board(say(dm_line(game.id)) if where.dm else None, embed, controls, image, key)

    return OwnBoard(key, draw)
