"""How a Game of the Generals game looks in Discord, built only from views (never from the omniscient state).

- The channel message (here) shows the public view: squares without ranks, the arbiter's rulings, whose turn.
- Each player's private board (own_board.py: a DM the bot keeps up to date, or the ephemeral "My board") shows
  their view: their own ranks, what they have deduced about enemy pieces, and the controls for setup or play.

Every function takes a `PublicView` or the viewer's own `PlayerView` (and the game's public facts, `GameInfo`), so
what reaches a player can only depend on what that player may know. Each writes in the language of its reader
(`say`): the channel's board in the server's, a player's board in that player's.
"""

from __future__ import annotations

from collections.abc import Sequence

import discord

from bot.components import persistent_controls
from bot.drawn import IMAGE_NAME, drawn_key
from bot.games.generals.components import (
    AcceptButton,
    DeclineButton,
    DrawButton,
    MyBoardButton,
    RanksButton,
    ResignButton,
)
from bot.games.generals.words import RULING, SIDE_NAMES, reason_words
from bot.i18n import Say
from bot.lobby import per_turn
from bot.private_boards import own_seat
from bot.service import REMATCH_OF, GameInfo, Result
from bot.words import challenge_sides, closed_challenge_line, decliner
from games.base import EndReason
from games.generals.views import PLAY, SETUP, LastMove, PlayerView, PublicView
from games.text import Text, TextIn

GeneralsResult = Result[PublicView, PlayerView]

COLOUR = discord.Colour.from_rgb(46, 125, 50)
SIDE_MARK = ("⚪", "⚫")
OFFER_DRAW = TextIn("button", "Offer draw")
ACCEPT_DRAW = TextIn("button", "Accept draw")  # the button, which the lines of a draw offer name


def draw_label(game: GameInfo, viewer: int | None) -> Text:
    """The draw button: Accept draw while an offer waits for an answer (on the channel's board, which both players
    use, and on the board of the one it was made to), else Offer draw."""
    return ACCEPT_DRAW if game.draw_offer is not None and game.draw_offer != viewer else OFFER_DRAW

def settings_lines(names: Sequence[str]) -> list[Text | str]:
    """The settings a game plays by, as the challenge shows them (nothing for standard rules)."""
    return [Text("Settings: {names}", names=", ".join(f"`{n}`" for n in names))] if names else []


# ----- the channel ---------------------------------------------------------------------------------------------
def challenge_embed(game: GameInfo, names: Sequence[Text | str], settings_names: Sequence[str], say: Say,
                    declined_by: int | None = None) -> discord.Embed:
    """The challenge while it waits for an answer, or why it closed (`declined_by`: the seat that called it off,
    when known)."""
    title = say(Text("Game of the Generals #{number}", number=game.id))
    sender, receiver = challenge_sides(game.options)
    challenger, opponent = names[sender], names[receiver]
    rematch = REMATCH_OF in game.options
    if game.status != "pending":
        lines = [say(Text("{challenger} asked {opponent} for a rematch of Game of the Generals.",
                          challenger=challenger, opponent=opponent) if rematch else
                     Text("{challenger} challenged {opponent} to Game of the Generals.", challenger=challenger,
                          opponent=opponent)),
                 say(closed_challenge_line(game.status, challenger, opponent, decliner(declined_by, sender)))]
        return discord.Embed(title=title, description="\n".join(lines), colour=COLOUR)
    time = per_turn(game.kind, game.turn_timeout)
    lines = [say(Text("{challenger} asks {opponent} for a rematch of Game of the Generals ({time}).",
                      challenger=challenger, opponent=opponent, time=time) if rematch else
                 Text("{challenger} challenges {opponent} to Game of the Generals ({time}).", challenger=challenger,
                      opponent=opponent, time=time)),
             *(say(line) for line in settings_lines(settings_names)),
             say(Text("Each player sets up their army in secret by DM; I am the arbiter and announce every challenge "
                      "without naming ranks."))]
    if game.deadline is not None:
        lines.append(say(Text("The challenge expires <t:{deadline}:R>.", deadline=int(game.deadline))))
    return discord.Embed(title=title, description="\n".join(lines), colour=COLOUR)


def challenge_controls(game_id: int, say: Say) -> discord.ui.View:
    return persistent_controls(
        AcceptButton.of(game=game_id, label=say(TextIn("button", "Accept")), style=discord.ButtonStyle.success),
        DeclineButton.of(game=game_id, label=say(TextIn("button", "Decline")), style=discord.ButtonStyle.danger))


def channel_content(game_id: int, names: Sequence[Text | str], say: Say) -> str:
    return say(Text("Game of the Generals #{number}: {white} {a} vs {black} {b}", number=game_id,
                    white=SIDE_MARK[0], a=names[0], black=SIDE_MARK[1], b=names[1]))


def channel_embed(game: GameInfo, view: PublicView, names: Sequence[Text | str], text_board: str | None, say: Say, *,
                  how_to_play: bool = True) -> discord.Embed:
    """The public board: `text_board` is the monospace fallback; None means the picture is attached. Without
    `how_to_play` (a replay: a past position), the lines on how to set up and play now are left out."""
    lines = [say(Text("{mark} Side {side}: {name}", mark=SIDE_MARK[s], side=SIDE_NAMES[s], name=names[s]))
             for s in (0, 1)]
    lines.append("")
    if view.outcome is not None:
        lines.append(say(outcome_line(view.outcome.places, view.outcome.reason, names)))
        lines.append(say(Text("Both armies are revealed.")))
    elif view.phase == SETUP:
        marks = [Text("{name} is ready ✅", name=names[s]) if view.ready[s] else Text("{name} is deploying",
                                                                                        name=names[s]) for s in (0, 1)]
        lines.append(say(Text("**Setup**: {first}, {second}.", first=marks[0], second=marks[1])))
        if how_to_play:
            lines.append(say(Text("Each player deploys in secret: in my DM, or with **My board** below.")))
    else:
        assert view.to_move is not None
        lines.append(say(Text("▶ {name} to move (move {number}).", name=names[view.to_move], number=view.ply + 1)))
    last = public_last_line(view.last, names)
    if last and view.phase != SETUP:
        lines.append(say(Text("Last: {last}", last=last)))
    if view.challenge is not None and view.challenge != view.last and view.outcome is None:
        lines.append(say(Text("Latest challenge (red on the board): {challenge}",
                              challenge=public_last_line(view.challenge, names))))
    if game.draw_offer is not None and view.outcome is None:
        lines.append(say(Text("🤝 {player} offers a draw: the other player can accept with **{accept}** or just "
                              "play on.", player=names[game.draw_offer], accept=ACCEPT_DRAW)))
    elif game.draw_declined is not None and view.outcome is None:
        lines.append(say(Text("✋ {player} played on: the draw {offerer} offered is declined.",
                              player=names[1 - game.draw_declined], offerer=names[game.draw_declined])))
    if game.deadline is not None and view.outcome is None:
        # The secret setup has one deadline for both armies; in play, each turn has its own.
        deadline = int(game.deadline)
        lines.append(say(Text("Time to deploy runs out <t:{deadline}:R>.", deadline=deadline) if view.phase == SETUP
                         else Text("Time for this turn runs out <t:{deadline}:R>.", deadline=deadline)))
    if view.outcome is None and view.phase == PLAY and how_to_play:
        lines.append(say(Text("Play with the controls on your board (DM or **My board**), or `/generals move`.")))
    return board_embed(say(Text("Game of the Generals #{number}", number=game.id)), lines, text_board, game, view, say)


def board_embed(title: str, lines: list[str], text_board: str | None, game: GameInfo, view: PublicView | PlayerView,
                say: Say) -> discord.Embed:
    """A board's embed, the channel's or a player's: `lines`, then `text_board` (its grid in a code block, its words as
    prose) or, when None, the attached picture; the footer names the settings and the pieces lost."""
    if text_board is not None:
        lines = [*lines, text_board]
    embed = discord.Embed(title=title, description="\n".join(lines)[:4096], colour=COLOUR)
    if text_board is None:
        embed.set_image(url=f"attachment://{IMAGE_NAME}")
    embed.set_footer(text=say(footer(game, view.settings.names(), view.lost)))
    return embed


def channel_controls(game: GameInfo, view: PublicView, say: Say) -> discord.ui.View | None:
    if view.outcome is not None or game.status != "active":
        return None
    buttons = discord.ui.View(timeout=None)
    buttons.add_item(MyBoardButton.of(game=game.id, label=say(TextIn("button", "My board")),
                                      style=discord.ButtonStyle.primary))
    if view.phase == PLAY and game.draws_allowed:  # a computer player never agrees to a draw
        buttons.add_item(DrawButton.of(game=game.id, label=say(draw_label(game, None)),
                                       style=discord.ButtonStyle.secondary))
    buttons.add_item(ResignButton.of(game=game.id, label=say(TextIn("button", "Resign")),
                                     style=discord.ButtonStyle.danger))
    buttons.add_item(ranks_button(game.id, say))
    return buttons


def ranks_button(game_id: int, say: Say, row: int | None = None) -> RanksButton:
    """The legend: every rank's insignia with its name, and the board's colours, shown privately to whoever asks."""
    return RanksButton.of(game=game_id, label=say(TextIn("button", "Ranks")), emoji="🎖",
                          style=discord.ButtonStyle.secondary, row=row)


def footer(game: GameInfo, settings_names: Sequence[str], lost: tuple[int, int]) -> Text:
    rules: Text | str = ", ".join(settings_names) or Text("standard rules")
    return Text("{rules} · pieces lost: {a} {lost_a}, {b} {lost_b} · {time}", rules=rules, a=SIDE_NAMES[0],
                lost_a=lost[0], b=SIDE_NAMES[1], lost_b=lost[1], time=per_turn(game.kind, game.turn_timeout))


def outcome_line(places: Sequence[int], reason: EndReason, names: Sequence[Text | str],
                 viewer: int | None = None) -> Text:
    """How the game ended; told to the player `viewer`, their own win reads "You win"."""
    why = reason_words(reason)
    if len(set(places)) == 1:
        return Text("🤝 **Draw** by {why}.", why=why)
    winner = places.index(min(places))
    if winner == viewer:
        return Text("🏆 **You win** ({why}).", why=why)
    return Text("🏆 **{name} wins** ({why}).", name=names[winner], why=why)


def public_last_line(last: LastMove | None, names: Sequence[Text | str]) -> Text | None:
    """The arbiter's announcement of the latest action, without ranks."""
    if last is None:
        return None
    who = names[last.seat]
    if last.kind == "move":
        if last.challenge is None:
            return Text("{name} moved {move}.", name=who, move=f"{last.src}-{last.dst}")
        return Text("{name} challenged {square} from {origin}: {ruling}.", name=who, square=last.dst,
                    origin=last.src, ruling=RULING[last.challenge])
    if last.kind == "ready":
        return Text("{name} is ready.", name=who)
    if last.kind == "resign":
        return Text("{name} resigned.", name=who)
    if last.kind == "timeout":
        return Text("{name} ran out of time.", name=who)
    if last.kind == "draw-agreed":
        return Text("Draw agreed.")
    return Text("{name}: {action}.", name=who, action=last.kind)


def channel_key(game: GameInfo, view: PublicView, images: bool, *, language: str) -> str:
    """What the channel board is drawn from (in the server's `language`): the same key means the same message."""
    return drawn_key(view.to_dict(), game.status, game.deadline, game.draw_offer, game.draw_declined, images, language)


# ----- a player's own seat -------------------------------------------------------------------------------------
def own_view(result: GeneralsResult, user_id: int) -> PlayerView:
    """The user's own view of this game; refuses someone who does not play in it."""
    return own_seat(result, user_id).view
