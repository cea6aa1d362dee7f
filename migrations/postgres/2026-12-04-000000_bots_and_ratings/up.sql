-- Computer players: an account whose bot_level is set is one of the
-- built-in bots. It has no password (the hash '!' verifies nothing, and
-- logging in refuses bots before looking at it) and no deliverable address.
ALTER TABLE users ADD COLUMN bot_level INTEGER CHECK (bot_level BETWEEN 1 AND 5);
INSERT INTO users (id, username, email, email_verified, password_hash, created_at, updated_at, bot_level)
VALUES
    ('00000000-0000-4000-8000-00000000b001', 'sannin-bot-1', 'sannin-bot-1@bots.invalid', FALSE, '!', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, 1),
    ('00000000-0000-4000-8000-00000000b002', 'sannin-bot-2', 'sannin-bot-2@bots.invalid', FALSE, '!', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, 2),
    ('00000000-0000-4000-8000-00000000b003', 'sannin-bot-3', 'sannin-bot-3@bots.invalid', FALSE, '!', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, 3),
    ('00000000-0000-4000-8000-00000000b004', 'sannin-bot-4', 'sannin-bot-4@bots.invalid', FALSE, '!', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, 4),
    ('00000000-0000-4000-8000-00000000b005', 'sannin-bot-5', 'sannin-bot-5@bots.invalid', FALSE, '!', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, 5);

-- A bot's pending work: a move when it is to move at `ply`, or an answer to
-- an alliance proposal. Written in the transaction that makes it due, and
-- run by the job queue (the four queue columns as in every channel's table);
-- the id names the turn, so the same turn is never queued twice.
CREATE TABLE bot_jobs (
    id TEXT PRIMARY KEY NOT NULL,
    game_id TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('move', 'proposal')),
    ply INTEGER NOT NULL,
    proposal_id TEXT,
    status TEXT NOT NULL CHECK (status IN ('pending', 'done', 'failed', 'cancelled')),
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TIMESTAMP NOT NULL,
    result TEXT,
    last_error TEXT,
    created_at TIMESTAMP NOT NULL
);
CREATE INDEX bot_jobs_due_idx ON bot_jobs (status, next_attempt_at);

-- Rated games change their players' ratings (Weng-Lin) when they finish.
ALTER TABLE games ADD COLUMN rated BOOLEAN NOT NULL DEFAULT FALSE;

-- A player's current rating: mean, uncertainty, the conservative value
-- shown (mean - 3 * uncertainty) and how many rated games it rests on.
CREATE TABLE ratings (
    user_id TEXT PRIMARY KEY NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    mu DOUBLE PRECISION NOT NULL,
    sigma DOUBLE PRECISION NOT NULL CHECK (sigma > 0),
    display DOUBLE PRECISION NOT NULL,
    games INTEGER NOT NULL CHECK (games >= 0),
    updated_at TIMESTAMP NOT NULL
);
CREATE INDEX ratings_leaderboard_idx ON ratings (display DESC, user_id);

-- What each rated game did to each player's rating, written in the
-- transaction that finished the game.
CREATE TABLE rating_changes (
    game_id TEXT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    seat TEXT NOT NULL CHECK (seat IN ('first', 'middle', 'last')),
    place INTEGER NOT NULL CHECK (place BETWEEN 1 AND 3),
    mu_before DOUBLE PRECISION NOT NULL,
    sigma_before DOUBLE PRECISION NOT NULL,
    mu_after DOUBLE PRECISION NOT NULL,
    sigma_after DOUBLE PRECISION NOT NULL,
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (game_id, user_id)
);
CREATE INDEX rating_changes_user_idx ON rating_changes (user_id, created_at DESC);
