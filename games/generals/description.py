"""Game of the Generals as the product lists it (see games/registry.py)."""

from games.generals.pieces import FULL_ARMY, SMALL_ARMY
from games.generals.rules import MAX_NO_CHALLENGE_DRAW
from games.registry import GameDescription

TIMES = "\N{MULTIPLICATION SIGN}"  # as in "Private x6", with the proper sign


def _ranks() -> str:
    """Every rank, high to low, with the abbreviation boards show and how many an army has."""
    parts = []
    for rank in sorted(set(FULL_ARMY), reverse=True):
        count = FULL_ARMY.count(rank)
        parts.append(f"`{rank.abbreviation}` {rank.title}" + (f" {TIMES}{count}" if count > 1 else ""))
    return ", ".join(parts)


def _small_army() -> str:
    """The small army's pieces, high to low, as boards abbreviate them."""
    return ", ".join(r.abbreviation + (f" {TIMES}{SMALL_ARMY.count(r)}" if SMALL_ARMY.count(r) > 1 else "")
                     for r in sorted(set(SMALL_ARMY), reverse=True))


RULES = "\n".join([
    "Salpakan: two armies of 21 pieces on a board of 9 files (a-i) by 8 ranks (1-8). You see the ranks of your "
    "own pieces only; your opponent's show as blank pieces. I am the neutral arbiter.",
    "",
    "**Setup**, on your private board (in my DM, or **My board** in the channel): place all 21 pieces on your three "
    "home ranks (27 squares, 6 stay empty). Side A (white) sets up on ranks 1-3, side B (black) on ranks 6-8. Pick "
    "a formation from the menu, then swap squares with the square menus (pick a square, then the one to swap it "
    "with), **Import grid…** or **Export grid**, **Save formation…** for later games, and press **Ready**. Play "
    "begins when both armies are ready.",
    "",
    "**Squares and moves**: a square is its file and rank, the same for both players (`e3`); a move is from-to: "
    "`e3-e4`. A piece steps one square forward, back or sideways: never diagonally, never onto your own piece. "
    "Every piece moves alike, the Flag too. Move with the piece menu and direction buttons on your board, or "
    "`/generals move e3-e4` (start typing a square to see your moves).",
    "",
    f"**Ranks**, high to low, as boards abbreviate them: {_ranks()}.",
    "",
    "**Challenges**: stepping onto an enemy piece challenges it. I compare the ranks and announce only the "
    "result (the attacker won, the defender held, or both were eliminated), never a rank:",
    "• the higher rank eliminates the lower; equal ranks eliminate each other;",
    "• the Spy eliminates every officer (Sergeant up to 5★ General) but loses to a Private;",
    "• any piece eliminates the Flag; a Flag that attacks anything but the Flag is eliminated; Flag against "
    "Flag, the attacker wins.",
    "The winner keeps or takes the square. Your own piece's rank tells you what a result means.",
    "",
    "**You win** by eliminating the enemy Flag, or by bringing your own Flag to the far rank (8 for side A, 1 for "
    "side B). If an enemy piece stands next to it there, your opponent has one more move to eliminate it; I do "
    "not announce its arrival. You may also resign or offer a draw. When the game ends, every piece is revealed.",
    "",
    "**Settings** (`/generals challenge settings:`, separated by spaces; off unless chosen):",
    "`flag-rush-immediate`: a Flag on the far rank wins at once, even next to an enemy piece.",
    "`flag-rush-always-wait`: a Flag on the far rank always waits for one reply.",
    "`reveal-winner`: the loser of a challenge learns the rank of the piece that beat it.",
    "`show-flag`: each Flag's square is shown to the opponent.",
    f"`small-army`: 11 pieces each for a quicker game ({_small_army()}).",
    f"`no-challenge-draw=N`: N moves in a row without a challenge draw the game (N up to {MAX_NO_CHALLENGE_DRAW}).",
])

DESCRIPTION = GameDescription(
    kind="generals",
    title="Game of the Generals",
    min_players=2,
    max_players=2,
    hidden_information=True,
    bot_levels=("random", "greedy", "strong"),
    default_bot_level="strong",
    start_command="/generals challenge",
    summary=("Salpakan: two armies of 21 hidden pieces. Each player sets up and plays from a private board; "
             "the bot is the neutral arbiter of every challenge and never tells a rank. Capture the enemy "
             "Flag, or bring your own to the far side."),
    engine="games.generals.engine:GeneralsState",
    computer="games.generals.computer:bot_action",
    presenter="bot.games.generals",
    rules=RULES,
    turn_word="move",
)
