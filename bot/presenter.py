"""The one contract for a game's Discord side: its slash commands and components (a GroupCog), and how its
games look in the channel, in replays, in lobbies and in timer announcements.

A presenter is built only from what the service returns (`Result`, `ReplayFrame`: views, never an engine
state). Each game kind's presenter is a discord.py extension named by its description
(`GameDescription.presenter`); its `setup` calls `bot.add_presenter(...)`. What is the same for every game
lives here: drawing the channel message, showing a lobby's game once it starts, timer announcements, the
checks every component and command of a game makes.
"""

from __future__ import annotations

import logging
from abc import ABCMeta, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, ClassVar, Protocol

import discord
from discord.ext import commands

from bot.delivery import Answer
from bot.drawn import Board, board_key
from bot.i18n import Say
from bot.nonces import post_nonce, same_words
from bot.private_boards import PrivateBoards
from bot.service import GameInfo, GameService, Player, ReplayFrame, Result, ServiceError, TimerEvent
from bot.service.lobbies import LobbyService
from bot.service.timers import Fence
from bot.words import challenge_sides
from games.registry import GameDescription, describe
from games.text import Text
from storage.lobbies import LobbyRecord
from storage.notifications import NotificationStore, NotifyMode

log = logging.getLogger(__name__)


class PresenterMeta(commands.CogMeta, ABCMeta):
    """A cog whose abstract methods must be defined before it can be made."""


class GamePresenter(commands.Cog, metaclass=PresenterMeta):
    """Mixed with commands.GroupCog by each game's presenter; `kind` names its game in the registry."""

    kind: ClassVar[str]
    components: ClassVar[tuple[type[discord.ui.DynamicItem[Any]], ...]] = ()  # registered once by the bot
    form_templates: ClassVar[tuple[str, ...]] = ()  # custom id patterns of the forms it answers
    components_in_dms: ClassVar[bool] = False  # its components also work in DMs (private boards)
    # A game with hidden information: its players' own boards, drawn by the game (`DrawsOwnBoards`), delivered there.
    private_boards: PrivateBoards[Any] | None = None
    # A tournament round's games of this kind are played in the round's thread (bot/cogs/tournament.py); False: each
    # game opens a thread of its own (So Long Sucker's tables, whose players talk at their table).
    round_thread: ClassVar[bool] = True

    def __init__(self, bot: Any) -> None:
        self.bot = bot

    # ----- what each game defines -------------------------------------------------------------------------
    @abstractmethod
    async def channel_board(self, result: Result[Any, Any]) -> Board:
        """The game's channel message: the challenge while it is pending or closed, else the public board."""

    @abstractmethod
    def replay_embed(self, frame: ReplayFrame[Any], say: Say) -> discord.Embed:
        """One replay frame's board in `say`'s language (the replay adds its title prefix "Replay · ... · move N of
        M" and the line that says which move led there)."""

    async def replay_board(self, frame: ReplayFrame[Any], say: Say) -> Board:
        """One replay frame as a message: by default its embed; a game that draws pictures draws them here."""
        return Board(None, self.replay_embed(frame, say), None)

    def replay_step(self, frame: ReplayFrame[Any]) -> Text | None:
        """The move that led to `frame` in words, for a game that tells its moves better than by their action texts
        (None: the replay shows "<player> played `<action>`")."""
        return None

    @abstractmethod
    def rules_lines(self, options: Mapping[str, Any], players: int) -> list[Text | str]:
        """The rules a table with these options plays by, in plain lines (lobbies and challenges show them)."""

    @abstractmethod
    def ending_line(self, result: Result[Any, Any]) -> Text | str:
        """How the game ended, in words (a finished game)."""

    # ----- shared by every game -----------------------------------------------------------------------------
    @property
    def game_description(self) -> GameDescription:
        """This game's entry in the registry (`description` is the cog's own, a discord.py name)."""
        return describe(self.kind)

    @property
    def title(self) -> Text | str:
        return self.game_description.title

    @property
    def service(self) -> GameService:
        service: GameService = self.bot.service
        return service

    @property
    def lobbies(self) -> LobbyService:
        lobbies: LobbyService = self.bot.lobbies
        return lobbies

    @property
    def bot_user_id(self) -> int | None:
        user = self.bot.user
        return user.id if user else None

    async def public_say(self, result: Result[Any, Any]) -> Say:
        """The language of the game's public messages: its server's (in DMs, its human player's)."""
        people = [seat.user_id for seat in result.game.seats if seat.user_id is not None]
        return Say(await self.bot.languages.public(result.game.guild_id, people[0] if people else None))

    async def say_to(self, user_id: int) -> Say:
        """The language of a direct message to `user_id`."""
        return Say(await self.bot.languages.of_user(user_id))

    def seat_name(self, result: Result[Any, Any], seat: int) -> Text | str:
        """How texts about the game name a seat: a mention here; a game may add words of the reader's language
        (So Long Sucker: `<@1234> (blue)`), so it is a text, rendered where it is shown."""
        user = result.game.user_at(seat)
        if user is not None:
            return f"<@{user}>"
        # "(bot)" is the word Discord itself shows beside a bot's name: the same in every language.
        return f"<@{self.bot_user_id}> (bot)" if self.bot_user_id else "(bot)"

    async def own_game(self, interaction: discord.Interaction[Any], game_id: int, *,
                       in_dms: bool = False) -> GameInfo:
        """The game a component or option names, if it is one of this presenter's games and is played on the
        server the interaction comes from (a DM is no server unless `in_dms`): no one acts in a game from
        elsewhere."""
        if not 0 < game_id < 2**63:  # a forged id: SQLite could not even look it up
            raise ServiceError(Text("There is no game #{number}.", number=game_id))
        game = await self.service.info(game_id)
        if game.kind != self.kind:
            raise ServiceError(Text("Game #{number} is not a {game} game.", number=game_id, game=self.title))
        if game.guild_id != interaction.guild_id and not (in_dms and interaction.guild_id is None):
            raise ServiceError(Text("{game} #{number} is played on another server; you can only act on it there.",
                                    game=self.title, number=game_id))
        return game

    def rival(self, challenger_id: int, opponent: discord.abc.User | None, level: str) -> Player:
        """The second seat of a two-player challenge: `opponent`, or a bot of `level` when there is none or it is
        me; refuses a challenge to oneself or to another bot."""
        if opponent is not None and opponent.id == challenger_id:
            raise ServiceError(Text("You cannot challenge yourself. Leave `opponent` empty to play against me."))
        if opponent is None or opponent.id == self.bot_user_id:
            return Player(computer=level)
        if opponent.bot:
            raise ServiceError(Text("Other bots cannot play. Leave `opponent` empty to play against me."))
        return Player(user_id=opponent.id)

    async def new_game_timeout(self, interaction: discord.Interaction[Any], turn_minutes: int | None) -> float | None:
        """The turn time a command asks for (None: the server's, else the bot's, as the service decides). Whether
        the game may start here at all is the service's one check of the server's settings (bot/service/starts.py),
        which every way a game starts passes. A thread that is closed (archived or locked: a table's thread after
        its game) is refused here, before anything is written: the bot could not post a word of the game there."""
        channel = interaction.channel
        if isinstance(channel, discord.Thread) and (channel.archived or channel.locked):
            raise ServiceError(Text("This thread is closed, so a game started here could not be played: start it in "
                                    "the channel, or in an open thread."))
        return turn_minutes * 60.0 if turn_minutes else None

    async def pings(self, users: Sequence[int]) -> discord.AllowedMentions:
        """Mentions of `users` in a message that asks them to play (a challenge, a rematch): those who chose
        `/notifications how:off` are named but not pinged."""
        store: NotificationStore = self.bot.notifier.store
        wanted = [u for u in users if await store.mode(u) is not NotifyMode.OFF]
        return discord.AllowedMentions(users=[discord.Object(u) for u in wanted])

    def schedule_computers(self, result: Result[Any, Any]) -> None:
        """Let the computer players move if one of them is to decide."""
        self.bot.computer_turns.schedule(result.game)

    def channel(self, result: Result[Any, Any], *, talk: bool = False) -> discord.PartialMessageable:
        """The game's channel; with `talk`, where its players talk (its thread, if it has one)."""
        game = result.game
        channel_id = (game.thread_id or game.channel_id) if talk else game.channel_id
        partial: discord.PartialMessageable = self.bot.get_partial_messageable(channel_id, guild_id=game.guild_id)
        return partial

    async def draw(self, result: Result[Any, Any], *, answered: int | None = None) -> None:
        """Draw every board of the game from `result`, its latest position (under the game's drawing lock:
        bot/delivery.py), after an action here, another process's change, a timer or a restart: the channel
        message, then each player's own board of a game with `private_boards` once it is on (a board not yet
        delivered is sent by DM)."""
        await self.draw_channel(result, answered=answered)
        if self.private_boards is not None and result.game.status in ("active", "finished"):
            await self.private_boards.draw_all(result, announce_failure=True)

    async def cog_unload(self) -> None:
        if self.private_boards is not None:
            await self.private_boards.stop()  # its later looks at claimed DMs

    async def draw_channel(self, result: Result[Any, Any], *, answered: int | None = None) -> None:
        """The channel message from `result`, edited unless it shows exactly this board already (bot/drawn.py) or
        is `answered`, the message the interaction was just answered with, drawn from `result`."""
        if result.game.message_id is None or result.game.message_id == answered:
            return
        board = await self.channel_board(result)
        if not self.bot.drawn.current(result.game.message_id, board_key(board), result.game):
            await self._edit_channel_message(result, board)

    async def _edit_channel_message(self, result: Result[Any, Any], board: Board) -> None:
        assert result.game.message_id is not None
        message = self.channel(result).get_partial_message(result.game.message_id)
        await message.edit(content=board.content, embed=board.embed, view=board.controls,
                           attachments=board.attachments(), allowed_mentions=discord.AllowedMentions.none())
        self.remember_drawn(result.game.message_id, board, result.game)

    def remember_drawn(self, message_id: int, board: Board, game: GameInfo) -> None:
        """`message_id` now shows `board`, drawn from `game` (once Discord accepted it): see bot/drawn.py."""
        self.bot.drawn.remember(message_id, board_key(board), game)

    async def show_board(self, interaction: discord.Interaction[Any], result: Result[Any, Any]) -> None:
        """Answer a click on the game's channel message by redrawing that message from the latest position (another
        action may have landed since this click's own), draw the game's other boards, then let the computer players
        move (bot/delivery.py)."""
        await self.bot.delivery.deliver(result, self.answer_on_board(interaction))

    def answer_on_board(self, interaction: discord.Interaction[Any]) -> Answer:
        """How a click on the game's channel message is answered: that message, redrawn from the latest position."""
        async def answer(latest: Result[Any, Any]) -> int | None:
            board = await self.channel_board(latest)
            await interaction.response.edit_message(content=board.content, embed=board.embed, view=board.controls,
                                                    attachments=board.attachments(),
                                                    allowed_mentions=discord.AllowedMentions.none())
            if interaction.message is None:
                return None
            self.remember_drawn(interaction.message.id, board, latest.game)
            return interaction.message.id

        return answer

    @staticmethod
    def clicked_on_a_board(interaction: discord.Interaction[Any], result: Result[Any, Any]) -> bool:
        """Whether the interaction came from a public board of the game (answered by redrawing it) rather than from a
        player's private step (answered there): its stored board, or a copy of it that a stopped process posted but
        never stored (a public copy must stay a board, with the game's controls, not become someone's answer)."""
        message = interaction.message
        return message is not None and (message.id == result.game.message_id or not message.flags.ephemeral)

    async def answer_privately(self, interaction: discord.Interaction[Any], result: Result[Any, Any],
                               said: str) -> None:
        """Answer an action made from a private message (a second step, a confirmation) by turning that message into
        `said`, then draw the game's boards and let the computer players move (bot/delivery.py)."""
        async def answer(latest: Result[Any, Any]) -> None:
            await interaction.response.edit_message(content=said, view=None)
            return None

        await self.bot.delivery.deliver(result, answer)

    async def post_game(self, interaction: discord.Interaction[Any], result: Result[Any, Any], *,
                        mention: Sequence[int] = ()) -> None:
        """Answer with a new message showing a new game (a rematch): its challenge, or its board when it starts
        at once; `mention` are the people asked to accept."""
        board = await self.channel_board(result)
        content = " ".join(f"<@{u}>" for u in mention)
        if content and result.game.status == "pending":
            say = await self.public_say(result)
            asker = self.seat_name(result, challenge_sides(result.game.options)[0])
            content = say(Text("{people}: {asker} asks you for a rematch of {game}. Accept below.", people=content,
                               asker=asker, game=self.title))
        response = await interaction.response.send_message(
            content=content or board.content, embed=board.embed, view=board.controls or discord.utils.MISSING,
            files=board.attachments(), allowed_mentions=await self.pings(mention))
        if response.message_id is not None:
            if (content or board.content) == board.content:  # else its text is the rematch's, not the board's
                self.remember_drawn(response.message_id, board, result.game)
            result = await self.service.set_message(result.id, response.message_id)
        await self.game_opened(result)

    async def post_in_channel(self, result: Result[Any, Any]) -> Result[Any, Any]:
        """Post a new game's board in its channel without an interaction to answer (a tournament round's game, whose
        players were pinged once for the round): `post_game`'s board, remembered and stored as the game's message,
        then `game_opened`."""
        board = await self.channel_board(result)
        game = result.game
        # Posted again by whoever finds it unstored (a restart, another process): Discord then returns this message.
        sent = await self.channel(result).send(content=board.content, embed=board.embed,
                                               view=board.controls or discord.utils.MISSING, files=board.attachments(),
                                               allowed_mentions=discord.AllowedMentions.none(),
                                               nonce=post_nonce("board", game.id, game.channel_id, game.created_at))
        if same_words(sent, board.content, board.embed):
            self.remember_drawn(sent.id, board, game)
        else:  # the copy a stopped process posted, from an older state: drawn as any change of the game is
            await self._edit_channel_message(replace(result, game=replace(game, message_id=sent.id)), board)
        result = await self.service.set_message(result.id, sent.id)
        await self.game_opened(result)
        return result

    async def game_opened(self, result: Result[Any, Any]) -> None:
        """A game's message was just posted: let the computer players move (Generals also deals private boards)."""
        self.schedule_computers(result)

    async def show_started(self, interaction: discord.Interaction[Any], lobby: LobbyRecord,
                           result: Result[Any, Any]) -> None:
        """A lobby's game has started: its message becomes the game's board."""
        await self.show_board(interaction, result)

    # ----- what players are told (bot/notifications.py sends it) ----------------------------------------------
    def turn_text(self, result: Result[Any, Any], seat: int) -> Text:
        """What the person at `seat` is told when a decision becomes theirs: a whole sentence, which "{person}"
        (their mention) may begin."""
        person = f"<@{result.game.user_at(seat)}>"
        if not result.game.began:
            return Text("{person}, it is your turn to set up in {game} #{number}.", person=person, game=self.title,
                        number=result.id)
        return Text("{person}, it is your move in {game} #{number}.", person=person, game=self.title,
                    number=result.id)

    async def turn_notice(self, result: Result[Any, Any], seat: int) -> Text:
        """The turn notification's words for `seat`: `turn_text`, and what else that player needs to know now
        (Generals: to open their board again when the bot can no longer keep it current)."""
        return self.turn_text(result, seat)

    def play_began_text(self, result: Result[Any, Any], first: int | None) -> Text:
        """The announcement that secret setups are done and play begins, `first` (None: a computer) to move."""
        if first is None:
            return Text("{game} #{number}: everyone is ready. I move first.", game=self.title, number=result.id)
        return Text("{game} #{number}: everyone is ready. <@{first}> moves first.", game=self.title,
                    number=result.id, first=first)

    async def ending_board(self, result: Result[Any, Any]) -> Board | None:
        """Something to show with a game's ending besides its words, when the board it replies to does not show it
        already (Generals shows none: its board, right above and edited at the end, shows both armies revealed, and
        the ending replies to it)."""
        return None

    async def ending_sent(self, result: Result[Any, Any]) -> None:
        """After the game's ending message was sent: a table's thread the game was played in (a challenge made there)
        is closed now if the table is over and nothing else lives in it any more (So Long Sucker also closes its own
        table's thread)."""
        game = result.game
        if await self.service.ended_table_thread(game.channel_id, but=game.id) and not (
                await self.service.place_still_used(game.channel_id, but=game.id)):
            await self.close_thread(game.channel_id, game.id)

    async def close_thread(self, thread_id: int, game_id: int) -> None:
        """Lock and archive a table's thread once its table and every game in it are over (`game_id`: the game whose
        ending closes it, for the log)."""
        try:
            await self.bot.http.edit_channel(thread_id, archived=True, locked=True)
        except discord.Forbidden:  # locking takes Manage Threads; archiving the thread I made does not
            log.info("could not lock the thread of game %s (no Manage Threads?); archiving it only", game_id)
            await self.bot.http.edit_channel(thread_id, archived=True)

    def jump_url(self, result: Result[Any, Any]) -> str | None:
        """A link to the game's channel message, once it has one."""
        game = result.game
        if game.message_id is None:
            return None
        return f"https://discord.com/channels/{game.guild_id or '@me'}/{game.channel_id}/{game.message_id}"

    def reminder_text(self, result: Result[Any, Any], user_id: int, deadline: float) -> Text:
        return Text("<@{user}>, it is your move in {game} #{number}. You forfeit <t:{deadline}:R> if you do not "
                    "move.", user=user_id, game=self.title, number=result.id, deadline=int(deadline))

    def timeout_text(self, result: Result[Any, Any], event: TimerEvent) -> Text:
        """What the channel is told when time ran out (a forfeit, or the game's default decision)."""
        if result.ended() is not None:
            return Text("{game} #{number}: {ending}", game=self.title, number=result.id,
                        ending=self.ending_line(result))
        return Text("{game} #{number}: a player ran out of time and is out.", game=self.title, number=result.id)

    async def announce_timer(self, event: TimerEvent, result: Result[Any, Any], fence: Fence) -> None:
        """Redraw the game, then remind the player to move, or say that time ran out when the game goes on (when
        it ended, its ending message says so). The message is sent only if `fence` still holds right before it (this
        process still holds the announcement: bot/service/timers.py)."""
        try:
            await self.bot.redraw(result.id)
        except (discord.NotFound, discord.Forbidden) as exc:  # its board was deleted, or the channel closed to me
            log.warning("could not redraw game %s for its timer: %s", result.id, exc)  # the words still go out
        if event is TimerEvent.EXPIRED:
            return
        channel = self.channel(result, talk=True)
        say = await self.public_say(result)
        if event is TimerEvent.REMINDER:
            seat = result.game.to_decide
            user = result.game.user_at(seat) if seat is not None else None
            if user is None or result.game.deadline is None or not await fence():
                return
            await channel.send(say(self.reminder_text(result, user, result.game.deadline)),
                               allowed_mentions=discord.AllowedMentions(users=[discord.Object(user)]))
            return
        if event is TimerEvent.CALLED_OFF:
            if not await fence():
                return
            await channel.send(say(Text("{game} #{number} is called off: nobody finished their setup in time, so "
                                        "it never began (it is not rated).", game=self.title, number=result.id)),
                               allowed_mentions=discord.AllowedMentions.none())
            return
        if result.ended() is not None:
            return  # the game's ending message (bot/endings.py) says how time ran out, and to everyone at once
        if not await fence():
            return
        await channel.send(say(self.timeout_text(result, event)), allowed_mentions=discord.AllowedMentions.none())


class NamesSeats(Protocol):
    """What names a game's seats in its texts (a presenter, `GamePresenter.seat_name`)."""

    def seat_name(self, result: Result[Any, Any], seat: int) -> Text | str: ...


def seat_names(presenter: NamesSeats, result: Result[Any, Any]) -> Sequence[Text | str]:
    return [presenter.seat_name(result, seat) for seat in range(len(result.game.seats))]
