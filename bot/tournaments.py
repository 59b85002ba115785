"""How a tournament looks in Discord: its announcement (with its buttons), its standings, a round's pairings and the
final podium. Drawn only from what the service returns (`TournamentInfo`), in the server's language (`say`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import discord

from bot.components import Button, CustomId, UserSelect
from bot.i18n import Say
from bot.lobby import finishing_required, per_turn
from bot.service.tournaments import Pairing, TournamentInfo
from bot.words import duration
from games.registry import describe
from games.text import Plural, Text, TextIn, versus
from games.tournaments.model import Format
from games.tournaments.standings import Standing
from games.tournaments.texts import (
    WITHDRAWN,
    bye,
    draw_rule,
    format_explanation,
    format_name,
    place_points,
    tiebreak_name,
)

COLOUR = discord.Colour.from_rgb(241, 196, 15)
TOURNAMENT = r"[0-9]{1,18}"
MEDALS = ("🥇", "🥈", "🥉")


def _points(value: float) -> str:
    return f"{value:g}"


def points_text(value: float) -> Text:
    """"1 point", "2 points", or a score with a half (a draw scores 1/2): "2.5 points"."""
    if value == int(value):
        return Plural("{count} point", "{count} points", int(value))
    return Text("{points} points", points=_points(value))  # a fraction: "2.5 points"


def _title(info: TournamentInfo) -> Text:
    return Text("Tournament #{number}: {game}", number=info.id, game=describe(info.kind).title)


def round_title(info: TournamentInfo) -> Text:
    """The tournament as a round's thread is named after it ("… · Round 2")."""
    return _title(info)


def _status(info: TournamentInfo) -> Text:
    if info.status == "open" and info.start_missed is not None and len(info.players) >= info.min_players:
        return Text("Open for entries: click **Join** to play. It did not start at its start time: the organiser can "
                    "**Start** it, or **Cancel** it.")
    if info.status == "open" and info.start_missed is not None:
        return Text("Open for entries: click **Join** to play. Its start time came before enough players had joined "
                    "({least} needed): the organiser can **Start** it once enough have joined, or **Cancel** it.",
                    least=info.min_players)
    if info.status == "open" and info.starts_at is not None:
        return Text("Open for entries: click **Join** to play. It starts by itself <t:{time}:R>, or sooner if the "
                    "organiser starts it.", time=int(info.starts_at))
    if info.status == "open":
        return Text("Open for entries: click **Join** to play. The organiser starts it.")
    if info.status == "running":
        current = len(info.rounds)
        return Text("Under way: round {number} of {total}.", number=current, total=info.total_rounds)
    if info.status == "paused":
        return Text("Paused by the organiser: no new round starts until it resumes.")
    if info.status == "cancelled":
        return Text("The organiser cancelled this tournament.")
    return Text("Finished.")


def announcement_embed(info: TournamentInfo, rules: Sequence[Text | str], say: Say) -> discord.Embed:
    """The tournament as its channel sees it: how it is played (its game's `rules`, as a lobby shows them, and its
    format), when it starts, who entered, and where it stands."""
    settings = info.settings
    lines = [*(say(rule) for rule in rules), "", say(Text("**Format:** {format}", format=format_name(settings.format))),
             say(format_explanation(settings.format))]
    if settings.format in (Format.SWISS, Format.TABLES):
        lines.append(say(Plural("{count} round.", "{count} rounds.", settings.rounds)))
    if settings.format is Format.ROUND_ROBIN and settings.double:
        lines.append(say(Text("Double round robin: everyone meets everyone twice.")))
    if settings.format is Format.KNOCKOUT:
        lines.append(say(draw_rule(settings.draw_rule)))
    if settings.format is Format.TABLES:
        lines.append(say(Text("{points} at a table of 4 (of 3: {three}; of 5: {five}).",
                              points=place_points(dict(settings.place_points)[4]),
                              three=" / ".join(f"{p:g}" for p in dict(settings.place_points)[3]),
                              five=" / ".join(f"{p:g}" for p in dict(settings.place_points)[5]))))
    if settings.format is Format.TABLES and settings.fillers:
        lines.append(say(Text("Computer players may fill a short table.")))
    lines.append(say(Text("Ties are broken by: {tiebreaks}.",
                          tiebreaks=", ".join(say(tiebreak_name(t)) for t in settings.tiebreaks))))
    if info.turn_timeout is not None:
        lines.append(say(Text("{time}.", time=per_turn(info.kind, info.turn_timeout))))
    if info.round_time is not None:
        rule = (Text("unfinished games are drawn") if info.deadline_rule == "draw"
                else Text("the player to move loses an unfinished game"))
        lines.append(say(Text("Each round lasts at most {time}; then {rule}.", time=duration(info.round_time),
                              rule=rule)))
    lines.append(say(Text("Rated.") if info.rated else Text("Not rated.")))
    if info.minimum_finished is not None:
        lines.append(say(finishing_required(round(info.minimum_finished * 100))))
    if info.starts_at is not None and info.status == "open" and info.start_missed is None:
        lines.append(say(Text("Starts by itself: <t:{time}:F> (<t:{time}:R>).", time=int(info.starts_at))))
    elif info.starts_at is not None:
        lines.append(say(Text("Start time: <t:{time}:F>.", time=int(info.starts_at))))
    lines += ["", say(Text("**Players ({count}; {least} to {most})**", count=len(info.players),
                           least=info.min_players, most=info.max_players))]
    withdrawn = set(info.withdrawn)
    for i, player in enumerate(info.players, start=1):
        lines.append(f"{i}. <@{player}>" + (f" ({say(WITHDRAWN)})" if player in withdrawn else ""))
    lines += ["", say(_status(info))]
    return discord.Embed(title=say(_title(info)), description="\n".join(lines), colour=COLOUR)


def announcement_controls(info: TournamentInfo, say: Say) -> discord.ui.View | None:
    """Join / Leave for everyone, and the organiser's controls, as far as they can do something now."""
    if info.status in ("finished", "cancelled"):
        return None
    controls = discord.ui.View(timeout=None)
    late = info.settings.format is Format.SWISS  # a Swiss takes entries while it runs
    buttons: list[tuple[type[TournamentButton], Text, discord.ButtonStyle]] = []
    if info.status == "open" or late:
        buttons.append((JoinTournament, TextIn("button", "Join"), discord.ButtonStyle.success))
    buttons.append((LeaveTournament, TextIn("button", "Leave"), discord.ButtonStyle.secondary))
    if info.status == "open":
        buttons.append((StartTournament, TextIn("button", "Start"), discord.ButtonStyle.primary))
    elif info.status == "running":
        buttons.append((PauseTournament, TextIn("button", "Pause"), discord.ButtonStyle.secondary))
    else:
        buttons.append((ResumeTournament, TextIn("button", "Resume"), discord.ButtonStyle.primary))
    buttons.append((CancelTournament, TextIn("button", "Cancel"), discord.ButtonStyle.danger))
    for button, label, style in buttons:
        controls.add_item(button.of(tournament=info.id, label=say(label), style=style))
    if len(info.players) > len(info.withdrawn):
        placeholder = say(Text("Remove player (organiser)"))
        controls.add_item(RemovePlayer.of(tournament=info.id, placeholder=placeholder, row=1))
    return controls


def standings_embed(info: TournamentInfo, say: Say) -> discord.Embed:
    """Place, name, points, the tie-breaks in the tournament's order and games played; withdrawn players marked."""
    names = " · ".join(say(tiebreak_name(t)) for t in info.settings.tiebreaks)
    lines = [say(Text("Place. Player: points ({tiebreaks}), games", tiebreaks=names)), ""]
    for standing in info.standings:
        tiebreaks = " · ".join(_points(value) for value in standing.tiebreaks)
        line = say(Text("**{place}.** <@{player}>: **{points}** ({tiebreaks}), {games}", place=standing.place,
                        player=standing.player, points=_points(standing.points), tiebreaks=tiebreaks,
                        games=Plural("{count} game", "{count} games", standing.games)))
        lines.append(line + (f" — *{say(WITHDRAWN)}*" if standing.withdrawn else ""))
    played = sum(1 for pairings in info.rounds if pairings and all(p.result or p.places for p in pairings
                                                                     if p.game_id is not None))
    return discord.Embed(title=say(Text("Standings · {title}", title=_title(info))), description="\n".join(lines),
                         colour=COLOUR).set_footer(
        text=say(Text("After {done} of {total} rounds", done=played, total=info.total_rounds)))


def _pairing_line(pairing: Pairing, info: TournamentInfo, bot_user_id: int | None, say: Say) -> str:
    game = describe(info.kind).title
    names = [f"<@{p}>" if p is not None else f"<@{bot_user_id}> (bot)" for p in pairing.players]
    if not pairing.table and len(names) == 1:
        # A round robin's bye scores nothing (everyone has one: games/tournaments/standings.py).
        points = 0.0 if info.settings.format is Format.ROUND_ROBIN else info.settings.bye_points
        return say(bye(names[0], points))
    if pairing.game_id is None:
        return say(Text("{players}: decided without a game ({result})", players=versus(names),
                        result=pairing.result or "-"))
    return say(Text("{players}: {game} #{number}", players=versus(names), game=game, number=pairing.game_id))


def pairings_text(info: TournamentInfo, number: int, pairings: Sequence[Pairing], bot_user_id: int | None, say: Say,
                  *, replay: bool = False) -> str:
    """A round's pairings, each with the game it made (its board follows in the channel)."""
    head = (Text("**{title}**: replays of round {number} (drawn games)", title=_title(info), number=number) if replay
            else Text("**{title}**: round {number} of {total}. Your games:", title=_title(info), number=number,
                      total=info.total_rounds))
    return "\n".join([say(head), *(_pairing_line(p, info, bot_user_id, say) for p in pairings)])


def podium_text(info: TournamentInfo, podium: Sequence[Standing], say: Say) -> str:
    lines = [say(Text("🏆 **{title}** is over! The podium:", title=_title(info)))]
    for standing in podium:
        medal = MEDALS[min(standing.place, 3) - 1]
        lines.append(say(Text("{medal} <@{player}>: {points}", medal=medal, player=standing.player,
                              points=points_text(standing.points))))
    return "\n".join(lines)


class _OfTournament:
    """What every control of a tournament's announcement shares, button or menu: its custom id names the tournament
    (`tn:<tournament>:join`, ...); the cog (bot/cogs/tournament.py) says what each does."""

    fields: dict[str, str]  # the custom id's fields (bot/components.py)

    @property
    def tournament_id(self) -> int:
        return int(self.fields["tournament"])

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        cog: Any = interaction.client.get_cog("Tournament")
        await cog.use_button(interaction, self)


class TournamentButton(_OfTournament, Button):
    """A button of a tournament's announcement."""


class JoinTournament(TournamentButton, custom_id=CustomId("tn:{tournament}:join", tournament=TOURNAMENT)):
    """Enter the tournament (refused below its share of games finished)."""


class LeaveTournament(TournamentButton, custom_id=CustomId("tn:{tournament}:leave", tournament=TOURNAMENT)):
    """Leave it: before the start, no longer entered; once it runs, withdrawn."""


class StartTournament(TournamentButton, custom_id=CustomId("tn:{tournament}:start", tournament=TOURNAMENT)):
    """The organiser starts it: round 1's games are made at once."""


class PauseTournament(TournamentButton, custom_id=CustomId("tn:{tournament}:pause", tournament=TOURNAMENT)):
    """The organiser holds the next round back."""


class ResumeTournament(TournamentButton, custom_id=CustomId("tn:{tournament}:resume", tournament=TOURNAMENT)):
    """The organiser lets the rounds go on."""


class CancelTournament(TournamentButton, custom_id=CustomId("tn:{tournament}:cancel", tournament=TOURNAMENT)):
    """The organiser calls it off (games being played go on, as games)."""


class RemovePlayer(_OfTournament, UserSelect, custom_id=CustomId("tn:{tournament}:remove", tournament=TOURNAMENT)):
    """The organiser takes a player out: before the start no longer entered; once it runs, withdrawn."""


TOURNAMENT_BUTTONS = (JoinTournament, LeaveTournament, StartTournament, PauseTournament, ResumeTournament,
                      CancelTournament, RemovePlayer)
