"""/help: what the bot does, each game in a few lines, and buttons to each game's rules and to how to start
it. Every game listed comes from the game registry, so a new kind of game appears here by itself."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.components import Button, CustomId
from bot.i18n import Say, command_words
from bot.service import ServiceError
from games.registry import GameDescription, descriptions
from games.text import Command, Joined, Plural, Text

COLOUR = discord.Colour.from_rgb(88, 101, 242)
MAX_CONTENT = 2000  # Discord's limit on a message's content
MAX_ROWS = 5  # Discord's limit on rows of buttons in one message
_KIND = r"[a-z0-9_-]{1,40}"


def help_embed(bot: Any, say: Say) -> discord.Embed:
    """Every game in a few lines (with its start command as text), then the bot's other commands."""
    lines = [say(Text("I host and referee games right here: pick one below and start it with its command. Every "
                      "game is kept safe across restarts, has a turn timer, and feeds the ladders (`/leaderboard`, "
                      "`/stats`).")),
             say(Text("The buttons below show each game's rules, and how to start one.")), ""]
    for game in descriptions():
        if game.bot_levels:
            # The levels as the commands' own `level` choices name them, in the reader's language.
            levels = ", ".join(command_words(level, say.language) for level in game.bot_levels)
            heading = Plural("**{game}** ({players}; against me: {levels})",
                             "**{game}** ({players}; against me: {levels})", len(game.bot_levels), game=game.title,
                             players=game.player_range(), levels=levels)
        else:
            heading = Text("**{game}** ({players})", game=game.title, players=game.player_range())
        # A command mention: Discord shows it clickable, and in the reader's language.
        lines += [say(heading), say(game.summary),
                  say(Text("Start: {command}", command=command_mention(bot, game.start_command.removeprefix("/")))),
                  ""]
    others = _other_commands(bot, say)
    if others:
        lines += [say(Text("**More commands**")), *others]
    return discord.Embed(title=say(Text("Games on this server")), description="\n".join(lines)[:4096],
                         colour=COLOUR)


def help_controls(say: Say) -> discord.ui.View:
    """Two buttons per game, one row each (while they fit in Discord's five rows): its rules, how to start it."""
    games = descriptions()[: 25 // 2]  # Discord shows at most 25 buttons
    controls = discord.ui.View(timeout=None)
    for index, game in enumerate(games):
        row = index if len(games) <= MAX_ROWS else None
        controls.add_item(RulesButton.of(kind=game.kind, label=say(Text("{game}: rules", game=game.title))[:80],
                                     emoji="📖", row=row))
        controls.add_item(_start_button(game, say, row))
    return controls


def _start_button(game: GameDescription, say: Say, row: int | None = None) -> StartButton:
    return StartButton.of(kind=game.kind, label=say(Text("Play {game}", game=game.title))[:80], emoji="▶️",
                          style=discord.ButtonStyle.primary, row=row)


def rules_embed(game: GameDescription, say: Say) -> discord.Embed:
    """A game's rules text from its description (its summary, for a game that has none)."""
    embed = discord.Embed(title=say(Text("{game}: how to play", game=game.title)),
                          description=say(game.rules or game.summary), colour=COLOUR)
    embed.set_footer(text=say(Text("Start a game with {command}", command=Command(game.start_command))))
    return embed


def command_mention(bot: Any, name: str) -> Text | str:
    """A command as a clickable mention (`</chopsticks challenge:ID>`) when its id is known, else as text in the
    reader's language (Discord shows a mention in it by itself)."""
    ids: dict[str, int] = getattr(bot, "command_ids", {})
    command_id = ids.get(name.split()[0])
    return f"</{name}:{command_id}>" if command_id else Joined(("`", Command(name), "`"), separator="")


def start_text(bot: Any, game: GameDescription, disabled: bool, say: Say) -> str:
    """How to start a game: its start command, then every command of the game, as clickable mentions."""
    start = game.start_command.removeprefix("/")
    lines = [say(Text("**{game}** ({players}): start with {command}.", game=game.title, players=game.player_range(),
                      command=command_mention(bot, start)))]
    if disabled:
        lines.append(say(Text("It is switched off on this server: an admin can switch it on with `/settings`.")))
    group = _game_group(bot, game.kind)
    if group is not None:
        lines += ["", say(Text("Its commands:"))]
        lines += [f"{say(command_mention(bot, command.qualified_name))}: "
                  f"{command_words(command.description, say.language)}"
                  for command in group.walk_commands() if isinstance(command, app_commands.Command)]
    text = ""
    for line in lines:  # whole lines only, within Discord's limit on a message
        if len(text) + len(line) + 1 > MAX_CONTENT:
            break
        text += line + "\n"
    return text.rstrip("\n")


def _game_group(bot: Any, kind: str) -> app_commands.Group | None:
    """The slash command group of a game's presenter (`/chopsticks ...`), if it has one."""
    presenter = getattr(bot, "presenters", {}).get(kind)
    group = getattr(presenter, "app_command", None)
    return group if isinstance(group, app_commands.Group) else None


def _other_commands(bot: Any, say: Say) -> list[str]:
    """The bot's commands that belong to no game (ladders, replays, settings...), as the tree has them."""
    games = {group.name for game in descriptions() if (group := _game_group(bot, game.kind)) is not None}
    slash = bot.tree.get_commands(type=discord.AppCommandType.chat_input)
    # Each named as its reader's Discord shows it (a clickable mention, or the name in their language).
    return [f"{say(command_mention(bot, command.name))}: {command_words(command.description, say.language)}"
            for command in sorted(slash, key=lambda c: c.name) if command.name not in games and command.name != "help"]


def _game(kind: str) -> GameDescription:
    game = next((game for game in descriptions() if game.kind == kind), None)
    if game is None:
        raise ServiceError(Text("That game is no longer played on this bot; see /help for the games there are."))
    return game


class RulesButton(Button, custom_id=CustomId("help:rules:{kind}", kind=_KIND)):
    """Shows a game's rules, just to whoever clicks."""

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        game = _game(self.fields["kind"])
        say = Say.to(interaction)
        controls = discord.ui.View(timeout=None)
        controls.add_item(_start_button(game, say))
        await interaction.response.send_message(embed=rules_embed(game, say), view=controls, ephemeral=True)


class StartButton(Button, custom_id=CustomId("help:start:{kind}", kind=_KIND)):
    """Says how to start a game (a button cannot run a command: its answer holds clickable command mentions)."""

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        game = _game(self.fields["kind"])
        disabled = False
        if interaction.guild_id is not None:
            settings = await interaction.client.server_settings.get(interaction.guild_id)
            disabled = game.kind in settings.disabled_games
        await interaction.response.send_message(start_text(interaction.client, game, disabled, Say.to(interaction)),
                                                ephemeral=True,
                                                allowed_mentions=discord.AllowedMentions.none())


class HelpCog(commands.Cog, name="Help"):
    def __init__(self, bot: Any) -> None:
        self.bot = bot

    @app_commands.command(name="help", description="What I can do: every game, its rules, and how to start one")
    async def help(self, interaction: discord.Interaction[Any]) -> None:
        say = Say.to(interaction)
        await interaction.response.send_message(embed=help_embed(self.bot, say), view=help_controls(say),
                                                ephemeral=True)

    async def cog_unload(self) -> None:
        self.bot.remove_dynamic_items(RulesButton, StartButton)


async def setup(bot: Any) -> None:
    bot.add_dynamic_items(RulesButton, StartButton)
    await bot.add_cog(HelpCog(bot))
