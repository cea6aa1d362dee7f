-- Correspondence games. The truth of a game is its start position plus its
-- actions in order; `position`, `ply`, `to_move` and `result` are kept beside
-- them for listing and reading without a replay.
CREATE TABLE games (
    id TEXT PRIMARY KEY NOT NULL,
    created_by TEXT REFERENCES users (id) ON DELETE SET NULL,
    -- open (waiting for players) | active | finished | cancelled | expired
    status TEXT NOT NULL,
    -- NULL: unlimited time
    days_per_move INTEGER,
    stuck_piece TEXT NOT NULL,
    illumination TEXT NOT NULL,
    -- Two seats that start allied (R11), e.g. 'fm'
    allies TEXT,
    start_position TEXT NOT NULL,
    position TEXT NOT NULL,
    ply INTEGER NOT NULL,
    -- Number of actions taken: moves, alliances, resignations, time-outs
    seq INTEGER NOT NULL DEFAULT 0,
    -- Bumped by every change: optimistic locking between server processes
    version INTEGER NOT NULL DEFAULT 0,
    to_move TEXT,
    -- JSON: winner, draw, reason
    result TEXT,
    -- When the player to move runs out of time
    deadline TIMESTAMP,
    -- The `seq` whose deadline reminder has been written, so it is written once
    reminded_seq INTEGER,
    -- Open seats and invitations lapse at this time
    expires_at TIMESTAMP,
    imported BOOLEAN NOT NULL DEFAULT FALSE,
    created_at TIMESTAMP NOT NULL,
    started_at TIMESTAMP,
    finished_at TIMESTAMP,
    updated_at TIMESTAMP NOT NULL
);
CREATE INDEX games_status_deadline_idx ON games (status, deadline);
CREATE INDEX games_status_expires_idx ON games (status, expires_at);

CREATE TABLE game_seats (
    game_id TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    -- first | middle | last
    seat TEXT NOT NULL,
    user_id TEXT REFERENCES users (id) ON DELETE SET NULL,
    -- A name for seats without an account (imported records)
    display_name TEXT,
    -- open | invited | joined | declined
    state TEXT NOT NULL,
    joined_at TIMESTAMP,
    PRIMARY KEY (game_id, seat)
);
CREATE UNIQUE INDEX game_seats_game_user_idx ON game_seats (game_id, user_id);
CREATE INDEX game_seats_user_idx ON game_seats (user_id);

CREATE TABLE game_actions (
    game_id TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    -- 1, 2, 3… in the order taken
    seq INTEGER NOT NULL,
    -- For moves: the ply it was played at. Unique, so two submissions for the
    -- same ply can never both be stored, whichever process takes them.
    ply INTEGER,
    -- move | alliance | resign | timeout
    kind TEXT NOT NULL,
    -- 7k7j, ally:fm, resign:m, timeout:l
    notation TEXT NOT NULL,
    seat TEXT,
    user_id TEXT REFERENCES users (id) ON DELETE SET NULL,
    position_after TEXT NOT NULL,
    -- JSON list of what the rules did besides the move
    effects TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE UNIQUE INDEX game_actions_game_ply_idx ON game_actions (game_id, ply);

CREATE TABLE alliance_proposals (
    id TEXT PRIMARY KEY NOT NULL,
    game_id TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    from_seat TEXT NOT NULL,
    to_seat TEXT NOT NULL,
    -- pending | accepted | declined | withdrawn | lapsed
    status TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL,
    resolved_at TIMESTAMP
);
CREATE INDEX alliance_proposals_game_idx ON alliance_proposals (game_id, status);

-- The outbox: one row per event and recipient, written in the same
-- transaction as the change it reports. Delivery reads it.
CREATE TABLE game_events (
    id TEXT PRIMARY KEY NOT NULL,
    game_id TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    -- game.invited, game.started, game.your_turn, game.move, …
    event_type TEXT NOT NULL,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    -- JSON
    payload TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL
);
CREATE INDEX game_events_user_idx ON game_events (user_id, created_at);
CREATE INDEX game_events_game_idx ON game_events (game_id, created_at);
