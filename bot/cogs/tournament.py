"""/tournament: organisers (Manage Server) make one; its announcement takes entries (Join / Leave) and holds the
organiser's controls (Start, Pause / Resume, Cancel); each round's pairings are posted with their players pinged once,
then each game's board; one standings message is edited after every result; the end posts the podium.

Everything here is drawing and answering: the rules are in games/tournaments/, what happens in the service
(bot/service/tournaments.py), which tells `on_update` of every change once it is committed. The announcement's and the
standings' message ids are kept in the bot's key-value memory (storage/settings.py), so they are edited after a
restart too, and the buttons' custom ids name the tournament (persistent, like a lobby's).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
from collections.abc import Collection, Iterable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.kinds import offer_games
from bot.config import parse_duration
from bot.i18n import Say
from bot.nonces import post_nonce
from bot.presenter import GamePresenter
from bot.service import TABLE_OPTIONS, ServiceError
from bot.service.finishing import may_join
from bot.service.leases import WORK_LEASE
from bot.service.results import Result
from bot.service.tasks import background
from bot.service.tournaments import (
    Pairing,
    RoundStarted,
    StartMissed,
    TournamentFinished,
    TournamentInfo,
    Tournaments,
    TournamentUpdate,
)
from bot.tournaments import (
    TOURNAMENT_BUTTONS,
    CancelTournament,
    JoinTournament,
    LeaveTournament,
    PauseTournament,
    RemovePlayer,
    ResumeTournament,
    StartTournament,
    TournamentButton,
    announcement_controls,
    announcement_embed,
    pairings_text,
    podium_text,
    round_title,
    standings_embed,
)
from games.registry import describe
from games.text import Command, Plural, Text
from games.tournaments.model import DrawRule, Format, Settings, Tiebreak, default_tiebreaks, place_points_from
from storage import BotStateStore
from storage.finishing import read_finishing
from storage.leases import board_post_key, round_post_key
from storage.ratings import GLOBAL
from storage.server_settings import ServerSettings

log = logging.getLogger(__name__)

THREAD_NAME = 100  # the most characters of a thread's name
THREAD_EXISTS = 160004  # Discord's code: a thread has already been created for this message
POLL = 0.25  # seconds between two looks at a round another process is posting

FORMATS = {"swiss": (Format.SWISS, False), "round-robin": (Format.ROUND_ROBIN, False),
           "double-round-robin": (Format.ROUND_ROBIN, True), "knockout": (Format.KNOCKOUT, False),
           "tables": (Format.TABLES, False)}


def _seconds(text: str | None, what: str) -> float | None:
    if text is None:
        return None
    try:
        return parse_duration(text.strip())
    except ValueError:
        raise ServiceError(Text("`{option}` takes a time like 30m, 24h or 2d.", option=what)) from None


def tiebreak_order(text: str, fmt: Format) -> tuple[Tiebreak, ...]:
    """The tie-breaks `tiebreaks:` names, in its order (spaces or commas between them); each one the format ranks by
    (the two-player ones, or So Long Sucker tables' own), at most once. Refused (ServiceError) with the names to use."""
    allowed = default_tiebreaks(fmt)
    names = [name for name in re.split(r"[\s,]+", text.strip().lower()) if name]
    chosen = [next((t for t in allowed if t.value == name), None) for name in names]
    if not names or None in chosen or len(set(names)) != len(names):
        raise ServiceError(Text("`tiebreaks` takes some of {names}, each once, in the order they count, e.g. "
                                "`{example}`.", names=", ".join(f"`{t.value}`" for t in allowed),
                                example=" ".join(t.value for t in allowed[:2][::-1])))
    return tuple(t for t in chosen if t is not None)


def table_points(text: str, fmt: Format) -> tuple[tuple[int, tuple[float, ...]], ...]:
    """The points by place that `points:` gives ("4 2 1 0": a table of 4's, as `place_points_from` takes them).
    Refused (ServiceError) with an example; only for So Long Sucker tables."""
    if fmt is not Format.TABLES:
        raise ServiceError(Text("`points` is for So Long Sucker tables: leave it out for this format."))
    try:
        return place_points_from([float(part) for part in re.split(r"[\s,/]+", text.strip()) if part])
    except ValueError:
        raise ServiceError(Text("`points` takes four numbers from 0 to 100, for the first, second, third and last "
                                "place at a table of 4, none above the one before, e.g. `4 2 1 0`.")) from None


_STAMP = re.compile(r"<t:(-?[0-9]{1,13})(?::[tTdDfFR])?>")
_DATE = re.compile(r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})[ T]+([0-9]{1,2}):([0-9]{2})")


def start_time(text: str, now: float) -> float:
    """When `starts:` says a tournament starts: a delay from `now` (2h, 3d), a date and time in UTC
    (2026-12-05 18:00), or a Discord timestamp (<t:1764957600>, any style, as a timestamp generator gives it).
    Unreadable or not in the future: refused (ServiceError), with why and an example."""
    text = text.strip()
    tomorrow = datetime.fromtimestamp(now, UTC).date() + timedelta(days=1)
    example = datetime(tomorrow.year, tomorrow.month, tomorrow.day, 18, tzinfo=UTC)
    examples = {"date": example.strftime("%Y-%m-%d %H:%M"), "stamp": f"<t:{int(example.timestamp())}>"}
    when: float | None = None
    if (stamp := _STAMP.fullmatch(text)) is not None:
        when = float(stamp.group(1))
    elif (date := _DATE.fullmatch(text)) is not None:
        year, month, day, hour, minute = (int(part) for part in date.groups())
        with contextlib.suppress(ValueError):  # no such day or hour
            when = datetime(year, month, day, hour, minute, tzinfo=UTC).timestamp()
    else:
        with contextlib.suppress(ValueError):
            when = now + parse_duration(text)
    if when is None:
        raise ServiceError(Text("`starts` takes a delay like 2h or 3d, a date and time in UTC like {date}, or a "
                                "Discord timestamp like {stamp}.", **examples))
    if when <= now:
        raise ServiceError(Text("That start time (<t:{time}:F>) has already passed: give one to come, like 2h, {date} "
                                "(UTC) or {stamp}.", time=int(when), **examples))
    return when


@app_commands.guild_only()
class TournamentCog(commands.GroupCog, name="Tournament", group_name="tournament",
                    group_description="Tournaments on this server: make one, see its standings and pairings"):
    sweep_every = 60.0  # seconds between two looks for rounds another process made but never posted

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self._locks: dict[int, asyncio.Lock] = {}
        self._shown: dict[int, object] = {}  # announcement message id -> what it shows (not edited to the same)
        offer_games(self.new)

    @property
    def tournaments(self) -> Tournaments:
        tournaments: Tournaments = self.bot.service.tournaments
        return tournaments

    @property
    def memory(self) -> BotStateStore:
        return BotStateStore(self.bot.db)

    async def cog_load(self) -> None:
        self.tournaments.listeners.append(self.on_update)
        self.tournaments.listeners.append(self.on_start_missed)
        self._sweeping = background(self._sweep(), name="rounds-sweep")

    async def cog_unload(self) -> None:
        self.tournaments.listeners.remove(self.on_update)
        self.tournaments.listeners.remove(self.on_start_missed)
        self._sweeping.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._sweeping

    async def _sweep(self) -> None:
        """Now and then, the rounds made more than `sweep_every` ago that are still not posted: the process that made
        them stopped (or died) before posting them, and this one goes on running (several processes)."""
        last = time.monotonic()
        while True:
            await asyncio.sleep(min(self.sweep_every, 1.0))
            if time.monotonic() - last < self.sweep_every:
                continue
            last = time.monotonic()
            try:
                await self.post_rounds_left_unposted(self.bot.service.clock() - self.sweep_every, wait=False)
            except Exception:  # the next sweep tries again; say why in the log
                log.exception("could not look for tournament rounds left unposted")

    # ----- commands ---------------------------------------------------------------------------------------------
    @app_commands.command(name="new", description="Make a tournament in this channel (Manage Server)")
    @app_commands.describe(
        game="The game played", format="How players are paired (So Long Sucker: tables)",
        rounds="Swiss and So Long Sucker tables: the number of rounds",
        turn_time="Time per move, like 30m, 24h or 2d (default: the server's)",
        round_time="The most a round may last, like 2h or 1d (default: no limit)",
        round_rule="At a round's time limit, what becomes of an unfinished game",
        rated="Whether its games count for the ladders",
        starts="It starts by itself then: 2h or 3d, 2026-12-05 18:00 (UTC), or a Discord timestamp <t:1764957600>",
        min_players="Players needed to start", max_players="The most players it takes",
        min_finished="Only for players who finished at least this share of their games (percent)",
        fillers="So Long Sucker: computer players may fill a short table",
        level="The computer players' level (So Long Sucker fillers)",
        variants="Chopsticks: variant names separated by spaces, e.g. 'cutoff suicide' (see /chopsticks rules)",
        tiebreaks="The tie-breaks in the order they count, e.g. 'sonneborn-berger buchholz' (default: the usual)",
        points="So Long Sucker tables: points by place at a table of 4, e.g. '4 2 1 0' (the default)",
        knockout_draws="Knockout: what settles a drawn game (default: it is played again)")
    @app_commands.choices(
        format=[app_commands.Choice(name="Swiss", value="swiss"),
                app_commands.Choice(name="Round robin", value="round-robin"),
                app_commands.Choice(name="Double round robin", value="double-round-robin"),
                app_commands.Choice(name="Knockout", value="knockout"),
                app_commands.Choice(name="So Long Sucker tables", value="tables")],
        round_rule=[app_commands.Choice(name="Drawn", value="draw"),
                    app_commands.Choice(name="Lost by the player to move", value="loss")],
        knockout_draws=[app_commands.Choice(name="Played again", value=DrawRule.REPLAY.value),
                        app_commands.Choice(name="The higher seed goes through", value=DrawRule.HIGHER_SEED.value),
                        app_commands.Choice(name="Who moved second goes through", value=DrawRule.SECOND_MOVER.value)])
    async def new(self, interaction: discord.Interaction[Any], game: str, format: str,
                  rounds: app_commands.Range[int, 1, 30] = 3,
                  turn_time: app_commands.Range[str, 1, 20] | None = None,
                  round_time: app_commands.Range[str, 1, 20] | None = None, round_rule: str = "draw",
                  rated: bool = True, starts: app_commands.Range[str, 1, 40] | None = None,
                  min_players: app_commands.Range[int, 1, 256] = 2, max_players: app_commands.Range[int, 2, 256] = 64,
                  min_finished: app_commands.Range[int, 1, 100] | None = None, fillers: bool = False,
                  level: app_commands.Range[str, 1, 20] | None = None,
                  variants: app_commands.Range[str, 1, 200] | None = None,
                  tiebreaks: app_commands.Range[str, 1, 100] | None = None,
                  points: app_commands.Range[str, 1, 40] | None = None,
                  knockout_draws: str | None = None) -> None:
        if not await self._manager(interaction):
            raise ServiceError(Text("Only members with the Manage Server permission (or the organisers' role set in "
                                    "{settings}) can make a tournament; ask one of them, or join theirs.",
                                    settings=Command("settings")))
        fmt, double = FORMATS[format]
        description = describe(game)
        if level is not None and level not in description.bot_levels:
            raise ServiceError(Text("{game} has no computer level {level}: choose one of {levels}.",
                                    game=description.title, level=level, levels=", ".join(description.bot_levels)))
        now = self.bot.service.clock()
        starts_at = None if starts is None else start_time(starts, now)
        counted = fmt in (Format.SWISS, Format.TABLES)  # the other formats know their number of rounds
        if knockout_draws is not None and fmt is not Format.KNOCKOUT:
            raise ServiceError(Text("`knockout_draws` is for a knockout: leave it out for this format."))
        settings = Settings(format=fmt, rounds=rounds if counted else 0, double=double,
                            tiebreaks=default_tiebreaks(fmt) if tiebreaks is None else tiebreak_order(tiebreaks, fmt),
                            draw_rule=DrawRule(knockout_draws or DrawRule.REPLAY.value),
                            place_points=(Settings(fmt).place_points if points is None
                                          else table_points(points, fmt)),
                            fillers=fillers and fmt is Format.TABLES)
        update = await self.tournaments.create(
            game, settings, guild_id=interaction.guild_id, channel_id=interaction.channel_id or 0,
            organiser_id=interaction.user.id, options=_options(level, variants),
            starts_at=starts_at,
            min_players=min_players, max_players=max_players, rated=rated,
            turn_timeout=_seconds(turn_time, "turn_time"),
            minimum_finished=None if min_finished is None else min_finished / 100,
            round_time=_seconds(round_time, "round_time"), deadline_rule=round_rule)
        info = update.tournament
        say = await self._say(info)
        response = await interaction.response.send_message(
            embed=announcement_embed(info, self._rules(info), say),
            view=announcement_controls(info, say) or discord.utils.MISSING,
            allowed_mentions=discord.AllowedMentions.none())
        if response.message_id is not None:
            await self.memory.set(_key(info.id, "announcement"), str(response.message_id))

    @app_commands.command(name="standings", description="A tournament's standings")
    @app_commands.describe(tournament="Its number (default: this channel's newest)")
    async def standings(self, interaction: discord.Interaction[Any],
                        tournament: app_commands.Range[int, 1, 2**31 - 1] | None = None) -> None:
        info = await self._named(interaction, tournament)
        await interaction.response.send_message(embed=standings_embed(info, Say.to(interaction)), ephemeral=True)

    @app_commands.command(name="pairings", description="A tournament round's pairings")
    @app_commands.describe(round="The round's number", tournament="Its number (default: this channel's newest)")
    async def pairings(self, interaction: discord.Interaction[Any], round: app_commands.Range[int, 1, 1000],
                       tournament: app_commands.Range[int, 1, 2**31 - 1] | None = None) -> None:
        info = await self._named(interaction, tournament)
        if round > len(info.rounds):
            raise ServiceError(Text("Round {number} has not started yet; see {command} meanwhile.", number=round,
                                    command=Command("tournament standings")))
        text = pairings_text(info, round, info.rounds[round - 1], self.bot.user.id if self.bot.user else None,
                             Say.to(interaction))
        await interaction.response.send_message(text, ephemeral=True, allowed_mentions=discord.AllowedMentions.none())

    @app_commands.command(name="leave", description="Leave a tournament (once it runs: withdraw from it)")
    @app_commands.describe(tournament="Its number (default: this channel's newest)")
    async def leave(self, interaction: discord.Interaction[Any],
                    tournament: app_commands.Range[int, 1, 2**31 - 1] | None = None) -> None:
        info = await self._named(interaction, tournament)
        update = await self.tournaments.leave(info.id, interaction.user.id)
        await interaction.response.send_message(Say.to(interaction)(Text("You left tournament #{number}.",
                                                                         number=info.id)), ephemeral=True)
        await self.redraw_announcement(update.tournament)

    @app_commands.command(name="remove", description="Take a player out of your tournament (its organiser)")
    @app_commands.describe(player="Who to take out", tournament="Its number (default: this channel's newest)")
    async def remove(self, interaction: discord.Interaction[Any], player: discord.User,
                     tournament: app_commands.Range[int, 1, 2**31 - 1] | None = None) -> None:
        info = await self._named(interaction, tournament)
        update = await self.tournaments.remove(info.id, interaction.user.id, player.id,
                                               manager=await self._manager(interaction))
        await interaction.response.send_message(Say.to(interaction)(Text(
            "{player} is out of tournament #{number}.", player=player.mention, number=info.id)), ephemeral=True,
            allowed_mentions=discord.AllowedMentions.none())
        await self.redraw_announcement(update.tournament)

    async def _manager(self, interaction: discord.Interaction[Any]) -> bool:
        """Whether the person may run the server's tournaments: Manage Server, or the role /settings names."""
        if interaction.permissions.manage_guild:
            return True
        if interaction.guild_id is None or not isinstance(interaction.user, discord.Member):
            return False
        settings: ServerSettings = await self.bot.server_settings.get(interaction.guild_id)
        return settings.organiser_role is not None and any(
            role.id == settings.organiser_role for role in interaction.user.roles)

    async def _named(self, interaction: discord.Interaction[Any], tournament: int | None) -> TournamentInfo:
        """The tournament a command names (default: the channel's newest), if it is this server's."""
        number = tournament if tournament is not None else await self.tournaments.latest(interaction.channel_id or 0)
        info = await self.tournaments.view(number)
        if info.guild_id != interaction.guild_id:
            raise ServiceError(Text("There is no tournament #{number}.", number=number))
        return info

    # ----- the announcement's buttons ------------------------------------------------------------------------
    async def use_button(self, interaction: discord.Interaction[Any], button: TournamentButton | RemovePlayer) -> None:
        info = await self.tournaments.view(button.tournament_id)
        if info.guild_id != interaction.guild_id:
            raise ServiceError(Text("Tournament #{number} is on another server; you can only join or run it there.",
                                    number=info.id))
        user, manager = interaction.user.id, await self._manager(interaction)
        if isinstance(button, JoinTournament):
            if info.minimum_finished is not None:
                record = await self.bot.db.query(read_finishing(GLOBAL, user))
                refusal = may_join(record, round(info.minimum_finished * 100))
                if refusal is not None:
                    raise ServiceError(refusal)
            update = await self.tournaments.join(info.id, user)
        elif isinstance(button, LeaveTournament):
            update = await self.tournaments.leave(info.id, user)
        elif isinstance(button, StartTournament):
            update = await self.tournaments.start(info.id, user, manager=manager)
        elif isinstance(button, RemovePlayer):
            if not button.users:
                raise ServiceError(Text("Choose the player to take out."))
            update = await self.tournaments.remove(info.id, user, button.users[0], manager=manager)
        elif isinstance(button, PauseTournament):
            update = await self.tournaments.pause(info.id, user, manager=manager)
        elif isinstance(button, ResumeTournament):
            update = await self.tournaments.resume(info.id, user, manager=manager)
        else:
            assert isinstance(button, CancelTournament)
            update = await self.tournaments.cancel(info.id, user, manager=manager)
        info = update.tournament
        say = await self._say(info)
        embed, controls = announcement_embed(info, self._rules(info), say), announcement_controls(info, say)
        await interaction.response.edit_message(embed=embed, view=controls,
                                                allowed_mentions=discord.AllowedMentions.none())
        if interaction.message is not None:
            self._shown[interaction.message.id] = _shown(embed, controls)

    # ----- what the service tells ----------------------------------------------------------------------------
    async def on_update(self, update: TournamentUpdate) -> None:
        """A committed change: post a new round's pairings and boards, edit the standings and the announcement, and
        post the podium at the end. One change of a tournament at a time in this process."""
        info = update.tournament
        lock = self._locks.setdefault(info.id, asyncio.Lock())
        try:
            async with lock:
                say = await self._say(info)
                channel = self.bot.get_partial_messageable(info.channel_id, guild_id=info.guild_id)
                games = {result.id for result in update.games}
                for event in update.events:
                    if isinstance(event, RoundStarted):
                        await self.post_round(info.id, event.number, replays=event.pairings if event.replay else None,
                                              created=games)
                await self.redraw_standings(info, say)
                await self.redraw_announcement(info)
                for event in update.events:
                    if isinstance(event, TournamentFinished):
                        await channel.send(podium_text(info, event.podium, say),
                                           allowed_mentions=discord.AllowedMentions.none())
        except discord.HTTPException as exc:  # the channel or a message was deleted, or closed to me
            log.warning("could not show tournament %s: %s", info.id, exc)

    async def on_start_missed(self, update: TournamentUpdate) -> None:
        """Its start time came but it could not start (too few players): the channel is told, once (`on_update`
        redraws the announcement, which says so too)."""
        info = update.tournament
        for event in update.events:
            if not isinstance(event, StartMissed):
                continue
            say = await self._say(info)
            if event.refusal is not None:
                text = Text("Tournament #{number} did not start at its start time: {reason} The organiser can "
                            "**Start** it once that is put right, or **Cancel** it.", number=info.id,
                            reason=event.refusal)
            else:
                text = Text("Tournament #{number} did not start at its start time: it needs {least} players, and "
                            "{joined}. The organiser can **Start** it once enough have joined, or **Cancel** it.",
                            number=info.id, least=event.needed,
                            joined=Plural("{count} has joined", "{count} have joined", event.players))
            channel = self.bot.get_partial_messageable(info.channel_id, guild_id=info.guild_id)
            try:
                await channel.send(say(text), allowed_mentions=discord.AllowedMentions.none())
            except discord.HTTPException as exc:  # the channel was deleted, or closed to me
                log.warning("could not tell tournament %s's channel it did not start: %s", info.id, exc)

    # ----- a round: its pairings message, its thread, its boards -----------------------------------------------
    async def post_rounds_left_unposted(self, created_before: float, *, wait: bool = True) -> None:
        """At start-up (and now and then: `_sweep`): post every round made before `created_before` by a process that
        stopped before posting it: its pairings message, its thread and its boards. With `wait`, a round another
        process is posting is waited for."""
        for tournament_id, number in await self.tournaments.unposted_rounds(created_before):
            lock = self._locks.setdefault(tournament_id, asyncio.Lock())
            try:
                # Another process starting too may be posting it: wait until it is done (its lease is let go of, or
                # lapses), so the games' boards are not posted meanwhile by the restart's redrawing, elsewhere.
                waited = time.monotonic()
                while True:
                    async with lock:
                        if await self.post_round(tournament_id, number):
                            break
                    if not wait or time.monotonic() - waited > WORK_LEASE:
                        break
                    await asyncio.sleep(POLL)
                info = await self.tournaments.view(tournament_id)
                async with lock:
                    await self.redraw_standings(info, await self._say(info))
            except discord.HTTPException as exc:
                log.warning("could not post round %d of tournament %d: %s", number, tournament_id, exc)

    async def post_round(self, tournament_id: int, number: int, *, replays: Sequence[Pairing] | None = None,
                         created: Collection[int] = ()) -> bool:
        """Post round `number` as far as it is not posted yet, in any process, once: its pairings message in the
        tournament's channel (stored; a knockout's `replays`: a message of their own), then the round's thread opened
        from it (stored, and the round's games moved there; the channel itself when no thread can be opened, said
        once), then each game's board not posted yet. The games in `created` are told to their players by the
        service once this is done (their first decider is pinged by the game's turn notification, so the pairings
        ping the others); a game posted here that is not (its round is posted late, after a restart) is told here.
        False if another process is posting it now."""
        service = self.bot.service
        key = round_post_key(tournament_id, number)
        token = await service.hold(key)
        if token is None:
            return False  # another process is posting it
        try:
            info = await self.tournaments.view(tournament_id)  # as stored now: what is posted already
            if number > len(info.rounds):
                return True
            pairings = tuple(replays) if replays is not None else info.rounds[number - 1]
            presenter: GamePresenter = self.bot.presenter(info.kind)
            say = await self._say(info)
            unposted = {}
            for pairing in pairings:
                if pairing.game_id is not None:
                    result = await service.view(pairing.game_id, fresh=True)
                    if result.game.message_id is None:
                        unposted[result.id] = result
            message_id = info.posted[number - 1]
            if message_id is None or replays is not None:
                if not await service.still_holds(key, token):  # the fence: paused past the lease
                    return False
                message_id = await self._post_pairings(info, number, pairings, unposted.values(), presenter, say,
                                                       replay=replays is not None)
            place, opened = info.threads[number - 1], None
            if unposted and place is None and presenter.round_thread and message_id:
                place = opened = await self._open_round_thread(info, number, message_id, say)
            if place is not None and (opened is not None or any(r.game.channel_id != place
                                                                for r in unposted.values())):
                place, _stored = await self.tournaments.round_thread(info.id, number, place)
            if unposted and place == info.channel_id and replays is None:
                # Said before the round's boards, by whoever posts them (after a stop too): its nonce makes it once.
                await self.bot.get_partial_messageable(info.channel_id, guild_id=info.guild_id).send(say(Text(
                    "I could not open a thread for round {number}, so its games are played here. To give each "
                    "round its own thread, let me Create Public Threads and Send Messages in Threads in this "
                    "channel.", number=number)), allowed_mentions=discord.AllowedMentions.none(),
                    nonce=post_nonce("no round thread", info.id, number, info.channel_id, info.created_at))
            for game_id in unposted:
                if await self._post_board(presenter, game_id) and game_id not in created:
                    await self.tournaments.announce(game_id)
            return True
        finally:
            await service.let_go_of(key)

    async def _post_pairings(self, info: TournamentInfo, number: int, pairings: Sequence[Pairing],
                             unposted: Iterable[Result[Any, Any]], presenter: GamePresenter, say: Say, *,
                             replay: bool) -> int:
        """The round's pairings message, pinging each player once this round: the first to decide in each game whose
        board is posted now is pinged by its turn notification, so this message pings the others. Stored as the
        round's (not a knockout's replays); its id."""
        deciders = {r.game.user_at(r.game.to_decide) for r in unposted if r.game.to_decide is not None}
        people = sorted({p for pairing in pairings for p in pairing.players if p is not None and p not in deciders})
        channel = self.bot.get_partial_messageable(info.channel_id, guild_id=info.guild_id)
        bot_id = self.bot.user.id if self.bot.user else None
        # The round's message is posted again by whoever finds it unstored: Discord then returns this one (a knockout's
        # replays are a message of their own each time, never stored).
        nonce = None if replay else post_nonce("pairings", info.id, number, info.channel_id, info.created_at)
        sent: discord.Message = await channel.send(pairings_text(info, number, pairings, bot_id, say, replay=replay),
                                                   allowed_mentions=await presenter.pings(people), nonce=nonce)
        if not replay:
            await self.tournaments.round_posted(info.id, number, sent.id)
        return sent.id

    async def _open_round_thread(self, info: TournamentInfo, number: int, message_id: int, say: Say) -> int:
        """Open the round's public thread from its pairings message: its id (a thread opened from a message has the
        message's id, so one opened by a process that stopped before storing it is found again); the channel's id
        when I may not open one there."""
        name = say(Text("{title} · Round {number}", title=round_title(info), number=number))[:THREAD_NAME]
        try:
            data = await self.bot.http.start_thread_with_message(info.channel_id, message_id, name=name,
                                                                 auto_archive_duration=10080)
        except discord.HTTPException as exc:
            if exc.code == THREAD_EXISTS:
                return message_id
            log.info("could not open a thread for round %d of tournament %d: %s", number, info.id, exc)
            return info.channel_id
        return int(data["id"])

    async def _post_board(self, presenter: GamePresenter, game_id: int) -> bool:
        """Post a round game's board where the game is (its round's thread), unless it is posted already (by a
        restart's redrawing: the same lease); whether it was posted here."""
        service = self.bot.service
        key = board_post_key(game_id)
        if await service.hold(key) is None:
            return False
        try:
            result = await service.view(game_id, fresh=True)
            if result.game.message_id is not None:
                return False
            await presenter.post_in_channel(result)
            return True
        finally:
            await service.let_go_of(key)

    async def redraw_standings(self, info: TournamentInfo, say: Say) -> None:
        """The one standings message: posted with the first round, edited after every result."""
        if not info.rounds:
            return
        channel = self.bot.get_partial_messageable(info.channel_id, guild_id=info.guild_id)
        embed = standings_embed(info, say)
        stored = await self.memory.get(_key(info.id, "standings"))
        if stored is None:
            sent = await channel.send(embed=embed, allowed_mentions=discord.AllowedMentions.none(),
                                      nonce=post_nonce("standings", info.id, info.channel_id, info.created_at))
            await self.memory.set(_key(info.id, "standings"), str(sent.id))
            return
        await channel.get_partial_message(int(stored)).edit(embed=embed)

    async def redraw_announcement(self, info: TournamentInfo) -> None:
        stored = await self.memory.get(_key(info.id, "announcement"))
        if stored is None:
            return
        say = await self._say(info)
        embed, controls = announcement_embed(info, self._rules(info), say), announcement_controls(info, say)
        if self._shown.get(int(stored)) == _shown(embed, controls):
            return
        channel = self.bot.get_partial_messageable(info.channel_id, guild_id=info.guild_id)
        await channel.get_partial_message(int(stored)).edit(embed=embed, view=controls)
        self._shown[int(stored)] = _shown(embed, controls)

    def _rules(self, info: TournamentInfo) -> list[Text | str]:
        """The rules its games are played by, as the game's lobby shows them when they are not the game's usual ones
        (a variant, more chips); else in one line: the first of them, and where the rest are told."""
        presenter: GamePresenter = self.bot.presenter(info.kind)
        description = describe(info.kind)
        # So Long Sucker tables seat 3 to 5 (games/tournaments/tables.py): "for up to 5 players", not the fewest.
        players = 5 if info.settings.format is Format.TABLES else description.min_players
        rules = presenter.rules_lines(info.options, players)
        usual = presenter.rules_lines({k: v for k, v in info.options.items() if k in TABLE_OPTIONS}, players)
        if rules != usual or not rules:
            return rules
        group = description.start_command.removeprefix("/").split()[0]
        return [Text("{rules} Otherwise the usual rules: {command}.", rules=rules[0],
                     command=Command(f"{group} rules"))]

    async def _say(self, info: TournamentInfo) -> Say:
        return Say(await self.bot.languages.public(info.guild_id))


def _options(level: str | None, variants: str | None) -> dict[str, Any]:
    """The game's options a tournament's games are made with (the service checks that they make a game)."""
    options: dict[str, Any] = {}
    if level:
        options["bot_level"] = level
    names = [name for name in re.split(r"[\s,]+", (variants or "").strip().lower()) if name]
    if names:
        options["variants"] = names
    return options


def _key(tournament_id: int, what: str) -> str:
    return f"tournament:{tournament_id}:{what}"


def _shown(embed: discord.Embed, controls: discord.ui.View | None) -> object:
    return (repr(embed.to_dict()), None if controls is None else repr(controls.to_components()))


async def setup(bot: Any) -> None:
    bot.add_dynamic_items(*TOURNAMENT_BUTTONS)
    await bot.add_cog(TournamentCog(bot))
