-- Issue 25: tournaments, as rows: the tournament and its settings, its entrants, its rounds (one row each, created
-- once: the primary key) and each round's pairings with the game each one created and its result. The pure
-- `games.tournaments.Tournament` is rebuilt from these rows (storage/tournaments.py).
CREATE TABLE tournaments (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id         INTEGER,
    channel_id       INTEGER NOT NULL,
    organiser_id     INTEGER NOT NULL,
    kind             TEXT    NOT NULL,
    options          TEXT    NOT NULL DEFAULT '{}',  -- the game kind's rules and variants, as a game takes them
    settings         TEXT    NOT NULL,  -- the format's settings (games.tournaments.model.Settings, as to_dict has them)
    status           TEXT    NOT NULL CHECK (status IN ('open', 'running', 'paused', 'finished', 'cancelled')),
    starts_at        REAL,   -- when the organiser means to start it (shown; starting is still theirs)
    min_players      INTEGER NOT NULL,
    max_players      INTEGER NOT NULL,
    rated            INTEGER NOT NULL DEFAULT 1,
    turn_timeout     REAL,   -- each game's turn time (None: the server's)
    minimum_finished REAL,   -- the share of games finished a player needs to join (checked by the Discord part)
    round_time       REAL,   -- seconds a round may last (None: no round deadline)
    deadline_rule    TEXT NOT NULL DEFAULT 'draw' CHECK (deadline_rule IN ('draw', 'loss')),
    -- at a round's deadline each unfinished game is stopped: drawn among those still in ('draw'), or lost by the
    -- player to move ('loss')
    version          INTEGER NOT NULL DEFAULT 0,
    created_at       REAL    NOT NULL,
    finished_at      REAL
);
CREATE INDEX tournaments_by_status ON tournaments (status);
CREATE TABLE tournament_entrants (
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id),
    user_id       INTEGER NOT NULL,
    position      INTEGER NOT NULL,  -- join order
    rating        REAL    NOT NULL,  -- the rating that seeds them, read when they joined
    joined        INTEGER NOT NULL DEFAULT 1,  -- the first round they play
    start_points  REAL    NOT NULL DEFAULT 0,
    left_round    INTEGER,  -- not paired from this round on (withdrawn, removed, or absent twice)
    absences      INTEGER NOT NULL DEFAULT 0,  -- games lost by their turn timer
    PRIMARY KEY (tournament_id, user_id)
);
CREATE TABLE tournament_rounds (
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id),
    number        INTEGER NOT NULL,
    created_at    REAL    NOT NULL,
    deadline      REAL,  -- when its unfinished games are adjudicated (None: no deadline)
    ended_at      REAL,
    PRIMARY KEY (tournament_id, number)
);
-- A two-player pairing has first_id (moves first) and second_id (None: a bye) and a result ("1-0", ... as
-- games.tournaments.model.Result); a So Long Sucker table has its seats (a JSON array, null for a computer seat) and,
-- once it ends, each seat's place (a JSON array). `game_id` is the game the pairing made (None: a bye, a forfeit).
CREATE TABLE tournament_pairings (
    tournament_id INTEGER NOT NULL,
    round         INTEGER NOT NULL,
    position      INTEGER NOT NULL,
    first_id      INTEGER,
    second_id     INTEGER,
    seats         TEXT,
    game_id       INTEGER REFERENCES games (id),
    result        TEXT,
    places        TEXT,
    PRIMARY KEY (tournament_id, round, position),
    FOREIGN KEY (tournament_id, round) REFERENCES tournament_rounds (tournament_id, number)
);
CREATE UNIQUE INDEX tournament_pairings_by_game ON tournament_pairings (game_id) WHERE game_id IS NOT NULL;
