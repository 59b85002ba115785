"""Chopsticks as the product lists it (see games/registry.py)."""

from typing import Any

from games.chopsticks.rules import MAX_PLAYERS, MAX_PLIES, MIN_PLAYERS, PRESETS, VARIANTS
from games.registry import GameDescription
from games.text import Joined, Plural, Text, TextIn


def _preset_text(name: str, options: dict[str, Any]) -> Text | str:
    """A preset as players read it: `three-hands` (3 hands, rollover 7)."""
    parts: list[Text | str] = list(options.get("variants", ()))
    if "hands" in options:
        parts.append(Plural("{count} hand", "{count} hands", options["hands"]))
    if "rollover" in options:
        parts.append(Text("rollover {number}", number=options["rollover"]))
    if "lives" in options:
        parts.append(Plural("{count} life", "{count} lives", options["lives"]))
    if options.get("odd"):
        parts.append(Text("odd totals allowed"))
    if not parts or parts == [name]:
        return f"`{name}`"
    return Joined([f"`{name}` (", Joined(parts, ", "), ")"], "")


# The variants and presets are listed from games/chopsticks/rules.py, so this text never misses one. Each paragraph is
# a text of its own (translated where shown); the notation in them (`1312`, `AC`, `13-22`) and the variant and preset
# names are what players type, in every language.
RULES = Joined([
    Text("Every player holds up two hands; each starts with **1** finger."),
    "",
    Text("**On your turn** do one thing:"),
    Text("• **Tap**: one of your live hands taps a live hand of an opponent, which gains as many fingers as yours "
         "shows. Exactly 5 kills it (0); above 5, take 5 away (4 taps 2 makes 6, which is 1)."),
    Text("• **Split**: share your fingers between your own hands another way, both hands 1-4 (`04` → `13`, or "
         "revive a dead hand: `02` → `11`). Just swapping your two hands is no move."),
    Text("A player whose hands are both dead is out. You win when every opponent is out. The third time the same "
         "position comes up, the game is drawn; you may also offer a draw or resign."),
    Text("Every game ends: after {count} moves in all it is drawn, whatever the rules. When no person is left at "
         "the table, the game ends at once: the computer players still in share first place.", count=MAX_PLIES),
    "",
    Text("**Notation**"),
    Text("• Hands are lettered in turn order: the player to move has **A** and **B**, the next player **C** and "
         "**D**, and so on (the board lists players in that order)."),
    Text("• A **position code** such as `1312` writes each player's hands smallest first, starting with the player "
         "to move: `1312` means you have 1 and 3, your opponent 1 and 2. A dead hand is `0`, a player who is out "
         "`00`; with stumps a half finger is a letter (`a` = ½, `b` = 1½)."),
    Text("• **Moves**: `AC` = your hand A taps hand C. `13-22` = a split, your hands before and after "
         "(1 and 3 become 2 and 2). With variants: `AB` taps your own hand (self-attack), `swap`, `flipB` "
         "(integers)."),
    Text("• `/chopsticks analyze code:1312` gives the perfect-play verdict and best moves for any position."),
    "",
    Text("**Tables**: `/chopsticks challenge` plays the standard game against someone or against me. "
         "`/chopsticks new` opens a table for {fewest}-{most} players with your own rules: `hands` (1-4), `rollover` "
         "(the fingers that kill a hand, 2-10), `variants`, `lives`, a `preset`, and `hints` (the player to move "
         "may ask me for one). `/chopsticks rules` with options explains that rule set.",
         fewest=MIN_PLAYERS, most=MAX_PLAYERS),
    "",
    Text("**Variants** (combine them: `variants:cutoff suicide`)"),
    *(Joined([f"`{name}`: ", text], "") for name, text in VARIANTS.items()),
    "",
    Text("**Presets**: {presets}.", presets=Joined([_preset_text(name, options) for name, options in PRESETS.items()],
                                                    ", ")),
])

DESCRIPTION = GameDescription(
    kind="chopsticks",
    title=Text("Chopsticks"),
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    hidden_information=False,
    bot_levels=("easy", "medium", "perfect"),
    default_bot_level="medium",
    start_command="/chopsticks challenge",
    summary=Text("The finger game: tap an opponent's hand to add your fingers to it, or split your own; a hand "
                 "with five fingers is out, and so is a player with no hands left. Every classic variant, tables "
                 "of up to six, and a perfect-play opponent."),
    engine="games.chopsticks.engine:ChopsticksState",
    computer="games.chopsticks.bots:bot_action",
    presenter="bot.games.chopsticks",
    rules=RULES,
    turn_word=TextIn("turn word", "move"),
)
