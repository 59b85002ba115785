"""So Long Sucker as the product lists it (see games/registry.py)."""

from games.registry import GameDescription
from games.sucker.rules import DECISION_LIMIT, DEFAULT_CHIPS, MAX_CHIPS, MAX_PLAYERS, MIN_CHIPS, MIN_PLAYERS
from games.text import Joined, Text, TextIn

# The rules page's cases, taught with a short game; colours name the players, as the table does. Each paragraph is a
# text of its own, translated where shown.
RULES = Joined([
    Text("A game of alliances and betrayal by John Nash and friends (1950). You cannot win alone, and only one "
         "player wins."),
    "",
    Text("**The table**: {fewest}-{most} players (4 by default), each with a colour and {chips} chips of it "
         "({low}-{high} with `/sucker new chips:`). Chips you hold of another colour are your **prisoners**. "
         "Everything everyone holds is public. The first player is drawn at random.",
         fewest=MIN_PLAYERS, most=MAX_PLAYERS, chips=DEFAULT_CHIPS, low=MIN_CHIPS, high=MAX_CHIPS),
    "",
    Text("**Your move**: play one chip you hold, of any colour, on top of a pile or as a new pile (**Play a chip** "
         "on the status message, then choose the pile). Then:"),
    Text("• **Capture**: if your chip matches the colour of the chip right under it, the *owner of that colour* "
         "captures the pile, even if that is not you. They **kill** one chip of it (it leaves the game), take the "
         "rest, and move next. If that colour's owner is already defeated, the whole pile is killed and you move "
         "again."),
    Text("• **No capture**: you **name the next player**: anyone still in whose colour is *not* in that pile, "
         "yourself included. If every colour still in is in the pile, there is no choice: the player whose latest "
         "chip in that pile lies deepest moves next."),
    "",
    Text("**Prisoners**: at any moment, even out of turn, you may **give** a prisoner to another player "
         "(`/sucker give`) or **kill** it (`/sucker kill`). Gifts are final. Chips of your own colour can be neither "
         "given nor killed. Prisoners are your currency: pay allies, buy a rescue, or starve a rival."),
    "",
    Text("**Deals**: promise, bribe and team up openly in the game's thread (`/sucker deal` posts a numbered "
         "proposal the table can accept). Nothing is binding and betrayal costs nothing but trust."),
    "",
    Text("**Rescue and defeat**: if you get the move with no chips, the players holding prisoners are asked in turn "
         "to **rescue** you by giving you one (**Rescue with a … chip** or **Decline to rescue**; any gift to you "
         "rescues you too). If all decline, you are **defeated**, and the move goes back to whoever gave it to you "
         "(further back if they are stuck too). Your chips still in play stay prisoners in other hands."),
    "",
    Text("**Winning**: the last player not defeated wins, even with no chips left. The others place in reverse "
         "order of defeat. You may resign at any time."),
    Text("**Every game ends**: after {count} decisions in all (chips played, next players named, chips killed from a "
         "capture, rescues given or declined) the players still in share the win. When no person is left at the "
         "table, the game ends at once: the computer players still in share the win.", count=DECISION_LIMIT),
    "",
    Text("**Example** (red, blue, green, yellow; piles bottom to top):"),
    Text("1. Red starts pile 1 with a red chip. No capture, and red is in the pile, so red names one of the others: "
         "green."),
    Text("2. Green plays green on pile 1 (red, green) and names blue."),
    Text("3. Blue starts pile 2 (blue) and names green."),
    Text("4. Green plays another green on pile 1 (red, green, green): green on green, so **green captures**. Green "
         "kills a green chip, takes back the other green and the red as a prisoner, and moves."),
    Text("5. Green plays that red prisoner on pile 2 (blue, red) and names yellow."),
    Text("6. Yellow plays yellow on pile 2 (blue, red, yellow). Green is the only colour not in it, so green moves "
         "next. Had yellow held a red prisoner and played it there instead, **red** would have captured the pile "
         "(not yellow), killed a chip and moved next."),
    Text("Meanwhile, in the thread, red offers blue a deal: \"name me next and I'll rescue you later\". Blue may "
         "accept, and red may break it."),
])

DESCRIPTION = GameDescription(
    kind="sucker",
    title=Text("So Long Sucker"),
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    hidden_information=False,
    bot_levels=("basic",),
    default_bot_level="basic",
    start_command="/sucker new",
    summary=Text("Nash's game of alliances and betrayal for 3-6 players: play chips onto piles, capture them, "
                 "hold prisoners and bargain with them. Deals are made openly and are never binding; the last "
                 "player standing wins."),
    engine="games.sucker.engine:SuckerState",
    computer="games.sucker.bots:bot_action",
    presenter="bot.games.sucker",
    rules=RULES,
    turn_word=TextIn("turn word", "decision"),  # as in "24 h per decision"
)
