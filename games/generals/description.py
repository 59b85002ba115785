"""Game of the Generals as the product lists it (see games/registry.py)."""

from games.generals.rules import MAX_NO_CHALLENGE_DRAW, MOVE_LIMIT, QUIET_LIMIT
from games.registry import GameDescription
from games.text import Text, TextIn

# One text, so that a translator sees the rules whole. The ranks and the small army are written out (tests check
# them against games/generals/pieces.py, in every language: a rank's name here is the one the boards use).
RULES = Text(
    "Salpakan: two armies of 21 pieces on a board of 9 files (a-i) by 8 ranks (1-8). You see the ranks of your "
    "own pieces only; your opponent's show as blank pieces. I am the neutral arbiter.\n"
    "\n"
    "**Setup**, on your private board (in my DM, or **My board** in the channel): place all 21 pieces on your three "
    "home ranks (27 squares, 6 stay empty). Side A (white) sets up on ranks 1-3, side B (black) on ranks 6-8. Pick "
    "a formation from the menu, then swap squares with the square menus (pick a square, then the one to swap it "
    "with), **Import grid…** or **Export grid**, **Save formation…** for later games, and press **Ready**. Play "
    "begins when both armies are ready.\n"
    "\n"
    "**Squares and moves**: a square is its file and rank, the same for both players (`e3`); a move is from-to: "
    "`e3-e4`. A piece steps one square forward, back or sideways: never diagonally, never onto your own piece. "
    "Every piece moves alike, the Flag too. Move with the piece menu and direction buttons on your board, or "
    "`/generals move e3-e4` (start typing a square to see your moves).\n"
    "\n"
    "**Ranks**, high to low, as boards abbreviate them: `5G` 5★ General, `4G` 4★ General, `3G` 3★ General, "
    "`2G` 2★ General, `1G` 1★ General, `COL` Colonel, `LTC` Lt. Colonel, `MAJ` Major, `CPT` Captain, "
    "`1LT` 1st Lieutenant, `2LT` 2nd Lieutenant, `SGT` Sergeant, `PVT` Private \N{MULTIPLICATION SIGN}6, "
    "`SPY` Spy \N{MULTIPLICATION SIGN}2, `FLG` Flag.\n"
    "\n"
    "**Challenges**: stepping onto an enemy piece challenges it. I compare the ranks and announce only the "
    "result (the attacker won, the defender held, or both were eliminated), never a rank:\n"
    "• the higher rank eliminates the lower; equal ranks eliminate each other;\n"
    "• the Spy eliminates every officer (Sergeant up to 5★ General) but loses to a Private;\n"
    "• any piece eliminates the Flag; a Flag that attacks anything but the Flag is eliminated; Flag against "
    "Flag, the attacker wins.\n"
    "The winner keeps or takes the square. Your own piece's rank tells you what a result means.\n"
    "\n"
    "**You win** by eliminating the enemy Flag, or by bringing your own Flag to the far rank (8 for side A, 1 for "
    "side B). If an enemy piece stands next to it there, your opponent has one more move to eliminate it; I do "
    "not announce its arrival. You may also resign or offer a draw. When the game ends, every piece is revealed.\n"
    "\n"
    "**Every game ends**: it is drawn after {moves} moves of play in all (setting up is no move), and after {quiet} "
    "moves in a row without a challenge, whatever `no-challenge-draw` says.\n"
    "\n"
    "**Settings** (`/generals challenge settings:`, separated by spaces; off unless chosen):\n"
    "`flag-rush-immediate`: a Flag on the far rank wins at once, even next to an enemy piece.\n"
    "`flag-rush-always-wait`: a Flag on the far rank always waits for one reply.\n"
    "`reveal-winner`: the loser of a challenge learns the rank of the piece that beat it.\n"
    "`show-flag`: each Flag's square is shown to the opponent.\n"
    "`small-army`: 11 pieces each for a quicker game (5G, 4G, 3G, COL, MAJ, CPT, SGT, PVT \N{MULTIPLICATION SIGN}2, "
    "SPY, FLG).\n"
    "`no-challenge-draw=N`: N moves in a row without a challenge draw the game (N up to {limit}).",
    limit=MAX_NO_CHALLENGE_DRAW, moves=MOVE_LIMIT, quiet=QUIET_LIMIT,
)

DESCRIPTION = GameDescription(
    kind="generals",
    title=Text("Game of the Generals"),
    min_players=2,
    max_players=2,
    hidden_information=True,
    bot_levels=("random", "greedy", "strong"),
    default_bot_level="strong",
    start_command="/generals challenge",
    summary=Text("Salpakan: two armies of 21 hidden pieces. Each player sets up and plays from a private board; "
                 "the bot is the neutral arbiter of every challenge and never tells a rank. Capture the enemy "
                 "Flag, or bring your own to the far side."),
    engine="games.generals.engine:GeneralsState",
    computer="games.generals.computer:bot_action",
    presenter="bot.games.generals",
    rules=RULES,
    turn_word=TextIn("turn word", "move"),  # as in "24 h per move"
)
