"""Computer opponents. Each one reads a single `PlayerView` (its own seat's) and returns an action text.

The AI never sees the omniscient state: `choose_action` is handed `state.view_for(seat)` and nothing else,
so it knows its own ranks, the enemy's squares, and the rank sets its seat has deduced from challenges.

Levels:
- random: any legal action.
- greedy: the move with the best immediate expected material gain, counting every rank an enemy piece
  may still have as equally likely (the baseline).
- strong: determinised search. It samples complete enemy armies consistent with the view (the per-piece
  rank sets and the army's counts, with a prior that puts the Flag on quiet pieces near the back), then
  scores each move in every sample by its result, the enemy's most damaging reply (any challenge, a Flag
  step onto our back rank, a step next to our Flag) and a static evaluation (material; closing in on the
  enemy Flag; enemies near our Flag, and whether a threatened Flag can still flee or be rescued; Spies
  closing in on Generals), and plays the best mean. The number of samples shrinks in crowded melees, by
  a work estimate rather than the clock, so a decision stays well under a second and depends only on the
  view and the rng.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

from games.generals.pieces import Rank, Result, challenge
from games.generals.rules import FLAG_RUSH_ALWAYS_WAIT, FLAG_RUSH_IMMEDIATE, Settings
from games.generals.setup import compact, formation, random_setup
from games.generals.squares import (
    NEIGHBOURS,
    SQUARES,
    advance,
    distance,
    parse_square,
    rank_of,
    square_name,
    target_rank,
)
from games.generals.views import SETUP, PlayerView

LEVELS = ("random", "greedy", "strong")  # GeneralsState.BOT_LEVELS
WIN = 1000.0
SAMPLES = 16  # enemy armies sampled per decision
MIN_SAMPLES = 2
WORK_BUDGET = 12_000  # static evaluations per decision: sized for a decision of about a quarter second on a slow core
VALUE: dict[Rank, float] = {
    Rank.FLAG: 0.0, Rank.SPY: 7.0, Rank.PRIVATE: 1.2, Rank.SERGEANT: 1.5, Rank.SECOND_LIEUTENANT: 2.0,
    Rank.FIRST_LIEUTENANT: 2.5, Rank.CAPTAIN: 3.0, Rank.MAJOR: 3.5, Rank.LIEUTENANT_COLONEL: 4.0,
    Rank.COLONEL: 4.5, Rank.GENERAL_1: 5.5, Rank.GENERAL_2: 6.5, Rank.GENERAL_3: 7.5, Rank.GENERAL_4: 8.5,
    Rank.GENERAL_5: 10.0,
}
DIST = tuple(tuple(distance(a, b) for b in SQUARES) for a in SQUARES)


def choose_action(view: PlayerView, level: str, rng: random.Random) -> str:
    """The action text the computer player of `level` takes in `view` (its own seat's view)."""
    if not view.legal:
        raise ValueError("the bot was asked to act with no legal action")
    if view.phase == SETUP:
        return _setup_action(view, level, rng)
    if level == "random":
        return rng.choice(view.legal)
    model = Model.from_view(view)
    if level == "greedy":
        return model.text(greedy_move(model, rng))
    return model.text(strong_move(model, rng))


def _setup_action(view: PlayerView, level: str, rng: random.Random) -> str:
    if view.own:
        return "ready"
    if level == "random":
        grid = random_setup(rng, view.seat, view.settings)
    else:
        name = "balanced" if level == "greedy" else rng.choice(("balanced", "flag-fortress"))
        grid = formation(name, rng, view.seat, view.settings)
    return "setup:" + compact(grid)


Step = tuple[int, int]


@dataclass
class Model:
    """The AI's working copy of its view, with squares as integers."""

    seat: int
    settings: Settings
    mine: dict[int, Rank]
    theirs: dict[int, frozenset[Rank]]
    their_moves: dict[int, int]
    their_lost: list[frozenset[Rank]]
    moves: list[Step]
    quiet: int = 0  # moves since the last challenge

    @property
    def stand_off(self) -> bool:
        """Whether nobody has challenged for a long while: then the hunt for the Flag presses harder."""
        return self.quiet > STAND_OFF

    @property
    def hunt(self) -> float:
        """The pull toward the enemy Flag, growing through a stand-off so that it ends."""
        return HUNT * (1 + max(0, self.quiet - STAND_OFF) / 10)

    @classmethod
    def from_view(cls, view: PlayerView) -> Model:
        def sq(name: str) -> int:
            found = parse_square(name)
            assert found is not None
            return found

        moves = []
        for text in view.legal:
            src, _, dst = text.partition("-")
            moves.append((sq(src), sq(dst)))
        return cls(
            seat=view.seat, settings=view.settings, mine={sq(p.square): p.rank for p in view.own},
            theirs={sq(p.square): p.possible for p in view.enemy},
            their_moves={sq(p.square): p.moves for p in view.enemy}, their_lost=list(view.enemy_lost), moves=moves,
            quiet=view.quiet,
        )

    @staticmethod
    def text(step: Step) -> str:
        return f"{square_name(step[0])}-{square_name(step[1])}"

    def arrival_wins(self, side: int, dst: int, opponents: dict[int, Rank] | dict[int, frozenset[Rank]]) -> bool:
        """Whether a Flag of `side` stepping onto `dst` on the enemy back rank wins at once."""
        if self.settings.flag_rush == FLAG_RUSH_IMMEDIATE:
            return True
        if self.settings.flag_rush == FLAG_RUSH_ALWAYS_WAIT:
            return False
        return not any(nb in opponents for nb in NEIGHBOURS[dst])


# ----- greedy ------------------------------------------------------------------------------------------------
def greedy_move(model: Model, rng: random.Random) -> Step:
    """The best immediate expected gain, every possible enemy rank equally likely; else a step forward."""

    def score(step: Step) -> float:
        src, dst = step
        rank = model.mine[src]
        if dst in model.theirs:
            possible = model.theirs[dst]
            return sum(_gain(rank, r) for r in possible) / len(possible)
        if rank == Rank.FLAG:  # the Flag stays home unless it can win on the spot
            on_target = rank_of(dst) == target_rank(model.seat)
            return WIN if on_target and model.arrival_wins(model.seat, dst, model.theirs) else -0.1
        return 0.05 * (advance(model.seat, dst) - advance(model.seat, src))

    # The small random term breaks ties without favouring the first square in the list.
    return max(model.moves, key=lambda step: score(step) + 0.01 * rng.random())


def _gain(mine: Rank, theirs: Rank) -> float:
    """Material change for the attacker when `mine` attacks `theirs`."""
    ruling = challenge(mine, theirs)
    if theirs == Rank.FLAG and ruling == Result.ATTACKER:
        return WIN
    if mine == Rank.FLAG and ruling != Result.ATTACKER:
        return -WIN
    if ruling == Result.ATTACKER:
        return VALUE[theirs]
    if ruling == Result.DEFENDER:
        return -VALUE[mine]
    return VALUE[theirs] - VALUE[mine]


# ----- strong: sampling enemy armies -------------------------------------------------------------------------
def sample_armies(model: Model, rng: random.Random, count: int) -> list[dict[int, Rank]]:
    """`count` assignments of ranks to the enemy's standing pieces consistent with the view."""
    return [_sample_one(model, rng) for _ in range(count)]


def _flag_weight(model: Model, sq: int) -> float:
    """Prior weight of the Flag standing on `sq`: quiet pieces near their own back rank are likelier."""
    enemy = 1 - model.seat
    return 1.0 / (1.0 + 1.5 * model.their_moves[sq]) * 0.6 ** advance(enemy, sq)


def _sample_one(model: Model, rng: random.Random) -> dict[int, Rank]:
    army = Counter(model.settings.army)
    candidates = [sq for sq, possible in model.theirs.items() if Rank.FLAG in possible]
    for _attempt in range(20):
        world: dict[int, Rank] = {}
        remaining = Counter(army)
        if candidates:
            flag = rng.choices(candidates, weights=[_flag_weight(model, sq) for sq in candidates])[0]
            world[flag] = Rank.FLAG
            remaining[Rank.FLAG] -= 1
        # The Flag is always standing (the game is on), so the eliminated pieces never hold it.
        others: list[tuple[int | None, frozenset[Rank]]] = [(sq, p) for sq, p in model.theirs.items()
                                                            if sq not in world]
        others += [(None, p - {Rank.FLAG}) for p in model.their_lost]
        rng.shuffle(others)
        others.sort(key=lambda item: len(item[1]))
        if _fill(world, others, remaining, rng):
            return world
    # Contradictory samples are rare; fall back to each piece's own set, ignoring the army's counts.
    return {sq: rng.choice(sorted(p)) for sq, p in model.theirs.items()}


def _fill(world: dict[int, Rank], pieces: list[tuple[int | None, frozenset[Rank]]], remaining: Counter[Rank],
          rng: random.Random) -> bool:
    for sq, possible in pieces:
        options = [r for r in possible if remaining[r] > 0 and r != Rank.FLAG]
        if not options:
            return False
        rank = rng.choices(options, weights=[remaining[r] for r in options])[0]
        remaining[rank] -= 1
        if sq is not None:
            world[sq] = rank
    return True


# ----- strong: search -----------------------------------------------------------------------------------------
HUNT = 0.25  # per step between the nearest hunter and the enemy Flag
DANGER = 1.5  # per step an enemy piece stands inside distance 3 of our Flag
SPY_HUNT = 0.2  # per step between each of our Spies and the nearest enemy General
STAND_OFF = 20  # moves without a challenge after which the hunt presses harder


def strong_move(model: Model, rng: random.Random) -> Step:
    """Determinised search: the move with the best mean score over sampled enemy armies."""
    worlds = sample_armies(model, rng, samples_for(model))
    totals = [0.0] * len(model.moves)
    for world in worlds:
        for i, score in enumerate(_score_moves(model, world)):
            totals[i] += score
    best = max(totals)
    # Near-equal moves are chosen at random so that the bot is not predictable.
    choices = [m for m, t in zip(model.moves, totals, strict=True) if t >= best - 0.05 * len(worlds)]
    return rng.choice(choices)


def samples_for(model: Model) -> int:
    """How many armies to sample: SAMPLES, fewer in crowded melees so a decision stays well under a second.

    The work per sample is about one static evaluation per move and enemy reply; counting it from the
    position (not the clock) keeps the choice a pure function of the view and the rng.
    """
    contacts = sum(nb in model.theirs for sq in model.mine for nb in NEIGHBOURS[sq])
    work = len(model.moves) * (1 + contacts)
    return max(MIN_SAMPLES, min(SAMPLES, WORK_BUDGET // max(1, work)))


def _score_moves(model: Model, theirs: dict[int, Rank]) -> list[float]:
    mine = model.mine
    material = sum(VALUE[r] for r in mine.values()) - sum(VALUE[r] for r in theirs.values())
    return [_score_move(model, mine, theirs, material, src, dst) for src, dst in model.moves]


def _score_move(model: Model, mine: dict[int, Rank], theirs: dict[int, Rank], material: float,
                src: int, dst: int) -> float:
    rank = mine[src]
    after_mine = dict(mine)
    del after_mine[src]
    after_theirs = theirs
    waiting = False
    if dst in theirs:
        defender = theirs[dst]
        ruling = challenge(rank, defender)
        after_theirs = dict(theirs)
        if ruling == Result.ATTACKER:
            if defender == Rank.FLAG:
                return WIN
            after_mine[dst] = rank
            del after_theirs[dst]
            material += VALUE[defender]
        elif ruling == Result.DEFENDER:
            if rank == Rank.FLAG:
                return -WIN
            material -= VALUE[rank]
        else:
            del after_theirs[dst]
            material += VALUE[defender] - VALUE[rank]
    else:
        after_mine[dst] = rank
        if rank == Rank.FLAG and rank_of(dst) == target_rank(model.seat):
            if model.arrival_wins(model.seat, dst, theirs):
                return WIN
            waiting = True
    return _worst_reply(model, after_mine, after_theirs, material, waiting)


def _worst_reply(model: Model, mine: dict[int, Rank], theirs: dict[int, Rank], material: float,
                 waiting: bool) -> float:
    """Our score after the enemy's most damaging reply.

    Replies considered: every challenge, a Flag step onto our back rank, a step next to our Flag (the
    threat the static evaluation then has to answer), and any other quiet move (the position as it is).
    """
    enemy = 1 - model.seat
    my_flag = _flag_square(mine)
    worst = WIN if waiting else _static(model, mine, theirs, material)
    for sq, rank in theirs.items():
        for nb in NEIGHBOURS[sq]:
            if nb in mine:
                score = _after_enemy_challenge(model, mine, theirs, material, sq, rank, nb)
            elif nb in theirs:
                continue
            elif rank == Rank.FLAG and rank_of(nb) == target_rank(enemy):
                score = -WIN if model.arrival_wins(enemy, nb, mine) else worst
            elif not waiting and my_flag is not None and DIST[nb][my_flag] == 1:
                stepped = dict(theirs)
                del stepped[sq]
                stepped[nb] = rank
                score = _static(model, mine, stepped, material)
            else:
                continue
            if score < worst:
                worst = score
    return worst


def _flag_square(pieces: dict[int, Rank]) -> int | None:
    for sq, rank in pieces.items():
        if rank == Rank.FLAG:
            return sq
    return None


def _flag_can_be_saved(flag: int, attackers: list[int], mine: dict[int, Rank], theirs: dict[int, Rank]) -> bool:
    """With us to move: can our Flag step to a square no enemy touches, or can we take its only attacker?"""
    for nb in NEIGHBOURS[flag]:
        if nb not in mine and nb not in theirs and not any(x in theirs for x in NEIGHBOURS[nb]):
            return True
    if len(attackers) != 1:
        return False
    attacker = attackers[0]
    return any(sq in mine and sq != flag and challenge(mine[sq], theirs[attacker]) != Result.DEFENDER
               for sq in NEIGHBOURS[attacker])


def _after_enemy_challenge(model: Model, mine: dict[int, Rank], theirs: dict[int, Rank], material: float,
                           src: int, rank: Rank, dst: int) -> float:
    defender = mine[dst]
    ruling = challenge(rank, defender)
    if defender == Rank.FLAG and ruling == Result.ATTACKER:
        return -WIN
    if rank == Rank.FLAG and ruling != Result.ATTACKER:
        return WIN
    after_mine, after_theirs = dict(mine), dict(theirs)
    del after_theirs[src]
    if ruling == Result.ATTACKER:
        del after_mine[dst]
        after_theirs[dst] = rank
        material -= VALUE[defender]
    elif ruling == Result.DEFENDER:
        material += VALUE[rank]
    else:
        del after_mine[dst]
        material += VALUE[rank] - VALUE[defender]
    return _static(model, after_mine, after_theirs, material)


def _static(model: Model, mine: dict[int, Rank], theirs: dict[int, Rank], material: float) -> float:
    """Material plus the Flag terms and the Spies' hunt, with us to move."""
    score = material
    my_flag, their_flag = _flag_square(mine), _flag_square(theirs)
    if their_flag is not None:
        row = DIST[their_flag]
        hunters = sorted(row[sq] for sq, rank in mine.items() if rank != Rank.FLAG)
        if hunters:
            # In a stand-off two hunters close in: a lone one can chase a fleeing Flag round the board for ever.
            closest = hunters[:2] if model.stand_off else hunters[:1]
            score -= model.hunt * sum(closest) / len(closest)
    if my_flag is not None:
        row = DIST[my_flag]
        for sq in theirs:
            if row[sq] < 3:
                score -= DANGER * (3 - row[sq])
        attackers = [sq for sq in NEIGHBOURS[my_flag] if sq in theirs]
        if attackers and not _flag_can_be_saved(my_flag, attackers, mine, theirs):
            score -= WIN / 2  # the Flag falls next move unless the enemy fails to see it
    # Spies close in on the enemy Generals, the only pieces worth their risk.
    for sq, rank in mine.items():
        if rank == Rank.SPY:
            row = DIST[sq]
            score -= SPY_HUNT * min((row[t] for t, r in theirs.items() if r >= Rank.GENERAL_1), default=0)
    return score

